"""The "AI fabrics" dashboard widget: a new user's home page shows it (NetBox's default dashboard, the widget after
NetBox's own), each fabric the user may view with its state, last apply and newest compliance run; a user without
the view permission sees the lock, an object-permission constraint hides the other fabrics, and the queries do not
grow with the number of fabrics."""

import pytest
from django.db import connection
from django.test import RequestFactory
from django.test.utils import CaptureQueriesContext

from users.models import User
from utilities.testing import TestCase

from netbox_aifabric.apply.seed import load_demo
from netbox_aifabric.checks.compliance import run_compliance
from netbox_aifabric.checks.runs import record_run
from netbox_aifabric.models import Fabric
from netbox_aifabric.views.dashboard import FabricsWidget
from tests.integration.test_compliance import constrain

pytestmark = pytest.mark.netbox


def render(user):
    request = RequestFactory().get('/')
    request.user = user
    return FabricsWidget().render(request)


class DashboardWidgetTestCase(TestCase):
    @classmethod
    def setUpTestData(cls):
        load_demo()
        cls.demo = Fabric.objects.get(slug='ai-lab-fabric')
        cls.admin = User.objects.create_superuser('dash', 'dash@example.invalid', None)

    def test_a_new_users_home_page_shows_the_fabrics(self):
        self.client.force_login(self.admin)
        response = self.client.get('/')
        self.assertEqual(response.status_code, 200)
        self.assertContains(response, 'AI fabrics')
        self.assertContains(response, f'href="{self.demo.get_absolute_url()}"')
        self.assertContains(response, 'no run yet')

    def test_the_newest_compliance_run_and_its_score(self):
        run = record_run(self.demo, run_compliance(self.demo), user=self.admin)
        html = render(self.admin)
        self.assertIn(run.get_absolute_url(), html)
        self.assertIn(f'{run.score}&nbsp;%', html)
        self.assertIn(run.get_status_display(), html)

    def test_permissions_and_constraints(self):
        nobody = User.objects.create_user('nobody')
        self.assertIn('No permission to view fabrics', render(nobody))
        Fabric.objects.create(name='Other', slug='other', site=self.demo.site)
        viewer = User.objects.create_user('viewer')
        constrain(viewer, 'other')
        html = render(User.objects.get(pk=viewer.pk))
        self.assertIn('/fabrics/', html)
        self.assertIn('>Other<', html)
        self.assertNotIn(self.demo.name, html)

    def test_the_queries_do_not_grow_with_the_fabrics(self):
        def queries():
            with CaptureQueriesContext(connection) as captured:
                render(self.admin)
            return len(captured)

        record_run(self.demo, run_compliance(self.demo), user=self.admin)
        one = queries()
        for n in range(5):
            fabric = Fabric.objects.create(name=f'F{n}', slug=f'f{n}', site=self.demo.site)
            record_run(fabric, run_compliance(fabric), user=self.admin)
        self.assertEqual(queries(), one)
