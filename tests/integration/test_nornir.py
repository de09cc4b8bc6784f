"""examples/nornir against a live NetBox (Django's live server), run where NetBox and Django cannot be imported: for
every switch of the demo fabric, on each NOS the plugin ships, the local render (the plugin's filters, NetBox's Jinja
environment) equals NetBox's ``render-config`` output byte for byte, and the inventory holds every switch with its
management address and context. docs/automation.md."""

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from dcim.models import Device, Platform
from users.models import Token, User

from netbox_aifabric.apply.seed import load_config_templates, load_demo
from netbox_aifabric.apply.writes import apply_fabric
from netbox_aifabric.facts.nos import NOS_REGISTRY
from netbox_aifabric.models import Fabric
from netbox_aifabric.render.configs import ConfigRenderer
from tests.integration.base import GUIDE_COLLECTORS
from tests.unit.test_local_render import NO_NETBOX

pytest.importorskip('nornir', reason='examples/nornir needs nornir (docs/automation.md)')
pytestmark = [pytest.mark.netbox, pytest.mark.django_db(transaction=True)]

EXAMPLES = Path(__file__).resolve().parents[2] / 'examples' / 'nornir'
ROLES = ('ai-fabric-leaf', 'ai-fabric-spine')
# the inventory as the example loads it, printed as JSON (run in the same NetBox-less Python)
INVENTORY = """
sys.path.insert(0, sys.argv[1])
import json, os, aifabric_nornir
inventory = aifabric_nornir.AIFabricInventory(os.environ['NETBOX_API'], os.environ['NETBOX_TOKEN']).load()
hosts = inventory.hosts.items()
print(json.dumps({n: {'hostname': h.hostname, 'platform': h.platform, 'aifabric': h['aifabric']} for n, h in hosts}))
"""
RENDER = """
import runpy
sys.argv = [sys.argv[1], *sys.argv[2:]]
runpy.run_path(sys.argv[0], run_name='__main__')
"""


def without_netbox(code, *args, env):
    return subprocess.run(
        [sys.executable, '-c', NO_NETBOX + code, *args], env=env, capture_output=True, text=True, timeout=600,
        check=False,
    )  # fmt: skip


@pytest.fixture(params=[nos.platform_slug for nos in NOS_REGISTRY])
def applied(request, live_server):
    """The demo fabric on one shipped NOS (its platform, the shipped templates), applied; the environment the
    example runs in."""
    load_demo()
    load_config_templates()
    Fabric.objects.filter(slug='ai-lab-fabric').update(
        platform=Platform.objects.get(slug=request.param), **GUIDE_COLLECTORS
    )
    apply_fabric(Fabric.objects.get(slug='ai-lab-fabric'))
    user = User.objects.create_superuser('nornir', 'nornir@example.invalid', 'secret-password')
    token = Token.objects.create(user=user)
    return {**os.environ, 'NETBOX_API': live_server.url, 'NETBOX_TOKEN': f'nbt_{token.key}.{token.token}'}


def switches():
    return Device.objects.filter(role__slug__in=ROLES).order_by('name')


def test_the_inventory_and_the_local_render(applied, tmp_path):
    """One test per NOS (an apply each): the inventory, then every switch rendered both ways."""
    done = without_netbox(INVENTORY, str(EXAMPLES), env=applied)
    assert done.returncode == 0, done.stderr[-3000:]
    hosts = json.loads(done.stdout)
    assert sorted(hosts) == [d.name for d in switches()] and len(hosts) == 4
    for device in switches():
        assert hosts[device.name] == {
            'hostname': str(device.oob_ip.address.ip),
            'platform': device.platform.slug,
            'aifabric': device.get_config_context()['aifabric'],
        }
    out = tmp_path / 'configs'
    done = without_netbox(
        RENDER, str(EXAMPLES / 'render_configs.py'), '--local', '--compare', '--out', str(out), env=applied
    )
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    expected = {c.device.name: c.content for c in ConfigRenderer().render_all(switches())}
    assert all(expected.values()) and len(expected) == 4
    assert {p.stem: p.read_text() for p in out.iterdir()} == expected
    assert done.stdout.count('identical') == len(expected), done.stdout
