from django.utils.translation import gettext_lazy as _

from netbox.plugins import PluginMenu, PluginMenuButton, PluginMenuItem


def _item(model, label, importable=True):
    return PluginMenuItem(
        link=f'plugins:netbox_aifabric:{model}_list',
        link_text=label,
        permissions=[f'netbox_aifabric.view_{model}'],
        buttons=(
            PluginMenuButton(
                link=f'plugins:netbox_aifabric:{model}_add',
                title=_('Add'),
                icon_class='mdi mdi-plus-thick',
                permissions=[f'netbox_aifabric.add_{model}'],
            ),
            PluginMenuButton(
                link=f'plugins:netbox_aifabric:{model}_bulk_import',
                title=_('Import'),
                icon_class='mdi mdi-upload',
                permissions=[f'netbox_aifabric.add_{model}'],
            ),
        )[: 2 if importable else 1],
    )


menu = PluginMenu(
    label=_('AI Fabric'),
    icon_class='mdi mdi-lan',
    groups=(
        (
            _('Fabrics'),
            (
                PluginMenuItem(
                    link='plugins:netbox_aifabric:fabric_wizard',
                    link_text=_('Fabric wizard'),
                    permissions=['netbox_aifabric.add_fabric'],
                ),
                _item('fabric', _('Fabrics')),
                _item('fabricnode', _('Fabric nodes')),
            ),
        ),
        (
            _('Intent'),
            (
                _item('trafficclass', _('Traffic classes')),
                _item('qosprofile', _('QoS profiles')),
                _item('evpntenant', _('EVPN tenants')),
                _item('trafficflow', _('Traffic flows')),
            ),
        ),
        (
            _('Acceptance'),
            (
                _item('acceptancerun', _('Acceptance runs'), importable=False),
                PluginMenuItem(
                    link='plugins:netbox_aifabric:acceptanceresult_list',
                    link_text=_('Acceptance results'),
                    permissions=['netbox_aifabric.view_acceptanceresult'],
                ),
            ),
        ),
        (
            _('Compliance'),
            (
                # made by the compliance job, never added by hand: no buttons
                PluginMenuItem(
                    link='plugins:netbox_aifabric:compliancerun_list',
                    link_text=_('Compliance runs'),
                    permissions=['netbox_aifabric.view_compliancerun'],
                ),
                PluginMenuItem(
                    link='plugins:netbox_aifabric:compliancefinding_list',
                    link_text=_('Compliance findings'),
                    permissions=['netbox_aifabric.view_compliancefinding'],
                ),
                _item('configbackup', _('Config backups'), importable=False),
            ),
        ),
    ),
)
