"""Which of the fabric's telemetry services have no collector: one rule for the compliance rule
``telemetry-observable`` and the plan previews (the wizard's and the fabric's Plan tab), where it is a warning next to
the apply button, never a blocker (the guide: "buy observability"; an unobserved fabric still forwards)."""

from collections.abc import Mapping
from typing import Any

from django.utils.translation import gettext as _

from netbox_aifabric.facts.telemetry import SERVICES, telemetry_intent

__all__ = ('SERVICE_LABELS', 'intended_collectors', 'missing_collectors', 'observability_warning')

SERVICE_LABELS = {
    'syslog': 'syslog',
    'ntp': 'NTP',
    'snmp': 'SNMP',
    'sflow': 'sFlow',
    'streaming': 'streaming telemetry',
}


def intended_collectors(telemetry: Mapping[str, Any] | None) -> dict[str, list[str]]:
    """``{service: collector addresses}`` of the intent's ``telemetry`` dict (``intake.intent.telemetry_of``), services
    without a collector left out."""
    intent = telemetry_intent(telemetry)
    found = {
        'syslog': intent.syslog,
        'ntp': intent.ntp,
        'snmp': intent.snmp_managers,
        'sflow': intent.sflow,
        'streaming': intent.streaming,
    }
    return {service: list(addresses) for service, addresses in found.items() if addresses}


def missing_collectors(collectors: Mapping[str, Any]) -> list[str]:
    """The services of ``SERVICES`` (in that order) with no collector in ``{service: addresses}``."""
    return [service for service in SERVICES if not collectors.get(service)]


def observability_warning(telemetry: Mapping[str, Any] | None, url: str | None = None) -> dict[str, Any] | None:
    """The preview's warning for a fabric's ``telemetry`` intent: ``{'missing': [service], 'labels': [label],
    'message', 'url'}`` (``url``: where the collectors are set; None: the message says where), or None when every
    service has a collector."""
    missing = missing_collectors(intended_collectors(telemetry))
    if not missing:
        return None
    labels = [SERVICE_LABELS[service] for service in missing]
    if len(missing) == len(SERVICES):
        message = _(
            'Nothing is observable: the fabric has no collector for {services}, so no switch sends logs, keeps '
            'time, or exports queue drops, pause frames and ECN counters. The apply is allowed.'
        )
    else:
        message = _('No collector for {services}: the switches send them nowhere. The apply is allowed.')
    return {'missing': missing, 'labels': labels, 'message': message.format(services=', '.join(labels)), 'url': url}
