"""``/api/plugins/aifabric/fabrics/{id}/lab/``: ``POST`` runs the fabric lab as a NetBox job (202 with the job; the
lab boots the switches' rendered FRR configs on the worker's host, so it needs the fabric's apply permission, object
constraints included; a lab job of the fabric still pending or running is answered instead, ``reused: true``);
``GET`` the latest lab job of the fabric with its result (view permission).

``/api/plugins/aifabric/acceptance-runs/{id}/upload/``: ``POST`` a tool's output (iperf3 ``--json``, ping) to a manual
run: judged against the plan and stored as a result (201); a bad upload is a 400 naming the field, nothing written.
Needs the change permission on the run (its constraints included) and the add permission on results."""

from django.utils.translation import gettext as _
from drf_spectacular.utils import OpenApiResponse, OpenApiTypes, extend_schema
from rest_framework import status
from rest_framework.decorators import action
from rest_framework.exceptions import PermissionDenied
from rest_framework.generics import get_object_or_404
from rest_framework.response import Response

from core.api.serializers import JobSerializer
from netbox.api.authentication import TokenPermissions

from netbox_aifabric.acceptance.judge import UploadError
from netbox_aifabric.acceptance.store import upload_result
from netbox_aifabric.api.serializers import AcceptanceResultSerializer, AcceptanceUploadSerializer
from netbox_aifabric.lab.jobs import FabricLabJob, request_lab
from netbox_aifabric.models import AcceptanceRun, Fabric
from netbox_aifabric.ui.jobs import last_fabric_job

__all__ = ('AcceptanceUploadMixin', 'FabricLabMixin', 'last_lab_job')


def last_lab_job(fabric):
    """The fabric's newest lab job, or None."""
    return last_fabric_job(fabric, FabricLabJob)


class FabricLabPermission(TokenPermissions):
    """GET needs view permission on fabrics; POST too here, the apply permission on this fabric is checked below."""

    perms_map = {**TokenPermissions.perms_map, 'POST': ['%(app_label)s.view_%(model_name)s']}


class FabricLabMixin:
    """The ``lab`` action of the fabric viewset."""

    def get_permissions(self):
        if self.action == 'lab':
            return [FabricLabPermission()]
        return super().get_permissions()

    @extend_schema(
        request=None,
        responses={
            200: OpenApiResponse(OpenApiTypes.OBJECT, description='The latest lab job and its result (null: none).'),
            202: OpenApiResponse(
                OpenApiTypes.OBJECT,
                description=(
                    '{"fabric": id, "job": the job, "reused": whether the job is the unfinished one of an earlier '
                    'POST}.'
                ),
            ),
        },
    )
    @action(detail=True, methods=['get', 'post'])
    def lab(self, request, pk):
        """The fabric lab: POST queues a run (the switches' FRR configs booted in network namespaces, checked, torn
        down), or answers the one still pending or running; GET answers the latest run with every check (expected
        and seen)."""
        fabric = get_object_or_404(Fabric.objects.restrict(request.user, 'view'), pk=pk)
        if request.method == 'POST':
            if not request.user.has_perm('netbox_aifabric.apply_fabric', obj=fabric):
                raise PermissionDenied(_('Running the lab needs the permission to apply this fabric.'))
            queued = request_lab(fabric, request.user)
            job = JobSerializer(queued.job, context={'request': request}).data
            body = {'fabric': fabric.pk, 'job': job, 'reused': queued.reused}
            return Response(body, status=status.HTTP_202_ACCEPTED)
        job = last_lab_job(fabric)
        data = JobSerializer(job, context={'request': request}).data if job else None
        return Response({'fabric': fabric.pk, 'job': data, 'result': job.data if job else None})


class AcceptanceUploadPermission(TokenPermissions):
    """POST upload: view permission on runs here; the change permission on this run is checked below."""

    perms_map = {**TokenPermissions.perms_map, 'POST': ['%(app_label)s.view_%(model_name)s']}


class AcceptanceUploadMixin:
    """The ``upload`` action of the acceptance run viewset."""

    def get_permissions(self):
        if self.action == 'upload':
            return [AcceptanceUploadPermission()]
        return super().get_permissions()

    @extend_schema(
        request=AcceptanceUploadSerializer,
        responses={
            201: AcceptanceResultSerializer,
            400: OpenApiResponse(OpenApiTypes.OBJECT, description='A bad upload: {field: [message]}; nothing written.'),
        },
    )
    @action(detail=True, methods=['post'])
    def upload(self, request, pk):
        """Judge a tool's output against the fabric's plan and store it as a result of this (manual) run."""
        run = get_object_or_404(AcceptanceRun.objects.restrict(request.user, 'view'), pk=pk)
        changeable = AcceptanceRun.objects.restrict(request.user, 'change').filter(pk=run.pk).exists()
        if not changeable or not request.user.has_perm('netbox_aifabric.add_acceptanceresult'):
            raise PermissionDenied(
                _('Uploading needs the change permission on this run and the add permission on results.')
            )
        body = AcceptanceUploadSerializer(data=request.data)
        body.is_valid(raise_exception=True)
        data = body.validated_data
        try:
            result = upload_result(
                run, data['tool'], data['output'], data.get('source'), data.get('destination'), data.get('subject'),
                data.get('before'),
            )  # fmt: skip
        except UploadError as e:
            return Response({e.field: [e.message]}, status=status.HTTP_400_BAD_REQUEST)
        out = AcceptanceResultSerializer(result, context={'request': request})
        return Response(out.data, status=status.HTTP_201_CREATED)
