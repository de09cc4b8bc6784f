"""A NetBox script module (install it as ``aifabric_compliance.py``: docs/compliance.md) with the AI fabric
compliance report. NetBox 4.7 deprecates custom scripts for 5.0: the fabric's Compliance tab, its REST action and the
compliance job run the same checks without it."""

import netbox_aifabric.checks.script as compliance


class FabricCompliance(compliance.FabricComplianceReport):
    pass
