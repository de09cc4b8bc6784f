"""Running configs in: a switch's backup read from the fabric's NetBox Data Source (after each sync) or uploaded (the
device's Config compliance tab and ``POST /api/plugins/aifabric/config-backups/``), checked and stored as a
:class:`~netbox_aifabric.models.ConfigBackup`. One path for both: :func:`store_backup`.

A backup is refused by name, and nothing is stored, when it is not one of the fabric's switches' running config: a
device the fabric does not own, a device with no NOS the plugin renders for (a server), more than
``CONFIG_BACKUP_MAX_BYTES``, not UTF-8 text (an image, a tarball, NUL bytes), or text its NOS's parser refuses (a
SONiC backup that is no config_db.json). A backup identical to the switch's newest is not stored again; the oldest
beyond ``config_backup_retention`` (plugin setting, per switch, default 10) are deleted.
"""

import hashlib
import json
import re
from dataclasses import dataclass, field

import yaml
from django.utils import timezone

from core.models import DataFile
from dcim.models import Device
from netbox.plugins import get_plugin_config

from netbox_aifabric.apply import branching
from netbox_aifabric.checks.config_diff import ConfigParseError, compare_config
from netbox_aifabric.constants import CONFIG_BACKUP_MAX_BYTES
from netbox_aifabric.facts.nos import Nos, nos_by_platform, nos_by_template_name
from netbox_aifabric.models import ConfigBackup, ConfigBackupSourceChoices, Fabric, OwnedObject
from netbox_aifabric.render.configs import fabric_devices

__all__ = (
    'BackupError',
    'SyncOutcome',
    'backup_file_name',
    'fabric_of_device',
    'fabric_switches',
    'hostname_of',
    'latest_backups',
    'nos_of_device',
    'read_data_source',
    'store_backup',
    'upload_backup',
)

DEFAULT_RETENTION = 10


class _Refused(Exception):
    pass


class BackupError(ValueError):
    """A backup refused: ``field`` (``device``, ``content``) and the reason; ``status`` the HTTP status it answers
    (413 for too large, 400 otherwise)."""

    def __init__(self, field_name: str, message: str, status: int = 400):
        super().__init__(message)
        self.field = field_name
        self.message = message
        self.status = status


def nos_of_device(device, config_template=None) -> Nos | None:
    """The NOS the plugin renders ``device``'s config for: its platform's, else its config template's
    (``config_template`` when the caller resolved it, e.g. a render's; else NetBox resolves it) by the shipped
    templates' names; None for neither (a server, a platform the plugin does not know)."""
    nos = nos_by_platform(device.platform.slug) if device.platform_id else None
    if nos is not None:
        return nos
    template = config_template or device.get_config_template()
    return nos_by_template_name(template.name) if template is not None else None


def backup_file_name(fabric: Fabric, device, nos: Nos) -> str:
    """The switch's backup file in the fabric's data source (``config_backup_pattern``)."""
    return fabric.config_backup_pattern.format(device=device.name, extension=nos.file_extension)


def _text(content) -> str:
    if isinstance(content, str):
        content = content.encode('utf-8', errors='surrogatepass')
    if len(content) > CONFIG_BACKUP_MAX_BYTES:
        raise BackupError(
            'content',
            f'the backup is {len(content):,} bytes; a running config is at most {CONFIG_BACKUP_MAX_BYTES:,} bytes',
            status=413,
        )
    if not content.strip():
        raise BackupError('content', 'the backup is empty')
    try:
        text = content.decode('utf-8')
    except UnicodeDecodeError as e:
        raise BackupError('content', f'the backup is not UTF-8 text (byte {e.start}): no running config') from None
    if '\x00' in text:
        raise BackupError('content', 'the backup holds NUL bytes: a binary file, no running config')
    return text.replace('\r\n', '\n')


HOSTNAME_LINE = re.compile(r'^hostname\s+(\S+)\s*$', re.MULTILINE)  # EOS and FRR: a top-level line


def hostname_of(nos: Nos, text: str) -> str | None:
    """The host name a running config names (EOS/FRR ``hostname``, NVUE ``system hostname``, SONiC
    ``DEVICE_METADATA|localhost hostname``), None when it names none or cannot be read (the parser judges that)."""
    try:
        if nos.key in ('eos', 'frr'):
            found = HOSTNAME_LINE.search(text)
            return found.group(1) if found else None
        if nos.key == 'sonic':
            return json.loads(text)['DEVICE_METADATA']['localhost']['hostname']
        for document in yaml.safe_load(text):
            hostname = ((document.get('set') or {}).get('system') or {}).get('hostname')
            if hostname:
                return str(hostname)
    except (ValueError, KeyError, TypeError, AttributeError, yaml.YAMLError):
        return None
    return None


def _switch_of(fabric: Fabric, device) -> Nos:
    owned = OwnedObject.objects.filter(fabric=fabric, key__startswith='device:', object_id=device.pk).exists()
    if not owned:
        raise BackupError('device', f'{device} is not a device of fabric {fabric}: its backup is not stored here')
    nos = nos_of_device(device)
    if nos is None:
        platform = device.platform.slug if device.platform_id else 'none'
        raise BackupError(
            'device', f'{device} runs no NOS the plugin renders a config for (platform {platform}): nothing to compare'
        )
    return nos


def store_backup(fabric, device, content, source, origin='', user=None, time=None, data_file=None):
    """Check and store ``content`` as ``device``'s running config (:class:`BackupError` names what is wrong; nothing
    stored). Returns ``(backup, created)``: the newest backup unchanged (``created`` False) when it holds the same."""
    nos = _switch_of(fabric, device)
    text = _text(content)
    try:
        compare_config(nos.key, text, text)
    except ConfigParseError as e:
        raise BackupError('content', f'the backup is no {nos.platform} running config: {e}') from None
    named = hostname_of(nos, text)
    if named is not None and named != device.name:
        raise BackupError('content', f'the backup is the running config of "{named}", not of {device}')
    digest = hashlib.sha256(text.encode('utf-8')).hexdigest()
    with branching.atomic():
        newest = ConfigBackup.objects.filter(device=device).order_by('-time', '-pk').first()
        if newest is not None and newest.sha256 == digest and newest.fabric_id == fabric.pk:
            return newest, False
        backup = ConfigBackup(
            fabric=fabric,
            device=device,
            time=time or timezone.now(),
            source=source,
            origin=origin[:300],
            user=user if getattr(user, 'is_authenticated', False) else None,
            data_file=data_file,
            content=text,
            sha256=digest,
            size=len(text.encode('utf-8')),
        )
        backup.full_clean()
        backup.save()
        _prune(device)
    return backup, True


def fabric_of_device(device) -> Fabric | None:
    """The fabric that created or adopted ``device`` (None: none)."""
    record = OwnedObject.objects.filter(key__startswith='device:', object_id=device.pk).select_related('fabric')
    record = record.filter(object_type__app_label='dcim', object_type__model='device').first()
    return record.fabric if record is not None else None


def upload_backup(user, device, content):
    """``content`` uploaded by ``user`` as ``device``'s running config (the Config compliance tab and the REST API):
    the user must see the device and be allowed to add this backup (object-permission constraints included: checked
    on the stored row, rolled back when refused, as NetBox does). Returns ``(backup, created)``; :class:`BackupError`
    (field ``device`` or ``content``, or ``status`` 403) names what is refused, and nothing is stored."""
    if not Device.objects.restrict(user, 'view').filter(pk=device.pk).exists():
        raise BackupError('device', f'no device with id {device.pk} is visible to you')
    fabric = fabric_of_device(device)
    if fabric is None:
        raise BackupError('device', f'{device} belongs to no fabric: its running config is compared with nothing')
    origin = f'upload by {user.username}' if getattr(user, 'is_authenticated', False) else 'upload'
    try:
        with branching.atomic():
            backup, created = store_backup(fabric, device, content, ConfigBackupSourceChoices.UPLOAD, origin, user)
            if created and not ConfigBackup.objects.restrict(user, 'add').filter(pk=backup.pk).exists():
                raise _Refused
    except _Refused:
        raise BackupError(
            'device', f'your permissions do not allow adding a config backup of {device}', status=403
        ) from None
    return backup, created


def _prune(device):
    keep = get_plugin_config('netbox_aifabric', 'config_backup_retention') or DEFAULT_RETENTION
    old = ConfigBackup.objects.filter(device=device).order_by('-time', '-pk').values_list('pk', flat=True)[keep:]
    ConfigBackup.objects.filter(pk__in=list(old)).delete()


def latest_backups(fabric) -> dict[int, ConfigBackup]:
    """``{device id: its newest backup}`` of the fabric's devices (one query)."""
    rows = ConfigBackup.objects.filter(fabric=fabric).order_by('device_id', '-time', '-pk').distinct('device_id')
    return {backup.device_id: backup for backup in rows}


@dataclass
class SyncOutcome:
    """What a data source's sync brought to one fabric: the backups stored, the switches whose file was the same as
    their newest backup, the files not found, and the files refused (``{device: reason}``)."""

    fabric: Fabric
    stored: list[str] = field(default_factory=list)
    unchanged: list[str] = field(default_factory=list)
    missing: list[str] = field(default_factory=list)
    refused: dict[str, str] = field(default_factory=dict)


def fabric_switches(fabric) -> list:
    """``[(device, nos)]``: the fabric's devices the plugin renders a config for, by name."""
    switches = []
    for device in fabric_devices(fabric).select_related('platform'):
        nos = nos_of_device(device)
        if nos is not None:
            switches.append((device, nos))
    return switches


def read_data_source(fabric, switches=None) -> SyncOutcome:
    """Each of ``switches`` (``[(device, nos)]``, default the fabric's) read from the fabric's backup data source by
    its file name."""
    switches = fabric_switches(fabric) if switches is None else switches
    outcome = SyncOutcome(fabric)
    source = fabric.config_backup_source
    names = {backup_file_name(fabric, device, nos): device for device, nos in switches}
    files = {f.path: f for f in DataFile.objects.filter(source=source, path__in=list(names))}
    for path, device in sorted(names.items()):
        data_file = files.get(path)
        if data_file is None:
            outcome.missing.append(path)
            continue
        try:
            _backup, created = store_backup(
                fabric,
                device,
                bytes(data_file.data),
                ConfigBackupSourceChoices.DATA_SOURCE,
                origin=f'{source.name}: {path}',
                time=data_file.last_updated,
                data_file=data_file,
            )
        except BackupError as e:
            outcome.refused[device.name] = e.message
            continue
        (outcome.stored if created else outcome.unchanged).append(device.name)
    return outcome
