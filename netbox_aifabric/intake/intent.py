"""The fabric's intent as plain data, read from its NetBox objects: the input of the device facts and contexts.

:func:`intent_of` is the one reader of the intent models for the facts layer (:mod:`netbox_aifabric.facts`): its
QoS profile, traffic classes, name/design/underlay/MTU, BFD, management jump hosts, the telemetry collectors, and the
platform facts of the chosen device types. Everything downstream of it is pure.
"""

from netbox_aifabric.facts.intent import FabricIntent
from netbox_aifabric.facts.platform_ports import breakout_facts, breakout_modes, port_facts
from netbox_aifabric.intake.spec import role_ports
from netbox_aifabric.planner import SpecError, registry

__all__ = ('intent_of',)


def intent_of(fabric, nodes=None) -> FabricIntent:
    """The fabric intent the contexts are built from, as plain data (its shape: ``facts/intent.py``); ``nodes``:
    ``fabric.planned_nodes()[0]`` when the caller has read them."""
    profile = fabric.qos_profile
    classes = [
        {f.intent: registry.plain_value(tc, f) for f in registry.intent_fields()}
        for tc in fabric.traffic_classes.select_related('prefix')
        .prefetch_related('reachable_from')
        .order_by('vid', 'name')
    ]
    qos = None
    if profile is not None:
        qos = {
            'profile': profile.name,
            'preset': profile.preset or None,
            'mode': profile.mode,
            'trust': profile.trust,
            'roce_dscp': list(profile.roce_dscp or []),
            'roce_priority': list(profile.roce_priority or []),
            'roce_tc': list(profile.roce_tc or []),
            'cnp': {'dscp': profile.cnp_dscp, 'priority': profile.cnp_priority, 'tc': profile.cnp_tc},
            'pfc_priorities': list(profile.pfc_priorities or []),
            'cable_length': profile.cable_length,
            'ecn': {
                'enabled': profile.ecn_enabled,
                'unit': profile.ecn_threshold_unit,
                'min_threshold': profile.ecn_min_threshold,
                'max_threshold': profile.ecn_max_threshold,
                'probability': profile.ecn_probability,
                'tcs': list(profile.ecn_tcs or []),
            },
            'strict_tcs': list(profile.strict_tcs or []),
            'dwrr_weights': {str(k): v for k, v in sorted((profile.dwrr_weights or {}).items())},
            'pfc_watchdog': {
                'enabled': profile.pfc_watchdog,
                'poll_interval': profile.pfcwd_poll_interval,
                'detection_polls': profile.pfcwd_detection_polls,
                'detection_time': profile.pfcwd_detection_time,
                'restoration_time': profile.pfcwd_restoration_time,
                'action': profile.pfcwd_action,
            },
        }
    roles = {n.name: n.role for n in (fabric.planned_nodes()[0] if nodes is None else nodes)}
    return {
        'fabric': {
            'name': fabric.name,
            'slug': fabric.slug,
            'design': fabric.design_option,
            'underlay': fabric.underlay,
            'mtu': fabric.mtu,
        },
        'roles': roles,
        'anycast_gateway_mac': fabric.anycast_gateway_mac or None,
        'bfd': fabric.bfd,
        'host_nic': fabric.rdma_nic_family,
        **_platform_facts(fabric),
        'traffic_classes': classes,
        'qos': qos,
        'management': {'jump_hosts': [str(fabric.jump_host_prefix.prefix)] if fabric.jump_host_prefix_id else []},
        'telemetry': telemetry_of(fabric),
    }


def telemetry_of(fabric) -> dict:
    """The fabric's collectors and settings as the facts read them (facts.telemetry.telemetry_intent)."""
    return {
        'syslog': [str(a) for a in fabric.syslog_servers or ()],
        'ntp': [str(a) for a in fabric.ntp_servers or ()],
        'snmp_managers': [str(a) for a in fabric.snmp_managers or ()],
        'snmp_version': fabric.snmp_version,
        'snmp_user': fabric.snmp_user,
        'sflow': [str(a) for a in fabric.sflow_collectors or ()],
        'sflow_sampling_rate': fabric.sflow_sampling_rate,
        'streaming': [str(a) for a in fabric.streaming_collectors or ()],
    }


def _platform_facts(fabric) -> dict:
    """``hardware``: role -> {port: platform facts (SONiC lanes/alias/index)} of the leaf and spine device types when
    shipped, lane ports of a breakout included; ``breakouts``: role -> {lane port: its parent and mode};
    ``device_types``: role -> device type slug (the SONiC platform facts of facts/sonic.py)."""
    hardware, breakouts, device_types = {}, {}, {}
    for role in ('leaf', 'spine'):
        device_type = getattr(fabric, f'{role}_device_type')
        if device_type is None:
            continue
        device_types[role] = device_type.slug
        facts = port_facts(device_type.slug)
        try:
            split = role_ports(fabric, role)[1]
        except SpecError:  # the plan reports it; the contexts are not built from a plan that fails
            split = {}
        hardware[role] = {**facts, **breakout_facts(split, facts, breakout_modes(device_type.slug))}
        breakouts[role] = {
            lane: {'parent': b.parent, 'count': b.count, 'speed': b.speed, 'mode': b.mode} for lane, b in split.items()
        }
    return {'hardware': hardware, 'breakouts': breakouts, 'device_types': device_types}
