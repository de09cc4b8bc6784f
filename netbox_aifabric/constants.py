"""Limits shared by models, forms and the API (the numbers the validation messages quote)."""

# the planner (pure core) checks MTUs and VNIs too: one definition, there
from netbox_aifabric.planner.validate import MTU_MAX, MTU_MIN, VNI_MAX, VNI_MIN

__all__ = (
    'CONFIG_BACKUP_MAX_BYTES',
    'DEFAULT_BACKUP_PATTERN',
    'DSCP_MAX',
    'DSCP_MIN',
    'ECN_PROBABILITY_MAX',
    'ECN_PROBABILITY_MIN',
    'FABRIC_NAME_MAX',
    'FABRIC_SLUG_MAX',
    'MTU_MAX',
    'MTU_MIN',
    'PRIORITY_MAX',
    'PRIORITY_MIN',
    'VLAN_VID_MAX',
    'VLAN_VID_MIN',
    'VNI_MAX',
    'VNI_MIN',
)

DSCP_MIN, DSCP_MAX = 0, 63
PRIORITY_MIN, PRIORITY_MAX = 0, 7
VLAN_VID_MIN, VLAN_VID_MAX = 1, 4094
ECN_PROBABILITY_MIN, ECN_PROBABILITY_MAX = 1, 100

# The names the apply derives must fit NetBox's columns and stay unique (a longer slug was a 500 at save,
# a longer name a duplicate tag or L2VPN name at apply). The slug makes device names "<slug>-storage32767" (64
# characters at most, Device.name and FabricNode.name); the name makes the tag "AI fabric <name>" (Tag.name, 100)
# and the L2VPNs "<name> VNI 16777215 (<class>)" (L2VPN.name, 100), whose VNI must survive the cut at 100.
FABRIC_SLUG_MAX = 64 - len('-storage') - len('32767')  # 51
FABRIC_NAME_MAX = 100 - len(' VNI 16777215')  # 87

# Running configs (ConfigBackup): a switch's backup file in its data source, and the largest accepted. A 56-port
# switch's running config is 20-200 KB in every NOS here (SONiC's config_db.json the largest); 2 MiB leaves room
# for breakouts and long ACLs, refuses what is no switch config (an image, a log, a tarball) and stays below NetBox's
# request limit (DATA_UPLOAD_MAX_MEMORY_SIZE, 2.5 MB by default), so an upload too large is refused by name.
DEFAULT_BACKUP_PATTERN = '{device}.{extension}'
CONFIG_BACKUP_MAX_BYTES = 2 * 1024 * 1024

# Acceptance results of the LLDP check: one per planned cable (and per unplanned neighbour), one per uploaded device
# (its view, the tool's output as raw). The judge (acceptance.lldp) writes them, the fabric-lldp rule reads them.
LLDP_CATEGORY = 'lldp'
LLDP_DEVICE_CATEGORY = 'lldp-device'
LLDP_CATEGORIES = (LLDP_CATEGORY, LLDP_DEVICE_CATEGORY)
