"""NetBox event rules fire on a scheduled compliance run (a system job: no user, no request) as on a run made
on demand. The schedule's code path (``ScheduledComplianceJob.handle``, what the RQ worker calls) runs against the real
database and Redis: a notification rule (a condition on the run's ``failed``) and a webhook rule (its task queued in
RQ, inspected the way NetBox's own event-rule tests do) on ComplianceRun creation."""

import django_rq
import pytest

from core.models import ObjectChange, ObjectType
from extras.models import EventRule, Notification, NotificationGroup, Webhook
from utilities.testing import TestCase

from netbox_aifabric.checks.job import ScheduledComplianceJob
from netbox_aifabric.choices import FabricStatusChoices
from netbox_aifabric.models import ComplianceRun, Fabric
from tests.integration.test_compliance import applied_demo, break_by_hand
from tests.integration.test_compliance_runs import interval_setting

pytestmark = pytest.mark.netbox

FAILED = {'attr': 'failed', 'value': 0, 'op': 'gt'}  # NetBox's condition syntax: runs with failures only


def run_rule(name, action_type, action_object, conditions=None):
    rule = EventRule.objects.create(
        name=name,
        event_types=['object_created'],
        action_type=action_type,
        action_object_type=ObjectType.objects.get_for_model(action_object),
        action_object_id=action_object.pk,
        conditions=conditions,
    )
    rule.object_types.add(ObjectType.objects.get_for_model(ComplianceRun))
    return rule


class ScheduledRunEventsTestCase(TestCase):
    @classmethod
    def setUpTestData(cls):
        cls.fabric = applied_demo()
        cls.group = NotificationGroup.objects.create(name='NOC')
        cls.webhook = Webhook.objects.create(name='noc', payload_url='http://localhost:9/compliance')
        run_rule('compliance failed', 'notification', cls.group, FAILED)
        cls.hook_rule = run_rule('every run', 'webhook', cls.webhook)

    def setUp(self):
        super().setUp()
        self.group.users.add(self.user)
        self.queue = django_rq.get_queue('default')
        self.queue.empty()

    def tearDown(self):
        self.queue.empty()  # no leftover tasks for the next test case
        super().tearDown()

    def run_schedule(self):
        """What ``netbox rqworker`` does: the system job enqueued once, then handled; returns the job and its run."""
        with interval_setting(60):
            job = ScheduledComplianceJob.enqueue_once(interval=60)
            ScheduledComplianceJob.handle(job)
        job.refresh_from_db()
        self.assertEqual(job.status, 'completed')
        return job, ComplianceRun.objects.get(pk=job.data['runs'][0])

    def webhook_tasks(self):
        return [j for j in self.queue.jobs if j.func_name == 'extras.webhooks.send_webhook']

    def test_a_scheduled_run_with_failures_fires_the_event_rules(self):
        Fabric.objects.filter(pk=self.fabric.pk).update(status=FabricStatusChoices.APPLIED)
        break_by_hand(self.fabric, self.user)
        job, run = self.run_schedule()
        self.assertEqual((run.user, run.job, run.failed), (None, job, 1))
        # the notification rule's condition matched the run's failures
        (notification,) = Notification.objects.all()
        self.assertEqual(
            (notification.object, notification.user, notification.event_type), (run, self.user, 'object_created')
        )
        # the webhook rule's task is queued in RQ with the run's data and no user in its request
        (task,) = self.webhook_tasks()
        self.assertEqual(task.kwargs['event_rule'], self.hook_rule)
        self.assertEqual((task.kwargs['event_type'], task.kwargs['data']['id']), ('object_created', run.pk))
        self.assertEqual(task.kwargs['data']['failed'], 1)
        self.assertIsNone(task.kwargs['request'].user)
        # the change log says the scheduled job made the run (and drifted the fabric), not a user
        change = ObjectChange.objects.get(changed_object_type__model='compliancerun', changed_object_id=run.pk)
        self.assertEqual(
            (change.action, change.user, change.user_name, change.request_id),
            ('create', None, ScheduledComplianceJob.name, job.job_id),
        )
        drifted = ObjectChange.objects.get(changed_object_type__model='fabric', request_id=job.job_id)
        self.assertEqual((drifted.action, drifted.user_name), ('update', ScheduledComplianceJob.name))
        self.assertEqual((drifted.prechange_data['status'], drifted.postchange_data['status']), ('applied', 'drifted'))

    def test_a_clean_scheduled_run_fires_only_the_unconditional_rule(self):
        job, run = self.run_schedule()
        self.assertEqual((run.status, run.failed), ('passed', 0))
        self.assertFalse(Notification.objects.exists())  # the condition (failed > 0) did not match
        (task,) = self.webhook_tasks()
        self.assertEqual(task.kwargs['data']['id'], run.pk)
        self.assertFalse(
            ObjectChange.objects.filter(changed_object_type__model='fabric', request_id=job.job_id).exists()
        )
