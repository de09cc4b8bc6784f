"""Limits shared by models, forms and the API (the numbers the validation messages quote)."""

DSCP_MIN, DSCP_MAX = 0, 63
PRIORITY_MIN, PRIORITY_MAX = 0, 7
VLAN_VID_MIN, VLAN_VID_MAX = 1, 4094
VNI_MIN, VNI_MAX = 1, 16_777_215
MTU_MIN, MTU_MAX = 68, 9216
ECN_PROBABILITY_MIN, ECN_PROBABILITY_MAX = 1, 100
