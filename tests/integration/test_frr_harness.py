"""The FRR config check (tests/frr.py) on a realistic leaf frr.conf and on the template bugs it must catch.

FRR missing makes these tests fail (CI installs it, scripts/test too); AIFABRIC_SKIP_FRR=1 skips them instead.
"""

import os
import time
from pathlib import Path

import pytest

from tests import frr
from tests.frr import CRASHLOG_DIR, DAEMONS, check_frr_config, frr_available, frr_version

pytestmark = pytest.mark.pure

# A leaf of the EVPN/VXLAN design: eBGP underlay over two /31 uplinks (a peer-group), loopback advertised through a
# route-map, EVPN with all VNIs, the tenant VRF with its L3VNI and a BGP instance advertising its routes as type-5.
LEAF = """\
frr defaults datacenter
hostname leaf1
service integrated-vtysh-config
!
vrf AI-CLUSTER
 vni 50001
exit-vrf
!
interface lo
 ip address 10.0.0.11/32
exit
!
interface swp1
 description spine1 swp1
 ip address 10.1.0.1/31
exit
!
interface swp2
 description spine2 swp1
 ip address 10.1.0.3/31
exit
!
router bgp 65101
 bgp router-id 10.0.0.11
 bgp bestpath as-path multipath-relax
 neighbor SPINES peer-group
 neighbor SPINES remote-as external
 neighbor SPINES description spines
 neighbor 10.1.0.0 peer-group SPINES
 neighbor 10.1.0.2 peer-group SPINES
 !
 address-family ipv4 unicast
  network 10.0.0.11/32 route-map LOOPBACK
  network 10.20.1.0/24
  neighbor SPINES route-map FROM-SPINES in
  maximum-paths 64
 exit-address-family
 !
 address-family l2vpn evpn
  neighbor SPINES activate
  advertise-all-vni
 exit-address-family
exit
!
router bgp 65101 vrf AI-CLUSTER
 bgp router-id 10.0.0.11
 !
 address-family ipv4 unicast
  redistribute connected
 exit-address-family
 !
 address-family l2vpn evpn
  advertise ipv4 unicast
 exit-address-family
exit
!
ip prefix-list LOOPBACKS seq 10 permit 10.0.0.0/24 ge 32
ip prefix-list FABRIC seq 10 permit 10.0.0.0/8 le 32
!
route-map LOOPBACK permit 10
 match ip address prefix-list LOOPBACKS
 set community 65101:1
exit
!
route-map FROM-SPINES permit 10
 match ip address prefix-list FABRIC
exit
!
route-map FROM-SPINES deny 100
exit
!
end
"""


def check(text):
    """check_frr_config(text); FRR missing is a failure (not a skip) unless AIFABRIC_SKIP_FRR=1."""
    if not frr_available():
        if os.environ.get('AIFABRIC_SKIP_FRR') == '1':
            pytest.skip('FRR is not installed (AIFABRIC_SKIP_FRR=1)')
        pytest.fail('FRR is not installed: apt-get install frr (scripts/test does it as root), or AIFABRIC_SKIP_FRR=1')
    return check_frr_config(text)


def running(fragment):
    """The command lines of the processes running now that contain fragment."""
    found = []
    for proc in Path('/proc').iterdir():
        try:
            cmdline = (proc / 'cmdline').read_bytes().replace(b'\0', b' ').decode(errors='replace')
        except OSError:  # not a process, gone meanwhile, or not ours to read
            continue
        if fragment in cmdline:
            found.append(cmdline)
    return found


def program(cmd):
    """The FRR program a check command runs (zebra's may be wrapped in `unshare --net`)."""
    return next(Path(arg).name for arg in cmd if Path(arg).name in ('vtysh', *DAEMONS))


def replace(text, old, new):
    """text with the line `old` replaced by `new`, and the 1-based number of that line."""
    lines = text.splitlines()
    number = lines.index(old) + 1
    lines[number - 1] = new
    return '\n'.join(lines) + '\n', number


def test_valid_leaf_config_is_accepted():
    result = check(LEAF)
    assert result.ok, result.output
    assert frr_version() and result.output.startswith(f'FRR {frr_version()}')
    assert program(result.command) == 'vtysh' and '--dryrun' in result.command
    assert all('--dryrun' in cmd for cmd in result.commands)
    ran = [program(cmd) for cmd in result.commands]
    assert ran == (['vtysh', *DAEMONS] if os.geteuid() == 0 else ['vtysh', 'bgpd'])
    for name in ran:
        assert f'[{name}: exit code 0, accepted]' in result.output


def test_unknown_command_is_rejected_naming_the_line():
    text, line = replace(LEAF, ' bgp bestpath as-path multipath-relax', ' bgp bestpath as-path multipath-relaxed')
    result = check(text)
    assert not result.ok
    assert f'line {line}: % Unknown command' in result.output
    assert 'multipath-relaxed' in result.output
    assert program(result.command) == 'vtysh'


def test_bad_remote_as_is_rejected_naming_the_line():
    text, line = replace(LEAF, ' neighbor SPINES remote-as external', ' neighbor SPINES remote-as bogus')
    result = check(text)
    assert not result.ok
    assert f'line {line}: % Unknown command' in result.output
    assert 'neighbor SPINES remote-as bogus' in result.output


def test_undefined_peer_group_is_rejected_by_bgpd():
    """The grammar accepts any peer-group name: only bgpd's handler knows that SPINE does not exist."""
    text, line = replace(LEAF, ' neighbor 10.1.0.2 peer-group SPINES', ' neighbor 10.1.0.2 peer-group SPINE')
    result = check(text)
    assert not result.ok
    assert '[vtysh: exit code 0, accepted]' in result.output
    assert '% Configure the peer-group first' in result.output
    assert f'Config Failed on config line {line}:  neighbor 10.1.0.2 peer-group SPINE' in result.output
    assert program(result.command) == 'bgpd'


def test_duplicate_l3vni_is_rejected_by_zebra():
    if os.geteuid() != 0:
        pytest.skip("zebra's dry run needs root")
    text = LEAF.replace('!\ninterface lo\n', '!\nvrf STORAGE\n vni 50001\nexit-vrf\n!\ninterface lo\n')
    result = check(text)
    assert not result.ok
    assert 'VNI 50001 is already configured as L3-VNI' in result.output
    assert program(result.command) == 'zebra'


def test_nothing_is_left_behind():
    before = set(CRASHLOG_DIR.iterdir()) if CRASHLOG_DIR.exists() else set()
    result = check(LEAF)
    after = set(CRASHLOG_DIR.iterdir()) if CRASHLOG_DIR.exists() else set()
    assert not {p for p in after - before if p.name.split('.')[0] in DAEMONS}
    tmp = Path(result.command[-1]).parent
    assert not tmp.exists()
    assert not running(str(tmp))


def test_a_hanging_check_is_killed_at_the_timeout(monkeypatch, tmp_path):
    """A stage that hangs (a stand-in for vtysh) is killed with everything it started; the check fails in time."""
    check('!\n')  # FRR present (or the skip/failure above)
    hang = tmp_path / 'vtysh'
    hang.write_text(f"#!/bin/sh\nsh -c 'sleep 300 # {hang}' &\nwait\n")  # a child that would outlive a plain kill
    hang.chmod(0o755)
    monkeypatch.setattr(frr, '_vtysh', lambda: str(hang))
    monkeypatch.setattr(frr, 'TIMEOUT', 1)
    started = time.monotonic()
    result = frr.check_frr_config(LEAF)
    assert time.monotonic() - started < 5
    assert not result.ok
    assert program(result.command) == 'vtysh'
    assert '[vtysh: timed out after 1 s, rejected]' in result.output
    assert 'not run, the 1 s are over' in result.output
    assert not running(str(hang))
