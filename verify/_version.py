"""The toolkit's version (single source: setup.cfg reads it)."""
__version__ = "0.1.0"
