"""``netbox aifabric_install_scripts``: the shipped compliance report installed as NetBox 4.7 stores script modules
(a file in the scripts storage, a ScriptModule row with its Script classes), idempotently, then run by NetBox's own
script runner (``runscript``) with its log lines linked to the objects."""

import io
import json
import tempfile
from pathlib import Path

import pytest
from django.conf import settings
from django.core.management import call_command
from django.test import override_settings

from core.models import Job
from extras.models import Script, ScriptModule
from utilities.testing import TestCase

from netbox_aifabric.checks.rules import RULES
from netbox_aifabric.management.commands.aifabric_install_scripts import MODULE_NAME, shipped_source
from tests.integration.base import DEMO_SKIPS
from tests.integration.test_compliance import LEAF1, applied_demo, break_by_hand

pytestmark = pytest.mark.netbox


def install():
    out = io.StringIO()
    call_command('aifabric_install_scripts', stdout=out)
    return out.getvalue()


class InstallScriptsTestCase(TestCase):
    @classmethod
    def setUpTestData(cls):
        cls.fabric = applied_demo()

    def setUp(self):
        super().setUp()
        self.root = tempfile.TemporaryDirectory()
        self.addCleanup(self.root.cleanup)
        # STORAGES re-set too: Django then drops its cached 'scripts' storage, which NetBox loads modules through
        self.settings = override_settings(SCRIPTS_ROOT=self.root.name, STORAGES=dict(settings.STORAGES))
        self.settings.enable()
        self.addCleanup(self.settings.disable)

    def file(self):
        return Path(self.root.name) / MODULE_NAME

    def test_installs_once_then_changes_nothing(self):
        first = install()
        self.assertIn('file written; module registered', first)
        self.assertEqual(self.file().read_bytes(), shipped_source())
        (module,) = ScriptModule.objects.filter(file_path=MODULE_NAME)
        self.assertEqual(list(module.scripts.values_list('name', flat=True)), ['FabricCompliance'])
        modified = self.file().stat().st_mtime_ns
        second = install()
        self.assertIn(f'{MODULE_NAME} is up to date: nothing changed', second)
        self.assertEqual(self.file().stat().st_mtime_ns, modified)
        self.assertEqual(ScriptModule.objects.filter(file_path=MODULE_NAME).count(), 1)
        self.assertEqual(Script.objects.filter(module=module).count(), 1)

    def test_an_edited_file_is_put_back(self):
        install()
        self.file().write_text('# edited by hand\n')
        self.assertIn('file updated', install())
        self.assertEqual(self.file().read_bytes(), shipped_source())
        self.assertEqual(ScriptModule.objects.filter(file_path=MODULE_NAME).count(), 1)

    def test_the_installed_report_runs_in_netbox_with_linked_log_lines(self):
        install()
        self.user.is_superuser = True
        self.user.save()
        port = break_by_hand(self.fabric, self.user)
        call_command(
            'runscript',
            'aifabric_compliance.FabricCompliance',
            data=json.dumps({'fabric': self.fabric.pk}),
            user=self.user.username,
            stdout=io.StringIO(),
        )
        script = Script.objects.get(module__file_path=MODULE_NAME, name='FabricCompliance')
        job = Job.objects.filter(object_id=script.pk).latest('created')
        self.assertEqual(job.status, 'completed')
        tests = job.data['tests']
        self.assertEqual(sum(t['success'] for t in tests.values()), len(RULES) - 1 - len(DEMO_SKIPS))
        self.assertEqual(tests['test_1_drift']['failure'], 1)
        (_time, _level, obj, url, message) = next(e for e in tests['test_1_drift']['log'] if e[1] == 'failure')
        self.assertEqual((obj, url), (f'{LEAF1} {port.name}', port.get_absolute_url()))
        self.assertIn('drift-edited', message)
