import django.db.models.deletion
from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ('dcim', '0250_cooling_infrastructure'),  # 4.7.0; see 0001
        ('netbox_aifabric', '0012_fabric_lifecycle'),
    ]

    operations = [
        migrations.AddField(
            model_name='fabric',
            name='management_device_type',
            field=models.ForeignKey(
                blank=True,
                help_text=(
                    'The out-of-band switch every server BMC and switch management port is cabled to: the plan numbers '
                    'its ports and addresses (MGMT subnet) and the apply creates it. Empty: none is planned (the bill '
                    'of materials still lists one)'
                ),
                null=True,
                on_delete=django.db.models.deletion.PROTECT,
                related_name='+',
                to='dcim.devicetype',
                verbose_name='management switch device type',
            ),
        ),
    ]
