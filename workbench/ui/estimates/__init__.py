"""The Estimates view: workload forms bound live to the calculators, with plots.

``EstimatesView(document)`` is the tab the main window shows; see :mod:`.view`.
"""

from __future__ import annotations

from workbench.ui.estimates.view import EstimatesView

__all__ = ["EstimatesView"]
