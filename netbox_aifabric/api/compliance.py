"""``GET /api/plugins/aifabric/fabrics/{id}/compliance/``: every compliance rule on the fabric, run now, as the
Compliance tab shows it; ``POST`` runs the same checks as a NetBox job (202 with the job; a run of the fabric already
pending is answered instead, ``reused: true``). Both need the fabric's view permission (object constraints included: a
fabric outside them is a 404); POST stores a run, so it needs the add permission on compliance runs too (its
constraints included) and a write-enabled token.

``compliance-runs`` and ``compliance-findings``: the stored runs and their findings, read-only (the compliance job
makes them), filterable, restricted by NetBox's object permissions as every NetBox endpoint.

``config-backups``: the switches' running configs; ``POST`` (``device``, ``content``) uploads one
(``checks.backups.upload_backup``: 201, or 200 with the newest backup when it holds the same; a refused backup is a
400 naming its field, 413 when too large, 403 when object permissions refuse it, and nothing is stored); no
update."""

from django.conf import settings
from drf_spectacular.utils import OpenApiResponse, OpenApiTypes, extend_schema
from rest_framework import status
from rest_framework.decorators import action
from rest_framework.exceptions import PermissionDenied
from rest_framework.generics import get_object_or_404
from rest_framework.response import Response

from core.api.serializers import JobSerializer
from netbox.api.authentication import TokenPermissions
from netbox.api.viewsets import NetBoxModelViewSet, NetBoxReadOnlyModelViewSet

from netbox_aifabric import filtersets
from netbox_aifabric.api.serializers import ComplianceFindingSerializer, ComplianceRunSerializer, ConfigBackupSerializer
from netbox_aifabric.checks.backups import BackupError, upload_backup
from netbox_aifabric.checks.compliance import run_compliance
from netbox_aifabric.checks.job import CompliancePermissionError, request_compliance
from netbox_aifabric.constants import CONFIG_BACKUP_MAX_BYTES as MAX
from netbox_aifabric.models import ComplianceFinding, ComplianceRun, ConfigBackup, Fabric

__all__ = ('ComplianceFindingViewSet', 'ComplianceRunViewSet', 'ConfigBackupViewSet', 'FabricComplianceMixin')


class FabricCompliancePermission(TokenPermissions):
    """Reading (GET) the checks needs view permission on the fabric; running them (POST, a job that stores a run) the
    add permission on compliance runs too (its constraints are checked on the run, in ``request_compliance``)."""

    perms_map = {
        **TokenPermissions.perms_map,
        'POST': ['%(app_label)s.view_%(model_name)s', 'netbox_aifabric.add_compliancerun'],
    }


class FabricComplianceMixin:
    """The ``compliance`` action of the fabric viewset."""

    def get_permissions(self):
        if self.action == 'compliance':
            return [FabricCompliancePermission()]
        return super().get_permissions()

    @extend_schema(
        request=None,
        responses={
            200: OpenApiResponse(OpenApiTypes.OBJECT, description='The compliance result: ok, counts, results.'),
            202: JobSerializer,
        },
    )
    @action(detail=True, methods=['get', 'post'])
    def compliance(self, request, pk):
        """Every compliance rule (drift, fabric, RoCE/QoS, security) with its status and findings (objects with
        their URL and last change-log entry, expected and found). POST: run them as a job instead."""
        fabric = get_object_or_404(Fabric.objects.restrict(request.user, 'view'), pk=pk)
        if request.method == 'POST':
            try:
                queued = request_compliance(fabric, request.user)
            except CompliancePermissionError as e:
                raise PermissionDenied(str(e.args[0])) from None
            job = JobSerializer(queued.job, context={'request': request}).data
            return Response({'fabric': fabric.pk, 'job': job, 'reused': queued.reused}, status=status.HTTP_202_ACCEPTED)
        result = run_compliance(fabric, user=request.user).to_dict()
        return Response({**result, 'fabric': fabric.pk, 'fabric_name': result['fabric']})


class ComplianceRunViewSet(NetBoxReadOnlyModelViewSet):
    queryset = ComplianceRun.objects.select_related('fabric', 'user', 'job')
    serializer_class = ComplianceRunSerializer
    filterset_class = filtersets.ComplianceRunFilterSet


class ComplianceFindingViewSet(NetBoxReadOnlyModelViewSet):
    queryset = ComplianceFinding.objects.select_related('run', 'run__fabric', 'object_type')
    serializer_class = ComplianceFindingSerializer
    filterset_class = filtersets.ComplianceFindingFilterSet


class ConfigBackupViewSet(NetBoxModelViewSet):
    queryset = ConfigBackup.objects.select_related('fabric', 'device', 'user')
    serializer_class = ConfigBackupSerializer
    filterset_class = filtersets.ConfigBackupFilterSet
    http_method_names = ['get', 'post', 'delete', 'head', 'options']  # a backup is what the switch ran: never edited

    def create(self, request, *args, **kwargs):
        # a body over Django's limit raises on reading it, which NetBox answers with a 500: refuse it by name first
        length = request.META.get('CONTENT_LENGTH') or '0'
        limit = settings.DATA_UPLOAD_MAX_MEMORY_SIZE
        if limit is not None and length.isdigit() and int(length) > limit:
            message = f'the request is {int(length):,} bytes; NetBox takes at most {limit:,} (a backup: {MAX:,})'
            return Response({'content': [message]}, status=status.HTTP_413_REQUEST_ENTITY_TOO_LARGE)
        if isinstance(request.data, list):
            return Response({'detail': 'Upload one backup per request.'}, status=status.HTTP_400_BAD_REQUEST)
        serializer = self.get_serializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        data = serializer.validated_data
        try:
            backup, created = upload_backup(request.user, data['device'], data['content'])
        except BackupError as e:
            return Response({e.field: [e.message]}, status=e.status)
        answer = self.get_serializer(backup).data
        return Response(answer, status=status.HTTP_201_CREATED if created else status.HTTP_200_OK)
