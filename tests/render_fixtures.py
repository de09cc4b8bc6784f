"""Per-device ``aifabric`` contexts of the guide's cluster without a database, for template and export tests.

The plan comes from ``examples/guide-<name>.yaml`` (one per design, ``DESIGNS``, and the variants of a design,
``VARIANTS``: ``evpn-mh`` is the EVPN/VXLAN design with an EVPN multihoming pair); the intent from the plugin's own
seed data: the guide's five traffic classes (``netbox_aifabric/data/traffic_classes.json``) and the NVIDIA Cumulus
lossless RoCE preset (``netbox_aifabric/data/qos_presets.json``) — what the demo loads into NetBox. ``ospf_spec``
turns a spec to the OSPF underlay (the guide examples are eBGP); ``contexts_of`` takes the underlay from the spec.
"""

import copy
import importlib.util
import json
from functools import cache
from pathlib import Path

import netaddr
import yaml

from netbox_aifabric.facts.context import build_contexts
from netbox_aifabric.facts.telemetry import DEFAULT_SFLOW_SAMPLING_RATE, DEFAULT_SNMP_USER
from netbox_aifabric.planner import load_spec, plan_fabric, registry
from netbox_aifabric.planner.guide import GUIDE_POOLS, GUIDE_QOS_PRESET

__all__ = (
    'DESIGNS',
    'GUIDES',
    'JUMP_HOSTS',
    'NO_TELEMETRY',
    'VARIANTS',
    'contexts_of',
    'design_of',
    'example_spec',
    'guide_contexts',
    'guide_intent',
    'guide_spec',
    'guide_telemetry',
    'observed_contexts',
    'observed_intent',
    'ospf_spec',
    'plan_of',
    'single_leaf_racks',
    'single_leaf_racks_spec',
)

ROOT = Path(__file__).resolve().parents[1]
DATA = ROOT / 'netbox_aifabric' / 'data'
DESIGNS = ('mlag', 'routed', 'evpn-vxlan')
# Guide examples beyond one per design: name (examples/guide-<name>.yaml) → the fabric design it is an example of.
VARIANTS = {'evpn-mh': 'evpn-vxlan'}  # EVPN multihoming: an ESI-LAG pair instead of MLAG
GUIDES = (*DESIGNS, *VARIANTS)
QOS_PRESET = GUIDE_QOS_PRESET
# the demo's jump-host subnet, as the seed sets it: inside MGMT, clear of the gateway (.1) and the leaves' own SVI
# addresses (.2/.3 of a rack subnet; the top of an EVPN subnet), inside rack 1's MGMT subnet in the routed design
JUMP_HOSTS = GUIDE_POOLS['jump_host_prefix'][0]
# the model's defaults: no collector (the demo sets none)
NO_TELEMETRY = {
    'syslog': [],
    'ntp': [],
    'snmp_managers': [],
    'snmp_version': 'v3',
    'snmp_user': DEFAULT_SNMP_USER,
    'sflow': [],
    'sflow_sampling_rate': DEFAULT_SFLOW_SAMPLING_RATE,
    'streaming': [],
}


def guide_intent(design: str, underlay: str = 'ebgp') -> dict:
    """``intent_of`` (intake/intent.py) of the demo fabric, without the database: built from the same seed data.
    tests/integration/test_guide_intent.py holds it equal to the real ``intent_of`` of the seeded demo."""
    classes = json.loads((DATA / 'traffic_classes.json').read_text())
    preset = next(p for p in json.loads((DATA / 'qos_presets.json').read_text()) if p['slug'] == QOS_PRESET)
    names = {tc['slug']: tc['name'] for tc in classes}
    return {
        'fabric': {'name': 'AI Lab', 'slug': 'ai-lab', 'design': design, 'underlay': underlay, 'mtu': 9216},
        'roles': {},
        'traffic_classes': [
            {f.intent: _seed_value(tc, f, names) for f in registry.intent_fields()}
            for tc in sorted(classes, key=lambda tc: tc['vid'])
        ],
        'management': {'jump_hosts': [JUMP_HOSTS]},
        'telemetry': dict(NO_TELEMETRY),
        'qos': {
            'profile': preset['name'],
            'preset': preset['slug'],
            'mode': preset['mode'],
            'trust': preset['trust'],
            'roce_dscp': preset['roce_dscp'],
            'roce_priority': preset['roce_priority'],
            'roce_tc': preset['roce_tc'],
            'cnp': {'dscp': preset['cnp_dscp'], 'priority': preset['cnp_priority'], 'tc': preset['cnp_tc']},
            'pfc_priorities': preset['pfc_priorities'],
            'cable_length': preset.get('cable_length'),
            'ecn': {
                'enabled': preset['ecn_enabled'],
                'unit': preset['ecn_threshold_unit'],
                'min_threshold': preset['ecn_min_threshold'],
                'max_threshold': preset['ecn_max_threshold'],
                'probability': preset['ecn_probability'],
                'tcs': preset['ecn_tcs'],
            },
            'strict_tcs': preset['strict_tcs'],
            'dwrr_weights': {str(k): v for k, v in sorted(preset['dwrr_weights'].items())},
            'pfc_watchdog': {
                'enabled': preset['pfc_watchdog'],
                'poll_interval': preset.get('pfcwd_poll_interval'),
                'detection_polls': preset.get('pfcwd_detection_polls'),
                'detection_time': preset.get('pfcwd_detection_time'),
                'restoration_time': preset.get('pfcwd_restoration_time'),
                'action': preset.get('pfcwd_action'),
            },
        },
    }


def _seed_value(tc: dict, field, names: dict):
    """A field of a seed traffic class (data/traffic_classes.json, keyed by the model's field names) as intent_of
    gives it: the JSON holds plain values already, and the members of a many-to-many as slugs."""
    value = tc.get(field.field)
    if field.kind == 'names':
        return sorted(names[slug] for slug in value or ())
    if field.kind == 'list':
        return list(value or [])
    return value


def guide_spec(guide: str) -> dict:
    """The spec ``examples/guide-<guide>.yaml`` as a dict (a fresh copy each call, to change for a variant)."""
    return example_spec(f'guide-{guide}')


def example_spec(name: str) -> dict:
    """The spec ``examples/<name>.yaml`` as a dict (a fresh copy each call, to change for a variant)."""
    return copy.deepcopy(_parsed_example(name))


@cache
def _parsed_example(name: str) -> dict:
    # parsed once per process: the template tests ask for the same few examples hundreds of times, and PyYAML's
    # pure-Python loader took about 2 s of the pure tier doing it again
    return yaml.safe_load((ROOT / 'examples' / f'{name}.yaml').read_text())


def plan_of(raw: dict):
    """The plan of a spec dict (``guide_spec``'s or a variant of it)."""
    return plan_fabric(load_spec(raw))


def contexts_of(raw: dict, design: str) -> dict:
    """``{device name: context}`` of a spec dict, with the guide's intent for ``design`` and the spec's underlay."""
    return build_contexts(plan_of(raw), guide_intent(design, raw.get('underlay', 'ebgp')))


def ospf_spec(raw: dict) -> dict:
    """A copy of the spec dict ``raw`` with an OSPF underlay and no leaf ASN range (no eBGP to number; the spine ASN
    stays: it is the iBGP overlay's in the EVPN/VXLAN design)."""
    raw = copy.deepcopy(raw)
    raw['underlay'] = 'ospf'
    raw.pop('leaf_asn_range', None)
    return raw


def unnumbered_spec(raw: dict) -> dict:
    """A copy of the spec dict ``raw`` with the unnumbered eBGP underlay (RFC 5549) and no point-to-point pool (the
    links take no addresses)."""
    raw = copy.deepcopy(raw)
    raw['underlay'] = 'ebgp-unnumbered'
    raw['pools'].pop('p2p', None)
    return raw


def unnumbered_contexts(guide: str) -> dict:
    """``{device name: context}`` of a guide example with the unnumbered underlay."""
    return contexts_of(unnumbered_spec(guide_spec(guide)), design_of(guide))


def design_of(guide: str) -> str:
    """The fabric design of a guide example (``evpn-mh`` → ``evpn-vxlan``)."""
    return VARIANTS.get(guide, guide)


@cache
def _contexts(guide: str) -> str:
    return json.dumps(contexts_of(guide_spec(guide), design_of(guide)))


def guide_telemetry() -> dict:
    """Collectors for the guide's cluster, derived from the guide's TELEMETRY class prefix (VLAN 50,
    10.50.0.0/24): its 10th to 15th hosts, one service each (two NTP servers, two sFlow collectors; the SNMP manager
    is also the streaming collector), an SNMPv3 user and a sampling rate other than the default."""
    classes = json.loads((DATA / 'traffic_classes.json').read_text())
    prefix = netaddr.IPNetwork(next(tc['prefix'] for tc in classes if tc['purpose'] == 'telemetry'))
    hosts = [str(prefix[n]) for n in range(10, 16)]
    return {
        'syslog': [hosts[0]],
        'ntp': [hosts[1], hosts[2]],
        'snmp_managers': [hosts[3]],
        'snmp_version': 'v3',
        'snmp_user': 'nocwatch',
        'sflow': [hosts[4], hosts[5]],
        'sflow_sampling_rate': 4096,
        'streaming': [hosts[3]],
    }


def observed_intent(guide: str, telemetry: dict | None = None) -> dict:
    """``guide_intent`` of ``guide`` with collectors (``guide_telemetry`` unless given)."""
    intent = guide_intent(design_of(guide))
    intent['telemetry'] = telemetry if telemetry is not None else guide_telemetry()
    return intent


@cache
def _observed(guide: str) -> str:
    return json.dumps(build_contexts(plan_of(guide_spec(guide)), observed_intent(guide)))


def observed_contexts(guide: str) -> dict:
    """``{device name: context}`` (a fresh copy each call) of the guide's cluster with ``guide_telemetry``."""
    return json.loads(_observed(guide))


def guide_contexts(guide: str) -> dict:
    """``{device name: context}`` (a fresh copy each call) for the guide's cluster in ``guide`` (a design or a
    variant of ``VARIANTS``)."""
    return json.loads(_contexts(guide))


def single_leaf_racks_spec() -> dict:
    """The routed guide without its MLAG pair: each leaf a rack of its own, each server with one NIC on one leaf."""
    raw = guide_spec('routed')
    del raw['mlag_pairs'], raw['pools']['mlag_peer'], raw['leaf_platform']['peer_link_ports']
    raw['nics']['count'] = 1
    for server in raw['servers']:
        server['leaves'] = [server['id'] % 2 + 1]
    return raw


@cache
def _single_leaf_racks() -> str:
    return json.dumps(contexts_of(single_leaf_racks_spec(), 'routed'))


def single_leaf_racks() -> dict:
    """``{device name: context}`` of ``single_leaf_racks_spec`` (a fresh copy each call)."""
    return json.loads(_single_leaf_racks())


def pynetbox_seed_example():
    """``examples/pynetbox_seed.py`` loaded as a module (it is standalone: its copies of the plugin's data are held
    equal to the plugin's by tests/unit/test_guide_shape.py and test_pynetbox_seed.py)."""
    path = ROOT / 'examples' / 'pynetbox_seed.py'
    spec = importlib.util.spec_from_file_location('pynetbox_seed_example', path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module
