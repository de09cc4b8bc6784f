"""A request reads the fabric's inputs once: its planned nodes, its plan and its contexts (and the cabling facts they
are built from) are computed once per diff, per foreground apply, per compliance run and per Allocations tab, on the
applied demo fabric and on the same fabric grown. ``INPUTS_REPORT=1`` prints each path's queries and time (the
figures of docs/benchmarks.md, *Inputs read once*)."""

import os
import sys
import time
from contextlib import ExitStack
from unittest import mock

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from core.models import Job
from users.models import User
from utilities.testing import TestCase

from netbox_aifabric.apply.diff import diff_fabric
from netbox_aifabric.apply.lifecycle import MissingPermissionsError
from netbox_aifabric.apply.seed import load_demo
from netbox_aifabric.apply.service import request_apply
from netbox_aifabric.apply.writes import apply_fabric
from netbox_aifabric.checks import compliance
from netbox_aifabric.facts import cabling, context
from netbox_aifabric.intake import plan as stored_plans
from netbox_aifabric.intake.plan import plan_of
from netbox_aifabric.models import Fabric, FabricNode, OwnedObject

pytestmark = pytest.mark.netbox


def counted(run):
    """``(calls, queries, seconds)`` of ``run()``: ``calls`` counts the planner, ``Fabric.planned_nodes``, the
    contexts and the cabling facts, wherever the plugin's modules call them from."""
    functions = {
        'plan_fabric': stored_plans.plan_fabric,
        'build_contexts': context.build_contexts,
        'cabling_facts': cabling.cabling_facts,
    }
    with ExitStack() as stack:
        mocks = {'planned_nodes': stack.enter_context(counting(Fabric, 'planned_nodes', Fabric.planned_nodes))}
        for name, function in functions.items():
            mocks[name] = mock.Mock(wraps=function)
            for module in plugin_modules():
                if getattr(module, name, None) is function:
                    stack.enter_context(mock.patch.object(module, name, mocks[name]))
        start = time.perf_counter()
        with CaptureQueriesContext(connection) as captured:
            run()
        seconds = time.perf_counter() - start
    return {name: m.call_count for name, m in mocks.items()}, len(captured), seconds


def counting(owner, name, method):
    """``owner.name`` (a method) counted: a mock that calls it with its instance."""
    return mock.patch.object(owner, name, autospec=True, side_effect=method)


def plugin_modules():
    return [m for name, m in list(sys.modules.items()) if name.startswith('netbox_aifabric') and m is not None]


def report(label, result):
    calls, queries, seconds = result
    print(f'\n{label}: {queries} queries, {seconds * 1000:.0f} ms, {calls}')


class InputsOnceTestCase(TestCase):
    @classmethod
    def setUpTestData(cls):
        load_demo()
        cls.fabric = Fabric.objects.get(slug='ai-lab-fabric')
        apply_fabric(cls.fabric)
        cls.admin = User.objects.create_superuser('inputs', 'inputs@example.invalid', None)

    def grow(self):
        Fabric.objects.filter(pk=self.fabric.pk).update(spine_count=4, leaf_count=6, server_count=12)
        self.fabric.refresh_from_db()
        apply_fabric(self.fabric)

    def paths(self, size):
        """Each path's calls, measured after a warm-up run (caches filled as on a running server)."""
        self.client.force_login(self.admin)
        allocations = reverse('plugins:netbox_aifabric:fabric_allocations', kwargs={'pk': self.fabric.pk})
        runs = {
            'diff': lambda: diff_fabric(Fabric.objects.get(pk=self.fabric.pk), confirm_delete=True),
            'apply': lambda: request_apply(Fabric.objects.get(pk=self.fabric.pk), self.admin),
            'compliance': lambda: compliance.fabric_facts(Fabric.objects.get(pk=self.fabric.pk)),
            'allocations': lambda: self.assertEqual(self.client.get(allocations).status_code, 200),
        }
        measured = {}
        for name, run in runs.items():
            run()
            measured[name] = counted(run)
            if os.environ.get('INPUTS_REPORT'):  # the best of five runs for the time
                calls, queries, _seconds = measured[name]
                report(f'{size} {name}', (calls, queries, min(counted(run)[2] for _ in range(5))))
        return measured

    def check(self, measured):
        # one plan and one read of the nodes per request; the contexts (and their cabling) where the path has them
        expected = {
            'diff': {'plan_fabric': 1, 'planned_nodes': 1, 'build_contexts': 1, 'cabling_facts': 1},
            'apply': {'plan_fabric': 1, 'planned_nodes': 1, 'build_contexts': 1, 'cabling_facts': 1},
            'compliance': {'plan_fabric': 1, 'planned_nodes': 1, 'build_contexts': 1, 'cabling_facts': 1},
            'allocations': {'plan_fabric': 1, 'planned_nodes': 1, 'build_contexts': 0, 'cabling_facts': 0},
        }
        self.assertEqual({name: calls for name, (calls, _queries, _seconds) in measured.items()}, expected)

    def test_demo_reads_its_inputs_once(self):
        self.check(self.paths('demo'))

    def test_grown_fabric_reads_its_inputs_once(self):
        self.grow()
        self.check(self.paths('grown'))


class RefusedOrQueuedOnceTestCase(TestCase):
    """An apply refused in the request, or sent to a job by its size, also plans once, and writes nothing: the
    checks run inside the apply's transaction, which they roll back (the fabric's new nodes included)."""

    @classmethod
    def setUpTestData(cls):
        load_demo()
        cls.fabric = Fabric.objects.get(slug='ai-lab-fabric')
        apply_fabric(cls.fabric)
        Fabric.objects.filter(pk=cls.fabric.pk).update(leaf_count=4, server_count=8)  # nodes synced by an apply
        cls.fabric.refresh_from_db()

    def attempt(self, user):
        """``(outcome or the error raised, plan_fabric calls)``, and checks nothing was written."""
        written = (OwnedObject.objects.count(), FabricNode.objects.count(), Job.objects.count())
        with mock.patch.object(stored_plans, 'plan_fabric', wraps=stored_plans.plan_fabric) as planner:
            try:
                result = request_apply(Fabric.objects.get(pk=self.fabric.pk), user)
            except MissingPermissionsError as e:
                result = e
        self.assertEqual((OwnedObject.objects.count(), FabricNode.objects.count()), written[:2])
        return result, planner.call_count, Job.objects.count() - written[2]

    def test_missing_permissions_plan_once_and_write_nothing(self):
        user = User.objects.create_user('no-perms')
        result, plans, jobs = self.attempt(user)
        self.assertIsInstance(result, MissingPermissionsError)
        self.assertEqual((plans, jobs), (1, 0))

    def test_above_the_link_threshold_plans_once_and_queues(self):
        admin = User.objects.create_superuser('queued', 'queued@example.invalid', None)
        links = len(plan_of(self.fabric).links)
        with self.settings(PLUGINS_CONFIG={'netbox_aifabric': {'background_apply_threshold': links - 1}}):
            outcome, plans, jobs = self.attempt(admin)
        self.assertTrue(outcome.queued)
        self.assertEqual((plans, jobs, len(outcome.plan.links)), (1, 1, links))
