"""The compliance checks as a NetBox custom script in the legacy report style (one ``test_*`` method per rule family,
each finding a failure linked to its object), for NetBox's own script results and schedules.

NetBox 4.7 deprecates custom scripts (removal planned for 5.0), and a plugin cannot register one: an administrator
installs ``report_module.py`` (next to this file) as a script module, see docs/compliance.md. The checks themselves
live in the plugin (``checks.compliance``), also shown on the fabric's Compliance tab and served by the REST API.
"""

from extras.scripts import ObjectVar, Script

from netbox_aifabric.checks.compliance import run_compliance
from netbox_aifabric.models import Fabric

__all__ = ('FabricComplianceReport',)


class Linked:
    """An object of a finding as NetBox's script log links it (its name and URL)."""

    def __init__(self, obj):
        self.obj = obj

    def __str__(self):
        return str(self.obj)

    def get_absolute_url(self):
        return self.obj.url


class FabricComplianceReport(Script):
    class Meta:
        name = 'AI fabric compliance'
        description = (
            'Drift, fabric, RoCE/QoS, security, automation, traffic and running-config rules of the AI fabrics '
            '(netbox-aifabric)'
        )
        commit_default = False
        scheduling_enabled = True

    fabric = ObjectVar(model=Fabric, required=False, description='Leave empty to check every fabric you may view.')

    def run(self, data, commit):
        user = getattr(self.request, 'user', None)
        if data.get('fabric'):
            fabrics = [data['fabric']]
        else:
            fabrics = Fabric.objects.restrict(user, 'view') if user is not None else Fabric.objects.all()
        self.results = [(fabric, run_compliance(fabric, user=user)) for fabric in fabrics]
        self.run_tests()
        failed = sum(1 for _, result in self.results if not result.ok)
        return f'{len(self.results)} fabric(s) checked, {failed} not compliant.'

    def _family(self, family):
        for fabric, result in self.results:
            for r in result.results:
                if r.rule.family != family:
                    continue
                head = f'{fabric}: {r.rule.id} ({r.rule.severity}) {r.rule.title}'
                if r.status == 'pass':
                    self.log_success(head, obj=fabric)
                elif r.status == 'skip':
                    self.log_info(f'{head}: skipped, {r.note}', obj=fabric)
                elif r.status == 'error':
                    self.log_failure(f'{head}: the rule broke: {r.note}', obj=fabric)
                for finding in r.findings:
                    target = next((o for o in finding.objects if o.url), None)
                    objects = ', '.join(str(o) for o in finding.objects)
                    fix = f'Remediation:\n{finding.remediation}' if finding.remediation else r.rule.fix
                    message = f'{head}: {objects}: expected {finding.expected}, found {finding.found}. {fix}'
                    if r.rule.severity == 'error':
                        self.log_failure(message, obj=Linked(target) if target else fabric)
                    else:
                        self.log_warning(message, obj=Linked(target) if target else fabric)

    def test_1_drift(self):
        self._family('drift')

    def test_2_fabric(self):
        self._family('fabric')

    def test_3_roce(self):
        self._family('roce')

    def test_4_security(self):
        self._family('security')

    def test_5_automation(self):
        self._family('automation')

    def test_6_traffic(self):
        self._family('traffic')

    def test_7_config(self):
        self._family('config')
