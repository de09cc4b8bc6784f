"""``GET /api/plugins/aifabric/fabrics/{id}/cabling/``: the fabric's cabling plan, one row per planned cable (label,
rack, kind, speed, both ends with device, rack, position and port, medium, optic, cable, reach) and its racks;
``?format=csv``: the rows as the Cabling tab exports them. Read only; needs the fabric's view permission (object
constraints included: a fabric outside them is a 404, as the ``bom`` action); an invalid plan or reach setting is a
400 naming the field."""

from drf_spectacular.utils import OpenApiResponse, OpenApiTypes, extend_schema
from rest_framework import status
from rest_framework.generics import get_object_or_404
from rest_framework.response import Response
from rest_framework.settings import api_settings
from rest_framework.views import APIView

from netbox.api.authentication import TokenPermissions

from netbox_aifabric.api.bom import BomCSVRenderer
from netbox_aifabric.models import Fabric
from netbox_aifabric.planner import PlanError
from netbox_aifabric.views.cabling import fabric_cabling

__all__ = ('FabricCablingAPIView',)


class FabricCablingAPIView(APIView):
    """The cabling plan of one fabric."""

    queryset = Fabric.objects.all()  # TokenPermissions: GET needs netbox_aifabric.view_fabric
    permission_classes = [TokenPermissions]
    renderer_classes = [*api_settings.DEFAULT_RENDERER_CLASSES, BomCSVRenderer]

    @extend_schema(
        operation_id='plugins_aifabric_fabrics_cabling_retrieve',
        request=None,
        responses={200: OpenApiResponse(OpenApiTypes.OBJECT, description='fabric, racks, rows (one per cable)')},
    )
    def get(self, request, pk):
        """One row per planned cable: label, rack, kind, speed, both ends, medium, optic, cable, reach."""
        fabric = get_object_or_404(Fabric.objects.restrict(request.user, 'view'), pk=pk)
        try:
            cabling = fabric_cabling(fabric, request.user)
        except PlanError as e:
            return Response({e.field: [e.message]}, status=status.HTTP_400_BAD_REQUEST)
        if request.accepted_renderer.format == 'csv':
            disposition = f'attachment; filename="{fabric.slug}-cabling.csv"'
            return Response(cabling.to_csv(), headers={'Content-Disposition': disposition})
        return Response({'fabric': fabric.pk, **cabling.to_dict()})
