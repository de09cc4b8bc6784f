import heapq

from django.core.exceptions import ValidationError
from django.core.validators import MinValueValidator
from django.db import models
from django.utils.translation import gettext_lazy as _

from netbox.models import NetBoxModel

from netbox_aifabric.choices import FabricNodeRoleChoices
from netbox_aifabric.validators import validate_no_control_characters

__all__ = ('GPU_SERVERS_PER_PAIR', 'STORAGE_PER_PAIR', 'FabricNode', 'node_name', 'place_servers')

# GPU server k attaches to leaf pair ceil(k / GPU_SERVERS_PER_PAIR); the remaining server ports of a leaf (48 in
# all) are kept for storage nodes on the first pair.
GPU_SERVERS_PER_PAIR = 40
STORAGE_PER_PAIR = 8

COUNT_FIELDS = {'spine': 'spine_count', 'leaf': 'leaf_count', 'gpu': 'server_count', 'storage': 'storage_count'}


def node_name(fabric_slug: str, role: str, node_id: int) -> str:
    """The default device name of a node: ``<fabric>-spine1``, ``<fabric>-leaf3``, ``<fabric>-gpu12``, …"""
    return f'{fabric_slug}-{role}{node_id}'


def default_pair(role: str, node_id: int) -> int | None:
    """Leaves pair as (1, 2), (3, 4), …; a server's pair before placement (:func:`place_servers` balances new
    ones over the racks): GPU server k fills leaf pairs 40 at a time; storage sits on pair 1."""
    if role in ('leaf', 'border'):
        return (node_id + 1) // 2
    if role == 'gpu':
        return (node_id - 1) // GPU_SERVERS_PER_PAIR + 1
    if role == 'storage':
        return 1
    return None


def server_slot(node) -> tuple[str, int]:
    """The port slot a GPU server or storage node takes on its leaf pair (as ``intake/spec.py`` numbers them): GPU
    server k the slot (k − 1) mod GPU_SERVERS_PER_PAIR, storage node k one of the STORAGE_PER_PAIR slots after."""
    if node.group == 'gpu':
        return 'gpu', (node.node_id - 1) % GPU_SERVERS_PER_PAIR
    return 'storage', (node.node_id - 1) % STORAGE_PER_PAIR


def place_servers(nodes) -> None:
    """Give each new (unsaved) GPU server and storage node the leaf pair that has room for it and carries the
    fewest servers, the lowest pair number on a tie, in node order: growth fills new racks first and balances the
    racks, and a stored node never moves (its pair is stored). A pair has room for a node while its slot
    (:func:`server_slot`) is free on it and it has fewer than GPU_SERVERS_PER_PAIR GPU servers (STORAGE_PER_PAIR
    storage nodes). Without a pair with room a new node keeps its default pair (the planner then names the leaf
    that runs out)."""
    racks = sorted({n.pair or default_pair(n.role, n.node_id) for n in nodes if n.group == 'leaf'})
    servers = [n for n in nodes if n.group in ('gpu', 'storage')]
    load = dict.fromkeys(racks, 0)
    slots = {rack: set() for rack in racks}
    members = {(rack, group): 0 for rack in racks for group in ('gpu', 'storage')}
    for node in servers:
        pair = node.pair or default_pair(node.role, node.node_id)
        if node.pk is not None and pair in load:
            load[pair] += 1
            slots[pair].add(server_slot(node))
            members[pair, node.group] += 1
    for group, limit in (('gpu', GPU_SERVERS_PER_PAIR), ('storage', STORAGE_PER_PAIR)):
        # (servers carried, pair) of the pairs with room for the group: the least loaded first
        heap = [(load[rack], rack) for rack in racks if members[rack, group] < limit]
        heapq.heapify(heap)
        for node in (n for n in servers if n.pk is None and n.group == group):
            slot, skipped, rack = server_slot(node), [], None
            while heap:
                candidate = heapq.heappop(heap)
                if slot not in slots[candidate[1]]:
                    rack = candidate[1]
                    break
                skipped.append(candidate)  # its slot is taken there: the pair stays a candidate for others
            for candidate in skipped:
                heapq.heappush(heap, candidate)
            if rack is None:
                continue
            node.pair = rack
            load[rack] += 1
            slots[rack].add(slot)
            members[rack, group] += 1
            if members[rack, group] < limit:
                heapq.heappush(heap, (load[rack], rack))


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
