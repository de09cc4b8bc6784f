"""``netbox aifabric_install_scripts``: install or update the shipped compliance report as a NetBox script module.

NetBox 4.7 stores a script module as a file in its ``scripts`` storage (``SCRIPTS_ROOT`` with the default file-system
storage) and a ``ScriptModule`` row (a ``ManagedFile`` with ``file_root='scripts'``) whose save registers the module's
Script classes. This does what the UI's *Customization → Scripts → Add* upload does, idempotently: the file is written
only when it differs from the shipped ``checks/report_module.py``, the module registered only when missing, and a second
run changes nothing and says so. Deprecated with NetBox 5.0 (custom scripts go): the fabric's Compliance tab, its REST
action and the compliance job run the same checks.
"""

from pathlib import Path

from django.core.files.base import ContentFile
from django.core.files.storage import storages
from django.core.management.base import BaseCommand

from core.choices import ManagedFileRootPathChoices
from extras.models import ScriptModule
from extras.utils import validate_script_content

from netbox_aifabric.checks import report_module

MODULE_NAME = 'aifabric_compliance.py'


def shipped_source() -> bytes:
    return Path(report_module.__file__).read_bytes()


def _write_file(storage, source) -> str | None:
    """Write the module file when it is missing or differs; what was done, or None."""
    if storage.exists(MODULE_NAME):
        with storage.open(MODULE_NAME, 'rb') as f:
            if f.read() == source:
                return None
        storage.delete(MODULE_NAME)  # storage.save would pick another name next to it
        action = 'updated'
    else:
        action = 'written'
    storage.save(MODULE_NAME, ContentFile(source))
    return action


def install_report() -> list[str]:
    """Install or update the report module; the list of what changed (empty: already up to date)."""
    source = shipped_source()
    validate_script_content(source, MODULE_NAME)  # what NetBox's upload form checks
    changed = []
    storage = storages.create_storage(storages.backends['scripts'])
    action = _write_file(storage, source)
    if action:
        changed.append(f'file {action}')
    module = ScriptModule.objects.filter(file_root=ManagedFileRootPathChoices.SCRIPTS, file_path=MODULE_NAME).first()
    if module is None:
        module = ScriptModule(file_root=ManagedFileRootPathChoices.SCRIPTS, file_path=MODULE_NAME)
        module.full_clean()
        module.save()  # registers the module's Script classes
        changed.append('module registered')
    else:
        before = set(module.scripts.values_list('name', flat=True))
        module.sync_classes()  # a new shipped version may add or drop a class
        after = set(module.scripts.values_list('name', flat=True))
        if before != after:
            changed.append(f'scripts now {", ".join(sorted(after))}')
    return changed


class Command(BaseCommand):
    help = (
        "Install or update the AI fabric compliance report (a NetBox script module, 'aifabric_compliance.py'). "
        'Deprecated with NetBox 5.0: use the fabric Compliance tab, its REST action or the compliance job.'
    )

    def handle(self, *args, **options):
        changed = install_report()
        module = ScriptModule.objects.get(file_root=ManagedFileRootPathChoices.SCRIPTS, file_path=MODULE_NAME)
        scripts = ', '.join(f'{module.python_name}.{s.name}' for s in module.scripts.order_by('name'))
        if changed:
            self.stdout.write(f'{MODULE_NAME}: {"; ".join(changed)}. Scripts: {scripts}.')
        else:
            self.stdout.write(f'{MODULE_NAME} is up to date: nothing changed. Scripts: {scripts}.')
        self.stdout.write(
            'Custom scripts are deprecated with NetBox 5.0; the fabric Compliance tab runs the same checks.'
        )
