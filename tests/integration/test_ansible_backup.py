"""examples/ansible/backup.yml: its syntax (ansible-playbook --syntax-check), and a real run of its FRR path against
real FRR daemons.

The FRR run boots one leaf of the routed guide (its frr.conf rendered with the shipped template) in a network
namespace of its own: zebra, staticd and bgpd with their vty sockets in a private directory, the config loaded as
FRR's start-up loads it (``vtysh -b``), as the lab does (netbox_aifabric/lab/runner.py). The inventory host is that
leaf with ``ansible_connection: local`` and ``frr_vtysh`` = ``ip netns exec <ns> vtysh --vty_socket <dir>``: the
playbook's own FRR task runs ``vtysh -c 'show running-config'`` against those daemons. Then: ``--check`` writes no
file; a run writes ``<backup_dir>/<leaf>.conf`` with FRR's running config (the leaf's hostname and ``router bgp``
lines); a second run reports no change; a line configured by hand is the one change of the next run.

Needs root, network namespaces and FRR (netbox_aifabric.lab's preflight): skipped with the reason otherwise, and
with AIFABRIC_SKIP_FRR=1. DB-free (pure tier; the FRR run is labelled lab).
"""

import ast
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pytest
import yaml

from netbox_aifabric.facts.nos import NOS_REGISTRY
from netbox_aifabric.lab.fabric import render_frr
from netbox_aifabric.lab.netns import (
    CRASHLOG_DIR,
    PREFIX,
    daemon_path,
    delete_namespace,
    remove_stale,
    run,
    unavailable_reason,
    vtysh_path,
)
from tests.render_fixtures import guide_contexts

pytestmark = pytest.mark.pure

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = ROOT / 'examples' / 'ansible'
PLAYBOOK = EXAMPLES / 'backup.yml'
BIN = Path(sys.executable).parent
FRR_USER = 'frr'  # Debian's FRR package: the daemons drop privileges to it


def ansible_env(tmp_path):
    """The environment ansible-playbook runs in: the venv's tools, its own Ansible home and temp, no NetBox."""
    return {
        **os.environ,
        'PATH': f'{BIN}:{os.environ.get("PATH", "")}',
        'ANSIBLE_HOME': str(tmp_path / 'ansible-home'),
        'ANSIBLE_LOCAL_TEMP': str(tmp_path / 'ansible-tmp'),
        'ANSIBLE_PYTHON_INTERPRETER': sys.executable,
        'ANSIBLE_LOCALHOST_WARNING': 'false',
        'ANSIBLE_NOCOLOR': 'true',
        'ANSIBLE_CONFIG': str(EXAMPLES / 'ansible.cfg'),
    }


def playbook(*args, env):
    return subprocess.run(
        [str(BIN / 'ansible-playbook'), *args],
        env=env, capture_output=True, text=True, timeout=300, cwd=EXAMPLES, check=False,
    )  # fmt: skip


def test_the_backup_playbook_parses(tmp_path):
    """ansible-playbook --syntax-check: the YAML, the plays and tasks, the modules it names (arista.eos.eos_command
    from the bundled collections) resolve. Against the shipped inventory's settings but an empty one (no NetBox)."""
    inventory = tmp_path / 'hosts.yml'
    inventory.write_text('all:\n  hosts: {}\n')
    done = playbook('-i', str(inventory), str(PLAYBOOK), '--syntax-check', env=ansible_env(tmp_path))
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    assert 'playbook: ' in done.stdout


def test_every_platform_has_its_extension():
    """The playbook's map covers each ansible_network_os the shipped inventory composes, with the NOS's file
    extension of netbox_aifabric/facts/nos.py."""
    play = yaml.safe_load(PLAYBOOK.read_text())[0]
    compose = yaml.safe_load((EXAMPLES / 'aifabric.netbox.yml').read_text())['compose']['ansible_network_os']
    network_os = ast.literal_eval(compose.split('[platform.slug]')[0])  # the compose expression's dict literal
    expected = {network_os[nos.platform_slug]: nos.file_extension for nos in NOS_REGISTRY}
    assert play['vars']['backup_extensions'] == expected
    assert set(play['vars']['backup_commands']) == set(expected) - {'arista.eos.eos'}


# The FRR run


def frr_unavailable():
    """Why the FRR run cannot happen here ('' when it can)."""
    if os.environ.get('AIFABRIC_SKIP_FRR') == '1':
        return 'AIFABRIC_SKIP_FRR=1'
    if not shutil.which('vtysh', path=os.pathsep.join([os.environ.get('PATH', ''), '/usr/bin', '/bin'])):
        return 'FRR is not installed (no vtysh): apt-get install frr'
    return unavailable_reason()  # root, iproute2, the daemons, network namespaces


@pytest.fixture(autouse=True, scope='module')
def netbox_config_cache():
    """render_jinja2 reads NetBox's configuration from its cache: warm it without the database (as test_lab.py)."""
    from django.core.cache import cache

    cache.add('config', {}, None)
    cache.add('config_version', None, None)


@pytest.fixture
def frr_leaf():
    """``(name, config, namespace, folder)``: a leaf of the routed guide running in FRR in a namespace of its own,
    named as the lab names its namespaces (``remove_stale`` clears them after a crash); torn down after."""
    reason = frr_unavailable()
    if reason:
        pytest.skip(f'FRR run: {reason}')
    remove_stale()
    contexts = guide_contexts('routed')
    name = next(n for n, ctx in sorted(contexts.items()) if ctx['role'] == 'leaf')
    config = render_frr(contexts)[name]
    ns = f'{PREFIX}{os.getpid()}-backup'
    folder = Path(tempfile.mkdtemp(prefix=f'{PREFIX}{os.getpid()}-'))
    folder.chmod(0o755)
    shutil.chown(folder, FRR_USER, FRR_USER)
    (folder / 'frr.conf').write_text(config)
    (folder / 'vtysh.conf').write_text('')
    (folder / 'empty.conf').write_text('')
    daemons = []
    run(['ip', 'netns', 'add', ns])
    try:
        run(['ip', '-n', ns, 'link', 'set', 'lo', 'up'])
        profile = re.search(r'^frr defaults (\S+)$', config, re.M)
        for daemon in ('zebra', 'staticd', 'bgpd'):
            # the box is named as the switch (a UTS namespace per daemon): FRR's daemons take their hostname from the
            # system, not from frr.conf's `hostname` line (vtysh -b does not pass it on; FRR 8.4 here), and their
            # running config shows it
            cmd = ['ip', 'netns', 'exec', ns, 'unshare', '--uts', 'sh', '-c', 'hostname "$0" && exec "$@"', name]
            cmd += [daemon_path(daemon), '--config_file', str(folder / 'empty.conf')]
            cmd += ['--pid_file', str(folder / f'{daemon}.pid'), '--vty_socket', str(folder)]
            cmd += ['--socket', str(folder / 'zserv.api'), '--vty_port', '0', '--log', f'file:{folder / daemon}.log']
            cmd += ['--profile', profile[1]] if profile else []
            daemons.append(
                subprocess.Popen(cmd, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            )
            wait_for(folder / ('zserv.api' if daemon == 'zebra' else f'{daemon}.vty'))
        wait_for(folder / 'zebra.vty')
        boot = run(
            ['ip', 'netns', 'exec', ns, vtysh_path(), '--config_dir', str(folder), '--vty_socket', str(folder), '-b'],
            check=False,
        )
        assert boot.returncode == 0, boot.stdout + boot.stderr
        yield name, config, ns, folder
    finally:
        for proc in daemons:  # ours to reap: unreaped, they would keep delete_namespace waiting for them
            proc.terminate()
        for daemon, proc in zip(('zebra', 'staticd', 'bgpd'), daemons):
            proc.wait(timeout=10)
            shutil.rmtree(CRASHLOG_DIR / f'{daemon}.{proc.pid}', ignore_errors=True)  # the pid is the daemon's (exec)
        delete_namespace(ns)
        shutil.rmtree(folder, ignore_errors=True)
        assert not Path(f'/run/netns/{ns}').exists()


def wait_for(path, seconds=10):
    deadline = time.monotonic() + seconds
    while not path.exists():
        assert time.monotonic() < deadline, f'{path} did not appear in {seconds} s'
        time.sleep(0.02)


def recap(output):
    """``{host: changed}`` from ansible-playbook's PLAY RECAP."""
    found = {}
    for line in output.splitlines():
        fields = line.split()
        if len(fields) > 2 and fields[1] == ':' and any(f.startswith('changed=') for f in fields):
            found[fields[0]] = int(next(f for f in fields if f.startswith('changed=')).split('=')[1])
    return found


@pytest.mark.lab
def test_the_frr_path_backs_up_the_running_config(frr_leaf, tmp_path):
    name, config, ns, folder = frr_leaf
    vtysh = ['ip', 'netns', 'exec', ns, vtysh_path(), '--config_dir', str(folder), '--vty_socket', str(folder)]
    host = {
        'ansible_connection': 'local',
        'ansible_network_os': 'frr.frr.frr',
        'ansible_python_interpreter': sys.executable,
        'frr_vtysh': vtysh,
    }
    inventory = tmp_path / 'hosts.yml'
    inventory.write_text(yaml.safe_dump({'all': {'hosts': {name: host}}}))
    backups = tmp_path / 'backups'
    args = ('-i', str(inventory), str(PLAYBOOK), '-e', f'backup_dir={backups}')
    env = ansible_env(tmp_path)
    started = time.monotonic()

    checked = playbook(*args, '--check', '--diff', env=env)
    assert checked.returncode == 0, checked.stdout[-3000:] + checked.stderr[-3000:]
    assert not backups.exists()  # neither the directory nor the file
    assert recap(checked.stdout) == {name: 2}  # the directory and the file it would create
    assert f'router bgp {asn(config)}' in checked.stdout  # --diff: the fetched config ran in check mode

    written = playbook(*args, env=env)
    assert written.returncode == 0, written.stdout[-3000:] + written.stderr[-3000:]
    assert [p.name for p in backups.iterdir()] == [f'{name}.conf']
    backup = (backups / f'{name}.conf').read_text()
    running = run([*vtysh, '-c', 'show running-config']).stdout
    assert backup == running  # what FRR shows, byte for byte (with its trailing newline)
    assert f'\nhostname {name}\n' in backup
    assert f'\nrouter bgp {asn(config)}\n' in backup
    assert recap(written.stdout) == {name: 2}  # the directory and the file

    again = playbook(*args, env=env)
    assert again.returncode == 0, again.stdout[-3000:] + again.stderr[-3000:]
    assert recap(again.stdout) == {name: 0}
    assert (backups / f'{name}.conf').read_text() == backup

    # A change made on the switch by hand: check mode shows it and leaves the file; the next run writes it
    by_hand = 'ip prefix-list BY-HAND seq 5 permit 192.0.2.0/24'
    run([*vtysh, '-c', 'configure terminal', '-c', by_hand])
    rechecked = playbook(*args, '--check', '--diff', env=env)
    assert recap(rechecked.stdout) == {name: 1} and f'+{by_hand}' in rechecked.stdout
    assert (backups / f'{name}.conf').read_text() == backup
    rewritten = playbook(*args, env=env)
    assert recap(rewritten.stdout) == {name: 1}
    assert f'\n{by_hand}\n' in (backups / f'{name}.conf').read_text()
    print(f'five ansible-playbook runs against FRR in {time.monotonic() - started:.1f} s')


def asn(config):
    return re.search(r'^router bgp (\d+)$', config, re.M)[1]
