"""Telemetry rules, on the devices' ``aifabric`` contexts and the fabric's intent: the fabric is observable
(the guide: "buy observability"), and every switch sends to the fabric's collectors and admits them, and only them,
through its control-plane ACLs (SNMP polling from the jump hosts and the managers, gNMI from the streaming
collectors). Pure."""

from collections.abc import Iterator

from netbox_aifabric.checks.engine import Facts, Finding, Obj, Rule, Skip
from netbox_aifabric.checks.fabric import device, switches
from netbox_aifabric.checks.observability import intended_collectors, missing_collectors
from netbox_aifabric.facts.telemetry import NOTHING_OBSERVABLE, collectors_of

__all__ = ('RULES',)


def _fabric(facts: Facts) -> Obj:
    return Obj('netbox_aifabric.fabric', facts.fabric)


def _intended(facts: Facts) -> dict[str, list[str]] | None:
    """``{service: collectors}`` the fabric asks for (None: the intent was not gathered)."""
    if facts.intent is None:
        return None
    return intended_collectors(facts.intent.get('telemetry'))


def check_observable(facts: Facts) -> Iterator[Finding]:
    """The fabric has a collector for each of syslog, NTP, SNMP, sFlow and streaming telemetry."""
    intended = _intended(facts)
    if intended is None:
        if not switches(facts):
            raise Skip('neither the intent nor a switch context is available')
        intended = {}
        for ctx in switches(facts).values():
            for service, addresses in collectors_of(ctx.get('telemetry')).items():
                intended.setdefault(service, addresses)
    if not intended:
        yield Finding(
            (_fabric(facts),), 'syslog, NTP, SNMP, sFlow and streaming-telemetry collectors', NOTHING_OBSERVABLE
        )
        return
    if missing := missing_collectors(intended):  # the rule the plan previews warn with (checks/observability.py)
        yield Finding(
            (_fabric(facts),),
            'a collector for each of syslog, NTP, SNMP, sFlow and streaming telemetry',
            f'no collector for {", ".join(missing)}',
        )


def _compare(name: str, what: str, expected: list[str], found: list[str]) -> Iterator[Finding]:
    missing = [s for s in expected if s not in found]
    extra = [s for s in found if s not in expected]
    if missing or extra:
        parts = ([f'missing {", ".join(missing)}'] if missing else []) + (
            [f'also admits {", ".join(extra)}'] if extra else []
        )
        yield Finding((device(name),), f'{what} exactly from {", ".join(expected) or "nobody"}', '; '.join(parts))


def check_admission(facts: Facts) -> Iterator[Finding]:
    """Every switch sends to the fabric's collectors, in its management VRF, and its control-plane ACLs admit the
    SNMP managers (besides the jump hosts) and the streaming collectors, and no other source."""
    if not switches(facts):
        raise Skip('no switch has an aifabric context (the fabric has not been applied)')
    intended = _intended(facts)
    for name, ctx in switches(facts).items():
        telemetry = ctx.get('telemetry')
        sent = collectors_of(telemetry)
        if intended is not None and sent != intended:
            yield Finding(
                (device(name),),
                f"telemetry to the fabric's collectors {intended or '(none)'}",
                f'the context has {sent or "none"} (re-apply the fabric)',
            )
        if not telemetry:
            continue
        plane = ctx.get('management') or {}
        if telemetry['vrf'] != plane.get('vrf'):
            yield Finding(
                (device(name),),
                f'telemetry in the management VRF {plane.get("vrf")}',
                f'telemetry in VRF {telemetry["vrf"]}',
            )
        managers = [f'{a}/32' for a in telemetry['snmp']['managers']]
        yield from _compare(
            name, 'SNMP', list(plane.get('jump_hosts') or ()) + managers, telemetry['snmp']['allowed_sources']
        )
        yield from _compare(name, 'SNMP (managers)', managers, telemetry['snmp']['manager_sources'])
        streaming = [f'{a}/32' for a in telemetry['streaming']['collectors']]
        yield from _compare(name, 'gNMI', streaming, telemetry['streaming']['allowed_sources'])


RULES = (
    Rule(
        'telemetry-observable',
        'fabric',
        'The fabric is observable',
        'warning',
        'Buy observability: make sure your switches expose queue drops, pause frames and ECN counters, and send '
        'SNMP, streaming telemetry, syslog and flow export to the TELEMETRY collectors.',
        "Set the fabric's syslog, NTP, SNMP, sFlow and streaming-telemetry collectors (Telemetry) and re-apply.",
        check_observable,
    ),
    Rule(
        'security-telemetry-admission',
        'security',
        'Collectors admitted, and only they',
        'error',
        'Permit SSH/HTTPS/SNMP only from a jump host subnet: SNMP polling and gNMI only from the collectors, which '
        'every switch must reach and admit, or nothing is observable.',
        "Re-apply the fabric so the switches' contexts carry its collectors; never widen a control-plane ACL by hand.",
        check_admission,
    ),
)
