"""The compliance run of a NetBox fabric: its facts gathered from NetBox, every rule run, and the findings' objects
linked (URL and last change-log entry), as far as the user may see them.

- Contexts: each applied device's stored ``aifabric`` context (what ConfigTemplates and Ansible read); a fabric never
  applied is checked on the contexts its plan would give (``context_source = 'plan'``).
- Drift: the apply engine's own diff (``apply.diff.changes_of(inputs, confirm_delete=True)``): what an apply would
  update, create, delete or refuse is what differs between NetBox and the applied plan; a device's context that differs
  from the plan's is the Automation family's ``automation-stale``, not drift.
- Drift beyond the diff (``owned_drift``): NetBox objects the fabric does not own inside its pools (a Prefix or IP
  address in its loopback, VTEP, point-to-point or MLAG peer pool, a Prefix in a server pool, an ASN in its leaf
  range), except those the diff already reports as conflicts. (An owned ASN renumbered by hand is in the diff: the
  engine compares the number too, and a re-apply sets it back.)
- Automation: the fabric's devices the plan gives a context, their config templates (as NetBox resolves them) and the
  switches rendered with them (``render.configs.ConfigRenderer``, as ``render-config`` renders).
- Running configs: each switch's newest backup (``ConfigBackup``) against the config rendered for Automation, compared
  per NOS (``checks.config_diff``).
- Traffic: the fabric's flows laid on the plan (``traffic.fabric_traffic``): the matrix's warnings and its flows.
"""

import re
from collections import defaultdict
from contextlib import nullcontext
from dataclasses import replace

import netaddr
from django.apps import apps
from django.contrib.contenttypes.models import ContentType
from django.db.models import Q

from core.models import ObjectChange
from dcim.models import Device, Interface
from ipam.models import ASN, VLAN, VRF, IPAddress, Prefix

from netbox_aifabric.apply.diff import changes_of, related_fields
from netbox_aifabric.checks.backups import latest_backups, nos_of_device
from netbox_aifabric.checks.config_diff import ConfigParseError, compare_config
from netbox_aifabric.checks.engine import DeviceAutomation, DeviceConfig, DriftItem, Facts, Obj, run_rules
from netbox_aifabric.checks.rules import RULES
from netbox_aifabric.constants import LLDP_CATEGORIES, LLDP_DEVICE_CATEGORY
from netbox_aifabric.facts.context import CONTEXT_KEY
from netbox_aifabric.intake.inputs import FabricInputs
from netbox_aifabric.intake.traffic import fabric_traffic
from netbox_aifabric.models import AcceptanceRun, OwnedObject
from netbox_aifabric.planner import PlanError
from netbox_aifabric.planner.traffic import TrafficError
from netbox_aifabric.render.configs import ConfigRenderer, fabric_devices

__all__ = (
    'acceptance_facts',
    'automation_facts',
    'config_facts',
    'device_config',
    'drift_items',
    'fabric_facts',
    'hide_running_lines',
    'link_objects',
    'owned_drift',
    'pool_intruders',
    'run_compliance',
)

IGNORED = ('keep', 'use', 'adopt')  # in step with the plan, or an adoption the next apply makes


def acceptance_facts(fabric) -> dict:
    """``{'fabric_id', 'last_applied': datetime | None, 'latest': {kind: {'id', 'name', 'time', 'status', 'passed',
    'failed', 'not_verified'}}, 'lldp': lldp_facts}``: the fabric's last apply, its newest acceptance
    run of each kind and its newest LLDP-judged run."""
    latest = {}
    for run in AcceptanceRun.objects.filter(fabric=fabric).order_by('-time', '-pk'):
        if run.kind not in latest:
            latest[run.kind] = {
                'id': run.pk,
                'name': str(run),
                'time': run.time,
                'status': run.status,
                'passed': run.passed,
                'failed': run.failed,
                'not_verified': run.not_verified,
            }
    return {'fabric_id': fabric.pk, 'last_applied': fabric.last_applied, 'latest': latest, 'lldp': lldp_facts(fabric)}


def lldp_facts(fabric) -> dict | None:
    """``{'run': {'id', 'name', 'time'}, 'results': [{'name', 'category', 'subject', 'status', 'expected', 'seen'}]}``
    of the fabric's newest acceptance run with an LLDP upload, None without one (the ``fabric-lldp`` rule's facts)."""
    run = (
        AcceptanceRun.objects.filter(fabric=fabric, results__category=LLDP_DEVICE_CATEGORY)
        .distinct()
        .order_by('-time', '-pk')
        .first()
    )
    if run is None:
        return None
    fields = ('name', 'category', 'subject', 'status', 'expected', 'seen')
    results = list(run.results.filter(category__in=LLDP_CATEGORIES).order_by('pk').values(*fields))
    return {'run': {'id': run.pk, 'name': str(run), 'time': run.time}, 'results': results}


def run_compliance(fabric, user=None, rules=RULES, step=None):
    """Every rule on ``fabric``; the findings' objects linked for ``user`` (None: no restriction, e.g. a job), and
    what the running configs hold hidden from a user who may not view config backups (:func:`hide_running_lines`).
    ``step``: see :func:`fabric_facts`; the rules run as step ``rules``, the linking as ``link``."""
    step = step or _no_step
    facts = fabric_facts(fabric, step)
    with step('rules'):
        result = run_rules(rules, facts)
    with step('link'):
        result = link_objects(result, fabric, user)
    if user is not None and not user.has_perm('netbox_aifabric.view_configbackup'):
        result = hide_running_lines(result)
    return result


HIDDEN = '(hidden: needs view permission on config backups)'


def hide_running_lines(result):
    """``result`` with the running-config findings' ``found`` and remediation replaced by :data:`HIDDEN`: a running
    config may hold what the plugin never renders (an SNMP community, a user's key), shown only to who may view the
    backups. The rendered side (``expected``) is the contexts', which the fabric's viewers see anyway."""
    results = [
        replace(r, findings=[replace(f, found=HIDDEN, remediation=HIDDEN) for f in r.findings])
        if r.rule.family == 'config' and r.rule.id != 'config-backup'  # its findings name states and reasons
        else r
        for r in result.results
    ]
    return replace(result, results=results)


def _no_step(_name):
    return nullcontext()


def fabric_facts(fabric, step=_no_step) -> Facts:
    """The facts the rules read. ``step(name)``, a context manager factory, wraps each part of the gathering
    (``intent``, ``contexts``, ``plan`` (the apply engine's diff), ``drift``, ``automation``, ``traffic``): the
    benchmark and the query-count test measure them one by one."""
    errors = {}
    inputs = FabricInputs(fabric)  # the nodes, plan, intent and contexts, read once for every part
    with step('intent'):
        intent = inputs.intent
    with step('contexts'):
        records = {r.key: r for r in OwnedObject.objects.filter(fabric=fabric).select_related('object_type')}
        device_ids = [r.object_id for key, r in records.items() if key.startswith('device:')]
        contexts = {
            d.name: d.local_context_data[CONTEXT_KEY]
            for d in Device.objects.filter(pk__in=device_ids).only('name', 'local_context_data')
            if (d.local_context_data or {}).get(CONTEXT_KEY)
        }
    plan, drift, planned, automation, traffic, flows, configs = None, None, None, None, None, None, None
    rendered: dict = {}
    try:
        with step('plan'):
            plan, changes = inputs.plan, changes_of(inputs, confirm_delete=True)
    except PlanError as e:
        for part in ('plan', 'drift', 'automation', 'traffic', 'configs'):
            errors[part] = f'the plan fails: {e}'
    else:
        planned = inputs.contexts  # the diff's own (the devices' desired contexts)
        if records:
            with step('drift'):
                drift = drift_items(changes, records) + owned_drift(fabric, records, changes)
            with step('automation'):
                automation = automation_facts(fabric, plan, planned, rendered)
            with step('configs'):
                configs = config_facts(fabric, rendered)
            if fabric.config_backup_source_id is None and all(c.backup is None for c in configs.values()):
                configs = None
                errors['configs'] = (
                    'no running config is collected: the fabric names no config backup source and no backup was '
                    'uploaded'
                )
        with step('traffic'):
            traffic, flows = _traffic_facts(fabric, plan, intent, errors)
    source = 'devices'
    if not contexts and plan is not None:
        contexts, source = planned, 'plan'
    return Facts(
        fabric.name,
        contexts,
        intent,
        plan,
        drift,
        fabric.oversubscription_target,
        source,
        errors,
        planned=planned,
        automation=automation,
        traffic=traffic,
        flows=flows,
        acceptance=acceptance_facts(fabric),
        configs=configs,
    )


def _traffic_facts(fabric, plan, intent, errors):
    """``(warnings, flows)`` of the fabric's traffic matrix; ``(None, None)`` with the reason in ``errors`` when a
    flow cannot be placed (the Traffic tab shows that error). The security matrix from the intent's classes (read
    once, for every family)."""
    try:
        _rows, matrix = fabric_traffic(fabric, plan, classes=intent['traffic_classes'])
    except TrafficError as e:
        errors['traffic'] = f'the traffic matrix fails: {e}'
        return None, None
    return list(matrix.warnings), [r.flow for r in matrix.flows]


def automation_facts(fabric, plan, planned, rendered=None) -> dict:
    """``{device name: DeviceAutomation}`` for the fabric's devices the plan gives a context: the switches (the plan's
    nodes) with their config template's name and render error, rendered as ``render-config`` would. ``rendered``, a
    dict, receives each switch's ``RenderedConfig`` (the running-config rules compare them)."""
    switches = {node.name for node in plan.nodes}
    devices = fabric_devices(fabric).filter(name__in=list(planned))
    facts = {}
    for config in ConfigRenderer().render_all(devices.filter(name__in=list(switches)).select_related('platform')):
        template = config.config_template
        facts[config.device.name] = DeviceAutomation(True, template.name if template else None, config.error)
        if rendered is not None:
            rendered[config.device.name] = config
    for name in devices.exclude(name__in=list(switches)).values_list('name', flat=True):
        facts[name] = DeviceAutomation(False)
    return facts


def config_facts(fabric, rendered) -> dict[str, DeviceConfig]:
    """``{switch name: DeviceConfig}``: each rendered switch (``{name: RenderedConfig}``) with a NOS, its newest
    backup and the two compared (``checks.config_diff``)."""
    backups = latest_backups(fabric)
    configs = {}
    for name, config in rendered.items():
        nos = nos_of_device(config.device, config.config_template)
        backup = backups.get(config.device.pk)
        info = None if backup is None else {
            'id': backup.pk, 'time': backup.time, 'source': backup.source, 'origin': backup.origin,
        }  # fmt: skip
        if nos is None:
            configs[name] = DeviceConfig(None, config.content, info, error='no NOS the plugin renders for')
        elif not config.rendered:
            configs[name] = DeviceConfig(nos.key, None, info, error=config.error or 'no config template')
        elif backup is None:
            configs[name] = DeviceConfig(nos.key, config.content)
        else:
            configs[name] = _compared(nos, config.content, backup, info)
    return configs


def device_config(fabric, device) -> DeviceConfig:
    """One switch's :class:`DeviceConfig` (its Config compliance tab): rendered now, against its newest backup."""
    return config_facts(fabric, {device.name: ConfigRenderer().render(device)})[device.name]


def _compared(nos, intended, backup, info) -> DeviceConfig:
    try:
        comparison = compare_config(nos.key, intended, backup.content)
    except ConfigParseError as e:
        return DeviceConfig(nos.key, intended, info, error=f'the backup cannot be read: {e}')
    return DeviceConfig(nos.key, intended, info, comparison)


def _current(obj, name):
    value = getattr(obj, name)
    if hasattr(value, 'all'):  # many-to-many
        return sorted(str(v) for v in value.all())
    return value if isinstance(value, int | bool) or value is None else str(value)


def drift_items(changes, records) -> list[DriftItem]:
    """The apply engine's changes as drift items: what the plan wants (``expected``) and what NetBox has
    (``found``), owned objects that are gone marked ``deleted``. A device's context is left to ``automation-stale``."""
    instances, changed = defaultdict(dict), defaultdict(set)
    for c in changes:
        if c.action == 'update' and c.pk is not None:
            instances[c.model][c.pk] = None
            changed[c.model].update(c.fields)
    for label, pks in instances.items():
        model = apps.get_model(label)
        queryset = model.objects.all()
        if related := related_fields(model, changed[label]):  # select_related() without names would join every FK
            queryset = queryset.select_related(*related)
        instances[label] = queryset.in_bulk(list(pks))
    items = []
    for c in changes:
        if c.action in IGNORED or (c.action == 'create' and c.reason == 'made by its device'):
            continue
        device = c.key.split(':')[1] if c.key.startswith('interface:') else None
        if c.action == 'update' and c.pk is None:  # a value set on a device (its context, its primary IP)
            fields = {k: v for k, v in c.fields.items() if k != 'local_context_data'}
            if fields:
                record = records.get(c.object)
                obj = Obj('dcim.device', c.object.split(':', 1)[1], pk=record.object_id if record else None)
                items.append(DriftItem('update', c.key, obj, fields, {k: '—' for k in fields}))
            continue
        if c.action == 'update':
            instance = instances[c.model].get(c.pk)
            found = {k: _current(instance, k) for k in c.fields} if instance else {}
            items.append(DriftItem('update', c.key, Obj(c.model, c.object, device, c.pk), c.fields, found))
        elif c.action == 'create':
            record = records.get(c.key)
            if record is not None:  # the fabric owned it: deleted by hand
                label = f'{record.object_type.app_label}.{record.object_type.model}'
                obj = Obj(label, c.object, device, record.object_id)
                items.append(DriftItem('create', c.key, obj, c.fields, reason=c.reason, deleted=True))
            else:
                items.append(DriftItem('create', c.key, Obj(c.model, c.object, device), c.fields, reason=c.reason))
        else:  # delete, conflict
            items.append(DriftItem(c.action, c.key, Obj(c.model, c.object, device, c.pk), reason=c.reason))
    return items


OWN_POOLS = ('loopback_pool', 'vtep_pool', 'p2p_pool', 'mlag_peer_pool')  # each belongs to one fabric (Fabric.clean)


def owned_drift(fabric, records, changes) -> list[DriftItem]:
    """What the apply engine's diff does not see: foreign objects in the pools."""
    return pool_intruders(fabric, records, changes)


def _pools(fabric):
    """``[(label, pool prefix, owned by this fabric only)]``: the fabric's own pools, then its classes' prefixes (the
    server pools, which traffic classes may share between fabrics)."""
    pools = [(str(fabric._meta.get_field(name).verbose_name), getattr(fabric, name)) for name in OWN_POOLS]
    found = [(label, pool, True) for label, pool in pools if pool is not None]
    for tc in fabric.traffic_classes.select_related('prefix').exclude(prefix=None).order_by('name'):
        found.append((f'server pool of {tc.name}', tc.prefix, False))
    return found


def _pool_of(value, pools):
    network = netaddr.IPNetwork(str(value))
    for label, pool, own in pools:
        if network in netaddr.IPNetwork(str(pool.prefix)) and network.prefixlen >= pool.prefix.prefixlen:
            return label, pool, own
    return None


def pool_intruders(fabric, records, changes) -> list[DriftItem]:
    """Objects the fabric does not own inside its pools: Prefixes (in any pool, the pools themselves aside) and IP
    addresses (in its own pools: a server pool holds the servers' addresses), in the pool's VRF, and ASNs in its leaf
    ASN range; objects another fabric owns count only in this fabric's own pools. Those the diff reports as conflicts
    (where the plan wants its own) are ``drift-conflict``'s. One query per model, whatever the fabric's size."""
    owned_here = defaultdict(set)
    for r in records.values():
        owned_here[f'{r.object_type.app_label}.{r.object_type.model}'].add(r.object_id)
    reported = {(c.model, c.pk) for c in changes if c.action == 'conflict'}
    pools = _pools(fabric)
    # the pools themselves and the fabric's other prefixes (management pool, jump-host subnet) are the fabric's
    pool_pks = {pool.pk for _label, pool, _own in pools} | {
        getattr(fabric, f.attname) for f in fabric._meta.concrete_fields if f.related_model is Prefix
    }
    owned_elsewhere = {
        (f'{r.object_type.app_label}.{r.object_type.model}', r.object_id)
        for r in OwnedObject.objects.exclude(fabric=fabric)
        .filter(key__startswith='prefix:')
        .select_related('object_type')
    }
    candidates = []
    if pools:
        prefixes = Prefix.objects.filter(_within('prefix__net_contained_or_equal', pools)).exclude(pk__in=pool_pks)
        candidates += [('ipam.prefix', p, p.prefix) for p in prefixes.order_by('prefix')]
    own_pools = [p for p in pools if p[2]]
    if own_pools:
        addresses = IPAddress.objects.filter(_within('address__net_host_contained', own_pools))
        candidates += [('ipam.ipaddress', a, a.address.ip) for a in addresses.order_by('address')]
    items = []
    for label, obj, value in candidates:
        where = _pool_of(value, pools)
        if where is None or obj.pk in owned_here[label] or (label, obj.pk) in reported:
            continue
        if not where[2] and (label, obj.pk) in owned_elsewhere:
            continue
        items.append(_intruder(label, obj, f'inside the {where[0]} {where[1].prefix}'))
    asn_range = fabric.leaf_asn_range
    if asn_range is not None:
        asns = ASN.objects.filter(asn__gte=asn_range.start, asn__lte=asn_range.end).exclude(
            pk__in=owned_here['ipam.asn']
        )
        for asn in asns.order_by('asn'):
            if ('ipam.asn', asn.pk) not in reported:
                items.append(_intruder('ipam.asn', asn, f'inside the leaf ASN range {_range_text(asn_range)}'))
    return items


def _range_text(asn_range) -> str:
    """``AI Lab leaves (65101–65199)``; the range alone when its name is the range (``65201–65299``: said once)."""
    numbers = f'{asn_range.start}–{asn_range.end}'
    if re.sub(r'\s*[-–]\s*', '–', asn_range.name or '') in ('', numbers):
        return numbers
    return f'{asn_range.name} ({numbers})'


def _within(lookup, pools):
    query = Q()
    for _label, pool, _own in pools:
        query |= Q(**{lookup: str(pool.prefix), 'vrf_id': pool.vrf_id})
    return query


def _intruder(label, obj, where) -> DriftItem:
    return DriftItem('foreign', f'{label}:{obj.pk}', Obj(label, str(obj), pk=obj.pk), reason=where)


def _resolve(objs, fabric):
    """``{(model, device, name, pk): instance}`` for the objects named without a pk, and those with one."""
    found = {}
    by_model = defaultdict(set)
    for o in objs:
        by_model[o.model].add(o)
    owned_devices = OwnedObject.objects.filter(fabric=fabric, key__startswith='device:').values('object_id')
    names = {o.name for o in by_model['dcim.device']} | {o.device for o in by_model['dcim.interface'] if o.device}
    devices = {d.name: d for d in Device.objects.filter(pk__in=owned_devices, name__in=names)}
    lookups = {
        'dcim.device': lambda names: devices.values(),
        'ipam.vlan': lambda names: VLAN.objects.filter(group__slug=f'{fabric.slug}-vlans', name__in=names),
        'ipam.vrf': lambda names: VRF.objects.filter(name__in=names),
        'netbox_aifabric.trafficclass': lambda names: fabric.traffic_classes.filter(name__in=names),
    }
    for model, members in by_model.items():
        with_pk = {o.pk for o in members if o.pk is not None}
        if with_pk:
            for pk, instance in apps.get_model(model).objects.in_bulk(list(with_pk)).items():
                found[model, pk] = instance
        unnamed = {o.name for o in members if o.pk is None}
        if not unnamed:
            continue
        if model == 'dcim.interface':
            wanted = {(o.device, o.name) for o in members if o.pk is None}
            names_of = {d.pk: name for name, d in devices.items()}  # not i.device: one query per interface
            for i in Interface.objects.filter(device__in=devices.values(), name__in={n for _, n in wanted}):
                found[model, names_of[i.device_id], i.name] = i
        elif model in lookups:
            for instance in lookups[model](unnamed):
                found[model, None, instance.name] = instance
    return found


def _instance(found, o):
    if o.pk is not None:
        return found.get((o.model, o.pk))
    return found.get((o.model, o.device if o.model == 'dcim.interface' else None, o.name))


def link_objects(result, fabric, user=None):
    """``result`` with each finding's objects given their pk and URL (when the user may view them) and their last
    change-log entry (when the user may view the change log)."""
    objs = {o for _, finding in result.findings() for o in finding.objects}
    if not objs:
        return result
    found = _resolve(objs, fabric)
    pks = defaultdict(set)
    for o in objs:
        instance = _instance(found, o)
        pk = instance.pk if instance is not None else o.pk
        if pk is not None:
            pks[o.model].add(pk)
    visible, changes = {}, {}
    for label, ids in pks.items():
        model = apps.get_model(label)
        queryset = model.objects.filter(pk__in=ids)
        visible[label] = set((queryset.restrict(user, 'view') if user else queryset).values_list('pk', flat=True))
        log = ObjectChange.objects.restrict(user, 'view') if user else ObjectChange.objects.all()
        log = (
            log.filter(changed_object_type=ContentType.objects.get_for_model(model), changed_object_id__in=ids)
            .order_by('changed_object_id', '-time')
            .distinct('changed_object_id')
            .select_related('user')
        )
        for entry in log:
            changes[label, entry.changed_object_id] = {
                'id': entry.pk,
                'time': entry.time.isoformat(),
                'user': entry.user_name,
                'action': entry.action,
                'url': entry.get_absolute_url(),
            }

    def link(o):
        instance = _instance(found, o)
        pk = instance.pk if instance is not None else o.pk
        shown = instance is not None and pk in visible.get(o.model, ())
        return Obj(
            o.model,
            o.name,
            o.device,
            pk if shown or instance is None else None,  # a deleted object keeps its id (its change log)
            instance.get_absolute_url() if shown else None,
            changes.get((o.model, pk)),
        )

    return result.map_objects(link)
