"""The one rule for "nothing is observable" (checks/observability.py): the services without a collector, as the
plan previews warn and the compliance rule ``telemetry-observable`` finds them, for every combination of services."""

import pytest
from hypothesis import given
from hypothesis import strategies as st

from netbox_aifabric.checks.engine import Facts
from netbox_aifabric.checks.observability import (
    SERVICE_LABELS,
    intended_collectors,
    missing_collectors,
    observability_warning,
)
from netbox_aifabric.checks.telemetry import check_observable
from netbox_aifabric.facts.telemetry import NOTHING_OBSERVABLE, SERVICES
from tests.render_fixtures import guide_telemetry

pytestmark = pytest.mark.pure

# the intent's telemetry key of each service (intake.intent.telemetry_of)
INTENT_KEY = {'syslog': 'syslog', 'ntp': 'ntp', 'snmp': 'snmp_managers', 'sflow': 'sflow', 'streaming': 'streaming'}


def telemetry_with(services):
    """The guide's collectors (render_fixtures.guide_telemetry) for ``services`` only, the others emptied."""
    telemetry = guide_telemetry()
    for service in SERVICES:
        if service not in services:
            telemetry[INTENT_KEY[service]] = []
    return telemetry


@given(st.sets(st.sampled_from(SERVICES)))
def test_the_previews_and_the_compliance_rule_name_the_same_services(services):
    telemetry = telemetry_with(services)
    expected = [service for service in SERVICES if service not in services]
    assert missing_collectors(intended_collectors(telemetry)) == expected
    warning = observability_warning(telemetry, url='/edit#telemetry')
    findings = [f.found for f in check_observable(Facts('AI Lab', {}, intent={'telemetry': telemetry}))]
    if not expected:
        assert warning is None and findings == []
        return
    assert warning['missing'] == expected and warning['url'] == '/edit#telemetry'
    assert warning['labels'] == [SERVICE_LABELS[service] for service in expected]
    assert all(label in warning['message'] for label in warning['labels'])
    assert 'apply is allowed' in warning['message']
    if services:
        assert findings == [f'no collector for {", ".join(expected)}']
    else:
        assert warning['message'].startswith('Nothing is observable') and findings == [NOTHING_OBSERVABLE]


def test_no_telemetry_at_all_is_nothing_observable():
    for telemetry in (None, {}):
        assert observability_warning(telemetry)['missing'] == list(SERVICES)
