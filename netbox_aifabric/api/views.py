from netbox.api.viewsets import NetBoxModelViewSet

from .. import filtersets
from ..models import EVPNTenant, Fabric, QoSProfile, TrafficClass
from . import serializers


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


class FabricViewSet(NetBoxModelViewSet):
    queryset = Fabric.objects.all()
    serializer_class = serializers.FabricSerializer
    filterset_class = filtersets.FabricFilterSet
