"""The guide's 4-node GPU cluster: its shape declared once.

Read by the demo seed (``apply.seed.load_demo``), the NetBox tier's fixtures (``tests/integration/base.py``), the apply
benchmark's size S (``benchmarks/bench_apply.py``); ``examples/pynetbox_seed.py`` is standalone (it runs where
only pynetbox is installed) and keeps a copy that ``tests/unit/test_guide_shape.py`` holds equal to this one. The
traffic classes and their VLANs are ``data/traffic_classes.json`` (``facts.catalog.traffic_class_seed``), the QoS
presets ``data/qos_presets.json``. Pure data: no Django import, so the benchmark and the pure tests read it as they are.
"""

__all__ = (
    'GUIDE_ASN',
    'GUIDE_OVERLAY',
    'GUIDE_POOLS',
    'GUIDE_QOS_PRESET',
    'GUIDE_SHAPE',
    'GUIDE_SITE',
    'GUIDE_SIZES',
    'GUIDE_TENANT',
)

# The cluster's size as Fabric fields: each count with the maximum its numbering leaves room for
GUIDE_SIZES = {
    'spine_count': 2,
    'max_spines': 4,
    'leaf_count': 2,
    'max_leaves': 8,
    'uplinks_per_spine': 1,
    'max_parallel_uplinks': 2,
    'server_count': 4,
    'storage_count': 1,
}
# ... with its links: 100G uplinks, two 25G bond NICs and one 100G RDMA NIC per server, jumbo frames
GUIDE_SHAPE = {
    **GUIDE_SIZES,
    'uplink_speed': 100,
    'server_nic_count': 2,
    'server_nic_speed': 25,
    'rdma_nic_count': 1,
    'rdma_nic_speed': 100,
    'mtu': 9216,
}
# Numbering of the overlay: spine ASN, the leaf ASN range (an ASNRange), L2VNI = base + VLAN, the anycast MAC
GUIDE_ASN = {'spine': 65100, 'leaves': (65101, 65199)}
GUIDE_OVERLAY = {'spine_asn': GUIDE_ASN['spine'], 'l2vni_base': 10000, 'anycast_gateway_mac': '02:00:00:00:00:aa'}
# Fabric field: (prefix, description) of the demo's pools
GUIDE_POOLS = {
    'loopback_pool': ('10.255.0.0/24', 'AI fabric loopbacks'),
    'vtep_pool': ('10.255.1.0/24', 'AI fabric VTEP loopbacks'),
    'p2p_pool': ('10.255.2.0/24', 'AI fabric leaf-spine /31 links'),
    'mlag_peer_pool': ('10.255.3.0/28', 'AI fabric MLAG peer links'),
    'management_pool': ('172.16.0.0/24', "AI fabric switches' out-of-band management ports"),
    'jump_host_prefix': ('192.0.2.16/28', 'Admin jump hosts: the only source of SSH/HTTPS/SNMP to the switches'),
}
GUIDE_SITE = {'slug': 'ai-lab', 'name': 'AI Lab'}
# The EVPN tenant: its VRF, L3VNI and the traffic classes (slugs) it routes
GUIDE_TENANT = {
    'name': 'AI Cluster',
    'vrf': 'AI-CLUSTER',
    'rd': '65100:50001',
    'l3vni': 50001,
    'classes': ('users', 'storage', 'rdma'),
}
GUIDE_QOS_PRESET = 'nvidia-cumulus-lossless'
