"""The fabric's observability as per-device facts, pure (no Django): where every switch sends syslog, asks NTP, sends
sFlow and traps, which SNMP managers may poll it and which streaming-telemetry collectors may subscribe to it (gNMI,
dial-in) or receive its OpenTelemetry export (dial-out), and which hardware counters it polls.

The guide: "buy observability"; "make sure your switches expose queue drops, pause frames and ECN counters"; the
TELEMETRY class carries "SNMP, streaming telemetry, syslog, flow export". The collectors live there (the guide's
VLAN 50 subnet, or anywhere the management network routes to); every switch reaches them from its management VRF over
its out-of-band port, the one path every switch has (spines have no TELEMETRY VLAN) and the only VRF SONiC's NTP and
sFlow accept besides the default one (sonic-ntp.yang, sonic-sflow.yang: ``mgmt|default``).

Every number and address a template prints is here: the ports (syslog 514, NTP 123, SNMP 161/162, sFlow 6343, gNMI
9339 = IANA's gNMI port, OTLP/gRPC 4317 = OpenTelemetry's), the sampling rate, the counter poll intervals, the
sources each control-plane ACL admits (SNMP: the jump hosts and the managers; gNMI: the streaming collectors, nothing
else). Secrets never appear in clear: the SNMPv3 passphrases and the v2c community are the named placeholders of
:data:`SECRETS`, which the automation that deploys the configs fills (docs/contexts.md, "Secrets").
"""

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import netaddr

__all__ = (
    'COUNTER_POLL_MS',
    'DEFAULT_SFLOW_SAMPLING_RATE',
    'DEFAULT_SNMP_USER',
    'GNMI_PORT',
    'NOTHING_OBSERVABLE',
    'OTLP_PORT',
    'SECRETS',
    'SERVICES',
    'SFLOW_AGGRESSIVE_BELOW',
    'SFLOW_POLLING_INTERVAL',
    'SONIC_GNMI_CERTIFICATES',
    'TelemetryIntent',
    'collectors_of',
    'telemetry_facts',
    'telemetry_intent',
)

SYSLOG_PORT = 514
NTP_PORT = 123
SNMP_PORT = 161
SNMP_TRAP_PORT = 162
SFLOW_PORT = 6343
GNMI_PORT = 9339  # IANA's gNMI port; also the one Cumulus Linux's default whitelist opens
OTLP_PORT = 4317  # OpenTelemetry's OTLP/gRPC port (NVUE's `system telemetry export otlp grpc ... port`)
# SONiC's gNMI server listens beyond 127.0.0.1 only with TLS (no `certs` entry: `--noTLS --bind_address 127.0.0.1`,
# gnmi-native.sh). These are the paths SONiC itself writes by default (sonic-config-engine minigraph.py's TELEMETRY
# certs); the operator's PKI puts the files there, as with every other secret here.
SONIC_GNMI_CERTIFICATES = {
    'ca_crt': '/etc/sonic/telemetry/dsmsroot.cer',
    'server_crt': '/etc/sonic/telemetry/streamingtelemetryserver.cer',
    'server_key': '/etc/sonic/telemetry/streamingtelemetryserver.key',
}
SFLOW_POLLING_INTERVAL = 20  # s: sonic-sflow.yang's default counter-polling interval, set explicitly everywhere
# 1 in N packets; sonic-sflow.yang accepts 256..8388608. EOS takes a rate below 16384 only with `sflow sample
# dangerous` (AVD sflow.j2's `dangerous` option): the default is that threshold, and a lower rate is `aggressive`
SFLOW_AGGRESSIVE_BELOW = 16_384
DEFAULT_SFLOW_SAMPLING_RATE = SFLOW_AGGRESSIVE_BELOW
DEFAULT_SNMP_USER = 'aifabric'
# SONiC counter polling (FLEX_COUNTER_TABLE groups, sonic-flex_counter.yang) the guide's counters need: port counters
# carry the PFC pause frames per priority, QUEUE and PG_DROP the queue drops, the watermarks the buffer use,
# WRED_ECN_QUEUE the ECN marks, PFCWD the watchdog's storm counters (no interval leaf: None)
COUNTER_POLL_MS = {
    'PORT': 1000,
    'QUEUE': 10000,
    'QUEUE_WATERMARK': 10000,
    'PG_DROP': 10000,
    'PG_WATERMARK': 10000,
    'WRED_ECN_QUEUE': 10000,
    'PFCWD': None,
}
# the named placeholders the deploying automation replaces (Jinja-style, no spaces: one token on every NOS)
SECRETS = {
    'snmp_v3_auth': '{{secrets.snmp_v3_auth}}',
    'snmp_v3_priv': '{{secrets.snmp_v3_priv}}',
    'snmp_community': '{{secrets.snmp_community}}',
}
SERVICES = ('syslog', 'ntp', 'snmp', 'sflow', 'streaming')
NOTHING_OBSERVABLE = (
    'nothing is observable: the fabric has no syslog, NTP, SNMP, sFlow or streaming-telemetry collector, so no '
    'switch sends logs, keeps time, or exports queue drops, pause frames and ECN counters (the guide: "buy '
    'observability")'
)


@dataclass(frozen=True)
class TelemetryIntent:
    """The fabric's collectors and settings, as the intent gives them (addresses without prefix length)."""

    syslog: tuple[str, ...] = ()
    ntp: tuple[str, ...] = ()
    snmp_managers: tuple[str, ...] = ()
    snmp_version: str = 'v3'
    snmp_user: str = DEFAULT_SNMP_USER
    sflow: tuple[str, ...] = ()
    sflow_sampling_rate: int = DEFAULT_SFLOW_SAMPLING_RATE
    streaming: tuple[str, ...] = ()

    @property
    def empty(self) -> bool:
        return not (self.syslog or self.ntp or self.snmp_managers or self.sflow or self.streaming)


def telemetry_intent(data: Mapping[str, Any] | None) -> TelemetryIntent:
    """The intent's ``telemetry`` dict (``intake.intent.intent_of``) as typed data; None or {} is no collector at
    all."""
    data = data or {}
    return TelemetryIntent(
        syslog=_hosts(data.get('syslog')),
        ntp=_hosts(data.get('ntp')),
        snmp_managers=_hosts(data.get('snmp_managers')),
        snmp_version=str(data.get('snmp_version') or 'v3'),
        snmp_user=str(data.get('snmp_user') or DEFAULT_SNMP_USER),
        sflow=_hosts(data.get('sflow')),
        sflow_sampling_rate=int(data.get('sflow_sampling_rate') or DEFAULT_SFLOW_SAMPLING_RATE),
        streaming=_hosts(data.get('streaming')),
    )


def _hosts(values: Iterable[str] | None) -> tuple[str, ...]:
    """Addresses in their canonical form, duplicates dropped, in the order given."""
    seen: dict[str, None] = {}
    for value in values or ():
        seen.setdefault(str(netaddr.IPAddress(str(value).split('/')[0])), None)
    return tuple(seen)


def _host_prefixes(addresses: Iterable[str]) -> list[str]:
    return [f'{address}/32' for address in addresses]


def collectors_of(telemetry: Mapping[str, Any] | None) -> dict[str, list[str]]:
    """``{service: collector addresses}`` of a context's ``telemetry`` object (empty services left out)."""
    if not telemetry:
        return {}
    found = {
        'syslog': telemetry['syslog']['servers'],
        'ntp': telemetry['ntp']['servers'],
        'snmp': telemetry['snmp']['managers'],
        'sflow': telemetry['sflow']['collectors'],
        'streaming': telemetry['streaming']['collectors'],
    }
    return {service: list(addresses) for service, addresses in found.items() if addresses}


def telemetry_facts(
    intent: TelemetryIntent,
    vrf: str,
    source: str | None,
    jump_hosts: Sequence[str],
    pfc_tcs: Sequence[int] = (),
    ecn_tcs: Sequence[int] = (),
) -> dict[str, Any] | None:
    """A switch's ``telemetry`` context object (None when the fabric has no collector: nothing is rendered).

    ``vrf``: the management VRF the switch sends from and listens in; ``source``: its management address (no
    prefix length; None without a management network); ``jump_hosts``: the subnets SNMP already admits;
    ``pfc_tcs`` / ``ecn_tcs``: the lossless and ECN traffic classes whose queues the histograms watch."""
    if intent.empty:
        return None
    v3 = intent.snmp_version == 'v3'
    return {
        'vrf': vrf,
        'source': source,
        'syslog': {'servers': list(intent.syslog), 'port': SYSLOG_PORT, 'protocol': 'udp'},
        'ntp': {'servers': list(intent.ntp), 'port': NTP_PORT, 'iburst': True},
        'snmp': {
            'managers': list(intent.snmp_managers),
            'version': intent.snmp_version,
            'user': intent.snmp_user if v3 else None,
            'auth': SECRETS['snmp_v3_auth'] if v3 else None,
            'priv': SECRETS['snmp_v3_priv'] if v3 else None,
            'community': None if v3 else SECRETS['snmp_community'],
            'port': SNMP_PORT,
            'trap_port': SNMP_TRAP_PORT,
            # who may poll: the jump hosts (the guide's management rule) and the managers, nobody else
            'allowed_sources': list(jump_hosts) + _host_prefixes(intent.snmp_managers),
            'manager_sources': _host_prefixes(intent.snmp_managers),
        },
        'sflow': {
            'collectors': list(intent.sflow),
            'port': SFLOW_PORT,
            'sampling_rate': intent.sflow_sampling_rate,
            'aggressive': intent.sflow_sampling_rate < SFLOW_AGGRESSIVE_BELOW,
            'polling_interval': SFLOW_POLLING_INTERVAL,
        },
        'streaming': {
            'collectors': list(intent.streaming),
            'gnmi_port': GNMI_PORT,
            'otlp_port': OTLP_PORT,
            'sonic_certificates': dict(SONIC_GNMI_CERTIFICATES),
            'allowed_sources': _host_prefixes(intent.streaming),
        },
        'counters': {
            'poll_ms': dict(COUNTER_POLL_MS),
            'pfc_tcs': sorted(set(pfc_tcs)),
            'ecn_tcs': sorted(set(ecn_tcs)),
            'queue_tcs': sorted(set(pfc_tcs) | set(ecn_tcs)),
        },
    }
