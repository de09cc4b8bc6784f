"""Keep the per-device ``aifabric`` contexts current: after any change to a fabric, its QoS profile, its traffic
classes or its tenants, the devices the fabric owns get the new context in the same transaction."""

from django.db import transaction
from django.db.models.signals import m2m_changed, post_save
from django.dispatch import receiver

from .apply.engine import refresh_contexts
from .models import EVPNTenant, Fabric, QoSProfile, TrafficClass

__all__ = ()


def _refresh(fabrics):
    for fabric in fabrics:
        # After the surrounding transaction's other writes (a form saves the row, then its many-to-many members)
        transaction.on_commit(lambda fabric=fabric: _refresh_now(fabric.pk))


def _refresh_now(pk):
    fabric = Fabric.objects.filter(pk=pk).first()
    if fabric is not None:
        with transaction.atomic():
            refresh_contexts(fabric)


@receiver(post_save, sender=Fabric, dispatch_uid='aifabric_fabric_saved')
def fabric_saved(sender, instance, raw=False, **kwargs):
    if not raw:
        _refresh([instance])


@receiver(post_save, sender=QoSProfile, dispatch_uid='aifabric_qos_saved')
def qos_profile_saved(sender, instance, raw=False, **kwargs):
    if not raw:
        _refresh(instance.fabrics.all())


@receiver(post_save, sender=TrafficClass, dispatch_uid='aifabric_class_saved')
def traffic_class_saved(sender, instance, raw=False, **kwargs):
    if not raw:
        _refresh(instance.fabrics.all())


@receiver(post_save, sender=EVPNTenant, dispatch_uid='aifabric_tenant_saved')
def tenant_saved(sender, instance, raw=False, **kwargs):
    if not raw:
        _refresh(instance.fabrics.all())


@receiver(m2m_changed, sender=Fabric.traffic_classes.through, dispatch_uid='aifabric_fabric_classes')
@receiver(m2m_changed, sender=Fabric.tenants.through, dispatch_uid='aifabric_fabric_tenants')
def fabric_members_changed(sender, instance, action, **kwargs):
    if action in ('post_add', 'post_remove', 'post_clear') and isinstance(instance, Fabric):
        _refresh([instance])


@receiver(m2m_changed, sender=EVPNTenant.traffic_classes.through, dispatch_uid='aifabric_tenant_classes')
def tenant_members_changed(sender, instance, action, **kwargs):
    if action in ('post_add', 'post_remove', 'post_clear') and isinstance(instance, EVPNTenant):
        _refresh(instance.fabrics.all())
