"""The guide's warnings about a fabric's intent, shown with its plan before anything is applied."""

from django.utils.translation import gettext as _

from ..choices import DesignOptionChoices, QoSModeChoices, TrafficPurposeChoices

__all__ = ('intent_warnings',)


def intent_warnings(fabric) -> list[str]:
    """Warnings from the guide: RDMA without a lossless QoS profile, PFC beyond the RDMA class, MTUs that a path
    cannot carry, USERS able to reach MGMT, and a routed design whose server bonds and VLAN gateways span leaves that
    share no L2."""
    warnings = []
    classes = list(fabric.traffic_classes.prefetch_related('reachable_from'))
    profile = fabric.qos_profile
    rdma = [tc for tc in classes if tc.purpose == TrafficPurposeChoices.RDMA]

    for tc in rdma:
        if profile is None or profile.mode != QoSModeChoices.LOSSLESS:
            warnings.append(
                _('RDMA class {tc} has no lossless QoS profile (the fabric uses {profile}).').format(
                    tc=tc, profile=profile or _('none')
                )
            )
    for tc in classes:
        if tc.lossless and tc.purpose != TrafficPurposeChoices.RDMA:
            warnings.append(
                _('PFC (lossless) on {tc}, which is not the RDMA class: the guide enables PFC only for RDMA.').format(
                    tc=tc
                )
            )
    if profile is not None and profile.pfc_priorities:
        for tc in classes:
            if tc.purpose != TrafficPurposeChoices.RDMA and tc.switch_priority in profile.pfc_priorities:
                warnings.append(
                    _('{tc} uses priority {prio}, which {profile} makes lossless (PFC).').format(
                        tc=tc, prio=tc.switch_priority, profile=profile
                    )
                )

    for tc in classes:
        if tc.mtu and tc.mtu > fabric.mtu:
            warnings.append(
                _('{tc} needs MTU {mtu}, but the fabric ports carry {fabric_mtu}.').format(
                    tc=tc, mtu=tc.mtu, fabric_mtu=fabric.mtu
                )
            )
        if tc in rdma and profile is not None and profile.mtu and tc.mtu and profile.mtu != tc.mtu:
            warnings.append(
                _('RDMA class {tc} has MTU {mtu}, its QoS profile {profile} {profile_mtu}.').format(
                    tc=tc, mtu=tc.mtu, profile=profile, profile_mtu=profile.mtu
                )
            )

    for tc in classes:
        if tc.purpose == TrafficPurposeChoices.MANAGEMENT:
            for other in tc.reachable_from.all():
                if other.purpose == TrafficPurposeChoices.USER_ACCESS:
                    warnings.append(
                        _(
                            '{users} can reach {mgmt}: the guide keeps user access away from management '
                            '(BMC) addresses.'
                        ).format(users=other, mgmt=tc)
                    )
    if fabric.design_option == DesignOptionChoices.ROUTED and fabric.leaf_count > 1:
        if fabric.server_nic_count > 1 and fabric.server_count + fabric.storage_count:
            warnings.append(
                _(
                    'Routed design: each server bonds its {nics} NICs across {nics} leaves, which are not an MLAG '
                    'pair; the leaves must run MLAG (the MLAG or EVPN/VXLAN design) for that bond to work.'
                ).format(nics=fabric.server_nic_count)
            )
        routed = [tc for tc in classes if tc.routed and tc.prefix_id]
        if routed:
            warnings.append(
                _(
                    'Routed design: {classes} get the same gateway subnet on all {leaves} leaves; the guide keeps '
                    'VLANs local to one rack. Stretch them with EVPN/VXLAN, or keep such a fabric to one leaf.'
                ).format(classes=', '.join(str(tc) for tc in routed), leaves=fabric.leaf_count)
            )
    return warnings
