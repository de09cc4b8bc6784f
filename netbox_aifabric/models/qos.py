import re

from django.contrib.postgres.fields import ArrayField
from django.core.exceptions import ValidationError
from django.core.validators import MaxValueValidator, MinValueValidator
from django.db import models
from django.utils.translation import gettext_lazy as _

from netbox.models import PrimaryModel

from netbox_aifabric.choices import ECNThresholdUnitChoices, PFCWatchdogActionChoices, QoSModeChoices, QoSTrustChoices
from netbox_aifabric.constants import (
    DSCP_MAX,
    DSCP_MIN,
    ECN_PROBABILITY_MAX,
    ECN_PROBABILITY_MIN,
    MTU_MAX,
    MTU_MIN,
    PRIORITY_MAX,
    PRIORITY_MIN,
)
from netbox_aifabric.validators import validate_no_control_characters

__all__ = ('QoSProfile',)

TC_KEY = re.compile('[0-9]', re.ASCII)  # a DWRR weights key: one traffic class number


def _dscp_field(**kwargs):
    return models.PositiveSmallIntegerField(
        validators=[MinValueValidator(DSCP_MIN), MaxValueValidator(DSCP_MAX)], **kwargs
    )


def _priority_field(**kwargs):
    return models.PositiveSmallIntegerField(
        validators=[MinValueValidator(PRIORITY_MIN), MaxValueValidator(PRIORITY_MAX)], **kwargs
    )


def _int_list(values):
    return ', '.join(str(v) for v in values)


class QoSProfile(PrimaryModel):
    """
    A RoCEv2 QoS profile: how RDMA data and congestion notification packets (CNP) are marked and queued, which
    priorities are lossless (PFC), where ECN marks, how queues are scheduled and how the PFC watchdog reacts.
    Presets from vendor documentation are shipped as data (see ``netbox_aifabric/data/qos_presets.json``).
    """

    name = models.CharField(
        verbose_name=_('name'), max_length=100, unique=True, validators=[validate_no_control_characters]
    )
    slug = models.SlugField(verbose_name=_('slug'), max_length=100, unique=True)
    mode = models.CharField(
        verbose_name=_('mode'), max_length=20, choices=QoSModeChoices, default=QoSModeChoices.LOSSLESS
    )
    trust = models.CharField(
        verbose_name=_('trust'), max_length=10, choices=QoSTrustChoices, default=QoSTrustChoices.TRUST_DSCP
    )
    roce_dscp = ArrayField(
        base_field=_dscp_field(),
        verbose_name=_('RoCE data DSCP'),
        blank=True,
        default=list,
        help_text=_('DSCP values (0–63) of RoCE data traffic'),
    )
    roce_priority = ArrayField(
        base_field=_priority_field(),
        verbose_name=_('RoCE priority'),
        blank=True,
        default=list,
        help_text=_('Switch priority (0–7) of each RoCE DSCP value, in the same order'),
    )
    roce_tc = ArrayField(
        base_field=_priority_field(),
        verbose_name=_('RoCE traffic class'),
        blank=True,
        default=list,
        help_text=_('Traffic class / queue (0–7) of each RoCE DSCP value, in the same order'),
    )
    cnp_dscp = _dscp_field(verbose_name=_('CNP DSCP'), blank=True, null=True)
    cnp_priority = _priority_field(verbose_name=_('CNP priority'), blank=True, null=True)
    cnp_tc = _priority_field(verbose_name=_('CNP traffic class'), blank=True, null=True)
    pfc_priorities = ArrayField(
        base_field=_priority_field(),
        verbose_name=_('PFC priorities'),
        blank=True,
        default=list,
        help_text=_('Priorities (0–7) with priority flow control enabled'),
    )
    ecn_enabled = models.BooleanField(verbose_name=_('ECN'), default=True)
    ecn_threshold_unit = models.CharField(
        verbose_name=_('ECN threshold unit'),
        max_length=10,
        choices=ECNThresholdUnitChoices,
        default=ECNThresholdUnitChoices.BYTES,
    )
    ecn_min_threshold = models.PositiveBigIntegerField(
        verbose_name=_('ECN min threshold'), blank=True, null=True, help_text=_('Queue depth where ECN marking starts')
    )
    ecn_max_threshold = models.PositiveBigIntegerField(
        verbose_name=_('ECN max threshold'),
        blank=True,
        null=True,
        help_text=_('Queue depth where the marking probability reaches its maximum'),
    )
    ecn_probability = models.PositiveSmallIntegerField(
        verbose_name=_('ECN probability (%)'),
        blank=True,
        null=True,
        validators=[MinValueValidator(ECN_PROBABILITY_MIN), MaxValueValidator(ECN_PROBABILITY_MAX)],
        help_text=_('Marking probability at the max threshold (1–100 %)'),
    )
    ecn_tcs = ArrayField(base_field=_priority_field(), verbose_name=_('ECN traffic classes'), blank=True, default=list)
    strict_tcs = ArrayField(
        base_field=_priority_field(), verbose_name=_('strict-priority traffic classes'), blank=True, default=list
    )
    dwrr_weights = models.JSONField(
        verbose_name=_('DWRR weights'),
        blank=True,
        default=dict,
        help_text=_('Deficit weighted round robin weight per traffic class, e.g. {"0": 50, "3": 50}'),
    )
    pfc_watchdog = models.BooleanField(verbose_name=_('PFC watchdog'), default=False)
    pfcwd_poll_interval = models.PositiveIntegerField(
        verbose_name=_('watchdog poll interval (ms)'), blank=True, null=True
    )
    pfcwd_detection_polls = models.PositiveSmallIntegerField(
        verbose_name=_('watchdog detection polls'),
        blank=True,
        null=True,
        help_text=_('Polls a queue must stay paused before the storm is declared (robustness)'),
    )
    pfcwd_detection_time = models.PositiveIntegerField(
        verbose_name=_('watchdog detection time (ms)'), blank=True, null=True
    )
    pfcwd_restoration_time = models.PositiveIntegerField(
        verbose_name=_('watchdog restoration time (ms)'), blank=True, null=True
    )
    pfcwd_action = models.CharField(
        verbose_name=_('watchdog action'), max_length=10, choices=PFCWatchdogActionChoices, blank=True, null=True
    )
    cable_length = models.PositiveIntegerField(
        verbose_name=_('cable length (m)'),
        blank=True,
        null=True,
        help_text=_('Cable length used to size PFC headroom buffers'),
    )
    mtu = models.PositiveIntegerField(
        verbose_name=_('MTU'),
        blank=True,
        null=True,
        validators=[MinValueValidator(MTU_MIN), MaxValueValidator(MTU_MAX)],
    )
    preset = models.CharField(
        verbose_name=_('preset'),
        max_length=100,
        blank=True,
        help_text=_('The shipped preset this profile was loaded from'),
        validators=[validate_no_control_characters],
    )
    source = models.CharField(
        verbose_name=_('source'),
        max_length=500,
        blank=True,
        help_text=_('Where the values come from (document, version, section)'),
    )

    clone_fields = ('mode', 'trust', 'ecn_enabled', 'ecn_threshold_unit', 'pfc_watchdog', 'cable_length', 'mtu')

    class Meta:
        ordering = ('name',)
        verbose_name = _('QoS profile')
        verbose_name_plural = _('QoS profiles')

    def __str__(self):
        return self.name

    def get_mode_color(self):
        return QoSModeChoices.colors.get(self.mode)

    def clean(self):
        super().clean()
        errors = {}

        # RoCE DSCP -> priority/TC map: one entry per DSCP value, never silently truncated
        lengths = {len(self.roce_dscp), len(self.roce_priority or []), len(self.roce_tc or [])}
        if len(lengths) > 1:
            errors['roce_priority'] = _(
                'RoCE DSCP, priority and traffic class lists must have the same length '
                '({dscp} DSCP, {prio} priorities, {tc} traffic classes).'
            ).format(dscp=len(self.roce_dscp), prio=len(self.roce_priority), tc=len(self.roce_tc))
        if len(set(self.roce_dscp)) != len(self.roce_dscp):
            errors['roce_dscp'] = _('RoCE DSCP values must not repeat: {values}.').format(
                values=_int_list(self.roce_dscp)
            )
        if self.cnp_dscp is not None and self.cnp_dscp in self.roce_dscp:
            errors['cnp_dscp'] = _(
                'CNP DSCP {dscp} is also a RoCE data DSCP: congestion notifications need their own code point.'
            ).format(dscp=self.cnp_dscp)

        # PFC only where it belongs
        if self.mode == QoSModeChoices.LOSSLESS:
            if not self.pfc_priorities:
                errors['pfc_priorities'] = _('Lossless mode needs PFC on the RoCE priority.')
            else:
                stray = sorted(set(self.pfc_priorities) - set(self.roce_priority or []))
                if stray:
                    errors['pfc_priorities'] = _(
                        'PFC on priority {stray} which is not a RoCE priority ({roce}): in lossless mode PFC is '
                        'enabled only for the RDMA class.'
                    ).format(stray=_int_list(stray), roce=_int_list(self.roce_priority) or _('none'))
        elif self.pfc_priorities:
            errors['pfc_priorities'] = _('PFC must be off in {mode} mode (got priorities {prio}).').format(
                mode=self.get_mode_display(), prio=_int_list(self.pfc_priorities)
            )
        if self.mode != QoSModeChoices.NONE and not self.roce_dscp:
            errors['roce_dscp'] = _('{mode} mode needs the RoCE data DSCP.').format(mode=self.get_mode_display())

        # ECN thresholds
        if self.ecn_min_threshold is not None and self.ecn_max_threshold is not None:
            if self.ecn_min_threshold >= self.ecn_max_threshold:
                errors['ecn_min_threshold'] = _(
                    'ECN min threshold ({min}) must be lower than the max threshold ({max}).'
                ).format(min=self.ecn_min_threshold, max=self.ecn_max_threshold)
        if self.ecn_threshold_unit == ECNThresholdUnitChoices.PERCENT:
            for field in ('ecn_min_threshold', 'ecn_max_threshold'):
                value = getattr(self, field)
                if value is not None and value > 100:
                    errors.setdefault(
                        field, _('A fill level in percent must be 0–100 (got {value}).').format(value=value)
                    )

        # Scheduler weights: {"tc": weight}
        if not isinstance(self.dwrr_weights, dict):
            errors['dwrr_weights'] = _('DWRR weights must be an object mapping traffic class to weight.')
        else:
            for tc, weight in self.dwrr_weights.items():
                # one ASCII digit: str.isdigit() takes "²" (int() refuses it: a 500) and "٣" or "01" (a second TC3
                # or TC1 in the configs)
                if not (isinstance(tc, str) and TC_KEY.fullmatch(tc) and PRIORITY_MIN <= int(tc) <= PRIORITY_MAX):
                    errors['dwrr_weights'] = _('DWRR weights: "{tc}" is not a traffic class (0–7).').format(tc=tc)
                    break
                if not isinstance(weight, int) or isinstance(weight, bool) or not 1 <= weight <= 100:
                    errors['dwrr_weights'] = _('DWRR weight of traffic class {tc} must be 1–100 (got {w}).').format(
                        tc=tc, w=weight
                    )
                    break
                if int(tc) in (self.strict_tcs or []):
                    errors['dwrr_weights'] = _(
                        'Traffic class {tc} is strict priority and cannot have a DWRR weight.'
                    ).format(tc=tc)
                    break
        if errors:
            raise ValidationError(errors)

    @property
    def dwrr_weights_display(self):
        """``TC0 50 · TC3 50``, in traffic-class order."""
        if not isinstance(self.dwrr_weights, dict):
            return ''
        items = sorted(
            self.dwrr_weights.items(), key=lambda item: int(item[0]) if TC_KEY.fullmatch(str(item[0])) else 99
        )
        return ' · '.join(f'TC{tc} {weight}' for tc, weight in items)

    @property
    def roce_map(self):
        """``[(dscp, priority, tc), ...]`` for the RoCE data classes."""
        return list(zip(self.roce_dscp, self.roce_priority or [], self.roce_tc or [], strict=False))
