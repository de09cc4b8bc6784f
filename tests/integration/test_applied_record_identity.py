"""The apply's record (``Fabric.applied_allocations``) carries its fabric's identity, and a record that reaches another
fabric is refused with a named error, nothing written. Each way a record can move between fabrics is tried: a copy
in the database (a shell, a script or a restore: ``QuerySet.update``), the Python copy idiom (``pk = None; save()``),
a save naming the field, a REST create or edit carrying it, a REST copy (a GET body posted back) and the UI's clone
and CSV import (neither carries it)."""

import json

import pytest
from django.db import transaction
from django.test import TestCase

from dcim.models import Device
from ipam.models import Prefix
from utilities.exceptions import AbortRequest
from utilities.testing import APITestCase

from netbox_aifabric.apply.diff import diff_fabric
from netbox_aifabric.apply.lifecycle import after_apply
from netbox_aifabric.apply.seed import load_demo
from netbox_aifabric.apply.writes import apply_fabric
from netbox_aifabric.forms import FabricForm, FabricImportForm
from netbox_aifabric.intake.validation import plan_errors
from netbox_aifabric.models import Fabric, OwnedObject
from netbox_aifabric.planner import SpecError
from tests.integration.base import OWN_POOLS

pytestmark = pytest.mark.netbox

API = '/api/plugins/aifabric/fabrics/'


def _applied_demo():
    """The demo fabric, applied (its record stamped), and a second fabric without pools (nothing of its own)."""
    load_demo()
    fabric = Fabric.objects.get(slug='ai-lab-fabric')
    with transaction.atomic():
        plan, changes = apply_fabric(fabric)
        after_apply(fabric, plan, None, changes)
    other = Fabric.objects.get(pk=fabric.pk)
    other.pk = other.id = None
    other.name, other.slug, other.applied_allocations = 'Other', 'other', {}
    for field in ('loopback_pool', 'vtep_pool', 'p2p_pool', 'mlag_peer_pool', 'management_pool'):
        setattr(other, field, None)
    other.save()
    return Fabric.objects.get(pk=fabric.pk), Fabric.objects.get(pk=other.pk)


def _written():
    return Device.objects.count(), OwnedObject.objects.count(), Fabric.objects.count()


class AppliedRecordIdentityTestCase(TestCase):
    @classmethod
    def setUpTestData(cls):
        cls.fabric, cls.other = _applied_demo()

    def test_the_record_names_its_fabric(self):
        record = self.fabric.applied_allocations
        self.assertEqual((record['fabric_id'], record['fabric']), (self.fabric.pk, self.fabric.slug))
        self.assertEqual(self.fabric.applied_pins(), record['allocations'])
        self.assertTrue(record['allocations'])  # not vacuous

    def test_a_record_copied_in_the_database_is_refused_by_plan_apply_and_clean(self):
        Fabric.objects.filter(pk=self.other.pk).update(applied_allocations=self.fabric.applied_allocations)
        other = Fabric.objects.get(pk=self.other.pk)
        before = _written()
        for what, call in (('plan', diff_fabric), ('apply', apply_fabric)):
            with self.subTest(what), self.assertRaises(SpecError) as caught:
                call(other)
            self.assertEqual(caught.exception.field, 'applied_allocations')
            self.assertIn(f'"{self.fabric.slug}" (id {self.fabric.pk})', caught.exception.message)
        self.assertEqual(_written(), before)
        self.assertIn('ai-lab-fabric', ' '.join(plan_errors(other).values()))  # an edit's clean names it too

    def test_an_unstamped_record_copied_in_is_refused_too(self):
        """Another fabric's bare allocations (an older record, a backup of one): no stamp names its fabric, and every
        apply and migration 0019 stamp theirs, so it is refused as copied in, even on its own fabric."""
        bare = self.fabric.applied_allocations['allocations']
        for target in (self.other, self.fabric):
            with self.subTest(target.slug):
                Fabric.objects.filter(pk=target.pk).update(applied_allocations=bare)
                fabric = Fabric.objects.get(pk=target.pk)
                before = _written()
                for call in (diff_fabric, apply_fabric):
                    with self.assertRaises(SpecError) as caught:
                        call(fabric)
                    self.assertEqual(caught.exception.field, 'applied_allocations')
                    self.assertIn('carry no fabric stamp', caught.exception.message)
                self.assertEqual(_written(), before)

    def test_migration_0019_stamps_each_record_with_its_own_fabric(self):
        from importlib import import_module

        from django.apps import apps

        migration = import_module('netbox_aifabric.migrations.0019_stamp_applied_records')
        stamped = self.fabric.applied_allocations
        Fabric.objects.filter(pk=self.fabric.pk).update(applied_allocations=stamped['allocations'])
        migration.stamp(apps, None)
        self.assertEqual(Fabric.objects.get(pk=self.fabric.pk).applied_allocations, stamped)
        self.assertEqual(Fabric.objects.get(pk=self.other.pk).applied_allocations, {})  # nothing to stamp
        migration.stamp(apps, None)  # twice: a stamped record stays as it is
        self.assertEqual(Fabric.objects.get(pk=self.fabric.pk).applied_allocations, stamped)
        migration.unstamp(apps, None)
        self.assertEqual(Fabric.objects.get(pk=self.fabric.pk).applied_allocations, stamped['allocations'])

    def test_the_python_copy_of_an_applied_fabric_is_refused(self):
        copy = Fabric.objects.get(pk=self.fabric.pk)
        copy.pk = copy.id = None
        copy.name, copy.slug = 'Copy', 'copy'
        for field in ('loopback_pool', 'vtep_pool', 'p2p_pool', 'mlag_peer_pool', 'management_pool'):
            setattr(copy, field, None)  # so the shared pools are not what refuses it
        before = _written()
        with self.assertRaisesRegex(AbortRequest, 'applied_allocations'):
            copy.save()
        self.assertEqual(_written(), before)
        copy.applied_allocations = {}  # control: the same copy without the record is saved
        copy.save()
        self.assertEqual(Fabric.objects.get(slug='copy').applied_allocations, {})

    def test_a_save_naming_the_field_with_another_fabrics_record_is_refused(self):
        for record in (self.fabric.applied_allocations, self.fabric.applied_allocations['allocations']):
            with self.subTest(stamped='fabric_id' in record):
                other = Fabric.objects.get(pk=self.other.pk)
                other.applied_allocations = record
                with self.assertRaisesRegex(AbortRequest, 'not of "other"' if 'fabric_id' in record else 'unstamped'):
                    other.save(update_fields=['applied_allocations'])
                self.assertEqual(Fabric.objects.get(pk=self.other.pk).applied_allocations, {})
        own = Fabric.objects.get(pk=self.fabric.pk)  # control: a fabric saving its own record
        own.save(update_fields=['applied_allocations'])

    def test_the_ui_clone_and_the_csv_import_carry_no_record(self):
        self.assertNotIn('applied_allocations', Fabric.clone_fields)
        self.assertNotIn('applied_allocations', self.fabric.clone())
        self.assertNotIn('applied_allocations', FabricForm().fields)
        self.assertNotIn('applied_allocations', FabricImportForm().fields)


class AppliedRecordOverRestTestCase(APITestCase):
    @classmethod
    def setUpTestData(cls):
        cls.fabric, cls.other = _applied_demo()

    def setUp(self):
        super().setUp()
        self.user.is_superuser = True
        self.user.save()

    def send(self, method, url, body):
        return getattr(self.client, method)(url, data=json.dumps(body), content_type='application/json', **self.header)

    def test_a_rest_write_carrying_a_record_is_a_400_and_writes_nothing(self):
        record = self.fabric.applied_allocations
        for method, url, body in (
            ('patch', f'{API}{self.other.pk}/', {'applied_allocations': record}),
            (
                'post',
                API,
                {'name': 'Posted', 'slug': 'posted', 'site': self.fabric.site_id, 'applied_allocations': record},
            ),
        ):
            with self.subTest(method):
                before = _written()
                response = self.send(method, url, body)
                self.assertEqual(response.status_code, 400, response.content)
                self.assertIn('applied_allocations', response.json())
                self.assertEqual(_written(), before)
        self.assertEqual(Fabric.objects.get(pk=self.other.pk).applied_allocations, {})

    def test_a_rest_copy_of_an_applied_fabric_starts_without_a_record(self):
        body = self.client.get(f'{API}{self.fabric.pk}/', **self.header).json()
        self.assertNotIn('applied_allocations', body)  # the record is not part of the representation
        pools = {  # a fabric the planner accepts (save refuses any other): pools of its own, the demo's ASNs
            field: Prefix.objects.create(prefix=f'10.150.{4 * i}.0/{length}').pk
            for i, (field, length) in enumerate(OWN_POOLS)
        }
        asns = {'leaf_asn_range': self.fabric.leaf_asn_range_id, 'spine_asn': self.fabric.spine_asn}
        posted = {'name': 'Posted', 'slug': 'posted', 'site': self.fabric.site_id, **pools, **asns}
        response = self.send('post', API, posted)
        self.assertEqual(response.status_code, 201, response.content)
        self.assertEqual(Fabric.objects.get(slug='posted').applied_allocations, {})
