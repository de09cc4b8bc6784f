"""Jinja2 filters for the device-config templates, registered with NetBox (``jinja_env.filters``) so that templates
stay logic-free: every address computation happens here, with netaddr, and every unit conversion."""

from decimal import Decimal

import netaddr

__all__ = ('FILTERS',)


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


FILTERS = {
    'aifabric_ip_host': ip_host,
    'aifabric_prefix_length': prefix_length,
    'aifabric_ip_netmask': ip_netmask,
    'aifabric_ip_network': ip_network,
    'aifabric_seconds': seconds,
    'aifabric_at_most': at_most,
}
