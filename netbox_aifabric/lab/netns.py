"""Linux network namespaces, veth pairs and FRR daemons for the lab (host side; needs root, iproute2 and FRR).

Every namespace the lab creates is named ``<PREFIX><owner pid>-<n>``: a run knows its own, and a later run removes
those of a run whose process is gone (a crash, a ``--keep``). Nothing is ever created in the host's namespace: veth
pairs are created inside a switch's namespace with the peer end moved straight into the other's.
"""

import os
import re
import shutil
import signal
import subprocess
import tempfile
import time
from pathlib import Path

__all__ = (
    'DAEMON_DIRS',
    'PREFIX',
    'LabUnavailable',
    'daemon_path',
    'kernel_lacks',
    'kill_pids',
    'netns_pids',
    'own_namespaces',
    'remove_stale',
    'run',
    'run_in',
    'unavailable_reason',
    'vtysh_path',
)

PREFIX = 'aflab-'
DAEMON_DIRS = ('/usr/lib/frr', '/usr/libexec/frr', '/usr/sbin')  # Debian/Ubuntu, RHEL/Fedora, others
CRASHLOG_DIR = Path('/var/tmp/frr')  # FRR's zlog creates <daemon>.<pid> here; hard-coded in lib/zlog.c
_NAME = re.compile(rf'^{re.escape(PREFIX)}(?P<pid>\d+)-\S+$')


class LabUnavailable(RuntimeError):
    """The lab cannot run on this host (not root, no iproute2, no FRR, no network namespaces): says what to do."""


def _which(name):
    return shutil.which(name, path=os.pathsep.join([os.environ.get('PATH', ''), '/usr/sbin', '/usr/bin', '/sbin']))


def daemon_path(name):
    return next((f'{d}/{name}' for d in DAEMON_DIRS if os.access(f'{d}/{name}', os.X_OK)), None)


def vtysh_path():
    return _which('vtysh')


def run(cmd, *, timeout=30, check=True, input=None):
    """Run cmd (a list); its CompletedProcess. check: raise with the command's output when it fails."""
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, input=input, stdin=None)
    if check and proc.returncode != 0:
        raise RuntimeError(f'{" ".join(cmd)}: exit code {proc.returncode}: {(proc.stderr or proc.stdout).strip()}')
    return proc


def run_in(ns, cmd, **kwargs):
    return run([_which('ip'), 'netns', 'exec', ns, *cmd], **kwargs)


def unavailable_reason() -> str:
    """Why the lab cannot run on this machine ('' when it can): what ``preflight`` names."""
    try:
        preflight()
    except LabUnavailable as e:
        return str(e)
    return ''


def preflight(daemons=('zebra', 'staticd', 'bgpd')):
    """Raise LabUnavailable naming what is missing."""
    if os.geteuid() != 0:
        raise LabUnavailable('the lab needs root (network namespaces, veth pairs, FRR daemons): run it as root')
    missing = [tool for tool in ('ip', 'ping') if not _which(tool)]
    if missing:
        raise LabUnavailable(f'missing {", ".join(missing)}: apt-get install iproute2 iputils-ping')
    if not vtysh_path() or not all(daemon_path(d) for d in daemons):
        raise LabUnavailable(f'FRR is not installed ({", ".join(("vtysh", *daemons))}): apt-get install frr')
    probe = f'{PREFIX}{os.getpid()}-probe'
    made = run([_which('ip'), 'netns', 'add', probe], check=False)
    if made.returncode != 0:
        raise LabUnavailable(f'cannot create a network namespace: {made.stderr.strip()}')
    run([_which('ip'), 'netns', 'del', probe], check=False)


# What the lab would build with each driver, as one probe command inside a throw-away namespace (the 802.1Q probe
# puts a VLAN on a veth made first: a VLAN needs a parent)
_DRIVER_PROBES = {
    'vrf': [['link', 'add', 'p-vrf', 'type', 'vrf', 'table', '10']],
    'bonding': [['link', 'add', 'p-bond', 'type', 'bond']],
    'dummy': [['link', 'add', 'p-dummy', 'type', 'dummy']],
    '8021q': [
        ['link', 'add', 'p-veth0', 'type', 'veth', 'peer', 'name', 'p-veth1'],
        ['link', 'add', 'link', 'p-veth0', 'name', 'p-veth0.10', 'type', 'vlan', 'id', '10'],
    ],
}


def kernel_lacks() -> frozenset[str]:
    """The drivers of ``_DRIVER_PROBES`` this host's kernel lacks, each probed by creating its device in a namespace
    of its own (deleted after). Needs root (``preflight`` first)."""
    ip = _which('ip')
    lacks = set()
    for driver, commands in _DRIVER_PROBES.items():
        probe = f'{PREFIX}{os.getpid()}-probe-{driver}'
        run([ip, 'netns', 'add', probe], check=False)
        try:
            if any(run([ip, '-n', probe, *cmd], check=False).returncode != 0 for cmd in commands):
                lacks.add(driver)
        finally:
            run([ip, 'netns', 'del', probe], check=False)
    return frozenset(lacks)


def own_namespaces(pid=None):
    """The lab's namespaces on this host (of the run ``pid`` when given)."""
    names = []
    for line in run([_which('ip'), 'netns', 'list'], check=False).stdout.splitlines():
        name = line.split()[0] if line.split() else ''
        found = _NAME.match(name)
        if found and (pid is None or int(found['pid']) == pid):
            names.append(name)
    return names


def netns_pids(ns):
    out = run([_which('ip'), 'netns', 'pids', ns], check=False).stdout
    return [int(p) for p in out.split() if p.isdigit()]


def kill_pids(pids, grace=3.0):
    """SIGTERM the pids, SIGKILL those still there after ``grace`` seconds; remove FRR's crash-log folders."""
    pids = [p for p in pids if p and p != os.getpid()]
    names = {}
    for pid in pids:
        try:
            names[pid] = Path(f'/proc/{pid}/comm').read_text().strip()
            os.kill(pid, signal.SIGTERM)
        except (ProcessLookupError, FileNotFoundError):
            pass
    deadline = time.monotonic() + grace
    while time.monotonic() < deadline and any(Path(f'/proc/{p}').exists() for p in pids):
        time.sleep(0.05)
    for pid in pids:
        try:
            os.kill(pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
    for pid, name in names.items():
        shutil.rmtree(CRASHLOG_DIR / f'{name}.{pid}', ignore_errors=True)


def delete_namespace(ns):
    kill_pids(netns_pids(ns))
    run([_which('ip'), 'netns', 'del', ns], check=False)


def remove_stale():
    """Remove the namespaces (and the processes in them) of lab runs whose process is gone; their names."""
    stale = []
    for ns in own_namespaces():
        pid = int(_NAME.match(ns)['pid'])
        if pid != os.getpid() and not Path(f'/proc/{pid}').exists():
            delete_namespace(ns)
            stale.append(ns)
    for folder in Path(tempfile.gettempdir()).glob(f'{PREFIX}*-*'):  # the run folders (frr.conf, logs, sockets)
        found = re.match(rf'^{re.escape(PREFIX)}(\d+)-', folder.name)
        if found and int(found[1]) != os.getpid() and not Path(f'/proc/{found[1]}').exists():
            shutil.rmtree(folder, ignore_errors=True)
            stale.append(str(folder))
    return stale
