from .acceptance import *
from .bulk_edit import *
from .bulk_import import *
from .filtersets import *
from .flows import *
from .model_forms import *
