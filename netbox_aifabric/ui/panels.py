from django.utils.translation import gettext_lazy as _

from netbox.ui import attrs, panels

__all__ = (
    'EVPNTenantPanel',
    'FabricConfigManagementPanel',
    'FabricDevicesPanel',
    'FabricIntentPanel',
    'FabricManagementPanel',
    'FabricNodePanel',
    'FabricPanel',
    'FabricSizePanel',
    'FabricTelemetryPanel',
    'QoSECNPanel',
    'QoSMarkingPanel',
    'QoSProfilePanel',
    'QoSWatchdogPanel',
    'TrafficClassPanel',
    'TrafficClassQoSPanel',
)


class TrafficClassPanel(panels.ObjectAttributesPanel):
    name = attrs.TextAttr('name')
    purpose = attrs.ChoiceAttr('purpose')
    vid = attrs.NumericAttr('vid', label=_('VLAN ID'))
    vlan = attrs.RelatedObjectAttr('vlan', linkify=True, label=_('VLAN'))
    vrf = attrs.RelatedObjectAttr('vrf', linkify=True, label=_('VRF'))
    prefix = attrs.RelatedObjectAttr('prefix', linkify=True)
    routed = attrs.BooleanAttr('routed')
    mtu = attrs.NumericAttr('mtu', label=_('MTU'))
    description = attrs.TextAttr('description')


class TrafficClassQoSPanel(panels.ObjectAttributesPanel):
    title = _('QoS and security')
    dscp = attrs.ArrayAttr('dscp', label=_('DSCP'))
    switch_priority = attrs.NumericAttr('switch_priority')
    queue = attrs.NumericAttr('queue', label=_('Traffic class (queue)'))
    lossless = attrs.BooleanAttr('lossless', label=_('Lossless (PFC)'))
    ecn = attrs.BooleanAttr('ecn', label=_('ECN'))
    reachability = attrs.ChoiceAttr('reachability')
    reachable_from = attrs.RelatedObjectListAttr('reachable_from', linkify=True, label=_('Reachable from'))


class QoSProfilePanel(panels.ObjectAttributesPanel):
    name = attrs.TextAttr('name')
    mode = attrs.ChoiceAttr('mode')
    trust = attrs.ChoiceAttr('trust')
    mtu = attrs.NumericAttr('mtu', label=_('MTU'))
    cable_length = attrs.NumericAttr('cable_length', label=_('Cable length (m)'))
    preset = attrs.TextAttr('preset', style='font-monospace')
    source = attrs.TextAttr('source')
    description = attrs.TextAttr('description')


class QoSMarkingPanel(panels.ObjectAttributesPanel):
    title = _('Marking, PFC and scheduling')
    roce_dscp = attrs.ArrayAttr('roce_dscp', label=_('RoCE DSCP'))
    roce_priority = attrs.ArrayAttr('roce_priority', label=_('RoCE priority'))
    roce_tc = attrs.ArrayAttr('roce_tc', label=_('RoCE traffic class'))
    cnp_dscp = attrs.NumericAttr('cnp_dscp', label=_('CNP DSCP'))
    cnp_priority = attrs.NumericAttr('cnp_priority', label=_('CNP priority'))
    cnp_tc = attrs.NumericAttr('cnp_tc', label=_('CNP traffic class'))
    pfc_priorities = attrs.ArrayAttr('pfc_priorities', label=_('PFC priorities'))
    strict_tcs = attrs.ArrayAttr('strict_tcs', label=_('Strict priority TCs'))
    dwrr_weights = attrs.TextAttr('dwrr_weights_display', label=_('DWRR weights'))


class QoSECNPanel(panels.ObjectAttributesPanel):
    title = _('ECN')
    ecn_enabled = attrs.BooleanAttr('ecn_enabled', label=_('Enabled'))
    ecn_threshold_unit = attrs.ChoiceAttr('ecn_threshold_unit', label=_('Threshold unit'))
    ecn_min_threshold = attrs.NumericAttr('ecn_min_threshold', label=_('Min threshold'))
    ecn_max_threshold = attrs.NumericAttr('ecn_max_threshold', label=_('Max threshold'))
    ecn_probability = attrs.NumericAttr('ecn_probability', label=_('Probability (%)'))
    ecn_tcs = attrs.ArrayAttr('ecn_tcs', label=_('Traffic classes'))


class QoSWatchdogPanel(panels.ObjectAttributesPanel):
    title = _('PFC watchdog')
    pfc_watchdog = attrs.BooleanAttr('pfc_watchdog', label=_('Enabled'))
    pfcwd_poll_interval = attrs.NumericAttr('pfcwd_poll_interval', label=_('Poll interval (ms)'))
    pfcwd_detection_polls = attrs.NumericAttr('pfcwd_detection_polls', label=_('Detection polls'))
    pfcwd_detection_time = attrs.NumericAttr('pfcwd_detection_time', label=_('Detection time (ms)'))
    pfcwd_restoration_time = attrs.NumericAttr('pfcwd_restoration_time', label=_('Restoration time (ms)'))
    pfcwd_action = attrs.ChoiceAttr('pfcwd_action', label=_('Action'))


class EVPNTenantPanel(panels.ObjectAttributesPanel):
    name = attrs.TextAttr('name')
    tenant = attrs.RelatedObjectAttr('tenant', linkify=True)
    vrf = attrs.RelatedObjectAttr('vrf', linkify=True, label=_('VRF'))
    l3vni = attrs.NumericAttr('l3vni', label=_('L3VNI'))
    l2vni_base = attrs.NumericAttr('l2vni_base', label=_('L2VNI base'))
    anycast_gateway_mac = attrs.TextAttr('anycast_gateway_mac', label=_('Anycast gateway MAC'), style='font-monospace')
    traffic_classes = attrs.RelatedObjectListAttr('traffic_classes', linkify=True, label=_('Traffic classes'))
    vlans = attrs.RelatedObjectListAttr('vlans', linkify=True, label=_('VLANs'))
    description = attrs.TextAttr('description')


class FabricPanel(panels.ObjectAttributesPanel):
    name = attrs.TextAttr('name')
    site = attrs.RelatedObjectAttr('site', linkify=True)
    status = attrs.ChoiceAttr('status')
    design_option = attrs.ChoiceAttr('design_option')
    underlay = attrs.ChoiceAttr('underlay')
    leaf_pairing = attrs.ChoiceAttr('leaf_pairing', label=_('Leaf pairing'))
    bfd = attrs.BooleanAttr('bfd', label=_('BFD on the underlay'))
    mtu = attrs.NumericAttr('mtu', label=_('MTU'))
    oversubscription_target = attrs.NumericAttr('oversubscription_target', label=_('Oversubscription target (:1)'))
    description = attrs.TextAttr('description')


class FabricSizePanel(panels.ObjectAttributesPanel):
    title = _('Size (count / declared maximum)')
    spines = attrs.TemplatedAttr('spine_count', label=_('Spines'), template_name='netbox_aifabric/attrs/spines.html')
    leaves = attrs.TemplatedAttr('leaf_count', label=_('Leaves'), template_name='netbox_aifabric/attrs/leaves.html')
    uplinks = attrs.TemplatedAttr(
        'uplinks_per_spine', label=_('Uplinks per spine'), template_name='netbox_aifabric/attrs/uplinks.html'
    )
    server_count = attrs.NumericAttr('server_count', label=_('GPU servers'))
    storage_count = attrs.NumericAttr('storage_count', label=_('Storage nodes'))
    links = attrs.TemplatedAttr('uplink_speed', label=_('Links'), template_name='netbox_aifabric/attrs/links.html')
    rdma_nic_family = attrs.ChoiceAttr('rdma_nic_family', label=_('RDMA NIC family'))


class FabricIntentPanel(panels.ObjectAttributesPanel):
    title = _('Pools and overlay')
    loopback_pool = attrs.RelatedObjectAttr('loopback_pool', linkify=True)
    vtep_pool = attrs.RelatedObjectAttr('vtep_pool', linkify=True, label=_('VTEP pool'))
    p2p_pool = attrs.RelatedObjectAttr('p2p_pool', linkify=True, label=_('Point-to-point pool'))
    mlag_peer_pool = attrs.RelatedObjectAttr('mlag_peer_pool', linkify=True, label=_('MLAG peer pool'))
    leaf_asn_range = attrs.RelatedObjectAttr('leaf_asn_range', linkify=True, label=_('Leaf ASN range'))
    spine_asn = attrs.NumericAttr('spine_asn', label=_('Spine ASN'))
    l2vni_base = attrs.NumericAttr('l2vni_base', label=_('L2VNI base'))
    anycast_gateway_mac = attrs.TextAttr('anycast_gateway_mac', label=_('Anycast gateway MAC'), style='font-monospace')
    qos_profile = attrs.RelatedObjectAttr('qos_profile', linkify=True, label=_('QoS profile'))


class FabricManagementPanel(panels.ObjectAttributesPanel):
    title = _('Management plane')
    management_pool = attrs.RelatedObjectAttr('management_pool', linkify=True, label=_('Management network'))
    management_gateway = attrs.TextAttr('management_gateway', label=_('Management gateway'), style='font-monospace')
    jump_host_prefix = attrs.RelatedObjectAttr('jump_host_prefix', linkify=True, label=_('Jump-host subnet'))
    bmc_attachment = attrs.ChoiceAttr('bmc_attachment', label=_('BMC attachment'))


def _addresses(field, label):
    return attrs.TemplatedAttr(field, label=label, template_name='netbox_aifabric/attrs/addresses.html')


class FabricTelemetryPanel(panels.ObjectAttributesPanel):
    """The collectors every switch sends to and admits; none everywhere: nothing is observable."""

    title = _('Telemetry')
    syslog_servers = _addresses('syslog_servers', _('Syslog servers'))
    ntp_servers = _addresses('ntp_servers', _('NTP servers'))
    snmp_managers = _addresses('snmp_managers', _('SNMP managers'))
    snmp_version = attrs.ChoiceAttr('snmp_version', label=_('SNMP version'))
    snmp_user = attrs.TextAttr('snmp_user', label=_('SNMPv3 user'), style='font-monospace')
    sflow_collectors = _addresses('sflow_collectors', _('sFlow collectors'))
    sflow_sampling_rate = attrs.NumericAttr('sflow_sampling_rate', label=_('sFlow sampling rate (1 in N)'))
    streaming_collectors = _addresses('streaming_collectors', _('Streaming collectors'))


class FabricConfigManagementPanel(panels.ObjectAttributesPanel):
    """Where the rendered configs are committed (Git) and the running ones read from (a data source)."""

    title = _('Configuration management')
    config_repository = attrs.TextAttr('config_repository', label=_('Config repository'), style='font-monospace')
    config_repository_branch = attrs.TextAttr('config_repository_branch', label=_('Branch'), style='font-monospace')
    config_backup_source = attrs.RelatedObjectAttr('config_backup_source', linkify=True, label=_('Backup source'))
    config_backup_pattern = attrs.TextAttr('config_backup_pattern', label=_('Backup file name'), style='font-monospace')


class FabricDevicesPanel(panels.ObjectAttributesPanel):
    title = _('Devices')
    spine_device_type = attrs.RelatedObjectAttr('spine_device_type', linkify=True, label=_('Spine type'))
    leaf_device_type = attrs.RelatedObjectAttr('leaf_device_type', linkify=True, label=_('Leaf type'))
    server_device_type = attrs.RelatedObjectAttr('server_device_type', linkify=True, label=_('Server type'))
    management_device_type = attrs.RelatedObjectAttr(
        'management_device_type', linkify=True, label=_('Management switch type')
    )
    spine_role = attrs.RelatedObjectAttr('spine_role', linkify=True)
    leaf_role = attrs.RelatedObjectAttr('leaf_role', linkify=True)
    server_role = attrs.RelatedObjectAttr('server_role', linkify=True, label=_('GPU server role'))
    storage_role = attrs.RelatedObjectAttr('storage_role', linkify=True)
    platform = attrs.RelatedObjectAttr('platform', linkify=True, label=_('Switch platform'))
    spine_platform = attrs.RelatedObjectAttr('spine_platform', linkify=True, label=_('Spine platform'))
    port_map = attrs.TextAttr('port_map_display', label=_('Port map'), style='font-monospace')
    rack = attrs.RelatedObjectAttr('rack', linkify=True)


class FabricNodePanel(panels.ObjectAttributesPanel):
    fabric = attrs.RelatedObjectAttr('fabric', linkify=True)
    role = attrs.ChoiceAttr('role')
    node_id = attrs.NumericAttr('node_id', label=_('Node ID'))
    name = attrs.TextAttr('name')
    pair = attrs.NumericAttr('pair', label=_('Leaf pair'))
    device = attrs.RelatedObjectAttr('device', linkify=True, label=_('Adopted device'))
