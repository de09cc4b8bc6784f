"""No internal names shown to people: every fabric tab and the wizard's preview, for the demo fabric, an
MLAG design, a fabric over its leaf maximum and one whose leaf ASN range is exhausted, show no pool or field
identifier of the planner in their visible text (tags, scripts and styles stripped: an identifier inside a URL or an
attribute is for machines). The identifiers are read from the planner's own names, not listed here."""

import html
import re

import pytest
from django.template import Context, Template
from django.test import TestCase

from netbox_aifabric.intake.plan import plan_of
from netbox_aifabric.intake.validation import SPEC_FIELDS
from netbox_aifabric.models import Fabric, TrafficClass
from netbox_aifabric.planner import pool_needs
from netbox_aifabric.planner.guide import GUIDE_ASN, GUIDE_POOLS
from netbox_aifabric.planner.labels import identifiers, pool_label
from netbox_aifabric.planner.pools import AsnPool
from netbox_aifabric.planner.racks import rack_subnet_reason
from netbox_aifabric.ui.pages import fabric_pages
from tests.integration.test_wizard import WizardBase, url

pytestmark = pytest.mark.netbox

TAGS = re.compile(r'(?s)<[^>]*>')
HIDDEN = re.compile(r'(?is)<(script|style|template)\b.*?</\1\s*>|<!--.*?-->')


def visible_text(page: str) -> str:
    """What a person reads on ``page``: the text between the tags, scripts and styles dropped."""
    text = re.sub(r'\s+', ' ', html.unescape(TAGS.sub(' ', HIDDEN.sub(' ', page))))
    return re.sub(r' ([:;,])', r'\1', text)


def leaked(page: str, names) -> list[str]:
    """The identifiers of ``names`` that ``page`` shows as text (a whole word: ``fabric-p2p``, a rule's name, is not
    ``p2p``)."""
    text = visible_text(page)
    return sorted(n for n in names if re.search(rf'(?<![\w\-/.:]){re.escape(n)}(?![\w\-:])', text))


def planner_identifiers() -> frozenset[str]:
    """The planner's pool names and field paths that are not plain words, and the Fabric fields its errors name."""
    classes = tuple(TrafficClass.objects.values_list('name', flat=True))
    names = {*identifiers(classes), *pool_needs(1, 1, 1), AsnPool(1, 1).name, *SPEC_FIELDS, *SPEC_FIELDS.values()}
    return frozenset(n for n in names if re.search(r'[_.:0-9]', n))


class CheckerTestCase(TestCase):
    """The checker's negative control: an identifier put back on a page is caught, one in an attribute is not."""

    def test_an_identifier_shown_is_flagged(self):
        page = Template('<table><tr data-pool="{{ name }}"><td>{{ name }}</td></tr></table>').render(
            Context({'name': 'leaf_asn'})
        )
        self.assertEqual(leaked(page, {'leaf_asn', 'p2p'}), ['leaf_asn'])
        self.assertEqual(leaked('<code>maximums.leaves</code> = 8', {'maximums.leaves'}), ['maximums.leaves'])

    def test_an_identifier_in_an_attribute_script_or_rule_name_is_not(self):
        page = Template(
            '<tr data-pool="{{ name }}"><td>{{ label }}</td></tr><a href="/x?pool={{ name }}">x</a>'
            '<script>const pool = "{{ name }}";</script><span>fabric-p2p</span>'
        ).render(Context({'name': 'leaf_asn', 'label': pool_label('leaf_asn')}))
        self.assertEqual(leaked(page, {'leaf_asn', 'p2p'}), [])


class PagesTestCase(WizardBase):
    def assert_no_identifiers(self, response, where):
        self.assertEqual(response.status_code, 200, where)
        self.assertEqual(leaked(response.content.decode(), self.names), [], where)
        return visible_text(response.content.decode())

    def walk_tabs(self, fabric):
        texts = {}
        for name, page in fabric_pages(fabric):
            texts[name] = self.assert_no_identifiers(self.client.get(page), f'{fabric.slug} {name}')
        return texts

    def setUp(self):
        super().setUp()
        self.names = planner_identifiers()
        self.assertGreater(len(self.names), 40)

    def test_the_demo_fabrics_tabs(self):
        texts = self.walk_tabs(self.demo)
        low, high = GUIDE_ASN['leaves']
        self.assertIn(f'Leaf ASN range {low}-{high}', texts['plan'])  # the pool table: the label, then the range
        self.assertIn(f'Point-to-point link subnets {GUIDE_POOLS["p2p_pool"][0]}', texts['plan'])

    def test_a_fabric_over_its_leaf_maximum(self):
        leaves = self.demo.max_leaves + 2
        Fabric.objects.filter(pk=self.demo.pk).update(leaf_count=leaves)
        texts = self.walk_tabs(self.demo)
        expected = f'{leaves} leaves declared; the numbering has room for at most {self.demo.max_leaves} leaves'
        self.assertIn(expected, texts['allocations'])

    def test_a_fabric_whose_leaf_asn_range_is_exhausted(self):
        """Every ASN of the range held by removed leaves in the last apply's record: the pages say which range, once,
        in words."""
        low, high = GUIDE_ASN['leaves']
        first = self.demo.max_leaves + 1
        pins = {f'asn:leaf:{first + i}': str(asn) for i, asn in enumerate(range(low, high + 1))}
        record = {'fabric_id': self.demo.pk, 'fabric': self.demo.slug, 'allocations': pins}
        Fabric.objects.filter(pk=self.demo.pk).update(applied_allocations=record)
        texts = self.walk_tabs(self.demo)
        self.assertIn(f'Leaf ASN range: leaf ASN range {low}–{high} is exhausted', texts['allocations'])
        self.assertEqual(texts['allocations'].count(str(low)), 1)

    def test_the_wizard_preview_of_each_design(self):
        for design in ('evpn-vxlan', 'mlag', 'routed'):
            with self.subTest(design=design):
                self.client.get(f'{url("design")}&reset=1')
                self.walk(design={'design_option': design})
                response = self.client.get(url('preview'))
                text = self.assert_no_identifiers(response, f'preview {design}')
                self.assertIn('Leaf ASN range', text)
                racks = [(v, r) for v in response.context['plan'].vlans for r in v.racks]
                self.assertEqual(bool(racks), design != 'evpn-vxlan')
                switches = response.content.decode().split('id="allocations-nodes"', 1)[1].split('</table>', 1)[0]
                self.assertEqual('>VTEP<' in switches, design == 'evpn-vxlan')  # no VTEP column without VTEPs
                for vlan, rack in racks:  # each per-rack subnet says why its size
                    self.assertIn(rack_subnet_reason(vlan, rack), text)

    def test_a_routed_fabrics_allocations_say_why_each_rack_subnet_has_its_size(self):
        Fabric.objects.filter(pk=self.demo.pk).update(design_option='routed', leaf_count=4)
        texts = self.walk_tabs(self.demo)
        plan = plan_of(Fabric.objects.get(pk=self.demo.pk))
        racks = [(v, r) for v in plan.vlans for r in v.racks]
        self.assertGreater(len({r.rack for _, r in racks}), 1)
        for vlan, rack in racks:
            self.assertIn(rack_subnet_reason(vlan, rack), texts['allocations'])
