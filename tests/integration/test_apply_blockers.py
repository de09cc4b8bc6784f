"""Plan errors block the apply, warnings do not: a plan warning that breaks one of the guide's hard rules
(``apply/service.py`` BLOCKING_WARNINGS) disables Apply on the Plan tab and in the wizard with the reason at the top,
and the UI, the wizard and the REST apply refuse it with the same named error, writing nothing. The other warnings
(oversubscription here) leave Apply enabled."""

from decimal import Decimal

import pytest
from django.contrib.messages import get_messages
from django.urls import reverse

from dcim.models import Device
from users.constants import TOKEN_PREFIX
from users.models import Token
from utilities.testing import TestCase

from netbox_aifabric.apply.lifecycle import BLOCKING_WARNINGS, PlanBlockedError, apply_blockers
from netbox_aifabric.apply.seed import load_demo
from netbox_aifabric.apply.service import request_apply
from netbox_aifabric.intake.plan import plan_of
from netbox_aifabric.models import Fabric, TrafficClass
from tests.integration.test_wizard import WizardBase, url

pytestmark = pytest.mark.netbox


def routed_across_racks():
    """The demo fabric as the routed design with two racks (leaf pairs) and a GPU server in each: its classes that
    are not routed (RDMA) span both racks, which cannot work without a shared L2."""
    fabric = Fabric.objects.get(slug='ai-lab-fabric')
    Fabric.objects.filter(pk=fabric.pk).update(design_option='routed', leaf_count=4, server_count=5)
    fabric.refresh_from_db()
    fabric.tenants.clear()
    fabric.sync_nodes()
    fabric.nodes.filter(role='gpu', node_id=5).update(pair=2)
    return fabric


class BlockedApplyTestCase(TestCase):
    user_permissions = ['netbox_aifabric.view_fabric', 'netbox_aifabric.apply_fabric']

    @classmethod
    def setUpTestData(cls):
        load_demo()
        cls.fabric = routed_across_racks()
        cls.unrouted = [tc for tc in cls.fabric.traffic_classes.order_by('vid') if not tc.routed]

    def plan_url(self):
        return reverse('plugins:netbox_aifabric:fabric_plan', kwargs={'pk': self.fabric.pk})

    def test_the_blockers_are_the_unrouted_classes(self):
        self.assertTrue(self.unrouted)  # the demo's RDMA class is not routed
        blockers = apply_blockers(plan_of(self.fabric))
        self.assertEqual([b.field.split('.')[-1] for b in blockers], ['routed'] * len(self.unrouted))
        self.assertEqual(
            [b.message.split(' is not routed')[0] for b in blockers], [f'{tc} (VLAN {tc.vid})' for tc in self.unrouted]
        )
        self.assertTrue({b.code for b in blockers} <= BLOCKING_WARNINGS)

    def test_plan_tab_disables_apply_with_the_reason_at_the_top(self):
        Fabric.objects.filter(pk=self.fabric.pk).update(oversubscription_target=Decimal('1.01'))
        response = self.client.get(self.plan_url())
        self.assertHttpStatus(response, 200)
        body = response.content.decode()
        self.assertIn('id="apply-blockers"', body)
        self.assertLess(body.index('id="apply-blockers"'), body.index('Changes an apply would make'))
        self.assertRegex(body, r'id="apply-button"\s+disabled')
        for tc in self.unrouted:
            self.assertIn(f'{tc} (VLAN {tc.vid}) is not routed', body)
        # the blocker is shown once, as a blocker; the plain warning stays a warning
        self.assertEqual(body.count('data-warning-code="unrouted-class-across-racks"'), len(self.unrouted))
        self.assertIn('data-warning-code="oversubscription"', body)

    def test_ui_apply_refuses_and_writes_nothing(self):
        devices = Device.objects.count()
        url = reverse('plugins:netbox_aifabric:fabric_apply', kwargs={'pk': self.fabric.pk})
        response = self.client.post(url, {})
        self.assertRedirects(response, self.plan_url(), fetch_redirect_response=False)
        text = [str(m) for m in get_messages(response.wsgi_request)]
        self.assertEqual(len(text), 1)
        self.assertIn('the apply is blocked (unrouted-class-across-racks)', text[0])
        self.assertEqual(Device.objects.count(), devices)
        self.assertEqual(self.fabric.owned_objects.count(), 0)

    def test_api_apply_refuses_with_the_same_named_error(self):
        with self.assertRaises(PlanBlockedError) as raised:
            request_apply(self.fabric, self.user)
        token = Token.objects.create(user=self.user)
        header = {'HTTP_AUTHORIZATION': f'Bearer {TOKEN_PREFIX}{token.key}.{token.token}'}
        api = reverse('plugins-api:netbox_aifabric-api:fabric-apply', kwargs={'pk': self.fabric.pk})
        devices = Device.objects.count()
        response = self.client.post(api, {}, content_type='application/json', **header)
        self.assertHttpStatus(response, 400)
        self.assertEqual(response.json(), {raised.exception.field: [raised.exception.message]})
        self.assertEqual(Device.objects.count(), devices)

    def test_warnings_alone_do_not_block(self):
        # negative control: the classes routed, only the oversubscription warning is left
        TrafficClass.objects.filter(pk__in=[tc.pk for tc in self.unrouted]).update(routed=True)
        Fabric.objects.filter(pk=self.fabric.pk).update(oversubscription_target=Decimal('1.01'))
        self.fabric.refresh_from_db()
        plan = plan_of(self.fabric)
        self.assertEqual(apply_blockers(plan), [])
        self.assertIn('oversubscription', {w.code for w in plan.warnings})
        body = self.client.get(self.plan_url()).content.decode()
        self.assertNotIn('id="apply-blockers"', body)
        self.assertNotRegex(body, r'id="apply-button"\s+disabled')


class WizardBlockedApplyTestCase(WizardBase):
    """The wizard's preview shows the blocker and no enabled "Create and apply"; "Create fabric" still works."""

    def walk_routed_across_racks(self):
        # 4 leaves (two racks) and more GPU servers than one leaf pair takes: the servers span both racks
        return self.walk(
            design={'design_option': 'routed'},
            topology={'leaf_count': 4, 'server_count': 41},
            pools={'vtep_pool': ''},
            intent={'tenants': []},
        )

    def test_preview_blocks_and_apply_writes_nothing(self):
        response = self.walk_routed_across_racks()
        self.assertRedirects(response, url('preview'), fetch_redirect_response=False)
        response = self.client.get(url('preview'))
        self.assertContains(response, 'id="apply-blockers"')
        self.assertRegex(response.content.decode(), r'id="apply-button"\s+disabled')
        self.assertTrue(response.context['apply_blockers'])

        devices = Device.objects.count()
        response = self.client.post(url('preview'), {'_apply': '1'})
        self.assertRedirects(response, url('preview'), fetch_redirect_response=False)
        self.assertFalse(Fabric.objects.filter(slug='wizard-cluster').exists())
        self.assertEqual(Device.objects.count(), devices)

        response = self.client.post(url('preview'), {'_create': '1'})
        self.assertTrue(Fabric.objects.filter(slug='wizard-cluster').exists())
