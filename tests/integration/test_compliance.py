"""Compliance in NetBox: drift against the applied demo fabric (edited by hand, deleted by hand, a clean apply), the
Compliance tab, the REST action, the job and the report script, with NetBox's permissions."""

import uuid

from dcim.models import Interface
from ipam.models import IPAddress
from utilities.request import NetBoxFakeRequest, apply_request_processors
from utilities.testing import TestCase

from netbox_aifabric.apply.engine import apply_fabric
from netbox_aifabric.checks.compliance import run_compliance
from netbox_aifabric.models import Fabric
from netbox_aifabric.seed import load_demo

LEAF1 = 'ai-lab-fabric-leaf1'


def by_hand(user):
    """What a NetBox UI request does around an edit: the change log records it, by ``user``."""
    request = NetBoxFakeRequest(
        {
            'id': uuid.uuid4(),
            'user': user,
            'META': {},
            'COOKIES': {},
            'POST': {},
            'GET': {},
            'FILES': {},
            'method': 'POST',
            'path': '',
            'path_info': '',
        }
    )
    return apply_request_processors(request)


def failed(result):
    return {r.rule.id: r.findings for r in result.results if r.status not in ('pass',)}


class DriftTestCase(TestCase):
    @classmethod
    def setUpTestData(cls):
        load_demo()
        cls.fabric = Fabric.objects.get(slug='ai-lab-fabric')
        apply_fabric(cls.fabric)

    def test_a_clean_apply_has_no_findings(self):
        result = run_compliance(self.fabric)
        self.assertEqual(failed(result), {})
        self.assertEqual(result.context_source, 'devices')

    def uplink(self):
        context = Interface.objects.get(device__name=LEAF1, name='Loopback0').device.local_context_data['aifabric']
        port = next(p for p in context['interfaces'] if p['kind'] == 'uplink')
        return Interface.objects.get(device__name=LEAF1, name=port['name'])

    def test_an_mtu_edited_by_hand_is_drift_naming_the_interface_and_its_change(self):
        port = self.uplink()
        with by_hand(self.user):
            port.snapshot()
            port.mtu = 1500
            port.save()
        result = run_compliance(self.fabric)
        found = failed(result)
        self.assertEqual(list(found), ['drift-edited'])
        (finding,) = found['drift-edited']
        (obj,) = finding.objects
        self.assertEqual((obj.model, obj.device, obj.name, obj.pk), ('dcim.interface', LEAF1, port.name, port.pk))
        self.assertEqual((finding.expected, finding.found), ('mtu=9216', 'mtu=1500'))
        self.assertEqual(obj.url, port.get_absolute_url())
        self.assertEqual((obj.change['action'], obj.change['user']), ('update', self.user.username))
        # a re-apply fixes it
        apply_fabric(self.fabric)
        self.assertEqual(failed(run_compliance(self.fabric)), {})

    def test_a_cable_deleted_by_hand_is_missing_with_its_deletion(self):
        port = self.uplink()
        cable = port.cable
        cable_pk = cable.pk
        with by_hand(self.user):
            cable.snapshot()
            cable.delete()
        found = failed(run_compliance(self.fabric))
        self.assertEqual(list(found), ['drift-missing'])
        (finding,) = found['drift-missing']
        (obj,) = finding.objects
        self.assertEqual(
            (obj.model, obj.pk, obj.url, finding.found), ('dcim.cable', cable_pk, None, 'deleted from NetBox')
        )
        self.assertEqual(obj.change['action'], 'delete')
        apply_fabric(self.fabric)
        self.assertEqual(failed(run_compliance(self.fabric)), {})

    def test_a_vlan_removed_from_a_bond_and_an_address_changed(self):
        bond = Interface.objects.filter(device__name=LEAF1, type='lag', tagged_vlans__isnull=False).first()
        vlan = bond.tagged_vlans.first()
        address = IPAddress.objects.get(assigned_object_id=self.uplink().pk)
        with by_hand(self.user):
            bond.tagged_vlans.remove(vlan)
            address.snapshot()
            address.address = '10.99.99.1/31'
            address.save()
        found = failed(run_compliance(self.fabric))
        self.assertEqual(list(found), ['drift-edited'])
        edited = {f.objects[0].name: (f.expected, f.found) for f in found['drift-edited']}
        self.assertIn(bond.name, edited)
        self.assertIn('tagged_vlans=', edited[bond.name][0])
        self.assertNotIn(str(vlan), edited[bond.name][1])
        self.assertEqual(edited['10.99.99.1/31'][1], 'address=10.99.99.1/31')


class NotAppliedTestCase(TestCase):
    @classmethod
    def setUpTestData(cls):
        load_demo()
        cls.fabric = Fabric.objects.get(slug='ai-lab-fabric')

    def test_a_fabric_never_applied_is_checked_on_its_plan(self):
        result = run_compliance(self.fabric)
        self.assertEqual(result.context_source, 'plan')
        statuses = {r.rule.id: r.status for r in result.results}
        self.assertEqual(
            {k for k, v in statuses.items() if v != 'pass'}, {r for r in statuses if r.startswith('drift')}
        )
        self.assertEqual({statuses[r] for r in statuses if r.startswith('drift')}, {'skip'})
