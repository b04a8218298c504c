"""The built-in tool set: five tools that read files and skills, as contracts, handlers and generated code.

``files`` is the file layer (open beneath a root, decode, line windows, audit), ``skills`` the skill
catalog and gate, ``handlers`` one module per tool, ``contracts`` the YAML contracts and ``generated``
what ``toolproof gen`` makes of them. The dispatch core in ``toolproof.runtime`` knows none of this:
a host hands these tools their workspace and skills through the handler context's resources.
"""
