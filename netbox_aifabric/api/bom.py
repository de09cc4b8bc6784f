"""``GET /api/plugins/aifabric/fabrics/{id}/bom/``: the fabric's bill of materials and the guide's tier
(``?spares_percent=`` 0–100, default 10; ``?format=csv``: the lines as CSV); ``GET …/traffic/``: the traffic matrix
laid on the fabric's plan (``?format=csv``: the loads as CSV). Both read only and need the fabric's view permission
(object constraints included: a fabric outside them is a 404); an invalid fabric or flow is a 400 naming the field."""

import math

from drf_spectacular.utils import OpenApiParameter, OpenApiResponse, OpenApiTypes, extend_schema
from rest_framework import status
from rest_framework.decorators import action
from rest_framework.generics import get_object_or_404
from rest_framework.renderers import BaseRenderer
from rest_framework.response import Response
from rest_framework.settings import api_settings

from netbox_aifabric.intake.traffic import fabric_bom, fabric_traffic
from netbox_aifabric.models import Fabric
from netbox_aifabric.planner import PlanError

__all__ = ('FabricTrafficMixin',)


def _error(e: PlanError):
    return Response({e.field: [e.message]}, status=status.HTTP_400_BAD_REQUEST)


class BomCSVRenderer(BaseRenderer):
    """``?format=csv`` on the ``bom`` and ``traffic`` actions: the CSV text as is; an error body as ``field: message``
    lines."""

    media_type = 'text/csv'
    format = 'csv'
    charset = 'utf-8'

    def render(self, data, accepted_media_type=None, renderer_context=None):
        if isinstance(data, str):
            return data.encode()
        errors = data.items() if isinstance(data, dict) else [('error', data)]
        return ''.join(f'{key}: {value}\n' for key, value in errors).encode()


class FabricTrafficMixin:
    """The ``bom`` and ``traffic`` actions of the fabric viewset."""

    @extend_schema(
        request=None,
        parameters=[OpenApiParameter('spares_percent', OpenApiTypes.NUMBER, description='0–100, default 10')],
        responses={200: OpenApiResponse(OpenApiTypes.OBJECT, description='lines, spares_percent, tier, reasons')},
    )
    @action(detail=True, methods=['get'], renderer_classes=[*api_settings.DEFAULT_RENDERER_CLASSES, BomCSVRenderer])
    def bom(self, request, pk):
        """The bill of materials: switches, optics and DACs by speed and reach, NICs, spares, licences; the tier."""
        fabric = get_object_or_404(Fabric.objects.restrict(request.user, 'view'), pk=pk)
        raw = request.query_params.get('spares_percent', '10')
        try:
            spares = float(raw)
        except ValueError:
            spares = math.nan
        if not math.isfinite(spares) or not 0 <= spares <= 100:
            return Response({'spares_percent': [f'{raw!r} is not a number between 0 and 100']}, status=400)
        try:
            bom = fabric_bom(fabric, spares_percent=spares)
        except PlanError as e:
            return _error(e)
        if request.accepted_renderer.format == 'csv':
            disposition = f'attachment; filename="{fabric.slug}-bom.csv"'
            return Response(bom.to_csv(), headers={'Content-Disposition': disposition})
        return Response({'fabric': fabric.pk, **bom.to_dict()})

    @extend_schema(
        request=None, responses={200: OpenApiResponse(OpenApiTypes.OBJECT, description='flows, loads, warnings')}
    )
    @action(detail=True, methods=['get'], renderer_classes=[*api_settings.DEFAULT_RENDERER_CLASSES, BomCSVRenderer])
    def traffic(self, request, pk):
        """The traffic matrix: per flow its total and cross-leaf Gbit/s, loads per element, warnings; ``?format=csv``:
        the loads as CSV, as the Traffic tab's export."""
        fabric = get_object_or_404(Fabric.objects.restrict(request.user, 'view'), pk=pk)
        try:
            _rows, result = fabric_traffic(fabric)
        except PlanError as e:
            return _error(e)
        if request.accepted_renderer.format == 'csv':
            disposition = f'attachment; filename="{fabric.slug}-traffic.csv"'
            return Response(result.to_csv(), headers={'Content-Disposition': disposition})
        return Response({'fabric': fabric.pk, **result.to_dict()})
