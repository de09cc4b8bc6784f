"""The shipped catalogue, read from the package (pure: the standard library and yaml): the RoCE QoS presets, the
switch device types, the guide's traffic classes and the device-config templates' code (which template each NOS
renders with, and for which NetBox platform: ``facts/nos.py``). ``apply/seed.py`` loads them into NetBox."""

import functools
import json
from importlib import resources
from pathlib import Path
from typing import Any

import yaml

__all__ = (
    'DATA',
    'MANAGEMENT_DEVICE_TYPE',
    'device_template_code',
    'device_type_seed',
    'qos_presets',
    'traffic_class_seed',
    'unverified_part_numbers',
)

DATA = Path(__file__).parent.parent / 'data'


def qos_presets() -> list[dict[str, Any]]:
    """The shipped RoCE QoS presets (``data/qos_presets.json``), values exactly as sourced."""
    presets: list[dict[str, Any]] = json.loads((DATA / 'qos_presets.json').read_text())
    return presets


def device_type_seed() -> list[dict[str, Any]]:
    """The shipped switch device types (``data/device_types/*.yaml``, the NetBox device-type library's format)."""
    return [yaml.safe_load(path.read_text()) for path in sorted((DATA / 'device_types').glob('*.yaml'))]


@functools.cache
def unverified_part_numbers() -> frozenset[str]:
    """The part numbers of the shipped device types that no vendor source confirmed (``part_number_verified: false``
    in their file, which names what was checked): the BOM marks them unverified."""
    return frozenset(entry['part_number'] for entry in device_type_seed() if entry.get('part_number_verified') is False)


def traffic_class_seed() -> list[dict[str, Any]]:
    """The guide's traffic inventory (``data/traffic_classes.json``)."""
    classes: list[dict[str, Any]] = json.loads((DATA / 'traffic_classes.json').read_text())
    return classes


# The shipped 1G management (out-of-band) switch (data/device_types/, by slug): the wizard proposes it and the demo
# chooses it whatever the NOS, since it carries no fabric config (BMCs and management ports only)
MANAGEMENT_DEVICE_TYPE = 'arista-dcs-7010tx-48'


def device_template_code(path: str) -> str:
    """The code of the shipped device-config template ``path`` (a ``Nos.template``)."""
    return resources.files('netbox_aifabric.device_templates').joinpath(path).read_text()
