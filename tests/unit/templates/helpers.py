"""Render the shipped device-config templates the way a NetBox ConfigTemplate does, and compare with golden files."""

import os
from pathlib import Path

from utilities.jinja2 import render_jinja2

ROOT = Path(__file__).resolve().parents[3]
TEMPLATES = ROOT / 'templates'
GOLDEN = Path(__file__).resolve().parent / 'golden'

__all__ = ('GOLDEN', 'TEMPLATES', 'block', 'check_golden', 'render')


def render(template: str, context: dict, **extra) -> str:
    """Render ``templates/<template>`` with ``aifabric`` = ``context`` in NetBox's sandboxed Jinja environment
    (``utilities.jinja2.render_jinja2``, which ``ConfigTemplate.render`` calls; NetBox's and the plugin's filters)."""
    code = (TEMPLATES / template).read_text()
    return render_jinja2(code, {'aifabric': context, **extra}).replace('\r\n', '\n')


def check_golden(name: str, text: str):
    """Compare ``text`` with ``golden/<name>``; ``UPDATE_GOLDEN=1`` rewrites the file instead."""
    path = GOLDEN / name
    if os.environ.get('UPDATE_GOLDEN'):
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    assert text == path.read_text(), f'{name} differs from the golden file (UPDATE_GOLDEN=1 to accept a change)'


def block(config, header):
    """The indented lines under a top-level EOS line (``interface Ethernet49``, ``router bgp 65101``)."""
    lines = config.splitlines()
    assert header in lines, f'no "{header}"'
    body = []
    for line in lines[lines.index(header) + 1 :]:
        if not line.startswith(' '):
            break
        body.append(line)
    return body
