"""Plan → the NetBox objects it implies (:class:`~netbox_aifabric.apply.objects.Desired`), in dependency order: the
fabric's tag, numbers (``desired_numbers``) and devices (``desired_devices``)."""

from netbox_aifabric.apply import desired_devices as devices
from netbox_aifabric.apply import desired_numbers as numbers
from netbox_aifabric.apply.objects import Desired
from netbox_aifabric.intake.inputs import FabricInputs

__all__ = ('desired_objects',)


def desired_objects(inputs: FabricInputs) -> list[Desired]:
    """Every NetBox object the plan of ``inputs`` implies, in dependency order."""
    fabric, plan, adopted = inputs.fabric, inputs.plan, inputs.adopted
    return [
        *numbers.vlan_objects(fabric, plan),
        *devices.device_objects(inputs),
        *numbers.asn_objects(fabric, plan),
        *numbers.loopback_addresses(plan, adopted),
        *numbers.link_objects(plan, adopted),
        *numbers.rack_subnets(fabric, plan),
        *numbers.management_addresses(fabric, plan, adopted),
        *numbers.host_addresses(fabric, plan, adopted),
        *devices.device_attributes(inputs),
        *devices.oob_objects(fabric, plan),
        *numbers.vrf_objects(fabric, plan),
        *numbers.l2vpn_objects(fabric, plan),
    ]
