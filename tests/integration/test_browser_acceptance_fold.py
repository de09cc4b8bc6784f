"""The Acceptance tab folded, in a real browser: on the guide's cluster grown once (4 leaves, 8 servers), a manual run
with real tool output uploaded for some RDMA, iperf3 and MTU steps (judged against the plan by the upload service);
each section's header counts its steps by the verdicts of the stored results, the sections with a failure are open,
the rest folded (a long step's commands shown only where it failed), and the folded page is a fraction of its height
expanded."""

from pathlib import Path

import pytest

from netbox_aifabric.acceptance.fabric import fabric_runbook
from netbox_aifabric.acceptance.store import upload_result
from netbox_aifabric.apply.seed import load_demo
from netbox_aifabric.models import AcceptanceResult, AcceptanceRun, Fabric
from tests.integration.test_browser import _login, browser_page  # noqa: F401  (the fixture)

pytestmark = [pytest.mark.netbox, pytest.mark.django_db(transaction=True)]

FIXTURES = Path(__file__).resolve().parents[1] / 'unit' / 'acceptance' / 'fixtures'
SECTIONS = ('physical', 'mtu', 'evpn', 'roce', 'throughput', 'rdma', 'security', 'ansible')


def fixture(name):
    return (FIXTURES / name).read_text()


def store_some_results(fabric):
    """A manual run with uploads for the first steps of three sections (the rest not run), as the script uploads
    them: RDMA bandwidth ok, low, ok with a calm latency; one iperf3 pair; a jumbo ping too big for the path."""
    book = fabric_runbook(fabric)
    run = AcceptanceRun.objects.create(fabric=fabric, kind='manual')
    rdma = book.section('rdma')
    for step, bandwidth in zip(
        rdma, ('perftest_write_bw_ok.txt', 'perftest_write_bw_low.txt', 'perftest_write_bw_ok.txt')
    ):
        upload_result(run, 'ib_write_bw', fixture(bandwidth), step.source, step.destination)
    upload_result(run, 'ib_send_lat', fixture('perftest_send_lat_ok.txt'), rdma[2].source, rdma[2].destination)
    pair = book.section('throughput')[0]
    upload_result(run, 'iperf3', fixture('iperf3_p8_ok.json'), pair.source, pair.destination)
    upload_result(run, 'ping', fixture('ping_jumbo_too_big.txt'), subject=book.section('mtu')[0].subject)
    return book, run


def expected_counts(book, run):
    """{section: (steps, passed, failed, not run)} read from the stored results, matched by the pair or ping each
    upload named (the step's subject): failed if one failed, else passed if one passed."""
    by_subject = {}
    for result in AcceptanceResult.objects.filter(run=run):
        by_subject.setdefault(result.subject, set()).add(result.status)
    counts = {}
    for key in SECTIONS:
        steps = book.section(key)
        states = [by_subject.get(s.subject, set()) for s in steps]
        failed = sum('failed' in s for s in states)
        passed = sum('passed' in s and 'failed' not in s for s in states)
        counts[key] = (len(steps), passed, failed, sum(not s for s in states))
    return counts


def summary_of(counts, noun, uploaded=True):
    steps, passed, failed, not_run = counts
    if not uploaded:
        return f'{steps} {noun}: judged by the script, not uploaded'
    parts = [f'{n} {label}' for n, label in ((passed, 'passed'), (failed, 'failed'), (not_run, 'not run')) if n]
    return f'{steps} {noun}: {", ".join(parts)}'


def page_height(page):
    page.wait_for_timeout(500)  # Bootstrap's collapse transition
    return page.evaluate('document.body.scrollHeight')


def test_acceptance_sections_fold_with_the_runs_counts(live_server, browser_page):  # noqa: F811
    load_demo()
    fabric = Fabric.objects.get(slug='ai-lab-fabric')
    Fabric.objects.filter(pk=fabric.pk).update(leaf_count=4, server_count=2 * fabric.server_count)
    fabric.refresh_from_db()
    assert (fabric.leaf_count, fabric.server_count) == (4, 8)
    book, run = store_some_results(fabric)
    counts = expected_counts(book, run)
    assert counts['rdma'][2] == 1 and counts['mtu'][2] == 1, counts  # the low bandwidth and the too-big ping fail
    page = browser_page
    _login(page, live_server)
    page.goto(f'{live_server.url}/plugins/aifabric/fabrics/{fabric.pk}/acceptance/')

    nouns = {'rdma': 'pairs', 'throughput': 'pairs', 'mtu': 'pings'}
    for key in ('rdma', 'throughput', 'mtu'):
        summary = page.locator(f'#runbook-{key} .aifabric-fold-summary').inner_text()
        assert summary == summary_of(counts[key], nouns[key]), key
    evpn = page.locator('#runbook-evpn .aifabric-fold-summary').inner_text()
    assert evpn == summary_of(counts['evpn'], 'checks', uploaded=False)
    for key in SECTIONS:  # open exactly where a step failed
        body = page.locator(f'#runbook-body-{key}')
        assert body.is_visible() == (counts[key][2] > 0), key
    folded = page_height(page)
    for key in SECTIONS:  # a folded section is its header alone
        if not counts[key][2]:
            assert page.locator(f'#runbook-{key}').evaluate('e => e.offsetHeight') < 80, key
    # a long step's commands (an RDMA pair's counters around it) show where the step failed, else fold
    long_steps = page.locator('#runbook-rdma details.aifabric-commands')
    assert long_steps.count() == counts['rdma'][0]
    assert page.locator('#runbook-rdma details.aifabric-commands[open]').count() == counts['rdma'][2]
    page.click('#acceptance-expand-all')
    expanded = page_height(page)
    print(f'Acceptance tab, 4 leaves / 8 servers: {folded} px folded, {expanded} px expanded')
    assert folded * 2 < expanded, (folded, expanded)
    page.click('#acceptance-fold-all')
    page.click('#runbook-throughput .aifabric-fold-toggle')  # a folded section opens on its header
    page.locator('#runbook-body-throughput').wait_for(state='visible')
    assert page.locator('#runbook-body-throughput tr[data-state="passed"]').count() == counts['throughput'][1]
