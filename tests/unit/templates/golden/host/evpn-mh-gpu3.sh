#!/usr/bin/env bash
# gpu3: network and RoCE NIC config rendered by netbox-aifabric
# (fabric AI Lab, NIC family nvidia-mlx5). Run as root.
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
      addresses: ["10.40.0.4/24"]
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
      addresses: ["198.51.100.4/24"]
    "bond0.30":
      id: 30
      link: "bond0"
      mtu: 9000
      addresses: ["203.0.113.4/24"]
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

# rdma1 (to leaf1 Ethernet50): RoCE
dev=$(rdma_device rdma1)
mlnx_qos -i rdma1 --trust dscp
mlnx_qos -i rdma1 --pfc 0,0,0,1,0,0,0,0
mlnx_qos -i rdma1 --dscp2prio set,26,3
mlnx_qos -i rdma1 --dscp2prio set,48,6
echo 1 > /sys/class/net/rdma1/ecn/roce_np/enable/3
echo 1 > /sys/class/net/rdma1/ecn/roce_rp/enable/3
echo 48 > /sys/class/net/rdma1/ecn/roce_np/cnp_dscp
echo 6 > /sys/class/net/rdma1/ecn/roce_np/cnp_802p_prio
cma_roce_tos -d "$dev" -t 106