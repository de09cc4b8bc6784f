"""Per-port platform facts of the shipped device types: SONiC's ``lanes`` (mandatory in sonic-port.yang), ``alias``
and ``index``, from the platform's ``port_config.ini`` (``data/device_types/sonic/*.yaml``, each naming its device type
slug). Pure (PyYAML, stdlib); read once per process."""

from functools import cache
from pathlib import Path
from typing import Any, Protocol

import yaml

__all__ = ('SONIC_PORTS_DIR', 'breakout_facts', 'port_facts')

SONIC_PORTS_DIR = Path(__file__).resolve().parents[1] / 'data' / 'device_types' / 'sonic'


class LaneGroup(Protocol):
    """One lane group of a broken-out port (``apply.hardware.Breakout``)."""

    parent: str
    count: int
    position: int


@cache
def _all_facts() -> dict[str, dict[str, dict[str, Any]]]:
    facts: dict[str, dict[str, dict[str, Any]]] = {}
    for path in sorted(SONIC_PORTS_DIR.glob('*.yaml')):
        data = yaml.safe_load(path.read_text())
        facts[data['device_type']] = {
            name: {'lanes': str(port['lanes']), 'alias': str(port['alias']), 'index': int(port['index'])}
            for name, port in data['ports'].items()
        }
    return facts


def port_facts(device_type_slug: str | None) -> dict[str, dict[str, Any]]:
    """``{interface name: {lanes, alias, index}}`` of a device type, empty when none is shipped for it."""
    return dict(_all_facts().get(device_type_slug or '', {}))


def breakout_facts(breakouts: dict[str, LaneGroup], facts: dict[str, dict[str, Any]]) -> dict[str, dict[str, Any]]:
    """The platform facts of the lane ports: each takes its share of the parent's lanes (SONiC's PORT ``lanes``), the
    parent's index, and the parent's alias with ``/<lane group>`` (an assumption: HWSKUs name them in hwsku.json)."""
    out: dict[str, dict[str, Any]] = {}
    for child, breakout in breakouts.items():
        parent = facts.get(breakout.parent)
        if not parent:
            continue
        lanes = parent['lanes'].split(',')
        step = len(lanes) // breakout.count
        first = breakout.position * step
        out[child] = {
            'lanes': ','.join(lanes[first : first + step]),
            'alias': f'{parent["alias"]}/{breakout.position + 1}',
            'index': parent['index'],
        }
    return out
