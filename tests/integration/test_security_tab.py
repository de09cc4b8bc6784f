"""The fabric's Security tab: the guide's matrix as the rendered intent enforces it, the management plane, NetBox's
view permission (object constraints included), and a broken intent shown as a violation."""

import pytest
from django.urls import reverse

from core.models import ObjectType
from users.models import ObjectPermission
from utilities.testing import TestCase

from netbox_aifabric.apply.seed import load_demo
from netbox_aifabric.models import Fabric, TrafficClass

pytestmark = pytest.mark.netbox


class SecurityTabTestCase(TestCase):
    user_permissions = ['netbox_aifabric.view_fabric']

    @classmethod
    def setUpTestData(cls):
        load_demo()
        cls.fabric = Fabric.objects.get(slug='ai-lab-fabric')

    def url(self):
        return reverse('plugins:netbox_aifabric:fabric_security', kwargs={'pk': self.fabric.pk})

    def test_the_demo_matrix_is_enforced(self):
        response = self.client.get(self.url())
        self.assertHttpStatus(response, 200)
        self.assertContains(response, 'The rendered intent enforces the matrix')
        self.assertNotContains(response, 'reaches (denied!)')
        classes = self.fabric.traffic_classes.count()
        self.assertContains(response, '>blocked<', count=self._blocked_pairs())
        self.assertContains(response, 'text-secondary">—</td>', count=classes)  # the diagonal
        # every switch: its management address, only from the jump hosts
        self.assertContains(response, '192.0.2.16/28', count=self.fabric.spine_count + self.fabric.leaf_count)

    def _blocked_pairs(self):
        """Pairs neither may reach (from the intent), whatever the design: each is blocked by a VRF, an ACL or the
        lack of a gateway."""
        classes = list(self.fabric.traffic_classes.prefetch_related('reachable_from'))
        may = {(s.name, d.name) for d in classes for s in d.reachable_from.all()}
        return sum(
            1
            for s in classes
            for d in classes
            if s != d and (s.name, d.name) not in may and (d.name, s.name) not in may
        )

    def test_an_allowed_pair_in_one_vrf_reaches(self):
        """USERS allowed to reach STORAGE: the ACLs permit it, so the tab shows it reaching, not a violation."""
        storage, users = TrafficClass.objects.get(slug='storage'), TrafficClass.objects.get(slug='users')
        storage.reachable_from.add(users)
        response = self.client.get(self.url())
        self.assertContains(response, 'The rendered intent enforces the matrix')
        leaf1 = 'ai-lab-fabric-leaf1'
        reason = f'{leaf1}: STORAGE has its gateway on {leaf1} in VRF AI-CLUSTER; AIFABRIC-USERS-IN rule 10: permit'
        self.assertContains(response, f'<td class="table-success" title="{reason}">reaches</td>')

    def test_no_jump_host_subnet_is_flagged(self):
        Fabric.objects.filter(pk=self.fabric.pk).update(jump_host_prefix=None)
        response = self.client.get(self.url())
        self.assertContains(response, 'no jump-host subnet', count=self.fabric.spine_count + self.fabric.leaf_count)
        self.assertContains(response, 'any source')

    def test_view_permission_and_its_constraints(self):
        self.remove_permissions('netbox_aifabric.view_fabric')
        self.assertHttpStatus(self.client.get(self.url()), 403)
        permission = ObjectPermission(name='other fabric', actions=['view'], constraints={'slug': 'another'})
        permission.save()
        permission.object_types.add(ObjectType.objects.get_for_model(Fabric))
        permission.users.add(self.user)
        self.assertHttpStatus(self.client.get(self.url()), 404)
