"""The commit of a fabric's rendered switch configs to its Git repository as a NetBox job, run by NetBox's RQ worker:
queued after each apply that changed the fabric (``signals.py``, when the transaction commits) and on demand
(:func:`request_commit`, ``manage.py aifabric_commit_configs --background``).

The job always renders and commits main's configs (a plain ``JobRunner``, never in a NetBox Branching branch): what a
branch holds runs on no switch until it is merged. A merge replays the branch's changes without an apply in main, so
it queues no commit: commit on demand after it (docs/config-git.md).
"""

from core.choices import JobStatusChoices
from core.exceptions import JobFailed
from netbox.jobs import JobRunner

from netbox_aifabric.apply.request import enqueue_once
from netbox_aifabric.render.config_commit import commit_fabric_configs
from netbox_aifabric.render.git_store import GitStoreError

__all__ = ('CommitConfigsJob', 'queue_commit', 'request_commit')

# pg_advisory_xact_lock(class, fabric id): one request at a time decides whether a fabric's commit is already pending
_LOCK_CLASS = 0x41494347  # 'AICG'


class CommitConfigsJob(JobRunner):
    """Render the job's fabric and commit its switch configs (``render/config_commit.py``) as the job's user;
    ``job.data`` holds the outcome (commit, files, changed, failed). A Git failure fails the job with the
    repository's error; a device that does not render is a warning (it has no file)."""

    class Meta:
        name = 'Commit AI fabric configs'

    def run(self, request_id=None, *args, **kwargs):
        fabric = self.job.object
        if fabric is None:
            self._fail('The fabric of this job no longer exists.')
        if request_id and str(fabric.last_apply_request_id) != request_id:
            # applied again since this job was queued: that apply's own job commits (and names its request)
            self.logger.info(f'{fabric}: applied again since (request {fabric.last_apply_request_id}); not committed')
            self.job.data = {'superseded_by': str(fabric.last_apply_request_id)}
            return
        try:
            outcome = commit_fabric_configs(fabric, self.job.user, request_id)
        except GitStoreError as e:
            self._fail(str(e))
        self.job.data = outcome.to_dict()
        for device, error in outcome.failed.items():
            self.logger.warning(f'{device} did not render, so it has no file: {error}')
        where = f'{outcome.repository} ({outcome.branch})'
        if outcome.commit is None:
            self.logger.info(f'{fabric}: nothing changed in {where}')
        else:
            self.logger.info(f'{fabric}: committed {outcome.commit} to {where}, {len(outcome.changed)} file(s) changed')

    def _fail(self, reason):
        self.logger.error(reason)
        # NetBox's handler ends a JobFailed without an error: the reason goes to the job's error field
        self.job.error = reason
        raise JobFailed(reason)


def queue_commit(fabric, user=None, request_id=None):
    """Queue the commit of ``fabric``'s configs for ``user``, after the apply of change request ``request_id``: a job
    that finds the fabric applied again since then leaves the commit to that apply's job."""
    return CommitConfigsJob.enqueue(instance=fabric, user=user, request_id=str(request_id) if request_id else None)


def request_commit(fabric, user=None):
    """``(job, reused)``: queue a commit of ``fabric``'s configs now, or answer the one already pending (a pending
    job renders when it runs, so it commits what is current then)."""
    return enqueue_once(CommitConfigsJob, fabric, user, (JobStatusChoices.STATUS_PENDING,), _LOCK_CLASS)
