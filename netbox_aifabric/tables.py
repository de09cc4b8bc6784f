import django_tables2 as tables
from django.urls import reverse
from django.utils.translation import gettext_lazy as _

from netbox.tables import NetBoxTable, PrimaryModelTable, columns

from netbox_aifabric.models import (
    ComplianceFinding,
    ComplianceRun,
    ConfigBackup,
    EVPNTenant,
    Fabric,
    FabricNode,
    QoSProfile,
    TrafficClass,
    TrafficFlow,
)
from netbox_aifabric.models.acceptance import AcceptanceResult, AcceptanceRun

__all__ = (
    'AcceptanceResultTable',
    'AcceptanceRunTable',
    'ComplianceFindingTable',
    'ComplianceRunTable',
    'ConfigBackupTable',
    'EVPNTenantTable',
    'FabricNodeTable',
    'FabricTable',
    'QoSProfileTable',
    'TrafficClassTable',
    'TrafficFlowTable',
)


class TrafficClassTable(PrimaryModelTable):
    name = tables.Column(verbose_name=_('Name'), linkify=True)
    purpose = columns.ChoiceFieldColumn(verbose_name=_('Purpose'))
    vid = tables.Column(verbose_name=_('VLAN ID'))
    vlan = tables.Column(verbose_name=_('VLAN'), linkify=True)
    vrf = tables.Column(verbose_name=_('VRF'), linkify=True)
    prefix = tables.Column(verbose_name=_('Prefix'), linkify=True)
    dscp = columns.ArrayColumn(verbose_name=_('DSCP'))
    switch_priority = tables.Column(verbose_name=_('Priority'))
    queue = tables.Column(verbose_name=_('Queue'))
    lossless = columns.BooleanColumn(verbose_name=_('Lossless'))
    ecn = columns.BooleanColumn(verbose_name=_('ECN'))
    routed = columns.BooleanColumn(verbose_name=_('Routed'))
    reachability = columns.ChoiceFieldColumn(verbose_name=_('Reachability'))
    reachable_from = columns.ManyToManyColumn(verbose_name=_('Reachable from'), linkify_item=True)
    tags = columns.TagColumn(url_name='plugins:netbox_aifabric:trafficclass_list')

    class Meta(PrimaryModelTable.Meta):
        model = TrafficClass
        fields = (
            'pk',
            'id',
            'name',
            'slug',
            'purpose',
            'vid',
            'vlan',
            'vrf',
            'prefix',
            'dscp',
            'switch_priority',
            'queue',
            'lossless',
            'ecn',
            'mtu',
            'routed',
            'reachability',
            'reachable_from',
            'description',
            'owner',
            'comments',
            'tags',
            'created',
            'last_updated',
        )
        default_columns = (
            'pk',
            'name',
            'purpose',
            'vid',
            'vrf',
            'prefix',
            'dscp',
            'switch_priority',
            'lossless',
            'ecn',
            'mtu',
        )


class QoSProfileTable(PrimaryModelTable):
    name = tables.Column(verbose_name=_('Name'), linkify=True)
    mode = columns.ChoiceFieldColumn(verbose_name=_('Mode'))
    trust = columns.ChoiceFieldColumn(verbose_name=_('Trust'))
    roce_dscp = columns.ArrayColumn(verbose_name=_('RoCE DSCP'))
    roce_priority = columns.ArrayColumn(verbose_name=_('RoCE priority'))
    roce_tc = columns.ArrayColumn(verbose_name=_('RoCE TC'))
    cnp_dscp = tables.Column(verbose_name=_('CNP DSCP'))
    cnp_tc = tables.Column(verbose_name=_('CNP TC'))
    pfc_priorities = columns.ArrayColumn(verbose_name=_('PFC'))
    ecn_enabled = columns.BooleanColumn(verbose_name=_('ECN'))
    ecn_min_threshold = tables.Column(verbose_name=_('ECN min'))
    ecn_max_threshold = tables.Column(verbose_name=_('ECN max'))
    ecn_probability = tables.Column(verbose_name=_('ECN %'))
    pfc_watchdog = columns.BooleanColumn(verbose_name=_('Watchdog'))
    fabric_count = columns.LinkedCountColumn(
        viewname='plugins:netbox_aifabric:fabric_list', url_params={'qos_profile_id': 'pk'}, verbose_name=_('Fabrics')
    )
    tags = columns.TagColumn(url_name='plugins:netbox_aifabric:qosprofile_list')

    class Meta(PrimaryModelTable.Meta):
        model = QoSProfile
        fields = (
            'pk',
            'id',
            'name',
            'slug',
            'mode',
            'trust',
            'roce_dscp',
            'roce_priority',
            'roce_tc',
            'cnp_dscp',
            'cnp_priority',
            'cnp_tc',
            'pfc_priorities',
            'ecn_enabled',
            'ecn_threshold_unit',
            'ecn_min_threshold',
            'ecn_max_threshold',
            'ecn_probability',
            'ecn_tcs',
            'strict_tcs',
            'pfc_watchdog',
            'cable_length',
            'mtu',
            'preset',
            'source',
            'fabric_count',
            'description',
            'owner',
            'comments',
            'tags',
            'created',
            'last_updated',
        )
        default_columns = (
            'pk',
            'name',
            'mode',
            'roce_dscp',
            'roce_priority',
            'cnp_dscp',
            'pfc_priorities',
            'ecn_min_threshold',
            'ecn_max_threshold',
            'ecn_probability',
            'preset',
        )


class EVPNTenantTable(PrimaryModelTable):
    name = tables.Column(verbose_name=_('Name'), linkify=True)
    tenant = tables.Column(verbose_name=_('Tenant'), linkify=True)
    vrf = tables.Column(verbose_name=_('VRF'), linkify=True)
    l3vni = tables.Column(verbose_name=_('L3VNI'))
    l2vni_base = tables.Column(verbose_name=_('L2VNI base'))
    import_targets = columns.ManyToManyColumn(verbose_name=_('Import targets'), linkify_item=True)
    export_targets = columns.ManyToManyColumn(verbose_name=_('Export targets'), linkify_item=True)
    traffic_classes = columns.ManyToManyColumn(verbose_name=_('Traffic classes'), linkify_item=True)
    vlans = columns.ManyToManyColumn(verbose_name=_('VLANs'), linkify_item=True)
    anycast_gateway_mac = tables.Column(verbose_name=_('Anycast MAC'))
    tags = columns.TagColumn(url_name='plugins:netbox_aifabric:evpntenant_list')

    class Meta(PrimaryModelTable.Meta):
        model = EVPNTenant
        fields = (
            'pk',
            'id',
            'name',
            'slug',
            'tenant',
            'vrf',
            'l3vni',
            'l2vni_base',
            'import_targets',
            'export_targets',
            'anycast_gateway_mac',
            'traffic_classes',
            'vlans',
            'description',
            'owner',
            'comments',
            'tags',
            'created',
            'last_updated',
        )
        default_columns = ('pk', 'name', 'tenant', 'vrf', 'l3vni', 'l2vni_base', 'traffic_classes')


class FabricTable(PrimaryModelTable):
    name = tables.Column(verbose_name=_('Name'), linkify=True)
    site = tables.Column(verbose_name=_('Site'), linkify=True)
    status = columns.ChoiceFieldColumn(verbose_name=_('Status'))
    design_option = columns.ChoiceFieldColumn(verbose_name=_('Design option'))
    underlay = columns.ChoiceFieldColumn(verbose_name=_('Underlay'))
    leaf_pairing = columns.ChoiceFieldColumn(verbose_name=_('Leaf pairing'))
    bfd = columns.BooleanColumn(verbose_name=_('BFD'))
    oversubscription_target = tables.Column(verbose_name=_('Oversubscription target'))
    loopback_pool = tables.Column(verbose_name=_('Loopback pool'), linkify=True)
    vtep_pool = tables.Column(verbose_name=_('VTEP pool'), linkify=True)
    p2p_pool = tables.Column(verbose_name=_('P2P pool'), linkify=True)
    mlag_peer_pool = tables.Column(verbose_name=_('MLAG peer pool'), linkify=True)
    management_pool = tables.Column(verbose_name=_('Management network'), linkify=True)
    jump_host_prefix = tables.Column(verbose_name=_('Jump-host subnet'), linkify=True)
    bmc_attachment = columns.ChoiceFieldColumn(verbose_name=_('BMC attachment'))
    rdma_nic_family = columns.ChoiceFieldColumn(verbose_name=_('RDMA NIC family'))
    leaf_asn_range = tables.Column(verbose_name=_('Leaf ASN range'), linkify=True)
    qos_profile = tables.Column(verbose_name=_('QoS profile'), linkify=True)
    traffic_classes = columns.ManyToManyColumn(verbose_name=_('Traffic classes'), linkify_item=True)
    tenants = columns.ManyToManyColumn(verbose_name=_('EVPN tenants'), linkify_item=True)
    tags = columns.TagColumn(url_name='plugins:netbox_aifabric:fabric_list')

    class Meta(PrimaryModelTable.Meta):
        model = Fabric
        fields = (
            'pk',
            'id',
            'name',
            'slug',
            'site',
            'status',
            'design_option',
            'underlay',
            'leaf_pairing',
            'bfd',
            'spine_count',
            'max_spines',
            'leaf_count',
            'max_leaves',
            'uplinks_per_spine',
            'max_parallel_uplinks',
            'server_count',
            'storage_count',
            'uplink_speed',
            'server_nic_count',
            'server_nic_speed',
            'rdma_nic_count',
            'rdma_nic_speed',
            'rdma_nic_family',
            'mtu',
            'oversubscription_target',
            'loopback_pool',
            'vtep_pool',
            'p2p_pool',
            'mlag_peer_pool',
            'management_pool',
            'management_gateway',
            'jump_host_prefix',
            'bmc_attachment',
            'leaf_asn_range',
            'spine_asn',
            'l2vni_base',
            'anycast_gateway_mac',
            'qos_profile',
            'traffic_classes',
            'tenants',
            'description',
            'owner',
            'comments',
            'tags',
            'created',
            'last_updated',
        )
        default_columns = (
            'pk',
            'name',
            'site',
            'status',
            'design_option',
            'underlay',
            'spine_count',
            'leaf_count',
            'server_count',
            'qos_profile',
        )


class FabricNodeTable(NetBoxTable):
    name = tables.Column(verbose_name=_('Name'), linkify=True)
    fabric = tables.Column(verbose_name=_('Fabric'), linkify=True)
    role = columns.ChoiceFieldColumn(verbose_name=_('Role'))
    node_id = tables.Column(verbose_name=_('Node ID'))
    pair = tables.Column(verbose_name=_('Leaf pair'))
    device = tables.Column(verbose_name=_('Adopted device'), linkify=True)
    tags = columns.TagColumn(url_name='plugins:netbox_aifabric:fabricnode_list')

    class Meta(NetBoxTable.Meta):
        model = FabricNode
        fields = ('pk', 'id', 'name', 'fabric', 'role', 'node_id', 'pair', 'device', 'tags', 'created', 'last_updated')
        default_columns = ('name', 'fabric', 'role', 'node_id', 'pair', 'device')


class TrafficFlowTable(NetBoxTable):
    flow = tables.Column(verbose_name=_('Flow'), linkify=True, accessor='pk')
    fabric = tables.Column(verbose_name=_('Fabric'), linkify=True)
    source_group = columns.ChoiceFieldColumn(verbose_name=_('Source group'))
    source_class = tables.Column(verbose_name=_('Source class'), linkify=True)
    destination_group = columns.ChoiceFieldColumn(verbose_name=_('Destination group'))
    destination_class = tables.Column(verbose_name=_('Destination class'), linkify=True)
    gbps = tables.Column(verbose_name=_('Gbit/s per server'))
    burstiness = columns.ChoiceFieldColumn(verbose_name=_('Burstiness'))
    description = tables.Column(verbose_name=_('Description'))
    tags = columns.TagColumn(url_name='plugins:netbox_aifabric:trafficflow_list')

    class Meta(NetBoxTable.Meta):
        model = TrafficFlow
        fields = (
            'pk',
            'id',
            'flow',
            'fabric',
            'source_group',
            'source_class',
            'destination_group',
            'destination_class',
            'gbps',
            'burstiness',
            'description',
            'tags',
            'created',
            'last_updated',
        )
        default_columns = (
            'flow',
            'fabric',
            'source_group',
            'source_class',
            'destination_group',
            'destination_class',
            'gbps',
            'burstiness',
        )

    def render_flow(self, record):
        return str(record.pk)


class AcceptanceRunTable(NetBoxTable):
    run = tables.Column(verbose_name=_('Run'), linkify=True, accessor='pk')
    fabric = tables.Column(verbose_name=_('Fabric'), linkify=True)
    kind = columns.ChoiceFieldColumn(verbose_name=_('Kind'))
    time = columns.DateTimeColumn(verbose_name=_('Time'))
    user = tables.Column(verbose_name=_('User'))
    status = columns.ChoiceFieldColumn(verbose_name=_('Status'))
    passed = tables.Column(verbose_name=_('Passed'))
    failed = tables.Column(verbose_name=_('Failed'))
    not_verified = tables.Column(verbose_name=_('Not verified'))
    convergence_seconds = tables.Column(verbose_name=_('Convergence (s)'))
    description = tables.Column(verbose_name=_('Description'))
    tags = columns.TagColumn(url_name='plugins:netbox_aifabric:acceptancerun_list')

    class Meta(NetBoxTable.Meta):
        model = AcceptanceRun
        fields = (
            'pk',
            'id',
            'run',
            'fabric',
            'kind',
            'time',
            'user',
            'status',
            'passed',
            'failed',
            'not_verified',
            'convergence_seconds',
            'description',
            'tags',
            'created',
            'last_updated',
        )
        default_columns = ('run', 'fabric', 'kind', 'time', 'user', 'status', 'passed', 'failed', 'not_verified')


class AcceptanceResultTable(NetBoxTable):
    name = tables.Column(verbose_name=_('Check'), linkify=True)
    run = tables.Column(verbose_name=_('Run'), linkify=True)
    category = tables.Column(verbose_name=_('Category'))
    subject = tables.Column(verbose_name=_('Subject'))
    status = columns.ChoiceFieldColumn(verbose_name=_('Status'))
    expected = tables.Column(verbose_name=_('Expected'))
    seen = tables.Column(verbose_name=_('Seen'))
    value = tables.Column(verbose_name=_('Value'))
    # results are not edited (the lab or an upload makes them): no edit link, whose URL does not exist
    actions = columns.ActionsColumn(actions=('delete', 'changelog'))
    tags = columns.TagColumn(url_name='plugins:netbox_aifabric:acceptanceresult_list')

    class Meta(NetBoxTable.Meta):
        model = AcceptanceResult
        fields = (
            'pk',
            'id',
            'name',
            'run',
            'category',
            'subject',
            'status',
            'expected',
            'seen',
            'value',
            'tags',
            'created',
            'last_updated',
        )
        default_columns = ('status', 'name', 'category', 'subject', 'expected', 'seen')


class ComplianceRunTable(NetBoxTable):
    run = tables.Column(verbose_name=_('Run'), linkify=True, accessor='created', order_by=('created',))
    fabric = tables.Column(verbose_name=_('Fabric'), linkify=True)
    user = tables.Column(verbose_name=_('User'), default=_('scheduled'))
    job = tables.TemplateColumn(
        '{% if record.job %}<a href="{{ record.job.get_absolute_url }}">{{ record.job.pk }}</a>{% endif %}',
        verbose_name=_('Job'),
        order_by=('job',),
    )
    status = columns.ChoiceFieldColumn(verbose_name=_('Status'))
    score = tables.TemplateColumn('{% if value is not None %}{{ value }} %{% endif %}', verbose_name=_('Score'))
    finding_count = tables.Column(
        verbose_name=_('Findings'),
        linkify=lambda record: reverse('plugins:netbox_aifabric:compliancefinding_list') + f'?run_id={record.pk}',
    )
    actions = columns.ActionsColumn(actions=('delete',))
    tags = columns.TagColumn(url_name='plugins:netbox_aifabric:compliancerun_list')

    class Meta(NetBoxTable.Meta):
        model = ComplianceRun
        fields = (
            'pk',
            'id',
            'run',
            'fabric',
            'user',
            'job',
            'status',
            'score',
            'rules',
            'passed',
            'failed',
            'skipped',
            'errored',
            'finding_count',
            'context_source',
            'tags',
            'created',
            'last_updated',
        )
        default_columns = ('run', 'fabric', 'user', 'status', 'score', 'passed', 'failed', 'finding_count')


class ComplianceFindingTable(NetBoxTable):
    finding = tables.Column(verbose_name=_('Finding'), linkify=True, accessor='pk')
    run = tables.Column(verbose_name=_('Run'), linkify=True)
    rule = tables.Column(verbose_name=_('Rule'))
    title = tables.Column(verbose_name=_('Title'))
    family = columns.ChoiceFieldColumn(verbose_name=_('Family'))
    severity = columns.ChoiceFieldColumn(verbose_name=_('Severity'))
    object_type = columns.ContentTypeColumn(verbose_name=_('Object type'))
    object_repr = tables.Column(verbose_name=_('Object'))
    expected = tables.Column(verbose_name=_('Expected'))
    found = tables.Column(verbose_name=_('Found'))
    fix = tables.Column(verbose_name=_('Fix'))
    actions = columns.ActionsColumn(actions=('delete',))
    tags = columns.TagColumn(url_name='plugins:netbox_aifabric:compliancefinding_list')

    class Meta(NetBoxTable.Meta):
        model = ComplianceFinding
        fields = (
            'pk',
            'id',
            'finding',
            'run',
            'rule',
            'title',
            'family',
            'severity',
            'object_type',
            'object_id',
            'object_repr',
            'expected',
            'found',
            'fix',
            'tags',
            'created',
            'last_updated',
        )
        default_columns = ('finding', 'run', 'rule', 'severity', 'object_repr', 'expected', 'found')

    def render_finding(self, record):
        return str(record.pk)


class ConfigBackupTable(NetBoxTable):
    backup = tables.Column(verbose_name=_('Backup'), linkify=True, accessor='pk')
    device = tables.Column(verbose_name=_('Device'), linkify=True)
    fabric = tables.Column(verbose_name=_('Fabric'), linkify=True)
    time = columns.DateTimeColumn(verbose_name=_('Time'))
    source = columns.ChoiceFieldColumn(verbose_name=_('Source'))
    origin = tables.Column(verbose_name=_('Origin'))
    user = tables.Column(verbose_name=_('User'))
    size = tables.Column(verbose_name=_('Size (bytes)'))
    sha256 = tables.Column(verbose_name=_('SHA-256'))
    # backups are not edited (a sync or an upload makes them): no edit link, whose URL does not exist
    actions = columns.ActionsColumn(actions=('delete', 'changelog'))
    tags = columns.TagColumn(url_name='plugins:netbox_aifabric:configbackup_list')

    class Meta(NetBoxTable.Meta):
        model = ConfigBackup
        fields = (
            'pk',
            'id',
            'backup',
            'device',
            'fabric',
            'time',
            'source',
            'origin',
            'user',
            'size',
            'sha256',
            'tags',
            'created',
            'last_updated',
        )
        default_columns = ('backup', 'device', 'fabric', 'time', 'source', 'origin', 'size')
