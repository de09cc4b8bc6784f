"""Render the shipped device-config templates the way a NetBox ConfigTemplate does, and compare with golden files."""

import functools
import os
from pathlib import Path

from extras.models import ConfigTemplate

from netbox_aifabric.render.configs import ConfigRenderer

ROOT = Path(__file__).resolve().parents[3]
TEMPLATES = ROOT / 'templates'
GOLDEN = Path(__file__).resolve().parent / 'golden'

__all__ = ('GOLDEN', 'TEMPLATES', 'block', 'check_golden', 'load_yaml', 'render')


def render(template: str, context: dict, **extra) -> str:
    """Render ``templates/<template>`` with ``aifabric`` = ``context`` in NetBox's sandboxed Jinja environment
    (the one ``utilities.jinja2.render_jinja2`` builds for ``ConfigTemplate.render``; NetBox's and the plugin's
    filters), compiled once per template text."""
    code = (TEMPLATES / template).read_text()
    return _compiled(code).render(aifabric=context, **extra).replace('\r\n', '\n')


@functools.cache
def _compiled(code: str):
    """Why cached: compiling is 90-97 % of a render (docs/benchmarks.md) and the pure tier renders about 2,000 times;
    keyed by the text, so an edited template compiles afresh. The plugin's own compile (ConfigRenderer, tested byte
    for byte against NetBox's render-config), for an unsaved ConfigTemplate: no database."""
    config_template = ConfigTemplate(name='test', template_code=code)
    return ConfigRenderer._build(config_template, config_template.get_environment_params())


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


def load_yaml(text: str):
    """``yaml.safe_load`` through libyaml (CSafeLoader: the same YAML 1.1 rules, about 8x faster on an NVUE config)."""
    import yaml

    return yaml.load(text, Loader=getattr(yaml, 'CSafeLoader', yaml.SafeLoader))
