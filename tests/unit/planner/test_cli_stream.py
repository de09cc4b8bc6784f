"""The CLI streams the plan (``write_plan``): the text is the one the whole-string encoders give (the reference), at
every chunk boundary, for JSON and YAML."""

import io
import json

import pytest
import yaml

from netbox_aifabric.intake import cli
from netbox_aifabric.planner import load_spec, plan_fabric
from tests.render_fixtures import guide_spec

pytestmark = pytest.mark.pure


@pytest.mark.parametrize('guide', ['evpn-vxlan', 'mlag'])
@pytest.mark.parametrize('chunk', [1, 7, cli.CHUNK_PIECES])
def test_the_streamed_json_is_the_whole_string_json(monkeypatch, guide, chunk):
    plan = plan_fabric(load_spec(guide_spec(guide)))
    monkeypatch.setattr(cli, 'CHUNK_PIECES', chunk)
    out = io.StringIO()
    cli.write_plan(plan, 'json', out)
    assert out.getvalue() == json.dumps(plan.to_dict(), indent=2) + '\n'


def test_the_streamed_yaml_is_the_whole_string_yaml():
    plan = plan_fabric(load_spec(guide_spec('evpn-vxlan')))
    assert cli.render(plan, 'yaml') == yaml.safe_dump(plan.to_dict(), sort_keys=False, width=120)
    assert cli.render(plan, 'table') == cli.format_table(plan)


def test_the_cli_writes_the_streamed_plan_to_its_output(tmp_path):
    spec = tmp_path / 'spec.json'
    spec.write_text(json.dumps(guide_spec('routed')))
    out = tmp_path / 'plan.json'
    assert cli.main(['plan', str(spec), '--format', 'json', '-o', str(out)]) == 0
    assert out.read_text() == json.dumps(plan_fabric(load_spec(guide_spec('routed'))).to_dict(), indent=2) + '\n'
