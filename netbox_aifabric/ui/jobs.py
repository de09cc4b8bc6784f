"""A fabric's jobs for its tabs (Compliance, Lab): the newest one, and the tab's part that polls it. Queueing one is
``checks.job.request_compliance`` and ``lab.jobs.request_lab`` (each answers the fabric's unfinished job instead of
queueing a second).

While the job is pending or running the tab's part asks its own view for itself again every few seconds (htmx, as
NetBox's script results do); the answer once the job has finished carries htmx's status 286, which stops the polling."""

from django.shortcuts import render

from core.choices import JobStatusChoices
from core.models import Job, ObjectType

__all__ = ('HTMX_STOP_POLLING', 'POLL_SECONDS', 'last_fabric_job', 'polled_part', 'polling')

POLL_SECONDS = 3  # how often a tab's part asks for itself while the fabric's job has not finished
HTMX_STOP_POLLING = 286  # htmx cancels an element's polling on this status (NetBox's script result does the same)
UNFINISHED = (JobStatusChoices.STATUS_PENDING, JobStatusChoices.STATUS_RUNNING)  # a scheduled job is not polled


def last_fabric_job(fabric, job_class):
    """The fabric's newest job of ``job_class`` (its Meta name), or None."""
    object_type = ObjectType.objects.get_for_model(fabric)
    jobs = Job.objects.filter(object_type=object_type, object_id=fabric.pk, name=job_class.name)
    return jobs.order_by('-created').first()


def polling(job) -> bool:
    """Whether the tab keeps asking for its part: the fabric's newest job is pending or running."""
    return job is not None and job.status in UNFINISHED


def polled_part(request, template_name, context):
    """The tab's polled part rendered alone; status 286 (stop) once ``context['polling']`` is over."""
    response = render(request, template_name, context)
    if not context['polling']:
        response.status_code = HTMX_STOP_POLLING
    return response
