"""The equivalence oracle: the bulk writer leaves behind exactly what one save() per object leaves behind.

The same fabric is applied twice in one test database, each time in a savepoint rolled back afterwards: once through
the per-object reference path (``apply_fabric(per_object=True)``) and once through the bulk writer. Compared after
naming the ids (``apply_oracle.py``): every object's field values, every ObjectChange (action, object type, object,
related object, representation, user, pre/post data), every CablePath, every search-cache row NetBox's deferred
indexing writes, every queued event (type, user, pre/post snapshots), the fabric's allocations, the background
jobs pending once the config-context invalidation's commit hooks ran.
"""

import tempfile
from collections import Counter
from pathlib import Path

import pytest
from django.contrib.auth import get_user_model
from django.contrib.contenttypes.models import ContentType
from django.test import TestCase

from core.models import ObjectChange
from dcim.models import ConsolePortTemplate, DeviceType, InterfaceTemplate, Manufacturer
from ipam.models import IPAddress, Prefix

from netbox_aifabric.apply.seed import load_demo
from netbox_aifabric.apply.writes import apply_fabric
from netbox_aifabric.models import Fabric
from tests.integration.apply_oracle import differences, record_apply

pytestmark = pytest.mark.netbox


M_SHAPE = {
    'spine_count': 4,
    'max_spines': 4,
    'leaf_count': 16,
    'max_leaves': 16,
    'max_parallel_uplinks': 1,
    'server_count': 128,
    'storage_count': 0,
}


def per_object(fabric):
    apply_fabric(fabric, per_object=True)


class ApplyEquivalenceTestCase(TestCase):
    @classmethod
    def setUpTestData(cls):
        load_demo()
        cls.user = get_user_model().objects.create_user(username='oracle')
        cls.fabric = Fabric.objects.get(slug='ai-lab-fabric')

    def assertSameApply(self, reference, other):
        diff = differences(reference, other)
        if diff:
            full = differences(reference, other, limit=10**6)
            (Path(tempfile.gettempdir()) / 'aifabric-apply-oracle.diff').write_text(full)  # all of it, to read
        self.assertEqual(diff, '', f'the bulk apply differs from the per-object apply:\n{diff}')

    def test_fabric_s_bulk_equals_per_object(self):
        reference = record_apply(self.fabric, self.user, per_object)
        bulk = record_apply(self.fabric, self.user, apply_fabric)
        # not vacuous: the demo's 174 owned objects, their change log, paths, search rows and events were recorded
        self.assertEqual(sum(key.startswith('netbox_aifabric.ownedobject') for key in reference.objects), 174)
        self.assertGreater(len(reference.paths), 0)
        self.assertGreater(sum(reference.changes.values()), 174)
        self.assertGreater(len(reference.search), 174)
        self.assertGreaterEqual(len(reference.events), 174)
        # NetBox's per-device invalidations (3 per device) coalesce into one pending render job; so do the writer's
        self.assertEqual(reference.jobs, Counter({'Render config context': 1}))
        self.assertSameApply(reference, bulk)

    def test_leaves_of_a_type_with_templates_bulk_equals_per_object(self):
        """Leaves of a device type with component templates: Device.save() instantiates them (the writer leaves such
        devices to it), and the apply takes the templated management port over; the servers and spines (generic
        types) go in bulk."""
        manufacturer = Manufacturer.objects.create(name='Arista', slug='arista')
        device_type = DeviceType.objects.create(manufacturer=manufacturer, model='7050SX3', slug='7050sx3')
        InterfaceTemplate.objects.create(device_type=device_type, name='Management1', type='1000base-t', mgmt_only=True)
        ConsolePortTemplate.objects.create(device_type=device_type, name='Console')
        Fabric.objects.filter(pk=self.fabric.pk).update(leaf_device_type=device_type)
        reference = record_apply(self.fabric, self.user, per_object)
        self.assertIn('dcim.consoleport owned:device:ai-lab-fabric-leaf1|Console', reference.objects)  # instantiated
        self.assertIn('dcim.interface owned:interface:ai-lab-fabric-leaf1:Management1', reference.objects)  # taken over
        self.assertSameApply(reference, record_apply(self.fabric, self.user, apply_fabric))

    @pytest.mark.slow
    def test_fabric_m_bulk_equals_per_object(self):
        """The demo fabric grown to M's shape (4 spines, 16 leaves in MLAG pairs, 128 GPU servers): minutes."""
        peer_pool = Prefix.objects.create(prefix='10.254.3.0/27', status='container')  # 15 peer links' room
        Fabric.objects.filter(pk=self.fabric.pk).update(**M_SHAPE, mlag_peer_pool=peer_pool)
        self.fabric.refresh_from_db()
        # the fabric's nodes follow its new shape before the two applies: the node sync is not the writer's (and the
        # first run's node deletion was seen by it alone: a difference outside what the oracle compares the writer on)
        self.fabric.sync_nodes()
        reference = record_apply(self.fabric, self.user, per_object)
        self.assertGreater(sum(key.startswith('netbox_aifabric.ownedobject') for key in reference.objects), 2000)
        self.assertSameApply(reference, record_apply(self.fabric, self.user, apply_fabric))

    def test_the_oracle_sees_a_missing_side_effect(self):
        """An apply that loses the change log of one model is told apart, and the difference names it."""
        reference = record_apply(self.fabric, self.user, apply_fabric)
        addresses = ContentType.objects.get_for_model(IPAddress)

        def without_address_changes(fabric):
            apply_fabric(fabric)
            ObjectChange.objects.filter(changed_object_type=addresses).delete()

        lossy = record_apply(self.fabric, self.user, without_address_changes)
        diff = differences(reference, lossy, limit=1000)
        lines = diff.splitlines()
        self.assertEqual(len(lines), 34)  # the demo's 34 addresses (test_apply.py counts them)
        self.assertTrue(
            all(line.startswith("changes: only in the reference: ('create', 'ipam.ipaddress'") for line in lines)
        )
