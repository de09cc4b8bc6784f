"""Two fabrics saved at the same moment with the same pools, each on its own database connection: both
pass ``clean`` (neither sees the other), and only one is stored; the other is refused by name."""

import copy
import threading
import time

import pytest
from django.db import connection, transaction
from django.db.models.base import ModelState

from utilities.exceptions import AbortRequest

from netbox_aifabric.apply.seed import load_demo
from netbox_aifabric.models import Fabric

pytestmark = [pytest.mark.netbox, pytest.mark.django_db(transaction=True)]


def _copy(template, n):
    fabric = copy.copy(template)
    fabric._state = ModelState()
    fabric.pk = fabric.id = None
    fabric.name, fabric.slug = f'Race {n}', f'race-{n}'
    return fabric


def test_two_fabrics_created_at_once_with_one_pool_store_one():
    load_demo()
    template = Fabric.objects.get(slug='ai-lab-fabric')
    Fabric.objects.filter(pk=template.pk).delete()  # its pools are free for the two racing fabrics
    cleaned = threading.Barrier(2)
    refused, stored = [], []

    def create(n):
        try:
            fabric = _copy(template, n)
            fabric.full_clean()  # both pass: neither fabric is stored yet
            cleaned.wait(timeout=30)
            with transaction.atomic():
                fabric.save()
                time.sleep(0.5)  # still uncommitted: the other save runs now
            stored.append(n)
        except AbortRequest as e:
            refused.append(e.message)
        finally:
            connection.close()

    threads = [threading.Thread(target=create, args=(n,)) for n in (1, 2)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=60)

    assert len(stored) == 1 and len(refused) == 1
    assert list(Fabric.objects.values_list('slug', flat=True)) == [f'race-{stored[0]}']
    loopback = template.loopback_pool.prefix
    assert f'Pool {loopback} overlaps the loopback pool {loopback} of fabric Race {stored[0]}.' in refused[0]


def test_a_save_that_changes_no_pool_is_not_refused_by_its_own_pools():
    load_demo()
    fabric = Fabric.objects.get(slug='ai-lab-fabric')
    fabric.description = 'edited'
    fabric.save()
    assert Fabric.objects.get(pk=fabric.pk).description == 'edited'
