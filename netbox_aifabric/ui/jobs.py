"""Queue a fabric's job from a tab's button (the Compliance and Lab tabs): the job, a message linking to it, and back
to the tab."""

from django.contrib import messages
from django.shortcuts import redirect
from django.utils.safestring import mark_safe

__all__ = ('queue_fabric_job',)


def queue_fabric_job(request, job_class, fabric, message, tab):
    """Enqueue ``job_class`` for ``fabric`` by the request's user; ``message`` (with ``{url}`` and ``{id}``) says where
    the job is; the answer redirects to the fabric's ``tab``."""
    job = job_class.enqueue(instance=fabric, user=request.user)
    # the job link is built here, not from user input
    messages.info(request, mark_safe(message.format(url=job.get_absolute_url(), id=job.pk)))
    return redirect(f'plugins:netbox_aifabric:fabric_{tab}', pk=fabric.pk)
