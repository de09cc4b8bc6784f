"""Acceptance tests from the guide: tool output parsed and judged against the plan (``judge``, pure), the per-fabric
runbook (``runbook``, pure) and their storage as ``AcceptanceRun``/``AcceptanceResult`` objects (``store``)."""
