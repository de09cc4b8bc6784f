"""The fabric's configuration-management fields refuse, by name, what would break a commit or a data source sync:
a branch Git refuses, a repository that is neither a directory nor a URL, a backup file name that ``str.format``
cannot fill with a switch's name and extension (or fills with something else), or one leaving the data source.
Hypothesis: whatever pattern the validator accepts, filling it gives a path inside the source naming the switch."""

import pytest
from django.core.exceptions import ValidationError
from hypothesis import given
from hypothesis import strategies as st

from netbox_aifabric.validators import validate_backup_pattern, validate_config_repository, validate_git_branch

pytestmark = pytest.mark.pure


@pytest.mark.parametrize('pattern', ['{device}.{extension}', '{device}', 'configs/{device}.cfg', '{{x}}-{device}'])
def test_backup_patterns_accepted(pattern):
    validate_backup_pattern(pattern)


@pytest.mark.parametrize(
    ('pattern', 'words'),
    [
        ('{device}{', 'single'),
        ('{device}}', 'single'),
        ('{extension}', 'must name {device}'),
        ('{device}{0}', 'only {device} and {extension}'),
        ('{device.__class__}', 'only {device} and {extension}'),
        ('{device[0]}', 'only {device} and {extension}'),
        ('{device!r}', 'only {device} and {extension}'),
        ('{device:>10}', 'only {device} and {extension}'),
        ('/etc/{device}', 'inside the data source'),
        ('../{device}', 'inside the data source'),
        ('a//{device}', 'inside the data source'),
    ],
)
def test_backup_patterns_refused_by_name(pattern, words):
    with pytest.raises(ValidationError) as refused:
        validate_backup_pattern(pattern)
    assert words in str(refused.value)


@given(st.text(max_size=40))
def test_an_accepted_pattern_fills_to_a_path_naming_the_switch(pattern):
    try:
        validate_backup_pattern(pattern)
    except ValidationError:
        return
    path = pattern.format(device='leaf1', extension='json')
    assert 'leaf1' in path and not path.startswith('/') and '..' not in path.split('/')


@pytest.mark.parametrize('branch', ['main', 'configs/ai-lab', 'release-1'])
def test_branches_accepted(branch):
    validate_git_branch(branch)


@pytest.mark.parametrize('branch', ['', '-x', 'a..b', 'a b', 'x.lock', 'a/', '@', 'a~1', '.x', 'a//b', 'a@{b', 'a\x00'])
def test_branches_refused(branch):
    with pytest.raises(ValidationError):
        validate_git_branch(branch)


@pytest.mark.parametrize('repository', ['', '/srv/configs', 'file:///srv/c.git', 'ssh://git@h/c.git', 'git@h:c.git'])
def test_repositories_accepted(repository):
    validate_config_repository(repository)


@pytest.mark.parametrize('repository', ['configs', 'ftp://h/c', '/srv/my configs', ' /srv/c', 'git@h', '/srv/\x07'])
def test_repositories_refused(repository):
    with pytest.raises(ValidationError):
        validate_config_repository(repository)
