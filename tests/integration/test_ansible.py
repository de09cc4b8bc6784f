"""examples/ansible against a live NetBox (Django's live server), with its ansible.cfg: ``ansible-inventory --list``
with the shipped nb_inventory file exposes each switch's management address, network OS, aifabric context and
compliance status from the latest stored run, and fails (not an empty inventory) without pytz; the playbooks in
``--check --diff`` mode name every config they would write and write none; the runbook's playbook.yml reports a
changed config, refuses an inventory without a switch, and is what the acceptance runbook's ansible step runs."""

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from django.test import Client

from dcim.models import Device, DeviceRole
from users.models import Token, User

from netbox_aifabric.checks.compliance import run_compliance
from netbox_aifabric.checks.runs import record_run
from netbox_aifabric.models import AcceptanceRun
from netbox_aifabric.render.configs import ConfigRenderer
from tests.integration.test_compliance import LEAF1, applied_demo, break_by_hand

pytestmark = [pytest.mark.netbox, pytest.mark.django_db(transaction=True)]

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = ROOT / 'examples' / 'ansible'
BIN = Path(sys.executable).parent


# What the inventory's compose gives each platform the plugin seeds (docs/automation.md)
NETWORK_OS = {'sonic': 'dellemc.enterprise_sonic.sonic'}


def run(tool, *args, env):
    return subprocess.run(
        [str(BIN / tool), *args], env=env, capture_output=True, text=True, timeout=600, cwd=EXAMPLES, check=False
    )


def ansible(tool, *args, env):
    done = run(tool, *args, env=env)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    return done.stdout


def live_env(live_server, tmp_path, user):
    """The environment ansible runs in: the live server's URL, a token of ``user``, its own Ansible home."""
    token = Token.objects.create(user=user)
    return {
        **os.environ,
        'PATH': f'{BIN}:{os.environ.get("PATH", "")}',
        'NETBOX_API': live_server.url,
        'NETBOX_TOKEN': f'nbt_{token.key}.{token.token}',
        'ANSIBLE_HOME': str(tmp_path / 'ansible-home'),
        'ANSIBLE_LOCAL_TEMP': str(tmp_path / 'ansible-tmp'),
        'ANSIBLE_PYTHON_INTERPRETER': sys.executable,
        'ANSIBLE_LOCALHOST_WARNING': 'false',
        'ANSIBLE_NOCOLOR': 'true',
        'ANSIBLE_CONFIG': str(EXAMPLES / 'ansible.cfg'),  # what makes a broken inventory source fail (tested)
    }


@pytest.fixture
def drifted(live_server, tmp_path):
    """The applied demo with one uplink MTU of leaf1 changed by hand and a compliance run stored; the environment
    the inventory reads."""
    fabric = applied_demo()
    user = User.objects.create_superuser('ansible', 'ansible@example.invalid', 'secret-password')
    break_by_hand(fabric, user)
    record_run(fabric, run_compliance(fabric), user=user)
    return fabric, live_env(live_server, tmp_path, user)


def plain(value):
    """ansible-inventory's JSON without its trust markers (``{'__ansible_unsafe': 'text'}`` is ``'text'``)."""
    if isinstance(value, dict):
        if set(value) == {'__ansible_unsafe'}:
            return value['__ansible_unsafe']
        return {k: plain(v) for k, v in value.items()}
    if isinstance(value, list):
        return [plain(v) for v in value]
    return value


def switches():
    roles = ('ai-fabric-leaf', 'ai-fabric-spine')
    return Device.objects.filter(role__slug__in=roles, name__startswith='ai-lab-fabric-').order_by('name')


def test_the_inventory_exposes_context_and_compliance(drifted):
    _fabric, env = drifted
    inventory = json.loads(ansible('ansible-inventory', '-i', 'aifabric.netbox.yml', '--list', env=env))
    hostvars = plain(inventory['_meta']['hostvars'])
    names = [d.name for d in switches()]
    assert len(names) == 4 and sorted(hostvars) == names
    for device in switches():
        host = hostvars[device.name]
        assert device.oob_ip is not None and device.oob_ip != device.primary_ip
        assert host['ansible_host'] == str(device.oob_ip.address.ip)
        assert host['ansible_network_os'] == NETWORK_OS[device.platform.slug]
        assert host['aifabric'] == device.local_context_data['aifabric']
        drifted_here = device.name == LEAF1
        assert (host['aifabric_compliance_findings'], host['aifabric_compliant']) == (
            int(drifted_here),
            not drifted_here,
        )


def test_the_playbook_checks_then_writes_every_config(drifted, tmp_path):
    _fabric, env = drifted
    configs = tmp_path / 'configs'
    args = ('-i', 'aifabric.netbox.yml', 'render_configs.yml', '-e', f'config_dir={configs}')
    checked = ansible('ansible-playbook', *args, '--check', '--diff', env=env)
    assert not configs.exists() or not any(configs.iterdir())
    names = [d.name for d in switches()]
    for name in names:
        assert f'{configs}/{name}.cfg' in checked or f'{name}.cfg' in checked, name
    ansible('ansible-playbook', *args, env=env)
    expected = {c.device.name: c.content for c in ConfigRenderer().render_all(switches())}
    assert {p.stem: p.read_text() for p in configs.iterdir()} == expected
    again = ansible('ansible-playbook', *args, '--check', '--diff', env=env)
    assert 'changed=0' in again.splitlines()[-2] or all(
        'changed=0' in line for line in again.splitlines() if 'ok=' in line
    )


@pytest.fixture
def nothing_applied(live_server, tmp_path):
    """A NetBox without any fabric switch, and the environment ansible runs in."""
    user = User.objects.create_superuser('ansible', 'ansible@example.invalid', 'secret-password')
    return live_env(live_server, tmp_path, user)


def test_without_pytz_the_inventory_fails(nothing_applied, tmp_path):
    """nb_inventory refuses to load without pytz; the shipped ansible.cfg makes that an error, not a warning and an
    empty inventory (Ansible's default: exit 0)."""
    stub = tmp_path / 'no-pytz' / 'pytz'
    stub.mkdir(parents=True)
    (stub / '__init__.py').write_text("raise ImportError('pytz is not installed (test stub)')\n")
    env = {**nothing_applied, 'PYTHONPATH': str(stub.parent)}
    done = run('ansible-inventory', '-i', 'aifabric.netbox.yml', '--list', env=env)
    assert done.returncode != 0
    assert 'pytz must be installed' in done.stdout + done.stderr


def test_the_runbook_playbook_refuses_an_inventory_without_switches(nothing_applied):
    """The switch roles exist (without them NetBox refuses the inventory's role filter), no device has them: the
    inventory is empty, and the playbook fails instead of checking nothing."""
    for slug in ('ai-fabric-leaf', 'ai-fabric-spine'):
        DeviceRole.objects.create(name=slug, slug=slug)
    done = run(
        'ansible-playbook', '-i', 'aifabric.netbox.yml', 'playbook.yml', '--check', '--diff', env=nothing_applied
    )
    assert done.returncode != 0
    assert 'The inventory has no switch' in done.stdout


def test_the_runbook_playbook_diffs_in_check_mode(drifted, tmp_path):
    """playbook.yml, as the acceptance runbook runs it (--check --diff): nothing written, no switch reached; after the
    configs are written, nothing to change; a config edited by hand is the one change, with its diff."""
    _fabric, env = drifted
    configs = tmp_path / 'configs'
    args = ('-i', 'aifabric.netbox.yml', 'playbook.yml', '-e', f'config_dir={configs}', '--check', '--diff')
    checked = ansible('ansible-playbook', *args, env=env)
    names = [d.name for d in switches()]
    assert not configs.exists() or not any(configs.iterdir())
    assert all(f'{configs}/{name}.cfg' in checked for name in names)
    ansible(
        'ansible-playbook', '-i', 'aifabric.netbox.yml', 'render_configs.yml', '-e', f'config_dir={configs}', env=env
    )
    assert recap(ansible('ansible-playbook', *args, env=env)) == dict.fromkeys(names, 0)
    edited = configs / f'{names[0]}.cfg'
    edited.write_text(edited.read_text().replace('"', "'", 1))
    again = ansible('ansible-playbook', *args, env=env)
    assert recap(again) == {name: int(name == names[0]) for name in names}
    assert f'--- before: {edited}' in again


def recap(output):
    """``{host: changed}`` from ansible-playbook's PLAY RECAP (the fabric's switches; localhost left out)."""
    found = {}
    for line in output.splitlines():
        fields = line.split()
        if len(fields) > 2 and fields[1] == ':' and fields[0] != 'localhost':
            found[fields[0]] = int(next(f for f in fields if f.startswith('changed=')).split('=')[1])
    return found


def test_the_runbooks_ansible_step_runs_the_shipped_playbook(drifted, tmp_path):
    """The acceptance runbook's ansible section, from the repository's root as the guide runs it, with the shipped
    inventory and ansible.cfg: it finds examples/ansible/playbook.yml (no longer skipped), runs it in check mode
    and, with no config written yet, has every switch's config to review; nothing is written."""
    fabric, env = drifted
    client = Client()
    client.force_login(User.objects.get(username='ansible'))
    script = tmp_path / 'acceptance.sh'
    script.write_bytes(client.get(f'/plugins/aifabric/fabrics/{fabric.pk}/acceptance/script/').content)
    run_ = AcceptanceRun.objects.create(fabric=fabric, kind='manual', user=User.objects.get(username='ansible'))
    env = {
        **env, 'OUT': str(tmp_path / 'out'), 'NETBOX_URL': env['NETBOX_API'], 'RUN_ID': str(run_.pk),
        'ANSIBLE_INVENTORY': 'examples/ansible/aifabric.netbox.yml',
    }  # fmt: skip
    env.pop('ANSIBLE_PLAYBOOK', None)
    done = subprocess.run(
        ['bash', str(script), 'ansible'], env=env, capture_output=True, text=True, timeout=600, cwd=ROOT, check=False
    )
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    summary = (tmp_path / 'out' / 'summary.txt').read_text()
    assert 'review: ansible check mode: changes pending' in summary, summary
    checked = (tmp_path / 'out' / 'ansible_check.txt').read_text()
    assert all(f'{name}.cfg' in checked for name in (d.name for d in switches())), checked[-3000:]
    assert not (EXAMPLES / 'configs').exists()
