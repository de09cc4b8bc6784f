from django.core.exceptions import ValidationError
from django.core.validators import MinValueValidator
from django.db import models
from django.utils.translation import gettext_lazy as _

from netbox.models import NetBoxModel

from ..choices import FabricNodeRoleChoices
from ..validators import validate_no_control_characters

__all__ = ('GPU_SERVERS_PER_PAIR', 'FabricNode', 'node_name')

# GPU server k attaches to leaf pair ceil(k / GPU_SERVERS_PER_PAIR); the remaining server ports of a leaf (48 in
# all) are kept for storage nodes on the first pair.
GPU_SERVERS_PER_PAIR = 40

COUNT_FIELDS = {'spine': 'spine_count', 'leaf': 'leaf_count', 'gpu': 'server_count', 'storage': 'storage_count'}


def node_name(fabric_slug: str, role: str, node_id: int) -> str:
    """The default device name of a node: ``<fabric>-spine1``, ``<fabric>-leaf3``, ``<fabric>-gpu12``, …"""
    return f'{fabric_slug}-{role}{node_id}'


def default_pair(role: str, node_id: int) -> int | None:
    """Leaves pair as (1, 2), (3, 4), …; GPU server k fills leaf pairs 40 at a time; storage sits on pair 1."""
    if role in ('leaf', 'border'):
        return (node_id + 1) // 2
    if role == 'gpu':
        return (node_id - 1) // GPU_SERVERS_PER_PAIR + 1
    if role == 'storage':
        return 1
    return None


class FabricNode(NetBoxModel):
    """
    One member of a fabric with a stable identity: its role, its node id (which the planner numbers from, so it never
    changes once given), its device name and, for leaves and servers, the leaf pair it belongs to. A node may adopt
    an existing device (brownfield); otherwise the apply creates the device.
    """

    fabric = models.ForeignKey(
        to='netbox_aifabric.Fabric', on_delete=models.CASCADE, related_name='nodes', verbose_name=_('fabric')
    )
    role = models.CharField(verbose_name=_('role'), max_length=20, choices=FabricNodeRoleChoices)
    node_id = models.PositiveSmallIntegerField(
        verbose_name=_('node ID'),
        validators=[MinValueValidator(1)],
        help_text=_('Stable number within the role; loopbacks, ASNs and links are numbered from it'),
    )
    name = models.CharField(
        verbose_name=_('name'), max_length=64, help_text=_('Device name'), validators=[validate_no_control_characters]
    )
    pair = models.PositiveSmallIntegerField(
        verbose_name=_('leaf pair'),
        blank=True,
        null=True,
        validators=[MinValueValidator(1)],
        help_text=_('Leaves: the MLAG pair (dual-ToR) this leaf belongs to. Servers: the leaf pair they attach to'),
    )
    device = models.OneToOneField(
        to='dcim.Device',
        on_delete=models.SET_NULL,
        related_name='+',
        blank=True,
        null=True,
        verbose_name=_('adopted device'),
        help_text=_('An existing device this node takes over (brownfield); empty: the apply creates the device'),
    )

    clone_fields = ('fabric', 'role')

    class Meta:
        ordering = ('fabric', 'role', 'node_id')
        constraints = (
            models.UniqueConstraint(fields=('fabric', 'role', 'node_id'), name='netbox_aifabric_fabricnode_unique_id'),
            models.UniqueConstraint(fields=('fabric', 'name'), name='netbox_aifabric_fabricnode_unique_name'),
        )
        verbose_name = _('fabric node')
        verbose_name_plural = _('fabric nodes')

    def __str__(self):
        return self.name

    def get_role_color(self):
        return FabricNodeRoleChoices.colors.get(self.role)

    @property
    def group(self) -> str:
        """The id space of the role: border leaves are numbered with the leaves."""
        return FabricNodeRoleChoices.GROUPS.get(self.role, self.role)

    @property
    def is_switch(self) -> bool:
        return self.group in ('spine', 'leaf')

    def clean(self):
        super().clean()
        errors = {}
        if not self.fabric_id or not self.role or self.node_id is None:
            return
        fabric = self.fabric
        same_group = [r for r, g in FabricNodeRoleChoices.GROUPS.items() if g == self.group]
        clash = FabricNode.objects.filter(fabric=fabric, role__in=same_group, node_id=self.node_id).exclude(pk=self.pk)
        if clash.exists():
            errors['node_id'] = _('{fabric} already has {node} with {group} id {id}.').format(
                fabric=fabric, node=clash.first(), group=self.group, id=self.node_id
            )
        maximum = {'spine': fabric.max_spines, 'leaf': fabric.max_leaves}.get(self.group)
        if maximum is not None and self.node_id > maximum:
            errors['node_id'] = _('{group} id {id} is above the fabric maximum {maximum}.').format(
                group=self.group.capitalize(), id=self.node_id, maximum=maximum
            )
        if self.role == FabricNodeRoleChoices.SPINE and self.pair is not None:
            errors['pair'] = _('Spines are not paired.')
        if self.device is not None:
            if self.device.site_id != fabric.site_id:
                errors['device'] = _('{device} is in site {site}, not in the fabric site {fabric_site}.').format(
                    device=self.device, site=self.device.site, fabric_site=fabric.site
                )
            elif self.device.name != self.name:
                self.name = self.device.name
                try:  # the device's name becomes the node's, past the field's own validation
                    validate_no_control_characters(self.name)
                except ValidationError as e:
                    errors['device'] = _('{device}: {error}').format(device=repr(self.name), error=e.messages[0])
        if errors:
            raise ValidationError(errors)

    def save(self, *args, **kwargs):
        super().save(*args, **kwargs)
        self.fabric.count_nodes()

    def delete(self, *args, **kwargs):
        fabric = self.fabric
        result = super().delete(*args, **kwargs)
        fabric.count_nodes()
        return result
