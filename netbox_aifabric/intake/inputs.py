"""What one request reads of a stored fabric, read once: its planned nodes, its plan (with the adoption conflicts),
its intent, the cabling facts and the contexts built from them.

A diff, an apply, a compliance run or a page builds one :class:`FabricInputs` and hands it to everything that needs
these (the desired objects, the contexts, the compliance facts, the views) instead of each reading them again: the
nodes are one query, the plan is the planner's run, the contexts and cabling are pure but not free on a large
fabric. Each value is computed on first use and kept for the object's life; the object lives as long as the request
(a fabric edited since is read by a new one)."""

from dataclasses import dataclass
from functools import cached_property
from typing import Any

from netbox_aifabric.facts.cabling import DeviceCabling
from netbox_aifabric.facts.context import build_contexts, context_cabling
from netbox_aifabric.facts.intent import FabricIntent
from netbox_aifabric.intake.intent import intent_of
from netbox_aifabric.intake.plan import AdoptionConflict, stored_plan
from netbox_aifabric.planner import Plan

__all__ = ('FabricInputs',)


@dataclass(frozen=True, eq=False)
class FabricInputs:
    """One request's reading of ``fabric`` (a stored Fabric). ``given_nodes``: ``fabric.planned_nodes()[0]`` when
    the caller already has them (the apply's ``sync_nodes``); read on first use otherwise. The plan raises the
    planner's ``PlanError`` on first use when the fabric's intent cannot be planned, as ``stored_plan`` does."""

    fabric: Any
    given_nodes: tuple | None = None

    @cached_property
    def nodes(self) -> tuple:
        """The fabric's nodes as its counts say (``Fabric.planned_nodes``)."""
        return self.given_nodes if self.given_nodes is not None else tuple(self.fabric.planned_nodes()[0])

    @cached_property
    def _stored_plan(self) -> tuple[Plan, tuple[AdoptionConflict, ...]]:
        plan, conflicts = stored_plan(self.fabric, nodes=self.nodes)
        return plan, tuple(conflicts)

    @property
    def plan(self) -> Plan:
        """The plan an apply would use (``intake.plan.stored_plan``)."""
        return self._stored_plan[0]

    @property
    def conflicts(self) -> tuple[AdoptionConflict, ...]:
        """The adopted switches whose router-id address the plan cannot keep."""
        return self._stored_plan[1]

    @cached_property
    def adopted(self) -> frozenset[str]:
        """The names of the nodes that adopted an existing device."""
        return frozenset(n.name for n in self.nodes if n.device_id)

    @cached_property
    def intent(self) -> FabricIntent:
        """``intake.intent.intent_of`` of the fabric, its roles from :attr:`nodes`."""
        return intent_of(self.fabric, nodes=self.nodes)

    @cached_property
    def cabling(self) -> dict[str, DeviceCabling]:
        """The cabling facts of the plan that the contexts and the apply's interfaces are built from."""
        return context_cabling(self.plan, self.intent)

    @cached_property
    def contexts(self) -> dict[str, dict]:
        """``{device name: aifabric context}`` of the plan and intent."""
        return build_contexts(self.plan, self.intent, cabling=self.cabling)
