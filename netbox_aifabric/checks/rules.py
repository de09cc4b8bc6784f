"""Every compliance rule, by family (the order the Compliance tab, the API and the report show them in)."""

from netbox_aifabric.checks import (
    acceptance,
    automation,
    config,
    drift,
    fabric,
    lldp,
    roce,
    security,
    telemetry,
    traffic,
)
from netbox_aifabric.checks.engine import Rule

__all__ = ('RULES', 'rule')

RULES = (
    *drift.RULES,
    *fabric.RULES,
    *lldp.RULES,
    *roce.RULES,
    *security.RULES,
    *telemetry.RULES,
    *automation.RULES,
    *acceptance.RULES,
    *traffic.RULES,
    *config.RULES,
)
_BY_ID = {r.id: r for r in RULES}
assert len(_BY_ID) == len(RULES), 'rule ids are unique'


def rule(rule_id: str) -> Rule:
    """The rule with this id."""
    return _BY_ID[rule_id]
