"""Design concerns of a valid spec that do not stop the plan: returned as data (:class:`PlanWarning`), never raised.

``plan_fabric`` puts them in ``Plan.warnings``; call :func:`spec_warnings` on a spec that passed ``validate_spec``.
"""

from netbox_aifabric.planner.asns import PRIVATE_TEXT, first_public
from netbox_aifabric.planner.result import PlanWarning
from netbox_aifabric.planner.spec import BGP_UNDERLAYS, FabricSpec

__all__ = ('LOSSLESS_OVERSUBSCRIPTION_TARGET', 'oversubscription_target', 'spec_warnings')

# The target a fabric with a lossless (RoCE) class and more than one rack gets when it sets none: its RDMA back end
# aims for 1:1, non-blocking (docs/planner.md says why), so a 120:1 lossless fabric is flagged without a target.
LOSSLESS_OVERSUBSCRIPTION_TARGET = 1.0


def oversubscription_target(spec: FabricSpec, racks: int) -> tuple[float | None, bool]:
    """``(target, defaulted)``: the spec's ``oversubscription_target``; else 1:1 (``defaulted`` True) when a traffic
    class is lossless and the plan has more than one rack (in one rack, server-to-server traffic never crosses the
    uplinks); else ``(None, False)``: no check."""
    if spec.oversubscription_target is not None:
        return spec.oversubscription_target, False
    if racks > 1 and any(tc.lossless for tc in spec.traffic_classes):
        return LOSSLESS_OVERSUBSCRIPTION_TARGET, True
    return None, False


def spec_warnings(spec: FabricSpec) -> list[PlanWarning]:
    """Every warning about ``spec``, in a stable order."""
    return [*_public_asns(spec), *_class_mtus(spec)]


def _class_mtus(spec: FabricSpec) -> list[PlanWarning]:
    """A class MTU above the fabric's: its largest frames would be dropped on the fabric links. A warning, not an
    error, as in NetBox (checks/intent.py): the fabric is planned, and lowering one MTU or raising the other fixes
    it."""
    return [
        PlanWarning(
            'class-mtu-above-fabric',
            f'traffic_classes[{index}].mtu',
            f'MTU {tc.mtu} of {tc.name} is above the fabric MTU {spec.mtu} (mtu): the fabric links would drop its '
            'largest frames',
        )
        for index, tc in enumerate(spec.traffic_classes)
        if tc.mtu is not None and tc.mtu > spec.mtu
    ]


def _public_asns(spec: FabricSpec) -> list[PlanWarning]:
    """Public ASNs are legal but belong to whoever registered them: leaking them from a fabric hijacks their routes.
    Only the ASNs the plan uses are looked at (the spine ASN with eBGP or EVPN, the leaf range with eBGP)."""
    found = []
    if spec.spine_asn is not None and (spec.underlay in BGP_UNDERLAYS or spec.evpn):
        if first_public(spec.spine_asn, spec.spine_asn) is not None:
            found.append(
                PlanWarning(
                    'public-asn',
                    'spine_asn',
                    f'spine ASN {spec.spine_asn} is public (the private ASNs are {PRIVATE_TEXT}); '
                    'use it only if it is registered to you',
                )
            )
    if spec.leaf_asn_range is not None and spec.underlay in BGP_UNDERLAYS:
        start, end = spec.leaf_asn_range
        if (asn := first_public(start, end)) is not None:
            found.append(
                PlanWarning(
                    'public-asn',
                    'leaf_asn_range',
                    f'leaf ASN range {start}–{end} holds public ASNs from {asn} on (the private ASNs are '
                    f'{PRIVATE_TEXT}); use them only if they are registered to you',
                )
            )
    return found
