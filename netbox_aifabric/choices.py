from django.utils.translation import gettext_lazy as _

from utilities.choices import ChoiceSet

from netbox_aifabric.planner.registry import DESIGN_OPTIONS, design_option

__all__ = (
    'BurstinessChoices',
    'DesignOptionChoices',
    'ECNThresholdUnitChoices',
    'FabricNodeRoleChoices',
    'FabricStatusChoices',
    'LeafPairingChoices',
    'LinkSpeedChoices',
    'PFCWatchdogActionChoices',
    'QoSModeChoices',
    'QoSTrustChoices',
    'ServerGroupChoices',
    'TrafficPurposeChoices',
    'UnderlayChoices',
)


#
# Traffic classes
#


class TrafficPurposeChoices(ChoiceSet):
    key = 'TrafficClass.purpose'

    MANAGEMENT = 'management'
    USER_ACCESS = 'user-access'
    STORAGE = 'storage'
    RDMA = 'rdma'
    TELEMETRY = 'telemetry'
    BACKUP = 'backup'
    OTHER = 'other'

    CHOICES = [
        (MANAGEMENT, _('Management'), 'red'),
        (USER_ACCESS, _('User access'), 'blue'),
        (STORAGE, _('Storage'), 'orange'),
        (RDMA, _('RDMA'), 'purple'),
        (TELEMETRY, _('Telemetry'), 'teal'),
        (BACKUP, _('Backup'), 'brown'),
        (OTHER, _('Other'), 'gray'),
    ]


#
# QoS profiles
#


class QoSModeChoices(ChoiceSet):
    key = 'QoSProfile.mode'

    LOSSLESS = 'lossless'
    LOSSY = 'lossy'
    NONE = 'none'

    CHOICES = [
        (LOSSLESS, _('Lossless (PFC + ECN)'), 'purple'),
        (LOSSY, _('Lossy (ECN only)'), 'blue'),
        (NONE, _('None (TCP only)'), 'gray'),
    ]


class QoSTrustChoices(ChoiceSet):
    TRUST_DSCP = 'dscp'
    TRUST_PCP = 'pcp'
    TRUST_BOTH = 'both'

    CHOICES = [(TRUST_DSCP, _('DSCP (L3)')), (TRUST_PCP, _('PCP (802.1p)')), (TRUST_BOTH, _('DSCP and PCP'))]


class ECNThresholdUnitChoices(ChoiceSet):
    BYTES = 'bytes'
    PERCENT = 'percent'

    CHOICES = [(BYTES, _('Bytes')), (PERCENT, _('Percent of queue fill'))]


class PFCWatchdogActionChoices(ChoiceSet):
    DROP = 'drop'
    FORWARD = 'forward'
    ALERT = 'alert'

    CHOICES = [(DROP, _('Drop')), (FORWARD, _('Forward')), (ALERT, _('Alert only'))]


#
# Fabrics
#


class DesignOptionChoices(ChoiceSet):
    key = 'Fabric.design_option'

    MLAG = design_option('mlag').value
    ROUTED = design_option('routed').value
    EVPN_VXLAN = design_option('evpn-vxlan').value

    # declared once in planner/registry.py (value, label, colour, EVPN or not, the wizard's advice)
    CHOICES = [(option.value, _(option.label), option.color) for option in DESIGN_OPTIONS]


class LeafPairingChoices(ChoiceSet):
    """How the two leaves of a pair (a rack) serve one server bond: MLAG with a peer link, or EVPN multihoming
    (ESI-LAG: no peer link, each leaf its own VTEP and ASN; EVPN/VXLAN design only)."""

    key = 'Fabric.leaf_pairing'

    MLAG = 'mlag'
    EVPN_MH = 'evpn-mh'

    CHOICES = [(MLAG, _('MLAG (peer link)'), 'blue'), (EVPN_MH, _('EVPN multihoming (ESI-LAG)'), 'purple')]


class BmcAttachmentChoices(ChoiceSet):
    """Where the servers' BMC ports attach: a management switch outside the fabric, or an access port of the
    server's first leaf in the management class's VLAN."""

    key = 'Fabric.bmc_attachment'

    OOB = 'oob'
    LEAF = 'leaf'

    CHOICES = [(OOB, _('Management switch (out of band)'), 'gray'), (LEAF, _('Leaf access port (MGMT VLAN)'), 'red')]


class RdmaNicFamilyChoices(ChoiceSet):
    """The servers' RDMA NIC family: whose documented tools the host config sets the NIC's RoCE settings with
    (facts/host.py ``NIC_FAMILIES``; docs/host-config.md)."""

    key = 'Fabric.rdma_nic_family'

    NVIDIA_MLX5 = 'nvidia-mlx5'
    BROADCOM_BNXT = 'broadcom-bnxt'

    CHOICES = [
        (NVIDIA_MLX5, _('NVIDIA ConnectX (mlx5)'), 'green'),
        (BROADCOM_BNXT, _('Broadcom NetXtreme-E (bnxt_re)'), 'blue'),
    ]


class ReachabilityChoices(ChoiceSet):
    """Who may reach a traffic class (the security matrix): the classes listed in ``reachable_from``, any class, or
    no other class."""

    key = 'TrafficClass.reachability'

    LISTED = 'listed'
    ANY = 'any'
    NONE = 'none'

    CHOICES = [
        (LISTED, _('Listed classes only'), 'blue'),
        (ANY, _('Any class'), 'green'),
        (NONE, _('No other class'), 'red'),
    ]


class FabricNodeRoleChoices(ChoiceSet):
    key = 'FabricNode.role'

    SPINE = 'spine'
    LEAF = 'leaf'
    BORDER = 'border'
    GPU = 'gpu'
    STORAGE = 'storage'

    CHOICES = [
        (SPINE, _('Spine'), 'blue'),
        (LEAF, _('Leaf'), 'green'),
        (BORDER, _('Border leaf'), 'teal'),
        (GPU, _('GPU server'), 'purple'),
        (STORAGE, _('Storage node'), 'orange'),
    ]

    # Roles sharing one id space (the planner numbers border leaves as leaves)
    GROUPS = {SPINE: 'spine', LEAF: 'leaf', BORDER: 'leaf', GPU: 'gpu', STORAGE: 'storage'}


class UnderlayChoices(ChoiceSet):
    EBGP = 'ebgp'
    EBGP_UNNUMBERED = 'ebgp-unnumbered'
    OSPF = 'ospf'

    CHOICES = [
        (EBGP, _('eBGP (private ASNs)')),
        (EBGP_UNNUMBERED, _('eBGP unnumbered (RFC 5549, IPv6 link-local)')),
        (OSPF, _('OSPF')),
    ]


class FabricStatusChoices(ChoiceSet):
    key = 'Fabric.status'

    DRAFT = 'draft'
    PLANNED = 'planned'
    APPLIED = 'applied'  # set by an apply (the fabric lifecycle)
    DRIFTED = 'drifted'  # set by compliance when NetBox no longer matches the applied plan
    ACTIVE = 'active'
    DECOMMISSIONING = 'decommissioning'

    CHOICES = [
        (DRAFT, _('Draft'), 'gray'),
        (PLANNED, _('Planned'), 'cyan'),
        (APPLIED, _('Applied'), 'blue'),
        (DRIFTED, _('Drifted'), 'orange'),
        (ACTIVE, _('Active'), 'green'),
        (DECOMMISSIONING, _('Decommissioning'), 'yellow'),
    ]


class LinkSpeedChoices(ChoiceSet):
    """Ethernet port speeds in Gbit/s."""

    CHOICES = [
        (1, '1G'),
        (10, '10G'),
        (25, '25G'),
        (40, '40G'),
        (50, '50G'),
        (100, '100G'),
        (200, '200G'),
        (400, '400G'),
        (800, '800G'),
    ]


class ServerGroupChoices(ChoiceSet):
    """The server groups of the traffic matrix: the planner's server kinds, or every server."""

    key = 'TrafficFlow.group'

    GPU = 'gpu'
    STORAGE = 'storage'
    ALL = 'all'

    CHOICES = [
        (GPU, _('GPU servers'), 'purple'),
        (STORAGE, _('Storage nodes'), 'orange'),
        (ALL, _('All servers'), 'gray'),
    ]


class BurstinessChoices(ChoiceSet):
    SUSTAINED = 'sustained'
    BURSTY = 'bursty'

    CHOICES = [(SUSTAINED, _('Sustained'), 'blue'), (BURSTY, _('Bursty'), 'orange')]


class SnmpVersionChoices(ChoiceSet):
    """How SNMP managers authenticate to the switches: an SNMPv3 user (SHA authentication, AES privacy) or an SNMPv2c
    read-only community; the secrets themselves are placeholders in the configs (docs/contexts.md, Secrets)."""

    key = 'Fabric.snmp_version'

    V3 = 'v3'
    V2C = 'v2c'

    CHOICES = [(V3, _('SNMPv3 user (SHA, AES)'), 'green'), (V2C, _('SNMPv2c read-only community'), 'orange')]
