#!/usr/bin/env bash
# gpu1: network and RoCE NIC config rendered by netbox-aifabric
# (fabric AI Lab, NIC family broadcom-bnxt). Run as root.
# The NICs carry their NetBox names (nic1, nic2, rdma1, ...): rename them so before running it.
set -euo pipefail

NETPLAN=/etc/netplan/60-aifabric.yaml
umask 077
cat > "$NETPLAN" <<'AIFABRIC_NETPLAN'
network:
  version: 2
  ethernets:
    "nic1": {}
    "nic2": {}
    "rdma1":
      mtu: 9000
      addresses: ["10.40.0.1/24"]
  bonds:
    "bond0":
      interfaces: ["nic1", "nic2"]
      mtu: 9000
      parameters:
        mode: "802.3ad"
  vlans:
    "bond0.20":
      id: 20
      link: "bond0"
      mtu: 1500
      addresses: ["198.51.100.4/27"]
      routes: [{"to": "198.51.100.0/24", "via": "198.51.100.1"}]
    "bond0.30":
      id: 30
      link: "bond0"
      mtu: 9000
      addresses: ["203.0.113.4/27"]
      routes: [{"to": "203.0.113.0/24", "via": "203.0.113.1"}]
AIFABRIC_NETPLAN
chmod 600 "$NETPLAN"
netplan apply

# The RDMA device (mlx5_0, bnxt_re0, ...) whose port 1 carries GID 0 of netdev $1
rdma_device() {
  local dev
  for dev in /sys/class/infiniband/*; do
    if [ "$(cat "$dev/ports/1/gid_attrs/ndevs/0" 2>/dev/null)" = "$1" ]; then
      basename "$dev"
      return 0
    fi
  done
  echo "no RDMA device on $1" >&2
  return 1
}

# rdma1 (to leaf1 Ethernet49): RoCE
dev=$(rdma_device rdma1)
bnxtqos -dev=rdma1 set_pfc enabled=3
bnxtqos -dev=rdma1 set_apptlv app=3,5,26
bnxtqos -dev=rdma1 set_apptlv app=6,5,48
mkdir -p /sys/kernel/config/bnxt_re/"$dev"
cc=/sys/kernel/config/bnxt_re/"$dev"/ports/1/cc
echo -n 0x1 > "$cc"/disable_prio_vlan_tx
echo -n 0x1 > "$cc"/ecn_marking
echo -n 0x1 > "$cc"/ecn_enable
echo -n 1 > "$cc"/cc_mode
echo -n 0x3 > "$cc"/roce_prio
echo -n 0x1a > "$cc"/roce_dscp
echo -n 0x6 > "$cc"/cnp_prio
echo -n 0x30 > "$cc"/cnp_dscp
echo -n 0x1 > "$cc"/apply
mkdir -p /sys/kernel/config/rdma_cm/"$dev"
echo -n 106 > /sys/kernel/config/rdma_cm/"$dev"/ports/1/default_roce_tos