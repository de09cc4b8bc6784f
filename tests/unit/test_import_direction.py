"""The package's import graph runs one way: each step of the flow imports only the steps before it, with no cycle and
no import placed inside a function to dodge one (docs/development.md, "Architecture").

The steps, in order: the pure design core (``planner``, ``facts``), NetBox's shared definitions (``choices``,
``constants``, ``validators``), ``intake`` (NetBox objects it is handed → pure inputs), the intent ``models``,
``apply``, ``render``, ``checks``, ``acceptance``, ``lab``, and last NetBox's own UI and API families. The parsing is
the standard library's ``ast``: what the interpreter would import, read without importing anything.
"""

import ast
from pathlib import Path

import pytest

pytestmark = pytest.mark.pure

PACKAGE = Path(__file__).resolve().parents[2] / 'netbox_aifabric'

# Each step of the flow, in order; a module may import its own step and the steps before it
STEPS = (
    ('planner',),
    ('facts',),
    ('version', 'choices', 'constants', 'validators'),
    ('intake',),
    ('models',),
    ('apply',),
    ('render', 'jinja_env'),
    ('checks',),
    ('acceptance',),
    ('lab',),
    ('forms', 'tables', 'filtersets', 'ui'),
    ('views', 'api', 'graphql', 'search', 'navigation', 'template_content', 'signals', 'urls', 'management'),
    ('__init__',),
)
# The package root holds only the modules NetBox's conventions name (a plugin's resource paths, the app's files)
ROOT_MODULES = {
    '__init__',
    'version',
    'choices',
    'constants',
    'validators',
    'filtersets',
    'jinja_env',
    'navigation',
    'search',
    'signals',
    'tables',
    'template_content',
    'urls',
}
# NetBox's one place for imports at start-up: the PluginConfig's ready() connects signals and replaces a view
DEFERRED_ALLOWED = {('__init__', 'ready')}


def step_of(module: str) -> int:
    head = module.split('.')[0]
    for index, names in enumerate(STEPS):
        if head in names:
            return index
    raise AssertionError(f'netbox_aifabric.{module} belongs to no step of STEPS')


def module_name(path: Path) -> str:
    parts = list(path.relative_to(PACKAGE).with_suffix('').parts)
    if parts[-1] == '__init__' and len(parts) > 1:
        parts.pop()
    return '.'.join(parts)


def resolve(module: str, node: ast.ImportFrom, is_package: bool) -> list[str]:
    """The package modules a ``from … import`` names (a submodule when the name is one, else the module)."""
    if node.level:
        base = module.split('.') if is_package else module.split('.')[:-1]
        base = base[: len(base) - node.level + 1]
        target = '.'.join([*base, node.module] if node.module else base)
    elif node.module and node.module.startswith('netbox_aifabric'):
        target = node.module.removeprefix('netbox_aifabric').lstrip('.')
    else:
        return []
    found = []
    for alias in node.names:
        candidate = f'{target}.{alias.name}' if target else alias.name
        path = PACKAGE / candidate.replace('.', '/')
        found.append(candidate if path.with_suffix('.py').exists() or path.is_dir() else target or '__init__')
    return found


def imports(path: Path):
    """``(imported module, enclosing function or '', line)`` for every import of the package in ``path``."""
    module, is_package = module_name(path), path.name == '__init__.py'

    def walk(node, function):
        for child in ast.iter_child_nodes(node):
            inner = child.name if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef)) else function
            if isinstance(child, ast.ImportFrom):
                for target in resolve(module, child, is_package):
                    yield target, function, child.lineno
            elif isinstance(child, ast.Import):
                for alias in child.names:
                    if alias.name.startswith('netbox_aifabric.'):
                        yield alias.name.removeprefix('netbox_aifabric.'), function, child.lineno
            yield from walk(child, inner)

    yield from walk(ast.parse(path.read_text()), '')


def graph():
    edges = {}
    for path in sorted(PACKAGE.rglob('*.py')):
        if 'migrations' in path.parts:
            continue
        edges[module_name(path)] = list(imports(path))
    return edges


def upward_and_deferred(edges) -> list[str]:
    found = []
    for module, targets in edges.items():
        for target, function, line in targets:
            where = f'netbox_aifabric/{module.replace(".", "/")}:{line} imports {target}'
            if function and (module, function) not in DEFERRED_ALLOWED:
                found.append(f'{where} inside {function}()')
            elif step_of(target) > step_of(module):
                found.append(f'{where}, a later step')
    return found


def cycle(edges) -> list[str]:
    """One import cycle among the modules, as a path, or []."""
    graph_ = {m: {t for t, function, _ in targets if not function and t in edges} for m, targets in edges.items()}
    state, stack = {}, []

    def visit(node):
        state[node] = 'open'
        stack.append(node)
        for target in sorted(graph_[node]):
            if state.get(target) == 'open':
                return [*stack[stack.index(target) :], target]
            if target not in state and (found := visit(target)):
                return found
        state[node] = 'done'
        stack.pop()
        return []

    for node in sorted(graph_):
        if node not in state and (found := visit(node)):
            return found
    return []


def test_every_import_runs_to_an_earlier_step_and_none_hides_in_a_function():
    assert upward_and_deferred(graph()) == []


def test_the_import_graph_has_no_cycle():
    assert cycle(graph()) == []


def test_the_package_root_holds_only_netbox_convention_modules():
    root = {p.stem for p in PACKAGE.glob('*.py')}
    assert root - ROOT_MODULES == set()


def test_every_module_belongs_to_a_step():
    for module in graph():
        step_of(module)


def test_the_checks_catch_an_upward_import_a_deferred_import_and_a_cycle():
    """Negative control: edges a wrong tree would have are named."""
    edges = {
        'models.fabrics': [('apply.writes', '', 3), ('intake.spec', 'clean', 9)],
        'apply.writes': [('models.fabrics', '', 1)],
        'apply.jobs': [('apply.service', '', 1)],
        'apply.service': [('apply.jobs', '', 2)],
    }
    assert upward_and_deferred(edges) == [
        'netbox_aifabric/models/fabrics:3 imports apply.writes, a later step',
        'netbox_aifabric/models/fabrics:9 imports intake.spec inside clean()',
    ]
    assert cycle(edges) == ['apply.jobs', 'apply.service', 'apply.jobs']
    with pytest.raises(AssertionError, match='belongs to no step'):
        step_of('wizard')
