"""The workbench: an offline desktop application for designing GPU clusters.

The package is layered (see README): ``model``, ``catalog``, ``calc``, ``rules``,
``store``, ``export`` and ``templates`` are the Qt-free core; ``render`` and ``ui`` hold
the Qt code.
"""

__version__ = "0.1.0"
