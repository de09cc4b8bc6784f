"""Running-config rules (family ``config``): each switch's newest backed-up running config against the config the
plugin renders for it, compared per NOS by ``checks.config_diff`` (EOS and FRR through hier_config, NVUE and SONiC
structurally, after the documented normalisation). A line the running config lacks is ``config-missing``, one it has
beyond the rendered sections is ``config-extra``, one whose value differs is ``config-changed``; each finding carries
the remediation lines in the NOS's syntax. A switch never backed up is ``config-backup``. Sections the plugin does not
render are ignored (listed per switch on its Config compliance tab), never findings. Pure: the facts
(``Facts.configs``) are gathered by ``checks.compliance.config_facts``.
"""

from collections.abc import Callable, Iterator

from netbox_aifabric.checks.engine import DeviceConfig, Facts, Finding, Obj, Rule, Skip

__all__ = ('RULES', 'check_backed_up', 'line_findings')

SECTION_SEPARATOR = ' › '


def _configs(facts: Facts) -> dict[str, DeviceConfig]:
    if facts.context_source != 'devices':
        raise Skip('the fabric has not been applied: no switch runs its config yet')
    if facts.configs is None:
        raise Skip(facts.errors.get('configs') or 'the running configs were not read')
    if not facts.configs:
        raise Skip('the fabric has no switch with a rendered config (no NOS platform or config template)')
    return facts.configs


def _where(section: tuple[str, ...], line: str | None) -> str:
    return SECTION_SEPARATOR.join((*section, line)) if line is not None else '(absent)'


def line_findings(facts: Facts, kind: str) -> Iterator[Finding]:
    """The comparison's findings of ``kind`` (missing, extra, changed) on every switch compared."""
    configs = _configs(facts)
    compared = {name: c.comparison for name, c in configs.items() if c.comparison is not None}
    if not compared:
        raise Skip('no switch has a running config compared yet (see config-backup)')
    for name, comparison in sorted(compared.items()):
        device = Obj('dcim.device', name)
        for line in comparison.findings:
            if line.kind != kind:
                continue
            yield Finding(
                (device,),
                _where(line.section, line.intended),
                _where(line.section, line.running),
                '\n'.join(line.remediation),
            )


def check_backed_up(facts: Facts) -> Iterator[Finding]:
    """Every switch has a running config backed up, and it could be compared."""
    for name, config in sorted(_configs(facts).items()):
        if config.state == 'never backed up':
            yield Finding((Obj('dcim.device', name),), 'a running config backed up', 'never backed up')
        elif config.state == 'not compared':
            yield Finding((Obj('dcim.device', name),), 'a running config compared', config.error or 'not compared')


def _lines(kind: str) -> Callable[[Facts], Iterator[Finding]]:
    def check(facts: Facts) -> Iterator[Finding]:
        return line_findings(facts, kind)

    check.__name__ = f'check_{kind}_lines'
    check.__doc__ = f'The {kind} lines of every switch whose running config was compared.'
    return check


RULES = (
    Rule(
        'config-backup',
        'config',
        'Every switch has a running config backed up and compared',
        'warning',
        'The guide: store switch configuration in Git and use automation for repeatable changes. A switch whose '
        'running config is never read can run anything while NetBox calls it compliant.',
        "Point the fabric's config backup source at the data source your backups land in (Oxidized, RANCID or "
        "examples/ansible/backup.yml) and sync it, or upload the running config on the switch's Config "
        'compliance tab; a config that could not be compared names why.',
        check_backed_up,
    ),
    Rule(
        'config-missing',
        'config',
        'No rendered line is missing from a running config',
        'error',
        'A line the plugin renders and the switch does not run is intent the switch ignores: a lossless queue, an '
        'ACL entry, a BGP neighbour.',
        'Apply the remediation lines shown with each finding (or push the rendered config) and back up again.',
        _lines('missing'),
    ),
    Rule(
        'config-changed',
        'config',
        'No rendered value differs on a running config',
        'error',
        'A value edited on the switch (an MTU, a DSCP map, a neighbour ASN) no longer matches the plan the fabric '
        'was numbered and checked with.',
        'Apply the remediation lines shown with each finding (or push the rendered config) and back up again.',
        _lines('changed'),
    ),
    Rule(
        'config-extra',
        'config',
        'No running config has lines beyond what is rendered in its sections',
        'error',
        'An extra line in a section the plugin renders (a management ACL entry, a BGP neighbour, a VLAN member) '
        'is a change made outside NetBox: it may open the management plane or change forwarding.',
        'Remove it with the remediation lines shown (or model it in NetBox and re-apply) and back up again.',
        _lines('extra'),
    ),
)
