"""Stored compliance runs: one :class:`ComplianceRun` per run of the rules on a fabric (by the compliance job, on
demand or scheduled), its :class:`ComplianceFinding` s as rows. Both are NetBox objects (REST, filters, object
permissions, event rules on a run)."""

from django.conf import settings
from django.contrib.contenttypes.fields import GenericForeignKey
from django.contrib.postgres.fields import ArrayField
from django.db import models
from django.utils.translation import gettext_lazy as _

from netbox.models import NetBoxModel
from utilities.choices import ChoiceSet

__all__ = (
    'ComplianceFamilyChoices',
    'ComplianceFinding',
    'ComplianceRun',
    'ComplianceRunStatusChoices',
    'ComplianceSeverityChoices',
)


class ComplianceRunStatusChoices(ChoiceSet):
    PASSED = 'passed'
    FAILED = 'failed'
    ERRORED = 'errored'

    CHOICES = (
        (PASSED, _('Compliant'), 'green'),
        (FAILED, _('Not compliant'), 'red'),
        (ERRORED, _('A rule broke'), 'orange'),
    )


class ComplianceSeverityChoices(ChoiceSet):
    # the engine's SEVERITIES, as a choice set for forms and filters
    CHOICES = (('error', _('Error'), 'red'), ('warning', _('Warning'), 'orange'), ('info', _('Info'), 'blue'))


class ComplianceFamilyChoices(ChoiceSet):
    # the engine's FAMILIES (a test keeps the two in step)
    CHOICES = (
        ('drift', _('Drift')),
        ('fabric', _('Fabric')),
        ('roce', _('RoCE/QoS')),
        ('security', _('Security')),
        ('automation', _('Automation')),
        ('traffic', _('Traffic')),
        ('config', _('Running configs')),
    )


class ComplianceRun(NetBoxModel):
    """One run of every compliance rule on a fabric: who ran it (None: the scheduled job), the counts, the score and
    each rule's outcome (``rule_results``: ``{rule id: {status, findings, severity, family, note}}``; the
    ``config-backup`` rule's also ``switches``, ``{device name: running-config state}``, shown on the Compliance
    tab)."""

    fabric = models.ForeignKey(
        to='netbox_aifabric.Fabric', on_delete=models.CASCADE, related_name='compliance_runs', verbose_name=_('fabric')
    )
    user = models.ForeignKey(
        to=settings.AUTH_USER_MODEL,
        on_delete=models.SET_NULL,
        related_name='+',
        blank=True,
        null=True,
        verbose_name=_('user'),
    )
    job = models.ForeignKey(
        to='core.Job', on_delete=models.SET_NULL, related_name='+', blank=True, null=True, verbose_name=_('job')
    )
    status = models.CharField(verbose_name=_('status'), max_length=10, choices=ComplianceRunStatusChoices)
    score = models.PositiveSmallIntegerField(
        verbose_name=_('score'),
        blank=True,
        null=True,
        help_text=_('Percent of the rules that ran (not skipped) and passed'),
    )
    rules = models.PositiveIntegerField(verbose_name=_('rules'), default=0)
    passed = models.PositiveIntegerField(verbose_name=_('passed'), default=0)
    failed = models.PositiveIntegerField(verbose_name=_('failed'), default=0)
    skipped = models.PositiveIntegerField(verbose_name=_('skipped'), default=0)
    errored = models.PositiveIntegerField(verbose_name=_('broke'), default=0)
    finding_count = models.PositiveIntegerField(verbose_name=_('findings'), default=0)
    context_source = models.CharField(verbose_name=_('contexts from'), max_length=10, default='devices')
    rule_results = models.JSONField(verbose_name=_('rule results'), default=dict, blank=True)

    class Meta:
        ordering = ('-created', '-pk')
        indexes = (models.Index(fields=('fabric', '-created')),)
        verbose_name = _('compliance run')
        verbose_name_plural = _('compliance runs')

    def __str__(self):
        when = self.created.strftime('%Y-%m-%d %H:%M') if self.created else '…'
        return f'{self.fabric}: {when}'

    def get_status_color(self):
        return ComplianceRunStatusChoices.colors.get(self.status)


class ComplianceFinding(NetBoxModel):
    """One finding of a run: the rule, the object it is about (the first of the finding's objects; all of them in
    ``targets``, as the engine names and links them), the devices involved, expected, found and the fix hint."""

    run = models.ForeignKey(
        to='netbox_aifabric.ComplianceRun', on_delete=models.CASCADE, related_name='findings', verbose_name=_('run')
    )
    rule = models.CharField(verbose_name=_('rule'), max_length=50)
    title = models.CharField(verbose_name=_('title'), max_length=200)
    family = models.CharField(verbose_name=_('family'), max_length=20, choices=ComplianceFamilyChoices)
    severity = models.CharField(verbose_name=_('severity'), max_length=10, choices=ComplianceSeverityChoices)
    object_type = models.ForeignKey(
        to='contenttypes.ContentType', on_delete=models.SET_NULL, related_name='+', blank=True, null=True
    )
    object_id = models.PositiveBigIntegerField(blank=True, null=True)
    object = GenericForeignKey('object_type', 'object_id')
    object_repr = models.CharField(verbose_name=_('object'), max_length=200, blank=True)
    targets = models.JSONField(verbose_name=_('objects'), default=list, blank=True)
    device_ids = ArrayField(base_field=models.PositiveBigIntegerField(), default=list, blank=True)
    expected = models.TextField(verbose_name=_('expected'), blank=True)
    found = models.TextField(verbose_name=_('found'), blank=True)
    fix = models.TextField(verbose_name=_('fix'), blank=True)

    class Meta:
        ordering = ('run', 'pk')
        indexes = (models.Index(fields=('run', 'rule')),)
        verbose_name = _('compliance finding')
        verbose_name_plural = _('compliance findings')

    def __str__(self):
        return f'{self.rule}: {self.object_repr}' if self.object_repr else self.rule

    def get_severity_color(self):
        return ComplianceSeverityChoices.colors.get(self.severity)
