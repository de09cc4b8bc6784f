"""Screenshots of the plugin's real pages for docs/images (headless Debian Chromium driven by Playwright).

Usage: start NetBox (scripts/run, or a runserver with DEBUG = False so the debug toolbar stays out of the picture),
then run (Playwright comes with the ``dev`` extra)
``.venv/bin/python scripts/screenshots.py http://127.0.0.1:8000 "$(cat .dev/admin-password)" docs/images [NAMES]``,
NAMES being a comma-separated selection of the pages below (default: all).
"""

import sys

from playwright.sync_api import sync_playwright

base, password, outdir = sys.argv[1], sys.argv[2], sys.argv[3]
only = set(sys.argv[4].split(',')) if len(sys.argv) > 4 else None
pages = [
    ('fabric-detail', '/plugins/aifabric/fabrics/?q=AI+Lab', True),
    ('fabric-plan', '/plugins/aifabric/fabrics/1/plan/', False),
    ('fabric-apply', '/plugins/aifabric/fabrics/1/plan/', False),
    ('fabric-topology', '/plugins/aifabric/fabrics/1/topology/', False),
    ('traffic-classes', '/plugins/aifabric/traffic-classes/', False),
    ('qos-profile-detail', '/plugins/aifabric/qos-profiles/?slug=nvidia-cumulus-lossless', True),
    ('evpn-tenant-detail', '/plugins/aifabric/evpn-tenants/?slug=ai-cluster', True),
    ('validation-error', None, False),
    ('fabric-allocations', '/plugins/aifabric/fabrics/1/allocations/', False),
    ('fabric-nodes', '/plugins/aifabric/fabrics/1/nodes/', False),
    ('fabric-configs', '/plugins/aifabric/fabrics/1/configurations/', False),
    ('fabric-security', '/plugins/aifabric/fabrics/1/security/', False),
    ('fabric-compliance', '/plugins/aifabric/fabrics/1/compliance/', False),
    ('fabric-compliance-filtered', '/plugins/aifabric/fabrics/1/compliance/?severity=warning&family=drift', False),
    ('fabric-traffic', '/plugins/aifabric/fabrics/1/traffic/', False),
    ('fabric-lab', '/plugins/aifabric/fabrics/1/lab/', False),
    ('fabric-bom', '/plugins/aifabric/fabrics/1/bom/', False),
    ('fabric-acceptance', '/plugins/aifabric/fabrics/1/acceptance/', False),
    ('wizard', None, False),
    # the wizard's fields in error, breakouts, the quick add; then an NVUE fabric created and applied from the wizard,
    # its leaf's Render Config, the Configurations tab and the leaf's Config Context tab
    ('wizard-fields', None, False),
    ('wizard-nvue', None, False),
    # the wizard's proposals (NOS, jump hosts, the guide's classes) and the preview's reasons next to the button
    ('wizard-defaults', None, False),
    # the Plan tab's apply button with the telemetry services that have no collector beside it
    ('fabric-plan-observability', '/plugins/aifabric/fabrics/1/plan/', False),
]


def choose(page, name, values):
    """Pick options of a NetBox dynamic select (TomSelect over the API) by value."""
    page.eval_on_selector(
        f'select[name={name}]',
        '(el, vs) => { for (const v of vs) { el.add(new Option(String(v), String(v), true, true)); } }',
        [str(v) for v in values],
    )


def walk_wizard(page, outdir):
    """The wizard for a second copy of the guide's cluster: design, a pools error at its field, the preview."""
    page.goto(base + '/plugins/aifabric/wizard/?reset=1')
    page.wait_for_load_state('networkidle')
    page.fill('input[name=name]', 'Rack 2 cluster')
    page.eval_on_selector('input[name=slug]', "el => { el.value = 'rack-2-cluster'; }")
    page.click('.ts-control >> nth=0')
    page.wait_for_timeout(1500)
    page.keyboard.press('Enter')
    page.check('input[name=design_option][value=evpn-vxlan]')
    page.screenshot(path=f'{outdir}/wizard-design.png', full_page=True)
    print('wizard-design', page.url)
    page.click('button[name=_next]')
    page.wait_for_load_state('networkidle')
    page.click('button[name=_next]')
    page.wait_for_load_state('networkidle')
    correct = page.input_value('input[name=p2p_pool]')
    page.fill('input[name=p2p_pool]', page.input_value('input[name=loopback_pool]'))
    page.click('button[name=_next]')
    page.wait_for_load_state('networkidle')
    page.screenshot(path=f'{outdir}/wizard-pools-error.png', full_page=True)
    print('wizard-pools-error', page.url)
    page.fill('input[name=p2p_pool]', correct)
    page.click('button[name=_next]')
    page.wait_for_load_state('networkidle')
    for name in ('traffic_classes', 'tenants', 'qos_profile'):
        page.click(f'select[name={name}] + .ts-wrapper .ts-control')
        page.wait_for_timeout(1500)
        for _ in range(5 if name == 'traffic_classes' else 1):
            page.keyboard.press('Enter')
            page.wait_for_timeout(300)
        page.keyboard.press('Escape')
    page.click('button[name=_next]')
    page.wait_for_load_state('networkidle')
    page.screenshot(path=f'{outdir}/wizard-preview.png', full_page=True)
    print('wizard-preview', page.url)


def step(page):
    page.click('button[name=_next]')
    page.wait_for_load_state('networkidle')


def design(page, name, slug):
    page.goto(base + '/plugins/aifabric/wizard/?reset=1')
    page.wait_for_load_state('networkidle')
    page.fill('input[name=name]', name)
    page.eval_on_selector('input[name=slug]', f"el => {{ el.value = '{slug}'; }}")
    page.click('.ts-control >> nth=0')
    page.wait_for_timeout(1500)
    page.keyboard.press('Enter')
    page.check('input[name=design_option][value=evpn-vxlan]')
    page.check('input[name=bfd][type=checkbox]')
    step(page)


def walk_wizard_defaults(page, outdir):
    """All defaults: the topology step's NOS and device types, the pools step's proposed jump hosts, the intent step
    preselected; then the jump-host subnet emptied: the preview with the reason next to the disabled button."""
    design(page, 'Defaults cluster', 'defaults-cluster')
    page.screenshot(path=f'{outdir}/wizard-defaults-topology.png', full_page=True)
    print('wizard-defaults-topology', page.url)
    step(page)
    page.screenshot(path=f'{outdir}/wizard-defaults-pools.png', full_page=True)
    print('wizard-defaults-pools', page.url)
    page.fill('input[name=jump_host_prefix]', '')
    step(page)
    page.screenshot(path=f'{outdir}/wizard-defaults-intent.png', full_page=True)
    print('wizard-defaults-intent', page.url)
    step(page)
    page.locator('#apply-reasons').scroll_into_view_if_needed()
    page.screenshot(path=f'{outdir}/wizard-apply-reasons.png')
    print('wizard-apply-reasons', page.url)


def walk_wizard_fields(page, outdir):
    """BFD, an SN2700 leaf with a breakout of lanes faster than the port (the error at its field, outlined), then the
    traffic classes' quick add open in its modal."""
    design(page, 'Breakout cluster', 'breakout-cluster')
    page.click('select[name=leaf_device_type] + .ts-wrapper .ts-control')
    page.keyboard.type('SN2700')
    page.wait_for_timeout(2000)
    page.keyboard.press('Enter')
    page.keyboard.press('Escape')
    for name, value in (('max_spines', '2'), ('max_parallel_uplinks', '1'), ('storage_count', '0')):
        page.fill(f'input[name={name}]', value)
    page.fill('input[name=leaf_breakouts]', 'swp1:4x50G, swp2..swp8:4x25G')
    step(page)
    page.locator('#id_leaf_breakouts').scroll_into_view_if_needed()
    page.screenshot(path=f'{outdir}/wizard-breakouts-error.png')
    print('wizard-breakouts-error', page.url)
    page.fill('input[name=leaf_breakouts]', 'swp1..swp8:4x25G')
    step(page)
    step(page)
    page.click('select[name=traffic_classes] ~ button[title="Quick add"]')
    page.locator('input[name=quickadd-name]').wait_for(state='visible')
    page.fill('input[name=quickadd-name]', 'Inference')
    page.fill('input[name=quickadd-vid]', '60')
    page.wait_for_timeout(500)
    page.screenshot(path=f'{outdir}/wizard-quick-add.png')
    print('wizard-quick-add', page.url)


def walk_wizard_nvue(page, outdir):
    """An NVUE fabric from the wizard, created and applied; its leaf's Render Config and Config Context tabs and the
    fabric's Configurations tab."""
    design(page, 'NVUE cluster', 'nvue-cluster')
    page.select_option('select[name=leaf_nos]', 'cumulus', force=True)
    step(page)
    step(page)
    for name in ('traffic_classes', 'tenants', 'qos_profile'):
        page.click(f'select[name={name}] + .ts-wrapper .ts-control')
        page.wait_for_timeout(1500)
        for _ in range(5 if name == 'traffic_classes' else 1):
            page.keyboard.press('Enter')
            page.wait_for_timeout(300)
        page.keyboard.press('Escape')
    step(page)
    page.click('button[name=_apply]', timeout=300_000)
    page.wait_for_load_state('networkidle')
    fabric_url = page.url
    page.goto(base + '/dcim/devices/?q=nvue-cluster-leaf1')
    page.click('table tbody tr td a[href*="/dcim/devices/"]')
    page.wait_for_load_state('networkidle')
    leaf_url = page.url
    page.goto(leaf_url + 'render-config/')
    page.wait_for_load_state('networkidle')
    page.screenshot(path=f'{outdir}/wizard-render-config.png')
    print('wizard-render-config', page.url)
    page.goto(fabric_url + 'configurations/')
    page.wait_for_load_state('networkidle')
    page.screenshot(path=f'{outdir}/wizard-configurations.png', full_page=True)
    print('wizard-configurations', page.url)
    page.goto(leaf_url + 'config-context/?format=json')
    page.wait_for_load_state('networkidle')
    page.click('#aifabric-section-bgp button')
    page.wait_for_timeout(800)
    page.evaluate('window.scrollTo(0, 0)')
    page.screenshot(path=f'{outdir}/device-context.png', full_page=True)
    print('device-context', page.url)


with sync_playwright() as p:
    browser = p.chromium.launch(
        executable_path='/usr/bin/chromium',
        args=[
            '--no-sandbox',
            '--disable-gpu',
            '--disable-background-networking',
            '--disable-component-update',
            '--disable-sync',
            '--no-first-run',
        ],
    )
    context = browser.new_context(viewport={'width': 1400, 'height': 1000})
    # a DEBUG dev server (scripts/run) shows Django's debug toolbar: keep it out of the picture
    context.add_init_script(
        "new MutationObserver(() => document.getElementById('djDebugRoot')?.remove())"
        '.observe(document, {childList: true, subtree: true});'
    )
    page = context.new_page()
    page.goto(base + '/login/')
    page.fill('input[name=username]', 'admin')
    page.fill('input[name=password]', password)
    page.click('button[type=submit]')
    page.wait_for_load_state('networkidle')
    for name, url, follow_first in pages:
        if only is not None and name not in only:
            continue
        if name == 'wizard':
            walk_wizard(page, outdir)
            continue
        if name == 'wizard-fields':
            walk_wizard_fields(page, outdir)
            continue
        if name == 'wizard-nvue':
            walk_wizard_nvue(page, outdir)
            continue
        if name == 'wizard-defaults':
            walk_wizard_defaults(page, outdir)
            continue
        if name == 'fabric-plan-observability':
            page.goto(base + url)
            page.wait_for_load_state('networkidle')
            page.locator('#observability-warning').scroll_into_view_if_needed()
            page.screenshot(path=f'{outdir}/{name}.png')
            print(name, page.url, page.title())
            continue
        if name == 'validation-error':
            page.goto(base + '/plugins/aifabric/qos-profiles/add/')
            page.fill('input[name=name]', 'Bad lossy')
            page.eval_on_selector('input[name=slug]', "el => { el.value = 'bad-lossy'; }")
            page.select_option('select[name=mode]', 'lossy')
            page.fill('input[name=roce_dscp]', '26')
            page.fill('input[name=roce_priority]', '3')
            page.fill('input[name=roce_tc]', '3')
            page.fill('input[name=pfc_priorities]', '3')
            page.fill('input[name=cnp_dscp]', '26')
            page.click('button[name=_create]')
            page.wait_for_load_state('networkidle')
            page.locator('#id_roce_dscp').scroll_into_view_if_needed()
            page.screenshot(path=f'{outdir}/{name}.png')
            print(name, page.url, page.title())
            continue
        else:
            page.goto(base + url)
            page.wait_for_load_state('networkidle')
            if follow_first:
                page.click('table tbody tr td a[href*="/plugins/aifabric/"]')
                page.wait_for_load_state('networkidle')
        page.screenshot(path=f'{outdir}/{name}.png', full_page=name != 'fabric-apply')
        print(name, page.url, page.title())
    browser.close()
