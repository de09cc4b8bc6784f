from django.db import migrations, models


class Migration(migrations.Migration):
    """Room for the 'ebgp-unnumbered' underlay (RFC 5549) in Fabric.underlay."""

    dependencies = [('netbox_aifabric', '0022_fabric_rdma_nic_family')]

    operations = [
        migrations.AlterField(
            model_name='fabric', name='underlay', field=models.CharField(default='ebgp', max_length=16)
        )
    ]
