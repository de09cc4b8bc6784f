"""tests/xdist_django.py: under pytest-xdist only the workers set Django up; any other run is left as it is."""

import os
from types import SimpleNamespace

import pytest

from tests import xdist_django
from tests.xdist_django import CONTROLLER_DJANGO, HIDDEN, SETTINGS, distributes

pytestmark = pytest.mark.pure


@pytest.mark.parametrize(
    ('options', 'expected'),
    [
        ({'numprocesses': 'auto'}, True),
        ({'numprocesses': 2}, True),
        ({'numprocesses': 'logical', 'usepdb': False}, True),
        ({}, False),  # -p no:xdist: no such option
        ({'numprocesses': None}, False),  # no -n
        ({'numprocesses': 0}, False),
        ({'numprocesses': 'auto', 'collectonly': True}, False),  # xdist collects in-process then
        ({'numprocesses': 'auto', 'usepdb': True}, False),  # xdist turns itself off for --pdb with auto
    ],
)
def test_distributes_as_xdist_decides(options, expected):
    assert distributes(SimpleNamespace(**options)) is expected


def load(numprocesses):
    """Runs the plugin's early hook as pytest would, with -n numprocesses."""
    early_config = SimpleNamespace(known_args_namespace=SimpleNamespace(numprocesses=numprocesses))
    xdist_django.pytest_load_initial_conftests(early_config, None, [])


@pytest.mark.parametrize('settings_module', [None, 'other.settings'])
def test_the_controller_hides_the_settings_and_its_workers_get_them_back(monkeypatch, settings_module):
    monkeypatch.delenv('PYTEST_XDIST_WORKER', raising=False)
    monkeypatch.delenv(HIDDEN, raising=False)
    if settings_module:
        monkeypatch.setenv(SETTINGS, settings_module)
    else:
        monkeypatch.delenv(SETTINGS, raising=False)
    load('auto')
    assert os.environ[SETTINGS] == ''  # pytest-django: no settings, no django.setup()
    monkeypatch.setenv('PYTEST_XDIST_WORKER', 'gw0')  # a worker inherits the controller's environment
    load('auto')
    assert os.environ.get(SETTINGS) == settings_module  # None: pyproject.toml's DJANGO_SETTINGS_MODULE applies
    assert HIDDEN not in os.environ


@pytest.mark.parametrize('numprocesses', [None, 0])
def test_a_run_that_is_not_distributed_keeps_its_settings(monkeypatch, numprocesses):
    monkeypatch.delenv('PYTEST_XDIST_WORKER', raising=False)
    monkeypatch.delenv(HIDDEN, raising=False)
    monkeypatch.setenv(SETTINGS, 'netbox.settings')
    load(numprocesses)
    assert os.environ[SETTINGS] == 'netbox.settings' and HIDDEN not in os.environ


def test_this_runs_controller_did_not_set_django_up(request):
    """In a distributed run with the plugin (scripts/test -m pure), the controller tells its workers whether it set
    Django up: it must not have, while this worker has."""
    workerinput = getattr(request.config, 'workerinput', {})
    if CONTROLLER_DJANGO not in workerinput:
        pytest.skip('not a worker of a run with -p tests.xdist_django')
    from django.apps import apps

    assert apps.ready  # the worker: Django as in a one-process run
    assert workerinput[CONTROLLER_DJANGO] is False
