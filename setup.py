"""Packaging for netbox-aifabric.

The Django migrations live in the top-level ``migrations/`` folder and are mapped into the package as
``netbox_aifabric.migrations``; the Jinja2 device-config templates in the top-level ``templates/`` folder ship
inside the package as ``netbox_aifabric/device_templates``. Tool settings live in ``pyproject.toml``.
"""

from pathlib import Path

from setuptools import find_packages, setup

HERE = Path(__file__).parent
ABOUT = {}
exec((HERE / 'netbox_aifabric' / 'version.py').read_text(), ABOUT)

setup(
    name='netbox-aifabric',
    version=ABOUT['__version__'],
    description='NetBox plugin to design, number, configure and prove small AI/GPU cluster fabrics',
    long_description=(HERE / 'README.md').read_text(encoding='utf-8'),
    long_description_content_type='text/markdown',
    license='Apache-2.0',
    python_requires='>=3.12',
    packages=[
        *find_packages(include=['netbox_aifabric', 'netbox_aifabric.*']),
        'netbox_aifabric.migrations',
        'netbox_aifabric.device_templates',
    ],
    package_dir={
        'netbox_aifabric': 'netbox_aifabric',
        'netbox_aifabric.migrations': 'migrations',
        'netbox_aifabric.device_templates': 'templates',
    },
    package_data={
        'netbox_aifabric': [
            'templates/netbox_aifabric/**/*.html',
            'data/*.json',
            'data/device_types/*.yaml',
            'data/device_types/sonic/*.yaml',
        ],
        'netbox_aifabric.device_templates': ['**/*.j2', '**/*.md'],
    },
    include_package_data=False,
    # No `netbox` here: NetBox is installed from its tarball, git or image, with no `netbox` distribution in its
    # venv, so pip would install a second NetBox (and Django, ~100 packages) over the real one. The PluginConfig's
    # min_version/max_version check NetBox's version. What remains is what the planner, the facts and the CLI import
    # outside NetBox, at ranges NetBox 4.7's own pins satisfy (tests/unit/test_layout.py checks both).
    # hier-config: the EOS and FRR config comparison (checks/config_diff.py); dulwich: the intended configs' Git
    # repository (render/git_store.py), pure Python, no git binary needed on the NetBox host.
    install_requires=['netaddr>=1.0', 'PyYAML>=6.0', 'hier-config>=3.7,<4', 'dulwich>=1.2'],
    extras_require={
        'pynetbox': ['pynetbox>=7.4'],
        'benchmark': ['pyavd>=6.0'],
        # Pinned: CI runs `ruff format --check` and `mypy`, so a new ruff (or mypy, pytest, hypothesis ...) release
        # must not change the result without a change here. The versions of everything else in the dev venv (what
        # these pull in, NetBox's own requirements) are in constraints-dev.txt, which scripts/test installs with.
        # Bump deliberately: edit the pin here and there, scripts/test reinstalls (its stamp hashes both files), fix
        # what the new versions report, commit together.
        'dev': [
            'netbox==4.7.3',  # the development NetBox (PyPI's `netbox`); users install the plugin into theirs
            'ansible==14.5.0',  # bundles netbox.netbox (nb_inventory) for examples/ansible and its test
            'pytz==2026.6',  # nb_inventory needs it and ansible does not declare it
            'pynetbox==7.9.0',
            'nornir==3.6.0',  # examples/nornir and tests/integration/test_nornir.py
            # tests/branching (NetBox Labs' plugin, under its NetBox Limited Use License: installed, never copied)
            'netboxlabs-netbox-branching==1.2.2',
            'pytest==9.2.0',
            'pytest-django==4.14.0',
            'pytest-xdist==3.8.0',  # scripts/test -m pure runs the pure tier on every core (-n auto)
            'ruff==0.17.6',
            'mypy==2.4.1',
            'types-PyYAML==6.0.12.20261122',
            'mkdocs==1.6.1',
            'hypothesis==6.170.17',
            'playwright==1.65.2',
            'pyavd==6.4.0',
            'build==1.6.1',  # tests/unit/test_layout.py builds the sdist as a release does
        ],
    },
    entry_points={'console_scripts': ['netbox-aifabric = netbox_aifabric.intake.cli:main']},
    classifiers=[
        'Framework :: Django',
        'Programming Language :: Python :: 3.12',
        'Programming Language :: Python :: 3.13',
    ],
    zip_safe=False,
)
