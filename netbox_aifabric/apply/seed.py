"""Shipped intent data: the guide's five traffic classes, the RoCE QoS presets and the demo fabric.

Every loader is idempotent: an object is looked up by its slug (or name) and created only when missing. An object
that exists with the shipped values is left untouched (nothing is written, no change-log entry); one that differs
was edited locally and is kept as it is, unless ``force=True`` resets it to the shipped values.
"""

from dataclasses import dataclass, field

from django.db import transaction

from dcim.models import ConsolePortTemplate, DeviceType, InterfaceTemplate, Manufacturer, Platform, Site
from extras.models import ConfigTemplate
from ipam.models import RIR, VRF, ASNRange, Prefix, RouteTarget
from tenancy.models import Tenant

from netbox_aifabric.apply.shape import fitting_shape
from netbox_aifabric.facts.catalog import (
    MANAGEMENT_DEVICE_TYPE,
    device_template_code,
    device_type_seed,
    qos_presets,
    traffic_class_seed,
)
from netbox_aifabric.facts.nos import HOST_TEMPLATES, NOS_REGISTRY, nos_by_platform
from netbox_aifabric.models import EVPNTenant, Fabric, QoSProfile, TrafficClass
from netbox_aifabric.planner.guide import (
    GUIDE_ASN,
    GUIDE_OVERLAY,
    GUIDE_POOLS,
    GUIDE_QOS_PRESET,
    GUIDE_SHAPE,
    GUIDE_SITE,
    GUIDE_TENANT,
)

__all__ = (
    'LoadReport',
    'demo_hardware',
    'load_config_templates',
    'load_demo',
    'load_device_types',
    'load_qos_presets',
    'load_traffic_classes',
)


@dataclass
class LoadReport:
    created: list = field(default_factory=list)
    unchanged: list = field(default_factory=list)
    kept: list = field(default_factory=list)
    updated: list = field(default_factory=list)

    def merge(self, other):
        for name in ('created', 'unchanged', 'kept', 'updated'):
            getattr(self, name).extend(getattr(other, name))
        return self

    def __str__(self):
        lines = []
        for name, label in (
            ('created', 'created'),
            ('updated', 'reset to shipped values'),
            ('unchanged', 'already present'),
            ('kept', 'edited locally, kept (use --force to reset)'),
        ):
            items = getattr(self, name)
            if items:
                lines.append(f'{len(items)} {label}: {", ".join(str(i) for i in items)}')
        return '\n'.join(lines) or 'nothing to load'


@dataclass
class DeviceTypeReport(LoadReport):
    """Manufacturers and device types by name; their interface and console-port templates counted."""

    templates: LoadReport = field(default_factory=LoadReport)
    consoles: LoadReport = field(default_factory=LoadReport)

    def __str__(self):
        lines = [super().__str__()]
        for what, report in (('interface templates', self.templates), ('console-port templates', self.consoles)):
            counts = ', '.join(
                f'{len(getattr(report, name))} {label}'
                for name, label in (
                    ('created', 'created'),
                    ('updated', 'reset'),
                    ('unchanged', 'present'),
                    ('kept', 'kept'),
                )
                if getattr(report, name)
            )
            if counts:
                lines.append(f'{what}: {counts}')
        return '\n'.join(filter(None, lines))


def _sync(model, lookup, values, report, force=False, m2m=None):
    """Create ``model`` with ``values`` unless an object matching ``lookup`` exists; see the module docstring."""
    obj = model.objects.filter(**lookup).first()
    if obj is None:
        obj = model(**lookup, **values)
        obj.full_clean()
        obj.save()
        for name, members in (m2m or {}).items():
            getattr(obj, name).set(members)
        report.created.append(obj)
        return obj
    differs = [name for name, value in values.items() if getattr(obj, name) != value]
    differs += [
        name
        for name, members in (m2m or {}).items()
        if {m.pk for m in getattr(obj, name).all()} != {m.pk for m in members}
    ]
    if not differs:
        report.unchanged.append(obj)
    elif force:
        obj.snapshot()
        for name, value in values.items():
            setattr(obj, name, value)
        obj.full_clean()
        obj.save()
        for name, members in (m2m or {}).items():
            getattr(obj, name).set(members)
        report.updated.append(obj)
    else:
        report.kept.append(obj)
    return obj


QOS_DEFAULTS = {
    'roce_dscp': [],
    'roce_priority': [],
    'roce_tc': [],
    'cnp_dscp': None,
    'cnp_priority': None,
    'cnp_tc': None,
    'pfc_priorities': [],
    'ecn_enabled': True,
    'ecn_threshold_unit': 'bytes',
    'ecn_min_threshold': None,
    'ecn_max_threshold': None,
    'ecn_probability': None,
    'ecn_tcs': [],
    'strict_tcs': [],
    'dwrr_weights': {},
    'pfc_watchdog': False,
    'pfcwd_poll_interval': None,
    'pfcwd_detection_polls': None,
    'pfcwd_detection_time': None,
    'pfcwd_restoration_time': None,
    'pfcwd_action': None,
    'cable_length': None,
    'mtu': None,
    'description': '',
}


@transaction.atomic
def load_qos_presets(force=False):
    """Load the shipped QoS presets; returns a :class:`LoadReport`."""
    report = LoadReport()
    for preset in qos_presets():
        values = {**QOS_DEFAULTS, **preset}
        slug = values.pop('slug')
        values['preset'] = slug
        _sync(QoSProfile, {'slug': slug}, values, report, force)
    return report


@transaction.atomic
def load_traffic_classes(force=False, prefixes=None):
    """Load the guide's five traffic classes.

    Args:
        force: reset locally edited classes to the shipped values.
        prefixes: optional ``{'192.0.2.0/24': Prefix}`` to link each class to its NetBox prefix.
    """
    report = LoadReport()
    seed = traffic_class_seed()
    by_slug = {}
    for entry in seed:
        values = {k: v for k, v in entry.items() if k not in ('slug', 'reachable_from', 'prefix')}
        tc = by_slug[entry['slug']] = _sync(TrafficClass, {'slug': entry['slug']}, values, report, force)
        # Linking the class to its NetBox prefix fills a gap; it never replaces a prefix chosen locally
        if prefixes and tc.prefix_id is None and prefixes.get(entry['prefix']):
            tc.snapshot()
            tc.prefix = prefixes[entry['prefix']]
            tc.save()
    # The security matrix links classes to each other, so it is set once all of them exist
    for entry in seed:
        tc = by_slug[entry['slug']]
        wanted = {by_slug[s].pk for s in entry['reachable_from']}
        if tc in report.created or (tc in report.updated):
            tc.reachable_from.set(wanted)
    return report


# The demo is the guide's cluster; its shape is declared once in guide.py
DEMO_SITE = GUIDE_SITE
DEMO_POOLS = GUIDE_POOLS


@transaction.atomic
def load_demo(force=False):
    """The guide's 4-node cluster as intent: site, prefixes, pools, the five traffic classes, the QoS presets,
    one EVPN tenant and one draft fabric (2 spines, 2 leaves, 4 GPU servers and a storage node)."""
    report = LoadReport()
    site = _sync(Site, {'slug': DEMO_SITE['slug']}, {'name': DEMO_SITE['name'], 'status': 'active'}, report)
    tenant = _sync(Tenant, {'slug': 'ai-lab'}, {'name': 'AI Lab'}, report)
    prefixes = {}
    for entry in traffic_class_seed():
        prefixes[entry['prefix']] = _sync(
            Prefix,
            {'prefix': entry['prefix'], 'vrf': None},
            {'description': f'{entry["name"]} ({entry["description"]})'},
            report,
        )
    pools = {}
    for name, (prefix, description) in DEMO_POOLS.items():
        pools[name] = _sync(
            Prefix, {'prefix': prefix, 'vrf': None}, {'description': description, 'status': 'container'}, report
        )
    rir = _sync(RIR, {'slug': 'private-asns'}, {'name': 'Private ASNs', 'is_private': True}, report)
    asn_range = _sync(
        ASNRange,
        {'slug': 'ai-lab-leaves'},
        {'name': 'AI Lab leaves', 'rir': rir, 'start': GUIDE_ASN['leaves'][0], 'end': GUIDE_ASN['leaves'][1]},
        report,
    )
    report.merge(load_qos_presets(force))
    report.merge(load_traffic_classes(force, prefixes=prefixes))
    classes = {tc.slug: tc for tc in TrafficClass.objects.filter(slug__in=[e['slug'] for e in traffic_class_seed()])}

    vrf = _sync(VRF, {'name': GUIDE_TENANT['vrf']}, {'rd': GUIDE_TENANT['rd'], 'tenant': tenant}, report)
    rt = _sync(RouteTarget, {'name': GUIDE_TENANT['rd']}, {'tenant': tenant}, report)
    evpn_tenant = _sync(
        EVPNTenant,
        {'slug': 'ai-cluster'},
        {
            'name': GUIDE_TENANT['name'],
            'tenant': tenant,
            'vrf': vrf,
            'l3vni': GUIDE_TENANT['l3vni'],
            'l2vni_base': None,
            'anycast_gateway_mac': '',
        },
        report,
        force,
        m2m={
            'import_targets': [rt],
            'export_targets': [rt],
            'traffic_classes': [classes[slug] for slug in GUIDE_TENANT['classes']],
        },
    )
    _sync(
        Fabric,
        {'slug': 'ai-lab-fabric'},
        {
            'name': 'AI Lab fabric',
            'site': site,
            'status': 'draft',
            'design_option': 'evpn-vxlan',
            'underlay': 'ebgp',
            **GUIDE_SHAPE,
            **GUIDE_OVERLAY,
            'leaf_asn_range': asn_range,
            'qos_profile': QoSProfile.objects.get(slug=GUIDE_QOS_PRESET),
            'description': "The guide's 4-node GPU cluster: 2 spines, 2 leaves, 4 GPU servers and a storage node",
            **pools,
        },
        report,
        force,
        m2m={'traffic_classes': list(classes.values()), 'tenants': [evpn_tenant]},
    )
    return report


def demo_hardware(fabric, nos):
    """Give the demo fabric the NOS ``nos`` (its platform, from ``load_config_templates``) and the shipped leaf and
    spine device types it runs on (``load_device_types``), each only where the fabric has none yet (an edit is kept),
    with the largest maximums their ports hold (``shape.fitting_shape``) while the fabric was never applied; and,
    while never applied and none is chosen, the shipped management switch type (:data:`MANAGEMENT_DEVICE_TYPE`), so
    the plan cables every BMC and switch management port to it.
    Device types that the guide's cluster does not fit (the planner's port check, a named error) are left out: the
    fabric keeps the generic ports. Returns the lines to print, one per change or refusal."""
    lines = []
    entry = nos_by_platform(nos)
    if entry is None:
        raise KeyError(f'{nos!r} is not the platform of a shipped NOS')
    fabric.snapshot()
    if fabric.platform is None:
        fabric.platform = Platform.objects.get(slug=nos)
        lines.append(f'demo fabric: switch platform {fabric.platform}')
    if fabric.leaf_device_type is None and fabric.spine_device_type is None and entry.leaf_device_type:
        leaf = DeviceType.objects.get(slug=entry.leaf_device_type)
        spine = DeviceType.objects.get(slug=entry.spine_device_type)
        sizes = {name: getattr(fabric, name) for name in GUIDE_SHAPE if not name.startswith('max_')}
        sizes['max_leaves'] = fabric.max_leaves
        shape, error = fitting_shape(sizes, leaf, spine, fabric.design_option, fabric.leaf_pairing)
        if shape is None or fabric.last_applied is not None:
            lines.append(f'demo fabric: device types {leaf} / {spine} left out, the cluster does not fit them: {error}')
        else:
            fabric.leaf_device_type, fabric.spine_device_type = leaf, spine
            for name, value in shape.items():
                setattr(fabric, name, value)
            lines.append(
                f'demo fabric: leaf device type {leaf}, spine device type {spine}, at most {shape["max_spines"]} '
                f'spines × {shape["max_parallel_uplinks"]} parallel uplinks (what their ports hold)'
            )
    if fabric.management_device_type is None and fabric.last_applied is None:
        fabric.management_device_type = DeviceType.objects.filter(slug=MANAGEMENT_DEVICE_TYPE).first()
        if fabric.management_device_type is not None:
            lines.append(f'demo fabric: management switch type {fabric.management_device_type}')
    if lines:
        fabric.full_clean()
        fabric.save()
    return lines


@transaction.atomic
def load_config_templates(force=False, platforms=True):
    """The shipped device-config templates as NetBox ConfigTemplates (named ``AI fabric <NOS>``, and ``AI fabric
    host`` for the servers) and, with ``platforms``, one platform per NOS (and the servers' ``aifabric-host``) that
    uses its template, so that ``render-config`` works for every device with that platform. Idempotent; a template
    or platform edited locally is kept unless ``force``."""
    report = LoadReport()
    for entry in (*NOS_REGISTRY, *HOST_TEMPLATES):
        template = _sync(
            ConfigTemplate,
            {'name': entry.template_name},
            {
                'template_code': device_template_code(entry.template),
                'mime_type': entry.mime_type,
                'file_extension': entry.file_extension,
                'description': f'netbox-aifabric: {entry.template}, rendered from the aifabric config context',
            },
            report,
            force,
        )
        if platforms:
            _sync(
                Platform,
                {'slug': entry.platform_slug},
                {'name': entry.platform, 'config_template': template},
                report,
                force,
            )
    return report


@transaction.atomic
def load_device_types(force=False):
    """The shipped switch device types: per YAML file its manufacturer (by name), the device type (by slug) and its
    interface and console-port templates (by name; ``mgmt_only`` as the file says). Idempotent; a device type or
    template edited locally is kept unless ``force``. Templates a file no longer lists are left alone."""
    report = DeviceTypeReport()
    for entry in device_type_seed():
        manufacturer = Manufacturer.objects.filter(name=entry['manufacturer']).first()
        if manufacturer is None:
            slug = entry['manufacturer'].lower().replace(' ', '-')
            manufacturer = _sync(Manufacturer, {'slug': slug}, {'name': entry['manufacturer']}, report)
        elif manufacturer not in report.unchanged + report.created:
            report.unchanged.append(manufacturer)
        device_type = _sync(
            DeviceType,
            {'manufacturer': manufacturer, 'slug': entry['slug']},
            {
                'model': entry['model'],
                'part_number': entry.get('part_number') or '',
                'u_height': entry.get('u_height', 1),
                'is_full_depth': entry.get('is_full_depth', True),
                'comments': entry.get('comments') or '',
            },
            report,
            force,
        )
        for interface in entry.get('interfaces', ()):
            _sync(
                InterfaceTemplate,
                {'device_type': device_type, 'name': interface['name']},
                {'type': interface['type'], 'mgmt_only': bool(interface.get('mgmt_only', False))},
                report.templates,
                force,
            )
        for console in entry.get('console-ports', ()):
            _sync(
                ConsolePortTemplate,
                {'device_type': device_type, 'name': console['name']},
                {'type': console.get('type') or ''},
                report.consoles,
                force,
            )
    return report
