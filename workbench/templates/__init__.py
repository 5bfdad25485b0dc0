"""Design templates: realistic starting designs that scale to any GPU count, and the
New hall design (:mod:`workbench.templates.new_hall`); no Qt."""

from workbench.templates.builder import (
    TemplateError,
    build_template,
    fabric_switches,
    row_name,
    sample_design,
)
from workbench.templates.specs import SAMPLE_TEMPLATE, TEMPLATES, TemplateSpec

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
