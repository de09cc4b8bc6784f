"""NetBox's request processors outside a web request (jobs, stored runs): the change log records a change and event
rules fire only inside them, as for a script job. One fake request shape for the apply job, the lab job and stored
compliance runs."""

import uuid
from contextlib import nullcontext

from utilities.request import NetBoxFakeRequest, apply_request_processors

__all__ = ('as_request_of', 'job_request')


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
