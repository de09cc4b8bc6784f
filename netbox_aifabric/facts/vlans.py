"""A leaf's VLANs as typed facts: for every VLAN of the plan, its VNI and VRF, the subnet and gateway it has on this
leaf (its rack's subnet in the routed and MLAG designs, the anycast subnet with EVPN/VXLAN), the leaf's own address
next to the gateway, the class's MTU, and whether the leaf announces the subnet. Pure, from the plan."""

from collections.abc import Mapping
from dataclasses import asdict, dataclass
from typing import Any

from netbox_aifabric.planner.result import Plan, VlanPlan

__all__ = ('LOCAL_PURPOSES', 'LeafVlan', 'leaf_gateway', 'leaf_vlans', 'vlan_is_advertised')

LOCAL_PURPOSES = ('management', 'telemetry')  # never advertised beyond their leaves


@dataclass(frozen=True)
class LeafVlan:
    """One VLAN on one leaf (``subnet``/``gateway`` None where the leaf routes nothing for it)."""

    vid: int
    name: str
    purpose: str | None
    l2vni: int | None
    vrf: str | None
    subnet: str | None
    gateway: str | None
    address: str | None  # the leaf's own address beside a shared gateway (NVUE's SVI address next to VRR)
    lossless: bool
    mtu: int
    advertise: bool

    def as_context(self) -> dict[str, Any]:
        return asdict(self)


def vlan_is_advertised(vlan: Mapping[str, Any], purpose: str | None, l3vni_vrfs: set[str]) -> bool:
    """A leaf announces a VLAN's subnet only if it has a gateway there, the class is not local by purpose, and its
    VRF is the default VRF or one that travels the fabric (an L3VNI)."""
    if not vlan['gateway'] or purpose in LOCAL_PURPOSES:
        return False
    return vlan['vrf'] is None or vlan['vrf'] in l3vni_vrfs


def leaf_gateway(vlan: VlanPlan, leaf: str) -> tuple[str | None, str | None]:
    """The subnet and gateway a VLAN has on ``leaf``: its rack's subnet in the routed and MLAG designs, the anycast
    subnet in the EVPN/VXLAN design, neither for a class that is not routed (nor on a leaf of another rack)."""
    if not vlan.routed:
        return None, None
    for rack in vlan.racks:
        if leaf in rack.leaves:
            return rack.subnet, rack.gateway
    if vlan.racks or vlan.gateway is None:
        return None, None
    return vlan.subnet, vlan.gateway


def leaf_vlans(
    plan: Plan, leaf: str, purpose_of: Mapping[str, str], class_mtu: Mapping[str, int], fabric_mtu: int
) -> tuple[LeafVlan, ...]:
    """Every VLAN of the plan as ``leaf`` has it."""
    l3vni_vrfs = {vrf.name for vrf in plan.vrfs}
    vlans = []
    for vlan in plan.vlans:
        subnet, gateway = leaf_gateway(vlan, leaf)
        purpose = purpose_of.get(vlan.name)
        routing = {'gateway': gateway, 'vrf': vlan.vrf}
        vlans.append(
            LeafVlan(
                vid=vlan.vid,
                name=vlan.name,
                purpose=purpose,
                l2vni=vlan.l2vni,
                vrf=vlan.vrf,
                subnet=subnet,
                gateway=gateway,
                address=dict(vlan.switch_addresses).get(leaf) if gateway else None,
                lossless=vlan.lossless,
                mtu=class_mtu.get(vlan.name, fabric_mtu),
                advertise=vlan_is_advertised(routing, purpose, l3vni_vrfs),
            )
        )
    return tuple(vlans)
