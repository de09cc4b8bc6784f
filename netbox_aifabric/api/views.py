from django.utils.translation import gettext as _
from drf_spectacular.utils import OpenApiParameter, OpenApiResponse, OpenApiTypes, extend_schema
from rest_framework import status
from rest_framework.decorators import action
from rest_framework.exceptions import PermissionDenied
from rest_framework.generics import get_object_or_404
from rest_framework.response import Response

from core.api.serializers import JobSerializer
from extras.models import ConfigTemplate
from netbox.api.authentication import TokenPermissions
from netbox.api.viewsets import NetBoxModelViewSet, NetBoxReadOnlyModelViewSet

from netbox_aifabric import filtersets
from netbox_aifabric.api import serializers
from netbox_aifabric.api.bom import FabricTrafficMixin
from netbox_aifabric.api.compliance import FabricComplianceMixin
from netbox_aifabric.api.lab import AcceptanceUploadMixin, FabricLabMixin
from netbox_aifabric.apply.diff import ApplyConflictError, diff_fabric, summarize
from netbox_aifabric.apply.jobs import PLAN_MAX_NODES, plan_size_error
from netbox_aifabric.apply.lifecycle import MissingPermissionsError
from netbox_aifabric.apply.permissions import visible_changes
from netbox_aifabric.apply.service import request_apply
from netbox_aifabric.facts.context import CONTEXT_KEY
from netbox_aifabric.intake.traffic import fabric_traffic_warnings
from netbox_aifabric.models import EVPNTenant, Fabric, FabricNode, QoSProfile, TrafficClass, TrafficFlow
from netbox_aifabric.models.acceptance import AcceptanceResult, AcceptanceRun
from netbox_aifabric.planner import PlanError
from netbox_aifabric.render.avd import avd_structured_config
from netbox_aifabric.render.configs import ConfigRenderer, fabric_devices


class FabricPlanPermission(TokenPermissions):
    """``POST …/plan/`` writes nothing: it needs view permission on the fabric, and no write-enabled token."""

    perms_map = {**TokenPermissions.perms_map, 'POST': ['%(app_label)s.view_%(model_name)s']}

    def _verify_write_permission(self, request):
        return True


class FabricRenderConfigPermission(TokenPermissions):
    """``POST …/render-config/`` needs view permission on the fabric and, as NetBox's own ``render-config``, a
    write-enabled token; the devices are restricted by ``dcim.render_config_device`` and ``dcim.view_device``."""

    perms_map = {**TokenPermissions.perms_map, 'POST': ['%(app_label)s.view_%(model_name)s']}


class FabricApplyPermission(TokenPermissions):
    """``POST …/apply/`` needs the fabric's custom ``apply`` permission (and a write-enabled token)."""

    perms_map = {**TokenPermissions.perms_map, 'POST': ['%(app_label)s.apply_%(model_name)s']}


class TrafficClassViewSet(NetBoxModelViewSet):
    queryset = TrafficClass.objects.all()
    serializer_class = serializers.TrafficClassSerializer
    filterset_class = filtersets.TrafficClassFilterSet


class QoSProfileViewSet(NetBoxModelViewSet):
    queryset = QoSProfile.objects.all()
    serializer_class = serializers.QoSProfileSerializer
    filterset_class = filtersets.QoSProfileFilterSet


class EVPNTenantViewSet(NetBoxModelViewSet):
    queryset = EVPNTenant.objects.all()
    serializer_class = serializers.EVPNTenantSerializer
    filterset_class = filtersets.EVPNTenantFilterSet


class FabricViewSet(FabricComplianceMixin, FabricLabMixin, FabricTrafficMixin, NetBoxModelViewSet):
    queryset = Fabric.objects.all()
    serializer_class = serializers.FabricSerializer
    filterset_class = filtersets.FabricFilterSet

    def get_permissions(self):
        if self.action == 'plan':
            return [FabricPlanPermission()]
        if self.action == 'apply':
            return [FabricApplyPermission()]
        if self.action == 'render_config':
            return [FabricRenderConfigPermission()]
        return super().get_permissions()

    def _fabric(self, request, pk):
        # DRF's get_object_or_404: a pk that is not a number is a 404, not a 500
        return get_object_or_404(Fabric.objects.restrict(request.user, 'view'), pk=pk)

    @staticmethod
    def _body(fabric, plan, changes, applied):
        return {
            'fabric': fabric.pk,
            'applied': applied,
            'summary': summarize(changes),
            'changes': [c.to_dict() for c in changes if c.action != 'keep'],
            'pools': [
                {
                    'name': p.name,
                    'prefix': p.prefix,
                    'size': p.size,
                    'used': p.used,
                    'free': p.free,
                    'percent': p.percent,
                }
                for p in plan.pools
            ],
            'capacity': [
                {'leaf': c.leaf, 'downlink': c.downlink, 'uplink': c.uplink, 'ratio': c.ratio} for c in plan.capacity
            ],
            'warnings': [{'code': w.code, 'field': w.field, 'message': w.message} for w in plan.warnings],
            'traffic_warnings': [vars(w) for w in fabric_traffic_warnings(fabric, plan)],
        }

    @staticmethod
    def _input(serializer_class, request):
        """The validated body; a 400 naming the field (``non_field_errors`` for a body that is not an object)."""
        serializer = serializer_class(data=request.data)
        serializer.is_valid(raise_exception=True)
        return serializer.validated_data

    @staticmethod
    def _plan_error(e):
        return Response({e.field: [e.message]}, status=status.HTTP_400_BAD_REQUEST)

    @extend_schema(
        request=serializers.FabricPlanInputSerializer,
        responses={
            200: serializers.FabricPlanSerializer,
            400: OpenApiResponse(
                OpenApiTypes.OBJECT,
                description='An invalid body or fabric: {field: [message]}; a fabric above the plan_max_nodes setting: '
                '{detail, setting}.',
            ),
        },
    )
    @action(detail=True, methods=['post'])
    def plan(self, request, pk):
        """The diff an apply would make (create / update / keep / use / delete / conflict per object); writes
        nothing. A fabric with more nodes than the plugin setting ``plan_max_nodes`` is refused (400 naming it)."""
        fabric = self._fabric(request, pk)
        data = self._input(serializers.FabricPlanInputSerializer, request)
        if too_large := plan_size_error(fabric):
            return Response({'detail': too_large, 'setting': PLAN_MAX_NODES}, status=status.HTTP_400_BAD_REQUEST)
        try:
            plan, changes = diff_fabric(fabric, confirm_delete=data['confirm_delete'])
        except PlanError as e:
            return self._plan_error(e)
        return Response(self._body(fabric, plan, visible_changes(request.user, changes), applied=False))

    @extend_schema(
        request=serializers.FabricApplyInputSerializer,
        responses={
            200: serializers.FabricPlanSerializer,
            202: serializers.FabricApplyJobSerializer,
            400: OpenApiResponse(OpenApiTypes.OBJECT, description='An invalid body or fabric: {field: [message]}.'),
            409: serializers.FabricApplyConflictSerializer,
        },
    )
    @action(detail=True, methods=['post'])
    def apply(self, request, pk):
        """Apply the plan in one transaction. Body: ``{"confirm_delete": true}`` also deletes owned objects the plan
        no longer has; ``{"background": true}`` (or a plan above ``background_apply_threshold`` links) runs it as a
        job and answers 202 with the job. 409 with the conflicts (nothing written) when the plan collides with objects
        not owned."""
        fabric = self._fabric(request, pk)
        data = self._input(serializers.FabricApplyInputSerializer, request)
        if not request.user.has_perm('netbox_aifabric.apply_fabric', obj=fabric):
            raise PermissionDenied(_('This user does not have permission to apply this fabric.'))
        try:
            outcome = request_apply(fabric, request.user, data['confirm_delete'], data['background'])
        except MissingPermissionsError as e:
            raise PermissionDenied(str(e)) from None
        except PlanError as e:
            return self._plan_error(e)
        except ApplyConflictError as e:
            body = {'detail': str(e), 'changes': [c.to_dict() for c in e.changes if c.action == 'conflict']}
            return Response(body, status=status.HTTP_409_CONFLICT)
        if outcome.queued:
            job = JobSerializer(outcome.job, context={'request': request}).data
            return Response({'fabric': fabric.pk, 'applied': False, 'job': job}, status=status.HTTP_202_ACCEPTED)
        return Response(self._body(fabric, outcome.plan, outcome.changes, applied=True))

    @extend_schema(request=None, responses={200: serializers.FabricAVDSerializer})
    @action(detail=True, methods=['get'])
    def avd(self, request, pk):
        """Arista AVD structured config (``eos_cli_config_gen``) of every switch the fabric applied, from its
        ``aifabric`` config context: ``{"devices": {name: structured config}}``."""
        fabric = self._fabric(request, pk)
        devices = fabric_devices(fabric).restrict(request.user, 'view')
        configs = {}
        for device in devices:
            context = (device.local_context_data or {}).get(CONTEXT_KEY)
            if context and context['role'] in ('spine', 'leaf', 'border'):
                configs[device.name] = avd_structured_config(context)
        return Response({'fabric': fabric.pk, 'devices': configs})

    @extend_schema(
        request=serializers.FabricRenderConfigInputSerializer,
        parameters=[
            OpenApiParameter(
                'device_id', int, many=True, description='Render only these devices of the fabric (repeatable).'
            )
        ],
        responses={
            200: serializers.FabricRenderConfigSerializer,
            400: OpenApiResponse(OpenApiTypes.OBJECT, description='An invalid body: {field: [message]}.'),
        },
    )
    @action(detail=True, methods=['post'], url_path='render-config')
    def render_config(self, request, pk):
        """Render every device of the fabric with its ConfigTemplate, as ``POST /api/dcim/devices/{id}/render-config/``
        renders one, each template compiled once for the whole fabric. The body is the same as there:
        ``config_template_id`` renders every device with that template; other keys are added to each device's
        context. Devices the user may not view and render are left out; devices without a config template are listed
        under ``skipped``; a template error is reported per device (``error``)."""
        fabric = self._fabric(request, pk)
        if not request.user.has_perm('dcim.render_config_device'):
            raise PermissionDenied(_('This user does not have permission to render device configurations.'))
        data = self._input(serializers.FabricRenderConfigInputSerializer, request)
        override = None
        if config_template_id := data.get('config_template_id'):
            try:
                override = ConfigTemplate.objects.restrict(request.user, 'view').get(pk=config_template_id)
            except (ConfigTemplate.DoesNotExist, ValueError):
                message = _('Config template with ID {id} not found.').format(id=config_template_id)
                return Response({'config_template_id': [message]}, status=status.HTTP_400_BAD_REQUEST)
        devices = fabric_devices(fabric, request.user)
        if wanted := request.query_params.getlist('device_id'):
            try:
                devices = devices.filter(pk__in=[int(device_id) for device_id in wanted])
            except ValueError:
                return Response({'device_id': [_('Device IDs are integers.')]}, status=status.HTTP_400_BAD_REQUEST)
        context = {k: v for k, v in request.data.items() if k != 'config_template_id'}
        configs = ConfigRenderer(config_template=override, context=context).render_all(devices)
        body = {
            'fabric': fabric.pk,
            'count': sum(1 for c in configs if c.rendered),
            'errors': sum(1 for c in configs if c.error is not None),
            'results': [c for c in configs if c.config_template is not None],
            'skipped': [c.device for c in configs if c.config_template is None],
        }
        return Response(serializers.FabricRenderConfigSerializer(body, context={'request': request}).data)


class FabricNodeViewSet(NetBoxModelViewSet):
    queryset = FabricNode.objects.all()
    serializer_class = serializers.FabricNodeSerializer
    filterset_class = filtersets.FabricNodeFilterSet


class TrafficFlowViewSet(NetBoxModelViewSet):
    queryset = TrafficFlow.objects.select_related('fabric', 'source_class', 'destination_class')
    serializer_class = serializers.TrafficFlowSerializer
    filterset_class = filtersets.TrafficFlowFilterSet


class AcceptanceRunViewSet(AcceptanceUploadMixin, NetBoxModelViewSet):
    queryset = AcceptanceRun.objects.select_related('fabric', 'user')
    serializer_class = serializers.AcceptanceRunSerializer
    filterset_class = filtersets.AcceptanceRunFilterSet


class AcceptanceResultViewSet(NetBoxReadOnlyModelViewSet):
    queryset = AcceptanceResult.objects.select_related('run__fabric')
    serializer_class = serializers.AcceptanceResultSerializer
    filterset_class = filtersets.AcceptanceResultFilterSet
