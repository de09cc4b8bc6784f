"""Per-device, NOS-neutral facts computed once from the plan (pure: no Django or NetBox import), read by the apply
and by the ``aifabric`` context alike (docs/development.md, "Where the code is")."""

from netbox_aifabric.facts.cabling import (
    PEER_LINK_LAG,
    SERVER_BOND,
    DeviceCabling,
    LagFacts,
    NeighborFacts,
    PortFacts,
    VlanMode,
    cabling_facts,
    server_port_modes,
)
from netbox_aifabric.facts.qos import PFC_KINDS, QosFacts, qos_facts
from netbox_aifabric.facts.vlans import LeafVlan, leaf_vlans

__all__ = (
    'PEER_LINK_LAG',
    'PFC_KINDS',
    'SERVER_BOND',
    'DeviceCabling',
    'LagFacts',
    'LeafVlan',
    'NeighborFacts',
    'PortFacts',
    'QosFacts',
    'VlanMode',
    'cabling_facts',
    'leaf_vlans',
    'qos_facts',
    'server_port_modes',
)
