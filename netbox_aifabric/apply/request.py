"""NetBox's request processors outside a web request (jobs, stored runs): the change log records a change and event
rules fire only inside them, as for a script job. One fake request shape for the apply job, the lab job and stored
compliance runs."""

import uuid
from collections.abc import Iterable
from contextlib import nullcontext

from django.db import connection, transaction
from django_rq import get_queue

from core.models import Job, ObjectType
from utilities.request import NetBoxFakeRequest, apply_request_processors

from netbox_aifabric.apply import branching

__all__ = ('as_request_of', 'enqueue_once', 'job_request')


def job_request(user) -> NetBoxFakeRequest:
    """A POST request of ``user`` with a fresh request id (the change log groups a run's changes by it)."""
    return NetBoxFakeRequest(
        {
            'id': uuid.uuid4(),
            'user': user,
            'META': {},
            'COOKIES': {},
            'POST': {},
            'GET': {},
            'FILES': {},
            'method': 'POST',
            'path': '',
            'path_info': '',
        }
    )


def as_request_of(user):
    """NetBox's request processors for ``user``; nothing without a user (NetBox's change log needs one)."""
    if user is None:
        return nullcontext()
    return apply_request_processors(job_request(user))


def enqueue_once(runner, fabric, user, statuses: Iterable[str], lock_class: int) -> tuple[Job, bool]:
    """``(job, reused)``: ``runner``'s oldest job of ``fabric`` whose status is one of ``statuses`` and that runs
    where this one would (main, or the same NetBox Branching branch) (reused), else a new one queued for ``user``.
    Concurrent requests decide one at a time under an advisory lock (``lock_class``, the fabric's id), held until the
    new job's row commits: N concurrent requests queue one job."""
    where = branching.queued_branch()
    with transaction.atomic():
        with connection.cursor() as cursor:
            cursor.execute('SELECT pg_advisory_xact_lock(%s, %s)', [lock_class, fabric.pk])
        candidates = Job.objects.filter(
            object_type=ObjectType.objects.get_for_model(fabric),
            object_id=fabric.pk,
            name=runner.name,
            status__in=list(statuses),
        ).order_by('pk')
        for existing in candidates:
            if _queued_where(existing) == where:
                return existing, True
        return runner.enqueue(instance=fabric, user=user, **where), False


def _queued_where(job) -> dict:
    """The branch keyword ``job`` was queued with (its RQ job's; ``{}``: main, or no RQ job left to run it)."""
    rq_job = get_queue(job.queue_name or 'default').fetch_job(str(job.job_id))
    branch = (rq_job.kwargs if rq_job is not None else {}).get('branch')
    return {'branch': branch} if branch else {}
