from django import forms
from django.utils.translation import gettext_lazy as _

from utilities.forms.fields import NumericArrayField

from ..constants import DSCP_MAX, DSCP_MIN, PRIORITY_MAX, PRIORITY_MIN

__all__ = ('DSCPListField', 'PriorityListField')


class DSCPListField(NumericArrayField):
    """Comma-separated DSCP values, each 0–63 (ranges such as ``24-26`` allowed)."""

    def __init__(self, **kwargs):
        kwargs.setdefault('required', False)
        kwargs.setdefault('help_text', _('Comma-separated DSCP values (0–63)'))
        super().__init__(base_field=forms.IntegerField(min_value=DSCP_MIN, max_value=DSCP_MAX), **kwargs)


class PriorityListField(NumericArrayField):
    """Comma-separated priorities / traffic classes, each 0–7."""

    def __init__(self, **kwargs):
        kwargs.setdefault('required', False)
        kwargs.setdefault('help_text', _('Comma-separated values (0–7)'))
        super().__init__(base_field=forms.IntegerField(min_value=PRIORITY_MIN, max_value=PRIORITY_MAX), **kwargs)
