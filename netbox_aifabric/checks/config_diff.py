"""A switch's intended (rendered) config against its running (backed-up) config, per NOS. Pure (no Django).

``compare_config(nos, intended, running)`` gives a :class:`ConfigComparison`: the findings (a line or value the
running config lacks, has beyond the intended one, or holds with another value), each with the lines that fix it in
the NOS's own syntax, the whole remediation, and the parts of the running config set aside (``ignored``). Text that
is not a config of that NOS raises :class:`ConfigParseError`, never another exception.

How each NOS is compared:

- **EOS** (``show running-config``) through hier_config's Arista EOS driver; **FRR** (``show running-config``,
  ``frr.conf``) through hier_config's generic driver after FRR's own markers are dropped (``!``, ``exit``,
  ``exit-address-family``, ``exit-vrf``: indentation alone drives the tree). The remediation is hier_config's. A line
  of the running config absent from the intended one under the same parent is ``extra``, the reverse ``missing``; a
  missing and an extra line under one parent that set the same thing (hier_config's idempotent commands, or the same
  key: the line minus its last token, or the sequence number of an ACL entry) are one ``changed`` finding.
- **NVUE** (``/etc/nvue.d/startup.yaml``) structurally: the ``set`` documents merged into one tree, compared
  key by key (order never counts), leaves as the strings of their YAML scalars; ``header`` documents are ignored. The
  remediation is ``nv set``/``nv unset`` lines (the path words of the NVUE object model, space separated), then
  ``nv config apply``.
- **SONiC** (``/etc/sonic/config_db.json``) structurally: tables, keys, fields, values as strings. The remediation is
  ``sonic-db-cli CONFIG_DB`` ``HSET``/``HDEL``/``DEL`` on the ``TABLE|key`` hashes (a list field is stored as
  ``field@`` with the items comma-joined, an entry without fields as ``NULL NULL``), then ``config save -y``.

What is set aside before comparing (``NORMALISATION`` lists it per NOS for the docs and the UI):

1. what the NOS writes into a running config by itself (defaults, markers, platform facts), listed per NOS below;
2. order (of lines within a section, of keys, of list items SONiC treats as sets);
3. what the plugin does not render: a top-level section kind (EOS/FRR: ``username``, ``aaa``, ``ntp``...), an NVUE
   top-level path (``system``'s and ``service``'s per child: ``system aaa``), a SONiC table that the intended config
   does not have and the plugin never owns is ignored and listed in ``ignored``. What the plugin renders is read from
   the intended config itself, plus a small per-NOS list of kinds the plugin always owns (routing, interfaces,
   VLANs, ACLs, management access): an extra BGP neighbour, ACL entry, VLAN member or management VRF inside such a
   kind is a finding, never ignored.

Sources for the NOS defaults:

- EOS: a factory running config lists ``! Command:``/``! device:`` comments, ``transceiver qsfp default-mode 4x10G``,
  ``service routing protocols model ribd``, ``agent ... shutdown``, ``spanning-tree mode mstp``, ``no aaa root``,
  ``username admin ...`` and every physical interface, configured or not (Arista EOS User Manual,
  https://www.arista.com/en/um-eos, "Initial Configuration"; ``transceiver qsfp default-mode 4x10G`` as the
  default: AVD's ``transceiver_qsfp_default_mode_4x10``,
  https://avd.arista.com/stable/roles/eos_cli_config_gen/docs/input-variables.html).
  EOS hides commands equal to its defaults (``show running-config`` vs ``show running-config all``), and numbers ACL
  entries 10, 20, ... when they are entered without a sequence number.
- FRR: ``show running-config`` opens with ``Building configuration...``, ``Current configuration:``, ``frr version``,
  ``frr defaults <profile>`` and adds ``service integrated-vtysh-config``, ``no ipv6 forwarding`` (zebra reads the
  kernel's), ``log ...`` lines, and omits commands equal to the profile's defaults
  (https://docs.frrouting.org/en/latest/basic.html, "Integrated Config File", "frr defaults").
- NVUE: ``nv config save`` writes a ``header`` document (model, nvue-api-version, rev-id, version) and keeps the
  default startup.yaml's entries (the ``cumulus`` user under ``system aaa``, ``system config``, ``system reboot``,
  ``system wjh``, NTP pool servers, the default control-plane ACLs), adds ``type`` to every interface it creates and
  the ``system global`` MACs it derives, and may group keys as ranges (``10,20,30``, ``swp1-3``)
  (https://docs.nvidia.com/networking-ethernet-software/cumulus-linux/System-Configuration/NVIDIA-User-Experience-NVUE/NVUE-CLI/,
  "NVUE Configuration File", "Default Startup File").
- SONiC: ``DEVICE_METADATA|localhost`` gets ``mac``, ``platform``, ``hwsku`` and the like from the platform,
  ``PORT`` one entry per physical port with ``lanes``/``alias``/``index`` from the HWSKU's ``port_config.ini``; init
  and ``db_migrator`` add tables such as ``FEATURE``, ``FLEX_COUNTER_TABLE``, ``CRM``, ``VERSIONS``, ``KDUMP``
  (SONiC Configuration Database Manual,
  https://github.com/sonic-net/sonic-buildimage/blob/master/src/sonic-yang-models/doc/Configuration.md).
"""

import copy
import json
import re
import shlex
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass
from typing import Any

import yaml
from hier_config import HConfig, HConfigChild, Platform, WorkflowRemediation, get_hconfig, get_hconfig_fast_load
from hier_config.exceptions import DuplicateChildError

__all__ = ('NORMALISATION', 'ConfigComparison', 'ConfigParseError', 'LineFinding', 'compare_config')

MISSING, EXTRA, CHANGED = 'missing', 'extra', 'changed'


class ConfigParseError(ValueError):
    """The intended or running text is not a config of that NOS: the message names the NOS and what failed."""


@dataclass(frozen=True)
class LineFinding:
    """One difference. ``kind``: ``missing`` (intended, not running), ``extra`` (running, not intended), ``changed``
    (the same setting, another value). ``section``: where (EOS/FRR parent lines, the NVUE path, SONiC table and key).
    ``intended``/``running``: the line or ``key: value`` on each side (None on the side that lacks it).
    ``remediation``: the lines, in the NOS's syntax, that bring the running config to the intended one here."""

    kind: str
    section: tuple[str, ...]
    intended: str | None
    running: str | None
    remediation: tuple[str, ...]


@dataclass(frozen=True)
class ConfigComparison:
    """``nos``: the NOS key (facts/nos.py). ``findings`` in a deterministic order. ``remediation``: all of it, in the
    NOS's syntax ('' when compliant). ``ignored``: what of the running config was set aside (sections the plugin does
    not render, NOS defaults), sorted."""

    nos: str
    findings: tuple[LineFinding, ...]
    remediation: str
    ignored: tuple[str, ...]

    @property
    def compliant(self) -> bool:
        return not self.findings


NORMALISATION: dict[str, tuple[str, ...]] = {
    'eos': (
        "Comments ('! Command: show running-config', '! device: ...'), 'end' and blank lines are dropped.",
        'Order of lines within a section does not count.',
        'Top-level section kinds the intended config does not have (username, aaa, transceiver, agent, ntp, '
        'logging...) are ignored and listed, except the kinds the plugin always owns: interface, vlan, vrf, '
        'router bgp, router ospf, ip access-list, ip route, ip routing, management (every management service: '
        'ssh, api, telnet...), snmp-server, mlag.',
        "EOS defaults a running config lists, ignored unless the intended config sets the same command: 'spanning-tree "
        "mode mstp', 'transceiver qsfp default-mode 4x10G', 'no aaa root', and a physical interface without any "
        'configuration (EOS lists every port).',
        'Intended commands equal to an EOS default, which EOS does not show, count as present unless the running '
        "config sets the same command otherwise: 'switchport mode access', 'vxlan udp-port 4789', 'protocol https' "
        'under management api http-commands.',
        'ACL entries without a sequence number are numbered 10, 20, ... as EOS numbers them.',
    ),
    'frr': (
        "FRR's markers are dropped and indentation alone drives the tree: '!', 'exit', 'exit-address-family', "
        "'exit-vrf', 'exit-vni', 'end', 'Building configuration...', 'Current configuration:'; so is 'frr version'.",
        "'frr defaults <profile>' is compared only when both configs state one.",
        'Order of lines within a section does not count.',
        'Top-level section kinds the intended config does not have (service integrated-vtysh-config, log, '
        'ipv6 forwarding, line vty, agentx...) are ignored and listed, except the kinds the plugin always owns: '
        'interface, vrf, router bgp, router ospf, ip route, route-map, ip prefix-list, bgp as-path, bfd.',
        'FRR defaults a running config lists, ignored unless the intended config sets the same command: an '
        'interface without any configuration.',
        'Intended commands equal to the default of the profile FRR runs, which FRR does not show, count as present '
        'unless the running config sets the same command otherwise (see FRR_IMPLICIT in config_diff.py).',
    ),
    'nvue': (
        "The 'set' documents are merged into one tree; 'header' documents (model, version, rev-id) are ignored.",
        'Mappings are compared key by key: order never counts. Leaves are compared as the strings of their YAML '
        "scalars (9216 and '9216' are equal); YAML's true and false are NVUE's on and off.",
        "Keys NVUE saves as ranges ('10,20,30', 'swp1-3') under interface, vlan, member and vni are expanded.",
        'Top-level paths the intended config does not have are ignored and listed, system and service per child '
        "('system aaa', 'system wjh', 'service ntp'), except the paths the plugin always owns: interface, vrf, "
        'router, acl, bridge, mlag, nve, evpn, qos, system ssh-server, system api, system snmp-server, '
        'system control-plane, service snmp-server.',
        "NVUE defaults, ignored unless the intended config sets them (under a parent it has): 'type' of an "
        "interface, 'system global system-mac', 'fabric-mac', 'fabric-id'.",
    ),
    'sonic': (
        'Tables, keys and fields are compared without order; values as strings (65101 and "65101" are equal).',
        'ACL_TABLE ports and services are sets (order and duplicates do not count); other lists keep their order. '
        'A field name ending in @ (the Redis form of a list) is the list.',
        'Tables the intended config does not have are ignored and listed (FEATURE, CRM, FLEX_COUNTER_TABLE, '
        'VERSIONS, KDUMP, SYSLOG_CONFIG, AUTO_TECHSUPPORT, NTP, SNMP...), except the tables the plugin always owns: '
        'routing (BGP_NEIGHBOR, BGP_PEER_RANGE, STATIC_ROUTE), interfaces and addresses, VLANs and their members, '
        'port channels, VRFs, VXLAN, MCLAG, ACL_TABLE, ACL_RULE, MGMT_*, SNMP_AGENT_ADDRESS_CONFIG.',
        'Fields SONiC fills itself, ignored unless the intended entry sets them: DEVICE_METADATA mac, platform, '
        'hwsku, asic_id, asic_name, buffer_model, deployment_id, default_bgp_status, synchronous_mode, timezone, '
        'yang_config_validation; PORT lanes, alias, index, subport, parent_port, pfc_asym, tpid.',
        'PORT entries of ports the plan does not use and FLEX_COUNTER_TABLE groups the intended config does not '
        'set are SONiC defaults: ignored and listed; fields of such a port beyond the platform ones (lanes, alias, '
        'index, speed, mtu, fec, autoneg, admin_status...), a description say, are findings.',
    ),
}

_CONTROL = re.compile(r'[\x00-\x08\x0e-\x1f\x7f]')


def compare_config(nos: str, intended: str, running: str) -> ConfigComparison:
    """``running`` against ``intended`` for the NOS ``nos`` (a key of facts/nos.py: eos, frr, nvue, sonic)."""
    comparer = _COMPARERS.get(nos)
    if comparer is None:
        raise ConfigParseError(f'unknown NOS {nos!r}: one of {", ".join(sorted(_COMPARERS))}')
    for which, text in (('intended', intended), ('running', running)):
        if not isinstance(text, str):
            raise ConfigParseError(f'{nos}: the {which} config is {type(text).__name__}, not text')
        found = _CONTROL.search(text)
        if found:
            what = 'NUL characters' if found.group() == '\x00' else f'control character {found.group()!r}'
            raise ConfigParseError(f'{nos}: the {which} config holds {what} (binary data, not a config)')
    try:
        return comparer(intended, running)
    except RecursionError:
        raise ConfigParseError(f'{nos}: a config is nested too deeply to compare') from None


# ---------------------------------------------------------------------------------------------------------------------
# EOS and FRR: hier_config trees

_Node = HConfig | HConfigChild
_Path = tuple[str, ...]


@dataclass(frozen=True)
class _LineNos:
    """How one line-based NOS is read and normalised. Patterns are full matches of a line, one per depth: (parent
    pattern, ..., line pattern)."""

    key: str
    label: str
    platform: Platform
    owned_kinds: frozenset[str]  # top-level kinds compared even when the intended config has none
    two_word_kinds: frozenset[str]  # first words whose kind is two words ('router bgp', 'ip access-list')
    running_defaults: tuple[tuple[str, ...], ...]  # lines the NOS adds: dropped unless intended sets the same key
    implicit_defaults: tuple[tuple[str, ...], ...]  # intended lines the NOS hides: present unless set otherwise
    bare_defaults: tuple[str, ...]  # top-level sections the NOS lists even without configuration


def _kind(spec: _LineNos, line: str) -> str:
    """A top-level line's section kind: its first word, two for a namespace word ('router bgp'), 'no' skipped."""
    words = line.split()
    if len(words) > 1 and words[0] in ('no', 'default'):
        words = words[1:]
    if len(words) > 1 and words[0] in spec.two_word_kinds:
        return f'{words[0]} {words[1]}'
    return words[0] if words else ''


def _line_key(line: str) -> str:
    """What a line sets: an ACL entry's sequence number, else the line minus its last token (one word: itself)."""
    words = line.split()
    if len(words) > 1 and words[0].isdecimal():
        return words[0]
    return ' '.join(words[:-1]) if len(words) > 1 else line


def _matches(patterns: tuple[str, ...], path: _Path) -> bool:
    return len(patterns) == len(path) and all(re.fullmatch(p, text) for p, text in zip(patterns, path, strict=True))


def _same_key_in(node: _Node, line: str) -> bool:
    key = _line_key(line)
    return any(_line_key(child.text) == key for child in node.children)


def _hconfig(spec: _LineNos, which: str, text: str) -> HConfig:
    try:
        if spec.key == 'frr':
            tree = get_hconfig_fast_load(spec.platform, _frr_lines(text))
        else:
            tree = get_hconfig(spec.platform, text)
    except DuplicateChildError as e:
        raise ConfigParseError(f'{spec.key}: the {which} config repeats a line in one section ({e})') from None
    except (ValueError, TypeError) as e:
        raise ConfigParseError(f'{spec.key}: the {which} config is no {spec.label} config: {e}') from None
    if not tree.children:
        raise ConfigParseError(f'{spec.key}: the {which} config has no configuration lines')
    return tree


_FRR_MARKER = re.compile(
    r'\s*(?:!.*|exit|exit-address-family|exit-vrf|exit-vni|end|frr version\b.*|Building configuration\.\.\.'
    r'|Current configuration:?)\s*'
)


def _frr_lines(text: str) -> list[str]:
    """FRR's text without its markers: what remains is indented by section, as ``show running-config`` prints it."""
    return [line for line in text.splitlines() if line.strip() and not _FRR_MARKER.fullmatch(line)]


def _set_aside(spec: _LineNos, running: HConfig, intended: HConfig) -> set[str]:
    """Remove from ``running`` what is not compared; the labels of what was removed."""
    rendered = {_kind(spec, child.text) for child in intended.children} | spec.owned_kinds
    ignored = set()
    for child in tuple(running.children):
        kind = _kind(spec, child.text)
        if kind not in rendered:
            ignored.add(kind)
            child.delete()
        elif not child.children and child.text not in intended.children:
            if any(re.fullmatch(p, child.text) for p in spec.bare_defaults):
                ignored.add(f'{child.text} ({spec.label} default: no configuration)')
                child.delete()
    _frr_profile(spec, running, intended)
    ignored |= _drop_defaults(spec, (), running, intended)
    _drop_implicit(spec, (), running, intended)
    return ignored


def _frr_profile(spec: _LineNos, running: HConfig, intended: HConfig) -> None:
    """``frr defaults``: compared only when both state a profile."""
    if spec.key != 'frr':
        return
    profiles = [tree.get_child(startswith='frr defaults ') for tree in (running, intended)]
    if None in profiles:
        for profile in profiles:
            if profile is not None:
                profile.delete()


def _drop_defaults(spec: _LineNos, path: _Path, running: _Node, intended: _Node) -> set[str]:
    """The NOS's own lines under ``path`` (``running_defaults``), unless the intended config sets the same key."""
    dropped = set()
    for child in tuple(running.children):
        twin = intended.children.get(child.text)
        if twin is not None:
            dropped |= _drop_defaults(spec, (*path, child.text), child, twin)
            continue
        where = (*path, child.text)
        if any(_matches(p, where) for p in spec.running_defaults) and not _same_key_in(intended, child.text):
            dropped.add(f'{" › ".join(where)} ({spec.label} default)')
            child.delete()
    return dropped


def _drop_implicit(spec: _LineNos, path: _Path, running: _Node, intended: _Node) -> None:
    """Intended lines equal to a NOS default the running config hides (``implicit_defaults``), unless it sets the
    same key otherwise."""
    for child in tuple(intended.children):
        twin = running.children.get(child.text)
        if twin is not None:
            _drop_implicit(spec, (*path, child.text), twin, child)
            continue
        where = (*path, child.text)
        if any(_matches(p, where) for p in spec.implicit_defaults) and not _same_key_in(running, child.text):
            child.delete()


def _number_eos_acls(tree: HConfig) -> None:
    """EOS numbers ACL entries entered without a sequence number 10, 20, ...: so does the comparison."""
    for acl in tree.children:
        if not re.match(r'(ip|ipv6|mac) access-list ', acl.text):
            continue
        entries = tuple(acl.children)
        if entries and not any(entry.text.split()[0].isdecimal() for entry in entries):
            for number, entry in enumerate(entries, 1):
                entry.text = f'{number * 10} {entry.text}'


def _compare_lines(spec: _LineNos, intended_text: str, running_text: str) -> ConfigComparison:
    intended = _hconfig(spec, 'intended', intended_text)
    running = _hconfig(spec, 'running', running_text)
    if spec.key == 'eos':
        _number_eos_acls(intended)
        _number_eos_acls(running)
    ignored = _set_aside(spec, running, intended)
    workflow = WorkflowRemediation(running, intended)
    remediation = workflow.remediation_config
    findings = tuple(_line_findings((), running, intended, remediation))
    text = workflow.remediation_config_filtered_text() if findings else ''
    return ConfigComparison(spec.key, findings, text, tuple(sorted(ignored)))


def _line_findings(path: _Path, running: _Node, intended: _Node, remediation: HConfig) -> Iterator[LineFinding]:
    """The findings under ``path``, then those of the sections both configs have, depth first."""
    missing = [child for child in intended.children if child.text not in running.children]
    extra = [child for child in running.children if child.text not in intended.children]
    pairs = _changed_pairs(missing, extra, intended)
    fix = _node_at(remediation, path)
    for wanted, found in pairs:
        lines = _fix_lines(fix, (wanted.text, _negation(path, found)))
        yield LineFinding(CHANGED, path, wanted.text, found.text, lines)
    for child in missing:
        yield LineFinding(MISSING, path, child.text, None, _fix_lines(fix, (child.text,)))
    for child in extra:
        yield LineFinding(EXTRA, path, None, child.text, _fix_lines(fix, (_negation(path, child),)))
    for child in intended.children:
        twin = running.children.get(child.text)
        if twin is not None:
            yield from _line_findings((*path, child.text), twin, child, remediation)


def _changed_pairs(
    missing: list[HConfigChild], extra: list[HConfigChild], intended: _Node
) -> list[tuple[HConfigChild, HConfigChild]]:
    """Pair (and remove from the lists) a missing and an extra line that set the same thing: hier_config's idempotent
    commands first (``mtu 9214`` replaces ``mtu 1500``), then the one missing and the one extra line of a key."""
    pairs = []
    for found in tuple(extra):
        wanted = found.driver.idempotent_for(found, intended.children)
        if wanted is not None and any(wanted is child for child in missing):
            pairs.append((wanted, found))
            missing.remove(wanted)
            extra.remove(found)
    for key in dict.fromkeys(_line_key(child.text) for child in missing):
        wanted_of_key = [child for child in missing if _line_key(child.text) == key]
        found_of_key = [child for child in extra if _line_key(child.text) == key]
        if len(wanted_of_key) == len(found_of_key) == 1:  # two of a key (network lines): a set, not one setting
            pairs.append((wanted_of_key[0], found_of_key[0]))
            missing.remove(wanted_of_key[0])
            extra.remove(found_of_key[0])
    return pairs


def _node_at(tree: HConfig, path: _Path) -> _Node | None:
    node: _Node | None = tree
    for text in path:
        node = node.children.get(text) if node is not None else None
    return node


def _negation(path: _Path, child: HConfigChild) -> str:
    """The line hier_config negates ``child`` with (its driver's rules depend on the parents)."""
    scratch = HConfig(child.driver).add_children_deep((*path, child.text))
    return scratch.negate().text


def _fix_lines(fix: _Node | None, texts: Iterable[str]) -> tuple[str, ...]:
    """The remediation lines for ``texts`` under ``fix`` (the remediation's node of the section): the parents, each
    line and its subtree."""
    if fix is None:
        return ()
    lines = []
    for text in texts:
        child = fix.children.get(text)
        if child is not None:
            lines += [child.cisco_style_text(), *(c.cisco_style_text() for c in child.all_children_sorted())]
    if not lines or isinstance(fix, HConfig):
        return tuple(lines)
    return (*(parent.cisco_style_text() for parent in fix.lineage()), *lines)


EOS = _LineNos(
    key='eos',
    label='EOS',
    platform=Platform.ARISTA_EOS,
    owned_kinds=frozenset(
        {
            'interface',
            'vlan',
            'vrf',
            'router bgp',
            'router ospf',
            'ip access-list',
            'ipv6 access-list',
            'ip route',
            'ip routing',
            'management',  # one kind for every management service: an open one is a finding
            'snmp-server',
            'mlag',
        }
    ),
    two_word_kinds=frozenset({'ip', 'ipv6', 'mac', 'router', 'qos', 'service', 'hardware', 'platform'}),
    running_defaults=((r'spanning-tree mode mstp',), (r'transceiver qsfp default-mode 4x10G',), (r'no aaa root',)),
    implicit_defaults=(
        (r'interface \S+', r'switchport mode access'),
        (r'interface Vxlan\d+', r'vxlan udp-port 4789'),
        (r'management api http-commands', r'protocol https'),
    ),
    bare_defaults=(r'interface (Ethernet|Management)\S+',),
)

# Commands FRR applies but `show running-config` does not print, as found by loading the rendered frr.conf into FRR
# 8.4 (tests/unit/checks/test_config_diff.py, the lab test): next-hop unchanged is in effect for EVPN peers without it
# (`show bgp neighbors json`: unchangedNextHopPropogatedToNbr)
FRR_IMPLICIT: tuple[tuple[str, ...], ...] = (
    (r'router bgp \d+( vrf \S+)?', r'address-family l2vpn evpn', r'neighbor \S+ attribute-unchanged next-hop'),
)

FRR = _LineNos(
    key='frr',
    label='FRR',
    platform=Platform.GENERIC,  # hier_config has no FRR driver
    owned_kinds=frozenset(
        {
            'interface',
            'vrf',
            'router bgp',
            'router ospf',
            'ip route',
            'ipv6 route',
            'route-map',
            'ip prefix-list',
            'ipv6 prefix-list',
            'bgp as-path',
            'bfd',
        }
    ),
    two_word_kinds=frozenset({'ip', 'ipv6', 'router', 'bgp', 'frr', 'service'}),
    running_defaults=(),
    implicit_defaults=FRR_IMPLICIT,
    bare_defaults=(r'interface \S+( vrf \S+)?',),
)


# ---------------------------------------------------------------------------------------------------------------------
# NVUE: the merged `set` tree of startup.yaml

_NvueTree = dict[str, Any]  # a mapping of str to str (a leaf), list (a leaf) or a nested mapping
_NVUE_LOADER = getattr(yaml, 'CBaseLoader', yaml.BaseLoader)  # every scalar a string, as NVUE compares them
_NVUE_BOOLEANS = {'true': 'on', 'false': 'off'}  # YAML's booleans, as a YAML tool re-saving the file writes them
_NVUE_RANGE_PARENTS = frozenset({'interface', 'vlan', 'member', 'vni'})
_NVUE_RANGE = re.compile(r'(?P<prefix>(?:[A-Za-z_.][A-Za-z0-9_.]*)?)(?P<first>\d{1,9})-(?P<last>\d{1,9})')
_NVUE_RANGE_LIMIT = 4096
_NVUE_GROUPS = frozenset({'system', 'service'})  # their children are separate kinds
_NVUE_OWNED = frozenset(
    {
        'interface',
        'vrf',
        'router',
        'acl',
        'bridge',
        'mlag',
        'nve',
        'evpn',
        'qos',
        'system ssh-server',
        'system api',
        'system snmp-server',
        'system control-plane',
        'service snmp-server',
    }
)
_NVUE_DEFAULTS = (
    ('interface', '*', 'type'),
    ('system', 'global', 'system-mac'),
    ('system', 'global', 'fabric-mac'),
    ('system', 'global', 'fabric-id'),
)


def _nvue_tree(which: str, text: str) -> _NvueTree:
    try:
        # NVUE writes no anchors: an alias could only multiply the tree (a "billion laughs" backup)
        if any(isinstance(event, yaml.AliasEvent) for event in yaml.parse(text, Loader=_NVUE_LOADER)):
            raise ConfigParseError(f'nvue: the {which} config uses YAML aliases (NVUE writes none)')
        documents = yaml.load(text, Loader=_NVUE_LOADER)
    except yaml.YAMLError as e:
        mark = getattr(e, 'problem_mark', None)
        where = f'line {mark.line + 1} column {mark.column + 1}' if mark is not None else str(e).splitlines()[0]
        raise ConfigParseError(f'nvue: the {which} config is not YAML: {where}') from None
    if not isinstance(documents, list):
        raise ConfigParseError(
            f'nvue: the {which} config is not a startup.yaml: top level is {_yaml_type(documents)}, not a list of '
            'header and set documents'
        )
    merged: _NvueTree = {}
    for number, document in enumerate(documents, 1):
        if not isinstance(document, dict) or len(document) != 1:
            raise ConfigParseError(f'nvue: the {which} config is not a startup.yaml: item {number} is no document')
        ((name, body),) = document.items()
        if name == 'header':
            continue
        if name != 'set':
            raise ConfigParseError(f'nvue: the {which} config is not a startup.yaml: item {number} is "{name}"')
        if body == '':  # `- set:` with nothing under it
            continue
        if not isinstance(body, dict):
            raise ConfigParseError(f'nvue: the {which} config is not a startup.yaml: set {number} is no mapping')
        _merge(merged, _expanded(body, ''))
    return merged


def _yaml_type(value: object) -> str:
    for kind, name in ((dict, 'a mapping'), (list, 'a list'), (str, 'a scalar')):
        if isinstance(value, kind):
            return name
    return 'empty'


def _merge(into: _NvueTree, tree: _NvueTree) -> None:
    for key, value in tree.items():
        if isinstance(value, dict) and isinstance(into.get(key), dict):
            _merge(into[key], value)
        else:
            into[key] = value


def _expanded(tree: _NvueTree, parent: str) -> _NvueTree:
    """``tree`` with NVUE's range keys (``10,20,30``, ``swp1-3``) expanded under the keys of interfaces, VLANs,
    bond members and VNIs; leaves normalised."""
    out: _NvueTree = {}
    for key, value in tree.items():
        child = _expanded(value, key) if isinstance(value, dict) else _nvue_leaf(value)
        names = (_range_names(key) if parent in _NVUE_RANGE_PARENTS else None) or [key]
        for name in names:
            copied = copy.deepcopy(child) if len(names) > 1 else child  # each name its own subtree
            if isinstance(copied, dict) and isinstance(out.get(name), dict):
                _merge(out[name], copied)
            else:
                out[name] = copied
    return out


def _range_names(key: str) -> list[str] | None:
    """The names a range key stands for, None for a plain key (or a range too large to be one)."""
    if ',' not in key and not _NVUE_RANGE.fullmatch(key):
        return None
    names: list[str] = []
    for part in key.split(','):
        found = _NVUE_RANGE.fullmatch(part)
        if found is None:
            names.append(part)
            continue
        first, last = int(found['first']), int(found['last'])
        if last < first or len(names) + last - first >= _NVUE_RANGE_LIMIT:
            return None
        names += [f'{found["prefix"]}{n}' for n in range(first, last + 1)]
    return names if all(names) else None


def _nvue_leaf(value: Any) -> Any:
    if isinstance(value, str):
        return _NVUE_BOOLEANS.get(value, value)
    return json.dumps(value, sort_keys=True)  # a list (NVUE writes none): compared as its JSON text


def _nvue_kind(path: _Path) -> str:
    return ' '.join(path[:2]) if path[0] in _NVUE_GROUPS and len(path) > 1 else path[0]


def _nvue_set_aside(running: _NvueTree, intended: _NvueTree) -> set[str]:
    """Remove from ``running`` the paths not compared; the labels of what was removed."""
    rendered = {_nvue_kind(path) for path in _nvue_kind_paths(intended)} | _NVUE_OWNED
    ignored = set()
    for path in _nvue_kind_paths(running):
        kind = _nvue_kind(path)
        if kind not in rendered:
            ignored.add(kind)
            parent = running if len(path) == 1 else running[path[0]]
            del parent[path[-1]]
            if parent is not running and not parent and path[0] not in intended:
                del running[path[0]]  # a group emptied of kinds the plugin does not render
    for pattern in _NVUE_DEFAULTS:
        for path in _nvue_paths(running, pattern):
            # only where the intended config has the parent: an interface it lacks is an extra one, type and all
            if _nvue_get(intended, path) is None and isinstance(_nvue_get(intended, path[:-1]), dict):
                ignored.add(f'{" ".join(path)} (NVUE default)')
                del _nvue_get(running, path[:-1])[path[-1]]
    return ignored


def _nvue_kind_paths(tree: _NvueTree) -> list[_Path]:
    """The paths of the kinds in ``tree``: a top-level key, or a group's child (``system aaa``)."""
    paths: list[_Path] = []
    for key, value in tree.items():
        if key in _NVUE_GROUPS and isinstance(value, dict) and value:
            paths += [(key, child) for child in value]
        else:
            paths.append((key,))
    return paths


def _nvue_paths(tree: _NvueTree, pattern: _Path) -> list[_Path]:
    """The paths of ``tree`` that match ``pattern`` ('*': any key)."""
    if not pattern:
        return [()]
    keys = tree if pattern[0] == '*' else ([pattern[0]] if pattern[0] in tree else [])
    found: list[_Path] = []
    for key in keys:
        if len(pattern) == 1:
            found.append((key,))
        elif isinstance(tree[key], dict):
            found += [(key, *rest) for rest in _nvue_paths(tree[key], pattern[1:])]
    return found


def _nvue_get(tree: Any, path: _Path) -> Any:
    for key in path:
        if not isinstance(tree, dict) or key not in tree:
            return None
        tree = tree[key]
    return tree


def _nvue_findings(path: _Path, running: _NvueTree, intended: _NvueTree) -> Iterator[LineFinding]:
    for key, wanted in intended.items():
        where = (*path, key)
        if key not in running:
            yield LineFinding(MISSING, path, _nvue_text(key, wanted), None, _nv_set(where, wanted))
            continue
        found = running[key]
        if isinstance(wanted, dict) and isinstance(found, dict):
            yield from _nvue_findings(where, found, wanted)
        elif wanted != found:
            fix = _nv_set(where, wanted)
            if isinstance(wanted, dict) or isinstance(found, dict):  # a leaf became a mapping or the reverse
                fix = (_nv_unset(where), *fix)
            yield LineFinding(CHANGED, path, _nvue_text(key, wanted), _nvue_text(key, found), fix)
    for key, found in running.items():
        if key not in intended:
            yield LineFinding(EXTRA, path, None, _nvue_text(key, found), (_nv_unset((*path, key)),))


def _nvue_text(key: str, value: Any) -> str:
    return f'{key}: {_flow(value)}'


def _flow(value: Any) -> str:
    if isinstance(value, dict):
        return '{' + ', '.join(f'{k}: {_flow(v)}' for k, v in value.items()) + '}'
    return str(value)


def _nv_words(path: Iterable[str]) -> str:
    return ' '.join(shlex.quote(word) for word in path)


def _nv_set(path: _Path, value: Any) -> tuple[str, ...]:
    """``nv set`` lines for ``value`` at ``path``: one per leaf (an empty mapping: the path alone)."""
    if isinstance(value, dict) and value:
        return tuple(line for key, child in value.items() for line in _nv_set((*path, key), child))
    if isinstance(value, dict):
        return (f'nv set {_nv_words(path)}',)
    return (f'nv set {_nv_words(path)} {shlex.quote(str(value))}',)


def _nv_unset(path: _Path) -> str:
    return f'nv unset {_nv_words(path)}'


def _compare_nvue(intended_text: str, running_text: str) -> ConfigComparison:
    intended = _nvue_tree('intended', intended_text)
    running = _nvue_tree('running', running_text)
    ignored = _nvue_set_aside(running, intended)
    findings = tuple(_nvue_findings((), running, intended))
    lines = [line for f in findings for line in f.remediation]
    unsets = [line for line in lines if line.startswith('nv unset ')]
    sets = [line for line in lines if not line.startswith('nv unset ')]
    remediation = '\n'.join([*unsets, *sets, 'nv config apply']) if findings else ''
    return ConfigComparison('nvue', findings, remediation, tuple(sorted(ignored)))


# ---------------------------------------------------------------------------------------------------------------------
# SONiC: config_db.json tables → keys → fields

_Fields = dict[str, str | tuple[str, ...]]
_SONIC_SET_FIELDS = {'ACL_TABLE': frozenset({'ports', 'services'})}  # sonic-acl.yang leaf-lists; order irrelevant
_SONIC_OWNED = frozenset(
    {
        'BGP_NEIGHBOR',
        'BGP_PEER_RANGE',
        'STATIC_ROUTE',
        'INTERFACE',
        'LOOPBACK_INTERFACE',
        'VLAN',
        'VLAN_MEMBER',
        'VLAN_INTERFACE',
        'VLAN_SUB_INTERFACE',
        'PORTCHANNEL',
        'PORTCHANNEL_MEMBER',
        'PORTCHANNEL_INTERFACE',
        'VRF',
        'VXLAN_TUNNEL',
        'VXLAN_TUNNEL_MAP',
        'VXLAN_EVPN_NVO',
        'MCLAG_DOMAIN',
        'MCLAG_INTERFACE',
        'ACL_TABLE',
        'ACL_RULE',
        'MGMT_INTERFACE',
        'MGMT_PORT',
        'MGMT_VRF_CONFIG',
        'SNMP_AGENT_ADDRESS_CONFIG',
    }
)
_SONIC_DEFAULT_FIELDS = {
    'DEVICE_METADATA': frozenset(
        {
            'mac',
            'platform',
            'hwsku',
            'asic_id',
            'asic_name',
            'buffer_model',
            'deployment_id',
            'default_bgp_status',
            'synchronous_mode',
            'timezone',
            'yang_config_validation',
        }
    ),
    'PORT': frozenset({'lanes', 'alias', 'index', 'subport', 'parent_port', 'pfc_asym', 'tpid'}),
}
# The fields of a platform port (port_config.ini, the factory config): those of a port the plan does not use are
# SONiC's; any other field on it (a description) is configuration made outside NetBox
_SONIC_PLATFORM_PORT = _SONIC_DEFAULT_FIELDS['PORT'] | {'speed', 'mtu', 'fec', 'autoneg', 'admin_status'}
_SONIC_DEFAULT_KEYS = frozenset({'FLEX_COUNTER_TABLE'})  # SONiC enables its counter groups itself


def _sonic_tables(which: str, text: str) -> dict[str, dict[str, Any]]:
    try:
        data = json.loads(text)
    except json.JSONDecodeError as e:
        raise ConfigParseError(f'sonic: the {which} config is not JSON: line {e.lineno} column {e.colno}') from None
    except ValueError as e:  # an integer beyond Python's digit limit
        raise ConfigParseError(f'sonic: the {which} config is not a config_db.json: {e}') from None
    if not isinstance(data, dict):
        raise ConfigParseError(
            f'sonic: the {which} config is not a config_db.json: top level is {_json_type(data)}, not an object of '
            'tables'
        )
    for table, entries in data.items():
        if not isinstance(entries, dict):
            raise ConfigParseError(
                f'sonic: the {which} config is not a config_db.json: table {table} is {_json_type(entries)}, not an '
                'object of keys'
            )
    return data


def _json_type(value: object) -> str:
    for kind, name in ((dict, 'an object'), (list, 'a list'), (str, 'a string'), (bool, 'a boolean')):
        if isinstance(value, kind):
            return name
    return 'null' if value is None else 'a number'


def _sonic_fields(which: str, table: str, key: str, entry: object) -> _Fields:
    """An entry's fields, values as SONiC stores them: strings, lists as tuples (sorted where a set)."""
    if not isinstance(entry, dict):
        raise ConfigParseError(
            f'sonic: the {which} config is not a config_db.json: {table}|{key} is {_json_type(entry)}, not an object '
            'of fields'
        )
    fields: _Fields = {}
    for name, value in entry.items():
        listed = name.endswith('@')  # the Redis form of a list: items comma-joined
        name = name.removesuffix('@')
        if isinstance(value, list) or listed:
            items = value if isinstance(value, list) else str(value).split(',')
            strings = tuple(_sonic_scalar(item) for item in items)
            fields[name] = tuple(sorted(set(strings))) if name in _SONIC_SET_FIELDS.get(table, ()) else strings
        else:
            fields[name] = _sonic_scalar(value)
    return fields


def _sonic_scalar(value: object) -> str:
    return value if isinstance(value, str) else json.dumps(value, sort_keys=True)


def _redis_key(table: str, key: str) -> str:
    return shlex.quote(f'{table}|{key}')


def _redis_field(name: str, value: str | tuple[str, ...]) -> str:
    if isinstance(value, tuple):
        return f'{shlex.quote(name + "@")} {shlex.quote(",".join(value))}'
    return f'{shlex.quote(name)} {shlex.quote(value)}'


def _hset(table: str, key: str, fields: Mapping[str, str | tuple[str, ...]]) -> str:
    pairs = ' '.join(_redis_field(n, v) for n, v in fields.items()) or 'NULL NULL'  # SONiC's entry without fields
    return f'sonic-db-cli CONFIG_DB HSET {_redis_key(table, key)} {pairs}'


def _sonic_value_text(name: str, value: str | tuple[str, ...]) -> str:
    return f'{name}: {",".join(value) if isinstance(value, tuple) else value}'


def _sonic_entry_text(key: str, fields: _Fields) -> str:
    return f'{key}: {{{", ".join(_sonic_value_text(n, v) for n, v in fields.items())}}}'


def _sonic_entry_findings(table: str, key: str, running: _Fields, intended: _Fields) -> Iterator[LineFinding]:
    section = (table, key)
    for name, wanted in intended.items():
        fix = (_hset(table, key, {name: wanted}),)
        if name not in running:
            yield LineFinding(MISSING, section, _sonic_value_text(name, wanted), None, fix)
        elif running[name] != wanted:
            yield LineFinding(
                CHANGED, section, _sonic_value_text(name, wanted), _sonic_value_text(name, running[name]), fix
            )
    for name, found in running.items():
        if name not in intended:
            field = shlex.quote(name + '@' if isinstance(found, tuple) else name)
            hdel = f'sonic-db-cli CONFIG_DB HDEL {_redis_key(table, key)} {field}'
            yield LineFinding(EXTRA, section, None, _sonic_value_text(name, found), (hdel,))


def _sonic_set_aside_fields(table: str, key: str, running: _Fields, intended: _Fields) -> set[str]:
    """Drop from ``running`` the fields SONiC fills itself the intended entry does not set; their labels."""
    dropped = [name for name in running if name in _SONIC_DEFAULT_FIELDS.get(table, ()) and name not in intended]
    for name in dropped:
        del running[name]
    return {f'{table}|{key} {", ".join(sorted(dropped))} (SONiC default)'} if dropped else set()


def _sonic_extra_entry(table: str, key: str, found: _Fields, ignored: set[str]) -> Iterator[LineFinding]:
    """An entry of the running config only: SONiC's own (a platform port the plan does not use, a counter group) is
    ignored, though a platform port's fields beyond the platform's are findings (HDEL: the port itself stays)."""
    if table == 'PORT':
        ignored.add(f'PORT|{key} (SONiC default: a platform port the plan does not use)')
        configured = {name: value for name, value in found.items() if name not in _SONIC_PLATFORM_PORT}
        yield from _sonic_entry_findings(table, key, configured, {})
    elif table in _SONIC_DEFAULT_KEYS:
        ignored.add(f'{table}|{key} (SONiC default: a counter group)')
    else:
        fix = (f'sonic-db-cli CONFIG_DB DEL {_redis_key(table, key)}',)
        yield LineFinding(EXTRA, (table,), None, _sonic_entry_text(key, found), fix)


def _sonic_table_findings(
    table: str, running: Mapping[str, Any], intended: Mapping[str, Any], ignored: set[str]
) -> Iterator[LineFinding]:
    for key, entry in intended.items():
        wanted = _sonic_fields('intended', table, key, entry)
        if key not in running:
            yield LineFinding(MISSING, (table,), _sonic_entry_text(key, wanted), None, (_hset(table, key, wanted),))
            continue
        found = _sonic_fields('running', table, key, running[key])
        ignored.update(_sonic_set_aside_fields(table, key, found, wanted))
        yield from _sonic_entry_findings(table, key, found, wanted)
    for key, entry in running.items():
        if key not in intended:
            yield from _sonic_extra_entry(table, key, _sonic_fields('running', table, key, entry), ignored)


def _compare_sonic(intended_text: str, running_text: str) -> ConfigComparison:
    intended = _sonic_tables('intended', intended_text)
    running = _sonic_tables('running', running_text)
    ignored: set[str] = set()
    findings: list[LineFinding] = []
    for table in (*intended, *(t for t in running if t not in intended)):
        if table not in intended and table not in _SONIC_OWNED:
            ignored.add(table)
            continue
        findings += _sonic_table_findings(table, running.get(table, {}), intended.get(table, {}), ignored)
    return ConfigComparison('sonic', tuple(findings), _sonic_remediation(findings), tuple(sorted(ignored)))


def _sonic_remediation(findings: list[LineFinding]) -> str:
    """Removals first (the last finding's first: members before what they belong to), then additions in order."""
    if not findings:
        return ''
    lines = [line for finding in findings for line in finding.remediation]
    removals = [line for line in reversed(lines) if ' HSET ' not in line]
    additions = [line for line in lines if ' HSET ' in line]
    return '\n'.join([*removals, *additions, 'config save -y'])


_COMPARERS: dict[str, Callable[[str, str], ConfigComparison]] = {
    'eos': lambda intended, running: _compare_lines(EOS, intended, running),
    'frr': lambda intended, running: _compare_lines(FRR, intended, running),
    'nvue': _compare_nvue,
    'sonic': _compare_sonic,
}
