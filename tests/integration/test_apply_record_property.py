"""A property of the apply's record: whatever sequence of applies and edits runs, edits saved from
instances loaded at any earlier moment (a form or PATCH opened before an apply and saved after it) included, no
allocation an apply recorded ever changes or goes (nothing here releases), and the fabric stays applied."""

import hypothesis.extra.django
import pytest
from django.db import transaction
from hypothesis import HealthCheck, example, given
from hypothesis import settings as hypothesis_settings
from hypothesis import strategies as st

from netbox_aifabric.apply.lifecycle import after_apply
from netbox_aifabric.apply.seed import load_demo
from netbox_aifabric.apply.writes import apply_fabric
from netbox_aifabric.models import Fabric
from tests.hypothesis_profiles import examples

pytestmark = pytest.mark.netbox

# ('apply',), ('load',): keep an instance as loaded now; ('edit', i, field): save the i-th kept instance (modulo)
# with one intent field changed; ('grow',): a fresh instance with room for one more spine
STEPS = st.lists(
    st.one_of(
        st.just(('apply',)),
        st.just(('load',)),
        st.just(('grow',)),
        st.tuples(st.just('edit'), st.integers(0, 5), st.sampled_from(['description', 'comments', 'bfd', 'status'])),
    ),
    min_size=1,
    max_size=6,
)


class ApplyRecordPropertyTestCase(hypothesis.extra.django.TestCase):
    @classmethod
    def setUpTestData(cls):
        load_demo()
        cls.pk = Fabric.objects.get(slug='ai-lab-fabric').pk

    def _apply(self):
        fabric = Fabric.objects.get(pk=self.pk)
        with transaction.atomic():
            plan, changes = apply_fabric(fabric)
            after_apply(fabric, plan, None, changes)
        return dict(plan.allocations)

    @staticmethod
    def _edit(fabric, field, n):
        fabric.snapshot()
        if field == 'bfd':
            fabric.bfd = not fabric.bfd
        elif field == 'status':
            fabric.status = 'active'  # the operator's: an edited status is kept
        else:
            setattr(fabric, field, f'edit {n}')
        fabric.save()

    @hypothesis_settings(
        max_examples=examples(12), deadline=None, database=None, suppress_health_check=list(HealthCheck)
    )
    @given(steps=STEPS)
    # the two cases the property is about, always run (random sequences found them in only some runs: a plan that
    # ignored the record passed 12 random examples): an edit from an instance loaded before the apply, and growth
    # after an apply (unpinned, raising max_spines moves every leaf's /31s)
    @example(steps=[('apply',), ('edit', 0, 'description')])
    @example(steps=[('apply',), ('grow',), ('apply',)])
    def test_no_sequence_of_applies_and_edits_changes_an_applied_allocation(self, steps):
        recorded, kept = {}, [Fabric.objects.get(pk=self.pk)]
        for n, step in enumerate(steps):
            if step[0] == 'apply':
                allocations = self._apply()
                assert {k: allocations.get(k) for k in recorded} == recorded  # the plan honoured every pin
                recorded.update(allocations)
            elif step[0] == 'load':
                kept.append(Fabric.objects.get(pk=self.pk))
            elif step[0] == 'grow':
                fabric = Fabric.objects.get(pk=self.pk)
                if fabric.max_spines < 6:  # the demo's pools hold six
                    fabric.max_spines += 1
                    fabric.save()
            else:
                self._edit(kept[step[1] % len(kept)], step[2], n)
            stored = Fabric.objects.get(pk=self.pk)
            assert {k: stored.applied_pins().get(k) for k in recorded} == recorded, step
            if recorded:
                assert stored.status in ('applied', 'active') and stored.last_applied is not None, step
