"""The compliance run's SQL queries per part of the gathering (intent, contexts, the plan's diff, drift, automation,
traffic) and per rule family do not grow with the fabric: the applied demo (2 spines, 2 leaves, 5 servers) and the
same fabric grown to 4 spines, 6 leaves and 13 servers make exactly as many."""

from collections import Counter
from contextlib import contextmanager

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from dcim.models import Device
from utilities.testing import TestCase

from netbox_aifabric.apply.engine import apply_fabric
from netbox_aifabric.checks.compliance import run_compliance
from netbox_aifabric.models import Fabric

from .test_compliance import applied_demo, failed

pytestmark = pytest.mark.netbox


def queries_per_step(fabric):
    counts = Counter()

    @contextmanager
    def step(name):
        with CaptureQueriesContext(connection) as captured:
            yield
        counts[name] += len(captured)

    result = run_compliance(fabric, step=step)
    return result, dict(counts)


class QueryCountTestCase(TestCase):
    @classmethod
    def setUpTestData(cls):
        cls.fabric = applied_demo()

    def test_queries_per_step_do_not_grow_with_the_fabric(self):
        run_compliance(self.fabric)  # warm caches (content types, the plugin's config)
        small_result, small = queries_per_step(self.fabric)
        self.assertEqual(failed(small_result), {})
        Fabric.objects.filter(pk=self.fabric.pk).update(spine_count=4, leaf_count=6, server_count=12)
        self.fabric.refresh_from_db()
        apply_fabric(self.fabric)
        large_result, large = queries_per_step(self.fabric)
        self.assertEqual(failed(large_result), {})
        devices = Device.objects.filter(tags__slug=f'aifabric-{self.fabric.slug}')
        self.assertEqual(devices.count(), 4 + 6 + 12 + 1)  # spines, leaves, GPU servers, the storage node
        self.assertEqual(set(small), {'intent', 'contexts', 'plan', 'drift', 'automation', 'traffic', 'rules', 'link'})
        self.assertEqual(small['rules'], 0)  # the rules are pure
        self.assertEqual(large, small)
