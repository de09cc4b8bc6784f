"""Growth that balances: the guide's fabric (one leaf pair, 4 GPU servers and a storage node) edited to 4
leaves and 8 GPU servers puts the 4 new servers on the new pair, says so after the save, and keeps every cable of the
first apply; a second apply changes nothing. Fabric nodes can be moved in bulk (bulk edit) and imported, through
NetBox's own bulk views."""

import pytest
from django.db.models import Count
from django.urls import reverse

from dcim.models import CableTermination, Device, Interface
from users.models import ObjectPermission
from utilities.testing import TestCase

from netbox_aifabric.apply.seed import load_demo
from netbox_aifabric.apply.writes import apply_fabric
from netbox_aifabric.forms import FabricForm
from netbox_aifabric.models import Fabric
from tests.integration.test_apply_growth import cabling, lags

pytestmark = pytest.mark.netbox


def form_data(fabric, **changes):
    """The fabric's edit form as a browser would post it unchanged, with ``changes``."""
    form = FabricForm(instance=fabric)
    data = {}
    for name in form.fields:
        value = form[name].value()
        if value is None:
            continue
        if isinstance(value, (list, tuple)):
            data[name] = [getattr(v, 'pk', v) for v in value]
        else:
            data[name] = getattr(value, 'pk', value)
    data.update(changes)
    return data


def servers_per_pair(fabric):
    """``{leaf pair: [server names]}`` as the applied NetBox cables say: the leaves a server is cabled to."""
    leaf_pair = {n.name: n.pair for n in fabric.nodes.filter(role='leaf')}
    servers = {n.name for n in fabric.nodes.filter(role__in=('gpu', 'storage'))}
    pairs = {}
    for interface in Interface.objects.filter(device__name__in=servers, cable__isnull=False).select_related('device'):
        peer = interface.link_peers[0]
        pairs.setdefault(leaf_pair[peer.device.name], set()).add(interface.device.name)
    return {pair: sorted(names) for pair, names in sorted(pairs.items())}


class GrowthBalancesTestCase(TestCase):
    @classmethod
    def setUpTestData(cls):
        load_demo()
        cls.fabric = Fabric.objects.get(slug='ai-lab-fabric')

    def test_growth_to_two_pairs_balances_and_keeps_every_cable(self):
        self.user.is_superuser = True  # the form's pickers show what the user may view: everything, here
        self.user.save()
        fabric = self.fabric
        self.assertEqual((fabric.leaf_count, fabric.server_count, fabric.storage_count), (2, 4, 1))
        apply_fabric(fabric)
        before, members = cabling(), lags()
        self.assertEqual(list(servers_per_pair(fabric)), [1])

        url = reverse('plugins:netbox_aifabric:fabric_edit', kwargs={'pk': fabric.pk})
        response = self.client.post(url, form_data(fabric, leaf_count=4, server_count=8), follow=True)
        self.assertEqual(response.status_code, 200)
        form = response.context.get('form')
        self.assertFalse(form is not None and form.errors, form.errors if form is not None else None)
        shown = [str(m) for m in response.context['messages']]
        slug = fabric.slug
        new = ', '.join(f'{slug}-gpu{k}' for k in range(5, 9))
        self.assertIn(f'New servers placed: {new} → leaf pair 2 ({slug}-leaf3, {slug}-leaf4)', shown)

        fabric = Fabric.objects.get(pk=fabric.pk)
        placed = {n.name: n.pair for n in fabric.nodes.filter(role__in=('gpu', 'storage'))}
        self.assertEqual(sorted(v for v in placed.values()), [1] * 5 + [2] * 4)
        _plan, changes = apply_fabric(fabric)
        self.assertFalse([c for c in changes if c.action in ('conflict', 'delete')])
        after = cabling()
        moved = {pk: (ends, after.get(pk)) for pk, ends in before.items() if after.get(pk) != ends}
        self.assertEqual(moved, {}, 'cables that existed before must connect the same interfaces')
        doubled = CableTermination.objects.values('termination_type', 'termination_id').annotate(n=Count('pk'))
        self.assertEqual(list(doubled.filter(n__gt=1)), [])
        self.assertEqual({pk: lags().get(pk) for pk in members}, members)
        gpu = {pair: [n for n in names if '-gpu' in n] for pair, names in servers_per_pair(fabric).items()}
        self.assertEqual({pair: len(names) for pair, names in gpu.items()}, {1: 4, 2: 4})
        _plan, changes = apply_fabric(fabric)
        self.assertEqual({c.action for c in changes}, {'keep'})
        # the balance shows in the capacity: both pairs carry servers
        self.assertTrue(all(c.downlink for c in _plan.capacity), _plan.capacity)


class FabricNodeBulkViewsTestCase(TestCase):
    user_permissions = (
        'netbox_aifabric.view_fabricnode',
        'netbox_aifabric.change_fabricnode',
        'netbox_aifabric.add_fabricnode',
    )

    @classmethod
    def setUpTestData(cls):
        load_demo()
        cls.fabric = Fabric.objects.get(slug='ai-lab-fabric')

    def test_the_list_links_to_working_bulk_views(self):
        response = self.client.get(reverse('plugins:netbox_aifabric:fabricnode_list'))
        self.assertEqual(response.status_code, 200)
        content = response.content.decode()
        self.assertNotIn('fabric-nodes/None', content)
        self.assertIn(reverse('plugins:netbox_aifabric:fabricnode_bulk_import'), content)
        self.assertIn(reverse('plugins:netbox_aifabric:fabricnode_bulk_edit'), content)

    def test_bulk_edit_moves_servers_to_another_pair(self):
        nodes = list(self.fabric.nodes.filter(role='gpu').order_by('node_id')[2:])
        url = reverse('plugins:netbox_aifabric:fabricnode_bulk_edit')
        response = self.client.post(url, {'pk': [n.pk for n in nodes], '_apply': True, 'pair': 2})
        self.assertEqual(
            response.status_code, 302, getattr(response, 'context', None) and response.context['form'].errors
        )
        pairs = dict(self.fabric.nodes.filter(role='gpu').values_list('node_id', 'pair'))
        self.assertEqual(pairs, {1: 1, 2: 1, 3: 2, 4: 2})

    def test_bulk_edit_is_refused_without_the_permission(self):
        ObjectPermission.objects.filter(actions__contains=['change']).delete()
        node = self.fabric.nodes.get(role='gpu', node_id=1)
        url = reverse('plugins:netbox_aifabric:fabricnode_bulk_edit')
        response = self.client.post(url, {'pk': [node.pk], '_apply': True, 'pair': 2})
        self.assertEqual(response.status_code, 403)
        node.refresh_from_db()
        self.assertEqual(node.pair, 1)

    # bulk import (create and update by id) and bulk edit run NetBox's own view test cases: test_nodes.py


class SingleLeafBondAppliedTestCase(TestCase):
    """A leaf alone in its pair (a single-leaf rack) hosts a bonded server: both NICs cabled to that leaf, one LAG
    on that switch with both members, and its context says it is not dual-homed (no MLAG id, no segment)."""

    @classmethod
    def setUpTestData(cls):
        load_demo()
        cls.fabric = Fabric.objects.get(slug='ai-lab-fabric')

    def check(self, **design):
        if design.get('design_option') == 'routed':
            self.fabric.tenants.clear()
        fabric = Fabric.objects.get(pk=self.fabric.pk)
        for name, value in {**design, 'leaf_count': 3, 'server_count': 5}.items():
            setattr(fabric, name, value)
        fabric.full_clean()
        fabric.save()
        gpu5 = fabric.nodes.get(role='gpu', node_id=5)
        self.assertEqual(gpu5.pair, 2)  # the new rack: leaf3 alone
        apply_fabric(fabric)
        leaf3 = Device.objects.get(name=f'{fabric.slug}-leaf3')
        cabled = Interface.objects.filter(device__name=gpu5.name, cable__isnull=False, lag__isnull=False)
        peers = {i.link_peers[0] for i in cabled}
        self.assertEqual(len(peers), fabric.server_nic_count)
        self.assertEqual({p.device for p in peers}, {leaf3})
        self.assertEqual(len({p.lag for p in peers}), 1)
        lag = next(iter(peers)).lag
        self.assertEqual(set(lag.member_interfaces.all()), peers)
        context = leaf3.get_config_context()['aifabric']
        mine = next(entry for entry in context['lags'] if entry['name'] == lag.name)
        self.assertFalse(mine['dual_homed'])
        self.assertNotIn('esi', mine)
        _plan, changes = apply_fabric(fabric)
        self.assertEqual({c.action for c in changes}, {'keep'})

    def test_evpn_vxlan(self):
        self.check()

    def test_evpn_multihoming(self):
        self.check(leaf_pairing='evpn-mh')

    def test_routed(self):
        self.check(design_option='routed')
