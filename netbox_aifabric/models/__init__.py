from .compliance import *
from .evpn import *
from .fabrics import *
from .flows import *
from .nodes import *
from .ownership import *
from .qos import *
from .traffic import *
