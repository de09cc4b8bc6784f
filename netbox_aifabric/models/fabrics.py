import copy
from decimal import Decimal

import netaddr
from django.conf import settings
from django.contrib.postgres.fields import ArrayField
from django.core.exceptions import ValidationError
from django.core.validators import MaxValueValidator, MinValueValidator
from django.db import connection, models, transaction
from django.utils.text import format_lazy
from django.utils.translation import gettext_lazy as _

from ipam.fields import ASNField
from netbox.models import PrimaryModel
from netbox.models.features import JobsMixin
from utilities.exceptions import AbortRequest

from netbox_aifabric.choices import (
    BmcAttachmentChoices,
    DesignOptionChoices,
    FabricNodeRoleChoices,
    FabricStatusChoices,
    LeafPairingChoices,
    LinkSpeedChoices,
    RdmaNicFamilyChoices,
    SnmpVersionChoices,
    UnderlayChoices,
)
from netbox_aifabric.constants import DEFAULT_BACKUP_PATTERN, FABRIC_NAME_MAX, FABRIC_SLUG_MAX, MTU_MAX, MTU_MIN
from netbox_aifabric.facts.telemetry import DEFAULT_SFLOW_SAMPLING_RATE, DEFAULT_SNMP_USER
from netbox_aifabric.intake.validation import plan_errors
from netbox_aifabric.models.nodes import COUNT_FIELDS, FabricNode, default_pair, node_name, place_servers
from netbox_aifabric.planner import SpecError, pool_needs
from netbox_aifabric.planner.requirements import required_inputs
from netbox_aifabric.validators import (
    check_pool,
    find_vni_reuse,
    m2m_members,
    normalize_mac,
    validate_backup_pattern,
    validate_config_repository,
    validate_git_branch,
    validate_mac,
    validate_no_control_characters,
    validate_port_map,
    validate_snmp_user,
    validate_vni,
)

__all__ = ('Fabric',)

# What an apply records on the fabric (saved alone: see signals.LIFECYCLE_FIELDS)
LIFECYCLE_UPDATE_FIELDS = (
    'status',
    'applied_allocations',
    'last_applied',
    'last_applied_by',
    'last_plan_hash',
    'last_apply_request_id',
    'pending_change',
    'last_updated',
)
# Where the fabric's configs are kept (Git) and read from (backups): no plan, context or config reads them
CONFIG_MANAGEMENT_FIELDS = (
    'config_repository',
    'config_repository_branch',
    'config_backup_source',
    'config_backup_pattern',
)
# The apply's record on the fabric: written by the apply (and compliance) alone, under the fabric's row lock; an
# edit's save takes it as stored (see Fabric.save)
APPLY_RECORD_FIELDS = (
    'status',
    'applied_allocations',
    'last_applied',
    'last_applied_by_id',
    'last_plan_hash',
    'last_apply_request_id',
    'pending_change',
)
OVERSUBSCRIPTION_MIN, OVERSUBSCRIPTION_MAX = Decimal('1'), Decimal('100')
# the prefixes a fabric numbers from: apart from each other and from every other fabric's (the management network too:
# two fabrics counting switch addresses down from the same network's top would collide)
TELEMETRY_COLLECTORS_MAX = 4  # per service (sFlow: 2, SONiC's sonic-sflow.yang maximum)
COLLECTOR_FIELDS = ('syslog_servers', 'ntp_servers', 'snmp_managers', 'sflow_collectors', 'streaming_collectors')
TELEMETRY_FIELDS = (
    'syslog_servers',
    'ntp_servers',
    'snmp_managers',
    'snmp_version',
    'snmp_user',
    'sflow_collectors',
    'sflow_sampling_rate',
    'streaming_collectors',
)
POOL_FIELDS = ('loopback_pool', 'vtep_pool', 'p2p_pool', 'mlag_peer_pool', 'management_pool')
POOL_LOCK_KEY = 0x41494642_0001  # pg_advisory_xact_lock key of "a fabric's pools are being saved" (AIFB, 1)


def _count_field(verbose_name, default, help_text=''):
    return models.PositiveSmallIntegerField(verbose_name=verbose_name, default=default, help_text=help_text)


def _pool_field(verbose_name, help_text):
    return models.ForeignKey(
        to='ipam.Prefix',
        on_delete=models.PROTECT,
        related_name='+',
        blank=True,
        null=True,
        verbose_name=verbose_name,
        help_text=help_text,
    )


def _collector_field(verbose_name, help_text, size=TELEMETRY_COLLECTORS_MAX):
    return ArrayField(
        base_field=models.GenericIPAddressField(protocol='IPv4'),
        size=size,
        verbose_name=verbose_name,
        blank=True,
        default=list,
        help_text=format_lazy('{} ({})', help_text, _('IPv4 addresses, comma-separated; at most {n}').format(n=size)),
    )


def _device_field(model, verbose_name, help_text=''):
    help_text = help_text or _('Empty: a generic one the apply creates')
    return models.ForeignKey(
        to=model,
        on_delete=models.PROTECT,
        related_name='+',
        blank=True,
        null=True,
        verbose_name=verbose_name,
        help_text=help_text,
    )


# The planner's required inputs (planner.requirements.required_inputs) as Fabric fields, and what the wizard says
REQUIRED_FIELDS = {
    'pools.loopback': 'loopback_pool',
    'pools.p2p': 'p2p_pool',
    'pools.vtep': 'vtep_pool',
    'pools.mlag_peer': 'mlag_peer_pool',
    'spine_asn': 'spine_asn',
    'leaf_asn_range': 'leaf_asn_range',
}
REQUIRED_MESSAGES = {
    'pools.loopback': _('Every fabric needs a loopback pool.'),
    'pools.p2p': _(
        'Numbered leaf–spine links (now or up to the declared maximum) need a point-to-point pool; an unnumbered '
        'underlay needs none.'
    ),
    'pools.vtep': _('EVPN/VXLAN needs a VTEP pool.'),
    'pools.mlag_peer': _('MLAG-paired leaves need an MLAG peer pool (a /31 per pair).'),
    'spine_asn': _('The underlay or the EVPN overlay needs a spine ASN.'),
    'leaf_asn_range': _('An eBGP underlay needs a leaf ASN range.'),
}


class Fabric(JobsMixin, PrimaryModel):
    """
    The design intent of one leaf-spine fabric: the design option, the sizes with their explicit maximums (so that
    growing never renumbers), link speeds, the server NIC layout, the address/ASN/VNI pools and the traffic classes,
    QoS profile and EVPN tenants it carries. It stores intent only; the planner turns it into allocations.
    """

    name = models.CharField(
        verbose_name=_('name'), max_length=100, unique=True, validators=[validate_no_control_characters]
    )
    slug = models.SlugField(verbose_name=_('slug'), max_length=100, unique=True)
    site = models.ForeignKey(to='dcim.Site', on_delete=models.PROTECT, related_name='+', verbose_name=_('site'))
    status = models.CharField(
        verbose_name=_('status'), max_length=30, choices=FabricStatusChoices, default=FabricStatusChoices.DRAFT
    )
    design_option = models.CharField(
        verbose_name=_('design option'), max_length=20, choices=DesignOptionChoices, default=DesignOptionChoices.ROUTED
    )
    underlay = models.CharField(
        verbose_name=_('underlay'), max_length=16, choices=UnderlayChoices, default=UnderlayChoices.EBGP
    )
    leaf_pairing = models.CharField(
        verbose_name=_('leaf pairing'),
        max_length=10,
        choices=LeafPairingChoices,
        default=LeafPairingChoices.MLAG,
        help_text=_(
            'How the leaves of a pair serve the server bonds: MLAG with a peer link (every design), or EVPN '
            'multihoming, an ESI-LAG with no peer link and a VTEP per leaf (EVPN/VXLAN only)'
        ),
    )

    # Sizes and their explicit maximums
    spine_count = _count_field(_('spines'), 2)
    max_spines = _count_field(_('max spines'), 4, _('Spines the numbering reserves room for'))
    leaf_count = _count_field(_('leaves'), 2)
    max_leaves = _count_field(_('max leaves'), 8, _('Leaves the numbering reserves room for'))
    uplinks_per_spine = _count_field(_('uplinks per spine'), 1, _('Parallel links from each leaf to each spine'))
    max_parallel_uplinks = _count_field(_('max parallel uplinks'), 2)
    server_count = _count_field(_('GPU servers'), 4)
    storage_count = _count_field(_('storage nodes'), 1)

    # Speeds and NIC layout
    uplink_speed = models.PositiveIntegerField(
        verbose_name=_('uplink speed (Gbps)'), choices=LinkSpeedChoices, default=100
    )
    server_nic_count = models.PositiveSmallIntegerField(
        verbose_name=_('server NICs'), default=2, help_text=_('General-traffic NICs per server, bonded across leaves')
    )
    server_nic_speed = models.PositiveIntegerField(
        verbose_name=_('server NIC speed (Gbps)'), choices=LinkSpeedChoices, default=25
    )
    rdma_nic_count = models.PositiveSmallIntegerField(
        verbose_name=_('RDMA NICs'), default=1, help_text=_('GPU/RDMA NICs per server (0 for none)')
    )
    rdma_nic_speed = models.PositiveIntegerField(
        verbose_name=_('RDMA NIC speed (Gbps)'), choices=LinkSpeedChoices, default=100
    )
    rdma_nic_family = models.CharField(
        verbose_name=_('RDMA NIC family'),
        max_length=20,
        choices=RdmaNicFamilyChoices,
        default=RdmaNicFamilyChoices.NVIDIA_MLX5,
        help_text=_("The servers' RDMA NICs: whose tools the host config sets their RoCE settings with"),
    )
    mtu = models.PositiveIntegerField(
        verbose_name=_('fabric MTU'), default=9216, validators=[MinValueValidator(MTU_MIN), MaxValueValidator(MTU_MAX)]
    )
    bfd = models.BooleanField(
        verbose_name=_('BFD'),
        default=False,
        help_text=_(
            'Bidirectional Forwarding Detection on the underlay BGP sessions (and the MLAG peer session): a failed '
            'link is detected in about a second instead of the BGP hold time (90 s by default)'
        ),
    )
    oversubscription_target = models.DecimalField(
        verbose_name=_('oversubscription target'),
        max_digits=5,
        decimal_places=2,
        default=Decimal('3.00'),
        blank=True,
        null=True,
        validators=[MinValueValidator(OVERSUBSCRIPTION_MIN), MaxValueValidator(OVERSUBSCRIPTION_MAX)],
        help_text=_(
            'Highest acceptable ratio of server to uplink bandwidth per leaf (3 means 3:1); the plan warns about '
            'leaves above it. GPU back ends (RDMA) aim for 1:1, non-blocking. Empty: no check'
        ),
    )

    # Devices the apply creates
    spine_device_type = _device_field('dcim.DeviceType', _('spine device type'))
    leaf_device_type = _device_field('dcim.DeviceType', _('leaf device type'))
    server_device_type = _device_field('dcim.DeviceType', _('server device type'), _('GPU servers and storage nodes'))
    management_device_type = _device_field(
        'dcim.DeviceType',
        _('management switch device type'),
        _(
            'The out-of-band switch every server BMC and switch management port is cabled to: the plan numbers its '
            'ports and addresses (MGMT subnet) and the apply creates it. Empty: none is planned (the bill of '
            'materials still lists one)'
        ),
    )
    spine_role = _device_field('dcim.DeviceRole', _('spine role'))
    leaf_role = _device_field('dcim.DeviceRole', _('leaf role'))
    server_role = _device_field('dcim.DeviceRole', _('GPU server role'))
    storage_role = _device_field('dcim.DeviceRole', _('storage role'))
    platform = _device_field(
        'dcim.Platform',
        _('switch platform'),
        _('The network OS of the leaves, and of the spines unless they have their own'),
    )
    spine_platform = _device_field(
        'dcim.Platform', _('spine platform'), _('The network OS of the spines (empty: the switch platform)')
    )
    port_map = models.JSONField(
        verbose_name=_('port map'),
        default=dict,
        blank=True,
        validators=[validate_port_map],
        help_text=_(
            'Which ports of the leaf and spine device types serve which use, e.g. {"leaf": {"uplink": '
            '["Ethernet53/1", "Ethernet54/1"], "server": ["Ethernet1..Ethernet48"]}}; uses left out are derived '
            'from the speeds (fastest ports: peer link, then uplinks; the rest: servers)'
        ),
    )
    rack = _device_field('dcim.Rack', _('rack'), _('Where the new devices are placed (unpositioned)'))

    # Pools
    loopback_pool = _pool_field(_('loopback pool'), _('IPv4 prefix for router-id loopbacks (/32 each)'))
    vtep_pool = _pool_field(_('VTEP pool'), _('IPv4 prefix for VTEP loopbacks (/32 each, EVPN/VXLAN)'))
    p2p_pool = _pool_field(_('point-to-point pool'), _('IPv4 prefix for leaf–spine links (/31 each)'))
    mlag_peer_pool = _pool_field(_('MLAG peer pool'), _('IPv4 prefix for MLAG peer links (/31 per pair)'))

    # Management plane (the guide: a management VRF, SSH/HTTPS/SNMP only from a jump-host subnet)
    management_pool = _pool_field(
        _('management network'),
        _("IPv4 network of the switches' out-of-band management ports: an address each, counted down from its last"),
    )
    management_gateway = models.GenericIPAddressField(
        verbose_name=_('management gateway'),
        protocol='IPv4',
        blank=True,
        null=True,
        help_text=_("Default route of the switches' management VRF (empty: the network's first host)"),
    )
    jump_host_prefix = _pool_field(
        _('jump-host subnet'), _("The only source allowed to reach the switches' SSH, HTTPS/API and SNMP")
    )
    bmc_attachment = models.CharField(
        verbose_name=_('BMC attachment'),
        max_length=10,
        choices=BmcAttachmentChoices,
        default=BmcAttachmentChoices.OOB,
        help_text=_("Where the servers' BMC ports attach: a management switch, or a leaf access port in MGMT"),
    )
    # Telemetry: the collectors every switch sends to and admits, through its management VRF
    syslog_servers = _collector_field(_('syslog servers'), _('Every switch sends its logs here (UDP 514)'))
    ntp_servers = _collector_field(_('NTP servers'), _('Every switch takes its time from these'))
    snmp_managers = _collector_field(
        _('SNMP managers'),
        _('May poll the switches (UDP 161, besides the jump-host subnet) and receive their traps (UDP 162)'),
    )
    snmp_version = models.CharField(
        verbose_name=_('SNMP version'),
        max_length=4,
        choices=SnmpVersionChoices,
        default=SnmpVersionChoices.V3,
        help_text=_(
            'v3: a user with SHA authentication and AES privacy; v2c: a read-only community. The passphrases and '
            'the community are never stored: the configs carry named placeholders the automation fills'
        ),
    )
    snmp_user = models.CharField(
        verbose_name=_('SNMPv3 user'),
        max_length=32,
        default=DEFAULT_SNMP_USER,
        validators=[validate_snmp_user],
        help_text=_('4 to 32 letters, digits, dots, dashes or underscores'),
    )
    sflow_collectors = _collector_field(
        _('sFlow collectors'), _('Every switch samples its ports and sends sFlow here (UDP 6343; at most 2)'), size=2
    )
    sflow_sampling_rate = models.PositiveIntegerField(
        verbose_name=_('sFlow sampling rate'),
        default=DEFAULT_SFLOW_SAMPLING_RATE,
        validators=[MinValueValidator(256), MaxValueValidator(8388608)],
        help_text=_('1 in N packets on every port (256 to 8388608)'),
    )
    streaming_collectors = _collector_field(
        _('streaming telemetry collectors'),
        _('gNMI clients the switches admit (TCP 9339) and OpenTelemetry receivers (NVUE, TCP 4317)'),
    )
    # Configuration management: where the intended configs are committed and where the running ones are read from
    config_repository = models.CharField(
        verbose_name=_('config repository'),
        max_length=500,
        blank=True,
        validators=[validate_config_repository],
        help_text=_(
            'Git repository the rendered switch configs are committed to after each apply: a directory on the '
            'NetBox host (created if missing) or a URL it can push to (file://, ssh://, https://). Empty: none'
        ),
    )
    config_repository_branch = models.CharField(
        verbose_name=_('config repository branch'),
        max_length=100,
        default='main',
        validators=[validate_git_branch],
        help_text=_('The branch the commits go to'),
    )
    config_backup_source = models.ForeignKey(
        to='core.DataSource',
        on_delete=models.SET_NULL,
        related_name='+',
        blank=True,
        null=True,
        verbose_name=_('config backup source'),
        help_text=_(
            'The data source (a directory or Git repository) where the running configs are backed up, e.g. by '
            'Oxidized, RANCID or the shipped Ansible backup playbook; read after each sync'
        ),
    )
    config_backup_pattern = models.CharField(
        verbose_name=_('config backup file name'),
        max_length=200,
        default=DEFAULT_BACKUP_PATTERN,
        validators=[validate_backup_pattern],
        help_text=_(
            "A switch's backup file in the data source: {device} is its name, {extension} its NOS's config "
            'extension (cfg, conf, yaml, json). Oxidized and RANCID: {device}'
        ),
    )

    leaf_asn_range = models.ForeignKey(
        to='ipam.ASNRange',
        on_delete=models.PROTECT,
        related_name='+',
        blank=True,
        null=True,
        verbose_name=_('leaf ASN range'),
    )
    spine_asn = ASNField(
        verbose_name=_('spine ASN'), blank=True, null=True, help_text=_('The ASN all spines share (eBGP underlay)')
    )

    # Overlay
    l2vni_base = models.PositiveIntegerField(
        verbose_name=_('L2VNI base'),
        default=10000,
        validators=[validate_vni],
        help_text=_('L2VNI = base + VLAN ID for tenants without their own base'),
    )
    anycast_gateway_mac = models.CharField(
        verbose_name=_('anycast gateway MAC'), max_length=17, blank=True, validators=[validate_mac]
    )

    # Intent it carries
    qos_profile = models.ForeignKey(
        to='netbox_aifabric.QoSProfile',
        on_delete=models.SET_NULL,
        related_name='fabrics',
        blank=True,
        null=True,
        verbose_name=_('QoS profile'),
    )
    traffic_classes = models.ManyToManyField(
        to='netbox_aifabric.TrafficClass', related_name='fabrics', blank=True, verbose_name=_('traffic classes')
    )
    tenants = models.ManyToManyField(
        to='netbox_aifabric.EVPNTenant', related_name='fabrics', blank=True, verbose_name=_('EVPN tenants')
    )

    applied_allocations = models.JSONField(
        verbose_name=_('applied allocations'),
        default=dict,
        blank=True,
        editable=False,
        help_text=_('The allocations of the last apply; pinned by the next plan so nothing existing moves'),
    )

    # Lifecycle (draft -> applied -> drifted): written by the apply (apply/service.py) and by compliance, never by forms
    last_applied = models.DateTimeField(verbose_name=_('last applied'), blank=True, null=True, editable=False)
    last_applied_by = models.ForeignKey(
        to=settings.AUTH_USER_MODEL,
        on_delete=models.SET_NULL,
        related_name='+',
        blank=True,
        null=True,
        editable=False,
        verbose_name=_('last applied by'),
    )
    last_plan_hash = models.CharField(
        verbose_name=_('plan hash'),
        max_length=64,
        blank=True,
        editable=False,
        help_text=_('SHA-256 of the plan the last apply wrote'),
    )
    last_apply_request_id = models.UUIDField(
        verbose_name=_('apply request ID'),
        blank=True,
        null=True,
        editable=False,
        help_text=_('The change-log request of the last apply: every change it made carries this ID'),
    )
    pending_change = models.BooleanField(
        verbose_name=_('pending change'),
        default=False,
        editable=False,
        help_text=_("The intent changed since the last apply: the devices' contexts wait for the next apply"),
    )

    clone_fields = (
        'site',
        'status',
        'design_option',
        'underlay',
        'leaf_pairing',
        'max_spines',
        'max_leaves',
        'max_parallel_uplinks',
        'uplink_speed',
        'server_nic_count',
        'server_nic_speed',
        'rdma_nic_count',
        'rdma_nic_speed',
        'rdma_nic_family',
        'mtu',
        'oversubscription_target',
        'qos_profile',
        'spine_device_type',
        'leaf_device_type',
        'server_device_type',
        'management_device_type',
        'spine_role',
        'leaf_role',
        'server_role',
        'storage_role',
        'platform',
        'spine_platform',
        'port_map',
        'rack',
        'l2vni_base',
        'anycast_gateway_mac',
        'management_gateway',
        'jump_host_prefix',
        'bmc_attachment',
        *TELEMETRY_FIELDS,
    )

    class Meta:
        ordering = ('name',)
        verbose_name = _('fabric')
        verbose_name_plural = _('fabrics')
        permissions = (('apply_fabric', 'Apply the fabric plan to NetBox objects'),)

    def __str__(self):
        return self.name

    def get_status_color(self):
        return FabricStatusChoices.colors.get(self.status)

    def mark_applied(self, user=None, plan_hash='', request_id=None):
        """Record an apply: draft, planned or drifted become applied (active and decommissioning are the operator's
        and stay), with the time, user, plan hash and change-log request; the pending change is cleared. Saved with
        only these fields (a change-log entry in the apply's request, and not an edit of the intent)."""
        from django.utils import timezone

        if not self.__dict__.pop('_snapshot_by_apply', False):
            self.snapshot()
        if self.status in (FabricStatusChoices.DRAFT, FabricStatusChoices.PLANNED, FabricStatusChoices.DRIFTED):
            self.status = FabricStatusChoices.APPLIED
        self.last_applied = timezone.now()
        self.last_applied_by = user if getattr(user, 'is_authenticated', False) else None
        self.last_plan_hash = plan_hash
        self.last_apply_request_id = request_id
        self.pending_change = False
        self.save(update_fields=[*LIFECYCLE_UPDATE_FIELDS])

    def snapshot_before_apply(self):
        """The fabric as it was before an apply wrote anything: the start of the one change-log entry
        :meth:`mark_applied` writes, which so holds the apply's record (``applied_allocations``, written by the apply
        itself) with the lifecycle. NetBox Branching replays that entry on a merge: a record written outside the
        change log would not reach main."""
        self.snapshot()
        self._snapshot_by_apply = True

    def applied_record(self, allocations) -> dict:
        """The apply's record of ``allocations`` as stored in ``applied_allocations``: stamped with this fabric's id
        and slug, so a record that reaches another fabric (a copy, a clone) is recognised as not its own."""
        return {'fabric': self.slug, 'fabric_id': self.pk, 'allocations': dict(allocations)}

    def applied_pins(self) -> dict:
        """The last apply's allocations (``{key: value}``), for the planner to pin. A record stamped with another
        fabric's id is refused (:class:`SpecError` on ``applied_allocations``): its addresses and ports are that
        fabric's, and pinning them here would number this fabric over them. So is a record without a stamp: every
        apply stamps its record and migration 0019 stamped the older ones, so an unstamped one was copied in (from
        another fabric's older record, a backup of one, a script) and names no fabric it could be checked against."""
        record = self.applied_allocations or {}
        if not record:
            return {}
        if 'allocations' not in record:
            raise SpecError(
                'applied_allocations',
                f'the applied allocations of "{self.slug}" (id {self.pk}) carry no fabric stamp: an apply stamps '
                "its record, so this one was copied in and may be another fabric's; it is never pinned. Nothing "
                "was written (restore this fabric's own record)",
            )
        owner = record.get('fabric_id')
        if owner != self.pk or not isinstance(record['allocations'], dict):
            raise SpecError(
                'applied_allocations',
                f'the applied allocations are the record of fabric "{record.get("fabric")}" (id {owner}), not of '
                f'"{self.slug}" (id {self.pk}): another fabric\'s allocations are never pinned here; nothing was '
                'written (an apply records its own)',
            )
        return dict(record['allocations'])

    def _refuse_foreign_record(self):
        """A save that writes the apply's record (a new fabric, or ``update_fields`` naming it) writes this fabric's
        own stamped record or none: a copied instance (``pk = None; save()``) or a record set from another fabric is
        refused (the apply itself writes the record with an ``UPDATE`` of the row, not through here)."""
        record = self.applied_allocations or {}
        if not record:
            return
        if self.pk is None or self._state.adding:
            raise AbortRequest(
                _(
                    'A new fabric starts without an applied record (applied_allocations): the one it carries is '
                    "another fabric's ({owner}). Nothing was saved."
                ).format(owner=record.get('fabric', 'unstamped'))
            )
        if 'allocations' not in record:  # only an apply writes records, and it stamps them
            raise AbortRequest(
                _(
                    'The applied record (applied_allocations) is written by the apply alone, stamped with its fabric: '
                    'an unstamped one is not saved. Nothing was saved.'
                )
            )
        try:
            self.applied_pins()
        except SpecError as e:
            raise AbortRequest(e.message) from None

    def mark_drifted(self) -> bool:
        """applied -> drifted, for compliance when NetBox no longer matches the applied plan; returns whether the
        status changed (a draft has nothing to drift from; active and decommissioning are the operator's)."""
        if self.status != FabricStatusChoices.APPLIED:
            return False
        self.snapshot()
        self.status = FabricStatusChoices.DRIFTED
        self.save(update_fields=['status', 'last_updated'])
        return True

    def get_design_option_color(self):
        return DesignOptionChoices.colors.get(self.design_option)

    def get_leaf_pairing_color(self):
        return LeafPairingChoices.colors.get(self.leaf_pairing)

    @property
    def port_map_display(self):
        """``leaf uplink: Ethernet53/1, Ethernet54/1 · …`` (empty: every use derived from the speeds)."""
        if not isinstance(self.port_map, dict):
            return ''
        return ' · '.join(
            f'{role} {use}: {", ".join(names)}'
            for role, uses in self.port_map.items()
            if isinstance(uses, dict)
            for use, names in uses.items()
            if isinstance(names, list)
        )

    @property
    def is_mlag(self):
        return self.design_option == DesignOptionChoices.MLAG

    @property
    def is_evpn(self):
        return self.design_option == DesignOptionChoices.EVPN_VXLAN

    @property
    def is_evpn_mh(self):
        """Whether the leaf pairs are EVPN multihoming pairs (no peer link) rather than MLAG pairs."""
        return self.leaf_pairing == LeafPairingChoices.EVPN_MH

    @property
    def mlag_paired(self):
        """Whether the leaves form MLAG pairs with peer links (and so need the MLAG peer pool): in every design
        with at least two leaves, unless the leaves pair by EVPN multihoming."""
        return not self.is_evpn_mh and self.leaf_count >= 2

    def required_pools(self):
        """``{field: message}`` for the pools and ASNs the design, the pairing and the sizes need, for the wizard's
        pools step, which asks for them before the fabric is whole. Which ones is the planner's rule
        (``planner.requirements.required_inputs``, what its spec checks refuse without); the messages are the form's.
        Save does not read it: ``clean`` delegates to the planner (``intake.validation.plan_errors``)."""
        required = required_inputs(
            spines=self.spine_count,
            max_spines=self.max_spines,
            evpn=self.is_evpn,
            mlag_pairs=self.mlag_paired,
            underlay=self.underlay,
        )
        return {REQUIRED_FIELDS[name]: str(REQUIRED_MESSAGES[name]) for name in required}

    @classmethod
    def from_db(cls, db, field_names, values, *, fetch_mode=None):
        instance = super().from_db(db, field_names, values, fetch_mode=fetch_mode)
        instance._loaded_record = instance._apply_record()
        return instance

    def refresh_from_db(self, *args, **kwargs):
        super().refresh_from_db(*args, **kwargs)
        if not args and kwargs.get('fields') is None:  # every field read again: what is stored now is what it loaded
            self._loaded_record = self._apply_record()

    def _apply_record(self) -> dict:
        # a copy: a JSON value changed in place (NetBox Branching's merge deep-merges into it) still differs
        return copy.deepcopy({name: self.__dict__.get(name) for name in APPLY_RECORD_FIELDS})

    def save(self, *args, **kwargs):
        """Save, and store the nodes the counts say. A save of the whole row (an edit: the form, bulk edit, the
        API) of a stored fabric never writes back the apply's record it loaded: it locks the row and takes the
        record as stored now (an apply that committed while the edit was open stays recorded). The
        status is the operator's too: a status the edit changed is kept."""
        update_fields = kwargs.get('update_fields')
        with transaction.atomic(using=kwargs.get('using')):
            if update_fields is None or set(update_fields) & set(POOL_FIELDS):
                self._refuse_shared_pools()
            if self.pk is None or self._state.adding or 'applied_allocations' in (update_fields or ()):
                self._refuse_foreign_record()
            if update_fields is None and self.pk is not None and not self._state.adding:
                self._take_stored_record()
            super().save(*args, **kwargs)
            self.sync_nodes()
        self._loaded_record = self._apply_record()

    def _refuse_shared_pools(self):
        """What ``clean`` checked, checked again under a lock held until this save commits: two fabrics saved at
        the same moment with one pool both passed ``clean`` (neither saw the other, uncommitted), and both were
        stored. Saves that set pools wait for each other here; the second sees the first and is refused
        (a 400 over the API, a form error in the UI)."""
        with connection.cursor() as cursor:
            cursor.execute('SELECT pg_advisory_xact_lock(%s)', [POOL_LOCK_KEY])
        networks = {
            field: netaddr.IPNetwork(str(getattr(self, field).prefix))
            for field in POOL_FIELDS
            if getattr(self, field) is not None
        }
        errors = {}
        self._clean_shared_pools(networks, errors)
        if errors:
            raise AbortRequest(' '.join(str(message) for message in errors.values()))

    def _take_stored_record(self):
        """Lock this fabric's row (waiting for an apply that holds it) and copy the apply's record onto this
        instance as stored, each field only where this save left it as loaded: a field it set is kept (the
        operator's status; NetBox Branching's merge, which replays an apply's record with one full save). A record
        set so is checked as any other written (:meth:`_refuse_foreign_record`)."""
        stored = Fabric.objects.select_for_update().filter(pk=self.pk).values(*APPLY_RECORD_FIELDS).first()
        if stored is None:
            return  # deleted meanwhile: the save fails as Django's does
        loaded = getattr(self, '_loaded_record', None) or self._apply_record()
        edited = {name for name, value in self._apply_record().items() if loaded[name] != value}
        for name, value in stored.items():
            if name not in edited:
                setattr(self, name, value)
        if 'applied_allocations' in edited:
            self._refuse_foreign_record()

    def planned_nodes(self):
        """The fabric's nodes as its counts say: the stored ones (ids, names and pairs never change), surplus ones
        (highest ids first) left out, missing ones added with the lowest free ids. New nodes are not saved. A new
        GPU server or storage node goes to the leaf pair with the fewest servers that has room for it
        (:func:`~netbox_aifabric.models.nodes.place_servers`): growth fills new racks first, never moving a
        stored node.

        Returns:
            ``(nodes, surplus)``: the node list and the stored nodes beyond the counts.
        """
        stored = list(self.nodes.all()) if self.pk else []
        nodes, surplus = [], []
        for group, count_field in COUNT_FIELDS.items():
            members = sorted((n for n in stored if n.group == group), key=lambda n: n.node_id)
            wanted = getattr(self, count_field)
            nodes.extend(members[:wanted])
            surplus.extend(members[wanted:])
            taken = {n.node_id for n in members}
            node_id = 1
            for _i in range(wanted - len(members)):
                while node_id in taken:
                    node_id += 1
                nodes.append(
                    FabricNode(
                        fabric=self,
                        role=group,
                        node_id=node_id,
                        name=node_name(self.slug, group, node_id),
                        pair=default_pair(group, node_id),
                    )
                )
                taken.add(node_id)
        place_servers(nodes)
        return nodes, surplus

    def sync_nodes(self):
        """Store the nodes :meth:`planned_nodes` gives and delete the surplus ones; returns the nodes (as stored now,
        in :meth:`planned_nodes`' order). The new servers' placement is kept in ``placed_servers``
        (``{leaf pair: [names]}``) for the edit view's message."""
        nodes, surplus = self.planned_nodes()
        for node in surplus[::-1]:
            models.Model.delete(node)  # not FabricNode.delete: the counts are already right
        placed = {}
        for node in nodes:
            if node.pk is None:
                models.Model.save(node)  # not FabricNode.save: the counts are already right
                if node.group in ('gpu', 'storage'):
                    placed.setdefault(node.pair, []).append(node.name)
        self.placed_servers = placed
        return nodes

    def placement_messages(self):
        """One line per leaf pair the last :meth:`sync_nodes` placed new servers on ("gpu5, gpu6 → leaf pair 2
        (leaf3, leaf4)"), and forgets them; ``[]`` when it placed none."""
        placed = self.__dict__.pop('placed_servers', None) or {}
        if not placed or self.pk is None:  # an invalid form re-rendered: nothing saved, nothing placed
            return []
        leaves = {}
        for node in self.nodes.all():
            if node.group == 'leaf':
                leaves.setdefault(node.pair or node.node_id, []).append(node.name)
        return [
            _('{servers} → leaf pair {pair} ({leaves})').format(
                servers=', '.join(names), pair=pair, leaves=', '.join(sorted(leaves.get(pair, ()))) or '—'
            )
            for pair, names in sorted(placed.items(), key=lambda item: (item[0] is None, item[0] or 0))
        ]

    def adopt_devices(self, devices, role):
        """Adopt existing ``devices`` (brownfield) as nodes of ``role``, in name order: each takes the lowest-id node
        of that role without a device, or a new node with the next free id. Devices another node already adopted
        are skipped. Returns the adopted nodes (each validated with ``full_clean()``)."""
        taken = set(FabricNode.objects.filter(device__isnull=False).values_list('device_id', flat=True))
        self.sync_nodes()
        free = list(self.nodes.filter(role=role, device__isnull=True).order_by('node_id'))
        group = FabricNode(role=role).group
        used_ids = set(
            self.nodes.filter(role__in=[r for r, g in FabricNodeRoleChoices.GROUPS.items() if g == group]).values_list(
                'node_id', flat=True
            )
        )
        adopted = []
        for device in sorted(devices, key=lambda d: d.name or ''):
            if device.pk in taken:
                continue
            if free:
                node = free.pop(0)
                node.snapshot()
            else:
                node_id = next(i for i in range(1, len(used_ids) + 2) if i not in used_ids)
                used_ids.add(node_id)
                node = FabricNode(fabric=self, role=role, node_id=node_id, pair=default_pair(role, node_id))
            node.device = device
            node.name = device.name
            node.full_clean()
            node.save()
            adopted.append(node)
        return adopted

    def count_nodes(self):
        """Set the counts from the nodes (after a node was added or deleted on its own)."""
        counts = dict.fromkeys(COUNT_FIELDS.values(), 0)
        for node in self.nodes.all():
            counts[COUNT_FIELDS[node.group]] += 1
        changed = {k: v for k, v in counts.items() if getattr(self, k) != v}
        if changed:
            Fabric.objects.filter(pk=self.pk).update(**changed)
            for k, v in changed.items():
                setattr(self, k, v)

    def pool_needs(self):
        """``{pool field: PoolNeed}`` for the declared maximums, as the planner computes them."""
        needs = pool_needs(self.max_spines, self.max_leaves, self.max_parallel_uplinks)
        return {f'{name}_pool': need for name, need in needs.items()}

    def clean(self):
        super().clean()
        errors = {}
        self._clean_lengths(errors)

        if self.max_leaves < 1:
            errors['max_leaves'] = _('A fabric needs room for at least one leaf.')
        if self.is_evpn_mh and not self.is_evpn:
            errors['leaf_pairing'] = _(
                'EVPN multihoming pairs leaves through the EVPN control plane, so it needs the EVPN/VXLAN design '
                '(this fabric is {design}): choose MLAG pairing or the EVPN/VXLAN design.'
            ).format(design=self.get_design_option_display())
        if self.is_mlag:
            for field in ('leaf_count', 'max_leaves'):
                if getattr(self, field) % 2:
                    errors.setdefault(
                        field,
                        _('MLAG dual-ToR pairs leaves: {field} must be an even number (got {n}).').format(
                            field=self._meta.get_field(field).verbose_name, n=getattr(self, field)
                        ),
                    )

        # Pools: IPv4 and big enough for the maximums, field by field; another fabric's pools are NetBox's state. How
        # the fabric's own pools, counts and ASNs fit together is the planner's rule, asked below (one source)
        for field, need in self.pool_needs().items():
            errors.update(check_pool(field, getattr(self, field), need))
        self._clean_shared_pools(self._pool_networks(errors), errors)

        if self.anycast_gateway_mac and 'anycast_gateway_mac' not in errors:
            self.anycast_gateway_mac = normalize_mac(self.anycast_gateway_mac)
        self._clean_members(errors)
        if not errors:
            # What the planner refuses, refused here with its message, whatever the status (a draft too): the form,
            # bulk import and edit, the API and the wizard's create. Its pools and ASNs are the planner's rule.
            errors.update(plan_errors(self))
        if errors:
            raise ValidationError(errors)

    def _pool_networks(self, errors) -> dict:
        """``{pool field: its network}`` of the pools set and without an error of their own."""
        return {
            field: netaddr.IPNetwork(str(getattr(self, field).prefix))
            for field in POOL_FIELDS
            if getattr(self, field) is not None and field not in errors
        }

    def _clean_lengths(self, errors):
        """The slug and name fit the names the apply derives from them (see ``constants.FABRIC_SLUG_MAX``)."""
        if self.slug and len(self.slug) > FABRIC_SLUG_MAX:
            errors['slug'] = _(
                'At most {max} characters (got {n}): the devices are named {example}, and NetBox takes 64.'
            ).format(max=FABRIC_SLUG_MAX, n=len(self.slug), example='<slug>-storage<id>')
        if self.name and len(self.name) > FABRIC_NAME_MAX:
            errors['name'] = _(
                "At most {max} characters (got {n}): the fabric's tag and L2VPNs are named after it, and NetBox "
                'takes 100.'
            ).format(max=FABRIC_NAME_MAX, n=len(self.name))

    def _clean_shared_pools(self, networks, errors):
        """A pool belongs to one fabric: two fabrics numbering from overlapping pools would collide at apply."""
        if not networks:
            return
        others = Fabric.objects.exclude(pk=self.pk).select_related(*POOL_FIELDS)
        for other in others:
            for other_field in POOL_FIELDS:
                other_prefix = getattr(other, other_field)
                if other_prefix is None:
                    continue
                other_network = netaddr.IPNetwork(str(other_prefix.prefix))
                for field, network in networks.items():
                    if field not in errors and (network in other_network or other_network in network):
                        errors[field] = _('Pool {pool} overlaps the {other_pool} of fabric {fabric}.').format(
                            pool=network,
                            other_pool=f'{self._meta.get_field(other_field).verbose_name} {other_network}',
                            fabric=other,
                        )

    def _clean_members(self, errors):
        """Rules over the many-to-many members: two traffic classes on one VLAN, a VNI used twice among the
        tenants, EVPN tenants without an anycast gateway MAC."""
        vlans = {}
        for tc in m2m_members(self, 'traffic_classes'):
            if tc.vid is not None and tc.vid in vlans:
                errors.setdefault(
                    'traffic_classes',
                    _('Traffic classes {a} and {b} both use VLAN {vid}.').format(a=vlans[tc.vid], b=tc, vid=tc.vid),
                )
            vlans.setdefault(tc.vid, tc)
        tenants = m2m_members(self, 'tenants')
        entries = []
        for tenant in tenants:
            entries.extend(tenant.get_vnis(default_l2vni_base=self.l2vni_base))
        if message := find_vni_reuse(entries):
            errors.setdefault('tenants', message)
        if tenants and not self.anycast_gateway_mac:
            missing = [t.name for t in tenants if not t.anycast_gateway_mac]
            if missing:
                errors.setdefault(
                    'anycast_gateway_mac',
                    _('EVPN tenants {names} need an anycast gateway MAC: set one here or on each tenant.').format(
                        names=', '.join(missing)
                    ),
                )
