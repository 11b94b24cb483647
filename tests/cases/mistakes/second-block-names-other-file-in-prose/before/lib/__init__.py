from .version import VERSION
