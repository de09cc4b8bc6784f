"""NetBox Branching (NetBox Labs' ``netboxlabs-netbox-branching``), where it is installed and enabled: the active
branch, the transaction an apply opens, and a job that runs in the branch it was queued in. Without Branching (not
installed, or not in ``PLUGINS``) every function here is what NetBox does alone: no branch, one connection.

How Branching works, and so why this module exists (netbox_branching 1.2: ``database.BranchAwareRouter``,
``contextvars.active_branch``, ``signal_receivers.record_change_diff``):

- the router sends the queries of every change-logged model to the active branch's schema, over a connection of its
  own (``Branch.connection_name``); models Branching exempts (``core.*``: jobs) stay on ``default``. An apply's
  transaction and its row lock must therefore be on the branch's connection, and its advisory locks (raw SQL on
  ``default``) inside a transaction there too: :func:`atomic` opens both;
- a branch is active for a request (its header, cookie or query parameter, through Branching's request processor),
  never for a background job: a job queued in a branch carries the branch's schema id (:func:`queued_branch`) and
  :class:`BranchJobRunner` activates it again, or fails the job when the branch is gone or not ready;
- Branching records a change (its ``ChangeDiff``, replayed by a merge) from each ``ObjectChange`` saved in the branch.
  The apply's bulk writer writes its change records with ``bulk_create``, its many-to-many rows through models the
  router does not know, and NetBox's counters on ``default``: none of that reaches a branch, so inside one the apply
  takes the per-object path (``writes.apply_fabric``), which the equivalence oracle holds equal to the bulk path.
"""

from contextlib import ExitStack, contextmanager

from django.apps import apps
from django.db import DEFAULT_DB_ALIAS, transaction
from django.utils.translation import gettext as _

from core.choices import JobStatusChoices
from netbox.jobs import JobRunner

try:  # plain modules (a ContextVar, Django signals): importable whether or not Branching's app is enabled
    from netbox_branching.contextvars import active_branch as _active_branch
    from netbox_branching.signals import post_merge, post_revert

    MERGE_SIGNALS = (post_merge, post_revert)  # a branch's changes reached main, or were taken back from it
except ImportError:  # Branching not installed
    _active_branch = None
    MERGE_SIGNALS = ()

__all__ = (
    'MERGE_SIGNALS',
    'BranchJobRunner',
    'BranchUnavailableError',
    'activated',
    'active_branch',
    'atomic',
    'branch_connection',
    'branch_of',
    'queued_branch',
    'savepoint',
)

BRANCHING_APP = 'netbox_branching'


class BranchUnavailableError(Exception):
    """A job's branch is gone (deleted, merged and archived) or not ready (syncing, merging): nothing was written."""


def enabled() -> bool:
    return _active_branch is not None and apps.is_installed(BRANCHING_APP)


def active_branch():
    """The active Branching branch, or None (none active, or Branching not enabled)."""
    return _active_branch.get() if enabled() else None


def branch_connection() -> str | None:
    """The database connection the active branch's writes go to (None: no branch, they go to ``default``)."""
    branch = active_branch()
    return None if branch is None else branch.connection_name


@contextmanager
def atomic():
    """One transaction on ``default`` and, inside a branch, one on the branch's connection: an apply's writes, its
    row lock (on the branch's copy of the fabric) and its advisory locks (on ``default``) commit or roll back
    together."""
    with ExitStack() as stack:
        stack.enter_context(transaction.atomic(using=DEFAULT_DB_ALIAS))
        if (alias := branch_connection()) is not None:
            stack.enter_context(transaction.atomic(using=alias))
        yield


def savepoint():
    """A savepoint (``transaction.atomic``) on the connection the active branch writes to, ``default`` outside one:
    inside :func:`atomic`, a failed statement in it rolls back to it alone."""
    return transaction.atomic(using=branch_connection() or DEFAULT_DB_ALIAS)


def queued_branch() -> dict:
    """The keyword a job queued now carries so that it runs in the branch it was queued in: ``{'branch': schema
    id}`` inside a branch, ``{}`` outside one (the job runs in main, as NetBox's own jobs do)."""
    branch = active_branch()
    return {} if branch is None else {'branch': branch.schema_id}


def branch_of(schema_id):
    """The branch a job was queued in (``schema_id``; None or empty: main). Raises :class:`BranchUnavailableError`
    when it is gone or not ready, or Branching is no longer enabled: a job queued in a branch never writes to main
    instead."""
    if not schema_id:
        return None
    if not enabled():
        raise BranchUnavailableError(
            _('The job was queued in branch {schema_id}, but NetBox Branching is not enabled.').format(
                schema_id=schema_id
            )
        )
    branch = apps.get_model(BRANCHING_APP, 'Branch').objects.using(DEFAULT_DB_ALIAS).filter(schema_id=schema_id).first()
    if branch is None:
        raise BranchUnavailableError(_('Branch {schema_id} no longer exists.').format(schema_id=schema_id))
    if not branch.ready:
        raise BranchUnavailableError(
            _('Branch {branch} is not ready (status: {status}).').format(branch=branch, status=branch.status)
        )
    return branch


@contextmanager
def activated(branch):
    """``branch`` active for the block (None: nothing changes), as Branching's own ``activate_branch``."""
    if branch is None:
        yield
        return
    token = _active_branch.set(branch)
    try:
        yield
    finally:
        _active_branch.reset(token)


class BranchJobRunner(JobRunner):
    """A NetBox job that runs in the branch it was queued in (its ``branch`` keyword, from :func:`queued_branch`);
    one whose branch is gone or not ready fails, naming why, before it reads or writes anything. The job's own row
    (``core.Job``, which Branching exempts) stays in main, where NetBox's job list shows it."""

    @classmethod
    def handle(cls, job, *args, **kwargs):
        try:
            branch = branch_of(kwargs.get('branch'))
        except BranchUnavailableError as e:
            job.start()
            job.terminate(status=JobStatusChoices.STATUS_FAILED, error=str(e))
            return
        with activated(branch):
            super().handle(job, *args, **kwargs)

    @property
    def fabric(self):
        """The job's object, read where the job runs: NetBox's ``job.object`` reads it on the job's own connection
        (main), where a fabric made in a branch does not exist."""
        job = self.job
        return job.object_type.model_class().objects.get(pk=job.object_id)
