"""Where the rules come from, in words a planner can look up and defend.

Most thresholds are planning practice from the two planning documents the workbench was
built from: "智算技术与算力规划设计及部署实施方案 v2.0" (AI computing technology and
capacity planning, design and deployment) and "AI大模型训练大规模智算中心建设方案"
(building a large AI training centre).  Where a published paper or a vendor's document
gives the figure, it is named instead or as well.
"""

from __future__ import annotations

#: The two planning documents, as a rule's source names them.
PLANNING_GUIDES = (
    "AI compute-centre planning practice (智算技术与算力规划设计及部署实施方案 v2.0; "
    "AI大模型训练大规模智算中心建设方案)"
)


def planning(point: str) -> str:
    """A source line citing the planning documents for ``point``."""
    return f"{PLANNING_GUIDES}: {point}"
