"""The characters no free text may carry into a device config (pure: no Django or NetBox import), shared by the
models' validators and by the render filters, which a Nornir or script render imports without NetBox installed."""

import re

__all__ = ('CONTROL_CHARACTERS',)

# C0 controls (NUL, tab, newline, CR, escape, …), DEL, C1 controls (NEL \x85 among them) and the Unicode line and
# paragraph separators: every character a device config, YAML or a terminal may take as a line break or a control.
CONTROL_CHARACTERS = re.compile('[\x00-\x1f\x7f-\x9f\u2028\u2029]')
