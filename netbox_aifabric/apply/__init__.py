"""Translation between NetBox objects and the planner: intent models in, planner specs out (and, next, plans back
into NetBox objects)."""
