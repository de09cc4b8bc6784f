# Fabric nodes with stable ids (one per spine, leaf, GPU server and storage node, created for existing fabrics from
# their counts with the ids and names the apply used so far), the device choices of a fabric and adopted ownership.

import django.core.validators
import django.db.models.deletion
import taggit.managers
from django.db import migrations, models

import netbox.models.deletion
import utilities.json

COUNTS = {'spine': 'spine_count', 'leaf': 'leaf_count', 'gpu': 'server_count', 'storage': 'storage_count'}


def create_nodes(apps, schema_editor):
    Fabric = apps.get_model('netbox_aifabric', 'Fabric')
    FabricNode = apps.get_model('netbox_aifabric', 'FabricNode')
    for fabric in Fabric.objects.all():
        for role, field in COUNTS.items():
            for node_id in range(1, getattr(fabric, field) + 1):
                pair = {'leaf': (node_id + 1) // 2, 'gpu': (node_id - 1) // 40 + 1, 'storage': 1}.get(role)
                FabricNode.objects.create(
                    fabric=fabric, role=role, node_id=node_id, name=f'{fabric.slug}-{role}{node_id}', pair=pair
                )


class Migration(migrations.Migration):
    dependencies = [
        ('dcim', '0250_cooling_infrastructure'),  # 4.7.0; see 0001
        ('extras', '0144_customfield_status'),
        ('netbox_aifabric', '0002_fabric_apply'),
    ]

    operations = [
        migrations.AddField(
            model_name='fabric',
            name='leaf_device_type',
            field=models.ForeignKey(
                blank=True,
                null=True,
                on_delete=django.db.models.deletion.PROTECT,
                related_name='+',
                to='dcim.devicetype',
            ),
        ),
        migrations.AddField(
            model_name='fabric',
            name='leaf_role',
            field=models.ForeignKey(
                blank=True,
                null=True,
                on_delete=django.db.models.deletion.PROTECT,
                related_name='+',
                to='dcim.devicerole',
            ),
        ),
        migrations.AddField(
            model_name='fabric',
            name='platform',
            field=models.ForeignKey(
                blank=True, null=True, on_delete=django.db.models.deletion.PROTECT, related_name='+', to='dcim.platform'
            ),
        ),
        migrations.AddField(
            model_name='fabric',
            name='rack',
            field=models.ForeignKey(
                blank=True, null=True, on_delete=django.db.models.deletion.PROTECT, related_name='+', to='dcim.rack'
            ),
        ),
        migrations.AddField(
            model_name='fabric',
            name='server_device_type',
            field=models.ForeignKey(
                blank=True,
                null=True,
                on_delete=django.db.models.deletion.PROTECT,
                related_name='+',
                to='dcim.devicetype',
            ),
        ),
        migrations.AddField(
            model_name='fabric',
            name='server_role',
            field=models.ForeignKey(
                blank=True,
                null=True,
                on_delete=django.db.models.deletion.PROTECT,
                related_name='+',
                to='dcim.devicerole',
            ),
        ),
        migrations.AddField(
            model_name='fabric',
            name='spine_device_type',
            field=models.ForeignKey(
                blank=True,
                null=True,
                on_delete=django.db.models.deletion.PROTECT,
                related_name='+',
                to='dcim.devicetype',
            ),
        ),
        migrations.AddField(
            model_name='fabric',
            name='spine_role',
            field=models.ForeignKey(
                blank=True,
                null=True,
                on_delete=django.db.models.deletion.PROTECT,
                related_name='+',
                to='dcim.devicerole',
            ),
        ),
        migrations.AddField(
            model_name='fabric',
            name='storage_role',
            field=models.ForeignKey(
                blank=True,
                null=True,
                on_delete=django.db.models.deletion.PROTECT,
                related_name='+',
                to='dcim.devicerole',
            ),
        ),
        migrations.AddField(model_name='ownedobject', name='adopted', field=models.BooleanField(default=False)),
        migrations.CreateModel(
            name='FabricNode',
            fields=[
                ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False)),
                ('created', models.DateTimeField(auto_now_add=True, null=True)),
                ('last_updated', models.DateTimeField(auto_now=True, null=True)),
                (
                    'custom_field_data',
                    models.JSONField(blank=True, default=dict, encoder=utilities.json.CustomFieldJSONEncoder),
                ),
                ('role', models.CharField(max_length=20)),
                ('node_id', models.PositiveSmallIntegerField(validators=[django.core.validators.MinValueValidator(1)])),
                ('name', models.CharField(max_length=64)),
                (
                    'pair',
                    models.PositiveSmallIntegerField(
                        blank=True, null=True, validators=[django.core.validators.MinValueValidator(1)]
                    ),
                ),
                (
                    'device',
                    models.OneToOneField(
                        blank=True,
                        null=True,
                        on_delete=django.db.models.deletion.SET_NULL,
                        related_name='+',
                        to='dcim.device',
                    ),
                ),
                (
                    'fabric',
                    models.ForeignKey(
                        on_delete=django.db.models.deletion.CASCADE, related_name='nodes', to='netbox_aifabric.fabric'
                    ),
                ),
                ('tags', taggit.managers.TaggableManager(through='extras.TaggedItem', to='extras.Tag')),
            ],
            options={
                'verbose_name': 'fabric node',
                'verbose_name_plural': 'fabric nodes',
                'ordering': ('fabric', 'role', 'node_id'),
                'constraints': [
                    models.UniqueConstraint(
                        fields=('fabric', 'role', 'node_id'), name='netbox_aifabric_fabricnode_unique_id'
                    ),
                    models.UniqueConstraint(fields=('fabric', 'name'), name='netbox_aifabric_fabricnode_unique_name'),
                ],
            },
            bases=(netbox.models.deletion.DeleteMixin, models.Model),
        ),
        migrations.RunPython(create_nodes, migrations.RunPython.noop),
    ]
