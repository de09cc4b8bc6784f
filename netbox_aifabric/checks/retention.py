"""Retention of stored compliance runs: runs older than ``compliance_retention_days`` and runs beyond the newest
``compliance_retention_runs`` of their fabric are deleted with their findings, in bulk; a fabric's latest run always
stays. Applied after each stored run (to its fabric) and by the scheduled compliance job (to every fabric).

The deletion runs outside any request: NetBox records no change for it and fires no event (like a scheduled run).
"""

from datetime import timedelta

from django.core.exceptions import ImproperlyConfigured
from django.db.models import F, Window
from django.db.models.functions import RowNumber
from django.utils import timezone

from netbox.plugins import get_plugin_config

from netbox_aifabric.apply import branching
from netbox_aifabric.models import ComplianceFinding, ComplianceRun

__all__ = ('DAYS', 'RUNS', 'prune_runs', 'retention')

DAYS = 'compliance_retention_days'
RUNS = 'compliance_retention_runs'


def _setting(name):
    value = get_plugin_config('netbox_aifabric', name)
    if value is None:
        return None
    # type() rather than isinstance: False and 0.0 equal 0 but are refused by name, as True and 1.5 are
    if type(value) is not int or value < 0:
        raise ImproperlyConfigured(
            f"PLUGINS_CONFIG['netbox_aifabric']['{name}'] must be a whole number (0 or None: no limit), not {value!r}"
        )
    return value or None


def retention() -> tuple[int | None, int | None]:
    """``(days, runs)`` from the plugin's settings, None where there is no limit; a bad value is refused by name."""
    return _setting(DAYS), _setting(RUNS)


def _expired(fabric, now) -> list[int]:
    """The pks of the runs the settings let go: one query ranks every run within its fabric, newest first."""
    days, keep = retention()
    if days is None and keep is None:
        return []
    ranked = ComplianceRun.objects.annotate(
        rank=Window(RowNumber(), partition_by=[F('fabric_id')], order_by=[F('created').desc(), F('pk').desc()])
    )
    if fabric is not None:
        ranked = ranked.filter(fabric=fabric)
    oldest = now - timedelta(days=days) if days is not None else None
    return [
        pk
        for pk, created, rank in ranked.values_list('pk', 'created', 'rank')
        if rank > 1 and ((oldest is not None and created < oldest) or (keep is not None and rank > keep))
    ]


def prune_runs(fabric=None, now=None) -> int:
    """Delete the runs (of ``fabric``, or of every fabric) past the retention settings and their findings; returns
    how many runs went."""
    pks = _expired(fabric, now or timezone.now())
    if not pks:
        return 0
    with branching.atomic():
        ComplianceFinding.objects.filter(run_id__in=pks).delete()
        ComplianceRun.objects.filter(pk__in=pks).delete()
    return len(pks)
