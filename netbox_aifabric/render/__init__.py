"""Render: turn plans and NetBox objects into what automation reads (per-device config contexts)."""
