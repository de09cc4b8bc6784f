from io import StringIO

import pytest
from django.core.management import call_command
from django.test import TestCase

from dcim.models import Site
from ipam.models import Prefix

from netbox_aifabric.apply.seed import DEMO_POOLS, load_demo, load_qos_presets, load_traffic_classes
from netbox_aifabric.facts.catalog import traffic_class_seed
from netbox_aifabric.models import EVPNTenant, Fabric, QoSProfile, TrafficClass

pytestmark = pytest.mark.netbox


class SeedTestCase(TestCase):
    def test_presets_and_traffic_classes_load_twice_without_duplicates(self):
        out = StringIO()
        call_command('aifabric_load_presets', stdout=out)
        self.assertIn('10 created', out.getvalue())
        first = {p.slug: p.last_updated for p in QoSProfile.objects.all()}

        out = StringIO()
        call_command('aifabric_load_presets', stdout=out)
        self.assertEqual(out.getvalue().strip().splitlines()[0].split(':')[0], '10 already present')
        self.assertEqual(QoSProfile.objects.count(), 5)
        self.assertEqual(TrafficClass.objects.count(), 5)
        self.assertEqual({p.slug: p.last_updated for p in QoSProfile.objects.all()}, first)

    def test_preset_values_exactly_as_sourced(self):
        load_qos_presets()
        cumulus = QoSProfile.objects.get(slug='nvidia-cumulus-lossless')
        self.assertEqual(
            (
                cumulus.mode,
                cumulus.roce_dscp,
                cumulus.roce_priority,
                cumulus.roce_tc,
                cumulus.cnp_dscp,
                cumulus.cnp_priority,
                cumulus.cnp_tc,
                cumulus.pfc_priorities,
                cumulus.cable_length,
            ),
            ('lossless', [26], [3], [3], 48, 6, 6, [3], 100),
        )
        self.assertEqual(
            (cumulus.ecn_min_threshold, cumulus.ecn_max_threshold, cumulus.ecn_probability, cumulus.ecn_tcs),
            (150000, 1500000, 100, [0, 3]),
        )
        self.assertEqual((cumulus.strict_tcs, cumulus.dwrr_weights), ([6], {'0': 50, '3': 50}))
        self.assertEqual((cumulus.pfcwd_poll_interval, cumulus.pfcwd_detection_polls), (100, 3))

        lossy = QoSProfile.objects.get(slug='nvidia-cumulus-lossy')
        self.assertEqual((lossy.mode, lossy.pfc_priorities, lossy.roce_dscp, lossy.cnp_dscp), ('lossy', [], [26], 48))

        sonic = QoSProfile.objects.get(slug='sonic-default')
        self.assertEqual(
            (sonic.roce_dscp, sonic.roce_tc, sonic.pfc_priorities, sonic.cnp_tc), ([3, 4], [3, 4], [3, 4], 6)
        )
        self.assertEqual(
            (sonic.ecn_min_threshold, sonic.ecn_max_threshold, sonic.ecn_probability), (1048576, 2097152, 5)
        )
        self.assertEqual(
            (sonic.pfcwd_poll_interval, sonic.pfcwd_detection_time, sonic.pfcwd_restoration_time, sonic.pfcwd_action),
            (200, 200, 200, 'drop'),
        )
        self.assertEqual(sonic.dwrr_weights['3'], 15)
        self.assertEqual(sonic.dwrr_weights['0'], 14)

        apstra = QoSProfile.objects.get(slug='juniper-apstra-dcqcn')
        self.assertEqual(
            (apstra.roce_dscp, apstra.roce_priority, apstra.roce_tc, apstra.cnp_dscp, apstra.cnp_tc),
            ([26], [3], [4], 48, 3),
        )
        self.assertEqual(
            (apstra.ecn_threshold_unit, apstra.ecn_min_threshold, apstra.ecn_max_threshold), ('percent', 55, 90)
        )
        self.assertEqual(
            (apstra.pfcwd_poll_interval, apstra.pfcwd_detection_polls, apstra.pfcwd_restoration_time), (100, 2, 200)
        )

        tcp = QoSProfile.objects.get(slug='tcp-only')
        self.assertEqual((tcp.mode, tcp.pfc_priorities, tcp.ecn_enabled), ('none', [], False))
        for profile in QoSProfile.objects.all():
            profile.full_clean()  # every shipped preset passes our own validation
            self.assertTrue(profile.source)

    def test_guide_traffic_classes(self):
        load_traffic_classes()
        rows = list(TrafficClass.objects.values_list('name', 'vid', 'purpose', 'lossless'))
        self.assertEqual(
            rows,
            [
                ('MGMT', 10, 'management', False),
                ('USERS', 20, 'user-access', False),
                ('STORAGE', 30, 'storage', False),
                ('RDMA', 40, 'rdma', True),
                ('TELEMETRY', 50, 'telemetry', False),
            ],
        )
        storage = TrafficClass.objects.get(slug='storage')
        self.assertEqual([tc.slug for tc in storage.reachable_from.all()], ['rdma'])
        self.assertEqual(list(TrafficClass.objects.get(slug='mgmt').reachable_from.all()), [])

    def test_locally_edited_preset_is_kept_unless_forced(self):
        load_qos_presets()
        QoSProfile.objects.filter(slug='sonic-default').update(ecn_probability=7)
        report = load_qos_presets()
        self.assertEqual([p.slug for p in report.kept], ['sonic-default'])
        self.assertEqual(QoSProfile.objects.get(slug='sonic-default').ecn_probability, 7)
        report = load_qos_presets(force=True)
        self.assertEqual([p.slug for p in report.updated], ['sonic-default'])
        self.assertEqual(QoSProfile.objects.get(slug='sonic-default').ecn_probability, 5)

    def test_demo_loads_twice(self):
        out = StringIO()
        call_command('aifabric_load_demo', stdout=out)
        counts = (
            Site.objects.count(),
            Prefix.objects.count(),
            TrafficClass.objects.count(),
            QoSProfile.objects.count(),
            EVPNTenant.objects.count(),
            Fabric.objects.count(),
        )
        # prefixes: one per traffic class and one per demo pool (the jump-host subnet and the management network too)
        self.assertEqual(counts, (1, len(traffic_class_seed()) + len(DEMO_POOLS), 5, 5, 1, 1))
        fabric = Fabric.objects.get()
        self.assertEqual(
            (str(fabric.jump_host_prefix.prefix), str(fabric.management_pool.prefix)),
            ('192.0.2.16/28', '172.16.0.0/24'),
        )
        report = load_demo()
        self.assertEqual(report.created, [])
        # the command gave the fabric the NOS's shipped device types and the shape their ports hold:
        # it now differs from the seed's generic shape, and a second load keeps it (never overwrites an edit)
        self.assertEqual(report.kept, [fabric])
        fabric.refresh_from_db()
        self.assertIsNotNone(fabric.leaf_device_type)
        # 8 × 100G on the shipped ToR: 2 for the peer link, 3 for leaf1's RDMA NICs, the rest for the uplinks
        self.assertLessEqual(fabric.max_spines * fabric.max_parallel_uplinks, 8 - 2 - 3)
        self.assertEqual(
            counts,
            (
                Site.objects.count(),
                Prefix.objects.count(),
                TrafficClass.objects.count(),
                QoSProfile.objects.count(),
                EVPNTenant.objects.count(),
                Fabric.objects.count(),
            ),
        )

        fabric = Fabric.objects.get()
        self.assertEqual((fabric.site.name, fabric.status, fabric.design_option), ('AI Lab', 'draft', 'evpn-vxlan'))
        self.assertEqual(
            (fabric.spine_count, fabric.leaf_count, fabric.server_count, fabric.storage_count), (2, 2, 4, 1)
        )
        self.assertEqual(str(fabric.p2p_pool.prefix), '10.255.2.0/24')
        self.assertEqual(fabric.qos_profile.slug, 'nvidia-cumulus-lossless')
        self.assertEqual(fabric.traffic_classes.count(), 5)
        tenant = fabric.tenants.get()
        self.assertEqual([vni for vni, _ in tenant.get_vnis(fabric.l2vni_base)], [50001, 10020, 10030, 10040])
        self.assertEqual(str(TrafficClass.objects.get(slug='rdma').prefix.prefix), '10.40.0.0/24')
        fabric.full_clean()
