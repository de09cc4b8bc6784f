from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ('netbox_aifabric', '0008_traffic_flow'),
    ]

    operations = [
        migrations.AddField(
            model_name='fabric',
            name='bfd',
            field=models.BooleanField(default=False),
        ),
    ]
