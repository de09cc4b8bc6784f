"""render/git_store.py against real dulwich repositories in tmp_path: one commit per change, none when nothing
changed, a removed file deleted in the same commit, local (new, non-bare, bare) and remote (file:// URL: clone, push)
repositories, and named errors."""

from contextlib import contextmanager

import pytest
from dulwich import porcelain
from dulwich.diff_tree import tree_changes
from dulwich.repo import Repo

from netbox_aifabric.render import git_store
from netbox_aifabric.render.git_store import FileChange, GitStoreError, commit_configs, is_remote

pytestmark = pytest.mark.pure

AUTHOR = 'NetBox admin <admin@netbox>'
FILES = {'leaf1.conf': 'hostname leaf1\n', 'leaf2.conf': 'hostname leaf2\n', 'spine1.json': '{"a": 1}'}
BRANCH = b'refs/heads/main'


def commit(repository, files, message='configs', branch='main', folder='fab'):
    return commit_configs(str(repository), branch, folder, files, message, AUTHOR)


def history(path, ref=BRANCH):
    """The branch's commits, newest first (walked from its head)."""
    with Repo(str(path)) as repo:
        if ref not in repo.refs:
            return []
        return [entry.commit for entry in repo.get_walker([repo.refs[ref]])]


def tree_files(path, ref=BRANCH):
    """``{path: bytes}`` of every file in the branch's head commit."""
    with Repo(str(path)) as repo:
        head = repo[repo.refs[ref]]
        found = {}

        def walk(tree_id, prefix):
            for entry in repo[tree_id].iteritems():
                name = prefix + entry.path.decode()
                if entry.mode == git_store.TREE_MODE:
                    walk(entry.sha, name + '/')
                else:
                    found[name] = repo[entry.sha].data

        walk(head.tree, '')
        return found


def changed_paths(path, commit_id):
    """The paths ``commit_id`` changed against its parent (``git show --name-status``)."""
    with Repo(str(path)) as repo:
        commit_ = repo[commit_id.encode()]
        parent = repo[commit_.parents[0]].tree if commit_.parents else None
        changes = tree_changes(repo.object_store, parent, commit_.tree)
        return sorted((c.new or c.old).path.decode() for c in changes)


def as_files(files, folder='fab'):
    return {f'{folder}/{name}': text.encode() for name, text in files.items()}


def test_a_new_directory_is_initialised_and_gets_one_file_per_device(tmp_path):
    repository = tmp_path / 'configs'
    commit_id = commit(repository, FILES)
    assert len(commit_id) == 40
    assert [c.id.decode() for c in history(repository)] == [commit_id]
    assert tree_files(repository) == as_files(FILES)
    # a non-bare repository on the branch: the working tree holds the files too, exactly as given
    assert {p.name: p.read_bytes() for p in (repository / 'fab').iterdir()} == {
        name: text.encode() for name, text in FILES.items()
    }
    (only,) = history(repository)
    assert only.author == only.committer == AUTHOR.encode()
    assert only.message == b'configs\n'
    assert not porcelain.status(str(repository)).unstaged
    assert porcelain.status(str(repository)).staged == {'add': [], 'delete': [], 'modify': []}


def test_the_same_files_again_commit_nothing(tmp_path):
    repository = tmp_path / 'configs'
    first = commit(repository, FILES)
    messages = []
    assert commit(repository, dict(FILES), lambda changes: messages.append(changes) or 'again') is None
    assert messages == []  # no commit: the message is not even asked for
    assert [c.id.decode() for c in history(repository)] == [first]


def test_a_changed_file_is_one_commit_with_only_that_change(tmp_path):
    repository = tmp_path / 'configs'
    commit(repository, FILES)
    seen = []

    def message(changes):
        seen.extend(changes)
        return f'{len(changes)} changed'

    second = commit(repository, {**FILES, 'leaf2.conf': 'hostname leaf2\nmtu 9216\n'}, message)
    assert seen == [FileChange('fab/leaf2.conf', 'modified')]
    assert seen[0].letter == 'M'
    assert len(history(repository)) == 2
    assert history(repository)[0].message == b'1 changed\n'
    assert changed_paths(repository, second) == ['fab/leaf2.conf']
    assert (repository / 'fab' / 'leaf2.conf').read_text() == 'hostname leaf2\nmtu 9216\n'


def test_a_removed_device_has_its_file_deleted_in_the_same_commit(tmp_path):
    repository = tmp_path / 'configs'
    commit(repository, FILES)
    seen = []
    remaining = {k: v for k, v in FILES.items() if k != 'leaf1.conf'}
    commit(repository, {**remaining, 'leaf3.conf': 'hostname leaf3\n'}, lambda c: seen.extend(c) or 'm')
    assert seen == [FileChange('fab/leaf1.conf', 'deleted'), FileChange('fab/leaf3.conf', 'added')]
    assert [c.letter for c in seen] == ['D', 'A']
    assert tree_files(repository) == as_files({**remaining, 'leaf3.conf': 'hostname leaf3\n'})
    assert not (repository / 'fab' / 'leaf1.conf').exists()
    assert len(history(repository)) == 2
    # no file left: the folder goes, in one more commit; then nothing more to do
    assert commit(repository, {}) is not None
    assert 'fab' not in {p.split('/')[0] for p in tree_files(repository)}
    assert commit(repository, {}) is None
    assert len(history(repository)) == 3


def test_other_folders_and_files_of_the_repository_stay(tmp_path):
    repository = tmp_path / 'configs'
    commit(repository, FILES, folder='fab')
    commit(repository, {'x.cfg': 'other\n'}, folder='other-fabric')
    commit(repository, {'leaf1.conf': 'changed\n'}, folder='fab')
    files = tree_files(repository)
    assert files['other-fabric/x.cfg'] == b'other\n'
    assert files['fab/leaf1.conf'] == b'changed\n'
    assert 'fab/leaf2.conf' not in files


def test_content_is_stored_byte_for_byte(tmp_path):
    repository = tmp_path / 'configs'
    odd = {'a.txt': 'no newline at the end', 'b.txt': 'crlf\r\nkept\r\n', 'c.txt': 'Zürich — µs\n', 'd.txt': ''}
    commit(repository, odd)
    assert tree_files(repository) == {f'fab/{k}': v.encode() for k, v in odd.items()}


def test_a_bare_local_repository_is_written_directly(tmp_path):
    repository = tmp_path / 'configs.git'
    Repo.init_bare(str(repository), mkdir=True).close()
    commit_id = commit(repository, FILES)
    assert [c.id.decode() for c in history(repository)] == [commit_id]
    assert tree_files(repository) == as_files(FILES)
    assert not (repository / 'fab').exists()  # no working tree in a bare repository
    assert commit(repository, FILES) is None


def test_a_branch_that_is_not_checked_out_moves_alone(tmp_path):
    repository = tmp_path / 'configs'
    commit(repository, FILES)  # initialised on main
    commit_id = commit(repository, {'leaf1.conf': 'intended\n'}, branch='intended/configs')
    ref = b'refs/heads/intended/configs'
    assert [c.id.decode() for c in history(repository, ref)] == [commit_id]
    assert tree_files(repository, ref) == {'fab/leaf1.conf': b'intended\n'}
    assert (repository / 'fab' / 'leaf1.conf').read_text() == 'hostname leaf1\n'  # main's working tree untouched


def bare_remote(tmp_path):
    path = tmp_path / 'remote.git'
    Repo.init_bare(str(path), mkdir=True).close()
    return path, f'file://{path}'


def test_a_bare_remote_over_a_file_url_gets_the_push(tmp_path):
    remote, url = bare_remote(tmp_path)
    assert is_remote(url) and is_remote('git@example.com:net/configs.git') and not is_remote(str(remote))
    first = commit(url, FILES)  # the remote has no branch yet: a root commit
    assert [c.id.decode() for c in history(remote)] == [first]
    assert tree_files(remote) == as_files(FILES)
    assert commit(url, FILES) is None
    assert len(history(remote)) == 1
    second = commit(url, {**FILES, 'spine1.json': '{"a": 2}'})  # from a shallow clone of the branch
    assert [c.id.decode() for c in history(remote)] == [second, first]
    assert changed_paths(remote, second) == ['fab/spine1.json']
    assert history(remote)[0].parents == [first.encode()]
    assert not list(tmp_path.glob('aifabric-git-*'))  # (the scratch clone is in the system's temporary directory)


def test_the_scratch_clone_is_removed(tmp_path, monkeypatch):
    _remote, url = bare_remote(tmp_path)
    scratch = tmp_path / 'tmp'
    scratch.mkdir()
    monkeypatch.setattr(git_store.tempfile, 'tempdir', str(scratch))
    commit(url, FILES)
    commit(url, {'leaf1.conf': 'x\n'})
    assert list(scratch.iterdir()) == []


def test_a_remote_that_moved_on_since_the_clone_is_cloned_again(tmp_path, monkeypatch):
    """Another writer pushes between our clone and our push: the push is refused as not a fast-forward, and the
    commit is made again on a fresh clone, keeping the other writer's commit."""
    remote, url = bare_remote(tmp_path)
    commit(url, FILES)
    real_clone, races = git_store._clone, []

    @contextmanager
    def clone_then_race(*args):
        with real_clone(*args) as repo:
            if not races:
                races.append(commit(remote, {'n.cfg': 'another writer\n'}, folder='other'))
            yield repo

    monkeypatch.setattr(git_store, '_clone', clone_then_race)
    ours = commit(url, {**FILES, 'leaf1.conf': 'ours\n'})
    commits = history(remote)
    assert [c.id.decode() for c in commits[:2]] == [ours, races[0]]
    assert len(commits) == 3
    files = tree_files(remote)
    assert (files['fab/leaf1.conf'], files['other/n.cfg']) == (b'ours\n', b'another writer\n')


def test_a_remote_that_always_moves_on_is_a_named_push_refusal(tmp_path, monkeypatch):
    remote, url = bare_remote(tmp_path)
    commit(url, FILES)
    real_clone, races = git_store._clone, []

    @contextmanager
    def clone_then_race(*args):
        with real_clone(*args) as repo:
            races.append(commit(remote, {'n.cfg': f'writer {len(races)}\n'}, folder='other'))
            yield repo

    monkeypatch.setattr(git_store, '_clone', clone_then_race)
    with pytest.raises(GitStoreError, match=f'Git repository {url}: push refused: branch refs/heads/main moved'):
        commit(url, {'leaf1.conf': 'ours\n'})
    assert len(races) == git_store.PUSH_ATTEMPTS
    assert b'ours\n' not in tree_files(remote).values()


@pytest.mark.parametrize(
    ('setup', 'kwargs', 'message'),
    [
        ('not-a-repo', {}, 'not a Git repository'),
        ('a-file', {}, 'not a directory'),
        ('nowhere-url', {}, 'unreachable or not a Git repository'),
        ('new', {'branch': 'bad..name'}, "branch 'bad..name' rejected"),
        ('new', {'branch': 'with space'}, "branch 'with space' rejected"),
        ('new', {'branch': ''}, "branch '' rejected"),
        ('new', {'folder': '../escape'}, "folder '../escape' rejected"),
        ('new', {'folder': '.git'}, "folder '.git' rejected"),
        ('new', {'files': {'a/b.conf': 'x'}}, "file name 'a/b.conf' rejected"),
        ('new', {'files': {'..': 'x'}}, "file name '..' rejected"),
    ],
)
def test_bad_repositories_branches_and_names_are_named_errors(tmp_path, setup, kwargs, message):
    repository = tmp_path / 'configs'
    if setup == 'not-a-repo':
        repository.mkdir()
        (repository / 'notes.txt').write_text('mine')
    elif setup == 'a-file':
        repository.write_text('a file')
    elif setup == 'nowhere-url':
        repository = f'file://{tmp_path}/nowhere.git'
    with pytest.raises(GitStoreError, match=f'^Git repository {repository}: {message}') as raised:
        commit(repository, kwargs.get('files', FILES), branch=kwargs.get('branch', 'main'), **_folder(kwargs))
    assert isinstance(raised.value, ValueError)
    assert raised.value.repository == str(repository)
    if setup == 'new':
        assert not repository.exists()  # refused before anything was created


def _folder(kwargs):
    return {'folder': kwargs['folder']} if 'folder' in kwargs else {}


def test_an_unreachable_ssh_remote_is_named(tmp_path, monkeypatch):
    monkeypatch.setenv('GIT_SSH_COMMAND', 'false')  # an ssh that cannot connect, at once
    with pytest.raises(GitStoreError, match='^Git repository ssh://git@192.0.2.1/configs.git: unreachable'):
        commit('ssh://git@192.0.2.1/configs.git', FILES)


def test_an_author_without_an_email_is_refused(tmp_path):
    with pytest.raises(GitStoreError, match='author .* rejected'):
        commit_configs(str(tmp_path / 'c'), 'main', 'fab', FILES, 'm', 'just a name')


def test_a_hand_edit_of_a_changed_file_is_overwritten_and_other_edits_stay(tmp_path):
    """The working tree follows the commit as a checkout would: the files the commit changes are written (a hand edit
    of one is lost), the others stay as they are (uncommitted changes, as ``git status`` shows them)."""
    repository = tmp_path / 'configs'
    commit(repository, FILES)
    (repository / 'fab' / 'leaf1.conf').write_text('edited by hand, unchanged by the commit\n')
    (repository / 'fab' / 'leaf2.conf').write_text('edited by hand, changed by the commit\n')
    (repository / 'notes.txt').write_text('an untracked file of the operator\n')
    intended = {**FILES, 'leaf2.conf': 'hostname leaf2\nmtu 9216\n'}
    commit(repository, intended)
    assert tree_files(repository) == as_files(intended)
    assert (repository / 'fab' / 'leaf2.conf').read_text() == 'hostname leaf2\nmtu 9216\n'
    assert (repository / 'fab' / 'leaf1.conf').read_text() == 'edited by hand, unchanged by the commit\n'
    assert (repository / 'notes.txt').read_text() == 'an untracked file of the operator\n'
    status = porcelain.status(str(repository))
    assert status.unstaged == [b'fab/leaf1.conf']
    assert status.staged == {'add': [], 'delete': [], 'modify': []}
