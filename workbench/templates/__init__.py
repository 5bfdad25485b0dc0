"""Design templates: realistic starting designs that scale to any GPU count, and the
New hall design (:mod:`workbench.templates.new_hall`); no Qt.

The names below are loaded on first use (:mod:`workbench.lazy_exports`): the window
opens the bundled sample through :mod:`workbench.templates.bundled`, and importing the
builder here (and with it the fabric planner) put it before the window's first frame."""

from __future__ import annotations

from typing import TYPE_CHECKING

from workbench.lazy_exports import exports_on_first_use

if TYPE_CHECKING:
    from workbench.templates.builder import (
        TemplateError,
        build_template,
        fabric_switches,
        row_name,
        sample_design,
    )
    from workbench.templates.specs import SAMPLE_TEMPLATE, TEMPLATES, TemplateSpec

#: Each exported name → the module that defines it.
_HOMES: dict[str, str] = {
    "TemplateError": "builder",
    "build_template": "builder",
    "fabric_switches": "builder",
    "row_name": "builder",
    "sample_design": "builder",
    "SAMPLE_TEMPLATE": "specs",
    "TEMPLATES": "specs",
    "TemplateSpec": "specs",
}

__all__ = [
    "SAMPLE_TEMPLATE",
    "TEMPLATES",
    "TemplateError",
    "TemplateSpec",
    "build_template",
    "fabric_switches",
    "row_name",
    "sample_design",
]

__getattr__ = exports_on_first_use(__name__, _HOMES)
