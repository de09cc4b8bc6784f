"""Per-port platform facts of the shipped device types: SONiC's ``lanes`` (mandatory in sonic-port.yang), ``alias``
and ``index``, from the platform's ``port_config.ini`` (``data/device_types/sonic/*.yaml``, each naming its device type
slug). Pure (PyYAML, stdlib); read once per process."""

from functools import cache
from pathlib import Path
from typing import Any

import yaml

__all__ = ('SONIC_PORTS_DIR', 'port_facts')

SONIC_PORTS_DIR = Path(__file__).resolve().parents[1] / 'data' / 'device_types' / 'sonic'


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
