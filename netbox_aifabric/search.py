from netbox.search import SearchIndex, register_search

from netbox_aifabric.models import EVPNTenant, Fabric, FabricNode, QoSProfile, TrafficClass


@register_search
class TrafficClassIndex(SearchIndex):
    model = TrafficClass
    fields = (('name', 100), ('slug', 110), ('vid', 200), ('description', 500), ('comments', 5000))
    display_attrs = ('purpose', 'vid', 'vrf', 'prefix', 'description')


@register_search
class QoSProfileIndex(SearchIndex):
    model = QoSProfile
    fields = (('name', 100), ('slug', 110), ('preset', 300), ('description', 500), ('source', 1000), ('comments', 5000))
    display_attrs = ('mode', 'preset', 'description')


@register_search
class EVPNTenantIndex(SearchIndex):
    model = EVPNTenant
    fields = (
        ('name', 100),
        ('slug', 110),
        ('l3vni', 200),
        ('anycast_gateway_mac', 300),
        ('description', 500),
        ('comments', 5000),
    )
    display_attrs = ('tenant', 'vrf', 'l3vni', 'description')


@register_search
class FabricIndex(SearchIndex):
    model = Fabric
    fields = (('name', 100), ('slug', 110), ('description', 500), ('comments', 5000))
    display_attrs = ('site', 'status', 'design_option', 'description')


@register_search
class FabricNodeIndex(SearchIndex):
    model = FabricNode
    fields = (('name', 100),)
    display_attrs = ('fabric', 'role', 'node_id', 'device')
