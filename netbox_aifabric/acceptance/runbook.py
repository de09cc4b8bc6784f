"""The guide's acceptance tests for one fabric, generated from its plan and the devices' ``aifabric`` contexts (pure).

``build_runbook(plan, contexts, nos)`` lists the steps, section by section, each with where it runs, the command and
what must be seen:

- physical checks per switch port (speed, FEC, CRC/FCS errors, link flaps) with the command of the switch's NOS
  (EOS, NVUE, SONiC; all three when the NOS is not known), and every switch's and server's LLDP neighbours
  (``LLDP_COMMANDS``, servers ``lldpctl -f json``), uploaded and judged against the plan's cables (acceptance/lldp.py);
- MTU pings (``ping -M do -s <mtu-28>``) across every jumbo switch-to-switch link and from every leaf's loopback to
  every other leaf's;
- ``iperf3 -P 8`` pairs: one same-leaf pair per rack, one leaf-to-leaf pair per two racks, every storage node from one
  server of each rack, each with a continuous ping during the load;
- RDMA (perftest) pairs between the servers' RDMA NICs at their plan addresses (``rdma.rdma_pairs``: same-leaf,
  cross-leaf, cross-rack): ``ib_write_bw`` and ``ib_send_lat`` over rdma_cm (``-R``) in the lossless class's ToS
  (``-T``), server side then client side, with the two NICs' ``ethtool -S`` and their leaves' PFC/queue/ECN counters
  before and after each pair; without an RDMA NIC, an address or a lossless class the section says why it is empty;
- the security matrix: every ordered pair of traffic classes, reachable or blocked as the matrix says.

``runbook_script`` renders it as a bash script (every value shell-quoted) that saves each output and, given
``NETBOX_URL``, ``NETBOX_TOKEN`` and ``RUN_ID``, uploads the iperf3, perftest and ping output, the counter
snapshots and the LLDP neighbours to the acceptance run to be judged.

perftest's options from its man page (linux-rdma/perftest@man/perftest.1): ``-R`` connects the QPs with rdma_cm (the
NIC is then found by the address, no ``-d`` or GID index ``-x`` needed), ``-T`` sets the ToS of rdma_cm QPs,
``--report_gbits`` reports Gbit/s, ``-D`` runs for seconds, ``-n`` the iterations, ``--bind_source_ip`` the client's
source address; ``--tclass`` with ``-x <gid index>`` is the equivalent without rdma_cm (not generated: the GID index
differs per host). The server side starts first and serves one test (the same options on both sides).
"""

import ipaddress
import shlex
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from netbox_aifabric.acceptance.rdma import RdmaNic, lossless_tos, rdma_nics, rdma_pairs
from netbox_aifabric.checks.matrix import security_matrix
from netbox_aifabric.facts.nos import acceptance_nos
from netbox_aifabric.planner.result import Plan

__all__ = (
    'LLDP_COMMANDS', 'LLDP_STEP', 'NOS_COMMANDS', 'Runbook', 'Step', 'build_runbook', 'iperf3_pairs', 'lldp_steps',
    'runbook_script',
)  # fmt: skip

# The commands of each NOS with a switch runbook (facts/nos.py, each NOS's sources there): per port, speed and FEC,
# error counters (CRC/FCS), link flaps; per switch, EVPN sessions, VNIs and routes; RoCE counters (PFC pause frames,
# queue drops, ECN marks) snapshotted before and after the load (the throughput section). The "| json" and NVUE
# counters are uploaded and judged (counters.py; the NOS's judged commands), the rest saved for review.
NOS_COMMANDS = {nos.key: nos.runbook.physical for nos in acceptance_nos() if nos.runbook}
EVPN_COMMANDS = {nos.key: nos.runbook.evpn for nos in acceptance_nos() if nos.runbook}
ROCE_COMMANDS = {nos.key: nos.runbook.roce for nos in acceptance_nos() if nos.runbook}
# Each NOS's LLDP neighbour table as JSON and its upload tool (acceptance/lldp.py, the sources there): EOS's
# show lldp neighbors | json, NVUE's nv show interface lldp-detail -o json, SONiC's lldpd in its lldp container
LLDP_COMMANDS = {
    'eos': ('eos-lldp', 'show lldp neighbors | json'),
    'nvue': ('nvue-lldp', 'nv show interface lldp-detail -o json'),
    'sonic': ('sonic-lldp', 'docker exec lldp lldpctl -f json'),
}
HOST_LLDP = ('lldpctl', 'lldpctl -f json')  # a server's lldpd (lldpctl needs no root for the neighbours)
LLDP_STEP = 'lldp'  # the physical section's LLDP steps (Step.kind)
# the server NIC (NVIDIA ConnectX, mlx5): ethtool -S, the counters of NVIDIA's mlx5 counters documentation
NIC_COMMAND = 'ethtool -S {nic}'
ANSIBLE_PLAYBOOK = 'examples/ansible/playbook.yml'  # shipped with the plugin's examples; the step skips without it
PING_COUNT = 5
IPERF_SECONDS = 30
RDMA_SECONDS = 10  # ib_write_bw -D: long enough for PFC and DCQCN to settle, short enough for many pairs
RDMA_LAT_ITERATIONS = 10000  # ib_send_lat -n: a 99.9th percentile of ten samples, not of one
RDMA_TIMEOUT = 120  # seconds a perftest side may run (timeout(1)): a server whose client never came must end
SERVER_LINK = 'server'
SECTIONS = ('physical', 'mtu', 'evpn', 'roce', 'throughput', 'rdma', 'security', 'ansible')


@dataclass(frozen=True)
class Step:
    section: str  # physical, mtu, throughput, security
    subject: str  # 'leaf1 Ethernet1', 'leaf1 -> leaf2', 'USERS -> MGMT'
    where: str  # the switch or host it runs on ('' for the machine running the script)
    commands: tuple[str, ...]
    expect: str
    kind: str = ''  # throughput: same-leaf, leaf-to-leaf, storage; security: reachable / blocked
    source: str = ''
    destination: str = ''
    # counter snapshots before and after the step (rdma): (kind nic|switch, host, what, its NOS or '', commands)
    around: tuple[tuple[str, str, str, str, tuple[str, ...]], ...] = ()
    tos: int | None = None  # rdma: the lossless class's ToS the tests run in
    addresses: tuple[str, str] = ('', '')  # rdma: the source's and destination's RDMA addresses


@dataclass
class Runbook:
    fabric: str
    steps: list[Step] = field(default_factory=list)

    def section(self, name: str) -> list[Step]:
        return [s for s in self.steps if s.section == name]


def _switches(contexts: Mapping[str, Mapping[str, Any]]) -> dict[str, Mapping[str, Any]]:
    return {name: ctx for name, ctx in sorted(contexts.items()) if ctx.get('node_id') is not None}


def physical_steps(plan: Plan, contexts: Mapping[str, Mapping[str, Any]], nos: Mapping[str, str]) -> list[Step]:
    """One step per switch end of every planned cable."""
    steps: list[Step] = []
    switches = _switches(contexts)
    for link in plan.links:
        for node, port in ((link.a_node, link.a_interface), (link.b_node, link.b_interface)):
            if node not in switches:
                continue
            # the NOS first where known, else all three: the script picks by the switch's NOS (or $NOS)
            kinds = [nos[node]] if nos.get(node) in NOS_COMMANDS else sorted(NOS_COMMANDS)
            commands = tuple(f'{kind}: {c.format(port=port)}' for kind in kinds for c in NOS_COMMANDS[kind])
            expect = f'up at {link.speed}G, FEC as the optics need, CRC/FCS errors 0 and not rising, no link flaps'
            known = nos[node] if nos.get(node) in NOS_COMMANDS else ''
            steps.append(Step('physical', f'{node} {port}', node, commands, expect, link.kind, known, port))
    return steps


def lldp_steps(plan: Plan, contexts: Mapping[str, Mapping[str, Any]], nos: Mapping[str, str]) -> list[Step]:
    """Every switch's LLDP neighbours in its NOS's JSON (all three when the NOS is not known) and every cabled
    server's ``lldpctl -f json``: NetBox holds them against the plan's cables, each seen from both ends."""
    switches = _switches(contexts)
    cabled = sorted({n for link in plan.links for n in (link.a_node, link.b_node)})
    steps = []
    for name in cabled:
        ports = sum(name in (link.a_node, link.b_node) for link in plan.links)
        expect = f'the {ports} planned cables of {name} seen with the planned neighbour and port; no other neighbour'
        if name in switches:
            kinds = [nos[name]] if nos.get(name) in LLDP_COMMANDS else sorted(LLDP_COMMANDS)
            commands = tuple(f'{kind}: {LLDP_COMMANDS[kind][1]}' for kind in kinds)
            known = nos[name] if nos.get(name) in LLDP_COMMANDS else ''
            steps.append(Step('physical', f'{name} LLDP', name, commands, expect, LLDP_STEP, known, 'switch'))
        elif name in contexts:  # a server: its lldpd (a BMC end is seen from the switch only)
            steps.append(Step('physical', f'{name} LLDP', name, (HOST_LLDP[1],), expect, LLDP_STEP, '', 'host'))
    return steps


def _host(address: str) -> str:
    return str(ipaddress.ip_interface(address).ip)


def mtu_steps(contexts: Mapping[str, Mapping[str, Any]]) -> list[Step]:
    """Every routed switch-to-switch link above 1500 bytes (from its lower end's MTU), then loopback to loopback
    between every two leaves at the smallest uplink MTU."""
    steps: list[Step] = []
    seen: set[frozenset[tuple[str, Any]]] = set()
    switches = _switches(contexts)
    for name, ctx in switches.items():
        for port in ctx.get('interfaces') or []:
            peer = port.get('peer_device')
            theirs = next((p for p in (switches.get(peer) or {}).get('interfaces') or []
                           if p['name'] == port.get('peer_interface')), None)  # fmt: skip
            key = frozenset({(name, port['name']), (peer, port.get('peer_interface'))})
            if theirs is None or key in seen or not (port.get('address') and theirs.get('address')):
                continue
            seen.add(key)
            mtu = min(port.get('mtu') or 1500, theirs.get('mtu') or 1500)
            if mtu <= 1500:
                continue
            command = f'ping -M do -s {mtu - 28} -c {PING_COUNT} {_host(theirs["address"])}'
            subject = f'{name} {port["name"]} -> {peer} {theirs["name"]}'
            steps.append(Step('mtu', subject, name, (command,), f'0% loss at MTU {mtu}, not fragmented', 'link'))
    steps += _peer_link_steps(switches)
    leaves = {n: c for n, c in switches.items() if c.get('role') != 'spine' and c.get('router_id')}
    for a, b in ((a, b) for a in leaves for b in leaves if a < b):
        mtus = [
            p.get('mtu') or 1500 for n in (a, b) for p in leaves[n].get('interfaces') or [] if p['kind'] == 'uplink'
        ]
        mtu = min(mtus or [1500])
        source, target = _host(leaves[a]['router_id']), _host(leaves[b]['router_id'])
        command = f'ping -M do -s {mtu - 28} -c {PING_COUNT} -I {source} {target}'
        steps.append(Step('mtu', f'{a} -> {b}', a, (command,), f'0% loss loopback to loopback at MTU {mtu}', 'leaf'))
    return steps


def _peer_link_steps(switches: Mapping[str, Mapping[str, Any]]) -> list[Step]:
    """The MLAG peer link (a LAG with the pair's /31): from its primary, once per pair, at the LAG's MTU."""
    steps: list[Step] = []
    for name, ctx in switches.items():
        mlag = ctx.get('mlag') or {}
        lag = next((g for g in ctx.get('lags') or [] if g['name'] == mlag.get('peer_link')), None)
        if mlag.get('role') != 'primary' or not (lag and mlag.get('peer_address')) or (lag.get('mtu') or 1500) <= 1500:
            continue
        mtu = lag['mtu']
        command = f'ping -M do -s {mtu - 28} -c {PING_COUNT} {mlag["peer_address"]}'
        subject = f'{name} {lag["name"]} -> {mlag["peer"]}'
        steps.append(Step('mtu', subject, name, (command,), f'0% loss at MTU {mtu} over the peer link', 'peer-link'))
    return steps


def _racks(plan: Plan) -> tuple[dict[str, tuple[frozenset[str], str | None]], list[frozenset[str]]]:
    """{server: (its leaves, kind)} and the racks (frozenset of leaves) in a stable order."""
    servers: dict[str, set[str]] = {}
    kinds = {a.server: a.kind for a in plan.attachments}
    for link in plan.links:
        if link.kind == SERVER_LINK:
            servers.setdefault(link.b_node, set()).add(link.a_node)
    info = {s: (frozenset(leaves), kinds.get(s)) for s, leaves in sorted(servers.items())}
    racks = list(dict.fromkeys(leaves for leaves, kind in info.values() if kind != 'storage'))
    return info, racks


def iperf3_pairs(plan: Plan) -> list[tuple[str, ...]]:
    """``[(kind, source, destination)]``: one same-leaf pair per rack with two servers, one leaf-to-leaf pair per two
    racks without a common leaf, and every storage node from the first server of each rack."""
    info, racks = _racks(plan)
    first = {rack: [s for s, (leaves, kind) in info.items() if leaves == rack and kind != 'storage'] for rack in racks}
    pairs = [('same-leaf', *first[rack][:2]) for rack in racks if len(first[rack]) >= 2]
    pairs += [
        ('leaf-to-leaf', first[a][0], first[b][0]) for i, a in enumerate(racks) for b in racks[i + 1 :] if not a & b
    ]
    storage = [s for s, (_, kind) in info.items() if kind == 'storage']
    pairs += [('storage', first[rack][0], node) for node in storage for rack in racks]
    return pairs


def throughput_steps(plan: Plan) -> list[Step]:
    steps: list[Step] = []
    for kind, source, destination in iperf3_pairs(plan):
        base = f'{source}_{destination}'
        commands = (
            f'on {destination}: iperf3 -s -1 -D',
            f'on {source}: ping -c {IPERF_SECONDS * 2} -i 0.5 {destination} > ping_load_{base}.txt &',
            f'on {source}: iperf3 -c {destination} -P 8 -t {IPERF_SECONDS} --json > iperf3_{base}.json',
        )
        expect = '>= 90% of the pair line rate received; the ping during the load: 0% loss, no spike'
        steps.append(
            Step('throughput', f'{source} -> {destination}', source, commands, expect, kind, source, destination)
        )
    return steps


def _switch_snapshot(leaf: str, ports: list[str], nos: Mapping[str, str]) -> tuple[str, ...]:
    """A leaf's RoCE counter commands (the roce section's, per NOS) on ``ports``."""
    kinds = [nos[leaf]] if nos.get(leaf) in ROCE_COMMANDS else sorted(ROCE_COMMANDS)
    return tuple(
        f'{kind}: {c.format(port=port)}'
        for kind in kinds
        for c in ROCE_COMMANDS[kind]
        for port in (ports if '{port}' in c else [None])
    )


type Snapshot = tuple[str, str, str, str, tuple[str, ...]]  # (kind, host, subject, NOS, commands)


def _rdma_around(
    a: RdmaNic, b: RdmaNic, contexts: Mapping[str, Mapping[str, Any]], nos: Mapping[str, str]
) -> tuple[Snapshot, ...]:
    """The two NICs' ethtool -S and their leaves' counters on the NICs' ports and the leaves' uplinks."""
    during = f'during {a.name} -> {b.name}'
    around: list[Snapshot] = [
        ('nic', n.server, f'{n.nic} {during}', '', (NIC_COMMAND.format(nic=n.nic),)) for n in (a, b)
    ]
    for leaf in dict.fromkeys((a.leaf, b.leaf)):
        uplinks = [p['name'] for p in (contexts.get(leaf) or {}).get('interfaces') or [] if p.get('kind') == 'uplink']
        ports = [n.port for n in (a, b) if n.leaf == leaf] + uplinks
        known = nos[leaf] if nos.get(leaf) in ROCE_COMMANDS else ''
        around.append(('switch', leaf, during, known, _switch_snapshot(leaf, ports, nos)))
    return tuple(around)


def _rdma_step(
    kind: str, a: RdmaNic, b: RdmaNic, tos: int, contexts: Mapping[str, Mapping[str, Any]], nos: Mapping[str, str]
) -> Step:
    src, dst = _host(a.address or ''), _host(b.address or '')
    base = f'{a.server}_{a.nic}_{b.server}_{b.nic}'
    bw = f'ib_write_bw -R -T {tos} --report_gbits -D {RDMA_SECONDS}'
    lat = f'ib_send_lat -R -T {tos} -n {RDMA_LAT_ITERATIONS}'
    around = _rdma_around(a, b, contexts, nos)
    commands = (
        f'on {b.server}: {bw}',
        f'on {a.server}: {bw} --bind_source_ip {src} {dst} > ib_write_bw_{base}.txt',
        f'on {b.server}: {lat}',
        f'on {a.server}: {lat} --bind_source_ip {src} {dst} > ib_send_lat_{base}.txt',
        *(f'before and after, on {host}: {c}' for _, host, _, _, cs in around for c in cs),
    )
    expect = (
        f'ib_write_bw >= 90% of {min(a.gbps, b.gbps)} Gbit/s (the RDMA link rate), ToS {tos}; ib_send_lat: 99.9th '
        'percentile within 10 us of the median; PFC pauses only on the lossless priority, no lossless-queue drop, '
        'rx_discards_phy not rising, CNPs and ECN marks reported'
    )
    return Step('rdma', f'{a.name} -> {b.name}', a.server, commands, expect, kind, a.name, b.name, around, tos,
                (src, dst))  # fmt: skip


def rdma_steps(plan: Plan, contexts: Mapping[str, Mapping[str, Any]], nos: Mapping[str, str]) -> list[Step]:
    """perftest between the plan's RDMA NIC pairs (``rdma.rdma_pairs``) in the lossless class; one step without
    commands saying why when there is nothing to test."""
    qos = next((c['qos'] for c in _switches(contexts).values() if c.get('qos')), None)
    tos, nics = lossless_tos(qos), rdma_nics(plan)
    pairs = rdma_pairs(plan)
    if not nics:
        why = 'the plan has no RDMA NIC (nics.rdma_count is 0): no RDMA pair to test'
    elif tos is None:
        why = 'the QoS profile has no lossless (PFC) class: no RoCE class for the RDMA tests to run in'
    elif not pairs:
        bare = [n.name for n in nics if not n.address]
        why = (f'the plan gives {len(bare)} of {len(nics)} RDMA NICs no address (a lossless class with a subnet '
               'gives them one)' if bare else 'no two RDMA NICs of two servers reach each other')  # fmt: skip
    else:
        return [_rdma_step(kind, a, b, tos, contexts, nos) for kind, a, b in pairs]
    return [Step('rdma', 'no RDMA pair', '', (), why, 'none')]


def security_steps(contexts: dict[str, dict[str, Any]]) -> list[Step]:
    """Every ordered pair of classes with a prefix: a host of the source pings a host of the destination."""
    matrix = security_matrix(contexts)
    steps: list[Step] = []
    for row in matrix['rows']:
        source = row['source']['name']
        for cell, destination in zip(row['cells'], matrix['classes'], strict=True):
            if cell['state'] == 'self':
                continue
            expected = 'reachable' if cell['state'] == 'ok' else 'blocked'
            why = f'{cell["state"]}: {cell["reason"]}' if cell['reason'] else cell['state']
            command = f'ping -c 3 -W 1 <a host in {destination["name"]} {destination["prefix"]}>'
            steps.append(
                Step('security', f'{source} -> {destination["name"]}', f'a host in {source}', (command,),
                     f'{expected} ({why})', expected, source, destination['name'])
            )  # fmt: skip
    return steps


def evpn_steps(contexts: Mapping[str, Mapping[str, Any]], nos: Mapping[str, str]) -> list[Step]:
    """Every switch with the l2vpn-evpn address family: its EVPN sessions Established, its VNIs up with their routes,
    and (leaves) the anycast gateway every leaf shares for each VLAN."""
    steps: list[Step] = []
    switches = _switches(contexts)
    # vid: {(gateway, mac)} across the leaves: one each, or the anycast gateway is inconsistent
    gateways: dict[int, set[tuple[str, str | None]]] = {}
    for name, ctx in switches.items():
        bgp = ctx.get('bgp') or {}
        if 'l2vpn-evpn' not in (bgp.get('address_families') or []):
            continue
        kinds = [nos[name]] if nos.get(name) in EVPN_COMMANDS else sorted(EVPN_COMMANDS)
        commands = tuple(f'{kind}: {c}' for kind in kinds for c in EVPN_COMMANDS[kind])
        peers = sorted(p['peer'] for p in bgp.get('evpn_peers') or [])
        vnis = sorted(v['l2vni'] for v in ctx.get('vlans') or [] if v.get('l2vni'))
        mac = next((v.get('anycast_gateway_mac') for v in ctx.get('vrfs') or []), None)
        for v in ctx.get('vlans') or []:
            if v.get('l2vni') and v.get('gateway'):
                gateways.setdefault(v['vid'], set()).add((v['gateway'], mac))
        expect = f'EVPN sessions Established with {", ".join(peers) or "no peer"}'
        expect += f'; L2VNIs {", ".join(map(str, vnis))} up with type-2/type-3 routes' if vnis else ''
        known = nos[name] if nos.get(name) in EVPN_COMMANDS else ''
        steps.append(Step('evpn', name, name, commands, expect, 'switch', known, name))
    for vid, found in sorted(gateways.items()):
        gateway, mac = sorted(found, key=str)[0]
        expect = (f'every leaf: VLAN {vid} gateway {gateway}, MAC {mac}' if len(found) == 1
                  else f'INCONSISTENT in the plan: {sorted(found, key=str)}')  # fmt: skip
        steps.append(Step('evpn', f'anycast gateway VLAN {vid}', 'every leaf', (), expect, 'gateway'))
    return steps


def _roce_on(ctx: Mapping[str, Any]) -> bool:
    qos = ctx.get('qos') or {}
    return bool(qos.get('pfc_priorities') or (qos.get('ecn') or {}).get('enabled'))


def roce_steps(contexts: Mapping[str, Mapping[str, Any]], nos: Mapping[str, str]) -> list[Step]:
    """With a RoCE QoS profile: every switch's PFC, queue-drop and ECN counters, and every server NIC that carries
    RDMA (its RDMA ports, else its bond members), snapshotted before and after the load."""
    steps: list[Step] = []
    switches = _switches(contexts)
    if not any(_roce_on(ctx) for ctx in switches.values()):
        return steps
    for name, ctx in switches.items():
        kinds = [nos[name]] if nos.get(name) in ROCE_COMMANDS else sorted(ROCE_COMMANDS)
        ports = [p['name'] for p in ctx.get('interfaces') or [] if p.get('kind') in ('uplink', 'rdma', 'server')]
        commands = tuple(
            f'{kind}: {c.format(port=port)}'
            for kind in kinds
            for c in ROCE_COMMANDS[kind]
            for port in (ports if '{port}' in c else [None])
        )
        expect = 'PFC pause frames only on the lossless priorities; no drop on the lossless queues; ECN marks reported'
        known = nos[name] if nos.get(name) in ROCE_COMMANDS else ''
        steps.append(Step('roce', name, name, commands, expect, 'switch', known, name))
    for name, ctx in sorted(contexts.items()):
        if name in switches:
            continue
        ports = ctx.get('interfaces') or []
        nics = [p['name'] for p in ports if p.get('kind') == 'rdma'] or [p['name'] for p in ports if p.get('lag')]
        for nic in nics:
            expect = 'rx_discards_phy and rx_prio<p>_discards not rising; PFC pause, ECN marks, CNPs reported'
            steps.append(Step('roce', f'{name} {nic}', name, (NIC_COMMAND.format(nic=nic),), expect, 'nic', '', nic))
    return steps


def ansible_steps() -> list[Step]:
    """The shipped Ansible playbook in check mode: what it would change on the switches, nothing applied."""
    command = f'ansible-playbook -i "$ANSIBLE_INVENTORY" {ANSIBLE_PLAYBOOK} --check --diff'
    expect = 'no task fails; changed=0 where the switches run the rendered configs (else the diff is what would change)'
    return [Step('ansible', 'check mode', '', (command,), expect, 'check', '', ANSIBLE_PLAYBOOK)]


def build_runbook(plan: Plan, contexts: dict[str, dict[str, Any]], nos: Mapping[str, str] | None = None) -> Runbook:
    """``nos``: ``{switch: 'eos' | 'nvue' | 'sonic'}`` where known."""
    nos = nos or {}
    book = Runbook(fabric=plan.fabric)
    book.steps += physical_steps(plan, contexts, nos)
    book.steps += lldp_steps(plan, contexts, nos)
    book.steps += mtu_steps(contexts)
    book.steps += evpn_steps(contexts, nos)
    book.steps += roce_steps(contexts, nos)
    book.steps += throughput_steps(plan)
    book.steps += rdma_steps(plan, contexts, nos)
    book.steps += security_steps(contexts)
    book.steps += ansible_steps()
    return book


SCRIPT_HEAD = r"""#!/usr/bin/env bash
# The acceptance runbook of fabric {fabric}, generated by netbox-aifabric from its plan: {counts}.
#
#   ./{filename} [physical] [mtu] [evpn] [roce] [throughput] [rdma] [security] [ansible]   (all when none is named)
#
# SWITCH_SSH / HOST_SSH: how to run a command on a switch / a server (default: ssh); a switch's login must land in
#   a Linux shell for the MTU pings (ping -M do). NOS: {nos_names} for switches whose platform NetBox does not
#   know. Security matrix: HOST_<CLASS> (a host in the class to ssh to) and ADDR_<CLASS> (an address in it).
# NETBOX_URL, NETBOX_TOKEN (sent as Bearer for nbt_ tokens, else Token; or NETBOX_TOKEN_SCHEME), RUN_ID: upload the
#   iperf3 and ping output, the counter snapshots and the LLDP neighbours to that manual acceptance run, where it is
#   judged against the plan. Outputs stay in $OUT.
# physical: per switch port its speed, FEC, errors and flaps; per switch and server its LLDP neighbours (a server
#   runs lldpd: lldpctl -f json), held against the planned cables.
# roce: the switches' PFC/queue/ECN counters and the servers' NIC counters (ethtool -S) before and after the
#   throughput section's load (run "roce throughput" together; alone, the two snapshots are back to back).
# rdma: perftest (ib_write_bw, ib_send_lat) over rdma_cm in the lossless class's ToS between the plan's RDMA NIC
#   pairs, at their plan addresses; the two NICs' and their leaves' counters before and after each pair.
# ansible: ANSIBLE_PLAYBOOK (default: the shipped examples/ansible/playbook.yml, relative to the working directory)
#   and ANSIBLE_INVENTORY run in check mode (--check --diff); skipped when the playbook or ansible-playbook is missing.
set -uo pipefail

read -r -a SWITCH_SSH_CMD <<< "${{SWITCH_SSH:-ssh}}"
read -r -a HOST_SSH_CMD <<< "${{HOST_SSH:-ssh}}"
NOS=${{NOS:-}}
OUT=${{OUT:-acceptance-$(date +%Y%m%d-%H%M%S)}}
mkdir -p "$OUT"
SECTIONS=("$@")
PASSED=0
FAILED=0
OTHER=0
ROCE_TAG=''

note() {{ printf '%s\n' "$*" | tee -a "$OUT/summary.txt"; }}
result() {{ # result pass|fail|review|skip <what>
  case $1 in
    pass) PASSED=$((PASSED + 1)) ;;
    fail) FAILED=$((FAILED + 1)) ;;
    *) OTHER=$((OTHER + 1)) ;;
  esac
  note "$1: $2"
}}
want() {{ [[ ${{#SECTIONS[@]}} -eq 0 || " ${{SECTIONS[*]}} " == *" $1 "* ]]; }}
safe() {{ printf '%s' "${{1//[^A-Za-z0-9_.-]/_}}"; }}
on_switch() {{ local target=$1; shift; "${{SWITCH_SSH_CMD[@]}}" "$target" "$@"; }}
on_host() {{ local target=$1; shift; "${{HOST_SSH_CMD[@]}}" "$target" "$@"; }}

upload() {{ # upload <tool> <file> <source> <destination> <subject> [<file before>]
  [[ -n ${{NETBOX_URL:-}} && -n ${{NETBOX_TOKEN:-}} && -n ${{RUN_ID:-}} ]] || return 0
  local scheme=Token
  [[ $NETBOX_TOKEN == nbt_*.* ]] && scheme=Bearer  # NetBox 4.5+ (v2) tokens
  python3 -c 'import json, os, sys
t, f, s, d, w = sys.argv[1:6]
body = {{"tool": t, "output": open(f).read(), "source": s, "destination": d, "subject": w}}
b = sys.argv[6] if len(sys.argv) > 6 else ""
if b and os.path.exists(b):
    body["before"] = open(b).read()
print(json.dumps(body))' \
    "$@" |
    curl -sS -X POST -H "Authorization: ${{NETBOX_TOKEN_SCHEME:-$scheme}} $NETBOX_TOKEN" \
      -H 'Content-Type: application/json' --data-binary @- \
      "$NETBOX_URL/api/plugins/aifabric/acceptance-runs/$RUN_ID/upload/" >> "$OUT/uploads.json"
  echo >> "$OUT/uploads.json"
}}

collect() {{ # collect physical|evpn <switch> <port or switch> <its NOS or ''> '<nos>: <command>'...: saved to review
  local section=$1 switch=$2 what=$3 nos=${{4:-$NOS}} line file command tool judged=''
  shift 4
  file="$OUT/${{section}}_$(safe "$switch")_$(safe "$what").txt"
  if [[ -z $nos ]]; then
    result skip "$section $switch $what: NetBox does not know its NOS, set NOS={nos_keys}"
    return
  fi
  for line in "$@"; do
    [[ ${{line%%: *}} == "$nos" ]] || continue
    command=${{line#*: }}
    tool=$(counter_tool "$command")
    if [[ -z $tool ]]; then
      {{ printf '# %s\n' "$command"; on_switch "$switch" "$command"; }} >> "$file" 2>&1
      continue
    fi
    # a counter NetBox judges (the error counters): its own file too, uploaded as it printed
    on_switch "$switch" "$command" > "$OUT/counters_$(safe "$switch")_$(safe "$what")_$tool.txt" 2>&1
    {{ printf '# %s\n' "$command"; cat "$OUT/counters_$(safe "$switch")_$(safe "$what")_$tool.txt"; }} >> "$file"
    upload "$tool" "$OUT/counters_$(safe "$switch")_$(safe "$what")_$tool.txt" '' '' "$switch $what"
    judged=" ($tool: NetBox judges it on upload)"
  done
  result review "$section $switch $what: $file$judged"
}}
physical() {{ collect physical "$@"; }}

lldp() {{ # lldp switch|host <device> <its NOS or ''> '<nos>: <command>'... | '<command>': uploaded, NetBox judges
  local kind=$1 device=$2 nos=${{3:-$NOS}} line command='' tool file failed=0
  shift 3
  file="$OUT/lldp_$(safe "$device").json"
  if [[ $kind == host ]]; then
    command=$1 tool={host_lldp_tool}
  else
    for line in "$@"; do
      [[ ${{line%%: *}} == "$nos" ]] && command=${{line#*: }}
    done
    if [[ -z $command ]]; then
      result skip "lldp $device: NetBox does not know its NOS, set NOS={nos_keys}"
      return
    fi
    tool=$nos-lldp
  fi
  if [[ $kind == host ]]; then
    on_host "$device" "$command" > "$file" 2>&1 || failed=1
  else
    on_switch "$device" "$command" > "$file" 2>&1 || failed=1
  fi
  if [[ $failed -eq 1 ]]; then
    result fail "lldp $device: $command failed, $file"
    return
  fi
  result review "lldp $device: $file (NetBox judges it on upload)"
  upload "$tool" "$file" '' '' "$device"
}}
evpn() {{ collect evpn "$@"; }}

mtu() {{ # mtu <switch> <subject> <ping command>
  local file
  file="$OUT/mtu_$(safe "$2").txt"
  if on_switch "$1" "$3" > "$file" 2>&1; then result pass "mtu $2"; else result fail "mtu $2: $file"; fi
  upload ping "$file" '' '' "$2"
}}

throughput() {{ # throughput <kind> <source> <destination>
  local kind=$1 source=$2 destination=$3 base pinger
  base="$OUT/$(safe "$source")_$(safe "$destination")"
  on_host "$destination" iperf3 -s -1 -D
  sleep 1
  on_host "$source" ping -c {ping_count} -i 0.5 "$destination" > "$base.ping_load.txt" 2>&1 &
  pinger=$!
  if on_host "$source" iperf3 -c "$destination" -P 8 -t {seconds} --json > "$base.iperf3.json" 2>&1; then
    result review "iperf3 $kind $source -> $destination: $base.iperf3.json (NetBox judges it on upload)"
  else
    result fail "iperf3 $kind $source -> $destination: $base.iperf3.json"
  fi
  wait "$pinger"
  upload iperf3 "$base.iperf3.json" "$source" "$destination" ''
  upload ping "$base.ping_load.txt" '' '' "ping during iperf3 $source -> $destination"
}}

counter_tool() {{ # the upload tool NetBox judges a counter command's output with ('' for the others: to review)
  case $1 in
{counter_cases}
  esac
}}

roce() {{ # roce before|after switch|nic <host> <what> <its NOS or ''> '<nos>: <command>'... | '<command>'
  local when=$1 kind=$2 host=$3 what=$4 nos=${{5:-$NOS}} line command file tool n=0
  shift 5
  if [[ $kind == switch && -z $nos ]]; then
    [[ $when == after ]] && result skip "roce $host: NetBox does not know its NOS, set NOS={nos_keys}"
    return
  fi
  for line in "$@"; do
    command=$line
    if [[ $kind == switch ]]; then
      [[ ${{line%%: *}} == "$nos" ]] || continue
      command=${{line#*: }}
    fi
    n=$((n + 1))
    file="$OUT/roce_${{when}}${{ROCE_TAG}}_$(safe "$host")_$(safe "$what")_$n.txt"
    if [[ $kind == switch ]]; then
      {{ printf '# %s\n' "$command"; on_switch "$host" "$command"; }} > "$file" 2>&1
    else
      on_host "$host" "$command" > "$file" 2>&1
    fi
    [[ $when == after ]] || continue
    tool=$(counter_tool "$command")
    if [[ -n $tool ]]; then
      result review "roce $host $what $tool: $file (NetBox judges it on upload)"
      upload "$tool" "$file" '' '' "$host $what" "${{file/roce_after_/roce_before_}}"
    else
      result review "roce $host $what: $file"
    fi
  done
}}

rdma() {{ # rdma <n> <kind> <source> <its NIC> <its address> <destination> <its NIC> <its address> <ToS>
  local n=$1 kind=$2 source=$3 snic=$4 saddr=$5 destination=$6 dnic=$7 daddr=$8 tos=$9 base test server
  local -a args
  base="$OUT/rdma${{n}}_$(safe "$source")_$(safe "$snic")_$(safe "$destination")_$(safe "$dnic")"
  for test in ib_write_bw ib_send_lat; do
    args=(-R -T "$tos" -n {rdma_iterations})
    [[ $test == ib_write_bw ]] && args=(-R -T "$tos" --report_gbits -D {rdma_seconds})
    on_host "$destination" timeout {rdma_timeout} "$test" "${{args[@]}}" > "$base.$test.server.txt" 2>&1 &
    server=$!
    sleep 2
    if on_host "$source" timeout {rdma_timeout} "$test" "${{args[@]}}" --bind_source_ip "$saddr" "$daddr" \
      > "$base.$test.txt" 2>&1; then
      result review "$test $kind $source:$snic -> $destination:$dnic: $base.$test.txt (NetBox judges it on upload)"
    else
      result fail "$test $kind $source:$snic -> $destination:$dnic: $base.$test.txt"
    fi
    wait "$server"
    upload "$test" "$base.$test.txt" "$source:$snic" "$destination:$dnic" ''
  done
}}

ansible_check() {{ # ansible_check <playbook>: the playbook in check mode, nothing applied
  local playbook=${{ANSIBLE_PLAYBOOK:-$1}} file="$OUT/ansible_check.txt" args
  if [[ ! -f $playbook ]]; then
    result skip "ansible check mode: no playbook at $playbook (set ANSIBLE_PLAYBOOK)"
    return
  fi
  if ! command -v ansible-playbook > /dev/null; then
    result skip 'ansible check mode: ansible-playbook is not installed'
    return
  fi
  args=("$playbook" --check --diff)
  [[ -n ${{ANSIBLE_INVENTORY:-}} ]] && args=(-i "$ANSIBLE_INVENTORY" "${{args[@]}}")
  if ansible-playbook "${{args[@]}}" > "$file" 2>&1; then
    if grep -Eq 'changed=[1-9]' "$file"; then
      result review "ansible check mode: changes pending, the diff is in $file"
    else
      result pass 'ansible check mode: nothing to change'
    fi
  else
    result fail "ansible check mode: $file"
  fi
}}

security() {{ # security <source class> <destination class> reachable|blocked
  local host_var addr_var host addr seen=blocked
  host_var="HOST_$(safe "$1")"
  addr_var="ADDR_$(safe "$2")"
  host=${{!host_var:-}}
  addr=${{!addr_var:-}}
  if [[ -z $host || -z $addr ]]; then
    result skip "security $1 -> $2: set $host_var and $addr_var"
    return
  fi
  if on_host "$host" ping -c 3 -W 1 "$addr" > "$OUT/security_$(safe "$1")_$(safe "$2").txt" 2>&1; then
    seen=reachable
  fi
  if [[ $seen == "$3" ]]; then
    result pass "security $1 -> $2: $seen"
  else
    result fail "security $1 -> $2: $seen, expected $3"
  fi
}}
"""


def _call(section: str, s: Step) -> str:
    q = shlex.quote
    if section == 'physical' and s.kind == LLDP_STEP:
        return 'lldp ' + ' '.join(q(a) for a in (s.destination, s.where, s.source, *s.commands))
    if section in ('physical', 'evpn'):
        args = [s.where, s.destination, s.source, *s.commands]
    elif section == 'mtu':
        args = [s.where, s.subject, s.commands[0]]
    elif section == 'throughput':
        args = [s.kind, s.source, s.destination]
    elif section == 'ansible':
        return f'ansible_check {q(s.destination)}'
    else:
        args = [s.source, s.destination, s.kind]
    return f'{section} ' + ' '.join(q(a) for a in args)


def _roce_lines(steps: list[Step], when: str) -> list[str]:
    if not steps:
        return []
    q = shlex.quote
    lines = ['if want roce; then']
    for s in steps:
        lines.append(
            ' '.join(['  roce', when, s.kind, *(q(a) for a in (s.where, s.destination, s.source)), *map(q, s.commands)])
        )
    return [*lines, 'fi']


def _rdma_lines(steps: list[Step]) -> list[str]:
    """Each pair between its counters' snapshots (``roce``, tagged with the pair's number); a step without commands
    (why the section is empty) is a skip."""
    q = shlex.quote
    lines = ['if want rdma; then']
    for n, s in enumerate(steps, 1):
        if not s.commands:
            lines.append(f'  result skip {q("rdma: " + s.expect)}')
            continue
        lines.append(f'  ROCE_TAG=_rdma{n}')
        snapshots = {
            when: [' '.join(['  roce', when, kind, *map(q, (host, what, known, *commands))])
                   for kind, host, what, known, commands in s.around]
            for when in ('before', 'after')
        }  # fmt: skip
        (a_server, a_nic), (b_server, b_nic) = (x.rsplit(':', 1) for x in (s.source, s.destination))
        args = (str(n), s.kind, a_server, a_nic, s.addresses[0], b_server, b_nic, s.addresses[1], str(s.tos))
        lines += [*snapshots['before'], '  rdma ' + ' '.join(map(q, args)), *snapshots['after']]
    return [*lines, "  ROCE_TAG=''", 'fi']


def _counter_cases() -> str:
    """The script's ``case`` from a judged command to its upload tool: the NIC's ``ethtool -S``, then each NOS's
    judged commands (facts/nos.py), ``{port}`` matching any port."""
    cases = [("'ethtool -S '*", 'ethtool')]
    for nos in acceptance_nos():
        cases += [("'" + command.replace('{port}', "'*'") + "'", f'{nos.key}-{kind}') for kind, command in nos.judged]
    return '\n'.join(f'    {pattern}) echo {tool} ;;' for pattern, tool in cases)


def runbook_script(book: Runbook, filename: str = 'acceptance.sh') -> str:
    """The runbook as a bash script (values shell-quoted; nothing taken from the fabric is ever evaluated)."""
    counts = ', '.join(f'{len(book.section(s))} {s}' for s in SECTIONS)
    keys = sorted(NOS_COMMANDS)  # the NOS names $NOS takes
    lines = [
        SCRIPT_HEAD.format(
            fabric=' '.join(book.fabric.split()), counts=counts, filename=filename,
            ping_count=IPERF_SECONDS * 2, seconds=IPERF_SECONDS, nos_keys='|'.join(keys),
            rdma_iterations=RDMA_LAT_ITERATIONS, rdma_seconds=RDMA_SECONDS, rdma_timeout=RDMA_TIMEOUT,
            nos_names=f'{", ".join(keys[:-1])} or {keys[-1]}', counter_cases=_counter_cases(),
            host_lldp_tool=HOST_LLDP[0],
        )
    ]  # fmt: skip
    for section in SECTIONS:
        steps = [s for s in book.section(section) if s.commands]  # the anycast gateway rows are for the reader
        if section == 'roce':  # the "after" snapshot follows the throughput section (below)
            lines += _roce_lines(steps, 'before')
            continue
        if section == 'rdma':
            lines += _rdma_lines(book.section('rdma'))
            continue
        if steps:
            lines.append(f'if want {section}; then')
            lines += [f'  {_call(section, s)}' for s in steps]
            lines.append('fi')
        if section == 'throughput':
            lines += _roce_lines(book.section('roce'), 'after')
    lines.append('note "passed $PASSED, failed $FAILED, to review or skipped $OTHER; the outputs are in $OUT"')
    lines.append('[[ $FAILED -eq 0 ]]')
    return '\n'.join(lines) + '\n'
