"""Independent check of the NVUE template's structure: every path of each rendered startup.yaml, to two levels
(``qos egress-scheduler``, ``mlag backup``; named objects as ``<name>``), is one NVIDIA documents for ``nv set``.
The list is encoded here with the page each path comes from (CumulusNetworks/docs ``content/``, published under
https://docs.nvidia.com/networking-ethernet-software/; the tags are nos-facts.md's); docs/contexts.md (NVUE) carries
the same citations. A negative control adds an undocumented path and a misspelt one. Not covered: the OSPF underlay
variant (``router ospf``, no guide example), and paths below the second level (the values' spelling, e.g. ``enable:
on`` vs ``state: enabled``, which differ by object and release: nos-facts §9)."""

import pytest

from tests.render_fixtures import GUIDES, guide_contexts
from tests.unit.templates.helpers import load_yaml, render

pytestmark = pytest.mark.pure

CL512 = 'cumulus-linux-512/'
QOS = CL512 + 'Layer-1-and-Switch-Ports/Quality-of-Service/_index.md'
ROCE = CL512 + 'Layer-1-and-Switch-Ports/Quality-of-Service/RDMA-over-Converged-Ethernet-RoCE.md'
MLAG = CL512 + 'Layer-2/Multi-Chassis-Link-Aggregation-MLAG.md'
VRR = CL512 + 'Layer-2/Virtual-Router-Redundancy-VRR.md'
ISR = CL512 + 'Network-Virtualization/Ethernet-Virtual-Private-Network-EVPN/Inter-subnet-Routing.md'
EVPN_MH = CL512 + 'Network-Virtualization/Ethernet-Virtual-Private-Network-EVPN/EVPN-Multihoming.md'
VXLAN_AA = CL512 + 'Network-Virtualization/VXLAN-Active-Active-Mode.md'
BGP = CL512 + 'Layer-3/Border-Gateway-Protocol-BGP/Basic-BGP-Configuration.md'
ACL = 'cumulus-linux-513/System-Configuration/Access-Control-Lists/Access-Control-List-Configuration.md'
SSH = 'cumulus-linux-513/System-Configuration/Authentication-Authorization-and-Accounting/SSH-for-Remote-Access.md'
NVUE_REF = 'nvue-reference/Set-and-Unset-Commands/'
QUICK = CL512 + 'Quick-Start-Guide/_index.md'

# path (nv set words, <name> for a user-named object) -> the documentation page that shows it
NVUE_PATHS = {
    'system hostname': QUICK,
    'system ssh-server': SSH,
    'system api': NVUE_REF + 'API.md',
    'system snmp-server': NVUE_REF + 'SNMP-Server.md',
    'system control-plane': ACL,
    'system global': ISR,  # anycast-mac of a VXLAN active-active (EVPN + MLAG) pair, 'Set the Anycast MAC Address'
    'interface <name>': NVUE_REF + 'Interface.md',
    'acl <name>': ACL,
    'bridge domain': ISR,
    'mlag enable': MLAG,
    'mlag peer-ip': MLAG,
    'mlag priority': MLAG,
    'mlag mac-address': MLAG,
    'mlag backup': MLAG,
    'nve vxlan': VXLAN_AA,
    'evpn enable': ISR,
    'evpn multihoming': EVPN_MH,
    'router bgp': BGP,
    'router vrr': VRR,
    'router policy': NVUE_REF + 'Router-Policy.md',  # route-map rule action / set origin
    'vrf <name>': ISR,
    'qos roce': ROCE,
    'qos mapping': QOS,
    'qos egress-queue-mapping': QOS,
    'qos pfc': QOS,
    'qos congestion-control': NVUE_REF + 'QoS.md',
    'qos egress-scheduler': QOS,
    'qos pfc-watchdog': QOS,
}
NAMED = {'interface', 'acl', 'vrf'}  # their second level is a name the fabric chooses


def paths(tree):
    """The two-level paths of a startup.yaml ``set`` tree, user-named objects as ``<name>``."""
    found = set()
    for top, value in tree.items():
        if top in NAMED:
            found.add(f'{top} <name>')
        elif isinstance(value, dict):
            found.update(f'{top} {key}' for key in value)
        else:
            found.add(top)
    return found


def rendered(design, name):
    documents = load_yaml(render('cumulus/startup.yaml.j2', guide_contexts(design)[name]))
    return documents[0]['set']


SWITCHES = [
    (design, name)
    for design in GUIDES
    for name, ctx in guide_contexts(design).items()
    if ctx['role'] in ('spine', 'leaf', 'border')
]


@pytest.mark.parametrize(('design', 'name'), SWITCHES)
def test_every_path_is_documented(design, name):
    assert paths(rendered(design, name)) - set(NVUE_PATHS) == set()


def test_the_paths_cover_what_issue_12_adds():
    every = set().union(*(paths(rendered(d, n)) for d, n in SWITCHES))
    assert {'mlag mac-address', 'mlag backup', 'router policy', 'qos pfc', 'qos egress-scheduler'} <= every


@pytest.mark.parametrize(
    ('top', 'key'), [('mlag', 'system-mac'), ('qos', 'egress-schedular'), ('router', 'policies'), ('system', 'backup')]
)
def test_an_undocumented_path_is_caught(top, key):
    """Negative control: a path NVIDIA does not document (a wrong name for a real setting, a misspelling)."""
    tree = rendered('evpn-vxlan', 'leaf1')
    tree.setdefault(top, {})[key] = 'x'
    assert paths(tree) - set(NVUE_PATHS) == {f'{top} {key}'}
