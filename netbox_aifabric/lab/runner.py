"""Boot a fabric's rendered FRR configs in network namespaces, wait for convergence, check, tear down.

``run_lab(contexts, configs)``: ``contexts`` are the devices' ``aifabric`` contexts (``{name: context}``), ``configs``
the rendered ``frr.conf`` of each switch (``{name: text}``, as ``templates/frr/frr.conf.j2`` renders them). No Django
here: the management command and the tests render the configs, this module only runs them.
"""

import ipaddress
import json
import os
import re
import shutil
import signal
import subprocess
import tempfile
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path

from netbox_aifabric.lab import checks
from netbox_aifabric.lab.bfd import bfd_converged, bfd_expectations, evaluate_bfd, wants_bfd
from netbox_aifabric.lab.netns import (
    LabUnavailable,
    daemon_path,
    delete_namespace,
    kernel_lacks,
    kill_pids,
    preflight,
    remove_stale,
    run,
    run_in,
    vtysh_path,
)
from netbox_aifabric.lab.topology import build_topology

__all__ = ('LabRun', 'LabUnavailable', 'run_lab')

DEFAULT_TIMEOUT = 60.0  # seconds to wait for convergence
VXLAN_PORT = 4789
FRR_USER = 'frr'  # Debian's FRR package: the daemons run as frr (group frr, vty group frrvty)


@dataclass
class LabRun:
    """A lab's outcome: the checks, the convergence time, where it ran (``namespaces``: switch → namespace)."""

    checks: list
    converged: bool
    convergence_seconds: float | None
    timeout: float
    namespaces: dict[str, str]
    run_dir: str
    kept: bool
    seconds: float
    log: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return self.converged and not any(c.status == checks.FAILED for c in self.checks)

    def failed(self):
        return [c for c in self.checks if c.status == checks.FAILED]

    def counts(self) -> dict[str, int]:
        out = {checks.PASSED: 0, checks.FAILED: 0, checks.NOT_VERIFIED: 0}
        for c in self.checks:
            out[c.status] += 1
        return out

    def as_dict(self) -> dict:
        return {
            'ok': self.ok,
            'converged': self.converged,
            'convergence_seconds': self.convergence_seconds,
            'timeout': self.timeout,
            'seconds': round(self.seconds, 2),
            'counts': self.counts(),
            'namespaces': self.namespaces,
            'run_dir': self.run_dir,
            'kept': self.kept,
            'checks': [c.as_dict() for c in self.checks],
        }


class _Lab:
    def __init__(self, topology, configs, *, mtu_overrides, log):
        self.topology = topology
        self.configs = configs
        self.mtu_overrides = dict(mtu_overrides or {})
        self.log = log
        self.pid = os.getpid()
        self.namespaces = {name: f'aflab-{self.pid}-{n}' for n, name in enumerate(topology.switches, 1)}
        self.run_dir = Path(tempfile.mkdtemp(prefix=f'aflab-{self.pid}-'))
        self.run_dir.chmod(0o755)
        self.daemons = []  # Popen of every daemon started

    def note(self, text):
        self.log.append(text)

    def ip(self, ns, *args):
        return run(['ip', '-n', ns, *args])

    def build(self):
        for name, ns in self.namespaces.items():
            run(['ip', 'netns', 'add', ns])
            self.note(f'{name}: namespace {ns}')
            self.ip(ns, 'link', 'set', 'lo', 'up')
            for key in ('net.ipv4.ip_forward=1', 'net.ipv4.conf.all.rp_filter=0', 'net.ipv4.conf.default.rp_filter=0'):
                run_in(ns, ['sysctl', '-q', '-w', key])
            switch = self.topology.switches[name]
            # a loopback: an L3 device without ports that is always up. No dummy driver here: a bridge without ports
            # (carrier on, nothing attached) stands in; zebra puts the frr.conf's addresses on it.
            for lo_name in dict.fromkeys(lo for lo, _ in switch.loopbacks):
                self.ip(ns, 'link', 'add', lo_name, 'type', 'bridge')
                self.ip(ns, 'link', 'set', lo_name, 'up')
        for link in self.topology.links:
            a, b = self.namespaces[link.a], self.namespaces[link.b]
            self.ip(a, 'link', 'add', link.a_if, 'type', 'veth', 'peer', 'name', link.b_if, 'netns', b)
            for ns, switch, port, address, mtu in (
                (a, link.a, link.a_if, link.a_address, link.a_mtu),
                (b, link.b, link.b_if, link.b_address, link.b_mtu),
            ):
                mtu = self.mtu_overrides.get((switch, port), mtu)
                self.ip(ns, 'link', 'set', port, 'mtu', str(mtu))
                if address:
                    self.ip(ns, 'address', 'add', address, 'dev', port)
                self.ip(ns, 'link', 'set', port, 'up')
            self.note(f'link {link.name}')
        for name, switch in self.topology.switches.items():
            ns = self.namespaces[name]
            for vid, vni in switch.l2vnis:  # EVPN: one bridge per VNI with its VXLAN device (no 802.1Q needed)
                bridge, vxlan = f'br{vid}', f'vx{vni}'
                self.ip(ns, 'link', 'add', bridge, 'type', 'bridge')
                self.ip(ns, 'link', 'set', bridge, 'addrgenmode', 'none')
                self.ip(
                    ns, 'link', 'add', vxlan, 'type', 'vxlan', 'id', str(vni), 'local', switch.vtep,
                    'dstport', str(VXLAN_PORT), 'nolearning',
                )  # fmt: skip
                self.ip(ns, 'link', 'set', vxlan, 'master', bridge, 'addrgenmode', 'none')
                self.ip(ns, 'link', 'set', bridge, 'up')
                self.ip(ns, 'link', 'set', vxlan, 'up')
            if switch.l2vnis:
                self.note(f'{name}: {len(switch.l2vnis)} L2VNI bridge(s) with VXLAN, local VTEP {switch.vtep}')

    def start(self):
        started = {}
        for name, ns in self.namespaces.items():
            folder = self.run_dir / name
            folder.mkdir()
            shutil.chown(folder, FRR_USER, FRR_USER)  # the daemons drop privileges to FRR's user: their files are here
            text = self.configs[name]
            (folder / 'frr.conf').write_text(text if text.endswith('\n') else text + '\n')
            (folder / 'vtysh.conf').write_text('')
            (folder / 'empty.conf').write_text('')
            daemons = ['zebra', 'staticd']
            if re.search(r'^router bgp ', text, re.M):
                daemons.append('bgpd')
            if re.search(r'^router ospf', text, re.M):
                daemons.append('ospfd')
            if wants_bfd(text):  # bgpd and ospfd register their BFD peers with bfdd through zebra
                daemons.append('bfdd')
            for daemon in daemons:
                self._start_daemon(name, ns, folder, daemon)
            started[name] = daemons
        self._boot(started)

    def _start_daemon(self, name, ns, folder, daemon):
        # an empty config: each daemon parsing the integrated frr.conf itself misreads the blocks of the others
        # (bgpd takes the `exit` of a `bfd` block for the end of the configuration); vtysh -b loads it (below)
        cmd = ['ip', 'netns', 'exec', ns, daemon_path(daemon), '--config_file', str(folder / 'empty.conf')]
        cmd += ['--pid_file', str(folder / f'{daemon}.pid'), '--vty_socket', str(folder)]
        cmd += ['--socket', str(folder / 'zserv.api'), '--vty_port', '0']
        cmd += ['--log', f'file:{folder / daemon}.log']
        # `frr defaults <profile>` only counts when a daemon starts (FRR takes it from -F, as frrinit.sh passes
        # /etc/frr/daemons' frr_profile): pushed later by vtysh, bgpd would keep the traditional timers
        profile = re.search(r'^frr defaults (\S+)$', self.configs[name], re.M)
        if profile:
            cmd += ['--profile', profile[1]]
        with open(folder / f'{daemon}.out', 'w') as out:
            proc = subprocess.Popen(
                cmd, stdin=subprocess.DEVNULL, stdout=out, stderr=subprocess.STDOUT, cwd=folder,
                start_new_session=True,
            )  # fmt: skip
        self.daemons.append(proc)
        if daemon == 'zebra':  # the others connect to its socket: start them once it is there
            self._wait_for(folder / 'zserv.api')

    @staticmethod
    def _wait_for(path, seconds=10):
        deadline = time.monotonic() + seconds
        while not path.exists() and time.monotonic() < deadline:
            time.sleep(0.02)

    def _boot(self, started):
        """Load each switch's integrated frr.conf as FRR's own start-up does (frrinit.sh: ``vtysh -b``): vtysh knows
        every daemon's commands and sends each line to the daemons that own it. All switches at once (a vtysh -b
        takes about a second), so their sessions start together."""
        loading = {}
        for name, daemons in started.items():
            folder = self.run_dir / name
            for daemon in daemons:
                self._wait_for(folder / f'{daemon}.vty')
            cmd = [vtysh_path(), '--config_dir', str(folder), '--vty_socket', str(folder), '-b']
            loading[name] = subprocess.Popen(
                ['ip', 'netns', 'exec', self.namespaces[name], *cmd], stdin=subprocess.DEVNULL,
                stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
            )  # fmt: skip
        for name, proc in loading.items():
            output, _ = proc.communicate(timeout=30)
            problems = [line for line in output.splitlines() if line.strip()]
            self.note(f'{name}: started {", ".join(started[name])}, loaded its frr.conf with vtysh -b')
            if proc.returncode != 0 or problems:
                self.note(f'{name}: vtysh -b exit code {proc.returncode}: {" | ".join(problems[:10])}')

    def vtysh(self, name, command):
        folder = self.run_dir / name
        cmd = [vtysh_path(), '--config_dir', str(folder), '--vty_socket', str(folder), '-c', command]
        proc = run_in(self.namespaces[name], cmd, check=False, timeout=20)
        try:
            return json.loads(proc.stdout or '{}')
        except json.JSONDecodeError:
            return {'_error': (proc.stdout + proc.stderr).strip()}

    def collect(self):
        state = {}
        for name, switch in self.topology.switches.items():
            state[name] = {
                'neighbors': self.vtysh(name, 'show bgp neighbors json'),
                'routes': self.vtysh(name, 'show ip route json'),
            }
            if 'l2vpn-evpn' in ((switch.context.get('bgp') or {}).get('address_families') or []):
                state[name]['type3'] = self.vtysh(name, 'show bgp l2vpn evpn route type multicast json')
            if wants_bfd(self.configs[name]):
                state[name]['bfd'] = self.vtysh(name, 'show bfd peers json')
        return state

    def ping(self, name, target, size, source=None, count=2):
        """ping -M do (do not fragment) with ``size`` bytes of payload: (passed, the output's last lines)."""
        cmd = ['ping', '-n', '-q', '-c', str(count), '-i', '0.2', '-W', '1', '-M', 'do', '-s', str(size)]
        if source:
            cmd += ['-I', source]
        proc = run_in(self.namespaces[name], [*cmd, target], check=False, timeout=15)
        out = ' '.join(line.strip() for line in (proc.stdout + proc.stderr).strip().splitlines()[-2:])
        return proc.returncode == 0, f'$ {" ".join(cmd)} {target}: {out}'

    def link_local(self, name, port):
        """The IPv6 link-local address the kernel gave ``name``'s ``port`` (an unnumbered link's far end), or None."""
        proc = run(['ip', '-n', self.namespaces[name], '-j', '-6', 'address', 'show', 'dev', port, 'scope', 'link'])
        try:
            entries = json.loads(proc.stdout or '[]')
        except json.JSONDecodeError:
            return None
        found = [a['local'] for e in entries for a in e.get('addr_info') or [] if a.get('family') == 'inet6']
        return found[0] if found else None

    def teardown(self):
        kill_pids([p.pid for p in self.daemons])
        for proc in self.daemons:
            proc.wait(timeout=5)
        for ns in self.namespaces.values():
            delete_namespace(ns)
        shutil.rmtree(self.run_dir, ignore_errors=True)


def _raise_on_sigterm(signum, frame):
    raise KeyboardInterrupt(f'signal {signum}')


def run_lab(contexts, configs, *, keep=False, timeout=DEFAULT_TIMEOUT, mtu_overrides=None) -> LabRun:
    """Build the fabric of ``contexts`` in namespaces, run each switch's ``configs[name]`` in FRR, check, tear down.

    ``mtu_overrides``: ``{(switch, port): mtu}`` instead of the context's (a fault to inject: the negative control).
    ``keep``: leave the namespaces and daemons running (a later run removes them). Raises ``LabUnavailable``
    when the host cannot run the lab.
    """
    started = time.monotonic()
    topology = build_topology(contexts)
    missing = [name for name in topology.switches if not configs.get(name)]
    if missing:
        raise ValueError(f'no frr.conf for {", ".join(missing)}')
    ospf = any(re.search(r'^router ospf', configs[name], re.M) for name in topology.switches)
    bfd = any(wants_bfd(configs[name]) for name in topology.switches)
    preflight(('zebra', 'staticd', 'bgpd', *(('ospfd',) if ospf else ()), *(('bfdd',) if bfd else ())))
    topology.lacks = kernel_lacks()  # 'not verified' says whether the kernel lacks a driver or the lab a feature
    unnumbered = any(not (link.a_address or link.b_address) for link in topology.links)
    if unnumbered and not Path('/proc/sys/net/ipv6').is_dir():
        raise LabUnavailable(
            'the kernel has no IPv6 (booted with ipv6.disable=1?): the unnumbered sessions run on IPv6 link-local '
            'addresses'
        )
    log = []
    stale = remove_stale()
    if stale:
        log.append(f'removed leftovers of earlier runs: {", ".join(stale)}')
    lab = _Lab(topology, configs, mtu_overrides=mtu_overrides, log=log)
    previous = None
    if threading.current_thread() is threading.main_thread():
        previous = signal.signal(signal.SIGTERM, _raise_on_sigterm)
    try:
        lab.build()
        booted = time.monotonic()
        lab.start()
        expected = checks.expectations(topology)
        sessions = bfd_expectations(topology, configs)
        converged, convergence, state = False, None, {}
        while True:
            state = lab.collect()
            if checks.converged(expected, state) and bfd_converged(sessions, state):
                converged, convergence = True, round(time.monotonic() - booted, 2)
                break
            if time.monotonic() - booted > timeout:
                break
            time.sleep(0.5)
        results = checks.evaluate(expected, state) + evaluate_bfd(sessions, state)
        results += _ping_checks(lab, topology, expected)
        results += checks.not_verified(topology)
        results.append(checks.convergence_check(converged, convergence, timeout))
        return LabRun(
            checks=results,
            converged=converged,
            convergence_seconds=convergence,
            timeout=timeout,
            namespaces=dict(lab.namespaces),
            run_dir=str(lab.run_dir),
            kept=keep,
            seconds=time.monotonic() - started,
            log=log,
        )
    finally:
        if not keep:
            lab.teardown()
        if previous is not None:
            signal.signal(signal.SIGTERM, previous)


def _ping_checks(lab, topology, expected):
    results = []
    for link in topology.links:
        if not (link.a_address and link.b_address):
            continue
        mtu = min(link.a_mtu, link.b_mtu)  # the context's: a lowered veth (mtu_overrides) must show as a failure
        target = str(ipaddress.ip_interface(link.b_address).ip)
        passed, seen = lab.ping(link.a, target, mtu - 28)
        results.append(
            checks.Check(
                name=f'jumbo ping {link.a} {link.a_if} -> {link.b} {link.b_if}',
                kind='mtu',
                status=checks.PASSED if passed else checks.FAILED,
                expected=f'{mtu - 28} bytes + 28 of headers = MTU {mtu}, not fragmented (-M do), no loss',
                seen=seen,
            )
        )
    for leaf, other, source, target, mtu in checks.leaf_pings(topology, expected):
        passed, seen = lab.ping(leaf, target, mtu - 28, source=source)
        results.append(
            checks.Check(
                name=f'loopback ping {leaf} {source} -> {other} {target}',
                kind='reachability',
                status=checks.PASSED if passed else checks.FAILED,
                expected=f'{mtu - 28} bytes + 28 = MTU {mtu} from loopback to loopback through the spines, no loss',
                seen=seen,
            )
        )
    return results + _unnumbered_ping_checks(lab, topology)


def _unnumbered_ping_checks(lab, topology):
    """The pings of the unnumbered links (checks.unnumbered_pings): the far end's link-local address read from its
    namespace, as the kernel made it when the veth came up."""
    results = []
    for p in checks.unnumbered_pings(topology):
        target, source = p.target, p.source
        if target is None:  # a link-local address, scoped to the local port (`fe80::…%Ethernet65`)
            link_local = lab.link_local(p.target_switch, p.target_port)
            target, source = (f'{link_local}%{p.source}' if link_local else None), None
        if target is None:
            passed, seen = False, f'{p.target_switch} {p.target_port} has no IPv6 link-local address'
        else:
            passed, seen = lab.ping(p.switch, target, p.size, source=source)
        status = checks.PASSED if passed else checks.FAILED
        results.append(checks.Check(name=p.name, kind=p.kind, status=status, expected=p.expected, seen=seen))
    return results
