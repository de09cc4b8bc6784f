"""The shipped device types (``data/device_types/*.yaml``) hold the datasheet facts written here by hand: interface
counts per NetBox interface type, the management port, a console port and a part number. The facts are the vendor's
(datasheet, the NetBox device-type library, the vendor's platform code; each file's header names its source), not read
back from the files."""

from collections import Counter

import pytest

from netbox_aifabric.facts.catalog import device_type_seed, unverified_part_numbers

pytestmark = pytest.mark.pure

# slug: (part number, {interface type: count of data ports}, management ports, console ports)
DATASHEET = {
    # the guide's ToR, 48x25G + 8x100G, for EOS, SONiC and Cumulus
    'arista-dcs-7050sx3-48yc8': ('DCS-7050SX3-48YC8', {'25gbase-x-sfp28': 48, '100gbase-x-qsfp28': 8}, 1, 1),
    'arista-dcs-7050sx3-48yc8-sonic': ('DCS-7050SX3-48YC8', {'25gbase-x-sfp28': 48, '100gbase-x-qsfp28': 8}, 1, 1),
    'msn2410-bb2fc': ('MSN2410-BB2FC', {'25gbase-x-sfp28': 48, '100gbase-x-qsfp28': 8}, 1, 1),
    # 32x100G spines
    'arista-dcs-7060cx-32s': ('DCS-7060CX-32S', {'100gbase-x-qsfp28': 32, '10gbase-x-sfpp': 2}, 1, 1),
    'sn2700': ('MSN2700-CS2FC', {'100gbase-x-qsfp28': 32}, 2, 1),
    '7726-32x-o': ('7726-32X-O-AC-F', {'100gbase-x-qsfp28': 32}, 3, 1),
    # the 400G class: a 32x400G leaf (breaks out to 4x100G) and a 64x400G spine
    'msn4700-ws2fc': ('MSN4700-WS2FC', {'400gbase-x-qsfpdd': 32}, 1, 1),
    'arista-dcs-7060dx5-64s': ('DCS-7060DX5-64S', {'400gbase-x-qsfpdd': 64, '10gbase-x-sfpp': 2}, 1, 1),
    # the management (out-of-band) switch: 48x1G copper + 4 SFP uplinks
    'arista-dcs-7010tx-48': ('DCS-7010TX-48', {'1000base-t': 48, '25gbase-x-sfp28': 4}, 1, 1),
}


# part numbers no vendor source at hand confirmed (each file's header says what was checked): marked in the data
UNVERIFIED = {'sn2700', '7726-32x-o', 'msn4700-ws2fc'}


def by_slug():
    return {entry['slug']: entry for entry in device_type_seed()}


def test_every_shipped_device_type_has_its_datasheet_facts():
    assert set(by_slug()) == set(DATASHEET)


@pytest.mark.parametrize('slug', sorted(DATASHEET))
def test_ports_part_number_management_and_console_match_the_datasheet(slug):
    entry = by_slug()[slug]
    part_number, data_ports, management, consoles = DATASHEET[slug]
    assert entry['part_number'] == part_number
    interfaces = entry['interfaces']
    assert Counter(i['type'] for i in interfaces if not i.get('mgmt_only')) == data_ports
    assert sum(1 for i in interfaces if i.get('mgmt_only')) == management
    assert len(entry.get('console-ports', ())) == consoles
    assert len({i['name'] for i in interfaces}) == len(interfaces), 'interface names are unique'


def test_unconfirmed_part_numbers_are_marked_unverified_and_only_those():
    flagged = {slug for slug, entry in by_slug().items() if entry.get('part_number_verified', True) is False}
    assert flagged == UNVERIFIED
    assert unverified_part_numbers() == {DATASHEET[slug][0] for slug in UNVERIFIED}  # what the BOM marks
