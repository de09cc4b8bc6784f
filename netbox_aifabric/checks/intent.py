"""The guide's warnings about a fabric's intent, shown with its plan before anything is applied."""

from django.utils.translation import gettext as _

from netbox_aifabric.choices import QoSModeChoices, TrafficPurposeChoices

__all__ = ('intent_warnings',)


def intent_warnings(fabric) -> list[str]:
    """Warnings from the guide: RDMA without a lossless QoS profile, PFC beyond the RDMA class, MTUs that a path
    cannot carry, USERS able to reach MGMT. The plan's own warnings (``Plan.warnings``: oversubscription above the
    target, a class that is not routed across racks) come from the planner and are shown next to these."""
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
    return warnings
