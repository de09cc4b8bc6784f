"""The template tests render with NetBox's ``render_jinja2``, which reads NetBox's configuration (``get_config()``:
``JINJA_FILTERS``, ``JINJA_ENVIRONMENT_PARAMS``). NetBox keeps that configuration in its cache; when the cache is cold
(a fresh Redis, or these tests run alone before any database test), ``Config()`` queries ``ConfigRevision``: a database
access the pure tests may not make (``RuntimeError: Database access not allowed``).

The fixture warms the cache the way NetBox itself does for a database without a ConfigRevision (``config`` {} and
``config_version`` None, see ``netbox.config.Config._populate_from_db``), and only when it is cold (``cache.add``): a
configuration NetBox cached from a real revision is left alone.
"""

import pytest


@pytest.fixture(autouse=True, scope='session')
def netbox_config_cache():
    from django.core.cache import cache

    cache.add('config', {}, None)
    cache.add('config_version', None, None)
