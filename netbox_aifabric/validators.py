"""Validation rules shared by the models, the forms and the REST API.

Each rule raises Django's ``ValidationError`` keyed by the offending field, with a message that quotes the rule
and the numbers involved, so the UI shows it at the field and the API returns it as a field error (HTTP 400).
"""

import re
import string
import unicodedata

import netaddr
from django.core.exceptions import ValidationError
from django.utils.translation import gettext_lazy as _

from netbox_aifabric.constants import VNI_MAX, VNI_MIN
from netbox_aifabric.facts.hardware import check_port_map_shape
from netbox_aifabric.facts.text import CONTROL_CHARACTERS

__all__ = (
    'CONTROL_CHARACTERS',
    'check_pool',
    'find_vni_reuse',
    'first_format_character',
    'm2m_members',
    'normalize_mac',
    'validate_backup_pattern',
    'validate_config_repository',
    'validate_git_branch',
    'validate_mac',
    'validate_no_control_characters',
    'validate_port_map',
    'validate_snmp_user',
    'validate_vni',
)


def first_format_character(value: str) -> tuple[int, str] | None:
    """``(position from 1, character)`` of the first Unicode format character (category Cf) in ``value``, or None."""
    for position, char in enumerate(value, 1):
        if unicodedata.category(char) == 'Cf':
            return position, char
    return None


def validate_no_control_characters(value):
    """Refuse a name with a control character (newline, CR, NUL, tab, escape, …): names reach device configs
    (``render-config``), where a newline would start a configuration line of its own. Unicode format
    characters (category Cf: the bidi controls such as the right-to-left override U+202E, zero-width spaces and
    joiners, the BOM) too: invisible, they make a hostname show as another one."""
    if not value:
        return
    if found := CONTROL_CHARACTERS.search(str(value)):
        raise ValidationError(
            _('Control characters are not allowed (found {char} at position {position}).').format(
                char=repr(found.group())[1:-1], position=found.start() + 1
            ),
            code='control_characters',
        )
    if hit := first_format_character(str(value)):
        position, char = hit
        raise ValidationError(
            _(
                'Unicode format characters (bidi controls, zero-width characters) are not allowed (found U+{code:04X} '
                '{name} at position {position}).'
            ).format(code=ord(char), name=unicodedata.name(char, 'format character'), position=position),
            code='format_characters',
        )


def validate_vni(value):
    """A VXLAN network identifier is a 24-bit number, 1–16,777,215."""
    if value is not None and not VNI_MIN <= value <= VNI_MAX:
        raise ValidationError(
            _('VNI {value} is outside the 24-bit range {min}–{max}.').format(value=value, min=VNI_MIN, max=VNI_MAX)
        )


def normalize_mac(value):
    """Return a MAC address in colon-separated lower case (``00:1c:73:00:00:99``)."""
    try:
        mac = netaddr.EUI(value, version=48)
    except (netaddr.AddrFormatError, TypeError, ValueError):
        raise ValidationError(_('"{value}" is not a valid MAC address.').format(value=value))
    mac.dialect = netaddr.mac_unix_expanded
    return str(mac)


def validate_mac(value):
    if value:
        normalize_mac(value)


SNMP_USER = re.compile(r'[A-Za-z0-9_.-]{4,32}')


def validate_snmp_user(value):
    """An SNMPv3 user name every NOS takes: 4 to 32 letters, digits, dots, dashes or underscores (SONiC's
    sonic-snmp.yang: 4..32 characters, no space, quote, '@', ',', ':' or backslash; one EOS/NVUE token)."""
    if not SNMP_USER.fullmatch(value or ''):
        raise ValidationError(
            _('"{value}" is not an SNMPv3 user name: 4 to 32 letters, digits, dots, dashes or underscores.').format(
                value=value
            )
        )


def check_pool(field, prefix, need):
    """Check that an IPv4 pool prefix holds what the planner needs for the declared maximums.

    Args:
        field: form/model field name the error is reported on.
        prefix: the ``ipam.Prefix`` chosen as pool (or ``None``: nothing to check).
        need: the planner's :class:`~netbox_aifabric.planner.PoolNeed` for this pool.

    Returns:
        A dict ``{field: message}`` (empty when the pool fits).
    """
    if prefix is None:
        return {}
    network = netaddr.IPNetwork(str(prefix.prefix))
    if network.version != 4:
        return {
            field: _('Pool {pool} is IPv{family}; this pool must be IPv4.').format(pool=network, family=network.version)
        }
    size = need.size_of(network.prefixlen)
    if size < need.span:
        return {
            field: _(
                'Pool {pool} is too small for the declared maximums: {needed} {what} needed, {available} available.'
            ).format(pool=network, needed=need.blocks, what=need.unit, available=max(size - need.first_index, 0))
        }
    return {}


def m2m_members(instance, name):
    """The many-to-many members of ``instance.<name>`` as they will be after the pending save.

    NetBox's model forms, bulk edit and the REST serializers put the submitted values in ``instance._m2m_values``
    before ``full_clean()``; otherwise the saved members are read.
    """
    pending = getattr(instance, '_m2m_values', None) or {}
    if name in pending:
        return list(pending[name])
    if instance.pk:
        return list(getattr(instance, name).all())
    return []


def find_vni_reuse(entries):
    """Return a message for the first VNI used twice in ``entries`` (``[(vni, usage), …]``), else ``None``."""
    seen = {}
    for vni, usage in entries:
        if vni in seen:
            return _('VNI {vni} is used twice: {first} and {second}.').format(vni=vni, first=seen[vni], second=usage)
        seen[vni] = usage
    return None


def validate_port_map(value):
    """A fabric's port map is ``{role: {use: [interface names]}}`` (roles ``leaf``/``spine``; see
    ``facts/hardware.py``); whether the names exist on the device types is checked when planning."""
    errors = check_port_map_shape(value)
    if errors:
        raise ValidationError('; '.join(errors))


# git check-ref-format's rules for a branch name (man git-check-ref-format), what dulwich refuses too
GIT_BRANCH_FORBIDDEN = re.compile(r'[\x00-\x20\x7f~^:?*\[\\]|\.\.|@\{|//|/\.|^[-/.]|[/.]$|\.lock$|^@$')
REPOSITORY_SCHEMES = ('file://', 'ssh://', 'https://', 'http://', 'git://')
SCP_LIKE = re.compile(r'[A-Za-z0-9._-]+@[A-Za-z0-9._-]+:[^\s]+')  # git@host:group/repo.git


def validate_git_branch(value):
    """A branch name Git takes (git check-ref-format): no spaces, control characters, ``~ ^ : ? * [ \\``, ``..``,
    ``@{``, no leading dash, slash or dot, no trailing slash, dot or ``.lock``."""
    if not value or GIT_BRANCH_FORBIDDEN.search(value):
        raise ValidationError(
            _('"{value}" is not a Git branch name (git check-ref-format: no spaces, ~ ^ : ? * [ \\ or "..").').format(
                value=value
            )
        )


def validate_config_repository(value):
    """A Git repository the NetBox host can write: an absolute directory, a ``file://``, ``ssh://``, ``http(s)://``
    or ``git://`` URL, or the scp-like ``user@host:path``."""
    if not value:
        return
    validate_no_control_characters(value)
    if value.startswith('/') or value.startswith(REPOSITORY_SCHEMES) or SCP_LIKE.fullmatch(value):
        if ' ' not in value.strip() and value == value.strip():
            return
    raise ValidationError(
        _(
            '"{value}" is not a Git repository: an absolute directory on the NetBox host (/srv/configs), a '
            'file://, ssh://, https:// or git:// URL, or user@host:path.'
        ).format(value=value)
    )


def _placeholders(value: str) -> list[str] | None:
    """The replacement fields of ``value`` as ``str.format`` reads them (a conversion or format spec kept, so it is
    refused), None when ``str.format`` would refuse the text (a single brace)."""
    try:
        return [
            f'{name}{"!" + conversion if conversion else ""}{":" + spec if spec else ""}'
            for _text, name, spec, conversion in string.Formatter().parse(value)
            if name is not None
        ]
    except ValueError:
        return None


def validate_backup_pattern(value):
    """A backup file name relative to the data source: names ``{device}``, no other placeholder than
    ``{extension}`` (no attribute, index, conversion or format spec), no absolute path and no ``..``."""
    names = _placeholders(value or '')
    parts = (value or '').split('/')
    problems = []
    if names is None:
        problems.append(_('a single "{" or "}" (write {{ or }} for a brace)'))
        names = []
    if 'device' not in names:
        problems.append(_('it must name {device}'))
    if set(names) - {'device', 'extension'}:
        problems.append(_('only {device} and {extension} are known'))
    if value.startswith('/') or '..' in parts or '' in parts[:-1]:
        problems.append(_('it is a path inside the data source (no leading "/", no "..")'))
    if problems:
        raise ValidationError(
            _('"{value}" is not a backup file name: {problems}.').format(
                value=value, problems='; '.join(str(problem) for problem in problems)
            )
        )
