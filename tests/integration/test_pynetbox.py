"""The REST API as a user's pynetbox script sees it, against a real HTTP server (Django's live server)."""

import importlib.util
import json
from pathlib import Path

import pynetbox
import pytest

from dcim.models import Device, Site
from users.models import Token, User

from netbox_aifabric.apply.seed import load_config_templates, load_device_types, load_qos_presets, load_traffic_classes
from netbox_aifabric.facts.nos import nos_by_key
from netbox_aifabric.planner.guide import GUIDE_SHAPE
from tests.integration.base import LOSSLESS

SEED = Path(__file__).resolve().parents[2] / 'examples' / 'pynetbox_seed.py'

pytestmark = [pytest.mark.netbox, pytest.mark.django_db(transaction=True)]


@pytest.fixture
def nb(live_server):
    user = User.objects.create_superuser('pynetbox', 'pynetbox@example.invalid', 'secret-password')
    token = Token.objects.create(user=user)
    return pynetbox.api(live_server.url, token=f'nbt_{token.key}.{token.token}')


def _seed_module():
    spec = importlib.util.spec_from_file_location('pynetbox_seed_example', SEED)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _seed(nb, *args):
    """examples/pynetbox_seed.py with the loaders the install guide names run first (presets, templates with their
    platforms, device types); returns its exit code and the applied fabric's switches ``{name: (role, device)}``."""
    load_qos_presets()
    load_traffic_classes()
    load_config_templates()
    load_device_types()
    code = _seed_module().main([nb.base_url.removesuffix('/api'), nb.token, '--apply', *args])
    roles = {f'ai-fabric-{role}': role for role in ('spine', 'leaf')}  # the apply's switch roles
    switches = Device.objects.filter(site__slug='ai-lab', role__slug__in=roles).select_related(
        'device_type', 'platform', 'role'
    )
    return code, {device.name: (roles[device.role.slug], device) for device in switches}


def _render(nb, device):
    """NetBox's own render-config endpoint, as a provisioning tool calls it: ``(status, body)``."""
    response = nb.http_session.post(
        f'{nb.base_url}/dcim/devices/{device.pk}/render-config/',
        headers={'Authorization': f'Bearer {nb.token}', 'Accept': 'application/json'},
    )
    return response.status_code, response.json()


def _assert_every_switch_renders_sonic(nb, switches):
    sonic = nos_by_key('sonic')  # the seed's default NOS
    assert len(switches) == GUIDE_SHAPE['spine_count'] + GUIDE_SHAPE['leaf_count']
    for name, (_role, device) in switches.items():
        assert device.platform.slug == sonic.platform_slug, name
        status, body = _render(nb, device)
        assert status == 200, (name, body)
        assert body['configtemplate']['name'] == sonic.template_name
        config = json.loads(body['content'])  # SONiC's config_db.json
        assert config['DEVICE_METADATA']['localhost']['hostname'] == name


def test_the_seed_with_its_defaults_renders_every_switch(nb):
    code, switches = _seed(nb)
    assert code == 0
    _assert_every_switch_renders_sonic(nb, switches)
    sonic = nos_by_key('sonic')
    for name, (role, device) in switches.items():  # the NOS's shipped hardware, where the guide's cluster fits
        assert device.device_type.slug == getattr(sonic, f'{role}_device_type'), name


def test_the_seed_without_a_nos_renders_nothing_until_run_with_one(nb):
    """The negative control: no platform, no ConfigTemplate for NetBox to find (what the seed did before --nos).
    A second run with the default NOS gives the existing fabric its platform, and its apply the switches."""
    code, switches = _seed(nb, '--nos', 'none')
    assert code == 0
    assert len(switches) == GUIDE_SHAPE['spine_count'] + GUIDE_SHAPE['leaf_count']
    for name, (_role, device) in switches.items():
        assert device.platform is None, name
        status, body = _render(nb, device)
        assert status == 400, (name, body)
        assert 'No config template found' in json.dumps(body)

    code, switches = _seed(nb)
    assert code == 0
    _assert_every_switch_renders_sonic(nb, switches)


def test_plugin_endpoints_from_pynetbox(nb):
    plugins = {p['name']: p for p in nb.plugins.installed_plugins()}
    assert plugins['AI Fabric']['package'] == 'netbox_aifabric'

    rdma = nb.plugins.aifabric.traffic_classes.create(
        name='RDMA', slug='rdma', purpose='rdma', vid=40, dscp=[26], switch_priority=3, lossless=True
    )
    users = nb.plugins.aifabric.traffic_classes.create(name='USERS', slug='users', purpose='user-access', vid=20)
    assert [tc.name for tc in nb.plugins.aifabric.traffic_classes.filter(lossless=True)] == ['RDMA']
    assert [tc.name for tc in nb.plugins.aifabric.traffic_classes.filter(q='user')] == ['USERS']

    rdma.reachable_from = [users.id]
    rdma.mtu = 9000
    assert rdma.save()
    fetched = nb.plugins.aifabric.traffic_classes.get(slug='rdma')
    assert (fetched.mtu, fetched.reachable_from, fetched.purpose.value) == (9000, [users.id], 'rdma')

    profile = nb.plugins.aifabric.qos_profiles.create(name='Lossless', slug='lossless', **LOSSLESS)
    site = Site.objects.create(name='AI Lab', slug='ai-lab')
    # a fabric saves only what the planner accepts: its pools and ASNs first (examples/pynetbox_seed.py does the same)
    pools = {
        field: nb.ipam.prefixes.create(prefix=prefix).id
        for field, prefix in (
            ('loopback_pool', '10.254.0.0/24'),
            ('vtep_pool', '10.254.1.0/24'),
            ('p2p_pool', '10.254.2.0/24'),
            ('mlag_peer_pool', '10.254.3.0/28'),
        )
    }
    rir = nb.ipam.rirs.create(name='Private ASNs', slug='private-asns', is_private=True)
    leaves = nb.ipam.asn_ranges.create(name='Leaves', slug='leaves', rir=rir.id, start=65101, end=65199)
    fabric = nb.plugins.aifabric.fabrics.create(
        name='AI Lab fabric',
        slug='ai-lab-fabric',
        site=site.pk,
        qos_profile=profile.id,
        traffic_classes=[rdma.id],
        **pools,
        leaf_asn_range=leaves.id,
        spine_asn=65100,
    )
    assert fabric.qos_profile.slug == 'lossless'
    assert [f.name for f in nb.plugins.aifabric.fabrics.filter(qos_profile='lossless')] == ['AI Lab fabric']
    assert (fabric.leaf_pairing.value, float(fabric.oversubscription_target)) == ('mlag', 3.0)  # the defaults

    fabric.design_option = 'evpn-vxlan'
    fabric.leaf_pairing = 'evpn-mh'
    fabric.oversubscription_target = 1
    assert fabric.save()
    fetched = nb.plugins.aifabric.fabrics.get(slug='ai-lab-fabric')
    assert (fetched.leaf_pairing.value, float(fetched.oversubscription_target)) == ('evpn-mh', 1.0)
    assert [f.name for f in nb.plugins.aifabric.fabrics.filter(leaf_pairing='evpn-mh')] == ['AI Lab fabric']
    fetched.design_option = 'routed'
    with pytest.raises(pynetbox.RequestError) as error:
        fetched.save()
    assert error.value.req.status_code == 400
    assert 'leaf_pairing' in error.value.error


def test_bad_input_is_a_named_400(nb):
    with pytest.raises(pynetbox.RequestError) as error:
        nb.plugins.aifabric.qos_profiles.create(
            name='Bad', slug='bad', mode='lossy', roce_dscp=[26], roce_priority=[3], roce_tc=[3], pfc_priorities=[3]
        )
    assert error.value.req.status_code == 400
    assert error.value.error == ('{"pfc_priorities":["PFC must be off in Lossy (ECN only) mode (got priorities 3)."]}')
    assert list(nb.plugins.aifabric.qos_profiles.all()) == []
