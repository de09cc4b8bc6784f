"""Commit files into one folder of a Git repository with dulwich (no ``git`` binary, no shell): the store of the
rendered switch configs (``render/config_commit.py``). Pure: no Django.

One call makes at most one commit on one branch: ``<folder>/`` then holds exactly the files given (a file not given
any more is deleted in the same commit), everything else in the repository stays as it was. Nothing changed, no
commit. The repository is

- a local directory: opened (a non-bare repository, or a bare one, written directly), or created and ``git init``-ed
  when it is missing or empty. In a non-bare repository whose checked-out branch is the one committed to, the
  working tree and index of ``<folder>/`` follow the commit; other branches only move their ref. Commits are
  serialised by a lock file in the repository's control directory (jobs of several workers may commit at once).
- a URL (``file://``, ``ssh://``, ``http(s)://``, ``git://``, ``user@host:path``): the branch is cloned shallow
  (depth 1, bare) into a temporary directory, committed there and pushed, and the directory removed. A branch the
  remote does not have yet starts as a new root commit. A push that finds the branch moved on (another commit since
  the clone) starts again from a fresh clone, up to ``PUSH_ATTEMPTS`` times. A remote should be bare: a push updates
  no working tree.

Every failure is a :class:`GitStoreError` naming the repository and what failed.
"""

import fcntl
import io
import os
import re
import tempfile
import time
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from dulwich import porcelain
from dulwich.diff_tree import CHANGE_ADD, CHANGE_DELETE, tree_changes
from dulwich.errors import GitProtocolError, NotGitRepository
from dulwich.index import update_working_tree
from dulwich.object_store import BaseObjectStore
from dulwich.objects import Blob, Commit, ObjectID, Tree
from dulwich.refs import Ref, check_ref_format
from dulwich.repo import Repo

__all__ = ('PUSH_ATTEMPTS', 'FileChange', 'GitStoreError', 'commit_configs', 'is_remote')

PUSH_ATTEMPTS = 3
FILE_MODE = 0o100644
TREE_MODE = 0o040000
LOCK_FILE = 'aifabric-commit.lock'
URL_SCHEME = re.compile(r'^[a-z][a-z0-9+.-]*://', re.IGNORECASE)
SCP_LIKE = re.compile(r'^[^/@:\s]+@[^/:\s]+:')  # git@host:group/repo.git
AUTHOR = re.compile(r'^[^<>\n]+ <[^<>\n]*>$')  # Name <email>, as Git writes an identity
ACTIONS = {CHANGE_ADD: 'added', CHANGE_DELETE: 'deleted'}  # any other change of a file: 'modified'
# What dulwich and the transports raise when a repository cannot be read or reached
TRANSPORT_ERRORS = (GitProtocolError, NotGitRepository, porcelain.Error, OSError, KeyError)


class GitStoreError(ValueError):
    """The commit failed; the message names the repository and what failed. Nothing was committed, or (a remote) the
    commit was not pushed."""

    def __init__(self, repository: str, what: str):
        super().__init__(f'Git repository {repository}: {what}')
        self.repository = repository


@dataclass(frozen=True)
class FileChange:
    """One file a commit changed: its path from the repository's root (``<folder>/<file>``) and ``added``,
    ``modified`` or ``deleted``."""

    path: str
    action: str

    @property
    def letter(self) -> str:
        """``A``, ``M`` or ``D``, as ``git diff --name-status`` prints it."""
        return self.action[0].upper()


# The commit message, or a function of the changes that returns it (called once, only when something changed)
Message = str | Callable[[list[FileChange]], str]


@dataclass(frozen=True)
class _Commit:
    """What one commit writes: the folder's files and the message and identity it is made with."""

    folder: str
    files: Mapping[str, str]
    message: Message
    author: str


def is_remote(repository: str) -> bool:
    """Whether ``repository`` is a URL (cloned, committed, pushed) rather than a local directory."""
    return bool(URL_SCHEME.match(repository) or SCP_LIKE.match(repository))


def commit_configs(
    repository: str, branch: str, folder: str, files: Mapping[str, str], message: Message, author: str
) -> str | None:
    """Commit ``files`` (name → text, written as UTF-8 exactly as given) as the whole content of ``<folder>/`` on
    ``branch`` of ``repository`` (a local directory or a URL, see the module's docstring), by ``author``
    (``Name <email>``, also the committer). Returns the new commit's hex id, or None when the folder already held
    exactly these files. Raises :class:`GitStoreError`."""
    ref = _branch_ref(repository, branch)
    _check_names(repository, folder, files)
    if not AUTHOR.match(author):
        raise GitStoreError(repository, f'author {author!r} rejected: not "Name <email>"')
    request = _Commit(folder, files, message, author)
    if is_remote(repository):
        return _commit_remote(repository, ref, request)
    with _local_repo(repository, ref) as repo, _locked(repository, repo):
        return _commit(repository, repo, ref, request, check_out=True)


def _branch_ref(repository: str, branch: str) -> Ref:
    ref = Ref(b'refs/heads/' + branch.encode('utf-8', 'surrogateescape'))
    if not branch or not check_ref_format(ref):
        raise GitStoreError(repository, f'branch {branch!r} rejected: not a Git branch name (git check-ref-format)')
    return ref


def _check_names(repository: str, folder: str, files: Mapping[str, str]) -> None:
    """The folder and each file are one plain path element: a name with a slash, ``.``, ``..`` or ``.git`` could
    write outside the folder or into Git's own files."""
    for kind, name in (('folder', folder), *(('file name', name) for name in files)):
        if not name or '/' in name or '\x00' in name or name in ('.', '..') or name.lower() == '.git':
            raise GitStoreError(repository, f'{kind} {name!r} rejected: one path element, not ".", ".." or ".git"')


@contextmanager
def _local_repo(repository: str, ref: Ref) -> Iterator[Repo]:
    """The repository at the local directory ``repository``, initialised (non-bare, ``ref`` checked out) when the
    directory is missing or empty."""
    path = Path(repository)
    try:
        if path.exists() and not path.is_dir():
            raise GitStoreError(repository, 'not a directory')
        if not path.exists() or not any(path.iterdir()):
            path.mkdir(parents=True, exist_ok=True)
            repo = Repo.init(str(path), default_branch=ref.removeprefix(b'refs/heads/'))
        else:
            repo = Repo(str(path))
    except NotGitRepository as e:
        raise GitStoreError(repository, 'not a Git repository (the directory holds other files)') from e
    except OSError as e:
        raise GitStoreError(repository, f'cannot be created or read: {e.strerror or e}') from e
    with repo:
        yield repo


@contextmanager
def _locked(repository: str, repo: Repo) -> Iterator[None]:
    """An exclusive lock on the repository for one read-modify-write of the branch (released when the file closes)."""
    try:
        lock = open(os.path.join(repo.controldir(), LOCK_FILE), 'w')  # noqa: SIM115  (closed below)
    except OSError as e:
        raise GitStoreError(repository, f'cannot be locked for writing: {e.strerror or e}') from e
    with lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        yield


def _commit(repository: str, repo: Repo, ref: Ref, request: _Commit, check_out: bool) -> str | None:
    """Commit ``request`` onto ``ref`` of ``repo``; the new commit's id, or None when the tree would not change. With
    ``check_out``, a non-bare repository on ``ref`` gets its working tree and index updated."""
    parent = repo.refs[ref] if ref in repo.refs else None
    old_tree = _tree_of(repo, parent)
    new_tree = _tree_with_folder(repo.object_store, old_tree, request)
    changes = _changes(repo.object_store, old_tree, new_tree)
    if not changes:
        return None
    message = request.message(changes) if callable(request.message) else request.message
    commit = _new_commit(new_tree, parent, message, request.author)
    repo.object_store.add_object(commit)
    moved = repo.refs.add_if_new(ref, commit.id) if parent is None else repo.refs.set_if_equals(ref, parent, commit.id)
    if not moved:  # only another writer without the lock (a git client) can move it under us
        raise GitStoreError(repository, f'branch {ref.decode()} moved while committing; nothing committed')
    if check_out and not repo.bare and repo.refs.read_ref(Ref(b'HEAD')) == b'ref: ' + ref:
        _check_out(repository, repo, old_tree, new_tree, commit.id)
    return commit.id.decode()


def _check_out(repository: str, repo: Repo, old_tree: ObjectID | None, new_tree: ObjectID, commit: ObjectID) -> None:
    """The working tree and index follow the commit on the checked-out branch, as a checkout would: the files the
    commit changed are written or deleted, nothing else is touched."""
    try:
        update_working_tree(
            repo, old_tree, new_tree, tree_changes(repo.object_store, old_tree, new_tree),
            allow_overwrite_modified=True,  # the folder is the plugin's: a hand edit of a changed file is overwritten
        )  # fmt: skip
    except OSError as e:
        raise GitStoreError(repository, f'committed {commit.decode()}; its working tree was not updated: {e}') from e


def _tree_of(repo: Repo, commit_id: ObjectID | None) -> ObjectID | None:
    if commit_id is None:
        return None
    commit = repo[commit_id]
    assert isinstance(commit, Commit)
    tree: ObjectID = commit.tree
    return tree


def _tree_with_folder(store: BaseObjectStore, root_id: ObjectID | None, request: _Commit) -> ObjectID:
    """The root tree ``root_id`` with ``<folder>/`` holding exactly ``request.files`` (no folder when there are none),
    its objects added to ``store``."""
    root = Tree()
    if root_id is not None:
        old = store[root_id]
        assert isinstance(old, Tree)
        for entry in old.iteritems():
            root.add(entry.path, entry.mode, entry.sha)
    folder = Tree()
    for name, content in sorted(request.files.items()):
        blob = Blob.from_string(content.encode('utf-8'))
        store.add_object(blob)
        folder.add(name.encode('utf-8'), FILE_MODE, blob.id)
    key = request.folder.encode('utf-8')
    if request.files:
        store.add_object(folder)
        root[key] = (TREE_MODE, folder.id)
    elif key in root:
        del root[key]
    store.add_object(root)
    return root.id


def _changes(store: BaseObjectStore, old: ObjectID | None, new: ObjectID) -> list[FileChange]:
    found = []
    for change in tree_changes(store, old, new):
        entry = change.old if change.type == CHANGE_DELETE else change.new
        assert entry is not None and entry.path is not None
        found.append(FileChange(entry.path.decode('utf-8', 'replace'), ACTIONS.get(change.type, 'modified')))
    return sorted(found, key=lambda c: c.path)


def _new_commit(tree: ObjectID, parent: ObjectID | None, message: str, author: str) -> Commit:
    commit = Commit()
    commit.tree = tree
    commit.parents = [parent] if parent is not None else []
    commit.author = commit.committer = author.encode('utf-8')
    commit.author_time = commit.commit_time = int(time.time())
    commit.author_timezone = commit.commit_timezone = 0  # UTC
    commit.message = (message if message.endswith('\n') else message + '\n').encode('utf-8')
    return commit


def _commit_remote(url: str, ref: Ref, request: _Commit) -> str | None:
    """Clone, commit and push; again from a fresh clone when the branch moved on the remote since the clone."""
    for _attempt in range(PUSH_ATTEMPTS):
        head = _remote_head(url, ref)
        with tempfile.TemporaryDirectory(prefix='aifabric-git-') as scratch:
            with _clone(url, os.path.join(scratch, 'repo'), ref, head) as repo:
                commit = _commit(url, repo, ref, request, check_out=False)
                if commit is None or _push(url, repo, ref):
                    return commit
    raise GitStoreError(
        url, f'push refused: branch {ref.decode()} moved on the remote during each of {PUSH_ATTEMPTS} attempts'
    )


def _remote_head(url: str, ref: Ref) -> ObjectID | None:
    """The remote's commit of ``ref`` (None: the remote has no such branch yet)."""
    try:
        refs = porcelain.ls_remote(url).refs
    except TRANSPORT_ERRORS as e:
        raise GitStoreError(url, f'unreachable or not a Git repository: {_reason(e)}') from e
    return refs.get(ref)


@contextmanager
def _clone(url: str, target: str, ref: Ref, head: ObjectID | None) -> Iterator[Repo]:
    """A bare shallow clone of ``ref`` of ``url`` (a new empty repository when the remote has no ``ref`` yet)."""
    try:
        if head is None:
            repo = Repo.init_bare(target, mkdir=True)
        else:
            branch = ref.removeprefix(b'refs/heads/')
            repo = porcelain.clone(url, target, bare=True, depth=1, branch=branch, errstream=io.BytesIO())
    except TRANSPORT_ERRORS as e:
        raise GitStoreError(url, f'clone failed: {_reason(e)}') from e
    with repo:
        yield repo


def _push(url: str, repo: Repo, ref: Ref) -> bool:
    """Push ``ref``; False when the remote's branch moved on since the clone (not a fast-forward any more)."""
    errors = io.BytesIO()
    try:
        result = porcelain.push(repo, url, refspecs=[ref + b':' + ref], errstream=errors)
    except porcelain.DivergedBranches:
        return False
    except TRANSPORT_ERRORS as e:
        raise GitStoreError(url, f'push refused or unreachable: {_reason(e)}') from e
    refused = {name.decode(): status for name, status in (result.ref_status or {}).items() if status is not None}
    if refused:
        raise GitStoreError(url, f'push refused: {"; ".join(f"{n}: {s}" for n, s in refused.items())}')
    return True


def _reason(error: BaseException) -> str:
    """A transport error's own words, one line (dulwich's messages may be bytes or span lines)."""
    text = ' '.join(str(arg.decode('utf-8', 'replace') if isinstance(arg, bytes) else arg) for arg in error.args)
    return ' '.join((text or type(error).__name__).split())
