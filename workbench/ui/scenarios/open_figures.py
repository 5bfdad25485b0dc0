"""The open design's comparison figures, from the design in memory rather than its file.

A clean document whose file is still at the version it was read from or saved to
(:attr:`~workbench.ui.shell.document.Document.file_version`) holds exactly that file's
design, so the file's figures can be computed from it with what the window already keeps
(the rule findings, the summary, the compute fabric) instead of reading and checking the
file again: seconds at 100,000 GPUs, when the Scenarios panel compares the open design
with its variants.  Saving the design keeps its figures the same way, once the window's
check is done.  A modified document is never used: its file's figures are then read
from the file (:func:`~workbench.planning.scenarios.figures.figures_of_file`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from workbench.planning.scenarios.figures import ScenarioFigures, keep_figures_of_saved
from workbench.rules.context import RuleContext

if TYPE_CHECKING:
    from workbench.store.reader import SlugLookup
    from workbench.ui.shell.document import Document


def open_design_figures(
    document: Document, catalog: SlugLookup | None, *, checked_only: bool = False
) -> ScenarioFigures | None:
    """The figures of the document's file, computed from its design and kept as
    :func:`~workbench.planning.scenarios.figures.keep_figures_of_saved` keeps them; None
    when the design is not known to be the file's (unsaved, modified, recovered,
    repaired, or the file rewritten since), or the figures cannot be cached.  The rules'
    findings are the window's (its first check is finished now if it has not yet, or,
    with ``checked_only``, nothing is done until it has)."""
    path, version = document.path, document.file_version
    if path is None or version is None or document.is_dirty:
        return None
    live = document.figures
    if checked_only and not live.checked:
        return None
    context = RuleContext(document.design, summary=lambda: live.summary, fabric=lambda: live.fabric)
    return keep_figures_of_saved(
        document.design,
        path,
        catalog,
        findings=live.findings(),
        context=context,
        version=version,
    )
