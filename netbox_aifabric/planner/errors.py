"""Errors of the planner: every one names the spec field, the node (when there is one) and the numbers."""

from netbox_aifabric.planner.labels import field_label

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

    @property
    def field_label(self) -> str:
        """The field as the form says it (``pools.p2p`` → ``point-to-point pool``), for the pages; ``field`` stays
        the machines'."""
        return field_label(self.field)


class SpecError(PlanError):
    """The spec is invalid; raised before anything is allocated."""


class PoolExhaustedError(PlanError):
    """A pool has no free block left for a node (possible only when a previous plan pins other blocks)."""
