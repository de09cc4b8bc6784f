"""Property: arbitrary values of the compliance retention settings (``compliance_retention_days``,
``compliance_retention_runs``: ``checks/retention.py``) are either a limit (a whole number ≥ 0, or None; 0 and None:
no limit) or refused by name (``ImproperlyConfigured`` naming the setting), wherever they are read: ``retention()``,
the plugin's start (``schedule_compliance``, which NetBox calls from ``ready()``), the pruning (``prune_runs``) and
storing a run (``record_run``, which prunes its fabric). Refused, nothing is written and nothing deleted; accepted,
exactly the runs the settings let go are deleted (an oracle written from the docs: the latest run of each fabric always
stays; a run goes when it is older than the days or beyond the newest ``runs`` of its fabric)."""

import copy
from datetime import timedelta

import pytest
from django.conf import settings as django_settings
from django.core.exceptions import ImproperlyConfigured
from django.test import override_settings
from django.utils import timezone
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st
from hypothesis.extra.django import TestCase as HypothesisTestCase

from netbox_aifabric.checks.compliance import run_compliance
from netbox_aifabric.checks.job import schedule_compliance
from netbox_aifabric.checks.retention import DAYS, RUNS, prune_runs, retention
from netbox_aifabric.checks.runs import record_run
from netbox_aifabric.models import ComplianceFinding, ComplianceRun, Fabric
from tests.hypothesis_profiles import examples
from tests.integration.base import FABRIC_SHAPE, make_world, own_pools

pytestmark = pytest.mark.netbox

LIMITS = st.one_of(st.none(), st.integers(min_value=0, max_value=400))
ANY_VALUE = st.one_of(
    st.none(),
    st.integers(min_value=-3, max_value=400),
    st.integers(min_value=-(2**70), max_value=2**70),
    st.booleans(),  # bool is an int to Python, not a number of days
    st.floats(allow_nan=True, allow_infinity=True),
    st.sampled_from(['', '5', '0', '30 days', 'None', '٣']),
    st.text(max_size=4),
    st.lists(st.integers(), max_size=2),
    st.dictionaries(st.text(max_size=2), st.integers(), max_size=1),
)
# a limit two times in three, so that both settings are limits in about half the examples (the pruning's oracle)
SETTING_VALUES = st.sampled_from((True, True, False)).flatmap(lambda limit: LIMITS if limit else ANY_VALUE)
AGES = st.lists(st.integers(min_value=0, max_value=500), min_size=1, max_size=4)  # days ago, per run


def valid(value):
    """The oracle: None, or a whole number (not a bool) ≥ 0."""
    return value is None or (type(value) is int and value >= 0)


def plugin_settings(days, runs):
    plugins = copy.deepcopy(django_settings.PLUGINS_CONFIG)
    plugins.setdefault('netbox_aifabric', {}).update({DAYS: days, RUNS: runs})
    return override_settings(PLUGINS_CONFIG=plugins)


def state():
    """Every stored run and finding."""
    return (
        sorted(ComplianceRun.objects.values_list('pk', 'fabric_id', 'created')),
        sorted(ComplianceFinding.objects.values_list('pk', 'run_id')),
    )


def kept(runs, days, keep, now):
    """The pks the settings keep: ``runs`` is [(pk, fabric, created)]; per fabric the newest first, the first always."""
    survivors = set()
    for fabric in {f for _pk, f, _c in runs}:
        mine = sorted(((c, pk) for pk, f, c in runs if f == fabric), reverse=True)
        for rank, (created, pk) in enumerate(mine, start=1):
            too_old = days not in (None, 0) and created < now - timedelta(days=days)
            too_many = keep not in (None, 0) and rank > keep
            if rank == 1 or not (too_old or too_many):
                survivors.add(pk)
    return survivors


class RetentionFuzzTestCase(HypothesisTestCase):
    @classmethod
    def setUpTestData(cls):
        world = make_world()
        cls.fabrics = []
        for i in (1, 2):
            fabric = Fabric(name=f'R{i}', slug=f'r{i}', site=world['sites'][0], **FABRIC_SHAPE, **own_pools(world, i))
            fabric.full_clean()
            fabric.save()
            cls.fabrics.append(fabric)
        with plugin_settings(None, None):
            cls.result = run_compliance(cls.fabrics[0])  # a real result to store (a draft fabric: rules skip)

    def store_runs(self, data):
        """Runs of both fabrics aged as drawn, each with one finding."""
        now = timezone.now()
        for fabric in self.fabrics:
            for age in data.draw(AGES, label=f'{fabric.slug} ages'):
                run = ComplianceRun.objects.create(fabric=fabric, status='pass', score=100)
                ComplianceRun.objects.filter(pk=run.pk).update(created=now - timedelta(days=age, minutes=1))
                ComplianceFinding.objects.create(run=run, rule='r', title='t', family='drift', severity='error')

    @settings(max_examples=examples(60), deadline=None, database=None, suppress_health_check=list(HealthCheck))
    @given(days=SETTING_VALUES, runs=SETTING_VALUES, data=st.data())
    def test_settings_are_limits_or_refused_by_name(self, days, runs, data):
        self.store_runs(data)
        before = state()
        bad = [name for name, value in ((DAYS, days), (RUNS, runs)) if not valid(value)]
        event('refused' if bad else 'accepted')
        with plugin_settings(days, runs):
            if bad:
                for read in (retention, prune_runs, schedule_compliance):
                    with pytest.raises(ImproperlyConfigured, match=rf"\['({'|'.join(bad)})'\] must be"):
                        read()
                with pytest.raises(ImproperlyConfigured, match='must be a whole number'):
                    record_run(self.fabrics[0], self.result)
                self.assertEqual(state(), before, 'refused settings, but runs were written or deleted')
                return
            self.assertEqual(retention(), (days or None, runs or None))
            now = timezone.now()
            prune_runs(now=now)
        self.assertEqual({pk for pk, _f, _c in state()[0]}, kept(before[0], days, runs, now))
        self.assertEqual({run for _pk, run in state()[1]}, {pk for pk, _f, _c in state()[0]}, 'findings go with runs')
