# The fabric's leaf pairing (MLAG with a peer link, or EVPN multihoming in the EVPN/VXLAN design) and its
# oversubscription target (the plan warns about leaves above it). Existing fabrics keep MLAG pairing and get the
# default target of 3:1.

import decimal

import django.core.validators
from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ('netbox_aifabric', '0003_fabric_nodes'),
    ]

    operations = [
        migrations.AddField(
            model_name='fabric',
            name='leaf_pairing',
            field=models.CharField(default='mlag', max_length=10),
        ),
        migrations.AddField(
            model_name='fabric',
            name='oversubscription_target',
            field=models.DecimalField(
                blank=True,
                decimal_places=2,
                default=decimal.Decimal('3.00'),
                max_digits=5,
                null=True,
                validators=[
                    django.core.validators.MinValueValidator(decimal.Decimal('1')),
                    django.core.validators.MaxValueValidator(decimal.Decimal('100')),
                ],
            ),
        ),
    ]
