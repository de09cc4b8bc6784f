"""A fabric's jobs for its tabs (Compliance, Lab): the newest one. Queueing one is ``checks.job.request_compliance``
and ``lab.jobs.request_lab`` (each answers the fabric's unfinished job instead of queueing a second)."""

from core.models import Job, ObjectType

__all__ = ('last_fabric_job',)


def last_fabric_job(fabric, job_class):
    """The fabric's newest job of ``job_class`` (its Meta name), or None."""
    object_type = ObjectType.objects.get_for_model(fabric)
    jobs = Job.objects.filter(object_type=object_type, object_id=fabric.pk, name=job_class.name)
    return jobs.order_by('-created').first()
