"""A fabric's jobs for its tabs (Compliance, Lab): the newest one, and queueing one from a tab's button (the job, a
message linking to it, and back to the tab)."""

from django.contrib import messages
from django.shortcuts import redirect
from django.utils.safestring import mark_safe

from core.models import Job, ObjectType

__all__ = ('last_fabric_job', 'queue_fabric_job')


def last_fabric_job(fabric, job_class):
    """The fabric's newest job of ``job_class`` (its Meta name), or None."""
    object_type = ObjectType.objects.get_for_model(fabric)
    jobs = Job.objects.filter(object_type=object_type, object_id=fabric.pk, name=job_class.name)
    return jobs.order_by('-created').first()


def queue_fabric_job(request, job_class, fabric, message, tab):
    """Enqueue ``job_class`` for ``fabric`` by the request's user; ``message`` (with ``{url}`` and ``{id}``) says where
    the job is; the answer redirects to the fabric's ``tab``."""
    job = job_class.enqueue(instance=fabric, user=request.user)
    # the job link is built here, not from user input
    messages.info(request, mark_safe(message.format(url=job.get_absolute_url(), id=job.pk)))
    return redirect(f'plugins:netbox_aifabric:fabric_{tab}', pk=fabric.pk)
