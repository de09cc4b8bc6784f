# Names that reach device configs (fabric, node, traffic class, EVPN tenant, QoS profile and its preset) refuse
# control characters (a newline in a name started a config line of its own). Validators only: no schema
# change; existing names are not rewritten.

import netbox_aifabric.validators
from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [('netbox_aifabric', '0004_fabric_leaf_pairing_oversubscription')]

    operations = [
        migrations.AlterField(
            model_name='evpntenant',
            name='name',
            field=models.CharField(
                max_length=100, unique=True, validators=[netbox_aifabric.validators.validate_no_control_characters]
            ),
        ),
        migrations.AlterField(
            model_name='fabric',
            name='name',
            field=models.CharField(
                max_length=100, unique=True, validators=[netbox_aifabric.validators.validate_no_control_characters]
            ),
        ),
        migrations.AlterField(
            model_name='fabricnode',
            name='name',
            field=models.CharField(
                max_length=64, validators=[netbox_aifabric.validators.validate_no_control_characters]
            ),
        ),
        migrations.AlterField(
            model_name='qosprofile',
            name='name',
            field=models.CharField(
                max_length=100, unique=True, validators=[netbox_aifabric.validators.validate_no_control_characters]
            ),
        ),
        migrations.AlterField(
            model_name='qosprofile',
            name='preset',
            field=models.CharField(
                blank=True, max_length=100, validators=[netbox_aifabric.validators.validate_no_control_characters]
            ),
        ),
        migrations.AlterField(
            model_name='trafficclass',
            name='name',
            field=models.CharField(
                max_length=100, unique=True, validators=[netbox_aifabric.validators.validate_no_control_characters]
            ),
        ),
    ]
