"""The AI fabric's switches in Nornir, from NetBox's REST API alone (no NetBox or Django on the Nornir host):

- ``AIFabricInventory``, a Nornir inventory plugin: one host per switch of the plugin's roles, ``hostname`` its
  management address (NetBox's out-of-band IP, which the apply sets from the management network), ``platform`` its
  NetBox platform slug, ``data['aifabric']`` its ``aifabric`` config context;
- ``render_netbox``, a task: NetBox renders the switch's config (``POST /api/dcim/devices/{id}/render-config/``);
- ``render_local``, a task: the same config rendered here, from the device's config context and the code of its
  ConfigTemplate, in the Jinja environment NetBox builds for a ConfigTemplate, with the plugin's filters
  (``netbox_jinja.render``, next to this file): byte for byte NetBox's render.

docs/automation.md describes it; examples/nornir/render_configs.py runs it.
"""

import json
import ssl
import urllib.parse
import urllib.request
from dataclasses import dataclass
from typing import Any

from netbox_jinja import render
from nornir.core.inventory import Defaults, Groups, Host, Hosts, Inventory
from nornir.core.plugins.inventory import InventoryPluginRegister
from nornir.core.task import Result, Task

SWITCH_ROLES = ('ai-fabric-leaf', 'ai-fabric-spine')  # the plugin's generic roles (a fabric with its own: name those)


@dataclass(frozen=True)
class NetBox:
    """A token's view of NetBox's REST API (``url`` without ``/api``)."""

    url: str
    token: str
    verify: bool = True

    def request(self, path: str, body: dict | None = None) -> Any:
        # v2 tokens (nbt_<key>.<token>) take the Bearer keyword, v1 tokens the Token keyword
        keyword = 'Bearer' if self.token.startswith('nbt_') else 'Token'
        headers = {'Authorization': f'{keyword} {self.token}', 'Accept': 'application/json'}
        data = None
        if body is not None:
            data, headers['Content-Type'] = json.dumps(body).encode(), 'application/json'
        request = urllib.request.Request(self.url.rstrip('/') + path, data=data, headers=headers)
        context = None
        if not self.verify:  # a lab NetBox with a self-signed certificate
            context = ssl.create_default_context()
            context.check_hostname, context.verify_mode = False, ssl.CERT_NONE
        with urllib.request.urlopen(request, context=context, timeout=60) as response:
            return json.load(response)

    def relative(self, url: str) -> str:
        """A URL NetBox returned (a next page) as a path under ``self.url``: its host is the one NetBox saw, maybe
        not ours behind a proxy."""
        parts = urllib.parse.urlsplit(url)
        base = urllib.parse.urlsplit(self.url).path.rstrip('/')
        return parts.path.removeprefix(base) + (f'?{parts.query}' if parts.query else '')

    def every(self, path: str, **query: Any) -> list[dict]:
        """Every object of a list endpoint, page after page."""
        page: str | None = f'{path}?{urllib.parse.urlencode({**query, "limit": 100}, doseq=True)}'
        found: list[dict] = []
        while page:
            answer = self.request(page)
            found += answer['results']
            page = answer['next'] and self.relative(answer['next'])
        return found


def management_address(device: dict) -> str | None:
    """The switch's management address without its prefix length (its out-of-band IP), None without one."""
    oob = device.get('oob_ip')
    return oob['address'].split('/')[0] if oob else None


class AIFabricInventory:
    """Nornir inventory plugin (``AIFabricInventory``): the fabric's switches from NetBox. Options: ``url``, ``token``,
    ``roles`` (default ``SWITCH_ROLES``), ``verify`` (TLS). Raises when no switch matches: an empty inventory would
    make every task succeed on nothing."""

    def __init__(self, url: str, token: str, roles: tuple[str, ...] = SWITCH_ROLES, verify: bool = True) -> None:
        self.netbox = NetBox(url, token, verify)
        self.roles = tuple(roles)

    def load(self) -> Inventory:
        devices = self.netbox.every('/api/dcim/devices/', role=self.roles, ordering='name')
        if not devices:
            raise ValueError(f'no device with role {" or ".join(self.roles)} in NetBox at {self.netbox.url}')
        hosts = Hosts()
        for device in devices:
            platform = device['platform']
            hosts[device['name']] = Host(
                name=device['name'],
                hostname=management_address(device),
                platform=platform['slug'] if platform else None,
                data={
                    'netbox_id': device['id'],
                    'role': device['role']['slug'],
                    'aifabric': (device['config_context'] or {}).get('aifabric'),
                    'config_context': device['config_context'],
                    'config_template_id': (device.get('config_template') or {}).get('id'),
                },
            )
        return Inventory(hosts=hosts, groups=Groups(), defaults=Defaults())


InventoryPluginRegister.register('AIFabricInventory', AIFabricInventory)


def config_template_of(netbox: NetBox, device: dict) -> dict | None:
    """The ConfigTemplate NetBox renders ``device`` with: its own, else its role's, else its platform's."""
    holders = [device]
    for owner, path in (('role', '/api/dcim/device-roles/'), ('platform', '/api/dcim/platforms/')):
        if device[owner]:
            holders.append(netbox.request(f'{path}{device[owner]["id"]}/'))
    for holder in holders:
        if holder.get('config_template'):
            return netbox.request(f'/api/extras/config-templates/{holder["config_template"]["id"]}/')
    return None


def render_netbox(task: Task, netbox: NetBox) -> Result:
    """Task: NetBox's render of the host's config (``render-config`` writes nothing)."""
    answer = netbox.request(f'/api/dcim/devices/{task.host["netbox_id"]}/render-config/', body={})
    return Result(host=task.host, result=answer['content'])


def render_local(task: Task, netbox: NetBox) -> Result:
    """Task: the host's config rendered here from its config context and its ConfigTemplate's code."""
    device = netbox.request(f'/api/dcim/devices/{task.host["netbox_id"]}/')
    template = config_template_of(netbox, device)
    if template is None:
        return Result(host=task.host, failed=True, result=f'{task.host.name} has no config template')
    # what render-config passes: the config context (the device object itself is not available outside NetBox)
    content = render(template['template_code'], dict(device['config_context']), template['environment_params'])
    return Result(host=task.host, result=content)
