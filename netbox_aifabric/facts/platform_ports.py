"""Per-port platform facts of the shipped device types: SONiC's ``lanes`` (mandatory in sonic-port.yang), ``alias``
and ``index``, from the platform's ``port_config.ini`` (``data/device_types/sonic/*.yaml``, each naming its device type
slug). Pure (PyYAML, stdlib); read once per process."""

from collections.abc import Mapping, Sequence
from functools import cache
from pathlib import Path
from typing import Any, Protocol

import yaml

__all__ = ('SONIC_PORTS_DIR', 'breakout_facts', 'breakout_modes', 'offered_mode', 'port_facts')

SONIC_PORTS_DIR = Path(__file__).resolve().parents[1] / 'data' / 'device_types' / 'sonic'


class LaneGroup(Protocol):
    """One lane group of a broken-out port (``facts.hardware.Breakout``)."""

    parent: str
    count: int
    position: int

    @property
    def mode(self) -> str: ...


@cache
def _all_facts() -> dict[str, dict[str, dict[str, Any]]]:
    facts: dict[str, dict[str, dict[str, Any]]] = {}
    for data in _platform_files():
        facts[data['device_type']] = {
            name: {'lanes': str(port['lanes']), 'alias': str(port['alias']), 'index': int(port['index'])}
            for name, port in data['ports'].items()
        }
    return facts


@cache
def _platform_files() -> tuple[dict[str, Any], ...]:
    return tuple(yaml.safe_load(path.read_text()) for path in sorted(SONIC_PORTS_DIR.glob('*.yaml')))


@cache
def _all_modes() -> dict[str, dict[str, dict[str, tuple[str, ...]]]]:
    return {
        data['device_type']: {
            name: {mode: tuple(aliases) for mode, aliases in port['breakout_modes'].items()}
            for name, port in data['ports'].items()
            if 'breakout_modes' in port
        }
        for data in _platform_files()
    }


def breakout_modes(device_type_slug: str | None) -> dict[str, dict[str, tuple[str, ...]]]:
    """``{interface name: {mode: lane port aliases}}``: the modes SONiC's dynamic port breakout offers per port (the
    platform's ``platform.json``), empty when none is shipped for the device type."""
    return dict(_all_modes().get(device_type_slug or '', {}))


def offered_mode(mode: str, modes: Mapping[str, Sequence[str]]) -> str | None:
    """The platform's key for ``mode`` (``4x25G``; ``1x100G[40G]`` also offers ``1x100G``), None if not offered."""
    return next((key for key in modes if key == mode or key.split('[')[0] == mode), None)


def port_facts(device_type_slug: str | None) -> dict[str, dict[str, Any]]:
    """``{interface name: {lanes, alias, index}}`` of a device type, empty when none is shipped for it."""
    return dict(_all_facts().get(device_type_slug or '', {}))


def breakout_facts(
    breakouts: Mapping[str, LaneGroup],
    facts: Mapping[str, Mapping[str, Any]],
    modes: Mapping[str, Mapping[str, Sequence[str]]] | None = None,
) -> dict[str, dict[str, Any]]:
    """The platform facts of the lane ports: each takes its share of the parent's lanes (SONiC's PORT ``lanes``), the
    parent's index (platform.json repeats it per lane), and its alias from the platform's breakout modes when shipped
    (``Eth5/1(Port5)`` on the AS7726-32X), else the parent's alias with ``/<lane group>`` (an assumption)."""
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
            'alias': _lane_alias(parent['alias'], breakout, (modes or {}).get(breakout.parent) or {}),
            'index': parent['index'],
        }
    return out


def _lane_alias(parent_alias: str, breakout: LaneGroup, modes: Mapping[str, Sequence[str]]) -> str:
    key = offered_mode(breakout.mode, modes)
    aliases = modes[key] if key else ()
    if breakout.position < len(aliases):
        return aliases[breakout.position]
    return f'{parent_alias}/{breakout.position + 1}'
