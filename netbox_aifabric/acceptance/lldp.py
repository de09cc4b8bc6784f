"""LLDP neighbour tables as the tools print them, parsed and judged against the plan's cables (pure: no Django).

Each parser returns the ``Neighbour`` s one device saw (its local port, the remote system name, the remote port ID and
description); ``judge_cabling`` holds every device's view against ``Plan.links``: each planned cable must be seen from
both ends (a server end where it runs lldpd; a BMC end is seen from the switch only), a port that sees another system
or port is miswired (expected vs found), one that sees nothing is missing, a neighbour on a port the plan does not
cable is unplanned. Bad input raises ``UploadError`` naming the field; nothing is judged.

Sources (shapes encoded, not copied):

- Arista EOS ``show lldp neighbors | json``: ``lldpNeighbors`` a list of ``{port, neighborDevice, neighborPort, ttl}``
  (napalm-automation/napalm ``napalm/eos/eos.py`` get_lldp_neighbors); ``show lldp neighbors detail | json``:
  ``lldpNeighbors`` a dict port -> ``{lldpNeighborInfo: [{systemName, neighborInterfaceInfo: {interfaceId_v2,
  interfaceDescription}}]}`` (arista-netdevops-community/anta ``anta/tests/connectivity.py`` VerifyLLDPNeighbors);
  an eAPI reply (``{"result": [...]}``) is unwrapped.
- NVIDIA Cumulus NVUE ``nv show interface lldp-detail -o json`` (or ``nv show interface -o json``): interface ->
  ``{lldp: {neighbor: {<id>: {chassis: {system-name}, port: {name, description}}}}}``, the NVUE object model's
  ``/interface/<id>/lldp/neighbor/<id>`` (NVUE reference, Show Commands, LLDP:
  https://docs.nvidia.com/networking-ethernet-software/nvue-reference/Show-Commands/LLDP/).
- lldpd ``lldpctl -f json`` (Linux servers; SONiC's ``lldp`` container: ``docker exec lldp lldpctl -f json``):
  ``lldp.interface`` is one ``{ifname: {...}}`` dict for one interface and a list of them for more (the lldpcli(8)
  man page: json0 "is not affected by the number of interfaces or the number of neighbors", json is), the chassis
  keyed by its system name (no key when it sends none), ``port.id.value`` and ``port.descr``; ``-f json0`` (lists
  everywhere, ``name``/``value`` keys) too (lldpd/lldpd ``tests/integration/test_lldpcli.py``, test_json_output and
  test_json0_output). SONiC advertises its port *alias* as the port ID (sonic-buildimage ``dockers/docker-lldp``
  lldpmgrd: ``configure ports <ifname> lldp portidsubtype local <alias>``): a remote port that differs from the plan
  counts as seen when the far end's own upload shows the planned port seeing this device. lldpd's default port ID
  is the MAC address, the interface name its description (lldpcli(8), ``portidsubtype``): the description is
  matched too, and a MAC without one leaves that end to the far end's own upload.

Device names: a system name matches a plan device case-insensitively, whole or by its first label (``spine1.dc1.
example.com`` is ``spine1``: the FQDN suffix stripped). Port names: case-insensitively, as the plan names them or as
a NOS names them (facts/nos.py ``interface_naming``: ``Ethernet12`` is NVUE's ``swp12``).
"""

import json
import re
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from netbox_aifabric.acceptance.judge import MAX_OUTPUT, UploadError, Verdict
from netbox_aifabric.constants import LLDP_CATEGORY, LLDP_DEVICE_CATEGORY
from netbox_aifabric.facts.nos import NOS_REGISTRY
from netbox_aifabric.planner.result import Link, Plan

__all__ = (
    'CATEGORY',
    'DEVICE_CATEGORY',
    'LLDP_TOOLS',
    'Neighbour',
    'device_name',
    'device_verdict',
    'judge_cabling',
    'parse_eos_lldp',
    'parse_lldp',
    'parse_lldpd',
    'parse_nvue_lldp',
    'plan_devices',
)

CATEGORY = LLDP_CATEGORY  # one result per planned cable, and one per unplanned neighbour
DEVICE_CATEGORY = LLDP_DEVICE_CATEGORY  # one result per uploaded device: its view, the tool's output as raw
PASSED, FAILED, NOT_VERIFIED = 'passed', 'failed', 'not-verified'
NO_LLDP_END = ('bmc',)  # link kinds whose far end (a BMC) runs no lldpd to upload from


@dataclass(frozen=True)
class Neighbour:
    """One LLDP neighbour as a device saw it: its local port, the remote system name ('' if it sent none), the
    remote port ID and the remote port description."""

    port: str
    system: str
    remote_port: str
    remote_descr: str = ''


def _json(output: object, command: str) -> Any:
    if not isinstance(output, str) or not output.strip():
        raise UploadError('output', f'empty: paste or upload what {command} printed')
    if len(output) > MAX_OUTPUT:
        raise UploadError('output', f'{len(output)} characters, at most {MAX_OUTPUT}')
    if '\x00' in output:
        raise UploadError('output', 'contains NUL characters: not a tool output')
    try:
        return json.loads(output)
    except (ValueError, RecursionError) as e:
        raise UploadError('output', f'not {command} output (invalid JSON: {str(e)[:120]})') from None


def _text(value: object, what: str) -> str:
    """A string field ('' when absent); a number is a name too (an LLDP port ID may be a number)."""
    if value is None:
        return ''
    if isinstance(value, bool) or not isinstance(value, str | int):
        raise UploadError('output', f'{what}: a text expected, found {type(value).__name__}')
    return str(value).strip().strip('"')


def _object(value: object, what: str) -> dict:
    if not isinstance(value, dict):
        raise UploadError('output', f'{what}: a JSON object expected, found {type(value).__name__}')
    return value


def parse_eos_lldp(output: object) -> list[Neighbour]:
    """EOS ``show lldp neighbors | json`` (or ``... detail | json``, or the eAPI reply holding either)."""
    command = 'show lldp neighbors | json'
    data = _json(output, command)
    if isinstance(data, dict) and isinstance(data.get('result'), list) and data['result']:
        data = data['result'][0]  # an eAPI JSON-RPC reply
    if not isinstance(data, dict) or 'lldpNeighbors' not in data:
        raise UploadError('output', f'not {command} output: no "lldpNeighbors"')
    table = data['lldpNeighbors']
    if isinstance(table, list):
        found = []
        for n, entry in enumerate(table):
            entry = _object(entry, f'lldpNeighbors[{n}]')
            port = _text(entry.get('port'), f'lldpNeighbors[{n}].port')
            if not port:
                raise UploadError('output', f'lldpNeighbors[{n}] names no local port ("port")')
            system = _text(entry.get('neighborDevice'), f'lldpNeighbors[{n}].neighborDevice')
            found.append(Neighbour(port, system, _text(entry.get('neighborPort'), f'lldpNeighbors[{n}].neighborPort')))
        return found
    return list(_eos_detail(_object(table, 'lldpNeighbors')))


def _eos_detail(table: dict) -> Iterator[Neighbour]:
    for port, body in table.items():
        infos = _object(body, f'lldpNeighbors.{port}').get('lldpNeighborInfo') or []
        if not isinstance(infos, list):
            raise UploadError('output', f'lldpNeighbors.{port}.lldpNeighborInfo: a list expected')
        for n, info in enumerate(infos):
            where = f'lldpNeighbors.{port}.lldpNeighborInfo[{n}]'
            info = _object(info, where)
            remote = _object(info.get('neighborInterfaceInfo') or {}, f'{where}.neighborInterfaceInfo')
            remote_port = _text(remote.get('interfaceId_v2') or remote.get('interfaceId'), f'{where} interfaceId')
            descr = _text(remote.get('interfaceDescription'), f'{where} interfaceDescription')
            yield Neighbour(str(port), _text(info.get('systemName'), f'{where}.systemName'), remote_port, descr)


def parse_nvue_lldp(output: object) -> list[Neighbour]:
    """NVUE ``nv show interface lldp-detail -o json``: interface -> its ``lldp.neighbor`` (or ``neighbor``)."""
    command = 'nv show interface lldp-detail -o json'
    data = _json(output, command)
    if not isinstance(data, dict):
        raise UploadError('output', f'not {command} output: a JSON object of interfaces expected')
    if 'neighbor' in data:
        raise UploadError('output', f"one interface's output names no port: upload {command} (every interface)")
    found: list[Neighbour] = []
    with_lldp = 0
    for port, body in data.items():
        body = _object(body, f'interface {port}')
        lldp = body.get('lldp', body)
        lldp = _object(lldp, f'{port}.lldp') if lldp is not None else {}
        if 'neighbor' not in lldp:
            continue
        with_lldp += 1
        for key, neighbour in _object(lldp['neighbor'] or {}, f'{port}.lldp.neighbor').items():
            neighbour = _object(neighbour, f'{port}.lldp.neighbor.{key}')
            chassis = _object(neighbour.get('chassis') or {}, f'{port} neighbour {key} chassis')
            remote = _object(neighbour.get('port') or {}, f'{port} neighbour {key} port')
            system = _text(chassis.get('system-name'), f'{port} neighbour {key} system-name') or str(key)
            remote_port = _text(remote.get('name'), f'{port} neighbour {key} port name')
            descr = _text(remote.get('description'), f'{port} neighbour {key} port description')
            found.append(Neighbour(str(port), system, remote_port, descr))
    if data and not with_lldp:
        raise UploadError('output', f'no interface has an "lldp" section: not {command} output')
    return found


def parse_lldpd(output: object) -> list[Neighbour]:
    """lldpd ``lldpctl -f json`` (one interface: a dict; more: a list) or ``-f json0``."""
    command = 'lldpctl -f json'
    data = _json(output, command)
    if not isinstance(data, dict) or 'lldp' not in data:
        raise UploadError('output', f'not {command} output: no "lldp"')
    lldp = data['lldp']
    if isinstance(lldp, list):  # json0
        lldp = _object(lldp[0], 'lldp[0]') if lldp else {}
    interfaces = _object(lldp, 'lldp').get('interface')
    if interfaces is None:
        return []  # no neighbour at all
    if isinstance(interfaces, dict):
        interfaces = [interfaces]
    if not isinstance(interfaces, list):
        raise UploadError('output', 'lldp.interface: an object or a list expected')
    found = []
    for n, entry in enumerate(interfaces):
        entry = _object(entry, f'lldp.interface[{n}]')
        if isinstance(entry.get('name'), str) and isinstance(entry.get('chassis', entry.get('port', [])), list):
            found.append(_lldpd_json0(entry, n))  # json0: {"name": ifname, "chassis": [...], "port": [...]}
            continue
        for name, body in entry.items():
            found.append(_lldpd_json(str(name), _object(body, f'lldp.interface {name}')))
    return found


def _lldpd_json(port: str, body: dict) -> Neighbour:
    chassis = _object(body.get('chassis') or {}, f'{port} chassis')
    system = ''
    if isinstance(chassis.get('name'), str):
        system = chassis['name']
    elif not isinstance(chassis.get('id'), dict):  # keyed by its system name (no key: it sent none)
        system = next((str(k) for k, v in chassis.items() if isinstance(v, dict)), '')
    remote = _object(body.get('port') or {}, f'{port} port')
    port_id = remote.get('id')
    port_id = _object(port_id, f'{port} port id').get('value') if isinstance(port_id, dict) else port_id
    descr = remote.get('descr')
    return Neighbour(port, _text(system, f'{port} chassis name'), _text(port_id, f'{port} port id'),
                     _text(descr, f'{port} port descr'))  # fmt: skip


def _first_value(items: object, what: str) -> object:
    """json0's ``[{"value": x}]`` (or ``[{"type": .., "value": x}]``): x, None when absent."""
    if items is None or items == []:
        return None
    if not isinstance(items, list):
        raise UploadError('output', f'{what}: a list expected (lldpctl -f json0)')
    return _object(items[0], what).get('value')


def _lldpd_json0(entry: dict, n: int) -> Neighbour:
    port = _text(entry['name'], f'lldp.interface[{n}].name')
    chassis_list = entry.get('chassis') or []
    if not isinstance(chassis_list, list):
        raise UploadError('output', f'{port} chassis: a list expected (lldpctl -f json0)')
    chassis = _object(chassis_list[0], f'{port} chassis') if chassis_list else {}
    ports = entry.get('port') or []
    if not isinstance(ports, list):
        raise UploadError('output', f'{port} port: a list expected (lldpctl -f json0)')
    remote = _object(ports[0], f'{port} port') if ports else {}
    return Neighbour(
        port,
        _text(_first_value(chassis.get('name'), f'{port} chassis name'), f'{port} chassis name'),
        _text(_first_value(remote.get('id'), f'{port} port id'), f'{port} port id'),
        _text(_first_value(remote.get('descr'), f'{port} port descr'), f'{port} port descr'),
    )


# tool name -> parser; the upload's ``tool`` (eos-lldp, nvue-lldp: the NOS key like the counter tools; sonic-lldp
# and lldpctl (servers) both lldpd's JSON)
LLDP_TOOLS: dict[str, Callable[[object], list[Neighbour]]] = {
    'eos-lldp': parse_eos_lldp,
    'nvue-lldp': parse_nvue_lldp,
    'sonic-lldp': parse_lldpd,
    'lldpctl': parse_lldpd,
}


def parse_lldp(tool: str, output: object) -> list[Neighbour]:
    if tool not in LLDP_TOOLS:
        raise UploadError('tool', f'{tool!r} is not one of {", ".join(LLDP_TOOLS)}')
    return LLDP_TOOLS[tool](output)


def _fold(name: str) -> str:
    return name.strip().rstrip('.').casefold()


def device_name(system: str, devices: Sequence[str]) -> str | None:
    """The plan device a system name is: whole, or its first label (FQDN suffix stripped); case-insensitive."""
    by_fold = {_fold(d): d for d in devices}
    folded = _fold(system)
    return by_fold.get(folded) or by_fold.get(folded.split('.', 1)[0]) if folded else None


_NAMINGS = [dict(nos.interface_naming) for nos in NOS_REGISTRY]


def _port_names(name: str) -> set[str]:
    """A plan port's name and its names on each NOS (``Ethernet12``: ``swp12`` on NVUE), case-folded."""
    names = {name.casefold()}
    for naming in _NAMINGS:
        for generic, own in naming.items():
            if name.startswith(generic) and name[len(generic) :].isdigit():
                names.add((own + name[len(generic) :]).casefold())
    return names


def _same_port(seen: str, planned: str) -> bool:
    return bool(seen) and seen.strip().casefold() in _port_names(planned)


@dataclass(frozen=True)
class _End:
    device: str
    port: str
    peer: str
    peer_port: str


def _ends(link: Link) -> tuple[_End, _End]:
    return (_End(link.a_node, link.a_interface, link.b_node, link.b_interface),
            _End(link.b_node, link.b_interface, link.a_node, link.a_interface))  # fmt: skip


def _on_port(view: Sequence[Neighbour], port: str) -> list[Neighbour]:
    return [n for n in view if _same_port(n.port, port)]


def _seen(n: Neighbour, devices: Sequence[str]) -> str:
    system = device_name(n.system, devices) or n.system or '(no system name)'
    return f'{system} {n.remote_port or "(no port ID)"}'


_MAC = re.compile(r'(?:[0-9a-fA-F]{2}[:-]){5}[0-9a-fA-F]{2}|(?:[0-9a-fA-F]{4}\.){2}[0-9a-fA-F]{4}')


def _end_state(end: _End, views: Mapping[str, Sequence[Neighbour]], devices: Sequence[str]) -> tuple[str, str]:
    """``(state, what)``: ok, wrong, none or unknown (its device not uploaded), and what it saw."""
    if end.device not in views:
        return 'unknown', f"{end.device} {end.port}: not uploaded (upload {end.device}'s LLDP)"
    here = _on_port(views[end.device], end.port)
    expected = f'expected {end.peer} {end.peer_port}'
    if not here:
        return 'none', f'{end.device} {end.port}: {expected}, found no LLDP neighbour'
    for n in here:
        if device_name(n.system, devices) != end.peer:
            continue
        if _same_port(n.remote_port, end.peer_port) or _same_port(n.remote_descr, end.peer_port):
            return 'ok', f'{end.device} {end.port}: {end.peer} {end.peer_port}'
        # the far end's own upload settles a port ID that is an alias (SONiC advertises its alias)
        theirs = _on_port(views.get(end.peer, ()), end.peer_port)
        if any(device_name(t.system, devices) == end.device and _same_port(t.remote_port, end.port) for t in theirs):
            return 'ok', f'{end.device} {end.port}: {end.peer} {end.peer_port} (advertised as {n.remote_port})'
        if _MAC.fullmatch(n.remote_port) and not n.remote_descr:
            # lldpd's default port ID is the MAC (the name goes in the description): the far end's upload decides
            return 'unknown', (f'{end.device} {end.port}: {end.peer}, its port advertised as {n.remote_port} (upload '
                               f"{end.peer}'s LLDP to see its port)")  # fmt: skip
    found = ', '.join(_seen(n, devices) for n in here)
    return 'wrong', f'{end.device} {end.port}: {expected}, found {found}'


def _link_verdict(link: Link, views: Mapping[str, Sequence[Neighbour]], devices: Sequence[str]) -> Verdict:
    ends = _ends(link)
    states = [_end_state(e, views, devices) for e in ends]
    if link.kind in NO_LLDP_END:  # the BMC end uploads nothing: the switch end decides
        states = [(s, w) if s != 'none' else ('unknown', w + ' (a BMC may send no LLDP)') for s, w in states[:1]]
    kinds = [s for s, _ in states]
    if 'wrong' in kinds or 'none' in kinds:
        status = FAILED
    elif all(k == 'ok' for k in kinds):
        status = PASSED
    else:
        status = NOT_VERIFIED
    subject = f'{link.a_node} {link.a_interface} <-> {link.b_node} {link.b_interface}'
    both = 'the switch end' if link.kind in NO_LLDP_END else 'both ends'
    expected = f'{subject} ({link.kind}) seen from {both}: ' + '; '.join(
        f'{e.device} {e.port} sees {e.peer} {e.peer_port}' for e in ends[: len(states)]
    )
    return Verdict(f'lldp {subject}', CATEGORY, subject, status, expected, '; '.join(w for _, w in states), None)


def _unplanned(views: Mapping[str, Sequence[Neighbour]], plan: Plan, devices: Sequence[str]) -> list[Verdict]:
    """A neighbour on a port the plan does not cable: failed when it is a device of the plan (a fabric cable the
    plan does not have), to review otherwise (a management switch, a device outside the fabric)."""
    cabled: dict[str, list[str]] = {}
    for link in plan.links:
        for end in _ends(link):
            cabled.setdefault(end.device, []).append(end.port)
    out = []
    for device, view in sorted(views.items()):
        for n in view:
            if any(_same_port(n.port, p) for p in cabled.get(device, ())):
                continue
            ours = device_name(n.system, devices)
            subject = f'{device} {n.port}'
            out.append(Verdict(
                f'lldp {subject}: unplanned neighbour', CATEGORY, subject, FAILED if ours else NOT_VERIFIED,
                f'{subject}: no cable in the plan', f'{subject}: found {_seen(n, devices)}'
                + ('' if ours else ' (not a device of the plan: to review)'), None,
            ))  # fmt: skip
    return out


def plan_devices(plan: Plan) -> list[str]:
    """Every device a planned cable ends on (switches and servers)."""
    return sorted({n for link in plan.links for n in (link.a_node, link.b_node)})


def judge_cabling(plan: Plan, views: Mapping[str, Sequence[Neighbour]]) -> list[Verdict]:
    """One verdict per planned cable (plan order), then one per unplanned neighbour; ``views``: device -> what its
    LLDP saw (the devices uploaded so far)."""
    devices = plan_devices(plan)
    return [_link_verdict(link, views, devices) for link in plan.links] + _unplanned(views, plan, devices)


def device_verdict(tool: str, device: str, neighbours: Sequence[Neighbour], verdicts: Sequence[Verdict]) -> Verdict:
    """An uploaded device's own result: failed when a cable or unplanned neighbour on it failed, passed when every
    cable on it passed, not verified while a far end is still to upload."""
    mine = [v for v in verdicts if _touches(v.subject, device)]
    failed = [v for v in mine if v.status == FAILED]
    status = FAILED if failed else PASSED if all(v.status == PASSED for v in mine) else NOT_VERIFIED
    seen = f'{len(neighbours)} LLDP neighbours; {len(mine) - len(failed)} of {len(mine)} cables and neighbours fine'
    if failed:
        seen += ': ' + '; '.join(v.seen for v in failed)
    expected = f'every planned cable on {device} seen, no unplanned neighbour'
    return Verdict(f'{tool} {device}', DEVICE_CATEGORY, device, status, expected, seen, float(len(neighbours)))


def _touches(subject: str, device: str) -> bool:
    sides = subject.split(' <-> ')
    return any(side.split(' ', 1)[0] == device for side in sides)
