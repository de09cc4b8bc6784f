"""EOS / NVUE / FRR: what each template renders does on the switch what the guide and the vendor say.

One test per point (each failed on the templates before the fix, see the commit bodies):

- EOS management closed in every VRF: SSH, eAPI (HTTPS) and SNMP, read back from the rendered config the way EOS
  serves them (``acl_eos_nvue.eos_readback``: the API's own ``no shutdown`` serves the default VRF), each carry the
  jump-host ACL in every VRF they serve; NVUE's control-plane ACLs (all CPU-bound traffic, whatever the VRF) deny
  every management port from any other source.
- EOS PFC watchdog: a storm drops the stuck queue (``action drop``; EOS's default errdisables the port) and the queue
  recovers (``recovery-time``), as SONiC's and NVUE's watchdogs do.
- NVUE EVPN + MLAG: both peers of a pair route with one router MAC (``system global anycast-mac``), distinct per pair.
- FRR OSPF: ``router ospf`` with its router-id comes before any interface's ``ip ospf area``.
- FRR ``maximum-paths``: never above what FRR's parser takes, on a spine with more leaves than that.
"""

import copy
import re

import pytest

from netbox_aifabric.render.filters import eos_management_vrf
from tests.frr import frr_available
from tests.render_fixtures import GUIDES, contexts_of, guide_contexts, guide_spec, ospf_spec
from tests.unit.templates.acl_eos_nvue import NVUE_MGMT_PORTS, eos_readback, nvue_readback
from tests.unit.templates.helpers import load_yaml, render
from tests.unit.templates.test_frr_sonic import assert_frr_accepts

pytestmark = pytest.mark.pure

EOS, NVUE, FRR = 'eos/eos.cfg.j2', 'cumulus/startup.yaml.j2', 'frr/frr.conf.j2'
SERVICES = ('ssh', 'https', 'snmp')
FRR_DOCUMENTED_MAX_PATHS = 128  # FRR's bgp.rst: `maximum-paths (1-128)`, lower if the build's MULTIPATH_NUM is


def switches(guide):
    return [name for name, ctx in guide_contexts(guide).items() if ctx['role'] in ('spine', 'leaf', 'border')]


CASES = [(guide, name) for guide in GUIDES for name in switches(guide)]


@pytest.mark.parametrize(('guide', 'name'), CASES)
def test_eos_management_services_filtered_in_every_vrf(guide, name):
    ctx = guide_contexts(guide)[name]
    served = eos_readback(render(EOS, ctx))['served']
    assert set(served) == set(SERVICES) == set(ctx['management']['services'])
    for service in SERVICES:
        # served in the management VRF and in the default VRF (where USERS are routed in the routed/MLAG designs)
        assert {eos_management_vrf(ctx), 'default'} <= set(served[service]), (service, served[service])
        open_vrfs = [vrf for vrf, acl in served[service].items() if acl != 'AIFABRIC-MGMT']
        assert open_vrfs == [], f'{service} accepts every source in VRF {open_vrfs} on {name}'


def test_negative_control_eapi_without_its_default_vrf_acl_is_caught():
    """The old rendering (eAPI filtered under `vrf mgmt` only) is read back as open in the default VRF."""
    text = render(EOS, guide_contexts('routed')['leaf1'])
    old = text.replace('   vrf default\n      no shutdown\n      ip access-group AIFABRIC-MGMT\n   !\n', '')
    assert old != text
    assert eos_readback(old)['served']['https']['default'] is None


@pytest.mark.parametrize(('guide', 'name'), CASES)
def test_nvue_management_ports_closed_to_other_sources(guide, name):
    ctx = guide_contexts(guide)[name]
    readback = nvue_readback(render(NVUE, ctx))
    assert readback['management']['allowed_sources'] == sorted(ctx['management']['allowed_sources'])
    (document,) = load_yaml(render(NVUE, ctx))
    bound = document['set']['system']['control-plane']['acl']
    assert {'AIFABRIC-MGMT-TCP', 'AIFABRIC-MGMT-UDP'} <= set(bound)
    for service in SERVICES:
        for protocol, port in NVUE_MGMT_PORTS[service]:
            acl = document['set']['acl'][f'AIFABRIC-MGMT-{protocol.upper()}']
            last = acl['rule'][max(acl['rule'], key=int)]
            assert last['action'] == {'deny': {}} and last['match']['ip']['source-ip'] == 'ANY'
            assert str(port) in last['match']['ip'][protocol]['dest-port']


@pytest.mark.parametrize('guide', GUIDES)
def test_eos_pfc_watchdog_drops_the_stuck_queue_and_recovers(guide):
    ctx = guide_contexts(guide)['leaf1']
    watchdog = ctx['qos']['pfc_watchdog']
    assert watchdog['action'] is None and watchdog['restoration_time'] is None  # the guide's preset sets neither
    lines = render(EOS, ctx).splitlines()
    assert 'priority-flow-control pause watchdog action drop' in lines
    # the preset's restoration time, else SONiC's 200 ms default (the SONiC template's too)
    assert 'priority-flow-control pause watchdog default recovery-time 0.2' in lines
    assert f'priority-flow-control pause watchdog default timeout {watchdog["timeout"] / 1000:g}' in lines


def test_eos_pfc_watchdog_keeps_the_profiles_restoration_time():
    ctx = guide_contexts('routed')['leaf1']
    ctx['qos']['pfc_watchdog'].update(restoration_time=1500, action='drop')
    lines = render(EOS, ctx).splitlines()
    assert 'priority-flow-control pause watchdog default recovery-time 1.5' in lines
    assert 'priority-flow-control pause watchdog action drop' in lines


def evpn_mlag_leaves():
    ctxs = guide_contexts('evpn-vxlan')
    return {name: ctx for name, ctx in ctxs.items() if ctx['mlag'] and ctx['vtep']}


def test_nvue_evpn_mlag_pair_shares_one_router_mac():
    leaves = evpn_mlag_leaves()
    assert len(leaves) >= 2  # the guide's EVPN design has an MLAG pair of VTEPs: not vacuous
    macs = {}
    for name, ctx in leaves.items():
        (document,) = load_yaml(render(NVUE, ctx))
        mac = document['set']['system']['global']['anycast-mac']
        assert re.fullmatch(r'44:38:39:ff:[0-9a-f]{2}:[0-9a-f]{2}', mac)  # NVIDIA's reserved range
        assert mac == ctx['mlag']['system_mac']
        macs[name] = mac
    for name, ctx in leaves.items():
        assert macs[name] == macs[ctx['mlag']['peer']]  # one router MAC for the pair's shared VTEP address


@pytest.mark.parametrize('guide', ['mlag', 'routed', 'evpn-mh'])
def test_nvue_no_anycast_mac_without_an_mlag_vtep(guide):
    for name in switches(guide):
        ctx = guide_contexts(guide)[name]
        if ctx['mlag'] and ctx['vtep']:
            continue
        (document,) = load_yaml(render(NVUE, ctx))
        assert 'global' not in document['set']['system'], name


@pytest.mark.parametrize('guide', ['routed', 'evpn-vxlan'])
def test_frr_router_ospf_before_the_interfaces(guide):
    ctxs = contexts_of(ospf_spec(guide_spec(guide)), guide)
    for name, ctx in ctxs.items():
        if ctx['role'] not in ('spine', 'leaf') or not ctx['ospf']:
            continue
        lines = render(FRR, ctx).splitlines()
        first_area = next(i for i, line in enumerate(lines) if line.startswith(' ip ospf area'))
        assert lines.index('router ospf') < first_area, name
        assert lines[lines.index('router ospf') + 1] == f' ospf router-id {ctx["ospf"]["router_id"]}'


def wide_spine(leaves):
    """The routed guide's spine1 with ``leaves`` eBGP underlay sessions (private 4-byte ASNs, none its own)."""
    ctx = copy.deepcopy(guide_contexts('routed')['spine1'])
    template = ctx['bgp']['neighbors'][0]
    ctx['bgp']['neighbors'] = [
        {
            **template,
            'address': f'10.{4 + n // 256}.{n % 256}.1',
            'remote_asn': 4_200_000_000 + n,
            'peer': f'leaf{n + 1}',
        }
        for n in range(leaves)
    ]
    return ctx


@pytest.mark.parametrize('leaves', [4, 128, 512])
def test_frr_maximum_paths_within_what_frr_takes(leaves):
    text = render(FRR, wide_spine(leaves))
    (paths,) = re.findall(r'^  maximum-paths (\d+)$', text, re.M)
    assert int(paths) == min(leaves, FRR_DOCUMENTED_MAX_PATHS)
    assert_frr_accepts(text)


def test_negative_control_frr_refuses_maximum_paths_above_its_build():
    """FRR's parser refuses the old XL rendering (512 > Debian's MULTIPATH_NUM 256): the check can fail."""
    if not frr_available():
        pytest.skip('FRR is not installed')
    from tests.frr import check_frr_config

    text = render(FRR, wide_spine(512)).replace('  maximum-paths 128', '  maximum-paths 512')
    assert not check_frr_config(text).ok


@pytest.mark.parametrize(('guide', 'name'), CASES)
def test_eos_management_vrf_not_a_fabric_vrf_in_another_case(guide, name):
    """The guide's MGMT class lives in VRF MGMT: EOS's management VRF is then mgmt-oob, not a case away from it."""
    ctx = guide_contexts(guide)[name]
    text = render(EOS, ctx)
    vrfs = re.findall(r'^vrf instance (\S+)$', text, re.M)
    assert len({vrf.lower() for vrf in vrfs}) == len(vrfs), vrfs
    expected = 'mgmt-oob' if any(v['vrf'] == 'MGMT' for v in ctx['vlans']) else 'mgmt'
    assert expected in vrfs and f'   vrf {expected}' in text.splitlines()  # and Management1 is in it
