from io import StringIO

import pytest
from django.core.management import call_command
from django.test import TestCase

pytestmark = pytest.mark.netbox


class MigrationsTestCase(TestCase):
    def test_no_missing_migrations(self):
        out = StringIO()
        try:
            call_command('makemigrations', 'netbox_aifabric', '--check', '--dry-run', stdout=out, stderr=out)
        except SystemExit:
            self.fail(f'Model changes without a migration:\n{out.getvalue()}')
