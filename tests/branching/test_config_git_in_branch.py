"""An apply inside a NetBox Branching branch commits no configs to the fabric's Git repository (a branch's configs run
on no switch until it is merged; docs/config-git.md); the same apply in main does. Branches provisioned for real, as in
test_apply_in_branch.py (its fixtures), so the applies' transactions commit and their on-commit callbacks run."""

import pytest

from core.models import Job

from netbox_aifabric.models import Fabric
from netbox_aifabric.render.jobs import CommitConfigsJob
from tests.branching.test_apply_in_branch import api_apply, branches, world  # noqa: F401  (fixtures)

pytestmark = [pytest.mark.netbox, pytest.mark.django_db(transaction=True)]


def test_an_apply_in_a_branch_queues_no_commit_and_the_same_apply_in_main_does(world, branches, tmp_path):  # noqa: F811
    user, header, fabric = world
    Fabric.objects.filter(pk=fabric.pk).update(config_repository=str(tmp_path / 'configs'))
    branch = branches(user, 'configs-in-a-branch')
    response = api_apply(fabric, header, branch)
    assert response.status_code == 200, response.content
    assert response.json()['applied'] is True
    assert not Job.objects.filter(name=CommitConfigsJob.name).exists()
    # the control: in main, the apply queues the commit of the fabric's configs, for its user and request
    response = api_apply(fabric, header)
    assert response.status_code == 200, response.content
    (job,) = Job.objects.filter(name=CommitConfigsJob.name)
    assert (job.object, job.user, job.status) == (Fabric.objects.get(pk=fabric.pk), user, 'pending')
