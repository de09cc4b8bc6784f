"""``check_segments(contexts)``: do the contexts of a fabric's EVPN multihoming pairs agree on their Ethernet segments?

Each leaf's template configures only its own side of a segment (FRR ``es-id``/``es-sys-mac``, NVUE ``local-id``/
``mac-address``, EOS ``identifier``/``route-target import``/``lacp system-id``); a bond comes up as one all-active
ESI-LAG only when both leaves print the same values. No single rendered file can show a disagreement, so this looks
at all the contexts at once. It lives with the template tests; the planner (which allocates the ESIs) and the fabric
render (``render/configs.py``, which has every device's context) could run it too.
"""

from collections import defaultdict

__all__ = ('check_segments', 'esi_parts')


def esi_parts(esi: str) -> dict:
    """What a type-3 ESI ``03:<6-byte MAC>:<3-byte local id>`` implies for the per-NOS fields of its bond."""
    octets = esi.split(':')
    return {
        'es_sys_mac': ':'.join(octets[1:7]),
        'es_id': int(''.join(octets[7:]), 16),
        'es_import_rt': ':'.join(octets[4:]),
    }


def _lag_problems(name, lag):
    problems = []
    if not lag['esi'].startswith('03:') or len(lag['esi'].split(':')) != 10:
        problems.append(f'{name} {lag["name"]}: {lag["esi"]} is not a type-3 ESI')
        return problems
    for key, value in esi_parts(lag['esi']).items():
        if lag.get(key) != value:
            problems.append(f'{name} {lag["name"]}: {key} {lag.get(key)!r} does not match ESI {lag["esi"]} ({value!r})')
    return problems


def _segments(name, ctx):
    """``{bond: ESI}`` of one leaf, checking that evpn_mh.segments and lags[] say the same."""
    problems = []
    lags = {lag['name']: lag for lag in ctx['lags'] if lag.get('esi')}
    listed = {s['lag']: s['esi'] for s in ctx['evpn_mh']['segments']}
    if listed != {bond: lag['esi'] for bond, lag in lags.items()}:
        problems.append(f'{name}: evpn_mh.segments {listed} differ from the ESIs of its lags')
    for lag in lags.values():
        problems.extend(_lag_problems(name, lag))
    return listed, problems


def _pair_problems(name, mine, peer, theirs):
    problems = []
    for bond in sorted(set(mine) | set(theirs)):
        if mine.get(bond) != theirs.get(bond):
            problems.append(f'{bond}: {name} has ESI {mine.get(bond)}, its pair {peer} has {theirs.get(bond)}')
    return problems


def _shared(owners):
    return [f'ESI {esi} is used by {len(found)} segments' for esi, found in sorted(owners.items()) if len(found) > 1]


def check_segments(contexts: dict) -> list[str]:
    """The disagreements among ``{device: context}`` of a fabric about its Ethernet segments ([] when none): a pair
    that is not mutual, a bond whose ESI differs between the two leaves or is missing on one, per-NOS fields
    (``es_sys_mac``, ``es_id``, ``es_import_rt``) that are not the ESI's, one ESI on two different segments."""
    mh = {name: ctx for name, ctx in sorted(contexts.items()) if ctx.get('evpn_mh')}
    segments, problems, owners = {}, [], defaultdict(set)
    for name, ctx in mh.items():
        segments[name], found = _segments(name, ctx)
        problems.extend(found)
    for name, ctx in mh.items():
        peer = ctx['evpn_mh']['peer']
        if peer not in mh or mh[peer]['evpn_mh']['peer'] != name:
            problems.append(f'{name}: its pair {peer} does not name it as its EVPN multihoming peer')
            continue
        if name < peer:
            problems.extend(_pair_problems(name, segments[name], peer, segments[peer]))
        for bond, esi in segments[name].items():
            owners[esi].add((frozenset((name, peer)), bond))
    return problems + _shared(owners)
