"""The wizard's pools step is checked by the planner with nothing left for later (save refuses what the
planner refuses, a draft too): a pool or ASN the design needs and the step left empty is named at its field there,
not met later at the create (which would send the user back to a step that showed no error)."""

import pytest

from netbox_aifabric.models import Fabric
from tests.integration import test_wizard

pytestmark = pytest.mark.netbox


class WizardPoolsStepTestCase(test_wizard.WizardBase):
    def test_an_evpn_ospf_fabric_without_a_spine_asn_is_named_at_the_pools_step(self):
        # the planner's rule (required_inputs): EVPN/VXLAN with spines needs a spine ASN over OSPF too (the eBGP
        # overlay's spine AS); the wizard says it in its words
        response = self.walk(until='pools', design={'underlay': 'ospf'}, pools={'spine_asn': ''})
        self.assertEqual(response.status_code, 200)
        errors = response.context['form'].errors
        self.assertEqual(errors['spine_asn'], ['The underlay or the EVPN overlay needs a spine ASN.'])
        self.assertFalse(Fabric.objects.filter(slug='wizard-cluster').exists())

    def test_a_pool_the_step_left_empty_has_one_message(self):
        # the wizard's own message and the planner's name the same missing pool: the step shows one
        response = self.walk(until='pools', pools={'mlag_peer_pool': ''})
        self.assertEqual(response.status_code, 200)
        self.assertEqual(len(response.context['form'].errors['mlag_peer_pool']), 1)
