"""The intended switch configs of a fabric, committed to the Git repository the fabric names
(``Fabric.config_repository``, branch ``config_repository_branch``): every device of the fabric rendered with its
ConfigTemplate (``ConfigRenderer``, as NetBox's ``render-config``), one file per rendered device under
``<fabric slug>/``, one commit when a file changed (``render/git_store.py``), none when nothing did.

Called after each apply (a job queued by ``signals.py``), by ``CommitConfigsJob`` on demand and by
``manage.py aifabric_commit_configs``. docs/config-git.md describes the layout and the message.
"""

import re
from dataclasses import dataclass, field

from netbox_aifabric.render.configs import ConfigRenderer, fabric_devices
from netbox_aifabric.render.git_store import FileChange, GitStoreError, commit_configs

__all__ = ('CommitOutcome', 'NoConfigRepositoryError', 'author_of', 'commit_fabric_configs', 'commit_message')

SYSTEM = 'system'  # the user a commit names when no user asked for it (the demo, a command)
EMAIL_UNSAFE = re.compile(r'[^A-Za-z0-9._+-]')
NAME_UNSAFE = re.compile(r'[<>\x00-\x1f\x7f]')


class NoConfigRepositoryError(GitStoreError):
    """The fabric names no config repository: there is nowhere to commit to."""

    def __init__(self, fabric):
        # (GitStoreError's message names a repository; this one has none)
        super(GitStoreError, self).__init__(f'{fabric} has no config repository: set its "config repository" first')
        self.repository = ''


@dataclass
class CommitOutcome:
    """One commit of a fabric's configs: ``commit`` (hex id; None when nothing changed), the ``files`` the folder
    now holds, the ``changed`` ones, the devices that ``failed`` to render (name → NetBox's error; they have no
    file), and the ``repository`` and ``branch``."""

    repository: str
    branch: str
    commit: str | None
    files: list[str] = field(default_factory=list)
    changed: list[FileChange] = field(default_factory=list)
    failed: dict[str, str] = field(default_factory=dict)

    def to_dict(self) -> dict:
        """As a job's data (JSON)."""
        return {
            'repository': self.repository,
            'branch': self.branch,
            'commit': self.commit,
            'files': self.files,
            'changed': [{'path': c.path, 'action': c.action} for c in self.changed],
            'failed': self.failed,
        }


def commit_fabric_configs(fabric, user=None, request_id=None) -> CommitOutcome:
    """Render every device of ``fabric`` and commit the rendered ones (see the module's docstring). The message names
    ``user`` (None: 'system'), the change request ``request_id`` (None: the fabric's last apply's) and the fabric's
    plan hash. Raises :class:`NoConfigRepositoryError` or :class:`GitStoreError` (nothing committed)."""
    if not fabric.config_repository:
        raise NoConfigRepositoryError(fabric)
    configs = ConfigRenderer().render_all(fabric_devices(fabric))
    files = {c.filename: c.content for c in configs if c.rendered}
    failed = {c.device.name: c.error for c in configs if c.error is not None}
    username = getattr(user, 'username', None) or SYSTEM
    outcome = CommitOutcome(
        fabric.config_repository, fabric.config_repository_branch or 'main', None, sorted(files), failed=failed
    )

    def message(changes):  # asked for once, only when something changed
        outcome.changed = changes
        return commit_message(fabric, changes, username, request_id or fabric.last_apply_request_id, failed)

    outcome.commit = commit_configs(
        outcome.repository, outcome.branch, fabric.slug, files, message, author_of(username)
    )  # fmt: skip
    return outcome


def author_of(username: str) -> str:
    """The commit's author and committer: ``NetBox <user> <<user>@netbox>``, without what Git's identity refuses."""
    return f'NetBox {NAME_UNSAFE.sub("", username)} <{EMAIL_UNSAFE.sub("_", username) or SYSTEM}@netbox>'


def commit_message(fabric, changes, username, request_id, failed) -> str:
    """The subject (``<fabric>: <n> device configs changed``: the switches' and the servers' host configs), then
    who, which change request and plan, the changed files (as ``git diff --name-status``) and the devices that did
    not render."""
    count = len(changes)
    lines = [
        f'{fabric.name}: {count} device config{"" if count == 1 else "s"} changed',
        '',
        f'User: {username}',
        f'Change request: {request_id or "none"}',
        f'Plan hash: {fabric.last_plan_hash or "none"}',
        '',
        'Changed:',
        *(f'{change.letter} {change.path}' for change in changes),
    ]
    if failed:
        lines += [
            '',
            'Not rendered (no file):',
            *(f'{name}: {" ".join(error.split())}' for name, error in failed.items()),
        ]
    return '\n'.join(lines) + '\n'
