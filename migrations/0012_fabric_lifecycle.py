import django.db.models.deletion
from django.conf import settings
from django.db import migrations, models


def applied_before(apps, schema_editor):
    """Fabrics an apply wrote before the lifecycle existed (their allocations are stored) are applied, not drafts."""
    Fabric = apps.get_model('netbox_aifabric', 'Fabric')
    Fabric.objects.exclude(applied_allocations={}).filter(status__in=('draft', 'planned')).update(status='applied')


class Migration(migrations.Migration):
    dependencies = [('netbox_aifabric', '0011_acceptance_runs'), migrations.swappable_dependency(settings.AUTH_USER_MODEL)]

    operations = [
        migrations.AddField(
            model_name='fabric', name='last_applied', field=models.DateTimeField(blank=True, editable=False, null=True)
        ),
        migrations.AddField(
            model_name='fabric',
            name='last_applied_by',
            field=models.ForeignKey(
                blank=True,
                editable=False,
                null=True,
                on_delete=django.db.models.deletion.SET_NULL,
                related_name='+',
                to=settings.AUTH_USER_MODEL,
            ),
        ),
        migrations.AddField(
            model_name='fabric',
            name='last_apply_request_id',
            field=models.UUIDField(blank=True, editable=False, null=True),
        ),
        migrations.AddField(
            model_name='fabric',
            name='last_plan_hash',
            field=models.CharField(blank=True, editable=False, max_length=64),
        ),
        migrations.AddField(
            model_name='fabric', name='pending_change', field=models.BooleanField(default=False, editable=False)
        ),
        migrations.RunPython(applied_before, migrations.RunPython.noop),
    ]
