"""Design concerns of a valid spec that do not stop the plan: returned as data (:class:`PlanWarning`), never raised.

``plan_fabric`` puts them in ``Plan.warnings``; call :func:`spec_warnings` on a spec that passed ``validate_spec``.
"""

from .asns import PRIVATE_TEXT, first_public
from .result import PlanWarning
from .spec import FabricSpec

__all__ = ('spec_warnings',)


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
    if spec.spine_asn is not None and (spec.underlay == 'ebgp' or spec.evpn):
        if first_public(spec.spine_asn, spec.spine_asn) is not None:
            found.append(
                PlanWarning(
                    'public-asn',
                    'spine_asn',
                    f'spine ASN {spec.spine_asn} is public (the private ASNs are {PRIVATE_TEXT}); '
                    'use it only if it is registered to you',
                )
            )
    if spec.leaf_asn_range is not None and spec.underlay == 'ebgp':
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
