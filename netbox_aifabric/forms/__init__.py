from netbox_aifabric.forms.acceptance import *
from netbox_aifabric.forms.bulk_edit import *
from netbox_aifabric.forms.bulk_import import *
from netbox_aifabric.forms.configs import *
from netbox_aifabric.forms.filtersets import *
from netbox_aifabric.forms.flows import *
from netbox_aifabric.forms.model_forms import *
