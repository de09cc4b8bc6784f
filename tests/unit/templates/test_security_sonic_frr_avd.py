"""The security matrix and the management plane as SONiC (config_db + FRR) and the AVD export render them, read back
from the rendered output and proven with :func:`netbox_aifabric.checks.matrix.violations`.

Each read-back parser turns a rendered configuration into the context's shapes and REPLACES the context's own facts
with them: ``security.acls``, ``vlans[].acl``, ``vlans[].vrf`` (where the NOS routes the VLAN), ``management`` (the
sources the management services accept) and, for SONiC with FRR, ``vlans[].advertise`` (what frr.conf announces).
So the proof evaluates what the switch would do, not what NetBox intended:

- SONiC: the L3 ACL tables bound at ingress, their rules by descending PRIORITY, first match wins, and what no rule
  matches is forwarded (an L3 table's default; the template ends with an explicit DROP). A VLAN is filtered by a table
  only if every member port of the VLAN (the MLAG peer link aside) is bound to it. A rule with a protocol or port
  match is a partial one: a partial FORWARD counts as forwarding everything (it could let the class through), a
  partial DROP counts as nothing. Management: the CTRLPLANE tables (caclmgrd): each management service accepts the
  ACCEPT rules' sources of its tables; with no CTRLPLANE rule at all nothing is filtered (0.0.0.0/0).
- AVD: ``ip_access_lists`` by name, each SVI's ``access_group_in`` and ``vrf``; management: the standard ACLs on
  ``management_ssh``, ``management_api_http`` and ``snmp_server`` (a service without one accepts 0.0.0.0/0).

Every guide design must read back without violations; negative controls (one rule dropped from the output, a port
unbound, the MGMT VLAN back in the default VRF, the management filter removed) must be caught.
"""

import copy
import json
import re
from functools import cache

import pytest

from netbox_aifabric.checks.matrix import evaluate, management_violations, violations
from netbox_aifabric.render.avd import avd_structured_config
from netbox_aifabric.render.filters import eos_management_vrf
from tests.render_fixtures import GUIDES, guide_contexts
from tests.unit.templates.helpers import render

pytestmark = pytest.mark.pure

SONIC, FRR = 'sonic/config_db.json.j2', 'frr/frr.conf.j2'
SONIC_GUIDES = [g for g in GUIDES if not any(ctx.get('evpn_mh') for ctx in guide_contexts(g).values())]
OPEN = ['0.0.0.0/0']
SERVICES = {'SSH': 'ssh', 'SNMP': 'snmp'}  # caclmgrd's services; EXTERNAL_CLIENT on port 443 is https
PARTIAL = ('IP_PROTOCOL', 'L4_DST_PORT', 'L4_SRC_PORT', 'L4_DST_PORT_RANGE', 'TCP_FLAGS', 'ICMP_TYPE')


def switches(contexts):
    return {name: ctx for name, ctx in contexts.items() if ctx.get('node_id') is not None}


@cache
def _rendered(guide):
    out = {}
    for name, ctx in switches(guide_contexts(guide)).items():
        out[name] = {'frr': render(FRR, ctx)}
        if guide in SONIC_GUIDES:
            out[name]['sonic'] = render(SONIC, ctx)
    return json.dumps(out)


def rendered(guide):
    """``{switch: {'frr': text, 'sonic': text}}`` (fresh copies)."""
    return json.loads(_rendered(guide))


# SONiC config_db


def sonic_acls(db):
    """The ingress L3 tables as context ACLs: ``{name: {'name', 'rules', 'ports'}}``."""
    tables = {}
    for name, table in db.get('ACL_TABLE', {}).items():
        if table['type'] != 'L3' or table.get('stage', 'ingress').lower() != 'ingress':
            continue
        rules = []
        for key, rule in db['ACL_RULE'].items():
            table_name, _, rule_name = key.partition('|')
            if table_name != name:
                continue
            action = {'FORWARD': 'permit', 'DROP': 'deny'}[rule['PACKET_ACTION']]
            if action == 'deny' and any(field in rule for field in PARTIAL):
                continue  # a partial deny does not stop the class
            rules.append(
                {
                    'seq': int(rule['PRIORITY']),
                    'action': action,
                    'source': rule.get('SRC_IP', 'any'),
                    'destination': rule.get('DST_IP', 'any'),
                    'remark': rule_name,
                }
            )
        rules.sort(key=lambda r: -r['seq'])
        rules.append({'seq': 0, 'action': 'permit', 'source': 'any', 'destination': 'any', 'remark': 'no match'})
        tables[name] = {'name': name, 'rules': rules, 'ports': set(table.get('ports', ()))}
    return tables


def sonic_management(db, context):
    """What the management services accept, from MGMT_VRF_CONFIG, MGMT_INTERFACE and the CTRLPLANE tables."""
    vrf = 'mgmt' if db.get('MGMT_VRF_CONFIG', {}).get('vrf_global', {}).get('mgmtVrfEnabled') == 'true' else None
    (address, gateway), *_ = [
        (key.split('|')[1], entry.get('gwaddr')) for key, entry in db.get('MGMT_INTERFACE', {}).items()
    ] or [(None, None)]
    accepted, any_rule = {}, False
    for name, table in db.get('ACL_TABLE', {}).items():
        if table['type'] != 'CTRLPLANE':
            continue
        rules = [r for key, r in db.get('ACL_RULE', {}).items() if key.split('|')[0] == name]
        any_rule = any_rule or bool(rules)
        for service in table['services']:
            if service == 'EXTERNAL_CLIENT' and all(r.get('L4_DST_PORT') == '443' for r in rules):
                service = 'https'
            service = SERVICES.get(service, service)
            sources = [r.get('SRC_IP') or r.get('SRC_IPV6') for r in rules if r['PACKET_ACTION'] == 'ACCEPT']
            accepted.setdefault(service, []).extend(sources)
    if not any_rule:
        sources = OPEN  # caclmgrd drops nothing without a CTRLPLANE rule
    else:
        sources = sorted({s for service in context['services'] for s in accepted.get(service, ())})
    return {**context, 'vrf': vrf, 'address': address, 'gateway': gateway, 'allowed_sources': sources}


def frr_advertised(text):
    """``{VRF name or None: {subnet}}`` that frr.conf announces: BGP `network`s per VRF and OSPF's passive SVIs."""
    found, vrf, in_ipv4 = {}, None, False
    for line in text.splitlines():
        if match := re.fullmatch(r'router bgp \d+(?: vrf Vrf-(\S+))?', line):
            vrf = match.group(1)
        elif line == ' address-family ipv4 unicast':
            in_ipv4 = True
        elif line == ' exit-address-family':
            in_ipv4 = False
        elif in_ipv4 and line.startswith('  network '):
            found.setdefault(vrf, set()).add(line.split()[1])
    return found


def frr_ospf_svis(text):
    svis, current = set(), None
    for line in text.splitlines():
        if match := re.fullmatch(r'interface Vlan(\d+)', line):
            current = int(match.group(1))
        elif current and line == ' ip ospf area 0.0.0.0':
            svis.add(current)
        elif not line.startswith(' '):
            current = None
    return svis


def sonic_readback(context, db, frr_text):
    """``context`` with the security facts replaced by what SONiC's config_db and frr.conf do."""
    ctx = copy.deepcopy(context)
    tables = sonic_acls(db)
    peer_link = db.get('MCLAG_DOMAIN', {}).get('1', {}).get('peer_link')
    members = {}
    for key in db.get('VLAN_MEMBER', {}):
        vlan, port = key.split('|')
        if port != peer_link:
            members.setdefault(vlan, set()).add(port)
    advertised = frr_advertised(frr_text)
    ospf = frr_ospf_svis(frr_text)
    for vlan in ctx['vlans']:
        name = f'Vlan{vlan["vid"]}'
        ports = members.get(name, set())
        vlan['acl'] = next((t['name'] for t in tables.values() if ports and ports <= t['ports']), None)
        vrf_name = db.get('VLAN_INTERFACE', {}).get(name, {}).get('vrf_name')
        vlan['vrf'] = vrf_name.removeprefix('Vrf-') if vrf_name else None
        vlan['advertise'] = bool(vlan['subnet']) and (
            vlan['subnet'] in advertised.get(vlan['vrf'], ()) or vlan['vid'] in ospf
        )
    ctx['security'] = {
        **ctx['security'],
        'acls': [{k: v for k, v in t.items() if k != 'ports'} for t in tables.values()],
    }
    ctx['management'] = sonic_management(db, ctx['management'])
    return ctx


def sonic_contexts(guide, mutate=None):
    """The guide's contexts with every switch's facts read back from its config_db and frr.conf; ``mutate(name, db)``
    changes a config_db before it is read."""
    contexts = guide_contexts(guide)
    for name, texts in rendered(guide).items():
        db = json.loads(texts['sonic'])
        if mutate:
            mutate(name, db)
        contexts[name] = sonic_readback(contexts[name], db, texts['frr'])
    return contexts


# AVD structured config


def avd_readback(context, config):
    ctx = copy.deepcopy(context)
    acls = {
        acl['name']: {
            'name': acl['name'],
            'rules': [
                {
                    'seq': e['sequence'],
                    'action': e['action'],
                    'source': e['source'],
                    'destination': e['destination'],
                    'remark': '',
                }
                for e in acl['entries']
            ],
        }
        for acl in config.get('ip_access_lists', ())
    }
    svis = {svi['name']: svi for svi in config.get('vlan_interfaces', ())}
    for vlan in ctx['vlans']:
        svi = svis.get(f'Vlan{vlan["vid"]}', {})
        vlan['acl'] = svi.get('access_group_in')
        vlan['vrf'] = svi.get('vrf')
    ctx['security'] = {**ctx['security'], 'acls': list(acls.values())}
    standard = {
        acl['name']: [e['source'] for e in acl['entries'] if e['action'] == 'permit']
        for acl in config.get('standard_access_lists', ())
    }
    ssh, api, snmp = (config.get(key, {}) for key in ('management_ssh', 'management_api_http', 'snmp_server'))
    mgmt = (config.get('management_interfaces') or [{}])[0]
    vrf = mgmt.get('vrf')
    groups = {
        'ssh': [ssh.get('ip_access_group_in')]
        + [v.get('ip_access_group_in') for v in ssh.get('vrfs', ()) if v['name'] == vrf],
        'https': [v.get('access_group') for v in api.get('enable_vrfs', ())],
        'snmp': [a['name'] for a in snmp.get('ipv4_acls', ())] or [None],
    }
    sources = set()
    for service in ctx['management']['services']:
        for group in groups[service] or [None]:
            sources.update(standard.get(group, OPEN) if group else OPEN)
    route = next((r for r in config.get('static_routes', ()) if r.get('vrf') == vrf and r['prefix'] == '0.0.0.0/0'), {})
    ctx['management'] = {
        **ctx['management'],
        'vrf': vrf,
        'address': mgmt.get('ip_address'),
        'gateway': route.get('next_hop'),
        'allowed_sources': sorted(sources),
    }
    return ctx


def avd_contexts(guide, mutate=None):
    contexts = guide_contexts(guide)
    for name, ctx in switches(contexts).items():
        config = avd_structured_config(ctx)
        if mutate:
            mutate(name, config)
        contexts[name] = avd_readback(ctx, config)
    return contexts


# The proof


def reaches(contexts):
    """The pairs of classes that reach each other (the matrix's verdicts)."""
    found = {pair for pair, verdict in evaluate(contexts).items() if verdict.reaches}
    assert found, 'some classes reach each other'
    return found


@pytest.mark.parametrize('guide', SONIC_GUIDES)
def test_sonic_frr_matrix_holds(guide):
    contexts = sonic_contexts(guide)
    assert violations(contexts) == []
    assert reaches(contexts) == reaches(guide_contexts(guide))  # allowed pairs still reach each other
    for name, ctx in switches(contexts).items():
        intended = guide_contexts(guide)[name]
        ports = [p for p in intended['lags'] + intended['interfaces'] if not p.get('lag')]
        peer_link = intended['mlag']['peer_link'] if intended['mlag'] else None
        # what SONiC routes and FRR announces is what the context intends; every VLAN with a gateway ACL and ports
        # of its own (the guides have no BMC ports: MGMT has only the peer link) is filtered
        for got, want in zip(ctx['vlans'], intended['vlans'], strict=True):
            assert (got['vrf'], got['advertise']) == (want['vrf'], want['advertise']), (name, got['name'])
            members = [
                p['name']
                for p in ports
                if p['name'] != peer_link and want['vid'] in [p['untagged_vlan'], *p['tagged_vlans']]
            ]
            assert bool(got['acl']) == bool(want['acl'] and members), (name, got['name'])


@pytest.mark.parametrize('guide', GUIDES)
def test_avd_matrix_holds(guide):
    contexts = avd_contexts(guide)
    assert violations(contexts) == []
    assert reaches(contexts) == reaches(guide_contexts(guide))
    for name, ctx in switches(contexts).items():
        assert [(v['vrf'], v['acl']) for v in ctx['vlans'] if v['gateway']] == [
            (v['vrf'], v['acl']) for v in guide_contexts(guide)[name]['vlans'] if v['gateway']
        ]


def test_the_guides_demand_denies():
    """The proof has something to prove: USERS may not reach STORAGE in the guide's designs (the first deny of its
    gateway ACL), and MGMT/TELEMETRY share a VRF apart from USERS."""
    ctx = guide_contexts('mlag')['leaf1']
    users = next(acl for acl in ctx['security']['acls'] if acl['name'] == 'AIFABRIC-USERS-IN')
    assert users['rules'][0]['action'] == 'deny'
    assert {v['name']: v['vrf'] for v in ctx['vlans']}['MGMT'] == 'MGMT'


def _drop_rule(rule):
    def mutate(name, db):
        if name == 'leaf1':
            del db['ACL_RULE'][rule]

    return mutate


@pytest.mark.parametrize('guide', SONIC_GUIDES)
def test_sonic_negative_controls(guide):
    if 'AIFABRIC_MATRIX|AIFABRIC-USERS-IN-10' not in json.loads(rendered(guide)['leaf1']['sonic'])['ACL_RULE']:
        pytest.fail('the USERS gateway ACL is missing')
    found = violations(sonic_contexts(guide, _drop_rule('AIFABRIC_MATRIX|AIFABRIC-USERS-IN-10')))
    assert any(v.startswith('USERS reaches STORAGE') for v in found), found

    def unbind(name, db):
        if name == 'leaf1':
            db['ACL_TABLE']['AIFABRIC_MATRIX']['ports'].remove('PortChannel1')

    found = violations(sonic_contexts(guide, unbind))
    assert any(v.startswith('USERS reaches STORAGE') for v in found), found

    def mgmt_in_default_vrf(name, db):  # what the template did before: VLAN 10 next to USERS in the default VRF
        if name == 'leaf1':
            db['VLAN_INTERFACE']['Vlan10'] = {}
            db['VLAN_INTERFACE']['Vlan20'].pop('vrf_name', None)

    if guide_contexts(guide)['leaf1']['vlans'][1]['vrf'] is None:  # USERS in the default VRF (MLAG, routed)
        found = violations(sonic_contexts(guide, mgmt_in_default_vrf))
        assert any(v.startswith('USERS reaches MGMT') for v in found), found


@pytest.mark.parametrize('guide', GUIDES)
def test_avd_negative_controls(guide):
    def drop_deny(name, config):
        if name == 'leaf1':
            acl = next(a for a in config['ip_access_lists'] if a['name'] == 'AIFABRIC-USERS-IN')
            acl['entries'] = [e for e in acl['entries'] if e['sequence'] != 10]

    found = violations(avd_contexts(guide, drop_deny))
    assert any(v.startswith('USERS reaches STORAGE') for v in found), found

    def unbind(name, config):
        if name == 'leaf1':
            next(svi for svi in config['vlan_interfaces'] if svi['name'] == 'Vlan20').pop('access_group_in')

    found = violations(avd_contexts(guide, unbind))
    assert any(v.startswith('USERS reaches STORAGE') for v in found), found


@pytest.mark.parametrize('guide', SONIC_GUIDES)
def test_sonic_control_plane_accepts_only_the_jump_hosts(guide):
    contexts = sonic_contexts(guide)
    for name, ctx in switches(contexts).items():
        intended = guide_contexts(guide)[name]['management']
        assert ctx['management']['allowed_sources'] == intended['jump_hosts'] == ['192.0.2.16/28'], name
        assert (ctx['management']['vrf'], ctx['management']['address'], ctx['management']['gateway']) == (
            'mgmt',
            intended['address'],
            intended['gateway'],
        )
    assert management_violations(contexts) == []

    def no_ctrlplane(name, db):
        if name == 'leaf1':
            for table in [t for t, v in db['ACL_TABLE'].items() if v['type'] == 'CTRLPLANE']:
                del db['ACL_TABLE'][table]
            db['ACL_RULE'] = {k: v for k, v in db['ACL_RULE'].items() if k.startswith('AIFABRIC_MATRIX|')}

    found = management_violations(sonic_contexts(guide, no_ctrlplane))
    assert found == ['leaf1: management services accept 0.0.0.0/0 beyond jump hosts'], found


@pytest.mark.parametrize('guide', GUIDES)
def test_avd_management_accepts_only_the_jump_hosts(guide):
    contexts = avd_contexts(guide)
    for name, ctx in switches(contexts).items():
        intended = guide_contexts(guide)[name]['management']
        assert ctx['management']['allowed_sources'] == intended['jump_hosts'], name
        expected = eos_management_vrf(guide_contexts(guide)[name])  # mgmt-oob next to the guide's MGMT, as EOS's
        assert (ctx['management']['vrf'], ctx['management']['gateway']) == (expected, intended['gateway'])
    assert management_violations(contexts) == []

    def open_snmp(name, config):
        if name == 'leaf1':
            del config['snmp_server']['ipv4_acls']

    found = management_violations(avd_contexts(guide, open_snmp))
    assert found == ['leaf1: management services accept 0.0.0.0/0 beyond jump hosts'], found


@pytest.mark.parametrize('guide', SONIC_GUIDES)
def test_sonic_management_tables(guide):
    for name, texts in rendered(guide).items():
        db = json.loads(texts['sonic'])
        plane = guide_contexts(guide)[name]['management']
        assert db['MGMT_VRF_CONFIG'] == {'vrf_global': {'mgmtVrfEnabled': 'true'}}
        assert db['MGMT_INTERFACE'] == {f'eth0|{plane["address"]}': {'gwaddr': plane['gateway']}}
        assert db['SNMP_AGENT_ADDRESS_CONFIG'] == {f'{plane["address"].split("/")[0]}|161|mgmt': {}}
        assert db['ACL_TABLE']['AIFABRIC_MGMT']['services'] == ['SSH', 'EXTERNAL_CLIENT', 'SNMP']
        rules = {k: v for k, v in db['ACL_RULE'].items() if k.startswith('AIFABRIC_MGMT|')}
        assert [(r['SRC_IP'], r['PACKET_ACTION'], r['L4_DST_PORT']) for r in rules.values()] == [
            (source, 'ACCEPT', '443') for source in plane['jump_hosts']
        ]


@pytest.mark.parametrize('guide', SONIC_GUIDES)
def test_sonic_trust_boundary_and_no_cnp_policer(guide):
    for name, texts in rendered(guide).items():
        db = json.loads(texts['sonic'])
        ctx = guide_contexts(guide)[name]
        untrusted = {i['name'] for i in ctx['interfaces'] if i['trust'] == 'none'}
        bound = {
            port for port, entry in db['PORT_QOS_MAP'].items() if entry.get('dscp_to_tc_map') == 'AIFABRIC_UNTRUSTED'
        }
        assert bound == untrusted
        if untrusted:
            assert set(db['DSCP_TO_TC_MAP']['AIFABRIC_UNTRUSTED'].values()) == {'0'}
            assert len(db['DSCP_TO_TC_MAP']['AIFABRIC_UNTRUSTED']) == 64
        # CNP policing: a policer bound to an ACL rule is in no released SONiC image: nothing rendered, not faked
        assert any(i['cnp_police'] for i in ctx['interfaces']) == name.startswith('leaf')
        assert 'POLICER' not in db
        assert not [r for r in db.get('ACL_RULE', {}).values() if 'POLICER_ACTION' in r]
