"""The workbench against real files of the NetBox community device-type library.

``tests/data/netbox_library`` holds device types saved byte for byte from
netbox-community/devicetype-library, and ``truth.yaml`` beside them says what an AI
data-centre engineer would call each one.  Every file is read as ``workbench catalog
import`` reads it, and the decision is scored:

* a file the library's own schema refuses is *refused* and left out of the goal;
* a file with an open question is a *question*; it is *avoidable* when the engineer
  could have answered it from the file and the model name (``ask`` is empty), and its
  best guess must be the engineer's answer (a question offers the likely answer first);
* any other file is *accepted*, and must be right in kind, role and GPU count.

The goal (issue 22): no GPU server accepted with a wrong GPU count, no silently wrong
kind, at least 95 % of accepted files right, and questions only where the engineer
would ask too.  ``python -m tests.test_netbox_library_corpus`` prints the table.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from workbench.catalog import load_file
from workbench.catalog.classify import Classification, classify

CORPUS = Path(__file__).parent / "data" / "netbox_library"


@dataclass
class Score:
    """One file's outcome."""

    path: str
    truth: dict[str, Any]
    outcome: str  # refused | question | accepted
    found: Classification | None = None
    problems: list[str] = field(default_factory=list)

    def roles(self) -> list[str]:
        role = self.truth["role"]
        return list(role) if isinstance(role, list) else [role]


def _truth() -> dict[str, dict[str, Any]]:
    return yaml.safe_load((CORPUS / "truth.yaml").read_text(encoding="utf-8"))


def score_file(path: str, truth: dict[str, Any]) -> Score:
    """Read one file the way the importer does and compare it with the truth."""
    result = load_file(CORPUS / path)
    if result.errors or len(result.items) != 1:
        return Score(path, truth, "refused", problems=[str(result.errors[:1])])
    found = classify(result.items[0].raw)
    score = Score(path, truth, "question" if found.ambiguous else "accepted", found)
    kind, role, count = found.kind.value, found.role.value, found.gpu_count.value
    if kind != truth["kind"]:
        score.problems.append(f"kind {kind} (truth {truth['kind']})")
    if role not in score.roles():
        score.problems.append(f"role {role} (truth {'/'.join(score.roles())})")
    if count != truth["gpus"] and not (score.outcome == "question" and not count):
        score.problems.append(f"{count} GPUs (truth {truth['gpus']})")
    if score.outcome == "accepted" and truth["gpu"] and found.gpu.value != truth["gpu"]:
        score.problems.append(f"GPU {found.gpu.value} (truth {truth['gpu']})")
    if score.outcome == "question":
        asked = {q.field for q in found.questions()}
        extra = asked - set(truth["ask"]) - {"role"} if truth["ask"] else asked
        if extra:
            score.problems.append(f"avoidable question: {', '.join(sorted(extra))}")
    return score


def score_corpus() -> list[Score]:
    return [score_file(path, truth) for path, truth in sorted(_truth().items())]


def table(scores: list[Score]) -> str:
    """The confusion table: truth (kind/role, GPUs) against the decision."""
    rows: Counter[tuple[str, str]] = Counter()
    for s in scores:
        truth = f"{s.truth['kind']}/{s.roles()[0]}" + (
            f" {s.truth['gpus']} GPUs" if s.truth["gpus"] else ""
        )
        if s.found is None:
            decided = "refused by the schema"
        else:
            decided = f"{s.found.kind.value}/{s.found.role.value}" + (
                f" {s.found.gpu_count.value} GPUs" if s.found.gpu_count.value else ""
            )
            if s.outcome == "question":
                decided = f"question (best guess {decided})"
        rows[(truth, decided)] += 1
    width = max(len(t) for t, _ in rows) + 2
    lines = [f"{'truth':<{width}}decision (count)"]
    lines += [f"{t:<{width}}{d} ({n})" for (t, d), n in sorted(rows.items())]
    return "\n".join(lines)


def test_the_corpus_meets_the_goal() -> None:
    scores = score_corpus()
    assert len(scores) >= 150
    accepted = [s for s in scores if s.outcome == "accepted"]
    questions = [s for s in scores if s.outcome == "question"]
    wrong_gpus = [s for s in accepted if s.truth["role"] == "gpu-server" and s.problems]
    wrong_kind = [s for s in accepted if any(p.startswith("kind") for p in s.problems)]
    right = [s for s in accepted if not s.problems]
    avoidable = [s for s in questions if any("avoidable" in p for p in s.problems)]
    bad_guess = [s for s in questions if s.problems and s not in avoidable]
    report = "\n".join(
        f"{s.path}: {s.outcome}: {'; '.join(s.problems)}" for s in scores if s.problems
    )
    assert not wrong_gpus, report
    assert not wrong_kind, report
    assert len(right) >= 0.95 * len(accepted), report
    assert not avoidable, report
    assert not bad_guess, report


if __name__ == "__main__":  # pragma: no cover - the table for a person to read
    all_scores = score_corpus()
    print(table(all_scores))
    print(Counter(s.outcome for s in all_scores))
    for s in all_scores:
        if s.problems:
            print(f"  {s.path}: {s.outcome}: {'; '.join(s.problems)}")
