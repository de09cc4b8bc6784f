"""The lab's inputs from NetBox (Django side): each device's ``aifabric`` context and the FRR configs rendered from it.

The configs are rendered with the shipped ``frr/frr.conf.j2`` (``netbox_aifabric.device_templates``) in NetBox's
sandboxed Jinja environment (``utilities.jinja2.render_jinja2``, what ``ConfigTemplate.render`` calls), whatever
ConfigTemplate the devices use for their own NOS: the lab boots FRR.
"""

from utilities.jinja2 import render_jinja2

from netbox_aifabric.facts.catalog import device_template_code
from netbox_aifabric.facts.nos import FRR
from netbox_aifabric.render.configs import fabric_devices

__all__ = ('FRR_TEMPLATE', 'lab_inputs', 'render_frr')

FRR_TEMPLATE = FRR.template
SWITCH_ROLES = ('spine', 'leaf', 'border')


def render_frr(contexts: dict[str, dict]) -> dict[str, str]:
    """``{switch: frr.conf}`` for the switches among ``{device name: aifabric context}``."""
    code = device_template_code(FRR_TEMPLATE)
    return {
        name: render_jinja2(code, {'aifabric': ctx}).replace('\r\n', '\n')
        for name, ctx in contexts.items()
        if ctx.get('role') in SWITCH_ROLES
    }


def lab_inputs(fabric) -> tuple[dict[str, dict], dict[str, str]]:
    """``(contexts, configs)`` of a fabric's applied devices, for ``run_lab``."""
    contexts = {}
    for device in fabric_devices(fabric):
        ctx = device.get_config_context().get('aifabric')
        if ctx:
            contexts[device.name] = ctx
    return contexts, render_frr(contexts)
