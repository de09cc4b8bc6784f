"""Jinja2 filters for the device-config templates, registered with NetBox (``jinja_env.filters``) so that templates
stay logic-free: every address computation happens here, with netaddr, and every unit conversion; and every free
text (names, descriptions) is printed through one of the quoting filters ``aifabric_line``, ``aifabric_word`` and
``aifabric_yaml`` (SONiC's JSON uses Jinja's ``tojson``), so that no name can add a line to a config."""

import json
import re
import shlex
from decimal import Decimal

import netaddr
from jinja2.exceptions import TemplateRuntimeError

from netbox_aifabric.facts.nos import NOS_REGISTRY
from netbox_aifabric.facts.text import CONTROL_CHARACTERS

__all__ = (
    'EOS_DESCRIPTION_MAX',
    'FILTERS',
    'INTERFACE_NAMING',
    'UnsupportedFeature',
    'egress_scheduler',
    'eos_esi',
    'eos_mac',
    'eos_management_vrf',
    'hex_number',
    'interface',
    'lag_number',
    'line',
    'priority_flags',
    'shell',
    'word',
    'yaml_string',
)

# EOS takes an interface description of up to 240 characters (Arista's Ansible collection, arista.eos.eos_interface:
# "Description of Interface upto 240 characters").
EOS_DESCRIPTION_MAX = 240
_CONTROL_RUNS = re.compile(f'(?:{CONTROL_CHARACTERS.pattern})+')
_BLANK_RUNS = re.compile(f'(?:{CONTROL_CHARACTERS.pattern}|\\s)+')
_YAML_PLAIN = re.compile(r'[A-Za-z_][A-Za-z0-9_./-]*\Z')
# YAML 1.1 (PyYAML, NVUE) reads these plain scalars as booleans or null, not as strings
_YAML_WORDS = {'y', 'n', 'yes', 'no', 'true', 'false', 'on', 'off', 'null'}


class UnsupportedFeature(TemplateRuntimeError):
    """The context asks for something the template's NOS cannot configure: the render stops with this error (NetBox
    reports it as ``UnsupportedFeature: <message>``) rather than print a configuration that silently lacks it."""


def ip_host(value):
    """``10.255.2.1/31`` → ``10.255.2.1`` (None stays None)."""
    return str(netaddr.IPNetwork(value).ip) if value else value


def prefix_length(value):
    """``10.255.2.1/31`` → ``31``."""
    return netaddr.IPNetwork(value).prefixlen if value else value


def ip_netmask(value):
    """``10.255.2.1/31`` → ``255.255.255.254``."""
    return str(netaddr.IPNetwork(value).netmask) if value else value


def ip_network(value):
    """``10.255.2.1/31`` → ``10.255.2.0/31``."""
    return str(netaddr.IPNetwork(value).cidr) if value else value


def seconds(value):
    """Milliseconds → seconds as the shortest decimal: ``100`` → ``0.1``, ``2000`` → ``2`` (None stays None)."""
    if value is None:
        return value
    return format((Decimal(value) / 1000).normalize(), 'f')


def at_most(value, limit):
    """``value``, or ``limit`` when it is larger (``9216 | aifabric_at_most(9214)`` → ``9214``; None stays None)."""
    return value if value is None else min(value, limit)


def kilobytes(value):
    """Bytes → whole kilobytes (1,024 bytes), rounded up so that a burst is never smaller than asked:
    ``65536`` → ``64``, ``1500`` → ``2`` (NVUE's ACL ``police burst`` in ``kbps`` mode; None stays None)."""
    return value if value is None else -(-value // 1024)


def eos_esi(value):
    """A type-3 ESI → EOS's ``evpn ethernet-segment identifier``, type 0 (operator-configured): the type octet ``00``,
    then the ESI's nine value octets (system MAC, local id) as five groups of four hex digits:
    ``03:02:ae:00:00:00:01:00:00:01`` → ``0002:ae00:0000:0100:0001`` (None stays None)."""
    if value is None:
        return value
    octets = value.lower().split(':')
    if len(octets) != 10 or not all(len(o) == 2 for o in octets):
        raise ValueError(f'{value!r} is not a 10-octet ESI')
    digits = ''.join(['00', *octets[1:]])
    return ':'.join(digits[i : i + 4] for i in range(0, 20, 4))


def eos_mac(value):
    """``02:ae:00:00:00:01`` → EOS's dotted ``02ae.0000.0001`` (``lacp system-id``; None stays None)."""
    return str(netaddr.EUI(value, dialect=netaddr.mac_cisco)) if value else value


def unsupported(value, message):
    """``''`` when ``value`` is empty; else raise ``UnsupportedFeature(message)``. A template that cannot configure a
    feature refuses a context that has it: ``{{ aifabric.evpn_mh | aifabric_unsupported('…') }}``."""
    if value:
        raise UnsupportedFeature(message)
    return ''


def line(value, limit=None):
    """Free text as the rest of one config line (a description, a comment): every run of control characters (newline,
    CR, NUL, tab, escape, DEL, C1, U+2028/9) becomes one space, the ends are trimmed, and the text is cut to ``limit``
    characters when given (``'a\\nrouter bgp 666' | aifabric_line`` → ``a router bgp 666``; None stays None)."""
    if value is None:
        return value
    text = _CONTROL_RUNS.sub(' ', str(value)).strip()
    return text[:limit].rstrip() if limit else text


def word(value):
    """Free text as one CLI token (a hostname, a VRF or VLAN name): every run of whitespace or control characters
    becomes ``_`` (``'Tenant A\\nend'`` → ``Tenant_A_end``; None stays None). The same name always gives the same
    token, so the references to it in one config still match."""
    if value is None:
        return value
    return _BLANK_RUNS.sub('_', str(value))


def shell(value):
    """A value as one POSIX shell word that the shell reads back as exactly that text (``shlex.quote``: plain when
    it holds only safe characters, else single-quoted): ``'a; reboot'`` → ``'a; reboot'``. None stays None."""
    if value is None:
        return value
    return shlex.quote(str(value))


def priority_flags(priorities):
    """The eight 802.1p priorities as ``0``/``1`` flags, priority 0 first, 1 where ``priorities`` lists it
    (``[3]`` → ``0,0,0,1,0,0,0,0``: mlnx_qos ``--pfc``). None stays None."""
    if priorities is None:
        return None
    chosen = {int(p) for p in priorities}
    return ','.join('1' if p in chosen else '0' for p in range(8))


def hex_number(value):
    """An integer as ``0x`` hex (``26`` → ``0x1a``: what Broadcom's bnxt_setupcc.sh writes to the bnxt_re configfs).
    None stays None."""
    if value is None:
        return None
    return f'{int(value):#x}'


def yaml_string(value):
    """Free text as a YAML scalar that parses back to exactly that string: plain when it is a simple name
    (``ai-lab-leaf1``, ``MGMT``), else a double-quoted JSON string, which YAML reads as is (quotes, ``: - #``, braces,
    control characters escaped). None gives ``null``."""
    if value is None:
        return 'null'
    text = str(value)
    if _YAML_PLAIN.match(text) and text.lower() not in _YAML_WORDS:
        return text
    return json.dumps(text)


def egress_scheduler(qos):
    """Every traffic class 0-7 of the egress scheduler, so that its DWRR shares sum to 100 % (NVUE's ``default-global``
    keeps its own share for each class a config leaves out, and the sum would pass 100 %): the profile's strict
    classes strict, its DWRR classes their weights as percentages of the profile's weights (largest remainder, so
    they sum to exactly 100), every other class DWRR 0 %. ``[{'tc', 'mode', 'percent'}]`` (percent None when strict)."""
    if qos is None:
        return None
    scheduler = qos['scheduler']
    strict = {int(tc) for tc in scheduler['strict_tcs']}
    weights = {int(tc): weight for tc, weight in scheduler['dwrr_weights'].items() if int(tc) not in strict}
    total = sum(weights.values())
    percent = dict.fromkeys(range(8), 0)
    if total:
        exact = {tc: Decimal(weight) * 100 / total for tc, weight in weights.items()}
        percent.update({tc: int(value) for tc, value in exact.items()})
        left = 100 - sum(percent.values())
        for tc in sorted(exact, key=lambda tc: (-(exact[tc] - int(exact[tc])), tc))[:left]:
            percent[tc] += 1
    return [
        {'tc': tc, 'mode': 'strict', 'percent': None}
        if tc in strict
        else {'tc': tc, 'mode': 'dwrr', 'percent': percent[tc]}
        for tc in range(8)
    ]


# How each NOS names what the context names generically (the planner's ``Port-Channel<n>`` LAGs and, for generic
# platforms, ``Ethernet<n>`` ports), from the NOS registry: one table instead of string replaces in every template.
INTERFACE_NAMING = {nos.key: dict(nos.interface_naming) for nos in NOS_REGISTRY}
_TRAILING_NUMBER = re.compile(r'(\d+)\Z')


def interface(name, nos='eos'):
    """``name`` as NOS ``nos`` names it (``INTERFACE_NAMING``): ``Port-Channel3`` is SONiC's ``PortChannel3`` and
    NVUE's ``bond3``; names the table does not cover stay as they are."""
    for generic, own in INTERFACE_NAMING[nos].items():
        if name.startswith(generic) and name[len(generic) :].isdigit():
            return own + name[len(generic) :]
    return name


def lag_number(name):
    """The number of a LAG (``Port-Channel12`` → ``12``): EOS's ``channel-group``/``mlag`` id, NVUE's bond id."""
    if name is None:
        return None
    match = _TRAILING_NUMBER.search(name)
    if match is None:
        raise TemplateRuntimeError(f'{name!r} is not a numbered LAG')
    return match.group(1)


def eos_management_vrf(context):
    """The management VRF's name on EOS (``aifabric | aifabric_eos_management_vrf``): the context's (``mgmt``), or
    ``<it>-oob`` when a fabric VRF has that name in another case (the guide's ``MGMT``): two VRFs whose names differ
    only by case are one typo apart in every ``vrf`` argument. The AVD export names it the same way."""
    vrf = context['management']['vrf']
    fabric = {v['name'] for v in context['vrfs']} | {v['vrf'] for v in context['vlans'] if v['vrf']}
    return f'{vrf}-oob' if vrf.lower() in {name.lower() for name in fabric} else vrf


FILTERS = {
    'aifabric_interface': interface,
    'aifabric_lag_number': lag_number,
    'aifabric_egress_scheduler': egress_scheduler,
    'aifabric_ip_host': ip_host,
    'aifabric_prefix_length': prefix_length,
    'aifabric_ip_netmask': ip_netmask,
    'aifabric_ip_network': ip_network,
    'aifabric_seconds': seconds,
    'aifabric_at_most': at_most,
    'aifabric_kilobytes': kilobytes,
    'aifabric_eos_esi': eos_esi,
    'aifabric_eos_mac': eos_mac,
    'aifabric_eos_management_vrf': eos_management_vrf,
    'aifabric_unsupported': unsupported,
    'aifabric_line': line,
    'aifabric_word': word,
    'aifabric_yaml': yaml_string,
    'aifabric_shell': shell,
    'aifabric_priority_flags': priority_flags,
    'aifabric_hex': hex_number,
}
