"""LLDP rule: the cabling as the devices' LLDP saw it agrees with the plan, every planned cable seen from both ends.

Reads ``Facts.acceptance['lldp']`` (``checks.compliance.lldp_facts``: the newest acceptance run with an LLDP upload and
its LLDP results, judged on upload by ``acceptance.lldp``) against ``Facts.plan``'s links: a cable whose result failed
(miswired: expected vs found; missing: nothing seen) or is not verified (an end not uploaded) is a finding on its two
interfaces, as is a cable of the plan that run never judged (the plan changed since) and a fabric device seen on a port
the plan does not cable. No LLDP upload yet is a skip, never a pass. Pure.
"""

from collections.abc import Iterator
from typing import Any

from netbox_aifabric.checks.engine import Facts, Finding, Obj, Rule, Skip
from netbox_aifabric.constants import LLDP_CATEGORY

__all__ = ('RULES', 'check_lldp_cabling')

NO_UPLOAD = (
    "no LLDP upload yet: upload each switch's and server's LLDP neighbours to a manual acceptance run (the "
    "runbook's physical section does: eos-lldp, nvue-lldp, sonic-lldp, lldpctl)"
)


def _subject(link) -> str:
    return f'{link.a_node} {link.a_interface} <-> {link.b_node} {link.b_interface}'


def _lldp_facts(facts: Facts) -> dict[str, Any]:
    gathered = getattr(facts, 'acceptance', None)
    if gathered is None or 'lldp' not in gathered:
        raise Skip(facts.errors.get('acceptance') or 'the LLDP uploads were not read')
    if gathered['lldp'] is None:
        raise Skip(NO_UPLOAD)
    if facts.plan is None:
        raise Skip(facts.errors.get('plan') or 'no plan to hold the cabling against')
    return gathered['lldp']


def check_lldp_cabling(facts: Facts) -> Iterator[Finding]:
    """Every planned cable passed in the newest LLDP-judged run; no fabric device on an unplanned port."""
    lldp = _lldp_facts(facts)
    run = Obj('netbox_aifabric.acceptancerun', lldp['run']['name'], pk=lldp['run']['id'])
    results = {r['subject']: r for r in lldp['results'] if r['category'] == LLDP_CATEGORY}
    for link in facts.plan.links:
        ends = (Obj('dcim.interface', link.a_interface, device=link.a_node),
                Obj('dcim.interface', link.b_interface, device=link.b_node), run)  # fmt: skip
        result = results.pop(_subject(link), None)
        if result is None:
            yield Finding(ends, f'{_subject(link)} seen by LLDP from both ends',
                          f'not judged by {run.name}: the plan has changed since, upload the LLDP again')  # fmt: skip
        elif result['status'] != 'passed':
            yield Finding(ends, result['expected'], f'{result["status"]}: {result["seen"]}')
    for subject, result in results.items():  # the unplanned neighbours (and cables the plan no longer has)
        if result['status'] != 'failed':
            continue  # a neighbour outside the fabric (a management switch): to review in the run, not a finding
        device, _, port = subject.partition(' ')
        objects = (Obj('dcim.interface', port, device=device), run) if ' <-> ' not in subject else (run,)
        yield Finding(objects, result['expected'], result['seen'])


RULES = (
    Rule(
        'fabric-lldp',
        'fabric',
        "The devices' LLDP neighbours match the planned cabling, every cable seen from both ends",
        'error',
        'A link that is up is not a link that is right: a cable in the wrong port comes up, then carries the wrong '
        "BGP session or puts a server's bond on the wrong leaves; only the neighbours each end sees tell.",
        "Upload each switch's and server's LLDP neighbours (the acceptance runbook's physical section) and recable "
        'the ports the findings name (expected vs found).',
        check_lldp_cabling,
    ),
)
