"""The demo server (scripts/run) runs without Django's debug toolbar unless asked for."""

import importlib.util
from pathlib import Path

import pytest

pytestmark = pytest.mark.pure

DEVENV = Path(__file__).resolve().parents[2] / 'scripts' / 'devenv.py'


def internal_ips(environ):
    """INTERNAL_IPS as the generated dev configuration computes it under ``environ`` (NetBox's show_toolbar shows
    the toolbar with DEBUG to a request from one of them, and to everyone when the tuple is empty)."""
    spec = importlib.util.spec_from_file_location('devenv', DEVENV)
    devenv = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(devenv)
    text = devenv.DEV_TEMPLATE.format(header='', base='x', db='d', plugin='p', toolbar=devenv.DEBUG_TOOLBAR)
    line = next(line for line in text.splitlines() if line.startswith('INTERNAL_IPS'))
    namespace = {'os': type('Os', (), {'environ': environ})}
    exec(line, namespace)
    return namespace['INTERNAL_IPS']


def test_no_toolbar_unless_asked_for():
    ips = internal_ips({})
    assert ips and '127.0.0.1' not in ips and '::1' not in ips  # never empty: empty shows it to everyone


def test_the_toolbar_when_asked_for():
    assert '127.0.0.1' in internal_ips({'AIFABRIC_DEBUG_TOOLBAR': '1'})
