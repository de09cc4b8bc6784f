"""Limits shared by models, forms and the API (the numbers the validation messages quote)."""

# the planner (pure core) checks MTUs and VNIs too: one definition, there
from .planner.validate import MTU_MAX, MTU_MIN, VNI_MAX, VNI_MIN

__all__ = (
    'DSCP_MAX',
    'DSCP_MIN',
    'ECN_PROBABILITY_MAX',
    'ECN_PROBABILITY_MIN',
    'MTU_MAX',
    'MTU_MIN',
    'PRIORITY_MAX',
    'PRIORITY_MIN',
    'VLAN_VID_MAX',
    'VLAN_VID_MIN',
    'VNI_MAX',
    'VNI_MIN',
)

DSCP_MIN, DSCP_MAX = 0, 63
PRIORITY_MIN, PRIORITY_MAX = 0, 7
VLAN_VID_MIN, VLAN_VID_MAX = 1, 4094
ECN_PROBABILITY_MIN, ECN_PROBABILITY_MAX = 1, 100
