"""The Compliance tab's rule table filtered by severity and family (GET ``severity``/``family``, each any
number of times). The rules expected are derived from the rule registry; the score and the history stay every rule's;
an unknown value is a form error naming the parameter (the whole table shown), never a 500; the fabric's view
permission and its constraints are unchanged; the filter adds no query. The tab shows the latest stored run: each
case stores one first (as the compliance job would)."""

import re
from urllib.parse import urlencode

import hypothesis.extra.django
import pytest
from django.urls import reverse
from hypothesis import HealthCheck, given
from hypothesis import settings as hypothesis_settings
from hypothesis import strategies as st

from users.models import User
from utilities.testing import TestCase

from netbox_aifabric.checks.compliance import run_compliance
from netbox_aifabric.checks.engine import FAMILIES, SEVERITIES
from netbox_aifabric.checks.rules import RULES
from netbox_aifabric.checks.runs import record_run
from tests.integration.base import DEMO_SKIPS
from tests.integration.test_compliance import applied_demo, constrain
from tests.integration.test_page_budgets import page_queries

pytestmark = pytest.mark.netbox

ROW = re.compile(r'<tr id="rule-([^"]+)">')


def expected_rules(severities=(), families=()):
    """The registry's rules of any of ``severities`` and any of ``families`` (none given: any)."""
    return {
        r.id for r in RULES if (not severities or r.severity in severities) and (not families or r.family in families)
    }


class TabFilterMixin:
    def url(self, **params):
        query = urlencode(params, doseq=True)
        url = reverse('plugins:netbox_aifabric:fabric_compliance', kwargs={'pk': self.fabric.pk})
        return f'{url}?{query}' if query else url

    def shown(self, response):
        return set(ROW.findall(response.content.decode()))


RUNS = ('netbox_aifabric.view_compliancerun', 'netbox_aifabric.view_compliancefinding')


def stored_demo():
    fabric = applied_demo()
    record_run(fabric, run_compliance(fabric))
    return fabric


class ComplianceTabFilterTestCase(TabFilterMixin, TestCase):
    @classmethod
    def setUpTestData(cls):
        cls.fabric = stored_demo()

    def setUp(self):
        super().setUp()
        self.add_permissions('netbox_aifabric.view_fabric', *RUNS)

    def test_each_severity_and_family_narrows_the_table_to_its_rules(self):
        self.assertEqual(self.shown(self.client.get(self.url())), expected_rules())
        for severity in SEVERITIES:
            response = self.client.get(self.url(severity=severity))
            self.assertHttpStatus(response, 200)
            self.assertEqual(self.shown(response), expected_rules(severities={severity}), severity)
        for family in FAMILIES:
            response = self.client.get(self.url(family=family))
            self.assertEqual(self.shown(response), expected_rules(families={family}), family)
            self.assertContains(response, f'</i> {FAMILIES[family]} — <span class="aifabric-fold-summary">', count=1)
        both = self.client.get(self.url(severity=['error', 'info'], family=['drift', 'security', 'fabric']))
        self.assertEqual(self.shown(both), expected_rules({'error', 'info'}, {'drift', 'security', 'fabric'}))
        self.assertContains(both, '<option value="error" selected>Error</option>', html=True)

    def test_the_score_and_history_stay_every_rules(self):
        record_run(self.fabric, run_compliance(self.fabric), user=self.user)
        response = self.client.get(self.url(family='drift'))
        self.assertContains(response, f'{len(RULES)} rules: {len(RULES) - len(DEMO_SKIPS)} passed')  # the rest skip
        self.assertContains(response, 'id="compliance-history"')
        self.assertContains(response, '<tr class="run">', count=2)

    def test_a_filter_no_rule_matches_says_so(self):
        empty = [(s, f) for s in SEVERITIES for f in FAMILIES if not expected_rules({s}, {f})]
        self.assertTrue(empty, 'every severity has a rule in every family: pick another empty pair')
        response = self.client.get(self.url(severity=empty[0][0], family=empty[0][1]))
        self.assertEqual(self.shown(response), set())
        self.assertContains(response, 'id="compliance-no-rule"')

    def test_an_unknown_value_is_a_named_form_error_and_the_whole_table(self):
        for params, message in (
            ({'severity': 'critical'}, 'Unknown severity critical (one of: error, warning, info).'),
            ({'family': ['drift', 'bogus']}, 'Unknown family bogus (one of: drift, fabric, roce,'),
        ):
            response = self.client.get(self.url(**params))
            self.assertHttpStatus(response, 200)
            self.assertContains(response, message)
            self.assertContains(response, 'has-errors', count=1)
            self.assertEqual(self.shown(response), expected_rules())
        blank = self.client.get(self.url(severity='', family=' '))  # an empty field: no filter, no error
        self.assertNotContains(blank, 'has-errors')
        self.assertEqual(self.shown(blank), expected_rules())

    def test_the_permission_and_its_constraints_are_unchanged(self):
        self.remove_permissions('netbox_aifabric.view_fabric')
        self.assertHttpStatus(self.client.get(self.url(severity='error')), 403)
        constrain(self.user, 'another-fabric')
        self.assertHttpStatus(self.client.get(self.url(severity='error', family='bogus')), 404)
        constrain(self.user, self.fabric.slug)
        self.assertHttpStatus(self.client.get(self.url(severity='error')), 200)


class ComplianceTabFilterQueriesTestCase(TestCase):
    @classmethod
    def setUpTestData(cls):
        cls.fabric = stored_demo()
        cls.admin = User.objects.create_superuser('filter-budget', 'filter-budget@example.invalid', None)

    def test_a_filtered_tab_makes_no_more_queries_than_the_whole_one(self):
        """At most as many: the stored findings of the rules shown are read (the objects of a model no finding shown
        names are not looked up); an invalid filter shows the whole table, with as many."""
        self.client.force_login(self.admin)
        url = reverse('plugins:netbox_aifabric:fabric_compliance', kwargs={'pk': self.fabric.pk})
        whole = page_queries(self.client, url)
        for query in ('severity=error', 'family=drift&family=security', 'severity=info&family=traffic'):
            self.assertLessEqual(page_queries(self.client, f'{url}?{query}'), whole, query)
        self.assertEqual(page_queries(self.client, f'{url}?family=x'), whole)


def _valid(values, allowed):
    return all(v in allowed for v in values if v.strip())


class ComplianceTabFilterFuzzTestCase(TabFilterMixin, hypothesis.extra.django.TestCase, TestCase):
    """Any text in the two parameters: a 200 with either the filtered table or a form error and the whole table."""

    @classmethod
    def setUpTestData(cls):
        cls.fabric = stored_demo()

    values = st.lists(st.one_of(st.text(max_size=12), st.sampled_from((*SEVERITIES, *FAMILIES, '', ' '))), max_size=3)

    @hypothesis_settings(max_examples=25, deadline=None, database=None, suppress_health_check=list(HealthCheck))
    @given(severity=values, family=values)
    def test_fuzz_the_filter(self, severity, family):
        self.user.is_superuser = True
        self.user.save()
        response = self.client.get(self.url(severity=severity, family=family))
        self.assertHttpStatus(response, 200)
        if _valid(severity, SEVERITIES) and _valid(family, FAMILIES):
            self.assertNotContains(response, 'has-errors')
            chosen = ({v for v in severity if v.strip()}, {v for v in family if v.strip()})
            self.assertEqual(self.shown(response), expected_rules(*chosen))
        else:
            self.assertContains(response, 'has-errors')
            self.assertContains(response, 'Unknown severity' if not _valid(severity, SEVERITIES) else 'Unknown family')
            self.assertEqual(self.shown(response), expected_rules())
