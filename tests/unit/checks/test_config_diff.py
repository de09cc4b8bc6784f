"""``checks.config_diff``: a switch's rendered config against its running config, per NOS, on the real rendered configs
of the guide's cluster (tests/render_fixtures.py). Each running config is the rendered one edited here, and what each
test expects is derived from its edit: the same text is compliant; one changed, one missing and one extra line are
exactly those three findings with their remediation; a running config with only the NOS's own additions is compliant
and lists them as ignored; a section the plugin never renders is ignored, an extra inside one it renders is a finding;
text that is no config of the NOS raises ``ConfigParseError`` and nothing else (hypothesis).

FRR is judged by FRR itself too: the rendered frr.conf is loaded into Debian's FRR (zebra, staticd, bgpd, ospfd, bfdd
in a network namespace, as the fabric lab runs them) and ``show running-config`` must be compliant; an edited config
loaded into FRR gives exactly its findings, and FRR running the remediation becomes compliant. Those tests need root,
network namespaces and FRR: skipped with the reason otherwise (and with ``AIFABRIC_SKIP_FRR=1``).
"""

import copy
import json
import os
import re
import shlex
import shutil
import subprocess
import tempfile
import time
from contextlib import contextmanager
from functools import cache
from pathlib import Path

import pytest
import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from netbox_aifabric.checks.config_diff import (
    NORMALISATION,
    ConfigComparison,
    ConfigParseError,
    LineFinding,
    compare_config,
)
from netbox_aifabric.facts.nos import NOS_REGISTRY, nos_by_key
from netbox_aifabric.lab.netns import CRASHLOG_DIR, PREFIX, daemon_path, delete_namespace, run, unavailable_reason
from netbox_aifabric.lab.netns import vtysh_path as lab_vtysh
from tests.hypothesis_profiles import examples
from tests.render_fixtures import GUIDES, contexts_of, guide_contexts, guide_spec, observed_contexts, ospf_spec
from tests.unit.templates.helpers import load_yaml, render

pytestmark = pytest.mark.pure

NOSES = tuple(nos.key for nos in NOS_REGISTRY)
GUIDE, DEVICE = 'evpn-vxlan', 'leaf1'  # the richest switch every NOS renders (SONiC refuses EVPN multihoming leaves)
# The guide's cluster per guide example, its routed design with an OSPF underlay and the EVPN design with the guide's
# collectors (NTP, syslog, SNMP, sFlow, streaming: sections the templates render only then)
VARIANTS = ('routed-ospf', 'evpn-vxlan-collectors')


@cache
def contexts(guide: str) -> dict:
    if guide == 'routed-ospf':
        return contexts_of(ospf_spec(guide_spec('routed')), 'routed')
    if guide == 'evpn-vxlan-collectors':
        return observed_contexts('evpn-vxlan')
    return guide_contexts(guide)


CASES = [
    (nos, guide, device)
    for nos in NOSES
    for guide in (*GUIDES, *VARIANTS)
    for device in ('spine1', 'leaf1')
    if device in contexts(guide) and not (nos == 'sonic' and contexts(guide)[device]['evpn_mh'])
]


@pytest.fixture(autouse=True, scope='module')
def netbox_config_cache():
    """render_jinja2 reads NetBox's configuration from its cache: warm it without the database (as in
    tests/unit/templates/conftest.py)."""
    from django.core.cache import cache as django_cache

    django_cache.add('config', {}, None)
    django_cache.add('config_version', None, None)


@cache
def rendered(nos: str, guide: str = GUIDE, device: str = DEVICE) -> str:
    return render(nos_by_key(nos).template, contexts(guide)[device])


def essentials(comparison: ConfigComparison) -> set[tuple]:
    """The findings without their remediation (compared on its own: hier_config's indentation is its own)."""
    return {(f.kind, f.section, f.intended, f.running) for f in comparison.findings}


def stripped(lines) -> tuple[str, ...]:
    return tuple(line.strip() for line in lines)


# -- line-based configs (EOS, FRR): edits by line ----------------------------------------------------------------------


def indent_of(line: str) -> int:
    return len(line) - len(line.lstrip())


def parents(lines: list[str], index: int) -> tuple[str, ...]:
    """The section lines above ``lines[index]`` (by indentation; comments and FRR's exit markers skipped)."""
    found, indent = [], indent_of(lines[index])
    for line in reversed(lines[:index]):
        text = line.strip()
        if not text or text.startswith('!') or text.startswith('exit'):
            continue
        if indent_of(line) < indent:
            found.append(text)
            indent = indent_of(line)
        if indent == 0:
            break
    return tuple(reversed(found))


def find(lines: list[str], pattern: str, under: str) -> int:
    """The index of the first line matching ``pattern`` whose top-level section starts with ``under``."""
    for index, line in enumerate(lines):
        if re.fullmatch(pattern, line) and parents(lines, index)[:1] and parents(lines, index)[0].startswith(under):
            return index
    raise AssertionError(f'no line {pattern!r} under {under!r}')


@pytest.mark.parametrize(('nos', 'guide', 'device'), CASES)
def test_identical_configs_are_compliant(nos, guide, device):
    text = rendered(nos, guide, device)
    comparison = compare_config(nos, text, text)
    assert comparison.compliant and comparison.findings == ()
    assert (comparison.nos, comparison.remediation, comparison.ignored) == (nos, '', ())


def test_eos_changed_missing_extra():
    intended = rendered('eos')
    lines = intended.splitlines()
    mtu = find(lines, r'   mtu \d+', 'interface Ethernet')
    mtu_section, mtu_line = parents(lines, mtu), lines[mtu].strip()
    description = find(lines, r'   neighbor \S+ description .+', 'router bgp')
    bgp, description_line = parents(lines, description), lines[description].strip()
    ssh = lines.index('management ssh')
    assert '   vrf default' not in lines[ssh : ssh + 10] and ssh < description
    edited = list(lines)
    edited[mtu] = '   mtu 1500'
    edited[ssh + 1 : ssh + 1] = ['   vrf default', '      no shutdown']  # SSH opened in one more VRF
    del edited[description + 2]
    comparison = compare_config('eos', intended, '\n'.join(edited))
    assert essentials(comparison) == {
        ('changed', mtu_section, mtu_line, 'mtu 1500'),
        ('missing', bgp, description_line, None),
        ('extra', ('management ssh',), None, 'vrf default'),
    }
    fixes = {f.kind: stripped(f.remediation) for f in comparison.findings}
    assert fixes == {
        'changed': (*mtu_section, mtu_line),  # EOS's mtu replaces the old value: no `no mtu 1500`
        'missing': (*bgp, description_line),
        'extra': ('management ssh', 'no vrf default'),
    }
    assert set(stripped(comparison.remediation.splitlines())) == {line for fix in fixes.values() for line in fix}


def test_frr_changed_missing_extra():
    intended = rendered('frr')
    lines = intended.splitlines()
    remote_as = find(lines, r' neighbor \S+ remote-as \d+', 'router bgp')
    bgp, (_, peer, _, asn) = parents(lines, remote_as), lines[remote_as].split()
    network = find(lines, r'  network \S+', 'router bgp')
    family, network_line = parents(lines, network), lines[network].strip()
    assert '10.99.99.99' not in intended
    edited = list(lines)
    edited[remote_as] = f' neighbor {peer} remote-as 65999'
    del edited[network]
    edited.insert(lines.index(bgp[0]) + 1, ' neighbor 10.99.99.99 remote-as 65009')
    comparison = compare_config('frr', intended, '\n'.join(edited))
    assert essentials(comparison) == {
        ('changed', bgp, f'neighbor {peer} remote-as {asn}', f'neighbor {peer} remote-as 65999'),
        ('missing', family, network_line, None),
        ('extra', bgp, None, 'neighbor 10.99.99.99 remote-as 65009'),
    }
    fixes = {f.kind: stripped(f.remediation) for f in comparison.findings}
    assert fixes == {
        'changed': (*bgp, f'neighbor {peer} remote-as {asn}', f'no neighbor {peer} remote-as 65999'),
        'missing': (*family, network_line),
        'extra': (*bgp, 'no neighbor 10.99.99.99 remote-as 65009'),
    }


# -- structured configs (NVUE, SONiC): edits of the parsed document ----------------------------------------------------


def nvue_set(text: str) -> dict:
    documents = load_yaml(text)
    assert [list(document) for document in documents] == [['set']]
    return documents[0]['set']


def nvue_text(tree: dict, header: bool = False) -> str:
    """A startup.yaml of ``tree``, keys sorted (PyYAML's dump: another order and quoting than the template's)."""
    documents = [{'set': tree}]
    if header:
        documents.insert(0, {'header': {'model': 'SN2410', 'nvue-api-version': 'nvue_v1', 'rev-id': 1.0}})
    return yaml.safe_dump(documents, sort_keys=True)


def test_nvue_changed_missing_extra():
    intended = rendered('nvue')
    tree = nvue_set(intended)
    port, config = next((name, i) for name, i in tree['interface'].items() if 'mtu' in i.get('link', {}))
    mtu, description = config['link']['mtu'], config['description']
    acl = next(name for name in tree['acl'] if 'MGMT' in name)
    assert '9999' not in tree['acl'][acl]['rule']
    edited = copy.deepcopy(tree)
    edited['interface'][port]['link']['mtu'] = 1500
    del edited['interface'][port]['description']
    edited['acl'][acl]['rule']['9999'] = {'action': {'permit': {}}}  # management opened to anyone
    comparison = compare_config('nvue', intended, nvue_text(edited))
    assert set(comparison.findings) == {
        LineFinding(
            'changed',
            ('interface', port, 'link'),
            f'mtu: {mtu}',
            'mtu: 1500',
            (f'nv set interface {port} link mtu {mtu}',),
        ),
        LineFinding(
            'missing',
            ('interface', port),
            f'description: {description}',
            None,
            (f'nv set interface {port} description {shlex.quote(description)}',),
        ),
        LineFinding(
            'extra', ('acl', acl, 'rule'), None, '9999: {action: {permit: {}}}', (f'nv unset acl {acl} rule 9999',)
        ),
    }
    # unsets first, then the sets in the findings' order (the intended config's), then the apply
    sets = [line for f in comparison.findings for line in f.remediation if line.startswith('nv set ')]
    assert comparison.remediation.splitlines() == [f'nv unset acl {acl} rule 9999', *sets, 'nv config apply']


def sonic_entry(key: str, fields: dict) -> str:
    return f'{key}: {{{", ".join(f"{name}: {value}" for name, value in fields.items())}}}'


def test_sonic_changed_missing_extra():
    intended = rendered('sonic')
    tables = json.loads(intended)
    port = next(iter(tables['PORT']))
    mtu = tables['PORT'][port]['mtu']
    member, member_fields = next(iter(tables['VLAN_MEMBER'].items()))
    acl = next(name for name, table in tables['ACL_TABLE'].items() if table['type'] == 'CTRLPLANE')
    rule = {'PRIORITY': '9998', 'PACKET_ACTION': 'ACCEPT', 'SRC_IP': '0.0.0.0/0'}  # management opened to anyone
    edited = copy.deepcopy(tables)
    edited['PORT'][port]['mtu'] = '1500'
    del edited['VLAN_MEMBER'][member]
    edited['ACL_RULE'][f'{acl}|ANYONE'] = rule
    comparison = compare_config('sonic', intended, json.dumps(edited, indent=4))
    hset = ' '.join(f'{name} {shlex.quote(value)}' for name, value in member_fields.items())
    assert set(comparison.findings) == {
        LineFinding(
            'changed',
            ('PORT', port),
            f'mtu: {mtu}',
            'mtu: 1500',
            (f"sonic-db-cli CONFIG_DB HSET 'PORT|{port}' mtu {mtu}",),
        ),
        LineFinding(
            'missing',
            ('VLAN_MEMBER',),
            sonic_entry(member, member_fields),
            None,
            (f"sonic-db-cli CONFIG_DB HSET 'VLAN_MEMBER|{member}' {hset}",),
        ),
        LineFinding(
            'extra',
            ('ACL_RULE',),
            None,
            sonic_entry(f'{acl}|ANYONE', rule),
            (f"sonic-db-cli CONFIG_DB DEL 'ACL_RULE|{acl}|ANYONE'",),
        ),
    }
    assert comparison.remediation.splitlines()[0] == f"sonic-db-cli CONFIG_DB DEL 'ACL_RULE|{acl}|ANYONE'"
    assert comparison.remediation.splitlines()[-1] == 'config save -y'


def test_sonic_unused_port_is_a_platform_default_its_configuration_a_finding():
    intended = rendered('sonic')
    tables = json.loads(intended)
    unused = next(f'Ethernet{n}' for n in range(200) if f'Ethernet{n}' not in tables['PORT'])
    running = copy.deepcopy(tables)
    running['PORT'][unused] = {'lanes': '99', 'alias': 'etp99', 'index': '99', 'description': 'someone cabled it'}
    comparison = compare_config('sonic', intended, json.dumps(running))
    assert comparison.ignored == (f'PORT|{unused} (SONiC default: a platform port the plan does not use)',)
    assert set(comparison.findings) == {
        LineFinding(
            'extra',
            ('PORT', unused),
            None,
            'description: someone cabled it',
            (f"sonic-db-cli CONFIG_DB HDEL 'PORT|{unused}' description",),  # the port itself stays
        )
    }


def test_sonic_extra_field_and_list_order():
    intended = rendered('sonic')
    tables = json.loads(intended)
    neighbor = next(iter(tables['BGP_NEIGHBOR']))
    edited = copy.deepcopy(tables)
    edited['BGP_NEIGHBOR'][neighbor]['holdtime'] = '180'
    for table in edited['ACL_TABLE'].values():  # ACL_TABLE services and ports are sets: order does not count
        for field in ('services', 'ports'):
            if field in table:
                table[field] = list(reversed(table[field]))
    comparison = compare_config('sonic', intended, json.dumps(edited))
    assert set(comparison.findings) == {
        LineFinding(
            'extra',
            ('BGP_NEIGHBOR', neighbor),
            None,
            'holdtime: 180',
            (f"sonic-db-cli CONFIG_DB HDEL 'BGP_NEIGHBOR|{neighbor}' holdtime",),
        )
    }


# -- what is set aside: the NOS's own additions, sections the plugin does not render -----------------------------------

EOS_FACTORY = [
    '! Command: show running-config',
    '! device: leaf1 (DCS-7050SX3-48YC8, EOS-4.30.1F)',
    '!',
    '! boot system flash:/EOS-4.30.1F.swi',
    'transceiver qsfp default-mode 4x10G',
    'agent PowerManager shutdown',
    'spanning-tree mode mstp',
    'no aaa root',
    'username admin privilege 15 role network-admin secret sha512 $6$salt$hash',
    'interface Ethernet6',
]


def test_eos_defaults_only_is_compliant():
    intended = rendered('eos')
    assert 'interface Ethernet6' not in intended.splitlines()
    hidden = ('   switchport mode access', '   vxlan udp-port 4789')  # EOS does not show its defaults
    assert all(line in intended.splitlines() for line in hidden)
    running = [line for line in intended.splitlines() if line not in hidden and line != 'end']
    comparison = compare_config('eos', intended, '\n'.join([*EOS_FACTORY, *running, 'end']))
    assert comparison.compliant, comparison.findings
    assert comparison.ignored == tuple(
        sorted(
            {
                'agent',
                'aaa',
                'transceiver',
                'username',
                'spanning-tree mode mstp (EOS default)',
                'interface Ethernet6 (EOS default: no configuration)',
            }
        )
    )


FRR_ADDED = {
    'Building configuration...': None,
    'Current configuration:': None,
    'frr version 8.4.4': None,
    'service integrated-vtysh-config': 'service integrated-vtysh-config',
    'no ipv6 forwarding': 'ipv6 forwarding',
    'log syslog informational': 'log',
    'line vty': 'line',
    'interface eth0': 'interface eth0 (FRR default: no configuration)',
}


def test_frr_defaults_only_is_compliant():
    intended = rendered('frr')
    running = '\n'.join([*FRR_ADDED, 'exit', '!', intended])
    comparison = compare_config('frr', intended, running)
    assert comparison.compliant, comparison.findings
    assert comparison.ignored == tuple(sorted(label for label in FRR_ADDED.values() if label))


def bridge_domain(interface: dict) -> dict:
    return interface.get('bridge', {}).get('domain', {}).get('br_default', {})


def test_nvue_defaults_only_is_compliant():
    intended = rendered('nvue')
    tree = nvue_set(intended)
    running = copy.deepcopy(tree)
    system = running['system']
    system['aaa'] = {
        'user': {'cumulus': {'full-name': 'cumulus,,,', 'hashed-password': '$6$x', 'role': 'system-admin'}}
    }
    system['config'] = {'auto-save': {'enable': True}}
    system['reboot'] = {'mode': 'cold'}
    system['wjh'] = {'enable': True, 'channel': {'forwarding': {'trigger': {'l2': {}, 'l3': {}}}}}
    assert 'system-mac' not in system['global']
    system['global']['system-mac'] = '44:38:39:22:01:7a'
    assert 'service' not in tree
    running['service'] = {'ntp': {'mgmt': {'server': {'0.cumulusnetworks.pool.ntp.org': {}}}}}
    bond = next(
        n for n, i in tree['interface'].items() if 'vlan' in i.get('bridge', {}).get('domain', {}).get('br_default', {})
    )
    domain = running['interface'][bond]['bridge']['domain']['br_default']
    vlans = list(domain['vlan'])
    domain['vlan'] = {','.join(vlans): {}}  # NVUE saves a VLAN list as one range key
    comparison = compare_config('nvue', intended, nvue_text(running, header=True))
    assert comparison.compliant, comparison.findings
    assert comparison.ignored == tuple(
        sorted(
            {
                'system aaa',
                'system config',
                'system reboot',
                'system wjh',
                'service ntp',
                'system global system-mac (NVUE default)',
            }
        )
    )


def test_sonic_defaults_only_is_compliant():
    intended = rendered('sonic')
    tables = json.loads(intended)
    running = copy.deepcopy(tables)
    added = {'FEATURE', 'CRM', 'FLEX_COUNTER_TABLE', 'VERSIONS'}
    running['FEATURE'] = {'bgp': {'state': 'enabled', 'auto_restart': 'enabled'}}
    running['CRM'] = {'Config': {'polling_interval': '300'}}
    running['FLEX_COUNTER_TABLE'] = {'PORT': {'FLEX_COUNTER_STATUS': 'enable'}}
    running['VERSIONS'] = {'DATABASE': {'VERSION': 'version_4_0_1'}}
    metadata = running['DEVICE_METADATA']['localhost']
    assert 'platform' not in metadata and 'hwsku' not in metadata
    metadata.update(platform='x86_64-arista_7050sx3_48yc8', hwsku='Arista-7050SX3-48YC8')
    added.add('DEVICE_METADATA|localhost hwsku, platform (SONiC default)')
    for index, (port, fields) in enumerate(running['PORT'].items()):
        platform = {'lanes': str(index + 1), 'alias': f'Ethernet{index + 1}/1', 'index': str(index)}
        filled = sorted(set(platform) - set(fields))  # what the template does not render already
        fields.update({field: platform[field] for field in filled})
        if filled:
            added.add(f'PORT|{port} {", ".join(filled)} (SONiC default)')
    unused = next(f'Ethernet{n}' for n in range(200) if f'Ethernet{n}' not in tables['PORT'])
    running['PORT'][unused] = {'lanes': '999', 'alias': 'etp99', 'index': '99', 'speed': '25000', 'admin_status': 'up'}
    added.add(f'PORT|{unused} (SONiC default: a platform port the plan does not use)')
    comparison = compare_config('sonic', intended, json.dumps(running))
    assert comparison.compliant, comparison.findings
    assert comparison.ignored == tuple(sorted(added))


# A section of each NOS the plugin never renders (ignored, listed) and one it owns though this config renders none of
# it (a finding: routing, management access): (running text, its ignored label, the owned extra, its finding)
def with_lines(nos: str, *added: str) -> str:
    return '\n'.join([rendered(nos), *added])


def test_eos_unrendered_sections_ignored_owned_ones_compared():
    intended = rendered('eos')
    assert not re.search(r'^(username|router ospf|management telnet)', intended, re.M)
    running = with_lines('eos', 'username ops privilege 1 secret sha512 $6$x', 'router ospf 1', '   router-id 1.1.1.1')
    running += '\nmanagement telnet\n   no shutdown'
    comparison = compare_config('eos', intended, running)
    assert comparison.ignored == ('username',)
    assert essentials(comparison) == {('extra', (), None, 'router ospf 1'), ('extra', (), None, 'management telnet')}
    assert {stripped(f.remediation) for f in comparison.findings} == {('no router ospf 1',), ('no management telnet',)}


def test_frr_unrendered_sections_ignored_owned_ones_compared():
    intended = rendered('frr')
    assert not re.search(r'^(agentx|ip route)', intended, re.M)
    comparison = compare_config('frr', intended, with_lines('frr', 'agentx', 'ip route 0.0.0.0/0 192.0.2.99'))
    assert comparison.ignored == ('agentx',)
    assert essentials(comparison) == {('extra', (), None, 'ip route 0.0.0.0/0 192.0.2.99')}


def test_nvue_unrendered_paths_ignored_owned_ones_compared():
    intended = rendered('nvue')
    tree = nvue_set(intended)
    assert 'aaa' not in tree['system'] and 'listening-address' not in tree['system']['api']
    running = copy.deepcopy(tree)
    running['system']['aaa'] = {'user': {'ops': {'role': 'nvue-monitor'}}}
    running['system']['api']['listening-address'] = {'0.0.0.0': {}}  # the NVUE API opened on every address
    comparison = compare_config('nvue', intended, nvue_text(running))
    assert comparison.ignored == ('system aaa',)
    assert set(comparison.findings) == {
        LineFinding(
            'extra',
            ('system', 'api'),
            None,
            'listening-address: {0.0.0.0: {}}',
            ('nv unset system api listening-address',),
        )
    }


def test_sonic_unrendered_tables_ignored_owned_ones_compared():
    intended = rendered('sonic')
    tables = json.loads(intended)
    assert 'TACPLUS_SERVER' not in tables and 'STATIC_ROUTE' not in tables
    running = copy.deepcopy(tables)
    running['TACPLUS_SERVER'] = {'192.0.2.99': {'priority': '1', 'tcp_port': '49'}}
    running['STATIC_ROUTE'] = {'0.0.0.0/0': {'nexthop': '192.0.2.99'}}
    comparison = compare_config('sonic', intended, json.dumps(running))
    assert comparison.ignored == ('TACPLUS_SERVER',)
    assert essentials(comparison) == {('extra', ('STATIC_ROUTE',), None, '0.0.0.0/0: {nexthop: 192.0.2.99}')}
    assert comparison.findings[0].remediation == ("sonic-db-cli CONFIG_DB DEL 'STATIC_ROUTE|0.0.0.0/0'",)


# -- bad input ---------------------------------------------------------------------------------------------------------

BAD = [
    ('sonic', '{\n  "PORT": {\n    "Ethernet0": {,\n  }\n}', 'not JSON: line 3 column 19'),
    ('sonic', '[{"PORT": {}}]', 'not a config_db.json: top level is a list'),
    ('sonic', '{"PORT": ["Ethernet0"]}', 'table PORT is a list'),
    ('sonic', '{"PORT": {"Ethernet0": "up"}}', 'PORT|Ethernet0 is a string'),
    ('nvue', '- set:\n    system: {hostname: [leaf1\n', 'not YAML: line 3 column 1'),
    ('nvue', 'set:\n  system: {}\n', 'top level is a mapping'),
    ('nvue', '- unset:\n    system: {}\n', 'item 1 is "unset"'),
    ('sonic', '{"PORT": {"Ethernet0": {"mtu": ' + '9' * 5000 + '}}}', 'not a config_db.json: Exceeds the limit'),
    ('nvue', '- set: &a {x: [*a, *a]}\n', 'uses YAML aliases'),
    ('eos', 'hostname leaf1\x00\x01', 'NUL characters'),
    ('frr', '\x1b[31mhostname leaf1', "control character '\\x1b'"),
    ('eos', '! Command: show running-config\n!\nend\n', 'no configuration lines'),
    ('eos', 'banner login\nwelcome\n', 'no EOS config'),
    ('frr', 'interface lo\n description a\n description a\n', 'repeats a line'),
]


@pytest.mark.parametrize(('nos', 'running', 'message'), BAD)
def test_bad_running_config_is_a_parse_error(nos, running, message):
    with pytest.raises(ConfigParseError, match=re.escape(message)) as raised:
        compare_config(nos, rendered(nos), running)
    assert str(raised.value).startswith(f'{nos}: ')


def test_unknown_nos_is_a_parse_error():
    with pytest.raises(ConfigParseError, match="unknown NOS 'junos'"):
        compare_config('junos', 'a', 'a')


def test_normalisation_documented_per_nos():
    assert set(NORMALISATION) == set(NOSES)
    assert all(rules and all(isinstance(rule, str) and rule for rule in rules) for rules in NORMALISATION.values())


def _mutated(text: str, data) -> str:
    """``text`` with some of its lines deleted, repeated, re-indented or cut."""
    lines = text.splitlines()
    for _ in range(data.draw(st.integers(0, 6))):
        if not lines:
            break
        index = data.draw(st.integers(0, len(lines) - 1))
        action = data.draw(st.sampled_from(('delete', 'repeat', 'indent', 'dedent', 'cut')))
        if action == 'delete':
            del lines[index]
        elif action == 'repeat':
            lines.insert(index, lines[index])
        elif action == 'indent':
            lines[index] = ' ' * data.draw(st.integers(1, 7)) + lines[index]
        elif action == 'dedent':
            lines[index] = lines[index].lstrip()
        else:
            lines[index] = lines[index][: data.draw(st.integers(0, len(lines[index])))]
    return '\n'.join(lines)


TEXT = st.one_of(
    st.text(),
    st.binary().map(lambda raw: raw.decode('utf-8', errors='replace')),
    st.binary().map(lambda raw: raw.decode('latin-1')),
    st.recursive(
        st.none() | st.booleans() | st.integers() | st.text(max_size=8),
        lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4),
        max_leaves=12,
    ).flatmap(lambda value: st.sampled_from((json.dumps(value), yaml.safe_dump(value)))),
)


@settings(max_examples=examples(300), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(nos=st.sampled_from(NOSES), data=st.data())
def test_any_text_is_a_comparison_or_a_parse_error(nos, data):
    intended = rendered(nos)
    running = _mutated(intended, data) if data.draw(st.booleans()) else data.draw(TEXT)
    for left, right in ((intended, running), (running, intended), (running, running)):
        try:
            comparison = compare_config(nos, left, right)
        except ConfigParseError:
            continue
        assert isinstance(comparison, ConfigComparison)
        assert comparison.compliant == (not comparison.findings)
        assert all(f.kind in ('missing', 'extra', 'changed') for f in comparison.findings)


# -- FRR judges: the rendered frr.conf loaded into FRR -----------------------------------------------------------------


def frr_unavailable() -> str:
    if os.environ.get('AIFABRIC_SKIP_FRR') == '1':
        return 'AIFABRIC_SKIP_FRR=1'
    return unavailable_reason()


@contextmanager
def frr_running(config: str):
    """FRR's daemons in a network namespace of their own, ``config`` loaded as FRR's start-up does (``vtysh -b``), as
    the fabric lab runs them (netbox_aifabric/lab/runner.py); yields ``vtysh(*commands)``. The daemons and vtysh run
    in a UTS namespace named like the switch: FRR shows the system's host name as ``hostname``, as on the switch."""
    ns, folder = f'{PREFIX}{os.getpid()}-config-diff', Path(tempfile.mkdtemp(prefix=f'{PREFIX}{os.getpid()}-'))
    folder.chmod(0o755)
    shutil.chown(folder, 'frr', 'frr')
    for name, text in (('frr.conf', config), ('vtysh.conf', ''), ('empty.conf', '')):
        (folder / name).write_text(text)
    host = re.search(r'^hostname (\S+)$', config, re.M)[1]
    as_switch = ['unshare', '--uts', '--', 'sh', '-c', 'hostname "$1" && shift && exec "$@"', 'sh', host]
    as_switch += ['ip', 'netns', 'exec', ns]
    daemons = ['zebra', 'staticd', 'bgpd', 'ospfd', 'bfdd']
    profile = re.search(r'^frr defaults (\S+)$', config, re.M)
    run(['ip', 'netns', 'add', ns])
    started = []
    try:
        for daemon in daemons:
            cmd = [*as_switch, daemon_path(daemon), '--config_file', str(folder / 'empty.conf')]
            cmd += ['--pid_file', str(folder / f'{daemon}.pid'), '--vty_socket', str(folder), '--vty_port', '0']
            cmd += ['--socket', str(folder / 'zserv.api'), '--log', f'file:{folder / daemon}.log']
            cmd += ['--profile', profile[1]] if profile else []
            started.append(subprocess.Popen(cmd, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, cwd=folder))
            wait_for(folder / ('zserv.api' if daemon == 'zebra' else f'{daemon}.vty'))
        vtysh = [*as_switch, lab_vtysh(), '--config_dir', str(folder), '--vty_socket', str(folder)]
        boot = subprocess.run([*vtysh, '-b'], capture_output=True, text=True, timeout=30)
        assert boot.returncode == 0 and not boot.stdout.strip(), boot.stdout

        def command(*commands: str) -> str:
            args = [arg for c in commands for arg in ('-c', c)]
            return subprocess.run([*vtysh, *args], capture_output=True, text=True, timeout=30, check=True).stdout

        yield command
    finally:
        for process in started:
            process.terminate()
        for process, daemon in zip(started, daemons, strict=False):
            process.wait(timeout=10)
            shutil.rmtree(CRASHLOG_DIR / f'{daemon}.{process.pid}', ignore_errors=True)
        delete_namespace(ns)
        shutil.rmtree(folder, ignore_errors=True)


def wait_for(path: Path, seconds: float = 10) -> None:
    deadline = time.monotonic() + seconds
    while not path.exists():
        assert time.monotonic() < deadline, f'{path.name} did not appear'
        time.sleep(0.02)


FRR_CASES = [(guide, device) for nos, guide, device in CASES if nos == 'frr']


@pytest.mark.lab
@pytest.mark.skipif(bool(frr_unavailable()), reason=f'FRR: {frr_unavailable()}')
@pytest.mark.parametrize(('guide', 'device'), FRR_CASES)
def test_frr_running_its_rendered_config_is_compliant(guide, device):
    intended = rendered('frr', guide, device)
    with frr_running(intended) as vtysh:
        running = vtysh('show running-config')
    comparison = compare_config('frr', intended, running)
    assert comparison.compliant, (comparison.findings, running)
    # what FRR adds by itself (zebra writes the kernel's forwarding state): nothing the plugin renders
    assert set(comparison.ignored) <= {'ip forwarding', 'ipv6 forwarding', 'service integrated-vtysh-config'}


@pytest.mark.lab
@pytest.mark.skipif(bool(frr_unavailable()), reason=f'FRR: {frr_unavailable()}')
def test_frr_running_an_edited_config_then_its_remediation():
    """An edited frr.conf in FRR: exactly the edit's findings; FRR running the remediation is compliant."""
    intended = rendered('frr')
    lines = intended.splitlines()
    paths = find(lines, r'  maximum-paths \d+', 'router bgp')
    family, paths_line = parents(lines, paths), lines[paths].strip()
    network = find(lines, r'  network \S+', 'router bgp')
    network_family, network_line = parents(lines, network), lines[network].strip()
    prefix_list = next(line.split()[2] for line in lines if line.startswith('ip prefix-list '))
    advertised = f'ip prefix-list {prefix_list} seq 999 permit 10.99.99.0/24'  # one more prefix advertised
    assert ' seq 999 ' not in intended
    edited = list(lines)
    edited[paths] = '  maximum-paths 7'
    del edited[network]
    edited.insert(0, advertised)
    with frr_running('\n'.join(edited)) as vtysh:
        comparison = compare_config('frr', intended, vtysh('show running-config'))
        assert essentials(comparison) == {
            ('changed', family, paths_line, 'maximum-paths 7'),
            ('missing', network_family, network_line, None),
            ('extra', (), None, advertised),
        }
        vtysh('configure terminal', *comparison.remediation.splitlines())
        fixed = compare_config('frr', intended, vtysh('show running-config'))
    assert fixed.compliant, fixed.findings
