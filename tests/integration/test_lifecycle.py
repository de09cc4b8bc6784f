"""The fabric lifecycle (draft -> applied -> drifted, with when, who, which plan and which change-log request), and
contexts that change on apply, not on an edit of the intent: an edit marks a pending change; the refresh that is
still needed (a class's prefix or VLAN edited) runs once per fabric and transaction, on commit."""

from unittest import mock

import pytest
from django.db import transaction
from django.urls import reverse

from core.models import ObjectChange
from dcim.models import Device
from users.constants import TOKEN_PREFIX
from users.models import Token
from utilities.testing import TestCase

from netbox_aifabric.apply.lifecycle import plan_hash
from netbox_aifabric.apply.seed import load_demo
from netbox_aifabric.apply.writes import apply_fabric
from netbox_aifabric.intake import plan as stored_plans
from netbox_aifabric.intake.plan import plan_of
from netbox_aifabric.models import Fabric, QoSProfile, TrafficClass

pytestmark = pytest.mark.netbox


class LifecycleBase(TestCase):
    user_permissions = []

    @classmethod
    def setUpTestData(cls):
        load_demo()
        cls.fabric = Fabric.objects.get(slug='ai-lab-fabric')

    def setUp(self):
        super().setUp()
        self.user.is_superuser = True
        self.user.save()
        token = Token.objects.create(user=self.user)
        self.header = {'HTTP_AUTHORIZATION': f'Bearer {TOKEN_PREFIX}{token.key}.{token.token}'}

    def api(self, action, **data):
        url = reverse(f'plugins-api:netbox_aifabric-api:fabric-{action}', kwargs={'pk': self.fabric.pk})
        return self.client.post(url, data, content_type='application/json', **self.header)

    def contexts(self, role):
        return {
            d.name: d.local_context_data['aifabric']
            for d in Device.objects.filter(name__startswith=f'{self.fabric.slug}-{role}')
        }


class ApplyLifecycleTestCase(LifecycleBase):
    def test_an_apply_records_status_time_user_plan_and_request(self):
        self.assertEqual((self.fabric.status, self.fabric.last_applied), ('draft', None))
        response = self.api('apply')
        self.assertHttpStatus(response, 200)
        self.fabric.refresh_from_db()
        self.assertEqual(self.fabric.status, 'applied')
        self.assertIsNotNone(self.fabric.last_applied)
        self.assertEqual(self.fabric.last_applied_by, self.user)
        self.assertEqual(self.fabric.last_plan_hash, plan_hash(plan_of(self.fabric)))
        self.assertFalse(self.fabric.pending_change)
        # every change of the apply carries the recorded request id: the devices it created among them
        created = ObjectChange.objects.filter(request_id=self.fabric.last_apply_request_id, action='create')
        devices = Device.objects.filter(name__startswith=f'{self.fabric.slug}-').count()
        self.assertEqual(created.filter(changed_object_type__model='device').count(), devices)
        # the fabric's own change log holds the apply (its lifecycle update, in the same request)
        fabric_changes = ObjectChange.objects.filter(
            changed_object_id=self.fabric.pk, changed_object_type__model='fabric'
        )
        self.assertTrue(fabric_changes.filter(request_id=self.fabric.last_apply_request_id).exists())
        page = self.client.get(self.fabric.get_absolute_url())
        self.assertContains(page, f'?request_id={self.fabric.last_apply_request_id}')
        # the fabric's changelog tab lists the apply's changes: a created device among them, with the request link
        changelog = reverse('plugins:netbox_aifabric:fabric_changelog', kwargs={'pk': self.fabric.pk})
        response = self.client.get(changelog)
        self.assertContains(response, f'?request_id={self.fabric.last_apply_request_id}')
        self.assertContains(response, f'{self.fabric.slug}-spine1')

    def test_drift_only_from_applied(self):
        self.assertFalse(self.fabric.mark_drifted())  # a draft has nothing to drift from
        self.api('apply')
        self.fabric.refresh_from_db()
        self.assertTrue(self.fabric.mark_drifted())
        self.fabric.refresh_from_db()
        self.assertEqual(self.fabric.status, 'drifted')
        self.assertFalse(self.fabric.pending_change)  # a lifecycle save is not an edit of the intent
        self.api('apply')  # an apply brings it back
        self.fabric.refresh_from_db()
        self.assertEqual(self.fabric.status, 'applied')


class PendingChangeTestCase(LifecycleBase):
    @classmethod
    def setUpTestData(cls):
        super().setUpTestData()
        apply_fabric(cls.fabric)

    def test_a_patch_of_the_leaf_count_leaves_the_spines_alone_until_the_apply(self):
        spines = self.contexts('spine')
        neighbours = {name: len(c['bgp']['neighbors']) for name, c in spines.items()}
        url = reverse('plugins-api:netbox_aifabric-api:fabric-detail', kwargs={'pk': self.fabric.pk})
        leaves = self.fabric.leaf_count + 2
        with self.captureOnCommitCallbacks(execute=True):
            response = self.client.patch(url, {'leaf_count': leaves}, content_type='application/json', **self.header)
        self.assertHttpStatus(response, 200)
        self.assertEqual(self.contexts('spine'), spines)  # untouched: no context peers with a leaf not there yet
        self.fabric.refresh_from_db()
        self.assertTrue(self.fabric.pending_change)
        plan_tab = reverse('plugins:netbox_aifabric:fabric_plan', kwargs={'pk': self.fabric.pk})
        self.assertContains(self.client.get(plan_tab), 'id="pending-change"')

        self.assertHttpStatus(self.api('apply'), 200)
        self.fabric.refresh_from_db()
        self.assertFalse(self.fabric.pending_change)
        after = self.contexts('spine')
        uplinks = self.fabric.uplinks_per_spine
        for name, count in neighbours.items():
            self.assertEqual(len(after[name]['bgp']['neighbors']), count + 2 * uplinks, name)

    def test_intent_edits_mark_pending_and_write_no_context(self):
        leaves = self.contexts('leaf')
        profile = QoSProfile.objects.get(fabrics=self.fabric)
        with self.captureOnCommitCallbacks(execute=True):
            profile.ecn_min_threshold = 123456
            profile.save()
            self.fabric.traffic_classes.remove(TrafficClass.objects.get(slug='mgmt'))
        self.assertEqual(self.contexts('leaf'), leaves)
        self.fabric.refresh_from_db()
        self.assertTrue(self.fabric.pending_change)
        apply_fabric(self.fabric)  # (the engine alone: the contexts follow, the lifecycle is the service's)
        self.assertEqual({c['qos']['ecn']['min_threshold'] for c in self.contexts('leaf').values()}, {123456})


class RefreshOnCommitTestCase(LifecycleBase):
    """A class's prefix edited: the contexts describe it, so they are refreshed, once per fabric on commit."""

    @classmethod
    def setUpTestData(cls):
        super().setUpTestData()
        apply_fabric(cls.fabric)

    def stale_leaf(self):
        leaf = Device.objects.filter(name__startswith=f'{self.fabric.slug}-leaf').order_by('name').first()
        stale = {**leaf.local_context_data, 'aifabric': {'stale': True}}
        Device.objects.filter(pk=leaf.pk).update(local_context_data=stale)
        return leaf

    def edit_prefixes(self):
        prefixes = [tc.prefix for tc in self.fabric.traffic_classes.filter(prefix__isnull=False)]
        self.assertGreaterEqual(len(prefixes), 2)
        with mock.patch.object(stored_plans, 'plan_fabric', wraps=stored_plans.plan_fabric) as planner:
            with self.captureOnCommitCallbacks(execute=True):
                with transaction.atomic():
                    for prefix in prefixes:
                        prefix.snapshot()
                        prefix.description = f'edited {prefix.pk}'
                        prefix.save()
        return len(prefixes), planner.call_count

    def test_n_edits_in_one_transaction_plan_once(self):
        leaf = self.stale_leaf()
        edits, plans = self.edit_prefixes()
        self.assertEqual(plans, 1, f'{edits} prefix edits')
        leaf.refresh_from_db()
        self.assertNotIn('stale', leaf.local_context_data['aifabric'])  # the refresh ran

    def test_no_refresh_while_a_change_is_pending(self):
        Fabric.objects.filter(pk=self.fabric.pk).update(pending_change=True)
        leaf = self.stale_leaf()
        _edits, plans = self.edit_prefixes()
        self.assertEqual(plans, 0)
        leaf.refresh_from_db()
        self.assertEqual(leaf.local_context_data['aifabric'], {'stale': True})
