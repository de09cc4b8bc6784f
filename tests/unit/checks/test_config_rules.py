"""The running-config rules (``checks/config.py``) and the per-switch summary (``engine.config_summary``) on real
comparisons: the guide's EVPN/VXLAN leaf and spine rendered for EOS, compared with running configs edited from them.
Each rule has its negative control; a fabric never applied, or one reading no running config, skips them all."""

import pytest

from netbox_aifabric.checks.config import RULES as CONFIG_RULES
from netbox_aifabric.checks.config_diff import compare_config
from netbox_aifabric.checks.engine import DeviceConfig, Facts, config_summary, run_rules
from netbox_aifabric.facts.nos import nos_by_key
from tests.render_fixtures import guide_contexts
from tests.unit.templates.helpers import render

pytestmark = pytest.mark.pure

BACKUP = {'id': 1, 'time': None, 'source': 'upload', 'origin': 'upload by admin'}


@pytest.fixture(autouse=True, scope='module')
def netbox_config_cache():
    """render_jinja2 reads NetBox's configuration from its cache: warm it without the database."""
    from django.core.cache import cache as django_cache

    django_cache.add('config', {}, None)
    django_cache.add('config_version', None, None)


def rendered(device):
    return render(nos_by_key('eos').template, guide_contexts('evpn-vxlan')[device])


def compared(device, running):
    intended = rendered(device)
    return DeviceConfig('eos', intended, BACKUP, compare_config('eos', intended, running))


def with_mtu(config, mtu):
    """The config with its first interface MTU line set to ``mtu``: (config, the line it replaced)."""
    lines = config.splitlines()
    index = next(i for i, line in enumerate(lines) if line.startswith('   mtu '))
    old, lines[index] = lines[index].strip(), f'   mtu {mtu}'
    return '\n'.join(lines), old


def facts(configs, source='devices'):
    return Facts('ai-lab', {'leaf1': {}}, context_source=source, configs=configs)


def outcome(result):
    return {
        r.rule.id: (r.status, [(tuple(str(o) for o in f.objects), f.expected, f.found) for f in r.findings])
        for r in result.results
    }


def test_compliant_switches_pass_every_rule():
    configs = {name: compared(name, rendered(name)) for name in ('leaf1', 'spine1')}
    result = run_rules(CONFIG_RULES, facts(configs))
    assert {rule: status for rule, (status, _f) in outcome(result).items()} == dict.fromkeys(
        ('config-backup', 'config-missing', 'config-changed', 'config-extra'), 'pass'
    )
    assert config_summary(configs)['percent'] == 100


def test_negative_controls_each_rule_names_its_switch_and_line():
    running, old = with_mtu(rendered('spine1'), 1500)
    running = running.replace('\nmanagement ssh\n', '\nmanagement ssh\n   vrf default\n      no shutdown\n', 1)
    configs = {
        'leaf1': compared('leaf1', rendered('leaf1')),
        'spine1': compared('spine1', running),
        'spine2': DeviceConfig('eos', rendered('spine1').replace('spine1', 'spine2')),  # never backed up
        'leaf2': DeviceConfig('eos', rendered('leaf1'), BACKUP, error='the backup cannot be read: eos: ...'),
    }
    result = outcome(run_rules(CONFIG_RULES, facts(configs)))
    (changed,) = result['config-changed'][1]
    assert changed[0] == ('spine1',) and changed[1].endswith(f' › {old}') and changed[2].endswith(' › mtu 1500')
    (extra,) = result['config-extra'][1]
    assert extra == (('spine1',), '(absent)', 'management ssh › vrf default')
    assert result['config-missing'] == ('pass', [])
    assert result['config-backup'] == (
        'fail',
        [
            (('leaf2',), 'a running config compared', 'the backup cannot be read: eos: ...'),
            (('spine2',), 'a running config backed up', 'never backed up'),
        ],
    )
    finding = next(r for r in run_rules(CONFIG_RULES, facts(configs)).results if r.rule.id == 'config-extra')
    assert 'no vrf default' in finding.findings[0].remediation
    summary = config_summary(configs)
    assert summary['counts'] == {'compliant': 1, 'not compliant': 1, 'never backed up': 1, 'not compared': 1}
    assert (summary['switches'], summary['percent']) == (4, 25)


def test_a_missing_line_is_config_missing():
    intended = rendered('leaf1')
    running = '\n'.join(line for line in intended.splitlines() if not line.startswith('   mtu '))
    (status, found) = outcome(run_rules(CONFIG_RULES, facts({'leaf1': compared('leaf1', running)})))['config-missing']
    assert status == 'fail' and found and all(f[2] == '(absent)' and ' › mtu ' in f[1] for f in found)


def test_the_rules_skip_on_a_plan_and_without_running_configs():
    configs = {'leaf1': compared('leaf1', rendered('leaf1'))}
    for skipped in (
        facts(configs, source='plan'),
        Facts('ai-lab', {}, errors={'configs': 'no running config is collected'}),
        facts({}),
    ):
        result = run_rules(CONFIG_RULES, skipped)
        assert {r.status for r in result.results} == {'skip'}
    result = run_rules(CONFIG_RULES, facts({'leaf1': DeviceConfig('eos', rendered('leaf1'))}))
    assert {r.rule.id: r.status for r in result.results} == {
        'config-backup': 'fail',
        'config-missing': 'skip',
        'config-changed': 'skip',
        'config-extra': 'skip',
    }
