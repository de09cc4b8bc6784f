"""Django only in the pytest processes that run tests (a pytest plugin: ``-p tests.xdist_django``).

Under pytest-xdist the controller collects and runs no test: it starts the workers and prints their reports. Yet
pytest-django sets Django up in every process that loads it, about 2.5 s of CPU for NetBox's settings and app
registry, and the workers start only after the controller's set-up. With this plugin the controller of a
distributed run hides ``DJANGO_SETTINGS_MODULE`` from pytest-django (an empty value: no settings, no set-up) and each
worker puts it back before pytest-django reads it, so the workers set Django up exactly as a one-process run does.

``scripts/test`` loads it for the pure tier (``scripts/lib/pytest_args.sh``). Any run that is not distributed
(``-n 0``, ``--collect-only``, ``--pdb`` with ``-n auto``, no ``-n``) is left as it is.
"""

import os
import sys

import pytest

SETTINGS = 'DJANGO_SETTINGS_MODULE'
HIDDEN = 'AIFABRIC_HIDDEN_DJANGO_SETTINGS_MODULE'  # the controller's value, for its workers ('' when it had none)
CONTROLLER_DJANGO = 'aifabric_controller_django'  # workerinput key (tests/unit/test_xdist_django.py reads it)


def distributes(options) -> bool:
    """True when pytest-xdist will run the tests in workers (the same decision as its ``pytest_cmdline_main``)."""
    processes = getattr(options, 'numprocesses', None)  # None: xdist not loaded (-p no:xdist) or no -n
    if processes in (None, 0) or getattr(options, 'collectonly', False):
        return False
    return not (processes in ('auto', 'logical') and getattr(options, 'usepdb', False))  # xdist turns it off then


@pytest.hookimpl(tryfirst=True)  # before pytest-django's, which sets Django up in this hook
def pytest_load_initial_conftests(early_config, parser, args):
    if 'PYTEST_XDIST_WORKER' in os.environ:  # a worker: runs tests, so Django as usual
        if HIDDEN in os.environ:
            hidden = os.environ.pop(HIDDEN)
            if hidden:
                os.environ[SETTINGS] = hidden
            else:
                os.environ.pop(SETTINGS, None)  # pyproject.toml's DJANGO_SETTINGS_MODULE applies
        return
    if distributes(early_config.known_args_namespace):
        os.environ[HIDDEN] = os.environ.get(SETTINGS, '')
        os.environ[SETTINGS] = ''  # pytest-django: no settings module, so no django.setup() here


@pytest.hookimpl(optionalhook=True)  # xdist's hook, in the controller: tells each worker whether Django is set up here
def pytest_configure_node(node):
    node.workerinput[CONTROLLER_DJANGO] = 'django.apps' in sys.modules and sys.modules['django.apps'].apps.ready


def pytest_sessionstart(session):
    # after every pytest_configure, xdist's included (it registers its distributed session there)
    if HIDDEN in os.environ and not session.config.pluginmanager.has_plugin('dsession'):
        raise pytest.UsageError(
            'tests/xdist_django.py hid Django from a run that xdist does not distribute (it would run tests without '
            'Django): distributes() disagrees with pytest-xdist; run without -p tests.xdist_django'
        )
