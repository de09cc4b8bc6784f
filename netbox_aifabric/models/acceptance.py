"""Acceptance runs: the guide's "run a small acceptance test and save the output", as NetBox objects.

An ``AcceptanceRun`` is one session of checks on a fabric: a lab run (kind ``lab``, stored by the lab job) or a
manual run whose results are uploaded as the tools print them (iperf3 ``--json``, ping). Each ``AcceptanceResult`` is
one judged check with what was expected, what was seen and the tool's raw output.
"""

from django.conf import settings
from django.db import models
from django.utils import timezone
from django.utils.translation import gettext_lazy as _

from netbox.models import NetBoxModel
from utilities.choices import ChoiceSet

from netbox_aifabric.validators import validate_no_control_characters

__all__ = (
    'AcceptanceResult',
    'AcceptanceResultStatusChoices',
    'AcceptanceRun',
    'AcceptanceRunKindChoices',
    'AcceptanceRunStatusChoices',
)


class AcceptanceRunKindChoices(ChoiceSet):
    key = 'AcceptanceRun.kind'

    LAB = 'lab'
    MANUAL = 'manual'

    CHOICES = [(LAB, _('Lab'), 'purple'), (MANUAL, _('Manual'), 'blue')]


class AcceptanceResultStatusChoices(ChoiceSet):
    key = 'AcceptanceResult.status'

    PASSED = 'passed'
    FAILED = 'failed'
    NOT_VERIFIED = 'not-verified'

    CHOICES = [(PASSED, _('Passed'), 'green'), (FAILED, _('Failed'), 'red'), (NOT_VERIFIED, _('Not verified'), 'gray')]


class AcceptanceRunStatusChoices(ChoiceSet):
    key = 'AcceptanceRun.status'

    EMPTY = 'empty'
    PASSED = 'passed'
    FAILED = 'failed'
    INCOMPLETE = 'incomplete'

    CHOICES = [
        (EMPTY, _('No results'), 'gray'),
        (PASSED, _('Passed'), 'green'),
        (FAILED, _('Failed'), 'red'),
        (INCOMPLETE, _('Incomplete (only not verified)'), 'orange'),
    ]


class AcceptanceRun(NetBoxModel):
    """One acceptance session on a fabric; ``status`` and the counts summarise its results (``refresh_summary``)."""

    fabric = models.ForeignKey(
        to='netbox_aifabric.Fabric', on_delete=models.CASCADE, related_name='acceptance_runs', verbose_name=_('fabric')
    )
    kind = models.CharField(
        verbose_name=_('kind'), max_length=10, choices=AcceptanceRunKindChoices, default=AcceptanceRunKindChoices.MANUAL
    )
    time = models.DateTimeField(verbose_name=_('time'), default=timezone.now)
    user = models.ForeignKey(
        to=settings.AUTH_USER_MODEL,
        on_delete=models.SET_NULL,
        related_name='+',
        blank=True,
        null=True,
        verbose_name=_('user'),
    )
    status = models.CharField(
        verbose_name=_('status'),
        max_length=12,
        choices=AcceptanceRunStatusChoices,
        default=AcceptanceRunStatusChoices.EMPTY,
        editable=False,
    )
    passed = models.PositiveIntegerField(verbose_name=_('passed'), default=0, editable=False)
    failed = models.PositiveIntegerField(verbose_name=_('failed'), default=0, editable=False)
    not_verified = models.PositiveIntegerField(verbose_name=_('not verified'), default=0, editable=False)
    convergence_seconds = models.FloatField(verbose_name=_('convergence (s)'), blank=True, null=True, editable=False)
    description = models.CharField(
        verbose_name=_('description'), max_length=200, blank=True, validators=[validate_no_control_characters]
    )
    log = models.TextField(verbose_name=_('log'), blank=True, editable=False)

    clone_fields = ('fabric', 'kind')

    class Meta:
        ordering = ('-time', '-pk')
        verbose_name = _('acceptance run')
        verbose_name_plural = _('acceptance runs')

    def __str__(self):
        when = timezone.localtime(self.time).strftime('%Y-%m-%d %H:%M') if self.time else '?'
        return f'{self.fabric} {self.kind} {when}'

    def get_kind_color(self):
        return AcceptanceRunKindChoices.colors.get(self.kind)

    def get_status_color(self):
        return AcceptanceRunStatusChoices.colors.get(self.status)

    def refresh_summary(self, save=True):
        """Count the results and set the status: failed if any failed, passed if any passed and none failed."""
        counts = dict.fromkeys(AcceptanceResultStatusChoices.values(), 0)
        for status in self.results.values_list('status', flat=True):
            counts[status] += 1
        self.passed = counts[AcceptanceResultStatusChoices.PASSED]
        self.failed = counts[AcceptanceResultStatusChoices.FAILED]
        self.not_verified = counts[AcceptanceResultStatusChoices.NOT_VERIFIED]
        if self.failed:
            self.status = AcceptanceRunStatusChoices.FAILED
        elif self.passed:
            self.status = AcceptanceRunStatusChoices.PASSED
        elif self.not_verified:
            self.status = AcceptanceRunStatusChoices.INCOMPLETE
        else:
            self.status = AcceptanceRunStatusChoices.EMPTY
        if save:
            self.save()


class AcceptanceResult(NetBoxModel):
    """One judged check of a run: its name, category (bgp, mtu, throughput-leaf-to-leaf, latency, …), subject (e.g.
    ``leaf1 -> leaf2``), the verdict, what was expected and seen, and the tool's raw output."""

    run = models.ForeignKey(
        to='netbox_aifabric.AcceptanceRun', on_delete=models.CASCADE, related_name='results', verbose_name=_('run')
    )
    name = models.CharField(verbose_name=_('check'), max_length=300)
    category = models.CharField(verbose_name=_('category'), max_length=50)
    subject = models.CharField(verbose_name=_('subject'), max_length=200, blank=True)
    status = models.CharField(verbose_name=_('status'), max_length=12, choices=AcceptanceResultStatusChoices)
    expected = models.TextField(verbose_name=_('expected'), blank=True)
    seen = models.TextField(verbose_name=_('seen'), blank=True)
    value = models.FloatField(
        verbose_name=_('value'), blank=True, null=True, help_text=_('The measured figure, e.g. Gbit/s or % of loss')
    )
    raw = models.TextField(verbose_name=_('raw output'), blank=True)

    class Meta:
        ordering = ('run', 'pk')
        verbose_name = _('acceptance result')
        verbose_name_plural = _('acceptance results')

    def __str__(self):
        return self.name

    def get_status_color(self):
        return AcceptanceResultStatusChoices.colors.get(self.status)
