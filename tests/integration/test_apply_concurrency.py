"""Two applies of one fabric at the same time, each on its own database connection: one waits for the other, and no
address, /31, ASN or VNI exists twice."""

import threading
from collections import Counter

import pytest
from django.db import connection

from ipam.models import ASN, IPAddress, Prefix
from vpn.models import L2VPN

from netbox_aifabric.apply.diff import summarize
from netbox_aifabric.apply.seed import load_demo
from netbox_aifabric.apply.writes import apply_fabric
from netbox_aifabric.models import Fabric, OwnedObject

pytestmark = [pytest.mark.netbox, pytest.mark.django_db(transaction=True)]


def test_parallel_applies_never_double_allocate():
    load_demo()
    fabric_pk = Fabric.objects.get(slug='ai-lab-fabric').pk
    barrier = threading.Barrier(2)
    results, errors = [], []

    def run():
        try:
            barrier.wait(timeout=30)
            _, changes = apply_fabric(Fabric.objects.get(pk=fabric_pk))
            results.append(summarize(changes))
        except Exception as e:  # reported below
            errors.append(e)
        finally:
            connection.close()

    threads = [threading.Thread(target=run) for _ in range(2)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=120)

    assert errors == []
    created = sorted(sum(model['create'] for model in summary.values()) for summary in results)
    assert created == [0, 174]  # the second apply waited, then found everything in place
    assert OwnedObject.objects.count() == 174
    for values in (
        [str(ip.address) for ip in IPAddress.objects.all()],
        [str(p.prefix) for p in Prefix.objects.filter(prefix__net_contained_or_equal='10.255.0.0/16')],
        list(ASN.objects.values_list('asn', flat=True)),
        list(L2VPN.objects.values_list('identifier', flat=True)),
    ):
        assert [v for v, n in Counter(values).items() if n > 1] == []
