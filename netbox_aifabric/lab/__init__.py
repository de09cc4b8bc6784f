"""The fabric lab: the rendered FRR configs of a fabric's switches booted in Linux network namespaces, checked.

Host side and Django-free: ``run_lab(contexts, configs)`` takes the devices' ``aifabric`` contexts and each switch's
rendered ``frr.conf``. See docs/lab.md.
"""

from netbox_aifabric.lab.checks import FAILED, NOT_VERIFIED, PASSED, Check
from netbox_aifabric.lab.netns import LabUnavailable
from netbox_aifabric.lab.runner import LabRun, run_lab
from netbox_aifabric.lab.topology import build_topology

__all__ = ('FAILED', 'NOT_VERIFIED', 'PASSED', 'Check', 'LabRun', 'LabUnavailable', 'build_topology', 'run_lab')
