"""The ``passk-lab`` command line.

One module per family of commands (``_reproduce``; ``_analysis``: analyze and
report; ``_agents``: leaderboard and compare; ``_plan``), each adding its
commands to the parser and running them; what they share: the options' types
(``_argument_types``), the parser that records its options (``_parsing``), the
options themselves (``_input``, ``_options``), what they print (``_output``),
and :func:`main` (``_main``).
"""

from passk_lab.cli._main import main

__all__ = ["main"]
