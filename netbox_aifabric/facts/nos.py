"""The network operating systems the plugin renders for, declared once (pure: the standard library only).

One entry per NOS: its ``key`` (the templates' ``aifabric_interface('<key>')`` argument, the runbook's and the
counter uploads' name for it), the NetBox platform it renders for, its ConfigTemplate (a file of the top-level
``templates/``, installed as ``netbox_aifabric.device_templates``), the shipped device types it runs on, how it names
LAGs and ports, its acceptance runbook's commands and which of them NetBox judges. ``apply/seed.py`` loads the
platforms and templates, ``render/filters.py`` reads the naming, ``acceptance/`` the commands (its parsers stay
there, keyed by ``key`` and the kinds of ``judged``). Adding a NOS starts here; docs/development.md, "Adding a NOS",
lists the rest.
"""

from dataclasses import dataclass

__all__ = (
    'HOST',
    'HOST_TEMPLATES',
    'NOS_REGISTRY',
    'RUNBOOK_CHECKS',
    'HostTemplate',
    'Nos',
    'RunbookCommands',
    'acceptance_nos',
    'nos_by_key',
    'nos_by_platform',
    'nos_by_template_name',
)

# The runbook's per-switch checks with NOS-specific commands (acceptance/runbook.py): physical per port, EVPN per
# switch, RoCE counters per switch (a command with {port} runs per port)
RUNBOOK_CHECKS = ('physical', 'evpn', 'roce')


@dataclass(frozen=True)
class RunbookCommands:
    """The acceptance runbook's commands of one NOS, per check of ``RUNBOOK_CHECKS`` (``{port}``: the switch port)."""

    physical: tuple[str, ...] = ()  # speed and FEC, error counters (CRC/FCS), link flaps
    evpn: tuple[str, ...] = ()  # EVPN sessions, VNI state, MAC/IP (type-2) and IMET (type-3) routes
    roce: tuple[str, ...] = ()  # PFC pause frames, queue drops, ECN marks, before and after the load


@dataclass(frozen=True)
class Nos:
    """One NOS. ``runbook`` None: no switch acceptance runbook of its own (FRR runs on servers or any box)."""

    key: str
    platform: str  # NetBox platform name and slug (seeded; a device's platform picks the template and the runbook)
    platform_slug: str
    template: str  # the ConfigTemplate file under templates/, its NetBox name, MIME type and file extension
    template_name: str
    mime_type: str
    file_extension: str
    # The shipped device types (data/device_types/, by slug) this NOS runs on: the guide's 48x25G + 8x100G ToR and a
    # 32x100G spine; the wizard and the demo choose them with the NOS (FRR runs on servers or any box: none)
    leaf_device_type: str = ''
    spine_device_type: str = ''
    # How the NOS names what the context names generically (the planner's Port-Channel<n> LAGs and, for generic
    # platforms, Ethernet<n> ports): prefix -> its own prefix, the number kept
    interface_naming: tuple[tuple[str, str], ...] = ()
    runbook: RunbookCommands | None = None
    # (kind, command): the runbook commands whose output NetBox judges, uploaded as tool '<key>-<kind>' (the runbook
    # script's counter_tool; acceptance/counters.py holds a parser for each kind)
    judged: tuple[tuple[str, str], ...] = ()

    @property
    def counter_tools(self) -> tuple[str, ...]:
        """The kinds of the judged counter uploads (tool ``<key>-<kind>``)."""
        return tuple(kind for kind, _ in self.judged)


SONIC = Nos(
    key='sonic',
    platform='SONiC',
    platform_slug='sonic',
    template='sonic/config_db.json.j2',
    template_name='AI fabric SONiC',
    mime_type='application/json',
    file_extension='json',
    leaf_device_type='arista-dcs-7050sx3-48yc8-sonic',
    spine_device_type='7726-32x-o',
    interface_naming=(('Port-Channel', 'PortChannel'),),
    runbook=RunbookCommands(
        physical=(
            'show interfaces status {port}',
            'show interfaces fec status {port}',
            'show interfaces counters errors',
            'show interfaces flap {port}',
        ),
        evpn=(
            'vtysh -c "show bgp l2vpn evpn summary"',
            'vtysh -c "show evpn vni"',
            'vtysh -c "show bgp l2vpn evpn route"',
        ),
        # sonic-utilities doc/Command-Reference.md (show pfc counters, show queue counters, show queue wredcounters)
        roce=('show pfc counters', 'show queue counters', 'show queue wredcounters'),
    ),
    judged=(('pfc', 'show pfc counters'), ('queue', 'show queue counters')),
)
NVUE = Nos(
    key='nvue',
    platform='NVIDIA Cumulus Linux',
    platform_slug='cumulus',
    template='cumulus/startup.yaml.j2',
    template_name='AI fabric NVIDIA Cumulus NVUE',
    mime_type='text/yaml',
    file_extension='yaml',
    leaf_device_type='msn2410-bb2fc',
    spine_device_type='sn2700',
    interface_naming=(('Port-Channel', 'bond'), ('Ethernet', 'swp')),
    runbook=RunbookCommands(
        physical=(
            'nv show interface {port} link',
            'nv show interface {port} counters',
            'nv show interface {port} counters errors',
            'nv show interface {port} link state',
        ),
        evpn=('nv show evpn vni', 'nv show vrf default router bgp neighbor', 'vtysh -c "show bgp l2vpn evpn route"'),
        # the NVUE command reference (Cumulus Linux 5.5 and later)
        roce=(
            'nv show interface {port} counters qos pfc-stats',
            'nv show interface {port} counters qos egress-queue-stats',
            'nv show interface {port} counters qos port-stats',
        ),
    ),
    judged=(
        ('errors', 'nv show interface {port} counters errors'),
        ('pfc', 'nv show interface {port} counters qos pfc-stats'),
        ('queue', 'nv show interface {port} counters qos egress-queue-stats'),
        ('ecn', 'nv show interface {port} counters qos port-stats'),
    ),
)
EOS = Nos(
    key='eos',
    platform='Arista EOS',
    platform_slug='arista-eos',
    template='eos/eos.cfg.j2',
    template_name='AI fabric Arista EOS',
    mime_type='text/plain',
    file_extension='cfg',
    leaf_device_type='arista-dcs-7050sx3-48yc8',
    spine_device_type='arista-dcs-7060cx-32s',
    runbook=RunbookCommands(
        physical=(
            'show interfaces {port} status',
            'show interfaces {port} phy detail',
            'show interfaces {port} counters errors | json',
            'show interfaces {port} | include (CRC|link status changes)',
        ),
        evpn=(
            'show bgp evpn summary',
            'show vxlan vni',
            'show bgp evpn route-type mac-ip',
            'show bgp evpn route-type imet',
        ),
        # the JSON of the per-priority PFC counters and of the ECN counters per queue (their fields' sources:
        # acceptance/counters_nos.py); queue drops are saved for review (no documented JSON found)
        roce=(
            'show interfaces {port} priority-flow-control counters detail | json',
            'show interfaces counters queue drops',
            'show qos interfaces ecn counters queue | json',
        ),
    ),
    judged=(
        ('errors', 'show interfaces {port} counters errors | json'),
        ('pfc', 'show interfaces {port} priority-flow-control counters detail | json'),
        ('ecn', 'show qos interfaces ecn counters queue | json'),
    ),
)
FRR = Nos(
    key='frr',
    platform='FRR',
    platform_slug='frr',
    template='frr/frr.conf.j2',
    template_name='AI fabric FRR',
    mime_type='text/plain',
    file_extension='conf',
    interface_naming=(('Port-Channel', 'PortChannel'),),  # FRR runs on SONiC here: SONiC's kernel names
)
NOS_REGISTRY: tuple[Nos, ...] = (SONIC, NVUE, EOS, FRR)


def nos_by_key(key: str) -> Nos:
    """The NOS named ``key`` (KeyError names an unknown one)."""
    for nos in NOS_REGISTRY:
        if nos.key == key:
            return nos
    raise KeyError(f'{key!r} is not a NOS: one of {", ".join(n.key for n in NOS_REGISTRY)}')


def nos_by_platform(slug: str) -> Nos | None:
    """The NOS of the NetBox platform ``slug``, None for a platform the plugin does not render for."""
    return next((nos for nos in NOS_REGISTRY if nos.platform_slug == slug), None)


def nos_by_template_name(name: str) -> Nos | None:
    """The NOS whose shipped ConfigTemplate is named ``name``, None for another template."""
    return next((nos for nos in NOS_REGISTRY if nos.template_name == name), None)


def acceptance_nos() -> tuple[Nos, ...]:
    """The NOSes with a switch acceptance runbook of their own, in the registry's order."""
    return tuple(nos for nos in NOS_REGISTRY if nos.runbook is not None)


@dataclass(frozen=True)
class HostTemplate:
    """A server config template: like a NOS's (a file of the top-level ``templates/``, a ConfigTemplate and a NetBox
    platform that uses it), but no switch: no device types, interface naming or runbook. Kept out of
    ``NOS_REGISTRY``, which the switch runbooks, counters and wizard iterate."""

    key: str
    platform: str
    platform_slug: str
    template: str
    template_name: str
    mime_type: str
    file_extension: str


# The servers' netplan and RoCE NIC settings (facts/host.py, docs/host-config.md): a bash script
HOST = HostTemplate(
    key='host',
    platform='AI fabric host (Linux, netplan)',
    platform_slug='aifabric-host',
    template='host/host.sh.j2',
    template_name='AI fabric host',
    mime_type='text/x-shellscript',
    file_extension='sh',
)
HOST_TEMPLATES: tuple[HostTemplate, ...] = (HOST,)
