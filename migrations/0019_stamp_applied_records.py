from django.db import migrations


def stamp(apps, schema_editor):
    """(An UPDATE per row: the record is the apply's, written as the apply writes it, outside the model's save.)
    Wrap each fabric's unstamped apply record ``{key: value}`` in its stamp ``{fabric, fabric_id, allocations}``:
    from now on every record names the fabric whose apply wrote it, so a record without one was copied in."""
    Fabric = apps.get_model('netbox_aifabric', 'Fabric')
    for fabric in Fabric.objects.exclude(applied_allocations={}).only('pk', 'slug', 'applied_allocations'):
        record = fabric.applied_allocations
        if isinstance(record, dict) and 'allocations' not in record:
            stamped = {'fabric': fabric.slug, 'fabric_id': fabric.pk, 'allocations': record}
            Fabric.objects.filter(pk=fabric.pk).update(applied_allocations=stamped)


def unstamp(apps, schema_editor):
    """Back to the bare ``{key: value}`` record the code before 0019 reads."""
    Fabric = apps.get_model('netbox_aifabric', 'Fabric')
    for fabric in Fabric.objects.exclude(applied_allocations={}).only('pk', 'applied_allocations'):
        record = fabric.applied_allocations
        if isinstance(record, dict) and isinstance(record.get('allocations'), dict):
            Fabric.objects.filter(pk=fabric.pk).update(applied_allocations=record['allocations'])


class Migration(migrations.Migration):
    """Stamp every stored apply record with its fabric (the code refuses an unstamped one as copied in)."""

    dependencies = [('netbox_aifabric', '0018_fabric_telemetry')]

    operations = [migrations.RunPython(stamp, unstamp)]
