"""The fabric's QoS as typed facts: the DSCP → switch priority → traffic class maps that every switch applies, the
PFC priorities, ECN, the egress scheduler and the PFC watchdog, from the RoCE QoS profile and the traffic classes.

Pure; the same for every switch of a fabric, computed once. The ``aifabric`` context carries ``as_context()``, the
compliance rules compare a switch's stored context against it."""

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from netbox_aifabric.facts.intent import PfcWatchdog, QosIntent, TrafficClassIntent
from netbox_aifabric.facts.sonic import priority_to_pg

__all__ = ('PFC_KINDS', 'QosFacts', 'qos_facts')

PFC_KINDS = ('uplink', 'mlag-peer', 'rdma', 'rail')  # switch ports that carry the lossless class


@dataclass(frozen=True)
class QosFacts:
    """A fabric's QoS: the profile's settings and the maps derived from the traffic classes' markings."""

    profile: str
    preset: str | None
    mode: str
    trust: str
    dscp_to_priority: Mapping[int, int]
    priority_to_tc: Mapping[int, int]
    pfc_priorities: tuple[int, ...]
    cable_length: int | None  # metres (PFC headroom; SONiC's CABLE_LENGTH)
    cnp: Mapping[str, int | None]
    ecn: Mapping[str, Any]
    strict_tcs: tuple[int, ...]
    dwrr_weights: Mapping[str, int]
    pfc_watchdog: Mapping[str, Any] | None

    @property
    def lossless(self) -> bool:
        return self.mode == 'lossless'

    def as_context(self) -> dict[str, Any]:
        """The context's ``qos`` object (schema v1: map keys as strings, in numeric order)."""
        return {
            'profile': self.profile,
            'preset': self.preset,
            'mode': self.mode,
            'trust': self.trust,
            'dscp_to_priority': {str(k): v for k, v in sorted(self.dscp_to_priority.items())},
            'priority_to_tc': {str(k): v for k, v in sorted(self.priority_to_tc.items())},
            'priority_to_pg': {str(k): v for k, v in priority_to_pg(self.priority_to_tc, self.pfc_priorities).items()},
            'pfc_priorities': list(self.pfc_priorities),
            'cable_length': self.cable_length,
            'cnp': dict(self.cnp),
            'ecn': dict(self.ecn),
            'scheduler': {'strict_tcs': list(self.strict_tcs), 'dwrr_weights': dict(self.dwrr_weights)},
            'pfc_watchdog': dict(self.pfc_watchdog) if self.pfc_watchdog is not None else None,
        }


def _maps(qos: QosIntent, classes: Sequence[TrafficClassIntent]) -> tuple[dict[int, int], dict[int, int]]:
    """DSCP → priority and priority → traffic class: the traffic classes' DSCP values first, then the profile's RoCE
    marking and its CNP marking (which win where they overlap)."""
    dscp_to_priority: dict[int, int] = {}
    priority_to_tc: dict[int, int] = {}
    for tc in classes:
        if tc['priority'] is None:
            continue
        for dscp in tc['dscp']:
            dscp_to_priority[dscp] = tc['priority']
        if tc['queue'] is not None:
            priority_to_tc[tc['priority']] = tc['queue']
    for dscp, priority, tc_ in zip(qos['roce_dscp'], qos['roce_priority'], qos['roce_tc'], strict=False):
        dscp_to_priority[dscp] = priority
        priority_to_tc[priority] = tc_
    cnp = qos['cnp']
    if cnp['dscp'] is not None and cnp['priority'] is not None:
        dscp_to_priority[cnp['dscp']] = cnp['priority']
        if cnp['tc'] is not None:
            priority_to_tc[cnp['priority']] = cnp['tc']
    return dscp_to_priority, priority_to_tc


def _watchdog(watchdog: PfcWatchdog) -> dict[str, Any] | None:
    """The profile's PFC watchdog (times in ms) and ``timeout``: its detection time, else its detection polls ×
    poll interval (what EOS calls the timeout), else None. None when the watchdog is off."""
    if not watchdog['enabled']:
        return None
    timeout = watchdog['detection_time']
    if timeout is None and watchdog['poll_interval'] and watchdog['detection_polls']:
        timeout = watchdog['poll_interval'] * watchdog['detection_polls']
    return {**watchdog, 'timeout': timeout}


def qos_facts(qos: QosIntent | None, classes: Sequence[TrafficClassIntent]) -> QosFacts | None:
    """The QoS facts of a profile (``intent['qos']``) and the traffic classes (``intent['traffic_classes']``); None
    without a profile."""
    if qos is None:
        return None
    dscp_to_priority, priority_to_tc = _maps(qos, classes)
    return QosFacts(
        profile=qos['profile'],
        preset=qos['preset'],
        mode=qos['mode'],
        trust=qos['trust'],
        dscp_to_priority=dscp_to_priority,
        priority_to_tc=priority_to_tc,
        pfc_priorities=tuple(qos['pfc_priorities']),
        cable_length=qos.get('cable_length'),
        cnp={'dscp': qos['cnp']['dscp'], 'priority': qos['cnp']['priority'], 'tc': qos['cnp']['tc']},
        ecn=dict(qos['ecn']),
        strict_tcs=tuple(qos['strict_tcs']),
        dwrr_weights=dict(qos['dwrr_weights']),
        pfc_watchdog=_watchdog(qos['pfc_watchdog']),
    )
