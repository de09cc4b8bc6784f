"""Applies inside NetBox Branching branches (netboxlabs-netbox-branching, enabled as its README says): an apply over
REST in a branch, foreground or as a job, touches only the branch; merging it gives main what a direct apply gives
(objects, change records, cable paths, tags, ownership: the merge-equivalence oracle); reverting the merge undoes it.

The branches are provisioned for real (Branching copies main's committed tables into a schema over connections of
its own), so these tests commit (``transaction=True``) and drop their branches' schemas at the end."""

import copy
import tempfile
from collections import Counter
from pathlib import Path

import django_rq
import pytest
from django.contrib.auth import get_user_model
from django.core.exceptions import ValidationError
from django.db import connections
from django.test import Client
from django.urls import reverse
from netbox_branching.choices import BranchStatusChoices
from netbox_branching.constants import COOKIE_NAME
from netbox_branching.models import Branch, ChangeDiff
from netbox_branching.utilities import activate_branch

from core.choices import JobStatusChoices
from core.models import Job, ObjectChange
from dcim.models import Cable, Device, Interface
from extras.models import CachedValue
from ipam.models import IPAddress, Prefix
from users.constants import TOKEN_PREFIX
from users.models import Token

from netbox_aifabric.apply.request import as_request_of
from netbox_aifabric.apply.seed import load_config_templates, load_demo
from netbox_aifabric.apply.service import request_apply
from netbox_aifabric.models import ComplianceRun, Fabric, OwnedObject
from tests.integration.apply_oracle import MODELS, Names, _highest_pks, _record, change_rows
from tests.integration.test_wizard import url
from tests.integration.test_wizard_defaults import NAMED
from tests.integration.test_wizard_double_submit import walk_defaults

pytestmark = [pytest.mark.netbox, pytest.mark.django_db(transaction=True)]

WRITTEN = (Device, Interface, Cable, IPAddress, Prefix, OwnedObject)  # what an apply of the demo fabric creates


@pytest.fixture
def world():
    load_demo()
    user = get_user_model().objects.create_superuser('brancher', 'brancher@example.invalid', 'secret-password')
    token = Token.objects.create(user=user)
    header = {'HTTP_AUTHORIZATION': f'Bearer {TOKEN_PREFIX}{token.key}.{token.token}'}
    return user, header, Fabric.objects.get(slug='ai-lab-fabric')


@pytest.fixture
def branches():
    """``make(user, name)`` provisions a branch as Branching's provisioning job does; each is dropped at the end."""
    made = []

    def make(user, name):
        branch = Branch(name=name)
        branch.save(provision=False)
        branch.provision(user)
        branch.refresh_from_db()
        assert branch.status == BranchStatusChoices.READY
        made.append(branch)
        return branch

    yield make
    for branch in made:
        connections[branch.connection_name].close()  # else the test DB cannot be dropped at the end
        if Branch.objects.filter(pk=branch.pk).exists():
            branch.refresh_from_db()
            branch.deprovision()


def counts():
    return {model.__name__: model.objects.count() for model in WRITTEN}


def api_apply(fabric, header, branch=None, **body):
    url = reverse('plugins-api:netbox_aifabric-api:fabric-apply', kwargs={'pk': fabric.pk})
    extra = {'HTTP_X_NETBOX_BRANCH': branch.schema_id} if branch is not None else {}
    return Client().post(url, body, content_type='application/json', **header, **extra)


def state(before, fabric):
    """What main holds of the fabric's apply since ``before`` (highest pks): every object (its fields, many-to-many
    members and tags included) and change record named by what it is, the cable paths, the search-cache rows and the
    fabric's apply record (apply_oracle's names, without its savepoint)."""
    names = Names(before)
    record = _record(names, {}, Fabric.objects.get(pk=fabric.pk))
    search = Counter()
    for row in CachedValue.objects.all():
        model = row.object_type.model_class()
        if row.object_id > before.get(model, 0):
            search[(names.of(model, row.object_id), row.field, row.type, str(row.value), row.weight)] += 1
    return record, search


def describe(direct, merged, limit=20):
    """Where the merged state differs from the direct apply's, readably (empty when equal). The change records
    main holds after the merge are Branching's replay of the branch's. A replayed cable differs: Branching creates it
    with its terminations already assigned (``Cable.save()`` writes a new cable first without them, then with them:
    two records), so main records it once; for cables, that they are recorded is compared. The branch's own records
    (what the apply recorded, which the merge replays) are compared in full (:func:`differing_changes`)."""
    (ref, ref_search), (got, got_search) = direct, merged
    lines = []
    for part in ('objects', 'paths', 'fabric'):
        a, b = getattr(ref, part), getattr(got, part)
        for key in sorted(set(a) | set(b), key=str):
            if a.get(key) != b.get(key):
                lines.append(f'{part}: {key}: direct {a.get(key)!r} != merged {b.get(key)!r}')
    for label, a, b in (
        ('changes', _replayed(ref.changes), _replayed(got.changes)),
        ('search', ref_search, got_search),
    ):
        lines += [f'{label}: only direct: {row}' for row in sorted((a - b).elements(), key=str)]
        lines += [f'{label}: only merged: {row}' for row in sorted((b - a).elements(), key=str)]
    return _lines(lines, limit)


def _replayed(changes):
    """Change rows as a merge replays them: a cable by the fact that it is recorded (see :func:`describe`)."""
    rows = Counter()
    for row, count in changes.items():
        if row[1] == 'dcim.cable':
            rows[row[1:3]] = 1
        else:
            rows[row] += count
    return rows


def _lines(lines, limit):
    return '\n'.join(lines[:limit] + ([f'... and {len(lines) - limit} more'] if len(lines) > limit else []))


def differing_changes(direct, recorded, limit=20):
    """Where the change records the apply wrote in the branch differ from the direct apply's (empty: equal)."""
    lines = [f'only direct: {row}' for row in sorted((direct - recorded).elements(), key=str)]
    lines += [f'only in the branch: {row}' for row in sorted((recorded - direct).elements(), key=str)]
    return _lines(lines, limit)


def test_a_rest_apply_in_a_branch_writes_the_branch_only(world, branches):
    user, header, fabric = world
    branch = branches(user, 'plan-a')
    main_before = counts()
    response = api_apply(fabric, header, branch)
    assert response.status_code == 200, response.content
    assert response.json()['applied'] is True
    assert counts() == main_before  # main untouched
    assert Fabric.objects.get(pk=fabric.pk).status == 'draft'
    with activate_branch(branch):
        in_branch = counts()
        assert Fabric.objects.get(pk=fabric.pk).status == 'applied'
        assert OwnedObject.objects.filter(fabric=fabric).count() == 174  # the demo fabric's owned objects
    assert in_branch['Device'] == main_before['Device'] + 9  # 2 spines, 2 leaves, 4 GPU servers, 1 storage node
    # Branching recorded every change (a merge replays these): one diff per object written, ownership included
    kinds = Counter(diff.object_type.model for diff in ChangeDiff.objects.filter(branch=branch))
    assert kinds['ownedobject'] == 174
    assert kinds['device'] == 9


def test_a_merged_branch_equals_a_direct_apply_and_its_revert_undoes_it(world, branches):
    user, header, fabric = world
    initial = _highest_pks()
    branch = branches(user, 'plan-b')
    assert api_apply(fabric, header, branch).status_code == 200
    branch.merge(user)
    merged = state(initial, fabric)
    recorded = change_rows(Names(initial), ObjectChange.objects.using(branch.connection_name).all())
    assert sum(key.startswith('netbox_aifabric.ownedobject') for key in merged[0].objects) == 174

    branch.refresh_from_db()
    branch.revert(user)
    assert {model.__name__: model.objects.filter(pk__gt=initial[model]).count() for model in MODELS} == dict.fromkeys(
        (model.__name__ for model in MODELS), 0
    )  # every object the merge brought is gone again
    reverted = Fabric.objects.get(pk=fabric.pk)
    assert (reverted.status, reverted.applied_allocations, reverted.last_applied) == ('draft', {}, None)

    before_direct = _highest_pks()
    with as_request_of(user):
        request_apply(Fabric.objects.get(pk=fabric.pk), user)
    direct = state(before_direct, fabric)
    differences = describe(direct, merged, limit=10**6) + '\n' + differing_changes(direct[0].changes, recorded, 10**6)
    (Path(tempfile.gettempdir()) / 'aifabric-branch-oracle.diff').write_text(differences)  # all of it, to read
    assert describe(direct, merged) == ''
    assert differing_changes(direct[0].changes, recorded) == ''
    # negative controls: the comparison catches an ownership row the merge would have dropped, a changed field and a
    # change record the branch did not write
    dropped = copy.deepcopy(merged[0])
    owned = next(key for key in dropped.objects if key.startswith('netbox_aifabric.ownedobject'))
    dropped.objects.pop(owned)
    assert describe(direct, (dropped, merged[1])).startswith(f'objects: {owned}: direct')
    changed = copy.deepcopy(merged[0])
    changed.fabric['status'] = 'draft'
    assert describe(direct, (changed, merged[1])).startswith('fabric: status')
    assert differing_changes(direct[0].changes, recorded - Counter({next(iter(recorded)): 1})).startswith('only direct')
    # not vacuous: every object, its change records, paths and search rows were compared
    assert sum(recorded.values()) > 2 * 174
    assert len(direct[0].paths) > 0 and sum(direct[1].values()) > 174


def test_a_background_apply_queued_in_a_branch_runs_there(world, branches):
    user, header, fabric = world
    branch = branches(user, 'plan-c')
    main_before = counts()
    response = api_apply(fabric, header, branch, background=True)
    assert response.status_code == 202, response.content
    job = Job.objects.get(pk=response.json()['job']['id'])
    rq_job = django_rq.get_queue(job.queue_name or 'default').fetch_job(str(job.job_id))
    assert rq_job.kwargs['branch'] == branch.schema_id  # the job carries the branch it was queued in
    rq_job.perform()  # what the RQ worker runs (no branch active in the worker)
    job.refresh_from_db()
    assert job.status == JobStatusChoices.STATUS_COMPLETED, job.error
    assert counts() == main_before
    with activate_branch(branch):
        assert OwnedObject.objects.filter(fabric=fabric).count() == 174
        assert Fabric.objects.get(pk=fabric.pk).status == 'applied'


def test_a_job_whose_branch_is_gone_fails_and_writes_nothing(world, branches):
    user, header, fabric = world
    branch = branches(user, 'plan-d')
    response = api_apply(fabric, header, branch, background=True)
    job = Job.objects.get(pk=response.json()['job']['id'])
    rq_job = django_rq.get_queue(job.queue_name or 'default').fetch_job(str(job.job_id))
    branch.deprovision()
    Branch.objects.filter(pk=branch.pk).delete()
    main_before = counts()
    changes_before = ObjectChange.objects.count()
    rq_job.perform()
    job.refresh_from_db()
    assert job.status == JobStatusChoices.STATUS_FAILED
    assert job.error == f'Branch {branch.schema_id} no longer exists.'
    assert counts() == main_before  # never written to main instead
    assert ObjectChange.objects.count() == changes_before


def api(method, path, header, branch=None, body=None):
    extra = {'HTTP_X_NETBOX_BRANCH': branch.schema_id} if branch is not None else {}
    call = getattr(Client(), method)
    return call(f'/api/plugins/aifabric/{path}', body or {}, content_type='application/json', **header, **extra)


def pending_actions(response) -> set:
    assert response.status_code == 200, response.content
    return {action for counts in response.json()['summary'].values() for action, n in counts.items() if n}


def test_plan_reapply_growth_and_compliance_in_a_branch_touch_only_the_branch(world, branches):
    user, header, fabric = world
    branch = branches(user, 'plan-e')
    assert api_apply(fabric, header, branch).status_code == 200
    main_before, main_changes = counts(), ObjectChange.objects.count()

    # the plan sees the branch's objects: nothing left to create there, everything still to create in main
    assert pending_actions(api('post', f'fabrics/{fabric.pk}/plan/', header, branch)) == {'keep'}
    assert 'create' in pending_actions(api('post', f'fabrics/{fabric.pk}/plan/', header))

    # a re-apply in the branch records nothing
    recorded = ObjectChange.objects.using(branch.connection_name).count()
    assert api_apply(fabric, header, branch).status_code == 200
    assert ObjectChange.objects.using(branch.connection_name).count() == recorded

    # growth in the branch: two more GPU servers, numbered and cabled there
    response = api('patch', f'fabrics/{fabric.pk}/', header, branch, {'server_count': 6})
    assert response.status_code == 200, response.content
    assert api_apply(fabric, header, branch).status_code == 200
    with activate_branch(branch):
        assert Device.objects.count() == main_before['Device'] + 11
        assert Fabric.objects.get(pk=fabric.pk).server_count == 6

    # a compliance run queued in the branch is stored there
    with activate_branch(branch):
        runs = ComplianceRun.objects.filter(fabric=fabric).count()
    response = api('post', f'fabrics/{fabric.pk}/compliance/', header, branch)
    assert response.status_code == 202, response.content
    job = Job.objects.get(pk=response.json()['job']['id'])
    django_rq.get_queue(job.queue_name or 'default').fetch_job(str(job.job_id)).perform()
    job.refresh_from_db()
    assert job.status == JobStatusChoices.STATUS_COMPLETED, job.error
    with activate_branch(branch):
        assert ComplianceRun.objects.filter(fabric=fabric).count() == runs + 1
    assert ComplianceRun.objects.count() == 0

    assert counts() == main_before  # main untouched by all of it
    assert Fabric.objects.get(pk=fabric.pk).server_count == 4
    assert ObjectChange.objects.count() == main_changes


def test_an_apply_in_main_after_the_branch_s_is_a_conflict_branching_reports(world, branches):
    user, header, fabric = world
    branch = branches(user, 'plan-f')
    assert api_apply(fabric, header, branch).status_code == 200
    assert api_apply(fabric, header).status_code == 200  # the same fabric applied in main meanwhile
    diff = ChangeDiff.objects.get(branch=branch, object_type__model='fabric', object_id=fabric.pk)
    assert {'last_applied', 'last_apply_request_id'} <= set(diff.conflicts)  # the same plan, applied twice
    # the branch's devices collide with main's by name: Branching's merge refuses, and writes nothing
    main_before = counts()
    with pytest.raises(ValidationError, match='Tag with this Name already exists'):
        branch.merge(user)
    assert counts() == main_before
    branch.refresh_from_db()
    assert branch.status == BranchStatusChoices.READY


def test_the_ui_apply_button_and_the_wizard_in_a_branch_write_the_branch_only(world, branches):
    user, _header, fabric = world
    load_config_templates()
    branch = branches(user, 'plan-g')
    client = Client()
    client.force_login(user)
    client.cookies[COOKIE_NAME] = branch.schema_id  # the branch the user activated in NetBox's UI
    main_before = counts()
    apply_url = reverse('plugins:netbox_aifabric:fabric_apply', kwargs={'pk': fabric.pk})
    assert client.post(apply_url, {'background': '0'}).status_code == 302
    # the wizard's "Create and apply": a second fabric, created and applied in the branch
    token = walk_defaults(client, fabric.site).context['submission']
    answer = client.post(url('preview'), {'_apply': '1', 'submission': token, 'background': '0'})
    assert answer.status_code == 302
    assert counts() == main_before
    assert not Fabric.objects.filter(slug=NAMED['slug']).exists()
    with activate_branch(branch):
        assert Fabric.objects.get(pk=fabric.pk).status == 'applied'
        created = Fabric.objects.get(slug=NAMED['slug'])
        assert created.status == 'applied'
        assert Device.objects.filter(name__startswith=f'{NAMED["slug"]}-').count() == 9


def test_a_pending_job_of_main_is_not_reused_for_a_branch(world, branches):
    user, header, fabric = world
    branch = branches(user, 'plan-h')
    assert api_apply(fabric, header).status_code == 200  # applied in main first (compliance needs an apply)
    in_main = api('post', f'fabrics/{fabric.pk}/compliance/', header).json()
    again = api('post', f'fabrics/{fabric.pk}/compliance/', header).json()
    assert (again['job']['id'], again['reused']) == (in_main['job']['id'], True)  # main's pending one, reused
    in_branch = api('post', f'fabrics/{fabric.pk}/compliance/', header, branch).json()
    assert in_branch['reused'] is False and in_branch['job']['id'] != in_main['job']['id']
    job = Job.objects.get(pk=in_branch['job']['id'])
    rq_job = django_rq.get_queue(job.queue_name or 'default').fetch_job(str(job.job_id))
    assert rq_job.kwargs['branch'] == branch.schema_id
