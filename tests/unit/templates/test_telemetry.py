"""Telemetry on every NOS, for the guide's cluster with collectors in its TELEMETRY subnet.

Expected lines are derived from the input: the collector addresses (hosts of the guide's TELEMETRY class prefix), the
jump-host subnet, the switches' management addresses and the facts' ports and rate. A fabric without collectors
renders no telemetry at all (the goldens, which have none, stay as they are; checked here line by line too). An
independent read-back of each rendered config (EOS ACL lines, NVUE YAML, SONiC JSON) lists the sources each NOS
admits to SNMP and gNMI, compared with the collectors; its negative control drops a manager from a render.
"""

import copy
import json
import re
from pathlib import Path

import jsonschema
import netaddr
import pytest

from netbox_aifabric.checks.engine import Facts, run_rules
from netbox_aifabric.checks.telemetry import RULES, check_admission, check_observable
from netbox_aifabric.facts.context import build_contexts
from netbox_aifabric.facts.telemetry import (
    COUNTER_POLL_MS,
    GNMI_PORT,
    NOTHING_OBSERVABLE,
    OTLP_PORT,
    SECRETS,
    SFLOW_POLLING_INTERVAL,
    SONIC_GNMI_CERTIFICATES,
)
from netbox_aifabric.render.filters import eos_management_vrf
from tests.frr import check_frr_config, frr_available
from tests.render_fixtures import GUIDES, JUMP_HOSTS, design_of, guide_intent, guide_spec, guide_telemetry, plan_of
from tests.unit.templates.helpers import load_yaml, render

pytestmark = pytest.mark.pure

EOS, NVUE, SONIC, FRR = 'eos/eos.cfg.j2', 'cumulus/startup.yaml.j2', 'sonic/config_db.json.j2', 'frr/frr.conf.j2'
SCHEMA = json.loads((Path(__file__).parents[3] / 'docs' / 'aifabric-context.v1.schema.json').read_text())
VALIDATOR = jsonschema.validators.validator_for(SCHEMA)(SCHEMA)
RATE = guide_telemetry()['sflow_sampling_rate']
# NVUE's sampling-rate leaves (nvue-reference sFlow.md): `default` applies only to ports whose speed has no rate of
# its own, and every speed has one by default (Cumulus Linux sFlow page's table), so each is set to the context's rate
SPEEDS = ('100m', '1g', '10g', '25g', '40g', '50g', '100g', '200g', '400g', '800g')
NVUE_SFLOW_RATES = ('default', *(f'speed-{speed}' for speed in SPEEDS))


def telemetry_prefix() -> netaddr.IPNetwork:
    """The guide's TELEMETRY class prefix (VLAN 50, 10.50.0.0/24), from the seed data the intent is built from."""
    classes = guide_intent('mlag')['traffic_classes']
    return netaddr.IPNetwork(next(tc['prefix'] for tc in classes if tc['purpose'] == 'telemetry'))


def collectors() -> dict:
    """The guide's collectors (render_fixtures.guide_telemetry: hosts of the TELEMETRY subnet)."""
    return guide_telemetry()


def contexts(guide: str, telemetry: dict | None) -> dict:
    intent = guide_intent(design_of(guide))
    if telemetry is not None:
        intent['telemetry'] = telemetry
    return build_contexts(plan_of(guide_spec(guide)), intent)


def switches(guide: str, telemetry: dict | None):
    return [(n, c) for n, c in sorted(contexts(guide, telemetry).items()) if c['node_id'] is not None]


CASES = [(guide, name) for guide in GUIDES for name, _ in switches(guide, None)]


def mgmt_host(ctx) -> str:
    return str(netaddr.IPNetwork(ctx['management']['address']).ip)


@pytest.mark.parametrize('guide', GUIDES)
def test_contexts_validate_and_servers_have_none(guide):
    t = collectors()
    for name, ctx in contexts(guide, t).items():
        VALIDATOR.validate(ctx)
        if ctx['node_id'] is None:
            assert ctx['telemetry'] is None, name
            continue
        tel = ctx['telemetry']
        assert tel['vrf'] == ctx['management']['vrf'] == 'mgmt'
        assert tel['source'] == mgmt_host(ctx)
        assert tel['snmp']['allowed_sources'] == [JUMP_HOSTS, f'{t["snmp_managers"][0]}/32']
        assert tel['streaming']['allowed_sources'] == [f'{t["streaming"][0]}/32']
        # lossless guide preset: PFC on the RoCE priority's TC; the histograms watch it
        qos = ctx['qos']
        assert tel['counters']['pfc_tcs'] == sorted({qos['priority_to_tc'][str(p)] for p in qos['pfc_priorities']})


def test_no_secret_in_clear():
    """The passphrases and the community are the named placeholders, in every switch context and every render."""
    for guide in GUIDES:
        for version in ('v3', 'v2c'):
            t = {**collectors(), 'snmp_version': version}
            for name, ctx in switches(guide, t):
                snmp = ctx['telemetry']['snmp']
                secrets = [snmp['auth'], snmp['priv'], snmp['community']]
                assert [s for s in secrets if s is not None] == (
                    [SECRETS['snmp_v3_auth'], SECRETS['snmp_v3_priv']]
                    if version == 'v3'
                    else [SECRETS['snmp_community']]
                ), name
    eos = render(EOS, switches('mlag', collectors())[0][1])
    assert f'auth sha {SECRETS["snmp_v3_auth"]} priv aes {SECRETS["snmp_v3_priv"]}' in eos


@pytest.mark.parametrize(('guide', 'name'), CASES)
def test_no_collectors_no_telemetry(guide, name):
    """All defaults (no collector): every switch's context has none, and no NOS renders a telemetry line."""
    ctx = dict(switches(guide, None))[name]
    assert ctx['telemetry'] is None
    eos = render(EOS, ctx)
    for line in ('AIFABRIC-SNMP', 'AIFABRIC-GNMI', 'logging vrf', 'ntp server', 'sflow', 'queue-monitor', 'gnmi'):
        assert line not in eos, line
    assert 'snmp-server ipv4 access-list AIFABRIC-MGMT vrf mgmt' in eos  # the jump hosts as before
    tree = load_yaml(render(NVUE, ctx))[0]['set']
    assert 'service' not in tree and 'sflow' not in tree['system'] and 'telemetry' not in tree['system']
    assert not {'username', 'trap-destination'} & set(tree['system'].get('snmp-server', {}))
    if guide != 'evpn-mh':
        config = json.loads(render(SONIC, ctx))
        tables = ('SYSLOG_SERVER', 'NTP_SERVER', 'SNMP_USER', 'SNMP_TRAP_CONFIG', 'SFLOW', 'TELEMETRY', 'GNMI')
        for table in (*tables, 'FLEX_COUNTER_TABLE'):
            assert table not in config, table
        assert not {'AIFABRIC_SNMP', 'AIFABRIC_GNMI'} & set(config.get('ACL_TABLE', {}))
    assert 'log syslog' not in render(FRR, ctx)


def _eos_acl(config: str, name: str) -> list[str]:
    lines = config.splitlines()
    start = lines.index(f'ip access-list standard {name}')
    return [line.split()[1] for line in lines[start + 1 :] if line.startswith('   permit ')][
        : next(i for i, line in enumerate(lines[start + 1 :]) if not line.startswith('   '))
    ]


@pytest.mark.parametrize(('guide', 'name'), CASES)
def test_eos_lines(guide, name):
    t = collectors()
    ctx = dict(switches(guide, t))[name]
    lines = render(EOS, ctx).splitlines()
    vrf = eos_management_vrf(ctx)  # mgmt, or mgmt-oob where a fabric VRF is MGMT (test_nos_fidelity)
    user, manager = t['snmp_user'], t['snmp_managers'][0]
    expected = [
        f'snmp-server ipv4 access-list AIFABRIC-SNMP vrf {vrf}',
        f'snmp-server vrf {vrf} local-interface Management1',
        'snmp-server view AIFABRIC-RO iso included',
        'snmp-server group AIFABRIC-RO v3 priv read AIFABRIC-RO',
        f'snmp-server user {user} AIFABRIC-RO v3 auth sha {SECRETS["snmp_v3_auth"]} priv aes {SECRETS["snmp_v3_priv"]}',
        f'snmp-server host {manager} vrf {vrf} version 3 priv {user}',
        'snmp-server enable traps',  # every trap type to the hosts above
        f'logging vrf {vrf} source-interface Management1',
        *(f'logging vrf {vrf} host {s} 514' for s in t['syslog']),
        f'ntp local-interface vrf {vrf} Management1',
        *(f'ntp server vrf {vrf} {s} iburst' for s in t['ntp']),
        f'sflow sample dangerous {RATE}',  # below 16384: EOS needs the keyword
        f'sflow polling-interval {SFLOW_POLLING_INTERVAL}',
        *(f'sflow vrf {vrf} destination {s} 6343' for s in t['sflow']),
        f'sflow vrf {vrf} source-interface Management1',
        'sflow run',
        'management api gnmi',
        '   transport grpc AIFABRIC',
        f'      port {GNMI_PORT}',
        f'      vrf {vrf}',
        '      ip access-group AIFABRIC-GNMI',
        'queue-monitor length',
    ]
    assert [line for line in expected if line not in lines] == []
    assert f'snmp-server ipv4 access-list AIFABRIC-MGMT vrf {vrf}' not in lines  # replaced, not doubled
    config = '\n'.join(lines)
    assert _eos_acl(config, 'AIFABRIC-SNMP') == [JUMP_HOSTS, f'{manager}/32']
    assert _eos_acl(config, 'AIFABRIC-GNMI') == [f'{t["streaming"][0]}/32']


def test_eos_v2c_community():
    t = {**collectors(), 'snmp_version': 'v2c'}
    ctx = switches('routed', t)[0][1]
    lines = render(EOS, ctx).splitlines()
    vrf = eos_management_vrf(ctx)
    community = SECRETS['snmp_community']
    assert f'snmp-server community {community} ro AIFABRIC-SNMP' in lines
    assert f'snmp-server host {t["snmp_managers"][0]} vrf {vrf} version 2c {community}' in lines
    assert not [line for line in lines if line.startswith('snmp-server user ')]


@pytest.mark.parametrize(('guide', 'name'), CASES)
def test_nvue_lines(guide, name):
    t = collectors()
    ctx = dict(switches(guide, t))[name]
    tree = load_yaml(render(NVUE, ctx))[0]['set']
    system = tree['system']
    assert system['sflow']['collector'] == {s: {'port': 6343, 'interface': 'eth0'} for s in t['sflow']}
    assert system['sflow']['sampling-rate'] == dict.fromkeys(NVUE_SFLOW_RATES, RATE)
    assert system['sflow']['poll-interval'] == SFLOW_POLLING_INTERVAL
    export = system['telemetry']['export']
    assert export['vrf'] == 'mgmt'
    assert export['otlp']['grpc']['destination'] == {s: {'port': OTLP_PORT} for s in t['streaming']}
    assert tree['service']['syslog'] == {'mgmt': {'server': {s: {'port': 514, 'protocol': 'udp'} for s in t['syslog']}}}
    assert tree['service']['ntp'] == {'mgmt': {'server': {s: {'iburst': True} for s in t['ntp']}}}
    user = system['snmp-server']['username'][t['snmp_user']]
    assert user == {'auth-sha': {SECRETS['snmp_v3_auth']: {'encrypt-aes': {SECRETS['snmp_v3_priv']: {}}}}}
    assert nvue_snmp_sources(tree) == [JUMP_HOSTS, f'{t["snmp_managers"][0]}/32']
    # histograms on the PFC ports: the lossless PG/TC and the ECN TCs
    tel = ctx['telemetry']['counters']
    for iface in ctx['interfaces']:
        port = tree['interface'][_nvue_name(iface['name'])]
        if iface['pfc']:
            histogram = port['telemetry']['histogram']
            assert set(histogram['ingress-buffer']['priority-group']) == {str(tc) for tc in tel['pfc_tcs']}
            assert set(histogram['egress-buffer']['traffic-class']) == {
                str(tc) for tc in set(tel['pfc_tcs']) | set(tel['ecn_tcs'])
            }
        else:
            assert 'telemetry' not in port, iface['name']


def _nvue_name(name: str) -> str:
    from netbox_aifabric.render.filters import interface as aifabric_interface

    return aifabric_interface(name, 'nvue')


def nvue_snmp_sources(tree) -> list[str]:
    """Read back: the sources AIFABRIC-MGMT-UDP (UDP 161) permits, in rule order."""
    rules = tree['acl']['AIFABRIC-MGMT-UDP']['rule']
    return [
        r['match']['ip']['source-ip']
        for _, r in sorted(rules.items(), key=lambda kv: int(kv[0]))
        if 'permit' in r['action']
    ]


def sonic_sources(config: dict, table: str) -> list[str]:
    """Read back: the SRC_IPs of a control-plane table's ACCEPT rules, highest priority first."""
    rules = [r for key, r in config['ACL_RULE'].items() if key.split('|')[0] == table]
    return [r['SRC_IP'] for r in sorted(rules, key=lambda r: -int(r['PRIORITY'])) if r['PACKET_ACTION'] == 'ACCEPT']


@pytest.mark.parametrize(('guide', 'name'), [c for c in CASES if c[0] != 'evpn-mh'])
def test_sonic_tables(guide, name):
    t = collectors()
    ctx = dict(switches(guide, t))[name]
    config = json.loads(render(SONIC, ctx))
    source = mgmt_host(ctx)
    assert config['SYSLOG_SERVER'] == {
        s: {'port': '514', 'protocol': 'udp', 'source': source, 'vrf': 'mgmt'} for s in t['syslog']
    }
    assert config['NTP'] == {'global': {'vrf': 'mgmt'}}
    assert config['NTP_SERVER'] == {s: {'association_type': 'server', 'iburst': 'on'} for s in t['ntp']}
    assert config['SNMP_USER'][t['snmp_user']]['SNMP_USER_AUTH_PASSWORD'] == SECRETS['snmp_v3_auth']
    assert config['SNMP_USER'][t['snmp_user']]['SNMP_USER_ENCRYPTION_PASSWORD'] == SECRETS['snmp_v3_priv']
    assert config['SFLOW'] == {'global': {'admin_state': 'up', 'polling_interval': str(SFLOW_POLLING_INTERVAL)}}
    assert [c['collector_ip'] for c in config['SFLOW_COLLECTOR'].values()] == t['sflow']
    assert {c['collector_vrf'] for c in config['SFLOW_COLLECTOR'].values()} == {'mgmt'}
    assert set(config['SFLOW_SESSION']) == set(config['PORT'])  # every port, a session referencing a real port
    assert {s['sample_rate'] for s in config['SFLOW_SESSION'].values()} == {str(RATE)}
    for table in ('TELEMETRY', 'GNMI'):  # with certs: without them SONiC's gNMI listens on 127.0.0.1 only
        gnmi = {'client_auth': 'true', 'port': str(GNMI_PORT)}
        assert config[table] == {'certs': SONIC_GNMI_CERTIFICATES, 'gnmi': gnmi}
    assert set(config['FLEX_COUNTER_TABLE']) == set(COUNTER_POLL_MS)
    for group, interval in COUNTER_POLL_MS.items():
        entry = config['FLEX_COUNTER_TABLE'][group]
        assert entry == {'FLEX_COUNTER_STATUS': 'enable', **({'POLL_INTERVAL': str(interval)} if interval else {})}
    assert config['ACL_TABLE']['AIFABRIC_SNMP'] == {
        'policy_desc': 'SNMP polling from the telemetry managers',
        'services': ['SNMP'],
        'type': 'CTRLPLANE',
    }
    assert config['ACL_TABLE']['AIFABRIC_GNMI']['services'] == ['EXTERNAL_CLIENT']
    assert sonic_sources(config, 'AIFABRIC_SNMP') == [f'{m}/32' for m in t['snmp_managers']]
    assert sonic_sources(config, 'AIFABRIC_GNMI') == [f'{m}/32' for m in t['streaming']]
    gnmi_rules = [r for k, r in config['ACL_RULE'].items() if k.startswith('AIFABRIC_GNMI|')]
    assert {r['L4_DST_PORT'] for r in gnmi_rules} == {str(GNMI_PORT)}
    assert sonic_sources(config, 'AIFABRIC_MGMT') == [JUMP_HOSTS]  # SSH stays with the jump hosts alone


def test_sonic_gnmi_certificates_are_sonics_own_default_paths():
    """The files TELEMETRY|certs / GNMI|certs name: SONiC's defaults (sonic-config-engine minigraph.py writes these
    paths, sonic-mgmt's test_telemetry expects them), each fitting sonic-telemetry.yang's path pattern."""
    folder = '/etc/sonic/telemetry/'
    assert SONIC_GNMI_CERTIFICATES == {
        'ca_crt': folder + 'dsmsroot.cer',
        'server_crt': folder + 'streamingtelemetryserver.cer',
        'server_key': folder + 'streamingtelemetryserver.key',
    }
    yang_path = r'(/[a-zA-Z0-9_-]+)*/([a-zA-Z0-9_-]+)\.'
    for leaf, path in SONIC_GNMI_CERTIFICATES.items():
        assert re.fullmatch(yang_path + ('key' if leaf == 'server_key' else 'cer'), path), leaf


def test_no_streaming_collector_no_gnmi_server():
    config = json.loads(render(SONIC, switches('routed', {**collectors(), 'streaming': []})[0][1]))
    assert 'TELEMETRY' not in config and 'GNMI' not in config


def test_sonic_v2c_community():
    t = {**collectors(), 'snmp_version': 'v2c'}
    config = json.loads(render(SONIC, switches('routed', t)[0][1]))
    assert config['SNMP_COMMUNITY'] == {SECRETS['snmp_community']: {'TYPE': 'RO'}}
    assert 'SNMP_USER' not in config


@pytest.mark.parametrize('guide', GUIDES)
def test_frr_logs_to_syslog(guide):
    for name, ctx in switches(guide, collectors()):
        text = render(FRR, ctx)
        assert 'log syslog informational' in text.splitlines(), name
    if frr_available():
        name, ctx = switches(guide, collectors())[0]
        result = check_frr_config(render(FRR, ctx))
        assert result.ok, f'{name}: {result.output}'


def test_frr_parser_rejects_a_broken_log_line():
    """Negative control of the FRR judge on the line this module adds."""
    if not frr_available():
        pytest.skip("FRR's vtysh and daemons are not installed")
    ctx = switches('routed', collectors())[0][1]
    text = render(FRR, ctx).replace('log syslog informational', 'log syslog chatty')
    assert not check_frr_config(text).ok


# Read-back: what each rendered config admits, compared with the collectors (an independent judge of the renders)


def admitted(ctx) -> dict:
    """``{NOS: (SNMP sources, gNMI sources)}`` read back from the rendered configs."""
    eos = render(EOS, ctx)
    tree = load_yaml(render(NVUE, ctx))[0]['set']
    sonic = json.loads(render(SONIC, ctx))
    return {
        'eos': (_eos_acl(eos, 'AIFABRIC-SNMP'), _eos_acl(eos, 'AIFABRIC-GNMI')),
        'nvue': (nvue_snmp_sources(tree), None),  # NVUE exports (dial-out): no gNMI listener is opened
        'sonic': (
            sonic_sources(sonic, 'AIFABRIC_MGMT') + sonic_sources(sonic, 'AIFABRIC_SNMP'),
            sonic_sources(sonic, 'AIFABRIC_GNMI'),
        ),
    }


def admission_errors(found: dict, t: dict) -> list[str]:
    snmp = [JUMP_HOSTS, *(f'{m}/32' for m in t['snmp_managers'])]
    gnmi = [f'{m}/32' for m in t['streaming']]
    errors = []
    for nos, (snmp_found, gnmi_found) in found.items():
        if snmp_found != snmp:
            errors.append(f'{nos}: SNMP admits {snmp_found}, expected {snmp}')
        if gnmi_found is not None and gnmi_found != gnmi:
            errors.append(f'{nos}: gNMI admits {gnmi_found}, expected {gnmi}')
    return errors


@pytest.mark.parametrize('guide', [g for g in GUIDES if g != 'evpn-mh'])
def test_every_nos_admits_the_collectors_only(guide):
    t = collectors()
    for name, ctx in switches(guide, t):
        assert admission_errors(admitted(ctx), t) == [], name


def test_read_back_catches_a_missing_manager():
    """Negative control: a render whose SNMP ACL lost the manager (EOS line removed, SONiC rule removed)."""
    t = collectors()
    ctx = switches('mlag', t)[0][1]
    found = admitted(ctx)
    manager = f'{t["snmp_managers"][0]}/32'
    found['eos'] = ([s for s in found['eos'][0] if s != manager], found['eos'][1])
    found['sonic'] = (found['sonic'][0], [])
    assert admission_errors(found, t) == [
        f'eos: SNMP admits {[JUMP_HOSTS]}, expected {[JUMP_HOSTS, manager]}',
        f'sonic: gNMI admits [], expected {[f"{t['streaming'][0]}/32"]}',
    ]


# Traps: read back from each render, compared with the managers (and SONiC's one receiver per version)


def two_managers(version: str) -> dict:
    """The guide's collectors with a second SNMP manager (the next host of the TELEMETRY subnet), in ``version``."""
    t = collectors()
    second = str(netaddr.IPAddress(t['snmp_managers'][0]) + 1)
    return {**t, 'snmp_managers': [t['snmp_managers'][0], second], 'snmp_version': version}


def read_receivers(eos: str, nvue: dict, sonic: dict | None, vrf: str) -> dict:
    """``{NOS: the addresses it sends traps to}`` read from the renders: EOS's ``snmp-server host`` lines, NVUE's
    trap destinations in the management VRF ``vrf``, SONiC's SNMP_TRAP_CONFIG receivers (None: not rendered)."""
    snmp = nvue['system'].get('snmp-server', {})
    found = {
        'eos': [line.split()[2] for line in eos.splitlines() if line.startswith('snmp-server host ')],
        'nvue': [ip for ip, dest in snmp.get('trap-destination', {}).items() if list(dest['vrf']) == [vrf]],
    }
    if sonic is not None:
        found['sonic'] = [entry['DestIp'] for entry in sonic.get('SNMP_TRAP_CONFIG', {}).values()]
    return found


def renders(ctx) -> tuple:
    """The EOS text, the NVUE tree and the SONiC config_db of a switch (None on an EVPN multihoming leaf: SONiC
    refuses it)."""
    sonic = None if ctx['evpn_mh'] else json.loads(render(SONIC, ctx))
    return render(EOS, ctx), load_yaml(render(NVUE, ctx))[0]['set'], sonic


def trap_receivers(ctx) -> dict:
    return read_receivers(*renders(ctx), ctx['telemetry']['vrf'])


def expected_receivers(t: dict) -> dict:
    """Every manager on EOS and NVUE; on SONiC the first manager with v2c (one v2TrapDest) and none with v3 (its
    v3TrapDest is a community trapsink, no SNMPv3 user: docs/contexts.md)."""
    managers = t['snmp_managers']
    return {'eos': managers, 'nvue': managers, 'sonic': managers[:1] if t['snmp_version'] == 'v2c' else []}


@pytest.mark.parametrize('version', ['v3', 'v2c'])
@pytest.mark.parametrize('guide', GUIDES)
def test_every_nos_sends_traps_to_the_managers(guide, version):
    t = two_managers(version)
    expected = expected_receivers(t)
    for name, ctx in switches(guide, t):
        found = trap_receivers(ctx)
        assert found == {nos: expected[nos] for nos in found}, name


def test_nvue_trap_destinations_carry_the_poll_credentials():
    """v3: the user with its SHA/AES placeholders under the management VRF; v2c: the community, version 2c."""
    for version in ('v3', 'v2c'):
        t = two_managers(version)
        snmp = load_yaml(render(NVUE, switches('routed', t)[0][1]))[0]['set']['system']['snmp-server']
        if version == 'v3':
            auth = {SECRETS['snmp_v3_auth']: {'encrypt-aes': {SECRETS['snmp_v3_priv']: {}}}}
            credentials = {'username': {t['snmp_user']: {'auth-sha': auth}}}
        else:
            credentials = {'community-password': {SECRETS['snmp_community']: {'version': '2c'}}}
        assert snmp['trap-destination'] == dict.fromkeys(t['snmp_managers'], {'vrf': {'mgmt': credentials}}), version


def test_sonic_trap_receiver_with_v2c_only():
    t = two_managers('v2c')
    ctx = switches('routed', t)[0][1]
    config = json.loads(render(SONIC, ctx))
    assert config['SNMP_TRAP_CONFIG'] == {
        'v2TrapDest': {
            'Community': SECRETS['snmp_community'],
            'DestIp': t['snmp_managers'][0],
            'DestPort': str(ctx['telemetry']['snmp']['trap_port']),
            'vrf': 'mgmt',
        }
    }
    assert 'SNMP_TRAP_CONFIG' not in json.loads(render(SONIC, switches('routed', two_managers('v3'))[0][1]))


def test_trap_read_back_catches_a_missing_receiver():
    """Negative controls of the read-back: a render whose EOS host line, NVUE destination or SONiC receiver lost a
    manager, and an NVUE destination in the default VRF."""
    t = two_managers('v2c')
    ctx = switches('mlag', t)[0][1]
    expected = expected_receivers(t)
    first, second = t['snmp_managers']
    eos, nvue, sonic = renders(ctx)
    assert read_receivers(eos, nvue, sonic, 'mgmt') == expected
    eos = '\n'.join(line for line in eos.splitlines() if not line.startswith(f'snmp-server host {second} '))
    destinations = nvue['system']['snmp-server']['trap-destination']
    del destinations[second]
    destinations[first]['vrf'] = {'default': destinations[first]['vrf']['mgmt']}
    del sonic['SNMP_TRAP_CONFIG']
    assert read_receivers(eos, nvue, sonic, 'mgmt') == {'eos': [first], 'nvue': [], 'sonic': []}


# Compliance rules


def facts_of(guide: str, telemetry: dict | None) -> Facts:
    intent = guide_intent(design_of(guide))
    if telemetry is not None:
        intent['telemetry'] = telemetry
    return Facts('AI Lab', contexts(guide, telemetry), intent=intent)


def test_a_fabric_without_collectors_is_not_observable():
    findings = list(check_observable(facts_of('mlag', None)))
    assert [f.found for f in findings] == [NOTHING_OBSERVABLE]
    assert list(check_observable(facts_of('mlag', collectors()))) == []
    partial = {**collectors(), 'ntp': [], 'sflow': []}
    assert [f.found for f in check_observable(facts_of('mlag', partial))] == ['no collector for ntp, sflow']
    result = run_rules(RULES, facts_of('routed', None))
    assert {r.rule.id: r.status for r in result.results} == {
        'telemetry-observable': 'fail',
        'security-telemetry-admission': 'pass',
    }


def test_admission_passes_on_the_facts():
    for guide in GUIDES:
        assert list(check_admission(facts_of(guide, collectors()))) == [], guide


def test_admission_catches_a_missing_or_an_extra_source():
    """Negative controls: a manager dropped from one switch's SNMP sources, a stranger added to its gNMI sources,
    telemetry in another VRF, a context that lags the fabric's collectors."""
    t = collectors()
    facts = facts_of('mlag', t)
    name = sorted(n for n, c in facts.contexts.items() if c['node_id'] is not None)[0]
    tel = facts.contexts[name]['telemetry']
    manager = f'{t["snmp_managers"][0]}/32'
    tel['snmp']['allowed_sources'].remove(manager)
    tel['streaming']['allowed_sources'].append('0.0.0.0/0')
    found = [(f.objects[0].name, f.found) for f in check_admission(facts)]
    assert found == [(name, f'missing {manager}'), (name, 'also admits 0.0.0.0/0')]
    lagging = facts_of('mlag', t)
    lagging.intent['telemetry'] = {**t, 'syslog': [str(telemetry_prefix()[99])]}
    assert len(list(check_admission(lagging))) == len([c for c in lagging.contexts.values() if c['node_id']])
    other_vrf = facts_of('routed', t)
    first = next(c for c in other_vrf.contexts.values() if c['node_id'])
    first['telemetry']['vrf'] = 'default'
    assert [f.found for f in check_admission(other_vrf)] == ['telemetry in VRF default']


def test_hand_edited_context_in_the_matrix_unchanged():
    """The telemetry sources never enter the management plane's own allowed sources (the guide's jump-host rule)."""
    for name, ctx in switches('mlag', collectors()):
        assert ctx['management']['allowed_sources'] == [JUMP_HOSTS], name


def test_addresses_are_canonical_and_unique():
    t = {**collectors(), 'syslog': ['10.50.0.10', '10.50.0.10', '10.50.0.10/32']}
    ctx = switches('routed', t)[0][1]
    assert ctx['telemetry']['syslog']['servers'] == ['10.50.0.10']
    assert re.fullmatch(r'\d+\.\d+\.\d+\.\d+', ctx['telemetry']['source'])
    assert copy.deepcopy(ctx) == ctx


# Independent structure checks: NVIDIA's documented paths, SONiC's YANG types (encoded from the vendors' sources)

NVUE_REF = 'nvue-reference/Set-and-Unset-Commands/'
TELEMETRY_NVUE_PATHS = {
    'system sflow': NVUE_REF + 'System.md (nv set system sflow …, introduced in Cumulus Linux 5.11.0)',
    'system telemetry': NVUE_REF + 'Telemetry.md (system telemetry export otlp grpc destination …)',
    'service syslog': 'Cumulus Linux NVUE API examples: nv set service syslog mgmt server <ip> port <port>',
    'service ntp': 'Cumulus Linux NVUE examples: nv set service ntp mgmt server <ip> iburst on',
}


def test_nvue_telemetry_paths_are_documented():
    from tests.unit.templates.test_nvue_paths import NVUE_PATHS, paths

    for guide in GUIDES:
        for name, ctx in switches(guide, collectors()):
            found = paths(load_yaml(render(NVUE, ctx))[0]['set'])
            assert found - set(NVUE_PATHS) == set(TELEMETRY_NVUE_PATHS), (guide, name)


def telemetry_yang():
    """The telemetry tables' keys, fields and types as SONiC's YANG models define them (sonic-buildimage
    src/sonic-yang-models/yang-models: sonic-syslog, sonic-ntp, sonic-snmp, sonic-sflow, sonic-telemetry, sonic-gnmi,
    sonic-flex_counter), encoded by hand; only what the template renders."""
    from tests.unit.templates.sonic_yang import ADMIN_STATUS, BOOLEAN, Table, enum, ip_address, pattern, uint

    port = uint(1, 65535)  # inet:port-number (0 excluded: never rendered)
    secret = pattern(r'[^ @:]{8,64}')  # SNMP_USER_*_PASSWORD: [^ @:]*, 8 characters at least with AuthNoPriv/Priv
    # the certs container: ca_crt and server_crt '(/[a-zA-Z0-9_-]+)*/([a-zA-Z0-9_-]+).cer', server_key '… .key'
    cer, key = pattern(r'(/[a-zA-Z0-9_-]+)*/[a-zA-Z0-9_-]+\.cer'), pattern(r'(/[a-zA-Z0-9_-]+)*/[a-zA-Z0-9_-]+\.key')
    certs = {'ca_crt': cer, 'server_crt': cer, 'server_key': key}
    gnmi = Table('sonic-telemetry/sonic-gnmi', 'gnmi|certs', {'client_auth': BOOLEAN, 'port': port, **certs})
    flex = {'FLEX_COUNTER_STATUS': enum('enable', 'disable'), 'POLL_INTERVAL': uint(100, 4294967295)}
    return {
        'SYSLOG_SERVER': Table(
            'sonic-syslog',
            r'[0-9.]+',
            {'port': port, 'protocol': enum('tcp', 'udp'), 'source': ip_address, 'vrf': enum('default', 'mgmt')},
        ),
        'NTP': Table('sonic-ntp', 'global', {'vrf': enum('mgmt', 'default')}),
        'NTP_SERVER': Table(
            'sonic-ntp', r'[0-9.]+', {'association_type': enum('server', 'pool'), 'iburst': enum('on', 'off')}
        ),
        'SNMP_USER': Table(
            'sonic-snmp',
            r"[^ :@,\\']{4,32}",
            {
                'SNMP_USER_TYPE': enum('noAuthNoPriv', 'AuthNoPriv', 'Priv'),
                'SNMP_USER_PERMISSION': enum('RO', 'RW'),
                'SNMP_USER_AUTH_TYPE': enum('SHA', 'MD5', 'HMAC-SHA-2'),
                'SNMP_USER_AUTH_PASSWORD': secret,
                'SNMP_USER_ENCRYPTION_TYPE': enum('DES', 'AES'),
                'SNMP_USER_ENCRYPTION_PASSWORD': secret,
            },
            mandatory=('SNMP_USER_TYPE', 'SNMP_USER_PERMISSION', 'SNMP_USER_ENCRYPTION_PASSWORD'),
        ),
        'SNMP_COMMUNITY': Table('sonic-snmp', r"[^ @,\\']{4,32}", {'TYPE': enum('RO', 'RW')}),
        # no YANG model: the types snmpd.conf.j2 needs (an address, a port, the VRF or 'None', the v2c community)
        'SNMP_TRAP_CONFIG': Table(
            'snmpd.conf.j2',
            'v1TrapDest|v2TrapDest|v3TrapDest',
            {
                'Community': pattern(r"[^ @,\\']{4,32}"),
                'DestIp': ip_address,
                'DestPort': port,
                'vrf': enum('mgmt', 'None'),
            },
        ),
        'SFLOW': Table(
            'sonic-sflow',
            'global',
            {'admin_state': ADMIN_STATUS, 'polling_interval': lambda v: v == '0' or uint(5, 300)(v)},
        ),
        'SFLOW_COLLECTOR': Table(
            'sonic-sflow',
            '.{1,64}',
            {'collector_ip': ip_address, 'collector_port': port, 'collector_vrf': enum('mgmt', 'default')},
            mandatory=('collector_ip',),
        ),
        'SFLOW_SESSION': Table(
            'sonic-sflow', r'Ethernet\d+|all', {'admin_state': ADMIN_STATUS, 'sample_rate': uint(256, 8388608)}
        ),
        'TELEMETRY': gnmi,
        'GNMI': gnmi,
        'FLEX_COUNTER_TABLE': Table('sonic-flex_counter', '|'.join(COUNTER_POLL_MS), flex),
    }


def ours(violations: list[str]) -> list[str]:
    """The violations in the telemetry tables (the guide's generic device types leave PORT without lanes)."""
    return [v for v in violations if v.split('|')[0].split(':')[0] in telemetry_yang()]


@pytest.mark.parametrize('version', ['v3', 'v2c'])
def test_sonic_telemetry_tables_match_the_yang(monkeypatch, version):
    from tests.unit.templates import sonic_yang

    for table, spec in telemetry_yang().items():
        monkeypatch.setitem(sonic_yang.TABLES, table, spec)
    for guide in [g for g in GUIDES if g != 'evpn-mh']:
        for name, ctx in switches(guide, {**collectors(), 'snmp_version': version}):
            config = json.loads(render(SONIC, ctx))
            assert ours(sonic_yang.violations(config)) == [], (guide, name)
            assert len(config['SFLOW_COLLECTOR']) <= 2 and len(config['NTP_SERVER']) <= 10  # the YANG max-elements


def test_sonic_yang_negative_control(monkeypatch):
    from tests.unit.templates import sonic_yang

    for table, spec in telemetry_yang().items():
        monkeypatch.setitem(sonic_yang.TABLES, table, spec)
    config = json.loads(render(SONIC, switches('routed', collectors())[0][1]))
    config['SFLOW_SESSION']['Ethernet0'] = {'admin_state': 'up', 'sample_rate': '100'}  # below 256
    config['NTP']['global']['vrf'] = 'Vrf-MGMT'  # NTP takes mgmt or default only
    assert ours(sonic_yang.violations(config)) == [
        "NTP|global: vrf = 'Vrf-MGMT' has the wrong type (sonic-ntp)",
        "SFLOW_SESSION|Ethernet0: sample_rate = '100' has the wrong type (sonic-sflow)",
    ]


def test_sonic_trap_types_negative_control(monkeypatch):
    """The v2c trap receiver passes its types; a VRF snmpd.conf.j2 cannot bind and a port of 0 are caught."""
    from tests.unit.templates import sonic_yang

    for table, spec in telemetry_yang().items():
        monkeypatch.setitem(sonic_yang.TABLES, table, spec)
    config = json.loads(render(SONIC, switches('routed', {**collectors(), 'snmp_version': 'v2c'})[0][1]))
    assert ours(sonic_yang.violations(config)) == []
    config['SNMP_TRAP_CONFIG']['v2TrapDest'].update(vrf='Vrf-MGMT', DestPort='0')
    assert ours(sonic_yang.violations(config)) == [
        "SNMP_TRAP_CONFIG|v2TrapDest: DestPort = '0' has the wrong type (snmpd.conf.j2)",
        "SNMP_TRAP_CONFIG|v2TrapDest: vrf = 'Vrf-MGMT' has the wrong type (snmpd.conf.j2)",
    ]


def test_nvue_v2c_community_answers_the_managers_only():
    t = {**collectors(), 'snmp_version': 'v2c'}
    tree = load_yaml(render(NVUE, switches('routed', t)[0][1]))[0]['set']
    snmp = tree['system']['snmp-server']
    managers = [f'{m}/32' for m in t['snmp_managers']]
    assert snmp['readonly-community'] == {
        SECRETS['snmp_community']: {'access': dict.fromkeys([JUMP_HOSTS, *managers], {})}
    }
    assert 'username' not in snmp
