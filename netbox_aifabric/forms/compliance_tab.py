"""The Compliance tab's filter (GET ``severity`` and ``family``, each any number of times): a value that is not one
of the engine's is a form error naming the parameter and the values allowed, and the tab lists every rule."""

from django import forms
from django.utils.translation import gettext_lazy as _

from netbox_aifabric.models import ComplianceFamilyChoices, ComplianceSeverityChoices

__all__ = ('ComplianceTabFilterForm',)


class _Choices(forms.MultipleChoiceField):
    """A multiple choice where a blank value (an empty ``?severity=``) means nothing chosen, not an unknown value."""

    def __init__(self, choices, label, name):
        allowed = ', '.join(str(value) for value, _label in choices)
        super().__init__(
            choices=choices,
            required=False,
            label=label,
            error_messages={
                'invalid_choice': _('Unknown {name} %(value)s (one of: {allowed}).').format(name=name, allowed=allowed)
            },
        )

    def to_python(self, value):
        return [v for v in super().to_python(value) if v.strip()]


class ComplianceTabFilterForm(forms.Form):
    severity = _Choices(ComplianceSeverityChoices, _('Severity'), 'severity')
    family = _Choices(ComplianceFamilyChoices, _('Family'), 'family')

    def rule_filter(self):
        """A predicate on a rule for the valid choices (a field left empty: any); None when unbound or invalid."""
        if not self.is_bound or not self.is_valid():
            return None
        severities, families = set(self.cleaned_data['severity']), set(self.cleaned_data['family'])
        if not severities and not families:
            return None
        return lambda rule: (
            (not severities or rule.severity in severities) and (not families or rule.family in families)
        )
