"""The runbook of a stored fabric (Django side): its plan, the contexts built from it and its intent (what an apply
writes), and each switch's NOS from its NetBox platform where the fabric's devices exist."""

from netbox_aifabric.acceptance.runbook import build_runbook
from netbox_aifabric.facts.context import build_contexts
from netbox_aifabric.facts.nos import acceptance_nos
from netbox_aifabric.intake.intent import intent_of
from netbox_aifabric.intake.plan import plan_of
from netbox_aifabric.render.configs import fabric_devices

__all__ = ('PLATFORM_NOS', 'fabric_runbook')

# NetBox platform slug -> the runbook's NOS key, for the NOSes with a switch runbook (facts/nos.py)
PLATFORM_NOS = {nos.platform_slug: nos.key for nos in acceptance_nos()}


def nos_of(fabric) -> dict[str, str]:
    devices = fabric_devices(fabric).select_related('platform')
    return {d.name: PLATFORM_NOS[d.platform.slug] for d in devices if d.platform and d.platform.slug in PLATFORM_NOS}


def fabric_runbook(fabric):
    """The fabric's acceptance runbook. Raises PlanError when the fabric has no valid plan."""
    plan = plan_of(fabric)
    return build_runbook(plan, build_contexts(plan, intent_of(fabric)), nos_of(fabric))
