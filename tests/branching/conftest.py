"""NetBox Branching tests: run by scripts/test with ``.dev/aifabric_test_branching.py`` (NetBox Branching enabled as
its README says), in a pytest process of their own. Without Branching enabled they stop the run, never skip."""

import pytest
from django.conf import settings


def pytest_collection_modifyitems(config, items):
    if items and 'netbox_branching' not in settings.PLUGINS:
        raise pytest.UsageError(
            'tests/branching needs NetBox Branching enabled: run it through scripts/test '
            '(NETBOX_CONFIGURATION=aifabric_test_branching)'
        )
