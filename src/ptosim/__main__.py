import sys

from .server import entry

sys.exit(entry())
