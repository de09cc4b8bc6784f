"""The traffic matrix, walked once on the guide's cluster (the demo fabric): its traffic matrix with per-leaf and
per-uplink load and its BOM with the tier the guide would pick, in the UI, over REST and as CSV.

The expectations come from the input, not from the matrix: the two flows entered here, the fabric's sizes and design,
and where the plan cabled each server (its bond members and RDMA NIC). Two flows:

- every GPU server sends ``BOND_GBPS`` to the storage node over its bond (no class: lossy, the bonds). Bonds span
  the leaf pair, so this traffic never leaves a leaf: half of each bond's load on each leaf's downlinks;
- every GPU server sends ``RDMA_GBPS`` (bursty, the lossless RDMA class) split over the other GPU servers, over the
  RDMA NICs: each RDMA NIC sits on one leaf, so a pair on two different leaves crosses the spines, spread evenly
  over the source leaf's uplinks (ECMP) and arriving evenly over the destination leaf's.
"""

import csv
import html
import io
import re
from collections import defaultdict

import pytest
from django.urls import reverse

from utilities.testing import TestCase

from netbox_aifabric.apply.seed import load_demo
from netbox_aifabric.intake.plan import plan_of
from netbox_aifabric.models import Fabric, TrafficClass, TrafficFlow

pytestmark = pytest.mark.netbox

BOND_GBPS = 10
RDMA_GBPS = 30
ROW = re.compile(r'<tr[^>]*>\s*<td>([^<]+)</td><td>([^<]+)</td><td>([^<]+)</td><td>([^<]+)</td>')


def expected_loads(plan):
    """``{(kind, leaf): (up, down)}`` for each leaf's downlinks and its uplinks (per uplink), and the Gbit/s of each
    flow that crosses leaves, from the two flows and the plan's cabling alone."""
    gpus = [a for a in plan.attachments if a.kind == 'gpu']
    storage = [a for a in plan.attachments if a.kind == 'storage']
    uplinks = defaultdict(int)
    for link in plan.links:
        if link.kind == 'uplink':
            uplinks[link.b_node] += 1  # the leaf is the b end of an uplink
    downlinks = defaultdict(lambda: [0.0, 0.0])  # leaf → [up, down] over its server ports
    for gpu in gpus:  # bond flow: each GPU's bond spreads over its members; the storage bonds receive it all
        for leaf, _port in gpu.members:
            downlinks[leaf][0] += BOND_GBPS / len(gpu.members)
    for node in storage:
        for leaf, _port in node.members:
            downlinks[leaf][1] += BOND_GBPS * len(gpus) / len(storage) / len(node.members)
    rdma_leaf = {gpu.server: gpu.rdma[0][0] for gpu in gpus}
    share = RDMA_GBPS / (len(gpus) - 1)  # each GPU splits its RDMA traffic over the other GPUs
    cross, per_uplink = 0.0, defaultdict(lambda: [0.0, 0.0])  # leaf → [up, down] on each of its uplinks
    for src in gpus:
        downlinks[rdma_leaf[src.server]][0] += RDMA_GBPS
        downlinks[rdma_leaf[src.server]][1] += RDMA_GBPS  # it receives share × (GPUs - 1) = RDMA_GBPS
        for dst in gpus:
            a, b = rdma_leaf[src.server], rdma_leaf[dst.server]
            if dst is not src and a != b:
                cross += share
                per_uplink[a][0] += share / uplinks[a]
                per_uplink[b][1] += share / uplinks[b]
    loads = {('leaf-downlinks', leaf): tuple(v) for leaf, v in downlinks.items()}
    loads |= {('uplink', leaf): tuple(v) for leaf, v in per_uplink.items()}
    return loads, {'bond': 0.0, 'rdma': cross}


def leaf_of(kind, element):
    """The leaf an element's load belongs to: the element itself, or an uplink's leaf end (``leaf:port – …``)."""
    return element.split(':')[0] if kind == 'uplink' else element


class DoneWhenTestCase(TestCase):
    @classmethod
    def setUpTestData(cls):
        load_demo()
        cls.fabric = Fabric.objects.get(slug='ai-lab-fabric')
        rdma = TrafficClass.objects.get(name='RDMA')
        TrafficFlow.objects.create(fabric=cls.fabric, source_group='gpu', destination_group='storage', gbps=BOND_GBPS)
        TrafficFlow.objects.create(
            fabric=cls.fabric,
            source_group='gpu',
            destination_group='gpu',
            gbps=RDMA_GBPS,
            burstiness='bursty',
            source_class=rdma,
            destination_class=rdma,
        )

    def setUp(self):
        super().setUp()
        self.add_permissions('netbox_aifabric.view_fabric')
        self.plan = plan_of(self.fabric)
        self.loads, self.cross = expected_loads(self.plan)
        self.assertGreater(self.cross['rdma'], 0, 'some RDMA pairs sit on two leaves: the uplinks carry load')

    def ui(self, tab, query=''):
        url = reverse(f'plugins:netbox_aifabric:fabric_{tab}', kwargs={'pk': self.fabric.pk})
        response = self.client.get(url + query)
        self.assertHttpStatus(response, 200)
        return response

    def rest(self, action, query=''):
        url = reverse(f'plugins-api:netbox_aifabric-api:fabric-{action}', kwargs={'pk': self.fabric.pk})
        response = self.client.get(url + query)  # the session: NetBox's API takes it as the UI does
        self.assertHttpStatus(response, 200)
        return response

    def assert_loads(self, rows, where):
        """``rows``: (kind, element, up, down); each leaf's downlinks and each of its uplinks as expected."""
        seen = {}
        for kind, element, up, down in rows:
            if kind in ('leaf-downlinks', 'uplink'):
                key = (kind, leaf_of(kind, element))
                self.assertAlmostEqual(float(up), self.loads[key][0], places=3, msg=f'{where}: {kind} {element} up')
                self.assertAlmostEqual(float(down), self.loads[key][1], places=3, msg=f'{where}: {kind} {element} down')
                seen.setdefault(key, 0)
                seen[key] += 1
        leaves = {n.name for n in self.plan.nodes if n.role == 'leaf'}
        self.assertEqual({leaf for kind, leaf in seen if kind == 'leaf-downlinks'}, leaves, f'{where}: every leaf')
        uplinks = sum(1 for link in self.plan.links if link.kind == 'uplink')
        self.assertEqual(sum(n for (kind, _), n in seen.items() if kind == 'uplink'), uplinks, f'{where}: uplinks')

    def test_the_traffic_matrix_per_leaf_and_uplink_in_the_ui_rest_and_csv(self):
        gpus = self.fabric.server_count
        # REST
        data = self.rest('traffic').data
        totals = [(f['total_gbps'], f['cross_leaf_gbps']) for f in data['flows']]
        self.assertEqual(totals, [(gpus * BOND_GBPS, 0), (gpus * RDMA_GBPS, pytest.approx(self.cross['rdma']))])
        self.assert_loads([(x['kind'], x['element'], x['up'], x['down']) for x in data['loads']], 'REST')
        # UI: the Traffic tab's tables, by section, and one chart bar per leaf and per uplink
        page = self.ui('traffic').content.decode()
        sections = {
            'leaf-downlinks': page.split('Leaf downlinks (all server ports of a leaf)')[1].split('</table>')[0],
            'uplink': page.split('Uplinks (ECMP over the spines)')[1].split('</table>')[0],
        }
        rows = [(kind, html.unescape(m[0]), m[2], m[3]) for kind, part in sections.items() for m in ROW.findall(part)]
        self.assert_loads(rows, 'Traffic tab')
        self.assertEqual(page.count('class="bar"'), len(rows))
        # CSV: the tab's export and REST's ?format=csv, the same rows
        export = self.ui('traffic', '?export=csv')
        self.assertEqual(export['Content-Type'], 'text/csv; charset=utf-8')
        self.assertIn(f'{self.fabric.slug}-traffic.csv', export['Content-Disposition'])
        table = list(csv.DictReader(io.StringIO(export.content.decode())))
        self.assert_loads([(r['kind'], r['element'], r['up'], r['down']) for r in table], 'Traffic CSV')
        as_csv = self.rest('traffic', '?format=csv')
        self.assertTrue(as_csv['Content-Type'].startswith('text/csv'))
        self.assertEqual(as_csv.content, export.content)

    def test_the_bom_with_the_guides_tier_in_the_ui_rest_and_csv(self):
        # the guide's tier from the fabric's input: one leaf pair, 25/100G, 4 GPU servers, two spines → Balanced
        self.assertEqual((self.fabric.leaf_count, self.fabric.spine_count), (2, 2))
        reasons = [
            'one rack: one leaf pair of 2 leaves',
            f'links up to {self.fabric.rdma_nic_speed}G (25/100GbE leaves and uplinks)',
            f'{self.fabric.server_count} GPU servers (the guide: 4–8)',
            f'{self.fabric.spine_count} spines: the guide puts two spines on its first design, so spines alone do not '
            'make a fabric Expandable',
            f'{self.fabric.rdma_nic_count * (self.fabric.server_count + self.fabric.storage_count)} RDMA NIC ports in '
            "one rack: the guide's own 4-node cluster has them",
        ]
        switches = self.fabric.spine_count + self.fabric.leaf_count
        management = self.fabric.server_count + self.fabric.storage_count + switches  # BMCs and management ports
        # REST
        data = self.rest('bom').data
        self.assertEqual((data['tier']['name'], data['tier_reasons']), ('Balanced', reasons))
        self.assertEqual(data['tier']['budget'], '€12,000–€35,000 / $12,000–$35,000')
        lines = [
            (x['category'], x['item'], x['part_number'], x['quantity'], x['spares'], x['total']) for x in data['lines']
        ]
        self.assertEqual(sum(q for c, _i, _p, q, _s, _t in lines if c == 'switch'), switches + 1)  # + management
        self.assertEqual(sum(q for c, _i, _p, q, _s, _t in lines if c == 'cable'), len(self.plan.links) + management)
        self.assertEqual(sum(q for c, _i, _p, q, _s, _t in lines if c == 'licence'), switches)  # EVPN: one per switch
        # UI: the same lines, the tier, its planning range, the rule and what decided it
        page = self.ui('bom').content.decode()
        self.assertIn("The guide's tier: Balanced", page)
        self.assertIn('Planning range (not a price): €12,000–€35,000 / $12,000–$35,000', page)
        self.assertIn(''.join(f'<li>{html.escape(r)}</li>' for r in reasons), page)
        cells = re.findall(
            r'<tr><td>([^<]*)</td><td>([^<]*)</td><td>([^<]*)</td><td>(\d+)</td><td>(\d+)</td><td>(\d+)</td>', page
        )
        self.assertEqual(
            [(c, html.unescape(i), '' if p == '—' else p, int(q), int(s), int(t)) for c, i, p, q, s, t in cells], lines
        )
        # CSV: the tab's export and REST's, the same lines
        for response in (self.ui('bom', '?export=csv'), self.rest('bom', '?format=csv')):
            self.assertTrue(response['Content-Type'].startswith('text/csv'))
            *table, tier = csv.DictReader(io.StringIO(response.content.decode()))
            rows = [
                (r['category'], r['item'], r['part_number'], int(r['quantity']), int(r['spares']), int(r['total']))
                for r in table
            ]
            self.assertEqual(rows, lines)
            self.assertEqual((tier['category'], tier['item']), ('tier', 'Balanced'))
            self.assertTrue(
                tier['note'].startswith('planning range (not a price): €12,000–€35,000 / $12,000–$35,000; ')
            )
            self.assertTrue(all(reason in tier['note'] for reason in reasons))
