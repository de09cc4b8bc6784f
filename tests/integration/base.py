"""Shared fixtures and mixins for the NetBox integration tier."""

from dcim.models import Site
from ipam.models import RIR, VLAN, VRF, ASNRange, Prefix, RouteTarget
from tenancy.models import Tenant
from utilities.testing import APIViewTestCases, ViewTestCases

from netbox_aifabric.checks.rules import RULES
from netbox_aifabric.planner.guide import GUIDE_ASN, GUIDE_OVERLAY, GUIDE_POOLS, GUIDE_SHAPE

__all__ = (
    'FABRIC_SHAPE',
    'GUIDE_COLLECTORS',
    'LOSSLESS',
    'PluginAPITestCase',
    'PluginViewTestCase',
    'make_qos_profiles',
    'make_world',
    'own_pools',
)

# Test modules import this module (``from . import base``), not the classes: a TestCase name in a test module's
# namespace would be collected by pytest as a test of its own.


# A minimal valid lossless RoCE profile (RoCE DSCP 26 on priority/TC 3 with PFC on 3), as model/API values
LOSSLESS = {'mode': 'lossless', 'roce_dscp': [26], 'roce_priority': [3], 'roce_tc': [3], 'pfc_priorities': [3]}


def make_qos_profiles():
    """Three profiles, one per mode: lossless, lossy (same marking, no PFC) and none."""
    from netbox_aifabric.models import QoSProfile

    lossy = {**LOSSLESS, 'mode': 'lossy', 'pfc_priorities': []}
    return QoSProfile.objects.bulk_create(
        [
            QoSProfile(name='Lossless', slug='lossless', **LOSSLESS),
            QoSProfile(name='Lossy', slug='lossy', **lossy),
            QoSProfile(name='TCP', slug='tcp', mode='none'),
        ]
    )


# The guide's cluster (netbox_aifabric/planner/guide.py) as Fabric form/API values, as a routed MLAG draft
FABRIC_SHAPE = {
    'status': 'draft',
    'design_option': 'routed',
    'underlay': 'ebgp',
    'leaf_pairing': 'mlag',
    **GUIDE_SHAPE,
    'oversubscription_target': 3,
    'l2vni_base': GUIDE_OVERLAY['l2vni_base'],
}


def _guide_collectors():
    """render_fixtures.guide_telemetry (the guide's TELEMETRY subnet hosts) as Fabric field values."""
    from tests.render_fixtures import guide_telemetry

    t = guide_telemetry()
    return {
        'syslog_servers': t['syslog'],
        'ntp_servers': t['ntp'],
        'snmp_managers': t['snmp_managers'],
        'snmp_version': t['snmp_version'],
        'snmp_user': t['snmp_user'],
        'sflow_collectors': t['sflow'],
        'sflow_sampling_rate': t['sflow_sampling_rate'],
        'streaming_collectors': t['streaming'],
    }


GUIDE_COLLECTORS = _guide_collectors()


class PluginViewTestCase(ViewTestCases.PrimaryObjectViewTestCase):
    """NetBox's full view test case, pointed at the plugin's URL namespace."""

    def _get_base_url(self):
        return f'plugins:{self.model._meta.app_label}:{self.model._meta.model_name}_{{}}'


class PluginAPITestCase(APIViewTestCases.APIViewTestCase):
    """NetBox's full REST API (and GraphQL) test case, pointed at the plugin's API namespace."""

    view_namespace = 'plugins-api:netbox_aifabric'


def make_world():
    """The core objects the intent models point at: sites, pools, an ASN range, VRFs, route targets, VLANs."""
    sites = Site.objects.bulk_create([Site(name=f'Site {i}', slug=f'site-{i}') for i in range(1, 4)])
    prefixes = {
        p: Prefix.objects.create(prefix=p)
        for p in (
            *(GUIDE_POOLS[pool][0] for pool in ('loopback_pool', 'vtep_pool', 'p2p_pool', 'mlag_peer_pool')),
            '10.255.4.0/29',  # deliberately tiny
            '2001:db8::/64',  # wrong family
            '192.0.2.0/24',
        )
    }
    rir = RIR.objects.create(name='Private', slug='private', is_private=True)
    asn_ranges = {
        'leaves': ASNRange.objects.create(
            name='Leaves', slug='leaves', rir=rir, start=GUIDE_ASN['leaves'][0], end=GUIDE_ASN['leaves'][1]
        ),
        'tiny': ASNRange.objects.create(name='Tiny', slug='tiny', rir=rir, start=65001, end=65002),
    }
    vrfs = VRF.objects.bulk_create([VRF(name=f'VRF {i}', rd=f'65000:{i}') for i in range(1, 4)])
    rts = RouteTarget.objects.bulk_create([RouteTarget(name=f'65000:{i}') for i in range(1, 4)])
    vlans = VLAN.objects.bulk_create([VLAN(vid=vid, name=f'VLAN {vid}') for vid in (10, 20, 30, 40, 50)])
    tenants = Tenant.objects.bulk_create([Tenant(name=f'Tenant {i}', slug=f'tenant-{i}') for i in range(1, 3)])
    return {
        'sites': sites,
        'prefixes': prefixes,
        'rir': rir,
        'asn_ranges': asn_ranges,
        'vrfs': vrfs,
        'rts': rts,
        'vlans': {v.vid: v for v in vlans},
        'tenants': tenants,
    }


# Every pool any design may need, as (field, prefix length); a fabric takes its own in 10.<100 + n>.0.0/16
# The rules that skip on the applied demo: the running-config rules (no running config collected, tested with backups in
# test_config_compliance.py) and the LLDP rule (no LLDP upload, tested with uploads in test_acceptance_lldp.py)
DEMO_SKIPS = frozenset(r.id for r in RULES if r.family == 'config') | {'fabric-lldp'}

OWN_POOLS = (('loopback_pool', 24), ('vtep_pool', 24), ('p2p_pool', 22), ('mlag_peer_pool', 27))


def own_pools(world, n):
    """Fabric model values for every pool and ASN a fabric of any design needs (the planner refuses a fabric without
    the ones its design needs, whatever its status): pools of its own (a pool belongs to one fabric), numbered by
    ``n``, the world's leaf ASN range and the guide's spine ASN. ``{field: object or value}``."""
    pools = {
        field: Prefix.objects.create(prefix=f'10.{100 + n}.{4 * i}.0/{length}')
        for i, (field, length) in enumerate(OWN_POOLS)
    }
    return {**pools, 'leaf_asn_range': world['asn_ranges']['leaves'], 'spine_asn': GUIDE_ASN['spine']}
