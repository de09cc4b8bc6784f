"""The fabric's Compliance tab read from its latest stored run (``ComplianceRun`` and its ``ComplianceFinding`` rows,
stored by the compliance job): nothing is checked or rendered on a view. Each rule's row comes from the run's
``rule_results`` and the rule catalogue; each finding from its row, its objects linked only when the user may view
them now and their change-log entry (as of the run) shown only when the user may view it; the running configs' lines
hidden from a user who may not view config backups, as a live run hides them. The number of queries does not depend
on the fabric's size: one per model the findings name, besides a fixed few.

A run is *stale* when the fabric was applied after it, or when the intent changed after it: an applied fabric without
a pending change (``Fabric.pending_change``, set by ``signals.py`` on every edit of the intent, cleared by the apply)
has the intent the run read, since the run is newer than the apply; with a pending change (or never applied), the
run is stale when a row of the intent (the fabric, its nodes, QoS profile, traffic classes, EVPN tenants) was saved
after it."""

from dataclasses import dataclass

from django.apps import apps
from django.db.models import Exists, OuterRef, Q
from django.urls import reverse
from django.utils.translation import gettext_lazy as _

from core.models import ObjectChange
from dcim.models import Device

from netbox_aifabric.checks.compliance import HIDDEN
from netbox_aifabric.checks.engine import CONFIG_STATES, FAMILIES
from netbox_aifabric.checks.rules import RULES
from netbox_aifabric.models import ComplianceFinding, EVPNTenant, Fabric, FabricNode, QoSProfile, TrafficClass
from netbox_aifabric.render.configs import fabric_devices

__all__ = (
    'CONFIG_STATE_COLORS',
    'SEVERITY_COLORS',
    'STATUS_COLORS',
    'StoredRule',
    'config_rows',
    'family_folds',
    'rule_rows',
    'stale_reason',
)

STATUS_COLORS = {'pass': 'green', 'fail': 'red', 'skip': 'secondary', 'error': 'orange'}
SEVERITY_COLORS = {'error': 'red', 'warning': 'orange', 'info': 'blue'}
CONFIG_STATE_COLORS = {'compliant': 'green', 'not compliant': 'red', 'never backed up': 'orange'}
CATALOGUE = {rule.id: rule for rule in RULES}
STALE_APPLIED = _('The fabric was applied after this run.')
STALE_INTENT = _('The intent changed after this run.')


@dataclass(frozen=True)
class StoredRule:
    """A rule as the run stored it (its severity and family then) with the catalogue's texts; a rule the catalogue no
    longer has is named by its id."""

    id: str
    family: str
    severity: str
    title: str
    rationale: str = ''
    fix: str = ''

    @classmethod
    def of(cls, rule_id: str, stored: dict) -> 'StoredRule':
        known = CATALOGUE.get(rule_id)
        return cls(
            rule_id,
            stored.get('family') or (known.family if known else ''),
            stored.get('severity') or (known.severity if known else ''),
            known.title if known else rule_id,
            known.rationale if known else '',
            known.fix if known else '',
        )


def _order(rule: StoredRule) -> tuple:
    families = list(FAMILIES)
    catalogue = list(CATALOGUE)
    return (
        families.index(rule.family) if rule.family in families else len(families),
        catalogue.index(rule.id) if rule.id in catalogue else len(catalogue),
        rule.id,
    )


def rule_rows(run, user, keep=None) -> list[tuple[str, list[dict]]]:
    """``[(family label, rows)]`` of the run's rules ``keep`` accepts (all without it), in the catalogue's order, each
    row with its stored status, note and findings (those of the rules shown, as far as the user may view them)."""
    rules = sorted((StoredRule.of(rule_id, stored) for rule_id, stored in (run.rule_results or {}).items()), key=_order)
    rules = [rule for rule in rules if keep is None or keep(rule)]
    findings = stored_findings(run, user, [rule.id for rule in rules])
    families: dict[str, list[dict]] = {}
    for rule in rules:
        stored = run.rule_results[rule.id]
        status = stored.get('status', 'error')
        families.setdefault(rule.family, []).append(
            {
                'rule': rule,
                'status': status,
                'note': stored.get('note', ''),
                'findings': findings.get(rule.id, []),
                'status_color': STATUS_COLORS.get(status, 'secondary'),
                'severity_color': SEVERITY_COLORS.get(rule.severity, 'secondary'),
            }
        )
    return [(str(FAMILIES.get(family, family)), rows) for family, rows in families.items()]


STATUS_WORDS = {'pass': _('passed'), 'fail': _('failed'), 'skip': _('skipped'), 'error': _('broke')}
OPEN_STATUSES = ('fail', 'error')  # a family with a failed or broken rule is open, the rest folded


def family_folds(families) -> list[dict]:
    """Each family of :func:`rule_rows` as a folded section: ``{key, label, rows, open, summary}``, the summary
    counting its rules by result ('8 rules: 7 passed, 1 failed'), open where a rule failed or broke."""
    folds = []
    for n, (label, rows) in enumerate(families):
        counts = {status: sum(row['status'] == status for row in rows) for status in STATUS_WORDS}
        parts = [f'{count} {STATUS_WORDS[status]}' for status, count in counts.items() if count]
        noun = _('rule') if len(rows) == 1 else _('rules')
        folds.append({
            'key': f'family-{n}', 'label': label, 'rows': rows, 'open': any(counts[s] for s in OPEN_STATUSES),
            'summary': f'{len(rows)} {noun}: {", ".join(parts)}',
        })  # fmt: skip
    return folds


def stored_findings(run, user, rule_ids) -> dict[str, list[dict]]:
    """``{rule id: [finding]}`` of the run's findings of ``rule_ids`` the user may view (one query), their objects
    linked for the user (:func:`_links`), the running configs' lines hidden without the backups' view permission."""
    rows = list(
        ComplianceFinding.objects.restrict(user, 'view')
        .filter(run=run, rule__in=rule_ids)
        .order_by('pk')
        .values('rule', 'targets', 'expected', 'found', 'fix')
    )
    visible, changes = _links(rows, user)
    hide = not user.has_perm('netbox_aifabric.view_configbackup')
    found: dict[str, list[dict]] = {}
    for row in rows:
        rule = StoredRule.of(row['rule'], run.rule_results.get(row['rule'], {}))
        remediation = row['fix'] if row['fix'] != rule.fix else ''
        text = row['found']
        if hide and rule.family == 'config' and rule.id != 'config-backup':  # as checks.compliance.hide_running_lines
            text, remediation = HIDDEN, HIDDEN if remediation else ''
        objects = [_linked(target, visible, changes) for target in row['targets'] or () if isinstance(target, dict)]
        found.setdefault(row['rule'], []).append(
            {'objects': objects, 'expected': row['expected'], 'found': text, 'remediation': remediation}
        )
    return found


def _links(rows, user) -> tuple[set, set]:
    """``({(model label, pk)} the user may view now, {change-log entry id} the user may view)``: one query per model
    the findings name and one for the change log."""
    pks: dict[str, set] = {}
    entries = set()
    for row in rows:
        for target in row['targets'] or ():
            if not isinstance(target, dict):
                continue
            if target.get('id') is not None and target.get('url'):
                pks.setdefault(target.get('model') or '', set()).add(target['id'])
            if isinstance(target.get('change'), dict) and target['change'].get('id') is not None:
                entries.add(target['change']['id'])
    visible = set()
    for label, ids in pks.items():
        try:
            model = apps.get_model(label)
        except (LookupError, ValueError):
            continue  # a model no longer installed: named, not linked
        queryset = model.objects.restrict(user, 'view') if hasattr(model.objects, 'restrict') else model.objects.none()
        visible.update((label, pk) for pk in queryset.filter(pk__in=ids).values_list('pk', flat=True))
    changes = set()
    if entries:
        changes = set(ObjectChange.objects.restrict(user, 'view').filter(pk__in=entries).values_list('pk', flat=True))
    return visible, changes


def _linked(target: dict, visible: set, changes: set) -> dict:
    name, device = str(target.get('name', '')), target.get('device')
    change = target.get('change') if isinstance(target.get('change'), dict) else None
    return {
        'label': f'{device} {name}' if device else name,
        'url': target.get('url') if (target.get('model'), target.get('id')) in visible else None,
        'change': change if change is not None and change.get('id') in changes else None,
    }


def config_rows(fabric, run, user) -> dict | None:
    """The run's running-config state of each switch (stored with the ``config-backup`` rule's result as
    ``switches``): ``{'switches', 'percent', 'counts', 'rows': [{name, state, color, url}]}``, each switch linked to
    its Config compliance tab when the user may view the device; None when the run stored no states."""
    states = (run.rule_results or {}).get('config-backup', {}).get('switches')
    if not isinstance(states, dict):
        return None
    counts = {state: sum(1 for s in states.values() if s == state) for state in CONFIG_STATES}
    visible = dict(
        Device.objects.restrict(user, 'view')
        .filter(name__in=list(states), pk__in=fabric_devices(fabric).values('pk'))
        .values_list('name', 'pk')
    )
    rows = [
        {
            'name': name,
            'state': state,
            'color': CONFIG_STATE_COLORS.get(state, 'gray'),
            'url': reverse('dcim:device_aifabric_config', kwargs={'pk': visible[name]}) if name in visible else None,
        }
        for name, state in sorted(states.items())
    ]
    percent = round(100 * counts['compliant'] / len(states)) if states else None
    return {'switches': len(states), 'percent': percent, 'counts': counts, 'rows': rows}


def _intent_saved_after(fabric, time) -> bool:
    """Whether a row of the fabric's intent was saved after ``time`` (the fabric's own from memory, the rest in one
    query)."""
    if fabric.last_updated is not None and fabric.last_updated > time:
        return True
    after = Q(last_updated__gt=time)
    return (
        Fabric.objects.filter(pk=fabric.pk)
        .filter(
            Exists(FabricNode.objects.filter(after, fabric=OuterRef('pk')))
            | Exists(QoSProfile.objects.filter(after, fabrics=OuterRef('pk')))
            | Exists(TrafficClass.objects.filter(after, fabrics=OuterRef('pk')))
            | Exists(EVPNTenant.objects.filter(after, fabrics=OuterRef('pk')))
        )
        .exists()
    )


def stale_reason(fabric, run) -> str | None:
    """Why ``run`` may no longer describe ``fabric`` (applied, or its intent changed, after the run), None if not."""
    if fabric.last_applied is not None and fabric.last_applied > run.created:
        return str(STALE_APPLIED)
    if fabric.last_applied is not None and not fabric.pending_change:
        return None  # the intent is the one applied, before the run
    return str(STALE_INTENT) if _intent_saved_after(fabric, run.created) else None
