"""The guide's security as per-device facts, pure (no Django): the management plane and the security matrix.

The guide asks for three things: management services (SSH, HTTPS/API, SNMP) reachable only from a jump-host subnet,
in a management VRF; "a compromised notebook should not have direct access to BMC interfaces or backup
repositories" (the matrix of which traffic class may reach which); and, for RoCE, DSCP marking under the fabric's
control. This module turns the intent into data the templates print and the matrix proof
(:mod:`netbox_aifabric.checks.matrix`) evaluates:

- **who may reach whom**: class Y is reachable from class X when X is Y, or Y's ``reachability`` is ``any``, or it is
  ``listed`` and X is in Y's ``reachable_from``. ``none`` closes Y to every other class. Switch ACLs are stateless,
  so an allowed pair may exchange packets both ways (replies included); who opens the connection is a firewall's
  job, not the fabric's.
- **enforcement**: classes in different VRFs are apart by routing (no route leaking is rendered). Classes that share
  a VRF get an inbound ACL on each gateway (SVI): permit the classes of an allowed pair, deny the others of that
  VRF, permit the rest (traffic that leaves the fabric's classes, e.g. towards a border).
- **advertising**: a management or telemetry class, and any class in a VRF without an L3VNI other than the default,
  stays local to its leaves: never announced into the underlay or a tenant VRF.
- **DSCP trust boundary**: switch ports towards other switches and the RDMA NICs trust the host's marking; server
  bonds and BMC ports do not (``trust`` is ``none``: every packet goes to the default class), so a host on a user
  bond cannot mark its way into the lossless or the CNP queue. CNPs entering on an RDMA port are policed.
"""

import netaddr

from .vlans import LOCAL_PURPOSES, vlan_is_advertised

__all__ = (
    'ACL_PREFIX',
    'CNP_POLICER_BURST_BYTES',
    'CNP_POLICER_PERCENT',
    'LOCAL_PURPOSES',
    'REACHABILITY',
    'TRUSTED_KINDS',
    'allowed',
    'class_acls',
    'cnp_policer',
    'management_plane',
    'security_classes',
    'vlan_is_advertised',
)

REACHABILITY = ('listed', 'any', 'none')
TRUSTED_KINDS = ('uplink', 'mlag-peer', 'rdma', 'rail')  # ports whose DSCP marking the switch trusts
ACL_PREFIX = 'AIFABRIC-'
# The CNP policer on RDMA ports: a plugin default, not a vendor figure (no vendor documents one). CNPs are
# minimum-size frames sent at most once per congestion-notification interval per flow; 1 % of the port's speed is far
# above what a healthy NIC sends and bounds what a faulty or hostile one can push into the strict-priority queue.
CNP_POLICER_PERCENT = 1
CNP_POLICER_BURST_BYTES = 65_536


def allowed(source: dict, destination: dict) -> bool:
    """Whether class ``source`` may reach class ``destination`` (the intent, one direction)."""
    if source['name'] == destination['name']:
        return True
    reach = destination.get('reachability') or 'listed'
    if reach == 'any':
        return True
    return reach == 'listed' and source['name'] in destination.get('reachable_from', ())


def pair_allowed(a: dict, b: dict) -> bool:
    """Stateless enforcement: a pair exchanges packets when either may reach the other."""
    return allowed(a, b) or allowed(b, a)


def security_classes(intent: dict, plan) -> list[dict]:
    """Every class with a VLAN in the plan: name, VID, VRF, purpose, prefix and who may reach it."""
    vrf_of = {v.vid: v.vrf for v in plan.vlans}
    classes = []
    for tc in intent['traffic_classes']:
        if tc['vid'] not in vrf_of:
            continue
        classes.append(
            {
                'name': tc['name'],
                'vid': tc['vid'],
                'vrf': vrf_of[tc['vid']],
                'purpose': tc['purpose'],
                'prefix': tc['prefix'],
                'reachability': tc.get('reachability') or 'listed',
                'reachable_from': sorted(tc.get('reachable_from') or ()),
            }
        )
    return classes


def acl_name(vlan: dict) -> str:
    return f'{ACL_PREFIX}{vlan["name"]}-IN'


def class_acls(classes: list[dict], vlans: list[dict]) -> list[dict]:
    """The inbound ACLs of a leaf's gateways (SVIs) whose class shares its VRF with other classes.

    Each ACL: ``name``, ``vlan`` (VID), ``vrf``, ``rules`` (``seq``, ``action``, ``source``, ``destination``,
    ``remark``), first match wins, ending in a permit of everything else.
    """
    by_name = {c['name']: c for c in classes}
    acls = []
    for vlan in vlans:
        me = by_name.get(vlan['name'])
        if me is None or not vlan['gateway'] or not me['prefix']:
            continue
        others = [c for c in classes if c['name'] != me['name'] and c['vrf'] == me['vrf'] and c['prefix']]
        if not others:
            continue
        rules = []
        for other in others:
            action = 'permit' if pair_allowed(me, other) else 'deny'
            verb = 'may reach' if action == 'permit' else 'may not reach'
            rules.append((action, other['prefix'], f'{me["name"]} {verb} {other["name"]}'))
        rules.append(('permit', 'any', 'traffic leaving the fabric classes'))
        acls.append(
            {
                'name': acl_name(vlan),
                'vlan': vlan['vid'],
                'vrf': vlan['vrf'],
                'rules': [
                    {'seq': 10 * (i + 1), 'action': a, 'source': me['prefix'], 'destination': d, 'remark': r}
                    for i, (a, d, r) in enumerate(rules)
                ],
            }
        )
    return acls


def management_plane(management: dict, node) -> dict:
    """A switch's management plane: the management VRF, its address and default route, the services and the only
    sources allowed to reach them (the jump-host subnets)."""
    jump_hosts = list(management.get('jump_hosts') or ())
    return {
        'vrf': management['vrf'],
        'services': list(management['services']),
        'address': node.management if node is not None else None,
        'gateway': management.get('gateway'),
        'jump_hosts': jump_hosts,
        'allowed_sources': jump_hosts,
    }


def cnp_policer(qos: dict | None, kind: str, speed: int | None) -> dict | None:
    """The CNP policer of an RDMA-facing port (lossless profiles with a CNP DSCP), else None."""
    if qos is None or qos['mode'] != 'lossless' or kind not in ('rdma', 'rail') or not speed:
        return None
    if qos['cnp']['dscp'] is None:
        return None
    return {
        'dscp': qos['cnp']['dscp'],
        'rate_kbps': speed * 1_000_000 * CNP_POLICER_PERCENT // 100,
        'burst_bytes': CNP_POLICER_BURST_BYTES,
    }


def contains(prefix: str, address_or_prefix: str) -> bool:
    """Whether ``address_or_prefix`` lies inside ``prefix`` (``any`` holds everything)."""
    if prefix == 'any':
        return True
    if address_or_prefix == 'any':
        return False
    return netaddr.IPNetwork(address_or_prefix) in netaddr.IPNetwork(prefix)
