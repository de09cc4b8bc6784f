"""examples/ansible against a live NetBox (Django's live server): ``ansible-inventory --list`` with the shipped
nb_inventory file exposes each switch's aifabric context and its compliance status from the latest stored run; the
playbook in ``--check --diff`` mode names every config it would write and writes none, then writes them all."""

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from dcim.models import Device
from users.models import Token, User

from netbox_aifabric.checks.compliance import run_compliance
from netbox_aifabric.checks.runs import record_run
from netbox_aifabric.render.configs import ConfigRenderer
from tests.integration.test_compliance import LEAF1, applied_demo, break_by_hand

pytestmark = [pytest.mark.netbox, pytest.mark.django_db(transaction=True)]

EXAMPLES = Path(__file__).resolve().parents[2] / 'examples' / 'ansible'
BIN = Path(sys.executable).parent


def ansible(tool, *args, env):
    done = subprocess.run(
        [str(BIN / tool), *args], env=env, capture_output=True, text=True, timeout=600, cwd=EXAMPLES, check=False
    )
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
        'ANSIBLE_INVENTORY_UNPARSED_FAILED': 'true',  # a broken inventory source fails, not an empty inventory
        'ANSIBLE_INVENTORY_ANY_UNPARSED_IS_FAILED': 'true',
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
