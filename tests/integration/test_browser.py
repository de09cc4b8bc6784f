"""A real browser (Debian's Chromium driven by Playwright) against a live NetBox: log in, open the demo fabric's
plan, apply it, and find the new devices and the topology."""

import os
import shutil

import pytest

from dcim.models import Cable, Device
from users.models import User

from netbox_aifabric.apply.seed import load_demo
from netbox_aifabric.facts.nos import HOST
from netbox_aifabric.models import Fabric

pytestmark = [pytest.mark.netbox, pytest.mark.django_db(transaction=True)]
CHROMIUM = shutil.which('chromium') or '/usr/bin/chromium'
CHROMIUM_ARGS = [
    '--no-sandbox',
    '--disable-gpu',
    '--disable-background-networking',
    '--disable-component-update',
    '--disable-sync',
    '--no-first-run',
]


@pytest.fixture
def browser_page():
    # Playwright's sync API runs an event loop in this thread; the test's own ORM calls are synchronous
    os.environ['DJANGO_ALLOW_ASYNC_UNSAFE'] = 'true'
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        page = browser.new_page(viewport={'width': 1400, 'height': 1000})
        yield page
        # Leave the page and let in-flight requests (NetBox's polling) finish before the live server goes away
        page.goto('about:blank')
        page.wait_for_timeout(1000)
        browser.close()
    os.environ.pop('DJANGO_ALLOW_ASYNC_UNSAFE', None)


def test_apply_the_demo_fabric_in_the_browser(live_server, browser_page):
    load_demo()
    User.objects.create_superuser('admin', 'admin@example.invalid', 'browser-test-password')
    fabric = Fabric.objects.get(slug='ai-lab-fabric')
    page = browser_page

    page.goto(f'{live_server.url}/login/')
    page.fill('input[name=username]', 'admin')
    page.fill('input[name=password]', 'browser-test-password')
    page.click('button[type=submit]')
    page.wait_for_load_state('networkidle')

    page.goto(f'{live_server.url}/plugins/aifabric/fabrics/{fabric.pk}/plan/')
    assert page.locator('h2:has-text("Changes an apply would make")').is_visible()
    # the diff expands per object type: the spine2-leaf2 uplink's /31 among the prefixes the apply creates
    page.click('a[href="#diff-ipam-prefix"]')
    page.locator('#diff-ipam-prefix td:has-text("10.255.2.20/31")').first.wait_for(state='visible')
    page.click('button:has-text("Apply")')
    page.wait_for_load_state('networkidle')
    # 0 updated: what the apply sets on the devices it creates (4 switches' primary and out-of-band IPs, 9 devices'
    # config contexts) is part of their creation (netbox_aifabric/ui/diff.py counts per object)
    assert page.locator('text=Applied: 174 created, 0 updated, 0 deleted, 0 unchanged.').is_visible()
    assert Device.objects.filter(site=fabric.site).count() == 9
    assert Cable.objects.count() == 21

    page.goto(f'{live_server.url}/plugins/aifabric/fabrics/{fabric.pk}/topology/')
    svg = page.locator('svg').first
    assert svg.is_visible()
    for name in ('ai-lab-fabric-spine1', 'ai-lab-fabric-leaf2', 'ai-lab-fabric-storage1'):
        assert page.locator(f'svg text:has-text("{name}")').count() == 1

    leaf = Device.objects.get(name='ai-lab-fabric-leaf1')
    page.goto(f'{live_server.url}{leaf.get_absolute_url()}')
    assert page.locator('h2:has-text("AI Fabric")').is_visible()


def _choose(page, name, *values):
    """Pick options of a NetBox dynamic (API-backed) select by value, as its TomSelect would."""
    page.eval_on_selector(
        f'select[name={name}]',
        """(el, values) => {
            for (const v of values) { el.add(new Option(String(v), String(v), true, true)); }
            el.dispatchEvent(new Event('change'));
        }""",
        list(values),
    )


def test_walk_the_wizard_for_the_guide_cluster(live_server, browser_page):
    from netbox_aifabric.models import EVPNTenant, QoSProfile, TrafficClass

    load_demo()
    User.objects.create_superuser('admin', 'admin@example.invalid', 'browser-test-password')
    site = Fabric.objects.get(slug='ai-lab-fabric').site
    page = browser_page
    page.goto(f'{live_server.url}/login/')
    page.fill('input[name=username]', 'admin')
    page.fill('input[name=password]', 'browser-test-password')
    page.click('button[type=submit]')
    page.wait_for_load_state('networkidle')

    # reachable from the AI Fabric menu
    assert page.locator('a[href="/plugins/aifabric/wizard/"]').count() >= 1
    page.goto(f'{live_server.url}/plugins/aifabric/wizard/')
    assert page.locator('text=VLANs local to each rack: a strong default').is_visible()
    page.fill('input[name=name]', 'Browser cluster')
    page.eval_on_selector('input[name=slug]', "el => { el.value = 'browser-cluster'; }")  # NetBox fills it too
    _choose(page, 'site', site.pk)
    page.check('input[name=design_option][value=evpn-vxlan]')
    page.click('button[name=_next]')
    page.wait_for_load_state('networkidle')

    # topology: the guide's sizes are the defaults
    assert page.input_value('input[name=server_count]') == '4'
    page.click('button[name=_next]')
    page.wait_for_load_state('networkidle')

    # pools: a typo is shown at its field, then fixed
    assert page.input_value('input[name=loopback_pool]') == '10.254.0.0/24'
    page.fill('input[name=loopback_pool]', '10.254.0.1/24')
    page.click('button[name=_next]')
    page.wait_for_load_state('networkidle')
    error = 'has host bits set: did you mean 10.254.0.0/24?'
    assert page.locator('#id_loopback_pool_errors', has_text=error).is_visible()  # at its field
    assert page.locator('#wizard-field-errors li', has_text=error).is_visible()  # and listed above the form
    page.fill('input[name=loopback_pool]', '10.254.0.0/24')
    page.click('button[name=_next]')
    page.wait_for_load_state('networkidle')

    _choose(page, 'traffic_classes', *TrafficClass.objects.values_list('pk', flat=True))
    _choose(page, 'qos_profile', QoSProfile.objects.get(slug='nvidia-cumulus-lossless').pk)
    _choose(page, 'tenants', EVPNTenant.objects.get(slug='ai-cluster').pk)
    page.click('button[name=_next]')
    page.wait_for_load_state('networkidle')
    assert page.locator('h2:has-text("Changes an apply would make")').is_visible()
    assert Fabric.objects.filter(slug='browser-cluster').count() == 0  # the preview wrote nothing

    # the browser's back and forward buttons lose nothing
    page.go_back()
    page.wait_for_load_state('networkidle')
    page.goto(f'{live_server.url}/plugins/aifabric/wizard/?step=design')
    assert page.input_value('input[name=name]') == 'Browser cluster'
    page.goto(f'{live_server.url}/plugins/aifabric/wizard/?step=preview')
    page.click('button[name=_apply]')
    page.wait_for_load_state('networkidle')
    assert page.locator('text=Fabric Browser cluster created and applied.').is_visible(), (
        page.url + page.inner_text('body')[:3000]
    )
    fabric = Fabric.objects.get(slug='browser-cluster')
    assert Device.objects.filter(name__startswith='browser-cluster-').count() == 9

    page.goto(f'{live_server.url}/plugins/aifabric/fabrics/{fabric.pk}/topology/')
    for name in ('browser-cluster-spine1', 'browser-cluster-leaf2', 'browser-cluster-gpu4'):
        assert page.locator(f'svg text:has-text("{name}")').count() == 1


def _login(page, live_server):
    User.objects.create_superuser('admin', 'admin@example.invalid', 'browser-test-password')
    page.goto(f'{live_server.url}/login/')
    page.fill('input[name=username]', 'admin')
    page.fill('input[name=password]', 'browser-test-password')
    page.click('button[type=submit]')
    page.wait_for_load_state('networkidle')


def _next(page):
    page.click('button[name=_next]')
    page.wait_for_load_state('networkidle')


def _design(page, live_server, site, name, slug):
    page.goto(f'{live_server.url}/plugins/aifabric/wizard/?reset=1')
    page.wait_for_load_state('networkidle')
    page.fill('input[name=name]', name)
    page.eval_on_selector('input[name=slug]', f"el => {{ el.value = '{slug}'; }}")
    _choose(page, 'site', site.pk)
    page.check('input[name=design_option][value=evpn-vxlan]')
    _next(page)


def test_wizard_outlines_errors_and_adds_a_traffic_class_inline(live_server, browser_page):
    """A field in error has NetBox's red outline (Bootstrap's is-invalid, as the browser draws it); the traffic
    classes' quick add creates a class in a modal and selects it, without leaving the wizard."""
    from netbox_aifabric.models import TrafficClass

    load_demo()
    page = browser_page
    _login(page, live_server)
    _design(page, live_server, Fabric.objects.get(slug='ai-lab-fabric').site, 'Outline cluster', 'outline-cluster')
    _next(page)  # topology: the defaults

    page.fill('input[name=loopback_pool]', '10.254.0.1/24')
    _next(page)
    field = page.locator('input[name=loopback_pool]')
    assert 'is-invalid' in field.get_attribute('class').split()
    # NetBox's stylesheet: the invalid border colour (#d63939), not the usual grey
    assert field.evaluate('el => getComputedStyle(el).borderTopColor') == 'rgb(214, 57, 57)'
    assert 'is-invalid' not in page.locator('input[name=p2p_pool]').get_attribute('class').split()
    page.fill('input[name=loopback_pool]', '10.254.0.0/24')
    _next(page)

    # intent: "+" beside the traffic classes opens NetBox's quick-add form in a modal
    page.click('select[name=traffic_classes] ~ button[title="Quick add"]')
    modal = page.locator('#htmx-modal-content')
    # NetBox prefixes the quick-add form's fields with quickadd-
    modal.locator('input[name=quickadd-name]').wait_for(state='visible')
    modal.locator('input[name=quickadd-name]').fill('Inference')
    modal.locator('input[name=quickadd-slug]').evaluate("el => { el.value = 'inference'; }")
    modal.locator('select[name=quickadd-purpose]').evaluate(
        "el => { el.value = 'user-access'; el.dispatchEvent(new Event('change')); }"
    )
    modal.locator('input[name=quickadd-vid]').fill('60')
    modal.locator('button[name=_quickadd]').click()
    page.wait_for_function(
        "() => Array.from(document.querySelector('select[name=traffic_classes]').selectedOptions)"
        ".some(o => o.textContent.includes('Inference'))"
    )
    created = TrafficClass.objects.get(slug='inference')
    assert created.vid == 60
    assert page.url.endswith('?step=intent')  # still in the wizard
    selected = page.eval_on_selector(
        'select[name=traffic_classes]', 'el => Array.from(el.selectedOptions).map(o => o.value)'
    )
    # the guide's five classes are preselected; the new one joins them
    from netbox_aifabric.facts.catalog import traffic_class_seed

    guide = TrafficClass.objects.filter(slug__in=[e['slug'] for e in traffic_class_seed()])
    assert sorted(selected) == sorted([str(tc.pk) for tc in guide] + [str(created.pk)])
    assert len(selected) == len(traffic_class_seed()) + 1


def test_wizard_with_nvue_to_rendered_configs(live_server, browser_page):
    """The newcomer's path: wizard → NVUE as the NOS → create and apply → a leaf's Render Config shows its NVUE
    config → the fabric's Configurations tab shows every switch rendered."""
    from netbox_aifabric.models import EVPNTenant, QoSProfile, TrafficClass

    load_demo()
    page = browser_page
    _login(page, live_server)
    _design(page, live_server, Fabric.objects.get(slug='ai-lab-fabric').site, 'NVUE cluster', 'nvue-cluster')
    # topology: NVIDIA Cumulus NVUE for the leaves (the spines follow)
    page.eval_on_selector('select[name=leaf_nos]', "el => { el.value = 'cumulus'; }")
    _next(page)
    _next(page)  # pools: the proposed free ones
    _choose(page, 'traffic_classes', *TrafficClass.objects.values_list('pk', flat=True))
    _choose(page, 'qos_profile', QoSProfile.objects.get(slug='nvidia-cumulus-lossless').pk)
    _choose(page, 'tenants', EVPNTenant.objects.get(slug='ai-cluster').pk)
    _next(page)
    page.click('button[name=_apply]', timeout=180_000)  # the apply runs in the request: 30-55 s on 2 busy cores
    page.wait_for_load_state('networkidle')
    assert page.locator('text=Fabric NVUE cluster created and applied.').is_visible(), page.inner_text('body')[:2000]

    fabric = Fabric.objects.get(slug='nvue-cluster')
    switches = fabric.spine_count + fabric.leaf_count
    hosts = fabric.server_count + fabric.storage_count  # each server's host config (netplan and its RDMA NIC)
    leaf = Device.objects.get(name='nvue-cluster-leaf1')
    assert leaf.platform.slug == 'cumulus'
    page.goto(f'{live_server.url}/dcim/devices/{leaf.pk}/render-config/')
    page.wait_for_load_state('networkidle')
    text = page.inner_text('body')
    assert '- set:' in text  # NVUE's startup.yaml
    assert 'hostname: nvue-cluster-leaf1' in text
    loopback = leaf.primary_ip4.address  # the plan's loopback of this leaf, from the wizard's pool
    assert f'{loopback}: {{}}' in text, text[:3000]

    page.goto(f'{live_server.url}/plugins/aifabric/fabrics/{fabric.pk}/configurations/')
    page.wait_for_load_state('networkidle')
    assert page.locator(f'text={switches + hosts} configurations rendered').is_visible()
    rows = page.locator('#fabric-configs tbody tr, #fabric-configs tr:has(td)')
    rendered_rows = [r for r in rows.all_inner_texts() if ' lines, ' in r]
    switch_rows = [r for r in rendered_rows if HOST.template_name not in r]
    assert len(rendered_rows) == switches + hosts and len(switch_rows) == switches == 4
    assert all('NVIDIA' in r or 'Cumulus' in r for r in switch_rows), switch_rows


def test_wizard_all_defaults_render_every_switch_with_closed_management(live_server, browser_page):
    """The newcomer's all-defaults path: a name and a site, then Next on every step as proposed → the
    preview shows no reason against "Create and apply" → one press disables the buttons ("Applying…") while the
    apply runs, a second press sends nothing → every switch renders, its management ACL only the proposed
    jump-host subnet (the second /28 of the guide's MGMT class)."""
    import json

    import netaddr

    from netbox_aifabric.apply.seed import load_config_templates, load_device_types
    from netbox_aifabric.facts.catalog import traffic_class_seed
    from netbox_aifabric.render.configs import ConfigRenderer, fabric_devices

    load_demo()
    load_config_templates()
    load_device_types()
    page = browser_page
    page.set_default_navigation_timeout(120_000)  # a shared 2-core machine: the live server's first pages are slow
    _login(page, live_server)
    _design(page, live_server, Fabric.objects.get(slug='ai-lab-fabric').site, 'Default cluster', 'default-cluster')
    assert page.input_value('select[name=leaf_nos]') == 'sonic'
    _next(page)  # topology as proposed
    mgmt = next(e for e in traffic_class_seed() if e['purpose'] == 'management')
    proposed = str(list(netaddr.IPNetwork(mgmt['prefix']).subnet(28))[1])
    assert page.input_value('input[name=jump_host_prefix]') == proposed
    _next(page)  # pools as proposed
    assert len(page.eval_on_selector('select[name=traffic_classes]', 'el => Array.from(el.selectedOptions)')) == 5
    _next(page)  # intent as proposed
    assert page.locator('#apply-reasons').count() == 0
    button = page.locator('#apply-button')
    assert button.is_enabled()
    posts = []
    page.on('request', lambda request: posts.append(request.url) if request.method == 'POST' else None)
    with page.expect_navigation(timeout=180_000):  # the apply runs in the request: 30-55 s on 2 busy cores
        # press, then read the page in the same task (a quiet machine answers before a separate read could run):
        # both buttons disabled, the pressed one says so, the note shown; then a second press (a second submit of
        # the form, as a double click gives, 100 ms later) is swallowed
        state = page.evaluate(
            """() => {
                const apply = document.getElementById('apply-button');
                const create = document.querySelector('button[name=_create]');
                apply.click();
                const state = {
                    apply: apply.disabled,
                    label: apply.textContent.trim(),
                    create: create.disabled,
                    busy: !document.getElementById('wizard-busy').classList.contains('d-none'),
                };
                // a later task, as a real second click is: the first POST is under way by then
                setTimeout(() => document.getElementById('wizard-create').requestSubmit(), 100);
                return state;
            }"""
        )
    assert state == {'apply': True, 'label': 'Applying…', 'create': True, 'busy': True}, state
    assert len([url for url in posts if '/wizard/' in url]) == 1, posts  # the second press sent nothing
    page.wait_for_load_state('networkidle')
    assert page.locator('text=Fabric Default cluster created and applied.').is_visible(), page.inner_text('body')[:2000]
    assert Fabric.objects.filter(slug='default-cluster').count() == 1

    fabric = Fabric.objects.get(slug='default-cluster')
    configs = [c for c in ConfigRenderer().render_all(fabric_devices(fabric)) if c.config_template is not None]
    hosts = [c for c in configs if c.config_template.name == HOST.template_name]
    switches = [c for c in configs if c not in hosts]
    assert len(switches) == fabric.spine_count + fabric.leaf_count == 4
    assert len(hosts) == fabric.server_count + fabric.storage_count
    assert all(c.rendered for c in hosts), [c.error for c in hosts]
    for config in switches:
        assert config.rendered, config.error
        db = json.loads(config.content)
        sources = [rule['SRC_IP'] for key, rule in db['ACL_RULE'].items() if key.startswith('AIFABRIC_MGMT|')]
        assert sources == [proposed], (config.device, sources)
        assert sorted(db['ACL_TABLE']['AIFABRIC_MGMT']['services']) == ['EXTERNAL_CLIENT', 'SNMP', 'SSH']

    page.goto(f'{live_server.url}/plugins/aifabric/fabrics/{fabric.pk}/configurations/')
    page.wait_for_load_state('networkidle')
    assert page.locator(f'text={len(configs)} configurations rendered').is_visible()
