from django import forms
from django.utils.translation import gettext_lazy as _

from utilities.forms.fields import NumericArrayField

from netbox_aifabric.constants import DSCP_MAX, DSCP_MIN, PRIORITY_MAX, PRIORITY_MIN

__all__ = ('DSCPListField', 'InvalidFieldsMixin', 'PriorityListField')


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


class InvalidFieldsMixin:
    """For the plugin's forms: each field in error carries Bootstrap's ``is-invalid`` class, the red outline (and, on
    a TomSelect, its wrapper's) that NetBox's stylesheet draws, besides the red message under the field. Set on the
    form's own copy of the widget whenever an error is added (the field checks, ``clean()``, the model's ``clean()``
    and the wizard's later checks all go through ``add_error``); NetBox's dynamic fields build their bound fields
    themselves, so a bound-field class would miss them."""

    def add_error(self, field, error):
        super().add_error(field, error)
        for name in self._errors or {}:
            widget = self.fields[name].widget if name in self.fields else None
            if widget is not None:
                classes = widget.attrs.get('class', '').split()
                if 'is-invalid' not in classes:
                    widget.attrs['class'] = ' '.join([*classes, 'is-invalid'])
