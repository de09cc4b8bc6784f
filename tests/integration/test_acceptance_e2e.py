"""The downloaded runbook script run for real against a live NetBox: its throughput section, with a stand-in for ssh
that prints real iperf3 and ping output (the fixtures), uploads every output to a manual run over HTTP, where NetBox
judges it against the demo fabric's plan."""

import json
import os
import subprocess
from pathlib import Path

import pytest
from django.test import Client

from users.models import Token, User

from netbox_aifabric.acceptance.judge import MIN_LINE_RATE_FRACTION
from netbox_aifabric.apply.seed import load_demo
from netbox_aifabric.intake.plan import plan_of
from netbox_aifabric.models import AcceptanceRun, Fabric
from tests.unit.acceptance.test_runbook import COUNTER_SSH  # the same ssh stand-in as the unit test

pytestmark = [pytest.mark.netbox, pytest.mark.django_db(transaction=True)]

FIXTURES = Path(__file__).resolve().parents[1] / 'unit' / 'acceptance' / 'fixtures'
FAKE_SSH = """#!/bin/sh
shift
case "$*" in
  *'iperf3 -c'*) cat "$FIXTURES/iperf3_p8_ok.json" ;;
  *'iperf3 -s'*) exit 0 ;;
  *ping*) cat "$FIXTURES/ping_during_load.txt" ;;
  *) exit 1 ;;
esac
"""


def test_script_uploads_to_a_run_and_netbox_judges(live_server, tmp_path):
    load_demo()
    fabric = Fabric.objects.get(slug='ai-lab-fabric')
    user = User.objects.create_superuser('runbook', 'runbook@example.invalid', 'secret-password')
    token = Token.objects.create(user=user)
    run = AcceptanceRun.objects.create(fabric=fabric, kind='manual', user=user)
    client = Client()
    client.force_login(user)
    response = client.get(f'/plugins/aifabric/fabrics/{fabric.pk}/acceptance/script/')
    assert response.status_code == 200
    script = tmp_path / 'acceptance.sh'
    script.write_bytes(response.content)
    fake = tmp_path / 'fake-ssh'
    fake.write_text(FAKE_SSH)
    fake.chmod(0o755)
    env = {
        **os.environ,
        'HOST_SSH': str(fake),
        'FIXTURES': str(FIXTURES),
        'OUT': str(tmp_path / 'out'),
        'NETBOX_URL': live_server.url,
        'NETBOX_TOKEN': f'nbt_{token.key}.{token.token}',
        'RUN_ID': str(run.pk),
    }
    proc = subprocess.run(['bash', str(script), 'throughput'], env=env, capture_output=True, text=True, timeout=120)
    pairs = [line.split()[1:] for line in script.read_text().splitlines() if line.startswith('  throughput ')]
    assert pairs and proc.returncode == 0, proc.stdout + proc.stderr
    uploads = [json.loads(line) for line in (tmp_path / 'out' / 'uploads.json').read_text().splitlines() if line]
    assert all('id' in u for u in uploads), uploads

    run.refresh_from_db()
    results = list(run.results.order_by('pk'))
    assert len(results) == 2 * len(pairs)  # each pair: the iperf3 JSON and the ping during the load
    measured = json.loads((FIXTURES / 'iperf3_p8_ok.json').read_text())['end']['sum_received']['bits_per_second']
    bonds = {}
    for link in plan_of(fabric).links:
        if link.kind == 'server':
            bonds[link.b_node] = bonds.get(link.b_node, 0) + link.speed
    for (kind, source, destination), iperf3, ping in zip(pairs, results[::2], results[1::2], strict=True):
        rate = min(bonds[source], bonds[destination])
        passed = measured / 1e9 >= MIN_LINE_RATE_FRACTION * rate
        assert (iperf3.category, iperf3.subject) == (f'throughput-{kind}', f'{source} -> {destination}')
        assert iperf3.status == ('passed' if passed else 'failed')
        assert (ping.category, ping.status) == ('latency', 'failed')  # the fixture's spike under load
    assert (run.passed + run.failed, run.status) == (len(results), 'failed')


def _section_lines(script, section: str) -> list[str]:
    """The lines of the script's ``if want <section>`` blocks (the rdma section snapshots the same counters)."""
    lines, inside = [], False
    for line in script.read_text().splitlines():
        if line == f'if want {section}; then':
            inside = True
        elif line == 'fi':
            inside = False
        elif inside:
            lines.append(line)
    return lines


def test_roce_counters_are_uploaded_before_and_after_and_judged(live_server, tmp_path):
    """The roce section against a live NetBox: every switch's show pfc counters and show queue counters and every
    NIC's ethtool -S, before and after, uploaded as pairs and judged; the ansible section skips without the playbook
    (the working directory has no examples/ansible/playbook.yml)."""
    load_demo()
    fabric = Fabric.objects.get(slug='ai-lab-fabric')
    user = User.objects.create_superuser('roce', 'roce@example.invalid', 'secret-password')
    token = Token.objects.create(user=user)
    run = AcceptanceRun.objects.create(fabric=fabric, kind='manual', user=user)
    client = Client()
    client.force_login(user)
    script = tmp_path / 'acceptance.sh'
    script.write_bytes(client.get(f'/plugins/aifabric/fabrics/{fabric.pk}/acceptance/script/').content)
    fake, marks = tmp_path / 'fake-ssh', tmp_path / 'marks'
    fake.write_text(COUNTER_SSH)
    fake.chmod(0o755)
    marks.mkdir()
    env = {
        **os.environ, 'SWITCH_SSH': str(fake), 'HOST_SSH': str(fake), 'NOS': 'sonic', 'FIXTURES': str(FIXTURES),
        'MARKS': str(marks), 'OUT': str(tmp_path / 'out'), 'NETBOX_URL': live_server.url,
        'NETBOX_TOKEN': f'nbt_{token.key}.{token.token}', 'RUN_ID': str(run.pk),
    }  # fmt: skip
    env.pop('ANSIBLE_PLAYBOOK', None)
    proc = subprocess.run(
        ['bash', str(script), 'roce', 'ansible'], env=env, capture_output=True, text=True, timeout=300, cwd=tmp_path
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    calls = [line.split() for line in _section_lines(script, 'roce') if line.startswith('  roce after ')]
    switches = [c for c in calls if c[2] == 'switch']
    nics = [c for c in calls if c[2] == 'nic']
    assert switches and nics
    results = list(run.results.order_by('pk'))
    by_category = {}
    for r in results:
        by_category.setdefault(r.category, []).append(r)
    assert {k: len(v) for k, v in by_category.items()} == {
        'roce-pfc': len(switches), 'roce-queue-drops': len(switches), 'roce-nic': len(nics),
    }  # fmt: skip
    assert {r.status for r in results} == {'passed'}  # the fixtures: pause on PFC3 only, no lossless drop
    pfc = by_category['roce-pfc'][0]
    assert pfc.value == (1212 - 12) + (403 - 3) + (907 - 7) and pfc.raw.startswith('# before')
    summary = (tmp_path / 'out' / 'summary.txt').read_text()
    assert 'skip: ansible check mode: no playbook at examples/ansible/playbook.yml' in summary
