"""An apply inside a NetBox Branching branch commits no configs to the fabric's Git repository (a branch's configs run
on no switch until it is merged; docs/config-git.md); the same apply in main does. Branches provisioned for real, as in
test_apply_in_branch.py (its fixtures), so the applies' transactions commit and their on-commit callbacks run."""

import pytest

from core.models import Job
from dcim.models import Device, Platform

from netbox_aifabric.apply.seed import load_config_templates
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


def test_a_merged_branch_commits_the_configs_it_brought_to_main(world, branches, tmp_path):  # noqa: F811
    user, header, fabric = world
    repository = tmp_path / 'configs'
    load_config_templates()  # the switches on SONiC: every one renders
    sonic = Platform.objects.get(slug='sonic')
    Fabric.objects.filter(pk=fabric.pk).update(config_repository=str(repository), platform=sonic)
    branch = branches(user, 'configs-merged')
    assert api_apply(fabric, header, branch).status_code == 200
    assert not Job.objects.filter(name=CommitConfigsJob.name).exists()
    branch.merge(user)
    (job,) = Job.objects.filter(name=CommitConfigsJob.name)
    assert (job.object, job.user) == (Fabric.objects.get(pk=fabric.pk), user)
    CommitConfigsJob.handle(job)
    job.refresh_from_db()
    assert job.status == 'completed', job.data
    switches = Device.objects.filter(name__startswith=f'{fabric.slug}-', platform=sonic).values_list('name', flat=True)
    assert sorted(path.stem for path in (repository / fabric.slug).glob('*.json')) == sorted(switches)
    assert len(switches) >= 4  # the guide's ToR pair and two spines, as merged into main
