"""Compliance's acceptance criteria on the demo fabric, against a live NetBox: three drifts made by hand (one uplink /31
renumbered, one cable deleted, PFC enabled on USERS in leaf1's stored context) show up as exactly their findings,
and nothing else, in the custom report (the installed Script run by NetBox's ``runscript``), the Compliance tab, the
REST action and the Ansible inventory (``ansible-inventory --list``); a re-apply turns the run green everywhere."""

import copy
import io
import json
import re
import tempfile

import pytest
from django.conf import settings
from django.core.management import call_command
from django.test import Client, override_settings
from django.urls import reverse

from core.models import Job
from dcim.models import Cable, Device
from extras.models import Script
from ipam.models import Prefix
from users.models import User

from netbox_aifabric.apply.writes import apply_fabric
from netbox_aifabric.checks.compliance import run_compliance
from netbox_aifabric.checks.runs import record_run
from netbox_aifabric.management.commands.aifabric_install_scripts import MODULE_NAME
from netbox_aifabric.models import OwnedObject
from tests.integration.test_ansible import ansible, live_env, plain, switches
from tests.integration.test_compliance import LEAF1, applied_demo, by_hand
from tests.integration.test_install_scripts import install

pytestmark = [pytest.mark.netbox, pytest.mark.django_db(transaction=True)]

RENUMBERED = '10.99.99.0/31'  # outside every pool of the demo
FAMILY_LOG = re.compile(r'^[^:]+: (?P<rule>[a-z]+-[a-z0-9-]+) \((?:error|warning)\) ')


def owned(fabric, model, key_prefix):
    keys = OwnedObject.objects.filter(fabric=fabric, key__startswith=key_prefix)
    return model.objects.filter(pk__in=keys.values('object_id'))


def drift_by_hand(fabric, user):
    """The issue's three drifts, change-logged as a UI user's: ``{rule id: [objects of each finding, as named]}``
    the checks must report for them, derived from what was changed."""
    prefix = owned(fabric, Prefix, 'prefix:uplink:').order_by('prefix').first()
    cable_key = OwnedObject.objects.filter(fabric=fabric, key__startswith='cable:').order_by('key').last()
    cable = Cable.objects.get(pk=cable_key.object_id)
    leaf = Device.objects.get(name=LEAF1)
    context = copy.deepcopy(leaf.local_context_data)
    users = next(v for v in context['aifabric']['vlans'] if v['name'] == 'USERS')
    users['lossless'] = True  # PFC on USERS, on the switch the configs are rendered for
    with by_hand(user):
        prefix.snapshot()
        prefix.prefix = RENUMBERED
        prefix.save()
        cable.snapshot()
        cable.delete()
        leaf.snapshot()
        leaf.local_context_data = context
        leaf.save()
    return {
        'drift-edited': [(RENUMBERED,)],
        'drift-missing': [(cable_key.key,)],
        'roce-pfc-rdma-only': [(LEAF1, users['name'])],
        'automation-stale': [(LEAF1,)],  # the context differs from the plan's: the key named below
    }


def engine_findings(result):
    found = {}
    for rule, finding in result.findings():
        found.setdefault(rule.id, []).append(tuple(str(o) for o in finding.objects))
    return found


def rest_findings(client, fabric):
    response = client.get(reverse('plugins-api:netbox_aifabric-api:fabric-compliance', kwargs={'pk': fabric.pk}))
    assert response.status_code == 200, response.content[:500]
    body = response.json()
    found = {}
    for r in body['results']:
        for f in r['findings']:
            names = tuple(f'{o["device"]} {o["name"]}' if o['device'] else o['name'] for o in f['objects'])
            found.setdefault(r['id'], []).append(names)
    return body['ok'], found


def tab_findings(client, fabric):
    """``{rule id: number of findings}`` of the rules the tab shows failed, and its HTML."""
    html = client.get(reverse('plugins:netbox_aifabric:fabric_compliance', kwargs={'pk': fabric.pk})).content.decode()
    rows = html.split('<tr id="rule-')[1:]
    failed = {}
    for row in rows:
        rule = row.split('"', 1)[0]
        if re.search(r'<span class="badge text-bg-[a-z]+">fail</span>', row):
            failed[rule] = row.count('<li class="finding">')
    return failed, html


def report_findings(fabric, user, scripts_root):
    """The installed report run by NetBox's runscript: ``{rule id: number of failure and warning lines}``."""
    with override_settings(SCRIPTS_ROOT=scripts_root, STORAGES=dict(settings.STORAGES)):
        install()
        data = json.dumps({'fabric': fabric.pk})
        call_command(
            'runscript', f'{MODULE_NAME[:-3]}.FabricCompliance', data=data, user=user.username, stdout=io.StringIO()
        )
    script = Script.objects.get(module__file_path=MODULE_NAME, name='FabricCompliance')
    job = Job.objects.filter(object_id=script.pk).latest('created')
    assert job.status == 'completed', job.data
    found = {}
    for test in job.data['tests'].values():
        for _time, level, _obj, _url, message in test['log']:
            if level in ('failure', 'warning'):
                rule = FAMILY_LOG.match(message).group('rule')
                found[rule] = found.get(rule, 0) + 1
    return found


def inventory_findings(env):
    """``{switch: (findings, compliant)}`` from ansible-inventory (the latest stored run)."""
    inventory = json.loads(ansible('ansible-inventory', '-i', 'aifabric.netbox.yml', '--list', env=env))
    hostvars = plain(inventory['_meta']['hostvars'])
    return {name: (h['aifabric_compliance_findings'], h['aifabric_compliant']) for name, h in hostvars.items()}


def test_the_issue_drifts_are_exactly_their_findings_everywhere_and_a_reapply_clears_them(live_server, tmp_path):
    fabric = applied_demo()
    user = User.objects.create_superuser('done-when', 'done-when@example.invalid', 'secret-password')
    env = live_env(live_server, tmp_path, user)
    client = Client()
    client.force_login(user)
    scripts = tempfile.mkdtemp(dir=tmp_path)

    expected = drift_by_hand(fabric, user)
    counts = {rule: len(objects) for rule, objects in expected.items()}
    result = run_compliance(fabric)
    assert engine_findings(result) == expected
    stale = result.results[[r.rule.id for r in result.results].index('automation-stale')].findings[0]
    assert 'vlans' in stale.found, stale  # the key that differs
    record_run(fabric, result, user=user)

    assert report_findings(fabric, user, scripts) == counts
    assert tab_findings(client, fabric)[0] == counts
    assert rest_findings(client, fabric) == (False, expected)
    # the inventory shows a switch's findings: leaf1's context (PFC, stale); the /31 and the cable name no switch
    named_here = sum(1 for objects in expected.values() for names in objects if names[0] == LEAF1)
    status = {d.name: (named_here, False) if d.name == LEAF1 else (0, True) for d in switches()}
    assert inventory_findings(env) == status

    apply_fabric(fabric)
    green = run_compliance(fabric)
    assert engine_findings(green) == {} and green.ok
    record_run(fabric, green, user=user)
    assert report_findings(fabric, user, scripts) == {}
    failed, html = tab_findings(client, fabric)
    assert failed == {} and 'Compliant' in html
    assert rest_findings(client, fabric) == (True, {})
    assert inventory_findings(env) == {d.name: (0, True) for d in switches()}
