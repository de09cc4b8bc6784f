"""The compliance engine: named rules over a fabric's facts, and a runner that returns a typed result. Pure.

A :class:`Rule` is data (id, family, title, severity, the guide's rationale in one sentence, a fix hint) and a check:
a plain function from :class:`Facts` (the devices' ``aifabric`` contexts, the intent, the plan, the drift items) to the
:class:`Finding` s it failed on, each naming the objects, what was expected and what was found. A check that lacks the
facts it needs raises :class:`Skip`. :func:`run_rules` runs a list of rules and returns a :class:`ComplianceResult`.

Nothing here imports Django or NetBox: ``checks.compliance`` gathers the facts of a NetBox fabric and links the
findings' objects (URL, last change-log entry) afterwards.
"""

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field, replace
from typing import Any

from netbox_aifabric.checks.config_diff import ConfigComparison
from netbox_aifabric.planner import Plan, PlanWarning
from netbox_aifabric.planner.traffic import Flow

__all__ = (
    'FAMILIES',
    'SEVERITIES',
    'ComplianceResult',
    'DeviceAutomation',
    'DeviceConfig',
    'DriftItem',
    'Facts',
    'Finding',
    'Obj',
    'Rule',
    'RuleResult',
    'Skip',
    'config_summary',
    'run_rules',
)

SEVERITIES = ('error', 'warning', 'info')
FAMILIES = {
    'drift': 'Drift',
    'fabric': 'Fabric',
    'roce': 'RoCE/QoS',
    'security': 'Security',
    'automation': 'Automation',
    'traffic': 'Traffic',
    'config': 'Running configs',
}
# A switch's running config against its rendered one (DeviceConfig.state)
CONFIG_STATES = ('compliant', 'not compliant', 'never backed up', 'not compared')


class Skip(Exception):  # noqa: N818  (a rule's outcome, not an error)
    """A rule cannot run on these facts (say why): the result is ``skip``, never ``pass``."""


@dataclass(frozen=True)
class Obj:
    """An object a finding is about: its NetBox model (``app.model``), its name, the device it belongs to (for
    interfaces) and, once known, its pk, URL and last change-log entry (``change``: time, user, action, URL)."""

    model: str
    name: str
    device: str | None = None
    pk: int | None = None
    url: str | None = None
    change: dict[str, Any] | None = None

    def __str__(self) -> str:
        return f'{self.device} {self.name}' if self.device else self.name

    def to_dict(self) -> dict[str, Any]:
        return {
            'model': self.model,
            'name': self.name,
            'device': self.device,
            'id': self.pk,
            'url': self.url,
            'change': self.change,
        }


@dataclass(frozen=True)
class Finding:
    """One failure of a rule: the objects it is about, what the rule expected and what it found; ``remediation``: the
    lines that fix this finding in the NOS's own syntax, when the rule knows them (the config-* rules)."""

    objects: tuple[Obj, ...]
    expected: str
    found: str
    remediation: str = ''

    def to_dict(self) -> dict[str, Any]:
        return {
            'objects': [o.to_dict() for o in self.objects],
            'expected': self.expected,
            'found': self.found,
            'remediation': self.remediation,
        }


@dataclass(frozen=True)
class Rule:
    id: str
    family: str
    title: str
    severity: str
    rationale: str
    fix: str
    check: Callable[['Facts'], Iterable[Finding]] = field(repr=False, compare=False)

    def __post_init__(self) -> None:
        if self.severity not in SEVERITIES or self.family not in FAMILIES:
            raise ValueError(f'{self.id}: unknown severity {self.severity!r} or family {self.family!r}')


@dataclass(frozen=True)
class DriftItem:
    """One difference between NetBox and the applied plan (from the apply engine's diff): ``action`` is the engine's
    (``update``: an owned object edited; ``create``: wanted but missing; ``delete``: owned but no longer wanted;
    ``conflict``: an object the fabric does not own where the plan wants its own); ``deleted``: the fabric owned the
    object and it is gone (deleted by hand). ``expected`` and ``found`` map field names to values."""

    action: str
    key: str
    obj: Obj
    expected: dict[str, Any] = field(default_factory=dict)
    found: dict[str, Any] = field(default_factory=dict)
    reason: str = ''
    deleted: bool = False


@dataclass(frozen=True)
class DeviceAutomation:
    """What the Automation rules know of a device besides its context: whether it is a switch (servers get a context
    but no config), the name of its config template (None: none assigned) and its render's error (None: it rendered,
    or was not rendered for want of a template)."""

    switch: bool
    config_template: str | None = None
    render_error: str | None = None


@dataclass(frozen=True)
class DeviceConfig:
    """A switch's running config against its rendered one: ``nos`` (the NOS key, None when its platform and template
    name none), ``intended`` (the rendered config, None when it did not render), ``backup`` (the newest running
    config: ``{'id', 'time', 'source', 'origin'}``, None when never backed up), ``comparison``
    (``config_diff.ConfigComparison``, None when not compared) and ``error`` (why it was not compared)."""

    nos: str | None
    intended: str | None
    backup: dict[str, Any] | None = None
    comparison: ConfigComparison | None = None
    error: str | None = None

    @property
    def state(self) -> str:
        if self.comparison is not None:
            return 'compliant' if self.comparison.compliant else 'not compliant'
        return 'never backed up' if self.backup is None and self.error is None else 'not compared'


def config_summary(configs: dict[str, DeviceConfig]) -> dict[str, Any]:
    """Per switch its state (``CONFIG_STATES``), the count of each state and the percentage of the switches whose
    running config is compliant (None without switches)."""
    states = {name: configs[name].state for name in sorted(configs)}
    counts = {state: sum(1 for s in states.values() if s == state) for state in CONFIG_STATES}
    total = len(states)
    percent = round(100 * counts['compliant'] / total) if total else None
    return {'switches': total, 'percent': percent, 'counts': counts, 'devices': states}


@dataclass
class Facts:
    """What the rules read. ``contexts``: ``{device name: aifabric context}`` (``context_source`` says whether they are
    the devices' stored contexts or built from the plan); ``intent``: ``intake.intent.intent_of``'s dict; ``plan``:
    the planner's Plan; ``drift``: the drift items, None when the fabric was never applied; ``errors``: why a fact is
    missing (e.g. ``{'plan': 'the plan failed: ...'}``); ``planned``: the contexts the plan and intent give now (None
    when the plan fails); ``automation``: ``{device name: DeviceAutomation}`` for every device the plan gives a
    context, None when not gathered; ``traffic``: the traffic matrix's warnings (``PlanWarning`` s: code, field,
    message) and ``flows`` the matrix's flows (a flow's ``name`` is its NetBox row's pk), None when not computed;
    ``acceptance``: the last apply and the newest acceptance run of each kind (``checks.compliance.acceptance_facts``),
    None when not gathered; ``configs``: ``{switch name: DeviceConfig}``, None when not gathered (the reason in
    ``errors['configs']``)."""

    fabric: str
    contexts: dict[str, dict[str, Any]]
    intent: dict[str, Any] | None = None
    plan: Plan | None = None
    drift: list[DriftItem] | None = None
    oversubscription_target: float | None = None
    context_source: str = 'devices'
    errors: dict[str, str] = field(default_factory=dict)
    planned: dict[str, dict[str, Any]] | None = None
    automation: dict[str, DeviceAutomation] | None = None
    traffic: list[PlanWarning] | None = None
    flows: list[Flow] | None = None
    acceptance: dict[str, Any] | None = None
    configs: dict[str, DeviceConfig] | None = None


@dataclass
class RuleResult:
    rule: Rule
    status: str  # pass, fail, skip, error
    findings: list[Finding] = field(default_factory=list)
    note: str = ''

    def to_dict(self) -> dict[str, Any]:
        r = self.rule
        return {
            'id': r.id,
            'family': r.family,
            'title': r.title,
            'severity': r.severity,
            'rationale': r.rationale,
            'fix': r.fix,
            'status': self.status,
            'note': self.note,
            'findings': [f.to_dict() for f in self.findings],
        }


@dataclass
class ComplianceResult:
    fabric: str
    results: list[RuleResult]
    context_source: str = 'devices'
    configs: dict[str, Any] | None = None  # config_summary of the switches' running configs, None when not gathered

    @property
    def counts(self) -> dict[str, int]:
        counts = {'rules': len(self.results), 'pass': 0, 'fail': 0, 'skip': 0, 'error': 0, 'findings': 0}
        for result in self.results:
            counts[result.status] += 1
            counts['findings'] += len(result.findings)
        return counts

    @property
    def ok(self) -> bool:
        """No rule failed or broke (skipped rules are listed, not counted as passed)."""
        return not any(r.status in ('fail', 'error') for r in self.results)

    def by_family(self) -> list[tuple[str, str, list[RuleResult]]]:
        """``[(family, label, results)]`` in ``FAMILIES`` order."""
        return [
            (family, label, [r for r in self.results if r.rule.family == family])
            for family, label in FAMILIES.items()
            if any(r.rule.family == family for r in self.results)
        ]

    def findings(self) -> list[tuple[Rule, Finding]]:
        """``(rule, finding)`` for every finding."""
        return [(r.rule, f) for r in self.results for f in r.findings]

    def map_objects(self, function: Callable[[Obj], Obj]) -> 'ComplianceResult':
        """A copy with every finding's objects passed through ``function`` (the NetBox layer adds links)."""
        results = [
            replace(r, findings=[replace(f, objects=tuple(function(o) for o in f.objects)) for f in r.findings])
            for r in self.results
        ]
        return replace(self, results=results)

    def to_dict(self) -> dict[str, Any]:
        return {
            'fabric': self.fabric,
            'ok': self.ok,
            'counts': self.counts,
            'context_source': self.context_source,
            'configs': self.configs,
            'results': [r.to_dict() for r in self.results],
        }


def run_rules(rules: Iterable[Rule], facts: Facts) -> ComplianceResult:
    """Run each rule on ``facts``: ``pass`` without findings, ``fail`` with, ``skip`` when it raised :class:`Skip`,
    ``error`` (with the exception) when it broke: one broken rule never hides the others' results."""
    results = []
    for rule in rules:
        try:
            findings = list(rule.check(facts))
        except Skip as e:
            results.append(RuleResult(rule, 'skip', note=str(e)))
            continue
        except Exception as e:  # noqa: BLE001  (reported as the rule's result, with its type and message)
            results.append(RuleResult(rule, 'error', note=f'{type(e).__name__}: {e}'))
            continue
        results.append(RuleResult(rule, 'fail' if findings else 'pass', findings))
    configs = config_summary(facts.configs) if facts.configs is not None else None
    return ComplianceResult(facts.fabric, results, facts.context_source, configs)
