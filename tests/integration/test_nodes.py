"""Fabric nodes: stable ids from the counts, explicit MLAG pairs, the counts following added and deleted nodes, the
node rules, and the full NetBox view/API experience of the model."""

import pytest
from django.core.exceptions import ValidationError
from django.test import TestCase

from dcim.models import Device, DeviceRole, DeviceType, Manufacturer
from utilities.testing import APIViewTestCases, ViewTestCases

from netbox_aifabric.graphql.types import FabricNodeType
from netbox_aifabric.intake.spec import fabric_spec
from netbox_aifabric.models import Fabric, FabricNode
from tests.integration.base import FABRIC_SHAPE, make_world, own_pools

pytestmark = pytest.mark.netbox


def nodes(fabric):
    return [(n.role, n.node_id, n.name, n.pair) for n in fabric.nodes.order_by('role', 'node_id')]


class FabricNodeModelTestCase(TestCase):
    @classmethod
    def setUpTestData(cls):
        cls.world = make_world()

    def make(self, **values):
        shape = {**FABRIC_SHAPE, **own_pools(self.world, 1), **values}  # saved: the pools its design needs
        fabric = Fabric(name='F', slug='f', site=self.world['sites'][0], **shape)
        fabric.full_clean()
        fabric.save()
        return fabric

    def test_saving_a_fabric_gives_it_its_nodes(self):
        fabric = self.make(design_option='mlag', server_count=2)
        self.assertEqual(
            nodes(fabric),
            [
                ('gpu', 1, 'f-gpu1', 1),
                ('gpu', 2, 'f-gpu2', 1),
                ('leaf', 1, 'f-leaf1', 1),
                ('leaf', 2, 'f-leaf2', 1),
                ('spine', 1, 'f-spine1', None),
                ('spine', 2, 'f-spine2', None),
                ('storage', 1, 'f-storage1', 1),
            ],
        )

    def test_growth_adds_the_next_ids_and_keeps_renamed_nodes(self):
        fabric = self.make(design_option='mlag')
        leaf1 = fabric.nodes.get(role='leaf', node_id=1)
        leaf1.name = 'rack1-tor-a'
        leaf1.save()
        fabric.refresh_from_db()
        fabric.leaf_count = 4
        fabric.save()
        self.assertEqual(
            [(n.node_id, n.name, n.pair) for n in fabric.nodes.filter(role='leaf').order_by('node_id')],
            [(1, 'rack1-tor-a', 1), (2, 'f-leaf2', 1), (3, 'f-leaf3', 2), (4, 'f-leaf4', 2)],
        )
        spec = fabric_spec(fabric)
        self.assertEqual(spec.mlag_pairs, ((1, 2), (3, 4)))
        self.assertEqual([leaf.name for leaf in spec.leaves][0], 'rack1-tor-a')

    def test_shrink_removes_the_highest_ids(self):
        fabric = self.make(server_count=4)
        fabric.server_count = 2
        fabric.save()
        self.assertEqual(list(fabric.nodes.filter(role='gpu').values_list('node_id', flat=True)), [1, 2])

    def test_deleting_or_adding_a_node_updates_the_counts(self):
        fabric = self.make(server_count=4)
        fabric.nodes.get(role='gpu', node_id=2).delete()
        fabric.refresh_from_db()
        self.assertEqual(fabric.server_count, 3)
        self.assertEqual(list(fabric.nodes.filter(role='gpu').values_list('node_id', flat=True)), [1, 3, 4])
        FabricNode(fabric=fabric, role='border', node_id=3, name='border3', pair=2).save()
        fabric.refresh_from_db()
        self.assertEqual(fabric.leaf_count, 3)
        # a later save of the fabric keeps the gap and the border leaf
        fabric.save()
        self.assertEqual(list(fabric.nodes.filter(role='gpu').values_list('node_id', flat=True)), [1, 3, 4])
        self.assertEqual(fabric_spec(fabric).leaves[2].name, 'border3')

    def test_node_rules(self):
        fabric = self.make()
        other_site = self.world['sites'][1]
        manufacturer = Manufacturer.objects.create(name='M', slug='m')
        device = Device.objects.create(
            name='elsewhere',
            site=other_site,
            device_type=DeviceType.objects.create(manufacturer=manufacturer, model='T', slug='t'),
            role=DeviceRole.objects.create(name='R', slug='r'),
        )
        cases = [
            ({'role': 'border', 'node_id': 1}, 'node_id', 'already has f-leaf1 with leaf id 1'),
            ({'role': 'leaf', 'node_id': 9}, 'node_id', 'Leaf id 9 is above the fabric maximum 8'),
            ({'role': 'spine', 'node_id': 3, 'pair': 1}, 'pair', 'Spines are not paired'),
            ({'role': 'spine', 'node_id': 3, 'device': device}, 'device', 'not in the fabric site Site 1'),
        ]
        for values, field, message in cases:
            with self.subTest(values=values):
                node = FabricNode(fabric=fabric, name='x', **values)
                with self.assertRaises(ValidationError) as raised:
                    node.full_clean()
                self.assertIn(message, ' '.join(raised.exception.message_dict[field]))

    def test_bulk_created_fabrics_plan_from_their_counts(self):
        fabric = Fabric.objects.bulk_create([Fabric(name='B', slug='b', site=self.world['sites'][0], **FABRIC_SHAPE)])[
            0
        ]
        self.assertEqual(fabric.nodes.count(), 0)
        spec = fabric_spec(fabric)
        self.assertEqual([n.name for n in spec.spines], ['b-spine1', 'b-spine2'])
        self.assertEqual(len(spec.servers), 5)


class FabricNodeViewTestCase(
    ViewTestCases.GetObjectViewTestCase,
    ViewTestCases.GetObjectChangelogViewTestCase,
    ViewTestCases.CreateObjectViewTestCase,
    ViewTestCases.EditObjectViewTestCase,
    ViewTestCases.DeleteObjectViewTestCase,
    ViewTestCases.ListObjectsViewTestCase,
    ViewTestCases.BulkImportObjectsViewTestCase,
    ViewTestCases.BulkEditObjectsViewTestCase,
    ViewTestCases.BulkDeleteObjectsViewTestCase,
):
    """NetBox's own view tests, bulk import (create and update by id) and bulk edit included (the list's
    "Import" and "Edit Selected" led to /fabric-nodes/None)."""

    model = FabricNode

    def _get_base_url(self):
        return 'plugins:netbox_aifabric:fabricnode_{}'

    @classmethod
    def setUpTestData(cls):
        world = make_world()
        fabric = Fabric(name='F', slug='f', site=world['sites'][0], **FABRIC_SHAPE)
        fabric.save()
        cls.form_data = {'fabric': fabric.pk, 'role': 'border', 'node_id': 5, 'name': 'border5', 'pair': 3, 'tags': []}
        cls.csv_data = (
            'fabric,role,node_id,name,pair',
            'f,border,6,border6,3',
            'f,border,7,border7,4',
            'f,gpu,9,f-gpu9,2',
        )
        servers = fabric.nodes.filter(role='gpu').order_by('node_id')[:3]
        cls.csv_update_data = ('id,pair', *(f'{node.pk},2' for node in servers))
        cls.bulk_edit_data = {'pair': 2}


class FabricNodeAPITestCase(
    APIViewTestCases.GetObjectViewTestCase,
    APIViewTestCases.ListObjectsViewTestCase,
    APIViewTestCases.CreateObjectViewTestCase,
    APIViewTestCases.UpdateObjectViewTestCase,
    APIViewTestCases.DeleteObjectViewTestCase,
    APIViewTestCases.GraphQLTestCase,
):
    model = FabricNode
    view_namespace = 'plugins-api:netbox_aifabric'
    type_class = FabricNodeType
    graphql_base_name = 'netbox_aifabric_fabric_node'
    brief_fields = ['display', 'id', 'name', 'node_id', 'role', 'url']

    @classmethod
    def setUpTestData(cls):
        world = make_world()
        fabric = Fabric(name='F', slug='f', site=world['sites'][0], **FABRIC_SHAPE)
        fabric.save()
        cls.create_data = [
            {'fabric': fabric.pk, 'role': 'border', 'node_id': 5, 'name': 'border5', 'pair': 3},
            {'fabric': fabric.pk, 'role': 'border', 'node_id': 6, 'name': 'border6', 'pair': 3},
            {'fabric': fabric.pk, 'role': 'spine', 'node_id': 3, 'name': 'spine3'},
        ]
        cls.update_data = {'name': 'renamed'}


class FabricNodeTabTestCase(TestCase):
    """The fabric's Nodes and Allocations tabs answer with the nodes and the plan's numbering."""

    @classmethod
    def setUpTestData(cls):
        from netbox_aifabric.apply.seed import load_demo

        load_demo()

    def test_tabs(self):
        from django.urls import reverse

        from users.models import User

        user = User.objects.create_user(username='viewer', is_superuser=True)
        self.client.force_login(user)
        fabric = Fabric.objects.get(slug='ai-lab-fabric')
        response = self.client.get(reverse('plugins:netbox_aifabric:fabric_nodes', kwargs={'pk': fabric.pk}))
        self.assertContains(response, 'ai-lab-fabric-storage1')
        response = self.client.get(reverse('plugins:netbox_aifabric:fabric_allocations', kwargs={'pk': fabric.pk}))
        self.assertContains(response, '10.255.0.5/32')  # leaf 1's loopback
        self.assertContains(response, '10.255.2.20/31')  # leaf 2 – spine 2
        self.assertContains(response, '50001:50001')
