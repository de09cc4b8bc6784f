"""One truth for an EVPN tenant's route targets: what the tenant shows (its page, the REST API) equals the route
targets of every switch context, before and after an apply; the tenant's own targets are read-only."""

import pytest
from django.urls import reverse

from dcim.models import Device
from ipam.models import RouteTarget
from users.constants import TOKEN_PREFIX
from users.models import Token
from utilities.testing import TestCase

from netbox_aifabric.apply.seed import load_demo
from netbox_aifabric.apply.service import request_apply
from netbox_aifabric.models import EVPNTenant, Fabric

pytestmark = pytest.mark.netbox


class TenantRouteTargetTestCase(TestCase):
    user_permissions = ['netbox_aifabric.view_evpntenant', 'netbox_aifabric.change_evpntenant']

    @classmethod
    def setUpTestData(cls):
        load_demo()
        cls.fabric = Fabric.objects.get(slug='ai-lab-fabric')
        cls.tenant = EVPNTenant.objects.get(slug='ai-cluster')

    def context_targets(self):
        """Every route target the fabric's switch contexts give this tenant's VRF."""
        targets = set()
        for device in Device.objects.filter(name__startswith=f'{self.fabric.slug}-'):
            context = (device.local_context_data or {}).get('aifabric') or {}
            targets |= {v['route_target'] for v in context.get('vrfs') or [] if v['tenant'] == self.tenant.name}
        return targets

    def shown_targets(self):
        response = self.client.get(self.tenant.get_absolute_url())
        self.assertHttpStatus(response, 200)
        return {
            ','.join(row['route_targets'])
            for row in response.context['planned_route_targets']
            if row['fabric'].pk == self.fabric.pk
        }

    def test_the_tenant_shows_what_every_switch_context_uses(self):
        # the demo seeds the tenant with 65100:50001, which the plan never used: the page shows the plan's value
        self.assertEqual({rt.name for rt in self.tenant.import_targets.all()}, {'65100:50001'})
        before = self.shown_targets()
        self.assertEqual(before, {f'{self.tenant.l3vni}:{self.tenant.l3vni}'})
        body = self.client.get(self.tenant.get_absolute_url()).content.decode()
        card = body[body.index('id="tenant-route-targets"') :].split('</table>')[0]
        self.assertIn(f'data-route-targets="{self.tenant.l3vni}:{self.tenant.l3vni}"', card)
        self.assertNotIn('65100:50001', card)  # (the VRF's route distinguisher elsewhere on the page is not a target)

        request_apply(self.fabric, self._superuser())
        contexts = self.context_targets()
        leaves = Device.objects.filter(name__startswith=f'{self.fabric.slug}-leaf').count()
        self.assertGreater(leaves, 0)
        self.assertEqual({','.join(sorted(contexts))}, before)
        # the apply wrote the plan's targets onto the tenant: its API and tables say the same
        self.tenant.refresh_from_db()
        self.assertEqual({rt.name for rt in self.tenant.import_targets.all()}, contexts)
        self.assertEqual({rt.name for rt in self.tenant.export_targets.all()}, contexts)
        self.assertEqual(self.shown_targets(), before)

    def test_the_targets_are_read_only(self):
        other = RouteTarget.objects.create(name='65000:999')
        token = Token.objects.create(user=self.user)
        header = {'HTTP_AUTHORIZATION': f'Bearer {TOKEN_PREFIX}{token.key}.{token.token}'}
        url = reverse('plugins-api:netbox_aifabric-api:evpntenant-detail', kwargs={'pk': self.tenant.pk})
        stored = {rt.pk for rt in self.tenant.import_targets.all()}
        response = self.client.patch(
            url, {'import_targets': [other.pk], 'export_targets': [other.pk]}, content_type='application/json', **header
        )
        # the read-only targets were silently ignored (200); now a 400 names each, and nothing changes
        self.assertHttpStatus(response, 400)
        self.assertEqual(set(response.data), {'import_targets', 'export_targets'})
        self.assertEqual({rt.pk for rt in self.tenant.import_targets.all()}, stored)
        edit = self.client.get(reverse('plugins:netbox_aifabric:evpntenant_edit', kwargs={'pk': self.tenant.pk}))
        self.assertNotContains(edit, 'name="import_targets"')

    def _superuser(self):
        from users.models import User

        return User.objects.create_user(username='rt-admin', is_superuser=True)
