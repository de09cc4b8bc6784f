"""One rule for every shipped device template (the NOS registry's, facts/nos.py): self-contained and logic-free.

Each pastes into one NetBox ConfigTemplate: no include/import/extends, no macros or blocks. And it computes nothing:
every number and name is the context's or a registered filter's (render/filters.py). Allowed: loops, conditionals,
``set`` naming a context value or a selection (a plain name: no ``namespace()``, no counter carried across a loop),
printing ``loop.index``, the filters registered in render/filters.py and Jinja's built-ins that only select, convert
or print; ``sum`` only as ``sum(start=[])`` (lists joined, not numbers added); ``~`` only to join a JSON key or value
quoted whole by ``tojson`` (SONiC's names). No arithmetic operator in a ``{{ }}`` or ``{% %}``.
"""

import re

import pytest

from netbox_aifabric.facts.nos import HOST_TEMPLATES, NOS_REGISTRY
from netbox_aifabric.render.filters import FILTERS
from tests.unit.templates.helpers import TEMPLATES

pytestmark = pytest.mark.pure

TAGS = {'for', 'endfor', 'if', 'elif', 'else', 'endif', 'set'}
# Jinja built-ins that select, convert or print context values (never compute a number)
BUILTIN_FILTERS = {
    'batch', 'int', 'join', 'length', 'list', 'map', 'reject', 'rejectattr', 'select', 'selectattr', 'string', 'sum',
    'tojson', 'unique', 'upper',
}  # fmt: skip
ALLOWED_FILTERS = set(FILTERS) | BUILTIN_FILTERS
_STRING = re.compile(r"'[^']*'|\"[^\"]*\"")
_EXPRESSION = re.compile(r'\{([{%])(.*?)[}%]\}', re.S)
# a JSON key or value joined from strings and context values and quoted whole: ('Vrf-' ~ vrf.name) | tojson
_QUOTED_JOIN = re.compile(r"\((?:\s*(?:''|[\w.]+)\s*~)+\s*(?:''|[\w.]+)\s*\)\s*\|\s*tojson")


def problems(code: str) -> list[str]:
    """What makes ``code`` not a self-contained, logic-free template (empty: none)."""
    found = []
    code = re.sub(r'\{#.*?#\}', '', code, flags=re.S)  # comments are not code
    for kind, body in _EXPRESSION.findall(code):
        inner = _STRING.sub("''", body.strip('-').strip())  # no operator inside a string literal counts
        if kind == '%':
            tag = inner.split()[0] if inner.split() else ''
            if tag not in TAGS:
                found.append(f'tag "{tag}": only {", ".join(sorted(TAGS))}')
            if tag == 'set' and not re.match(r'set\s+\w+\s*=', inner):
                found.append(f'"{inner}": set names one plain variable')
        if 'namespace' in inner:
            found.append(f'"{inner}": namespace() (a counter or accumulator)')
        for name, arguments in re.findall(r'\|\s*(\w+)(\([^)]*\))?', inner):
            if name not in ALLOWED_FILTERS:
                found.append(f'"{inner}": filter {name}: not registered (render/filters.py) nor a selecting built-in')
            if name == 'sum' and arguments.replace(' ', '') != '(start=[])':
                found.append(f'"{inner}": sum adds numbers (only sum(start=[]) joins lists)')
        operators = re.findall(r'\*\*|//|[-+*/%~]', _QUOTED_JOIN.sub("''", inner))
        if operators:
            found.append(f'"{inner}": arithmetic or string assembly ({" ".join(operators)})')
    return found


SHIPPED = [entry.template for entry in (*NOS_REGISTRY, *HOST_TEMPLATES)]  # the switches' and the servers'


@pytest.mark.parametrize('template', SHIPPED)
def test_every_template_is_self_contained_and_logic_free(template):
    assert problems((TEMPLATES / template).read_text()) == []


def test_the_rule_covers_every_shipped_template():
    assert sorted(SHIPPED) == sorted(str(path.relative_to(TEMPLATES)) for path in TEMPLATES.glob('*/*.j2'))


@pytest.mark.parametrize(
    ('code', 'named'),
    [
        ('"Vlan{{ 3999 + loop.index }}"', 'arithmetic or string assembly (+)'),
        ('"{{ 990000 - 200 * acl.vlan - rule.seq }}"', 'arithmetic or string assembly (- * -)'),
        ('"{{ 1000 - loop.index0 }}"', 'arithmetic or string assembly (-)'),
        ('seq {{ (aifabric.loopbacks | length + loop.index) * 10 }}', 'arithmetic or string assembly (+ *)'),
        ('{{ port.speed // 1000 }} {{ a % 2 }} {{ 2 ** n }}', 'arithmetic or string assembly (//)'),
        ('{% if a - 1 %}x{% endif %}', 'arithmetic or string assembly (-)'),
        ('{{ 1 + 2 }}', 'arithmetic or string assembly (+)'),
        ('hostname {{ aifabric.hostname ~ "-x" }}', 'arithmetic or string assembly (~)'),
        ('{% set ns = namespace(n=0) %}', 'namespace()'),
        ('{% set ns.n = ns.n + 1 %}', 'set names one plain variable'),
        ('{% macro f() %}{% endmacro %}', 'tag "macro"'),
        ('{% include "other.j2" %}', 'tag "include"'),
        ('{{ aifabric.vlans | map(attribute="vid") | sum }}', 'sum adds numbers'),
        ('{{ aifabric.vlans | random }}', 'filter random: not registered'),
    ],
)
def test_computation_is_caught(code, named):
    assert any(named in p for p in problems(code)), problems(code)


def test_what_the_templates_need_is_allowed():
    code = (
        "{%- set qos = aifabric.qos %}{{ ('Vrf-' ~ vrf.name) | tojson }} {{ 'l2vpn-evpn' }} '{{ loop.index }}' "
        "{%- for p in [aifabric.lags, aifabric.interfaces] | sum(start=[]) %}{{ p.name | aifabric_interface('sonic') }}"
        '{%- endfor %}{# 3999 + loop.index in a comment #}'
    )
    assert problems(code) == []
