"""Growth keeps every cable: apply a fabric; add GPU servers, a storage node, leaves and a spine, raise the maximum of
parallel uplinks and use them all; apply again.

Raising the parallel uplinks grows the generic leaf's uplink block over the ports of the peer link (and the blocks
after it): the ports the last apply cabled keep their use (``apply/spec._generic_leaf_blocks``), so nothing is
released and no cable moves.

The ports, LAG numbers and ESIs are pinned allocations now (stored with the last apply and fed back to the planner),
so no cable that existed before may move to another interface, and no interface may end up with two cables. The
expectations are derived by comparing NetBox before and after, never from the plan."""

import pytest
from django.db.models import Count
from django.test import TestCase

from dcim.models import Cable, CableTermination, Interface

from netbox_aifabric.apply.seed import load_demo
from netbox_aifabric.apply.writes import apply_fabric
from netbox_aifabric.models import Fabric

pytestmark = pytest.mark.netbox


def cabling():
    """``{cable id: {end: {interface id, …}}}`` of every cable, read from its terminations."""
    cables = {}
    for t in CableTermination.objects.all():
        cables.setdefault(t.cable_id, {}).setdefault(t.cable_end, set()).add(t.termination_id)
    return cables


def lags():
    """``{interface id: its LAG's name}`` of every LAG member: a server port must stay in its bond."""
    return dict(Interface.objects.filter(lag__isnull=False).values_list('pk', 'lag__name'))


class GrowthKeepsCablesTestCase(TestCase):
    @classmethod
    def setUpTestData(cls):
        load_demo()
        cls.fabric = Fabric.objects.get(slug='ai-lab-fabric')

    def grow(self, **design):
        Fabric.objects.filter(pk=self.fabric.pk).update(**design)
        self.fabric.refresh_from_db()
        apply_fabric(self.fabric)
        before, members = cabling(), lags()
        self.assertTrue(before)

        fabric = Fabric.objects.get(pk=self.fabric.pk)
        fabric.snapshot()
        fabric.server_count += 8
        fabric.storage_count += 1
        fabric.max_parallel_uplinks += 1  # grows the uplinks over the peer link's ports: they keep their use
        fabric.uplinks_per_spine = fabric.max_parallel_uplinks
        fabric.leaf_count += 2
        fabric.spine_count += 1
        fabric.full_clean()
        fabric.save()
        plan, changes = apply_fabric(fabric)
        self.assertFalse([c for c in changes if c.action in ('conflict', 'delete')])
        # no block moved under a cabled port: nothing to release (a released pin would move its cable)
        self.assertEqual([w.field for w in plan.warnings if w.code == 'released-pin'], [])

        after = cabling()
        moved = {pk: (ends, after.get(pk)) for pk, ends in before.items() if after.get(pk) != ends}
        self.assertEqual(moved, {}, 'cables that existed before must connect the same interfaces')
        self.assertGreater(len(after), len(before))  # the growth was cabled
        doubled = (
            CableTermination.objects.values('termination_type', 'termination_id')
            .annotate(n=Count('pk'))
            .filter(n__gt=1)
        )
        self.assertEqual(list(doubled), [])
        self.assertEqual(Cable.objects.count(), len(after))
        now = lags()
        self.assertEqual({pk: now.get(pk) for pk in members}, members, 'LAG members must stay in their bonds')
        # a second apply of the grown fabric changes nothing
        _plan, changes = apply_fabric(fabric)
        self.assertEqual({c.action for c in changes}, {'keep'})

    def test_evpn_vxlan_mlag(self):
        self.grow()

    def test_evpn_multihoming(self):
        self.grow(leaf_pairing='evpn-mh')

    def test_routed(self):
        self.fabric.tenants.clear()
        self.grow(design_option='routed')

    def test_mlag(self):
        self.fabric.tenants.clear()
        self.grow(design_option='mlag')
