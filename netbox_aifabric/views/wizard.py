"""The fabric wizard: design option → topology and devices → pools → traffic, QoS, tenants and telemetry → preview
→ apply.

Each step is a NetBox form. What a step submits is kept in the user's session (``aifabric_wizard``), so Back,
the browser's back/forward buttons and a reload never lose it. Every step validates its own fields and then the whole
intent as far as it is known (``Fabric.clean()``, the same rules as the edit form and the REST API), showing each error
at its field. The preview builds the fabric, its pools and ASN range inside a transaction, computes the plan and the
diff an apply would make, and rolls everything back: nothing is written until "Create" (or "Create and apply")."""

import re
import secrets
import zlib

from django.contrib import messages
from django.contrib.auth.views import redirect_to_login
from django.core.cache import cache
from django.core.exceptions import PermissionDenied, ValidationError
from django.db import connection
from django.http import QueryDict
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils.safestring import mark_safe
from django.utils.translation import gettext_lazy as _
from django.views import View

from netbox_aifabric.apply import branching
from netbox_aifabric.apply.diff import ApplyConflictError, diff_fabric, summarize
from netbox_aifabric.apply.jobs import ui_runs_in_background
from netbox_aifabric.apply.lifecycle import MissingPermissionsError, apply_blockers
from netbox_aifabric.apply.permissions import ObjectPermissionError, visible_changes
from netbox_aifabric.apply.service import request_apply
from netbox_aifabric.apply.shape import fitting_shape
from netbox_aifabric.checks.intent import intent_warnings
from netbox_aifabric.checks.observability import observability_warning
from netbox_aifabric.forms.model_forms import FABRIC_TELEMETRY_FIELDSET
from netbox_aifabric.forms.wizard import FIELD_STEP, FORMS, STEP_NAMES, STEPS, initial_form, required_pools
from netbox_aifabric.forms.wizard_create import CreatePermissionError, build_fabric, port_map_error_field
from netbox_aifabric.intake.intent import telemetry_of
from netbox_aifabric.models import Fabric
from netbox_aifabric.planner import PlanError
from netbox_aifabric.planner.guide import GUIDE_SHAPE
from netbox_aifabric.ui.diff import readable_diff
from netbox_aifabric.ui.pages import allocation_tables
from netbox_aifabric.ui.topology import topology_svg

__all__ = (
    'SESSION_KEY',
    'SUBMISSION_FIELD',
    'SUBMISSION_LOCK_CLASS',
    'SUBMISSION_TOKEN',
    'SUBMISSION_TTL',
    'FabricWizardView',
    'WizardBlockedError',
    'WizardState',
    'apply_reasons',
    'earlier_submission',
    'new_submission_token',
    'record_submission',
    'wizard_blockers',
)


SESSION_KEY = 'aifabric_wizard'


class WizardState:
    """The submitted data of every step, kept in the session as ``{step: {field: [values]}}``."""

    def __init__(self, request):
        self.session = request.session
        self.data = self.session.get(SESSION_KEY) or {}

    def querydict(self, step):
        qd = QueryDict(mutable=True)
        for key, values in self.data.get(step, {}).items():
            qd.setlist(key, values)
        return qd

    def has(self, step):
        return step in self.data

    def save(self, step, post):
        form = FORMS[step]
        self.data[step] = {key: post.getlist(key) for key in form.base_fields if key in post}
        self.session[SESSION_KEY] = self.data
        self.session.modified = True

    def clear(self):
        self.session.pop(SESSION_KEY, None)

    def form(self, step, bound=True):
        form_class = FORMS[step]
        if bound and self.has(step):
            return form_class(self.querydict(step))
        design = self.data.get('design', {})
        return initial_form(
            step, underlay=(design.get('underlay') or [None])[0], design=(design.get('design_option') or [None])[0]
        )

    def cleaned(self):
        """``{step: cleaned_data}`` of every valid step, and the first step that is not valid (or None)."""
        cleaned = {}
        for step in FORMS:
            form = self.form(step)
            if not form.is_bound or not form.is_valid():
                return cleaned, step
            cleaned[step] = form.cleaned_data
        return cleaned, None


def wizard_blockers(cleaned, fabric):
    """``[(step, field, message)]``: what the wizard's defaults promise and this fabric would break, each blocking
    "Create and apply" (shown next to the button): a switch role whose devices would render no config (no NOS, or a
    platform and role without a config template), and management open to every source (no jump-host subnet) unless
    the pools step says so on purpose."""
    blockers = []
    for role, platform, device_role in (
        ('leaf', fabric.platform, fabric.leaf_role),
        ('spine', fabric.spine_platform or fabric.platform, fabric.spine_role),
    ):
        if not any(obj is not None and obj.config_template_id for obj in (platform, device_role)):
            blockers.append(
                (
                    'topology',
                    'leaf_nos' if role == 'leaf' or fabric.platform is None else 'spine_nos',
                    _(
                        'No {role} config would render: choose a NOS (or a platform with a config template) in step 2.'
                    ).format(role=role),
                )
            )
    pools = cleaned.get('pools', {})
    if not pools.get('jump_host_prefix') and not pools.get('open_management'):
        blockers.append(
            (
                'pools',
                'jump_host_prefix',
                _(
                    "No jump-host subnet: the switches' SSH, HTTPS/API and SNMP would accept every source. Give "
                    'one in step 3 (or tick "Leave management open").'
                ),
            )
        )
    return blockers


class _Rollback(Exception):
    pass


class WizardBlockedError(Exception):
    """The wizard's own blockers (``wizard_blockers``) refuse the apply; nothing is written."""


class _AlreadySubmitted(Exception):
    def __init__(self, fabric):
        super().__init__(fabric)
        self.fabric = fabric


# One submission of the preview's form: a random token in a hidden field; what it created is kept in NetBox's cache
SUBMISSION_FIELD = 'submission'


SUBMISSION_TOKEN = re.compile(r'[0-9a-f]{32}')


SUBMISSION_TTL = 24 * 3600


SUBMISSION_LOCK_CLASS = 0x41494657  # 'AIFW': the two-key advisory lock space of the wizard's submissions


def new_submission_token():
    return secrets.token_hex(16)


def _submission_key(token):
    return f'netbox_aifabric.views.wizard.submission.{token}'


def earlier_submission(token):
    """The fabric an earlier POST of ``token`` created, or None. Takes the token's advisory lock until the caller's
    transaction ends, so a second POST (a double click) waits for the first's commit or rollback, then finds what it
    created; a rolled-back first POST left no fabric of that pk."""
    if not token:
        return None
    with connection.cursor() as cursor:
        cursor.execute(
            'SELECT pg_advisory_xact_lock(%s, %s)', [SUBMISSION_LOCK_CLASS, zlib.crc32(token.encode()) - 2**31]
        )
    pk = cache.get(_submission_key(token))
    return Fabric.objects.filter(pk=pk).first() if pk is not None else None


def record_submission(token, fabric):
    """Remember what ``token``'s POST created; written before the commit (under the token's lock), so a waiting
    second POST reads it right after."""
    if token:
        cache.set(_submission_key(token), fabric.pk, SUBMISSION_TTL)


class FabricWizardView(View):
    """``GET ?step=<name>`` shows a step with what was submitted before; ``POST`` validates it and goes on."""

    template_name = 'netbox_aifabric/fabric_wizard.html'

    def dispatch(self, request, *args, **kwargs):
        if not request.user.has_perm('netbox_aifabric.add_fabric'):
            if not request.user.is_authenticated:
                return redirect_to_login(request.get_full_path())
            raise PermissionDenied(_('Creating a fabric needs the add permission on fabrics.'))
        return super().dispatch(request, *args, **kwargs)

    def _step(self, request):
        step = request.GET.get('step') or STEP_NAMES[0]
        return step if step in STEP_NAMES else STEP_NAMES[0]

    def _url(self, step):
        return f'{reverse("plugins:netbox_aifabric:fabric_wizard")}?step={step}'

    def _render(self, request, step, form=None, **context):
        state = WizardState(request)
        index = STEP_NAMES.index(step)
        return render(
            request,
            self.template_name,
            {
                'step': step,
                'steps': [
                    {'name': name, 'label': label, 'done': state.has(name), 'url': self._url(name)}
                    for name, label, _form in STEPS
                ],
                'step_number': index + 1,
                'previous_url': self._url(STEP_NAMES[index - 1]) if index else None,
                'form': form,
                **context,
            },
        )

    def get(self, request):
        step = self._step(request)
        state = WizardState(request)
        if request.GET.get('reset'):
            state.clear()
            return redirect(self._url(STEP_NAMES[0]))
        if step == 'preview':
            return self._preview(request, state)
        form = state.form(step)
        if form.is_bound:
            form.is_valid()  # show the stored data's errors at their fields
            self._whole(state, step, form)
        return self._render(request, step, form)

    def post(self, request):
        step = self._step(request)
        state = WizardState(request)
        if step == 'preview':
            return self._create(request, state)
        state.save(step, request.POST)
        index = STEP_NAMES.index(step)
        if request.POST.get('_back'):
            return redirect(self._url(STEP_NAMES[max(index - 1, 0)]))
        form = state.form(step)
        if not form.is_valid() or not self._whole(state, step, form):
            return self._render(request, step, form)
        return redirect(self._url(STEP_NAMES[index + 1]))

    def _whole(self, state, step, form):
        """Check the fabric as far as the wizard knows it; put the errors of this step's fields on the form.
        Returns whether this step is free of errors."""
        if form.errors:
            return False
        cleaned, _first_invalid = state.cleaned()
        cleaned[step] = form.cleaned_data
        if step == 'pools':
            for field, message in required_pools(cleaned).items():
                form.add_error(field, message)
        try:
            build_fabric(cleaned, save=False)
        except ValidationError as e:
            for field, messages_ in _errors_of(e).items():
                target = FIELD_STEP.get(field, 'design' if field in ('name', 'slug', '__all__') else None)
                if field == 'leaf_asn_range':
                    field = 'leaf_asn_start'
                if field == 'port_map' and step == 'topology':
                    # the breakout or device-type field at fault
                    field = port_map_error_field(e.fabric)
                    for message in messages_:
                        form.add_error(field, message)
                    if field in ('leaf_device_type', 'spine_device_type'):
                        self._shape_hint(form, e.fabric, field)
                    continue
                if target == step and field in form.fields and field not in form.errors:  # one message a field
                    for message in messages_:
                        form.add_error(field, message)
        return not form.errors

    def _shape_hint(self, form, fabric, field):
        """Where the device types lack ports for the declared maximums: the largest maximums they hold (the same
        planner check on the step's ``fabric``), at the device type's ``field`` beside the error; nothing when the
        counts themselves do not fit."""
        sizes = {name: getattr(fabric, name) for name in GUIDE_SHAPE if not name.startswith('max_')}
        sizes['max_leaves'] = fabric.max_leaves
        shape, _error = fitting_shape(
            sizes, fabric.leaf_device_type, fabric.spine_device_type, fabric.design_option, fabric.leaf_pairing
        )
        if shape is not None and (shape['max_spines'], shape['max_parallel_uplinks']) != (
            fabric.max_spines,
            fabric.max_parallel_uplinks,
        ):
            form.add_error(
                field,
                _('These device types hold at most max spines {spines} × max parallel uplinks {parallel}.').format(
                    spines=shape['max_spines'], parallel=shape['max_parallel_uplinks']
                ),
            )

    def _preview(self, request, state):
        cleaned, invalid = state.cleaned()
        if invalid is not None:
            messages.warning(request, _('Complete this step first.'))
            return redirect(self._url(invalid))
        context = {}
        try:
            with branching.atomic():
                fabric = build_fabric(cleaned, save=True, user=request.user)
                try:
                    plan, changes = diff_fabric(fabric)
                    changes = visible_changes(request.user, changes)
                    context = {
                        'plan': plan,
                        'apply_diff': summarize(changes),
                        'diff_groups': readable_diff(changes),
                        # svgwrite escapes every name it writes, so the drawing is safe to embed
                        'svg': mark_safe(topology_svg(plan)),
                        **allocation_tables(plan),
                        'apply_conflicts': [c for c in changes if c.action == 'conflict'],
                        'apply_blockers': apply_blockers(plan),
                        'intent_warnings': intent_warnings(fabric),
                        'observability': observability_warning(
                            telemetry_of(fabric), f'{self._url("intent")}#{FABRIC_TELEMETRY_FIELDSET.html_id}'
                        ),
                        'fabric_preview': fabric,
                        'background_default': ui_runs_in_background(fabric, None),
                    }
                except PlanError as e:
                    context = {'plan_error': e}
                context['wizard_blockers'] = [
                    {'step': step, 'url': self._url(step), 'field': field, 'message': message}
                    for step, field, message in wizard_blockers(cleaned, fabric)
                ]
                raise _Rollback
        except _Rollback:
            pass
        except ValidationError as e:
            return self._back_to_error(request, state, e)
        except CreatePermissionError as e:
            messages.error(request, str(e))
            return redirect(self._url('pools'))
        context['can_apply'] = request.user.has_perm('netbox_aifabric.apply_fabric')
        context['apply_reasons'] = apply_reasons(context)
        context['submission'] = new_submission_token()
        return self._render(request, 'preview', **context)

    def _back_to_error(self, request, state, error):
        errors = _errors_of(error)
        for field in errors:
            step = FIELD_STEP.get(field, 'design')
            if step in FORMS:
                return redirect(self._url(step))
        messages.error(request, '; '.join(f'{k}: {" ".join(v)}' for k, v in errors.items()))
        return redirect(self._url('design'))

    def _create(self, request, state):
        token = request.POST.get(SUBMISSION_FIELD) or ''
        if token and not SUBMISSION_TOKEN.fullmatch(token):
            messages.error(
                request, _('{field}: not a token of this wizard; nothing was written.').format(field=SUBMISSION_FIELD)
            )
            return redirect(self._url('preview'))
        try:
            with branching.atomic():
                earlier = earlier_submission(token)  # waits until an earlier POST of this token has ended
                if earlier is not None:
                    raise _AlreadySubmitted(earlier)
                return self._create_once(request, state, token)
        except _AlreadySubmitted as e:
            state.clear()
            messages.info(
                request,
                _('This form was submitted already: that submission created the fabric {fabric}.').format(
                    fabric=e.fabric
                ),
            )
            return redirect(e.fabric.get_absolute_url())

    def _create_once(self, request, state, token):
        """Create (and apply) the fabric, in the caller's transaction; ``token`` (if any) records it."""
        cleaned, invalid = state.cleaned()
        if invalid is not None:
            return redirect(self._url(invalid))
        apply, queued = bool(request.POST.get('_apply')), False
        if apply and not request.user.has_perm('netbox_aifabric.apply_fabric'):
            messages.error(request, _('You may create the fabric but not apply it (the apply permission is missing).'))
            return redirect(self._url('preview'))
        try:
            with branching.atomic():
                fabric = build_fabric(cleaned, save=True, user=request.user)
                blockers = wizard_blockers(cleaned, fabric) if apply else []
                if blockers:
                    raise WizardBlockedError(' '.join(str(message) for _step, _field, message in blockers))
                if apply:
                    background = ui_runs_in_background(fabric, request.POST.get('background'))
                    queued = request_apply(fabric, request.user, background=background, on_commit=True).queued
                    if queued:
                        messages.info(
                            request, _('The fabric was created; its apply runs in the background (its Jobs tab).')
                        )
                    else:
                        messages.success(request, _('Fabric {fabric} created and applied.').format(fabric=fabric))
                else:
                    messages.success(request, _('Fabric {fabric} created (not applied yet).').format(fabric=fabric))
                record_submission(token, fabric)
        except ValidationError as e:
            return self._back_to_error(request, state, e)
        except CreatePermissionError as e:  # the pools, RIR, ASN range or fabric
            messages.error(request, str(e))
            return redirect(self._url('pools'))
        except (PlanError, ApplyConflictError, MissingPermissionsError, WizardBlockedError) as e:
            messages.error(request, _('Nothing was written: {error}').format(error=e))
            return redirect(self._url('preview'))
        except ObjectPermissionError as e:  # the apply's objects, outside the user's constraints
            messages.error(request, str(e))
            return redirect(self._url('preview'))
        state.clear()
        if apply and queued:  # the job is queued on commit: the fabric's Jobs tab lists it with its progress
            return redirect(reverse('plugins:netbox_aifabric:fabric_jobs', kwargs={'pk': fabric.pk}))
        return redirect(fabric.get_absolute_url())


def apply_reasons(context):
    """Why "Create and apply" is disabled, ``[{'code', 'message', 'url'}]`` shown next to the button: the plan's
    error, its conflicts with NetBox, the guide's hard rules it breaks, the wizard's blockers (with a link to their
    step) and a missing permission."""
    reasons = []
    if context.get('plan_error'):
        error = context['plan_error']
        message = _('The plan has an error (above): {field}: {error}')
        message = message.format(field=error.field_label, error=error.message)
        reasons.append(('plan-error', message))
    conflicts = context.get('apply_conflicts') or []
    if conflicts:
        message = _('{count} planned objects conflict with objects already in NetBox (see the changes above).')
        reasons.append(('conflicts', message.format(count=len(conflicts))))
    for warning in context.get('apply_blockers') or []:
        message = _('The plan breaks a hard rule ({code}): {message}')
        reasons.append((warning.code, message.format(code=warning.code, message=warning.message)))
    reasons = [{'code': code, 'message': message, 'url': None} for code, message in reasons]
    for blocker in context.get('wizard_blockers') or []:
        reasons.append({'code': blocker['field'], 'message': blocker['message'], 'url': blocker['url']})
    if not context.get('can_apply'):
        message = _('Applying needs the apply permission on fabrics; you may create the fabric.')
        reasons.append({'code': 'permission', 'message': message, 'url': None})
    return reasons


def _errors_of(error):
    if hasattr(error, 'error_dict'):
        return {field: [m for e in errors for m in e.messages] for field, errors in error.error_dict.items()}
    return {'__all__': error.messages}
