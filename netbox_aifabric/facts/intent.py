"""The fabric's intent as the facts read it: the typed shape of what ``intake.intent.intent_of`` reads from NetBox
(and ``tests/render_fixtures.guide_intent`` builds without a database). Pure: typing only.

Every key the facts and contexts read is declared here, so mypy checks each read. The traffic-class keys are the
``intent`` names of ``planner/registry.py``'s traffic-class fields (a test holds the two equal).
"""

from typing import Any, NotRequired, TypedDict

__all__ = (
    'Cnp',
    'Ecn',
    'FabricIntent',
    'FabricSettings',
    'ManagementIntent',
    'PfcWatchdog',
    'QosIntent',
    'TelemetryData',
    'TrafficClassIntent',
)


class FabricSettings(TypedDict):
    name: str
    slug: str
    design: str
    underlay: str
    mtu: int


class TrafficClassIntent(TypedDict):
    """A traffic class as the contexts carry it (``registry.intent_fields``)."""

    name: str
    purpose: str
    vid: int | None
    dscp: list[int]
    priority: int | None
    queue: int | None
    lossless: bool
    ecn: bool
    mtu: int | None
    prefix: str | None
    reachability: str
    reachable_from: list[str]


class Cnp(TypedDict):
    dscp: int | None
    priority: int | None
    tc: int | None


class Ecn(TypedDict):
    enabled: bool
    unit: str
    min_threshold: int | None
    max_threshold: int | None
    probability: int | None
    tcs: list[int]


class PfcWatchdog(TypedDict):
    enabled: bool
    poll_interval: int | None
    detection_polls: int | None
    detection_time: int | None
    restoration_time: int | None
    action: str | None


class QosIntent(TypedDict):
    """The fabric's RoCE QoS profile, values as stored."""

    profile: str
    preset: str | None
    mode: str
    trust: str
    roce_dscp: list[int]
    roce_priority: list[int]
    roce_tc: list[int]
    cnp: Cnp
    pfc_priorities: list[int]
    cable_length: int | None  # metres
    ecn: Ecn
    strict_tcs: list[int]
    dwrr_weights: dict[str, int]
    pfc_watchdog: PfcWatchdog


class ManagementIntent(TypedDict):
    jump_hosts: list[str]


class TelemetryData(TypedDict):
    """The fabric's collectors and settings (``facts.telemetry.telemetry_intent`` reads them)."""

    syslog: list[str]
    ntp: list[str]
    snmp_managers: list[str]
    snmp_version: str
    snmp_user: str
    sflow: list[str]
    sflow_sampling_rate: int | None
    streaming: list[str]


class FabricIntent(TypedDict):
    """Everything the contexts are built from besides the plan."""

    fabric: FabricSettings
    roles: dict[str, str]  # node name -> role
    # Read with a default where absent (a spec file's intent, the render fixtures): no gateway MAC, no BFD, and no
    # platform facts of shipped device types
    anycast_gateway_mac: NotRequired[str | None]
    bfd: NotRequired[bool]
    hardware: NotRequired[dict[str, dict[str, dict[str, Any]]]]  # role -> {port: platform facts (lanes, alias, index)}
    breakouts: NotRequired[dict[str, dict[str, dict[str, Any]]]]  # role -> {lane port: {parent, count, speed, mode}}
    device_types: NotRequired[dict[str, str]]  # role -> device type slug
    host_nic: NotRequired[str]  # the servers' RDMA NIC family (facts/host.py NIC_FAMILIES); absent: NVIDIA mlx5
    traffic_classes: list[TrafficClassIntent]
    qos: QosIntent | None
    management: ManagementIntent
    telemetry: TelemetryData
