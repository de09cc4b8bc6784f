"""Jinja2 filters for the device-config templates, registered with NetBox (``jinja_env.filters``) so that templates
stay logic-free: every address computation happens here, with netaddr, and every unit conversion."""

from decimal import Decimal

import netaddr
from jinja2.exceptions import TemplateRuntimeError

__all__ = ('FILTERS', 'UnsupportedFeature', 'eos_esi', 'eos_mac')


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


FILTERS = {
    'aifabric_ip_host': ip_host,
    'aifabric_prefix_length': prefix_length,
    'aifabric_ip_netmask': ip_netmask,
    'aifabric_ip_network': ip_network,
    'aifabric_seconds': seconds,
    'aifabric_at_most': at_most,
    'aifabric_eos_esi': eos_esi,
    'aifabric_eos_mac': eos_mac,
    'aifabric_unsupported': unsupported,
}
