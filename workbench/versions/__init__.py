"""The version matrix: baselines, node reports and how they compare.

* :mod:`~workbench.versions.compare`: version strings compared as versions
  (``535.104.05 > 535.54.03``), tolerant of vendor strings;
* :mod:`~workbench.versions.compat`: the compatibility knowledge base (``catalogs/compat/*.yaml``):
  drivers per CUDA release, CUDA builds per framework release, GPU architectures;
* :mod:`~workbench.versions.matrix`: each node's effective versions, expected against
  reported (what the checks, the Versions view and ``versions show`` read);
* ``reports`` and ``importer``: reading node report files into observations.

The package holds no Qt and no rules: the checks live in :mod:`workbench.rules.versions`.
Importing it imports nothing heavy, so the report parsers can be used alone.
"""
