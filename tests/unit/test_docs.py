"""The documentation site builds without warnings (links, nav, anchors)."""

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]

pytestmark = pytest.mark.pure


def test_mkdocs_builds_strict(tmp_path):
    result = subprocess.run(
        [sys.executable, '-m', 'mkdocs', 'build', '--strict', '--quiet', '-d', str(tmp_path / 'site')],
        cwd=ROOT,
        capture_output=True,
        text=True,
    )
    assert result.returncode == 0, result.stderr
    assert (tmp_path / 'site' / 'presets' / 'index.html').exists()
