"""Pure rules, no I/O: the engine vocabulary (``core``) and one package per game system."""
