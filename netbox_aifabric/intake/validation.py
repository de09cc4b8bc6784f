"""What the planner refuses, refused when a fabric is saved: ``Fabric.clean()`` plans the fabric
as it would be saved, whatever its status, so the form, bulk import and edit, and the REST API answer with the
planner's own message, on the model field that caused it, and nothing is written (a server count far beyond the
leaves' ports no longer saves and creates hundreds of nodes; an L2VNI base whose VNIs overflow no longer saves; an
EVPN/VXLAN fabric without the MLAG peer pool its pairs need no longer saves, as a draft neither). The pools, the leaf
ASN range and the spine ASN the design needs are the planner's rule too: one source, no copy of it in the model.

One check is not a save: the wizard validates its design and topology steps before its pools step has asked for the
pools and ASNs. Inside :func:`pools_left_for_later` (the wizard's unsaved fabric only) an empty spine ASN or leaf ASN
range is replaced by a private stand-in for this check, so that the planner's checks after them still run, and the
planner's error about an empty pool is not a refusal (the pools come last in the planner's checks: only the
traffic-class subnets' overlap with the pools waits for them). The wizard's pools step then asks for them, and its
create saves with this check whole.
"""

import re
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import replace

from django.core.exceptions import NON_FIELD_ERRORS
from django.utils.translation import gettext as _

from netbox_aifabric.intake.spec import fabric_spec
from netbox_aifabric.planner import PlanError, asn_need, plan_fabric
from netbox_aifabric.planner.asns import PRIVATE_ASNS

__all__ = ('NODES_MAX', 'model_field', 'plan_errors', 'pools_left_for_later')

# Nodes a fabric may have (spines, leaves, GPU servers and storage nodes): far above what the guide's clusters need,
# and low enough that the check stays quick (each node is built before the planner sees it; 32,767 servers took
# seconds and gigabytes, only for the planner to refuse them)
NODES_MAX = 4096
COUNT_FIELDS = ('server_count', 'storage_count', 'leaf_count', 'spine_count')

# The planner spec's fields (indices dropped, longest prefix first) -> the Fabric field the user changes
SPEC_FIELDS = {
    'port_map': 'port_map',  # the chosen device types' ports (facts/hardware.py)
    'design': 'design_option',
    'underlay': 'underlay',
    'spines': 'spine_count',
    'leaves': 'leaf_count',
    'servers.leaves': 'server_nic_count',  # a bond of more NICs than its leaf pair has leaves
    'servers': 'server_count',
    'mlag_pairs': 'leaf_count',
    'mh_pairs': 'leaf_pairing',
    'uplinks_per_spine': 'uplinks_per_spine',
    'maximums.spines': 'max_spines',
    'maximums.leaves': 'max_leaves',
    'maximums.parallel_uplinks': 'max_parallel_uplinks',
    'maximums.servers_per_leaf': 'server_count',
    'pools.loopback': 'loopback_pool',
    'pools.p2p': 'p2p_pool',
    'pools.vtep': 'vtep_pool',
    'pools.mlag_peer': 'mlag_peer_pool',
    'pools.management': 'management_pool',
    'nics.count': 'server_nic_count',
    'nics.speed': 'server_nic_speed',
    'nics.rdma_count': 'rdma_nic_count',
    'nics.rdma_speed': 'rdma_nic_speed',
    'leaf_platform.server_ports': 'server_nic_speed',
    'leaf_platform.rdma_ports': 'rdma_nic_count',
    'leaf_platform.uplink_ports': 'max_spines',
    'spine_platform.downlink_ports': 'max_leaves',
    'spine_asn': 'spine_asn',
    'leaf_asn_range': 'leaf_asn_range',
    'l2vni_base': 'l2vni_base',
    'anycast_gateway_mac': 'anycast_gateway_mac',
    'traffic_classes': 'traffic_classes',
    'tenants': 'tenants',
    'mtu': 'mtu',
    'oversubscription_target': 'oversubscription_target',
    'management_device_type': 'management_device_type',  # a management switch type without copper ports
    'management_switch': 'management_device_type',
}
POOLS = {name: field for name, field in SPEC_FIELDS.items() if name.startswith('pools.')}
# The spec paths that are a Fabric field by another name (a message naming them names that field)
SAID_AS = {
    **POOLS,
    **{name: SPEC_FIELDS[name] for name in ('maximums.spines', 'maximums.leaves', 'maximums.parallel_uplinks')},
}

# Set only while the wizard checks a fabric it does not save (see the module's docstring)
_POOLS_LATER: ContextVar[bool] = ContextVar('aifabric_pools_left_for_later', default=False)


@contextmanager
def pools_left_for_later() -> Iterator[None]:
    """Within: :func:`plan_errors` lets the pools, leaf ASN range and spine ASN be empty. For a fabric that is checked
    and not saved (the wizard's steps before its pools step); a save inside would skip the planner's pool check."""
    token = _POOLS_LATER.set(True)
    try:
        yield
    finally:
        _POOLS_LATER.reset(token)


# A spec path the planner's message names (``pools.loopback``, ``maximums.spines``): said as the form says it
SPEC_PATH = re.compile(r'\b(?:pools|maximums)\.[a-z_]+')


def _said_as_the_form_says(fabric, message: str) -> str:
    """The planner's message with each spec path it names replaced by the Fabric field's verbose name."""

    def verbose(match: re.Match) -> str:
        field = SAID_AS.get(match.group(0))
        return str(fabric._meta.get_field(field).verbose_name) if field else match.group(0)

    return SPEC_PATH.sub(verbose, message)


def _refusal(fabric, error: PlanError) -> dict[str, str]:
    return {model_field(error.field): _said_as_the_form_says(fabric, error.message)}


def model_field(spec_field: str) -> str:
    """The Fabric field a planner error on ``spec_field`` (``servers[3].leaves``) belongs to; ``__all__`` when none
    does (a duplicate node name, the previous plan)."""
    path = re.sub(r'\[\d+\]', '', spec_field)
    while path:
        if path in SPEC_FIELDS:
            return SPEC_FIELDS[path]
        path = path.rpartition('.')[0]
    return NON_FIELD_ERRORS


def _stand_ins(spec):
    """``spec`` with a private spine ASN and leaf ASN range where the wizard left them empty so far (the planner
    would stop there when the design needs them, and ignores them when it does not), or ``None`` when both are set."""
    changes = {}
    if spec.spine_asn is None:
        taken = spec.leaf_asn_range or (0, -1)
        candidates = (PRIVATE_ASNS[0][0], PRIVATE_ASNS[0][1], PRIVATE_ASNS[1][0], PRIVATE_ASNS[1][1])
        changes['spine_asn'] = next((a for a in candidates if not taken[0] <= a <= taken[1]), candidates[0])
    if spec.leaf_asn_range is None:
        spine = changes.get('spine_asn', spec.spine_asn)
        start = PRIVATE_ASNS[1][0]
        end = start + asn_need(spec.maximums.leaves) - 1
        if spine is not None and start <= spine <= end:
            start, end = spine + 1, spine + end - start + 1
        changes['leaf_asn_range'] = (start, end)
    return replace(spec, **changes) if changes else None


def plan_errors(fabric) -> dict[str, str]:
    """``{Fabric field: the planner's message}`` for the planner's refusal of ``fabric`` as it would be saved
    (pending many-to-many members included), or ``{}``, whatever the fabric's status. The last apply's allocations are
    pinned, as the apply pins them. Above ``NODES_MAX`` nodes the fabric is refused before its nodes are built."""
    counts = {field: getattr(fabric, field) or 0 for field in COUNT_FIELDS}
    if sum(counts.values()) > NODES_MAX:
        field = max(counts, key=counts.get)
        return {
            field: _('{total} nodes ({count} {field}) are above the {max} a fabric may have.').format(
                total=sum(counts.values()),
                field=fabric._meta.get_field(field).verbose_name,
                count=counts[field],
                max=NODES_MAX,
            )
        }
    try:
        spec = fabric_spec(fabric, pending=True)  # the chosen device types' ports are checked here
    except PlanError as e:
        return _refusal(fabric, e)
    later = _POOLS_LATER.get()
    stand_ins = _stand_ins(spec) if later else None
    try:
        previous = (fabric.applied_pins() or None) if stand_ins is None else None
        plan_fabric(stand_ins or spec, previous=previous)
    except PlanError as e:
        if later and e.field in POOLS and getattr(fabric, POOLS[e.field]) is None:
            return {}  # the wizard asks for the pool at its pools step
        return _refusal(fabric, e)
    return {}
