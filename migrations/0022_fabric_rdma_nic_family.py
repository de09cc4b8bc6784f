from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [('netbox_aifabric', '0021_config_backups')]

    operations = [
        migrations.AddField(
            model_name='fabric', name='rdma_nic_family', field=models.CharField(default='nvidia-mlx5', max_length=20)
        )
    ]
