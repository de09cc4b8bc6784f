"""Retention of stored compliance runs (``compliance_retention_days``, ``compliance_retention_runs``): a run past a
limit goes with its findings, the latest run of a fabric always stays, applied on each stored run and by the
scheduled system job; bad settings are refused by name."""

import copy
from datetime import timedelta

import pytest
from django.conf import settings
from django.core.exceptions import ImproperlyConfigured
from django.test import override_settings
from django.utils import timezone

from utilities.testing import TestCase

from netbox_aifabric.checks.compliance import run_compliance
from netbox_aifabric.checks.job import ScheduledComplianceJob
from netbox_aifabric.checks.retention import prune_runs, retention
from netbox_aifabric.checks.runs import record_run
from netbox_aifabric.models import ComplianceFinding, ComplianceRun, Fabric
from tests.integration.base import FABRIC_SHAPE
from tests.integration.test_compliance import applied_demo, break_by_hand

pytestmark = pytest.mark.netbox


def plugin_settings(**values):
    plugins = copy.deepcopy(settings.PLUGINS_CONFIG)
    plugins.setdefault('netbox_aifabric', {}).update(values)
    return override_settings(PLUGINS_CONFIG=plugins)


def aged(run, days):
    """``run`` as if stored ``days`` ago."""
    ComplianceRun.objects.filter(pk=run.pk).update(created=timezone.now() - timedelta(days=days))
    return run


class RetentionTestCase(TestCase):
    @classmethod
    def setUpTestData(cls):
        cls.fabric = applied_demo()
        cls.other = Fabric.objects.create(
            name='Other', slug='other', site=cls.fabric.site, **{**FABRIC_SHAPE, 'design_option': 'routed'}
        )

    def store(self, fabric=None, days=0):
        with plugin_settings(compliance_retention_days=None, compliance_retention_runs=None):
            run = record_run(fabric or self.fabric, run_compliance(fabric or self.fabric))
        return aged(run, days) if days else run

    def remaining(self):
        return set(ComplianceRun.objects.values_list('pk', flat=True))

    def test_the_defaults(self):
        self.assertEqual(retention(), (90, None))

    def test_a_run_older_than_the_limit_goes_with_its_findings(self):
        break_by_hand(self.fabric, self.user)
        old = self.store(days=40)
        self.assertTrue(old.findings.exists())
        recent = self.store(days=10)
        with plugin_settings(compliance_retention_days=30):
            self.assertEqual(prune_runs(), 1)
        self.assertEqual(self.remaining(), {recent.pk})
        self.assertFalse(ComplianceFinding.objects.filter(run_id=old.pk).exists())
        self.assertTrue(recent.findings.exists())

    def test_the_latest_run_of_a_fabric_always_stays(self):
        only = self.store(days=400)
        other_old, other_latest = self.store(self.other, days=300), self.store(self.other, days=200)
        with plugin_settings(compliance_retention_days=30, compliance_retention_runs=1):
            self.assertEqual(prune_runs(), 1)
        self.assertEqual(self.remaining(), {only.pk, other_latest.pk})
        self.assertNotIn(other_old.pk, self.remaining())

    def test_at_most_n_runs_per_fabric_the_newest(self):
        runs = [self.store(days=d) for d in (5, 4, 3, 2, 1)]
        others = [self.store(self.other, days=d) for d in (5, 4)]
        with plugin_settings(compliance_retention_days=None, compliance_retention_runs=3):
            self.assertEqual(prune_runs(self.fabric), 2)  # one fabric's runs only
        self.assertEqual(self.remaining(), {r.pk for r in runs[2:]} | {r.pk for r in others})

    def test_each_stored_run_prunes_its_fabric(self):
        old = self.store(days=100)
        other_old = self.store(self.other, days=100)
        self.store(self.other, days=1)
        with plugin_settings(compliance_retention_days=30):
            new = record_run(self.fabric, run_compliance(self.fabric))
        self.assertEqual(self.remaining() & {old.pk, other_old.pk, new.pk}, {other_old.pk, new.pk})

    def test_off_keeps_everything(self):
        runs = {self.store(days=d).pk for d in (1000, 500)}
        with plugin_settings(compliance_retention_days=0, compliance_retention_runs=None):
            self.assertEqual(prune_runs(), 0)
        self.assertEqual(self.remaining(), runs)

    def test_the_scheduled_job_prunes_every_fabric(self):
        old = self.store(days=100)
        other_old, other_new = self.store(self.other, days=100), self.store(self.other, days=1)
        with plugin_settings(compliance_interval=60, compliance_retention_days=30):
            job = ScheduledComplianceJob.enqueue_once(interval=60)
            ScheduledComplianceJob.handle(job)
        job.refresh_from_db()
        # the applied fabric's old run went when the job stored its new one; the job's own pass took the other's
        self.assertEqual(job.data['pruned'], 1)
        (fresh,) = job.data['runs']
        self.assertEqual(self.remaining(), {fresh, other_new.pk})
        self.assertNotIn(old.pk, self.remaining())
        self.assertNotIn(other_old.pk, self.remaining())


def test_bad_retention_settings_are_refused_by_name():
    for name, bad in (
        ('compliance_retention_days', -1),
        ('compliance_retention_runs', '5'),
        ('compliance_retention_days', 1.5),
    ):
        with plugin_settings(**{name: bad}), pytest.raises(ImproperlyConfigured, match=rf"\['{name}'\] must be"):
            retention()
