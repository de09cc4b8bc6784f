"""The wizard creates only the pools a design numbers from (an MLAG or routed fabric got a VTEP pool,
0 used): the VTEP pool for EVPN/VXLAN only, whatever the pools step was given, and the pools step proposes none
outside it. Which pools: the planner's rule (``required_inputs`` at the fabric's maximums), not a list here."""

import pytest
from django.urls import reverse

from ipam.models import Prefix

from netbox_aifabric.models import Fabric
from netbox_aifabric.planner.requirements import required_inputs
from tests.integration.test_wizard import WizardBase, url

pytestmark = pytest.mark.netbox

POOL_FIELDS = {'pools.loopback': 'loopback_pool', 'pools.p2p': 'p2p_pool', 'pools.vtep': 'vtep_pool'}
POOL_FIELDS['pools.mlag_peer'] = 'mlag_peer_pool'


def design_pool_fields(design, underlay, pairing, max_spines, max_leaves):
    """The pool fields a design uses grown to its maximums, from the planner's features of the design."""
    needed = required_inputs(
        spines=max_spines,
        max_spines=max_spines,
        evpn=design == 'evpn-vxlan',
        mlag_pairs=pairing != 'evpn-mh' and max_leaves >= 2,
        underlay=underlay,
    )
    return {field for name, field in POOL_FIELDS.items() if name in needed}


class WizardPoolsPerDesignTestCase(WizardBase):
    CASES = (
        ('evpn-vxlan', 'ebgp', 'mlag'),
        ('evpn-vxlan', 'ebgp', 'evpn-mh'),
        ('mlag', 'ebgp', 'mlag'),
        ('routed', 'ebgp', 'mlag'),
        ('routed', 'ebgp-unnumbered', 'mlag'),
    )

    def test_the_fabric_gets_the_pools_of_its_design(self):
        pools = self.steps['pools']
        for design, underlay, pairing in self.CASES:
            with self.subTest(design=design, underlay=underlay, pairing=pairing):
                self.client.get(f'{url("design")}&reset=1')
                slug = f'pools-{design}-{underlay}-{pairing}'
                changes = {
                    'design': {'design_option': design, 'underlay': underlay, 'leaf_pairing': pairing, 'slug': slug,
                               'name': slug},
                }  # fmt: skip
                if pairing == 'evpn-mh':
                    changes['pools'] = {'mlag_peer_pool': ''}  # refused as a pool the pairing does not use
                self.walk(**changes)
                response = self.client.post(url('preview'), {'_create': '1'})
                self.assertEqual(response.status_code, 302)
                fabric = Fabric.objects.get(slug=slug)
                topology = self.steps['topology']
                expected = design_pool_fields(design, underlay, pairing, topology['max_spines'], topology['max_leaves'])
                given = {field for field in POOL_FIELDS.values() if getattr(fabric, field) is not None}
                self.assertEqual(given, expected)
                self.assertEqual(fabric.vtep_pool is not None, design == 'evpn-vxlan')
                # and no prefix was written for a pool the design does not use
                for field in set(POOL_FIELDS.values()) - expected:
                    created = Prefix.objects.filter(prefix=pools[field]).exists()
                    self.assertFalse(created, f'{design}: a prefix for {field}')
                # the plan of the new fabric holds the same pools
                response = self.client.get(reverse('plugins:netbox_aifabric:fabric_plan', kwargs={'pk': fabric.pk}))
                plan_pools = {p.name for p in response.context['plan'].pools}
                self.assertEqual('vtep' in plan_pools, design == 'evpn-vxlan')
                fabric.delete()
                Prefix.objects.filter(prefix__in=list(pools[f] for f in POOL_FIELDS.values())).delete()

    def test_the_pools_step_proposes_no_vtep_pool_outside_evpn(self):
        for design in ('evpn-vxlan', 'mlag', 'routed'):
            with self.subTest(design=design):
                self.client.get(f'{url("design")}&reset=1')
                self.walk(until='topology', design={'design_option': design})
                form = self.client.get(url('pools')).context['form']
                self.assertEqual(bool(form.initial.get('vtep_pool')), design == 'evpn-vxlan')
