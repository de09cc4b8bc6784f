"""A device's *Config Context* tab with the ``aifabric`` key shown once, one collapsible section per top-level key.

NetBox's own tab prints the rendered context and, beside it, the local context: the apply writes the ``aifabric`` key
into the device's local context, so its several hundred lines appeared twice on one very long page. This view is
NetBox's (``dcim.views.DeviceConfigContextView``: same URL, tab, permissions, format toggle and source contexts) with
the ``aifabric`` key taken out of both dumps and shown once below them. A device without the key gets NetBox's page
unchanged.
"""

from django.utils.translation import gettext_lazy as _

from netbox.registry import registry

from netbox_aifabric.facts.context import CONTEXT_KEY

__all__ = ('fabric_context_view', 'replace_device_context_view', 'sections_of', 'split_context')

TEMPLATE = 'netbox_aifabric/device_configcontext.html'
# What each section of the aifabric key holds (shown beside its name; keys not listed show their name only)
SECTION_HELP = {
    'loopbacks': _('loopback interfaces and their addresses'),
    'vtep': _('the VXLAN tunnel end point (EVPN/VXLAN)'),
    'mlag': _('the MLAG pair: peer, peer link, its addresses'),
    'evpn_mh': _("EVPN multihoming: the pair's other leaf and the Ethernet segments"),
    'interfaces': _('ports by real name: role, LAG, VLAN mode, addresses, MTU'),
    'lags': _('LAGs and server bonds'),
    'bgp': _('BGP: ASN, router id, neighbours, address families'),
    'bfd': _('BFD on the underlay sessions'),
    'ospf': _('OSPF underlay'),
    'vlans': _('VLANs of the traffic classes on this switch'),
    'vrfs': _('tenant VRFs: L3VNI, route targets'),
    'qos': _("the fabric's QoS: PFC, ECN, DSCP map, scheduler"),
    'management': _('management VRF, address, default route and allowed sources'),
    'security': _('the security matrix and the gateway ACLs'),
}


def split_context(data):
    """``(data without the aifabric key, the key's value)`` of a context dict; the value ``None`` when the data has
    no ``aifabric`` mapping."""
    if not isinstance(data, dict) or not isinstance(data.get(CONTEXT_KEY), dict):
        return data, None
    return {key: value for key, value in data.items() if key != CONTEXT_KEY}, data[CONTEXT_KEY]


def sections_of(fabric_context):
    """``(scalars, sections)``: the key's plain values (hostname, role, ASN…) as ``[(name, value)]`` for a table,
    and its mappings and lists as collapsible ``[{name, help, data}]``, each by name (PostgreSQL's JSON keeps no key
    order)."""
    scalars, sections = [], []
    for name, value in sorted(fabric_context.items()):
        if isinstance(value, dict | list):
            sections.append({'name': name, 'help': SECTION_HELP.get(name, ''), 'data': value})
        else:
            scalars.append((name, value))
    return scalars, sections


def fabric_context_view():
    """The subclass of NetBox's device context view (imported here: dcim.views is loaded after the plugins)."""
    from dcim.views import DeviceConfigContextView

    class FabricDeviceConfigContextView(DeviceConfigContextView):
        template_name = TEMPLATE

        def get_extra_context(self, request, instance):
            context = super().get_extra_context(request, instance)
            context['local_context'] = instance.local_context_data
            rendered, fabric_context = split_context(context['rendered_context'])
            if fabric_context is None:
                return context
            scalars, sections = sections_of(fabric_context)
            context.update(
                rendered_context=rendered,
                local_context=split_context(instance.local_context_data)[0],
                aifabric_key=CONTEXT_KEY,
                aifabric_scalars=scalars,
                aifabric_sections=sections,
            )
            return context

    return FabricDeviceConfigContextView


def replace_device_context_view():
    """Put the view above in place of NetBox's for the device's ``configcontext`` tab (its registry entry: one URL,
    one tab). Returns whether NetBox's entry was found."""
    fabric_view = fabric_context_view()
    for config in registry['views']['dcim'].get('device', []):
        if config['name'] == 'configcontext' and config['detail']:
            config['view'] = fabric_view
            return True
    return False
