from .evpn import *
from .fabrics import *
from .qos import *
from .traffic import *
