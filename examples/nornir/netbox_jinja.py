"""The Jinja environment NetBox renders a ConfigTemplate in, rebuilt without NetBox: ``render(template_code,
context, environment_params)`` gives byte for byte what ``POST /api/dcim/devices/{id}/render-config/`` returns for a
device whose config context is ``context`` (the plugin's shipped templates read nothing else). Needs jinja2 and this
plugin's package (``netbox_aifabric.render.filters`` imports neither NetBox nor Django). What NetBox 4.7 does, from
its source (``utilities/jinja2.py``, ``render_jinja2``; ``extras/models/mixins.py`` and ``configs.py``,
``RenderTemplateMixin`` and ``ConfigTemplate``), and so this module:

- a ``jinja2.sandbox.SandboxedEnvironment``, with a loader that loads nothing (``BaseLoader``: a template from a
  data file that includes others is not covered here);
- Jinja's defaults unless the template's ``environment_params`` set them: ``trim_blocks``, ``lstrip_blocks`` and
  ``keep_trailing_newline`` off (nornir-jinja2 and Ansible's ``template`` turn ``trim_blocks`` on: a shipped
  template rendered there differs from NetBox's render); only the parameters NetBox allows are kept;
- ``autoescape`` off, whatever the parameters say;
- the filters: the plugin's (``jinja_env.filters``, that is
  ``netbox_aifabric.render.filters.FILTERS``); NetBox's own ``env`` and the instance's ``JINJA_FILTERS`` are not
  here (the shipped templates use neither);
- ``template.render(**context)``, then every CRLF made LF.
"""

import jinja2
from jinja2 import BaseLoader
from jinja2.sandbox import SandboxedEnvironment

from netbox_aifabric.render.filters import FILTERS

__all__ = ('ENVIRONMENT_KEYS', 'netbox_environment', 'render')

# What NetBox keeps of a template's environment_params, and the names its ``undefined`` takes (extras/constants.py,
# JINJA_ENV_PARAMS_ALLOWED): the other keys (loader, extensions, …) are dropped there, so here too
ENVIRONMENT_KEYS = {
    'auto_reload', 'autoescape', 'cache_size', 'enable_async', 'keep_trailing_newline', 'lstrip_blocks', 'optimized',
    'trim_blocks', 'block_start_string', 'block_end_string', 'comment_start_string', 'comment_end_string',
    'line_comment_prefix', 'line_statement_prefix', 'newline_sequence', 'variable_start_string', 'variable_end_string',
    'undefined',
}  # fmt: skip
UNDEFINED = {f'jinja2.{name}': getattr(jinja2, name) for name in ('ChainableUndefined', 'DebugUndefined',
             'StrictUndefined', 'Undefined')}  # fmt: skip


def netbox_environment(environment_params: dict | None = None) -> SandboxedEnvironment:
    """The environment NetBox builds for a ConfigTemplate with these ``environment_params`` (the module's list)."""
    params = {key: value for key, value in (environment_params or {}).items() if key in ENVIRONMENT_KEYS}
    if 'undefined' in params:
        params['undefined'] = UNDEFINED[params['undefined']]
    environment = SandboxedEnvironment(**{**params, 'autoescape': False, 'loader': BaseLoader()})
    environment.filters.update(FILTERS)
    return environment


def render(template_code: str, context: dict, environment_params: dict | None = None) -> str:
    """``template_code`` rendered as NetBox renders it, CRLF line ends made LF as NetBox does."""
    template = netbox_environment(environment_params).from_string(template_code)
    return template.render(**context).replace('\r\n', '\n')
