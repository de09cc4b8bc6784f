"""docs/fabric-spec.schema.json documents exactly what the loader accepts, and every example validates."""

import json

import jsonschema
import pytest
import yaml

from netbox_aifabric.intake.cli import YAML_LOADER
from netbox_aifabric.planner.loader import FIELDS
from tests.unit.planner.helpers import EXAMPLES, ROOT

pytestmark = pytest.mark.pure
SCHEMA = json.loads((ROOT / 'docs' / 'fabric-spec.schema.json').read_text())
# built once: jsonschema.validate() checks the schema itself again on every call
VALIDATOR = jsonschema.validators.validator_for(SCHEMA)(SCHEMA)


def test_schema_is_a_valid_json_schema():
    jsonschema.validators.validator_for(SCHEMA).check_schema(SCHEMA)


def test_schema_lists_the_loader_fields():
    assert set(SCHEMA['properties']) == set(FIELDS)


def _example(path):
    # size-xl.yaml takes 2.5 s of CPU (its YAML is large) through the same schema as the smaller sizes: CI only
    return pytest.param(path, marks=[pytest.mark.slow] if path.name == 'size-xl.yaml' else [], id=path.name)


@pytest.mark.parametrize('path', [_example(p) for p in sorted(EXAMPLES.glob('*.yaml'))])
def test_examples_validate(path):
    VALIDATOR.validate(yaml.load(path.read_text(), Loader=YAML_LOADER))


def test_schema_rejects_unknown_keys():
    spec = yaml.safe_load((EXAMPLES / 'guide-routed.yaml').read_text())
    spec['spines'][0]['role'] = 'spine'
    with pytest.raises(jsonschema.ValidationError):
        VALIDATOR.validate(spec)
