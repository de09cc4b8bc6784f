"""Render the device configurations of a whole fabric with the devices' NetBox ConfigTemplates.

NetBox renders one device at a time: ``POST /api/dcim/devices/{id}/render-config/`` calls ``ConfigTemplate.render``,
which builds a sandboxed Jinja environment, compiles the template and collects the template context (every public
model, the plugins' Jinja context) on each call. For the shipped templates the compile alone is 86–99 % of a render
(docs/benchmarks.md). :class:`ConfigRenderer` compiles each ConfigTemplate once and collects the template context once
per renderer, then renders each device
with its config context: the output is byte-for-byte what ``render-config`` returns for that device (tested), at the
cost of the render alone.

A compiled template is kept for the process (a small LRU cache) under the template's id, a hash of its code and its
environment parameters, so an edited template is compiled afresh; a template from a data file is compiled once per
renderer (one request, one command run) only, so that the files it includes are read afresh. Errors are per device,
formatted by the template as NetBox formats them.
"""

import hashlib
import io
import json
import tarfile
import threading
import time
from collections import OrderedDict, defaultdict
from dataclasses import dataclass, field

from django.db.models import QuerySet
from jinja2 import BaseLoader
from jinja2.sandbox import SandboxedEnvironment

from dcim.models import Device
from extras.models import ConfigTemplate
from utilities.jinja2 import DataFileLoader, _jinja2_filters

from netbox_aifabric.models import OwnedObject

__all__ = ('ConfigRenderer', 'RenderedConfig', 'configs_archive', 'fabric_devices')

CACHE_SIZE = 32  # compiled templates kept for the process
_cache: OrderedDict = OrderedDict()
_cache_lock = threading.Lock()


@dataclass
class RenderedConfig:
    """One device's configuration: ``content`` when it rendered, ``error`` (NetBox's message) when it did not, neither
    when the device has no config template."""

    device: Device
    config_template: ConfigTemplate | None
    content: str | None = None
    error: str | None = None

    @property
    def rendered(self) -> bool:
        return self.content is not None

    @property
    def filename(self) -> str:
        """``<device>.<the template's file extension>`` (``.txt`` when it has none)."""
        extension = (self.config_template.file_extension if self.config_template else '') or 'txt'
        return f'{self.device.name}.{extension}'


def _cache_key(config_template, params):
    """The process cache's key, or None for a template that is not cached (unsaved, or from a data file)."""
    if config_template.pk is None or getattr(config_template, 'data_file', None):
        return None
    code = hashlib.sha256(config_template.template_code.encode('utf-8')).hexdigest()
    return config_template.pk, code, json.dumps(params, sort_keys=True, default=repr)


@dataclass
class ConfigRenderer:
    """Renders devices with their ConfigTemplates (the device's own, else its role's, else its platform's, as NetBox
    resolves it), or with ``config_template`` for every device. ``context`` is merged into each device's config context
    as the body of ``render-config`` is."""

    config_template: ConfigTemplate | None = None
    context: dict = field(default_factory=dict)
    _compiled: dict = field(default_factory=dict, repr=False)  # the compiled templates this renderer used
    _base: dict | None = field(default=None, repr=False)  # ConfigTemplate.get_context(): models, plugin context
    compiled: int = 0  # templates this renderer compiled (the others came from the process cache)

    @property
    def templates(self) -> int:
        """The config templates this renderer used."""
        return len(self._compiled)

    def template_for(self, device: Device) -> ConfigTemplate | None:
        return self.config_template or device.get_config_template()

    def _compile(self, config_template: ConfigTemplate):
        """The template, compiled in the environment ``utilities.jinja2.render_jinja2`` would build for it."""
        mine = config_template.pk if config_template.pk is not None else id(config_template)
        template = self._compiled.get(mine)
        if template is not None:
            return template
        params = config_template.get_environment_params()
        if getattr(config_template, 'debug', False):
            extensions = list(params.get('extensions', []))
            if 'jinja2.ext.debug' not in extensions:
                extensions.append('jinja2.ext.debug')
            params['extensions'] = extensions
        key = _cache_key(config_template, params)
        with _cache_lock:
            template = _cache.get(key) if key is not None else None
            if template is not None:
                _cache.move_to_end(key)
        if template is None:
            template = self._build(config_template, params)
            self.compiled += 1
            if key is not None:
                with _cache_lock:
                    _cache[key] = template
                    while len(_cache) > CACHE_SIZE:
                        _cache.popitem(last=False)
        self._compiled[mine] = template
        return template

    @staticmethod
    def _build(config_template, params):
        data_file = getattr(config_template, 'data_file', None)
        if 'loader' not in params:
            if data_file:
                params['loader'] = DataFileLoader(data_file.source)
                params['loader'].cache_templates({data_file.path: config_template.template_code})
            else:
                params['loader'] = BaseLoader()
        environment = SandboxedEnvironment(**params)
        environment.filters.update(_jinja2_filters())
        if data_file:
            return environment.get_template(data_file.path)
        return environment.from_string(source=config_template.template_code)

    def render(self, device: Device) -> RenderedConfig:
        config_template = self.template_for(device)
        result = RenderedConfig(device, config_template)
        if config_template is None:
            return result
        try:
            template = self._compile(config_template)
            if self._base is None:  # the same for every template: built once per renderer
                self._base = dict(config_template.get_context())
            # ConfigTemplate.render's context: its base (a fresh dict per app label, so that one render cannot
            # change the next), then the device's config context, the request's context and the device itself
            context = defaultdict(dict, {k: dict(v) if type(v) is dict else v for k, v in self._base.items()})
            context.update(device.get_config_context())
            context.update(self.context)
            context['device'] = device
            result.content = template.render(**context).replace('\r\n', '\n')
        except Exception as e:  # as NetBox's render-config: any error is the template's, reported per device
            result.error = config_template.format_render_error(e)
        return result

    def render_all(self, devices) -> list[RenderedConfig]:
        """Every device rendered, in the order given. From a queryset, the devices are first loaded without their
        config context data (JSON), then only those with a template again with it."""
        if not isinstance(devices, QuerySet):
            return [self.render(device) for device in devices]
        light = list(devices.defer('local_context_data', '_config_context_data'))
        wanted = [d.pk for d in light if self.template_for(d) is not None]
        loaded = {}
        if wanted:
            # NetBox's pre-rendered context, or for a device whose cache is empty the aggregate its on-demand render
            # would query for, in this one query
            heavy = devices.filter(pk__in=wanted).annotate_config_context_data(only_invalidated=True)
            loaded = {d.pk: d for d in heavy}
        return [self.render(loaded[d.pk]) if d.pk in loaded else RenderedConfig(d, None) for d in light]


def fabric_devices(fabric, user=None):
    """The devices the fabric created or adopted, by name, with their config templates (device, role, platform)
    joined. With ``user``, only those the user may view and render, as NetBox's ``render-config`` restricts them."""
    ids = OwnedObject.objects.filter(fabric=fabric, key__startswith='device:').values('object_id')
    devices = Device.objects.filter(pk__in=ids)
    if user is not None:
        devices = devices.restrict(user, 'render_config').restrict(user, 'view')
    return devices.select_related(
        'config_template__data_file', 'role__config_template__data_file', 'platform__config_template__data_file'
    ).order_by('name', 'pk')


def configs_archive(configs, folder: str) -> bytes:
    """A gzipped tar of the rendered configurations, ``<folder>/<device>.<extension>`` each."""
    buffer = io.BytesIO()
    now = time.time()
    with tarfile.open(fileobj=buffer, mode='w:gz') as archive:
        for config in configs:
            if not config.rendered:
                continue
            data = config.content.encode('utf-8')
            member = tarfile.TarInfo(f'{folder}/{config.filename}')
            member.size, member.mtime, member.mode = len(data), now, 0o644
            archive.addfile(member, io.BytesIO(data))
    return buffer.getvalue()
