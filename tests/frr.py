"""Prove that an FRR configuration (an integrated ``frr.conf``) is accepted by FRR's own parser, without daemons.

``check_frr_config(text)`` writes the text to a private temporary directory and runs FRR's dry runs (``--dryrun``,
``-C``) on it, every stage every time, so one call reports every problem:

1. ``vtysh --dryrun --inputfile frr.conf``: the grammar of every daemon at once. vtysh holds the command
   definitions of all daemons (zebra, bgpd, staticd, ospfd, ...) and walks the nested nodes (``router bgp`` →
   ``address-family``, ``vrf``, ``interface``, ``route-map``) as it does when it loads frr.conf at boot. It exits 2
   and prints ``line N: % Unknown command[..]: <the line>`` for every line it cannot parse: an unknown command, a
   bad argument (``remote-as bogus``, ``10.0.0.300/32``), a command in the wrong node (``advertise-all-vni``
   outside ``address-family l2vpn evpn``). Grammar only: the handlers live in the daemons and do not run here.
2. ``zebra --dryrun``, ``staticd --dryrun``, ``ospfd --dryrun``, ``bfdd --dryrun`` and ``bgpd --dryrun``: each daemon
   reads the whole file with its real command handlers (the code that applies the config at runtime) and exits before
   its event loop starts: it never peers, connects, serves its vty or installs a route. This catches what the grammar
   cannot: a neighbour put in a peer-group that does not exist (bgpd: ``% Configure the peer-group first``, ``Command
   returned Warning Config Failed on config line N``), one L3VNI in two VRFs (zebra: ``VNI 50001 is already
   configured as L3-VNI``). A daemon exits 0 in dry-run mode whatever it read (lib/libfrr.c), so its output is read
   instead: a handler's ``%`` message, a ``... on config line N`` error or a northbound validation error fails the
   check. ``No such command`` lines are dropped: each daemon sees the other daemons' lines as unknown, the grammar is
   stage 1's job.

Isolation: the pid files, vty sockets and the zserv socket the daemons would use are in the temporary directory,
so nothing talks to an FRR running on the machine. bgpd runs with ``--bgp_port 0`` (without it the dry run binds
and listens on port 179) and ``--skip_runas``. zebra and staticd need root (they drop privileges to the ``frr`` user
at start; as another user they exit 1): not root, those two are skipped and the output says so. zebra runs in a
new, empty network namespace (``unshare --net``) when the kernel allows it, else in the machine's: in dry-run mode
it only reads the kernel's tables (strace: RTM_GET* dumps, no RTM_NEW*). strace of bgpd: no AF_INET socket. A daemon
leaves a crash-log directory ``/var/tmp/frr/<daemon>.<pid>`` (hard-coded in lib/zlog.c); the check removes it. Each
command runs in its own process group, killed when the 30 s of the whole check are over (``ok`` false). A ``log
syslog`` line in the text makes the daemons log their messages to the machine's syslog.

Not caught (FRR accepts them at runtime too): references to route-maps or prefix-lists that are not defined,
interfaces missing from the kernel, anything the daemons only check when they talk to each other.

Not used: ``frr-reload.py --test`` runs the same vtysh grammar check, then needs running daemons (``show
running-config``) for its diff. Real daemons in a network namespace would add only the runtime interplay, for
start-up, sockets and teardown; the dry runs execute the same handlers in about 0.1 s each.

Measured with Debian 12's FRR 8.4.4 (package ``frr`` 8.4.4-1.1~deb12u2): the whole check takes about 0.3 s.
"""

import functools
import os
import re
import shutil
import signal
import subprocess
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

__all__ = ('FrrResult', 'check_frr_config', 'frr_available', 'frr_version', 'without_top_block')

TIMEOUT = 30  # seconds, for the whole check
DAEMON_DIRS = ('/usr/lib/frr', '/usr/libexec/frr', '/usr/sbin')  # Debian/Ubuntu, RHEL/Fedora, others
ROOT_DAEMONS = ('zebra', 'staticd', 'ospfd', 'bfdd')  # their dry runs need root (privileges drop to the frr user)
DAEMONS = (*ROOT_DAEMONS, 'bgpd')
CRASHLOG_DIR = Path('/var/tmp/frr')  # FRR's zlog creates <daemon>.<pid> here; hard-coded in lib/zlog.c

# A daemon's failures while reading the file: the handler's own message (vty output, starts with %), lib/vty.c's
# "<what> on config line N: <line>" (except "No such command", see the docstring), the northbound's errors.
_LINE_ERROR = re.compile(r'\] (?P<what>.+?) on config line (?P<line>\d+): ')
_NB_ERROR = re.compile(r'error processing configuration change|failed to validate candidate configuration')


@dataclass
class FrrResult:
    """ok: every stage accepted the text. output: every stage's command line, output and exit code.

    command: the first stage that rejected the text, else the vtysh grammar check; commands: all stages run.
    """

    ok: bool
    output: str
    command: list[str]
    commands: list[list[str]] = field(default_factory=list)


def _vtysh():
    return shutil.which('vtysh', path=os.pathsep.join([os.environ.get('PATH', ''), '/usr/bin', '/bin']))


def _daemon(name):
    return next((f'{d}/{name}' for d in DAEMON_DIRS if os.access(f'{d}/{name}', os.X_OK)), None)


def frr_available() -> bool:
    """FRR's vtysh and the zebra, staticd and bgpd daemons are installed (none needs to run)."""
    return _vtysh() is not None and all(_daemon(name) for name in DAEMONS)


@functools.cache
def frr_version() -> str:
    """FRR's version, e.g. '8.4.4' (from ``bgpd --version``), or '' when FRR is missing."""
    bgpd = _daemon('bgpd')
    if not bgpd:
        return ''
    out = subprocess.run([bgpd, '--version'], capture_output=True, text=True, timeout=TIMEOUT).stdout
    found = re.search(r'version (\S+)', out)
    return found.group(1) if found else ''


@functools.cache
def _netns_works():
    unshare = shutil.which('unshare')
    if not unshare or os.geteuid() != 0:
        return False
    probe = subprocess.run([unshare, '--net', 'true'], capture_output=True, timeout=TIMEOUT)
    return probe.returncode == 0


def _run(cmd, deadline, crashlog=None):
    """Run cmd until the deadline; (exit code or None on timeout, stdout+stderr). crashlog: FRR's progname."""
    proc = subprocess.Popen(
        cmd,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        cwd='/',
        start_new_session=True,  # its own process group: a timeout kills it and anything it started
    )
    try:
        out, _ = proc.communicate(timeout=max(deadline - time.monotonic(), 0))
        rc = proc.returncode
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        out, _ = proc.communicate()
        rc = None
    finally:
        if crashlog:  # the daemon's own pid: `unshare` execs the daemon, no fork
            shutil.rmtree(CRASHLOG_DIR / f'{crashlog}.{proc.pid}', ignore_errors=True)
    return rc, out


def _daemon_errors(out):
    """The lines of a daemon's dry-run output that mean its handlers rejected something, and the output to show."""
    errors, shown = [], []
    for line in out.splitlines():
        found = _LINE_ERROR.search(line)
        if found and found['what'] == 'No such command':
            continue
        shown.append(line)
        if line.startswith('%') or found or _NB_ERROR.search(line):
            errors.append(line)
    return errors, '\n'.join(shown)


def without_top_block(text: str, node: str) -> str:
    """The config without its top-level ``node`` block (from the line ``node`` to its first ``exit``)."""
    lines = text.splitlines()
    if node not in lines:
        return text
    start = lines.index(node)
    end = start + lines[start:].index('exit') if 'exit' in lines[start:] else len(lines) - 1
    return '\n'.join(lines[:start] + lines[end + 1 :]) + '\n'


def check_frr_config(text: str) -> FrrResult:
    """Check an integrated frr.conf with vtysh's grammar and the zebra, staticd and bgpd handlers (docstring above)."""
    if not frr_available():
        raise RuntimeError('FRR is not installed (vtysh, zebra, staticd, bgpd): apt-get install frr')
    deadline = time.monotonic() + TIMEOUT
    sections, commands, failed, skipped = [f'FRR {frr_version()}'], [], [], []
    with tempfile.TemporaryDirectory(prefix='aifabric-frr-') as tmp:
        os.chmod(tmp, 0o755)  # the daemons read the file after dropping privileges to the frr user
        conf = Path(tmp, 'frr.conf')
        conf.write_text(text if text.endswith('\n') else text + '\n')
        conf.chmod(0o644)
        # bfdd's top-level block is unknown to the other daemons: its `exit` lines take them out of configuration
        # mode and every later line would read as "No such command" (dropped, see the docstring): they get the text
        # without it, bfdd (and vtysh) the whole text
        others = Path(tmp, 'frr-without-bfd.conf')
        others.write_text(without_top_block(conf.read_text(), 'bfd'))
        others.chmod(0o644)
        Path(tmp, 'vtysh.conf').write_text('')  # read instead of /etc/frr/vtysh.conf

        stages = [('vtysh', [_vtysh(), '--config_dir', tmp, '--vty_socket', tmp, '--dryrun', '--inputfile', str(conf)])]
        root = os.geteuid() == 0
        for name in DAEMONS:
            if name in ROOT_DAEMONS and not root:
                skipped.append(f'({name} dry run skipped: it needs root)')
                continue
            cmd = [_daemon(name), '--dryrun', '--config_file', str(conf if name == 'bfdd' else others)]
            cmd += ['--pid_file', f'{tmp}/{name}.pid', '--vty_socket', tmp, '--socket', f'{tmp}/zserv.api']
            if name == 'bgpd':
                cmd += ['--bgp_port', '0', '--skip_runas']
            if name == 'zebra' and _netns_works():
                cmd = [shutil.which('unshare'), '--net', *cmd]
            stages.append((name, cmd))

        for name, cmd in stages:
            if time.monotonic() >= deadline:
                failed.append(cmd)
                sections.append(f'$ {" ".join(cmd)}\n[{name}: not run, the {TIMEOUT} s are over]')
                continue
            commands.append(cmd)
            rc, out = _run(cmd, deadline, crashlog=None if name == 'vtysh' else name)
            if name == 'vtysh':
                errors, shown = ([out] if rc != 0 else []), out.strip()
            else:
                errors, shown = _daemon_errors(out)
            if rc is None or (rc != 0 and name != 'vtysh'):
                errors.append(f'{name}: exit code {rc}')
            if errors:
                failed.append(cmd)
            status = f'timed out after {TIMEOUT} s' if rc is None else f'exit code {rc}'
            verdict = 'rejected' if errors else 'accepted'
            sections.append('\n'.join(filter(None, [f'$ {" ".join(cmd)}', shown, f'[{name}: {status}, {verdict}]'])))
    return FrrResult(
        ok=not failed,
        output='\n'.join(sections + skipped),
        command=failed[0] if failed else commands[0],
        commands=commands,
    )
