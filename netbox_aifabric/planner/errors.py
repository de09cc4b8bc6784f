"""Errors of the planner: every one names the spec field, the node (when there is one) and the numbers."""

__all__ = ('PlanError', 'PoolExhaustedError', 'SpecError')


class PlanError(ValueError):
    """Base class of every planner error.

    Attributes:
        field: dotted path of the spec field at fault, e.g. ``pools.p2p`` or ``servers[3].leaves``.
        node: the node (hostname) concerned, when there is one.
    """

    def __init__(self, field: str, message: str, node: str | None = None):
        self.field = field
        self.node = node
        self.message = message
        super().__init__(f'{field}: {message}')


class SpecError(PlanError):
    """The spec is invalid; raised before anything is allocated."""


class PoolExhaustedError(PlanError):
    """A pool has no free block left for a node (possible only when a previous plan pins other blocks)."""
