import django.contrib.postgres.fields
import django.core.validators
from django.db import migrations, models

import netbox_aifabric.validators


def _collectors(size=4):
    return django.contrib.postgres.fields.ArrayField(
        base_field=models.GenericIPAddressField(protocol='IPv4'), blank=True, default=list, size=size
    )


class Migration(migrations.Migration):
    """Telemetry intent: the collectors every switch sends to and admits; a fabric without any is the
    state of every fabric before it (nothing rendered, compliance warns)."""

    dependencies = [('netbox_aifabric', '0014_fabric_management_device_type')]

    operations = [
        migrations.AddField(model_name='fabric', name='syslog_servers', field=_collectors()),
        migrations.AddField(model_name='fabric', name='ntp_servers', field=_collectors()),
        migrations.AddField(model_name='fabric', name='snmp_managers', field=_collectors()),
        migrations.AddField(
            model_name='fabric', name='snmp_version', field=models.CharField(default='v3', max_length=4)
        ),
        migrations.AddField(
            model_name='fabric',
            name='snmp_user',
            field=models.CharField(
                default='aifabric', max_length=32, validators=[netbox_aifabric.validators.validate_snmp_user]
            ),
        ),
        migrations.AddField(model_name='fabric', name='sflow_collectors', field=_collectors(size=2)),
        migrations.AddField(
            model_name='fabric',
            name='sflow_sampling_rate',
            field=models.PositiveIntegerField(
                default=16384,
                validators=[
                    django.core.validators.MinValueValidator(256),
                    django.core.validators.MaxValueValidator(8388608),
                ],
            ),
        ),
        migrations.AddField(model_name='fabric', name='streaming_collectors', field=_collectors()),
    ]
