"""Fuzzing the project file: a few hundred seeded corruptions of the bundled sample.

Each case (see ``tests/fuzz_cases.py``) is written into a folder of its own and opened.
Whatever it holds:

* nothing but a :class:`ProjectFileError` escapes ``open_design``, and its message is
  one line that starts with the file's path;
* it finishes in well under :data:`LIMIT_S` seconds (no hang);
* the file is byte-for-byte unchanged and nothing appears beside it;
* a file that opens holds only values of the types its classes declare, finite numbers
  included (:func:`type_problems`, read off the dataclass annotations, independent of
  the store's checks);
* and it either means the same as the original (``design_rows`` by object id, without
  the save stamps and the workload fields its kind ignores), or its report can be made
  and the rules report something the original did not (never an INTERNAL-ERROR, a rule
  that raised), or every change lies in a field where a value the checks accept is a
  design a user could have made (:data:`FREE_COLUMNS`, each with its reason).

The benchmark ``tests/benchmarks/bench_fuzz_project.py`` runs thousands of cases and
prints the figures.
"""

from __future__ import annotations

import dataclasses
import faulthandler
import functools
import hashlib
import math
import signal
import time
import types
import typing
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
from fuzz_cases import BASE_SEED, Case, make_cases, sample_bytes

from workbench.export.report import design_report
from workbench.model.design import Design
from workbench.rules import check_design
from workbench.rules.registry import INTERNAL_ERROR
from workbench.store import ProjectFileError, open_design
from workbench.store.binding import row_columns
from workbench.store.writer import design_rows

#: Cases in the default run (about 9 s on a 2-core CI box).
DEFAULT_CASES = 200
#: No case may take longer than this to open and judge.
LIMIT_S = 10.0

#: Workload fields the calculators and rules ignore for the other kind (the workload
#: form shows each only for the kinds in its ``FieldSpec.applies``; the storage rules
#: check the checkpoint interval of training jobs only).  A change there is no change
#: in meaning.  ``test_ignored_fields_match_the_form`` keeps this in step with the form.
IGNORED_BY_KIND: dict[str, frozenset[str]] = {
    "training": frozenset({"context", "concurrency", "kv_precision"}),
    "inference": frozenset(
        {
            "tokens",
            "mfu",
            "recompute",
            "pp",
            "zero",
            "micro_batch",
            "seq_len",
            "target_days",
            "checkpoint_interval_min",
            "global_batch",
            "virtual_stages",
            "sequence_parallel",
            "flash_attention",
            "goodput",
            "nic_gbps",
            "cp",
            "grad_precision",
            "framework",
            "measured_step_s",
            "plan_at_30",
        }
    ),
}

#: Fields where a change no rule reports is still a design a user could have made, so
#: an accepted file may differ there quietly.  Reviewed case by case from the
#: benchmark's "quiet" list; a field not named here that changes quietly fails the
#: test, so each new one is looked at.  Why each may change:
FREE_COLUMNS: frozenset[tuple[str, str]] = frozenset(
    {
        # Names, labels and free text: any text that ``text_problem`` (or, for free
        # text, the type) accepts is one the user could type.
        ("meta", "name"),
        ("meta", "properties"),
        *((t, "name") for t in ("sites", "rows", "racks", "devices", "networks")),
        *((t, "name") for t in ("storage_tiers", "workloads", "software_stacks")),
        ("devices", "serial"),
        ("devices", "asset_tag"),
        ("devices", "notes"),
        ("storage_tiers", "filesystem"),
        ("software_stacks", "components"),
        ("software_stacks", "revision"),
        # A job's software stack is typed text (`estimate --stack`); a name no profile
        # knows, blanks included, takes the generic profile and the estimate says so.
        ("workloads", "framework"),
        # Ids: any unique text; what names them (links, tiers, parents) is checked.
        *((t, "id") for t in ("sites", "rows", "racks", "devices", "links", "networks")),
        *((t, "id") for t in ("storage_tiers", "workloads", "software_stacks")),
        # Moves: a device, rack or row in another parent (MoveDevice, MoveRack, MoveRow),
        # a device on the other face or with another software stack or role.
        ("rows", "parent"),
        ("racks", "parent"),
        ("devices", "parent"),
        ("devices", "position"),
        ("devices", "face"),
        ("devices", "software_stack"),
        ("devices", "role"),
        # A rack of another rack model (the inspector's rack_type), a link re-cabled to
        # another port that exists, is free and fits (FABRIC-PORT says so otherwise).
        ("racks", "rack_type"),
        ("links", "a_port"),
        ("links", "b_port"),
        # Open-ended figures the inspector accepts (above 0, or any finite position),
        # and a feed left incomplete (unknown: not checked).
        ("racks", "power_limit_kw"),
        ("racks", "cooling_limit_kw"),
        ("racks", "max_weight_kg"),
        *(("racks", f"feed_{s}_{k}") for s in "ab" for k in ("voltage", "phases", "breaker_a")),
        ("racks", "floor_x_mm"),
        ("racks", "floor_y_mm"),
        ("racks", "facing"),
        # Network and link values check_network_value / check_link_values accept, a
        # link on no network, at the speed its ports share, with a measured length.
        ("networks", "technology"),
        ("networks", "speed_gbps"),
        ("networks", "mtu"),
        ("networks", "vlan"),
        ("networks", "subnet"),
        ("links", "network"),
        ("links", "speed_gbps"),
        ("links", "length_m"),
        # Waivers: a note naming a rule and an object; one for a rule this version does
        # not know, or for an object since removed, is inert, as the model intends
        # (a waiver "stops mattering once the object goes"); note and date are free text.
        ("waivers", "#rows"),
        ("waivers", "rule"),
        ("waivers", "object_id"),
        ("waivers", "note"),
        ("waivers", "created_at"),
        # A tier's kind and members as SetTierFields sets them.
        ("storage_tiers", "tier"),
        ("storage_tiers", "device_ids"),
        # Workload numbers the calculators accept (a few tokens, ZeRO 0, a far target,
        # a long checkpoint interval) and the defaults (None, "") of the optional ones.
        ("workloads", "tokens"),
        ("workloads", "zero"),
        ("workloads", "gpu_type"),
        ("workloads", "target_days"),
        ("workloads", "dataset_tier"),
        ("workloads", "checkpoint_tier"),
        ("workloads", "checkpoint_interval_min"),
        # A job's compute-NIC line rate per GPU (any figure above 0: a 2.5G NIC is one),
        # and a tier's planning amounts as `workbench tiers set` takes them (any figure
        # above 0: "not said" is None, a small one is the planner's to make).
        ("workloads", "nic_gbps"),
        ("storage_tiers", "small_file_iops"),
        ("storage_tiers", "dataset_tb"),
    }
)

#: Workload fields the form may hold fractional numbers in, although the class says
#: ``int``: the form passes "8.5" on as a float for the calculators to refuse (rule
#: WORKLOAD-INPUT), so a saved design can hold one.
LOOSE_INTS: frozenset[str] = frozenset(
    {"tp", "pp", "micro_batch", "seq_len", "gpus", "context", "concurrency"}
)


#: Accepted cases on which a rule raises, because of a bug outside the store (a value
#: the model allows, which the rule does not cope with), with who must fix it.  The
#: test insists each still fails, so a fixed one is removed from here.
KNOWN_RULE_FAILURES: dict[str, str] = {}


@dataclass
class Outcome:
    """What one case came to."""

    verdict: str  # "refused", "same", "flagged", "quiet" or "skipped"
    seconds: float = 0.0
    message: str = ""
    changed: set[tuple[str, str]] = field(default_factory=set)
    new_rules: set[str] = field(default_factory=set)


@dataclass(frozen=True)
class Baseline:
    """The original design's meaning and findings."""

    meaning: dict[str, Any]
    findings: frozenset[tuple[str, str]]


#: Tables whose objects are compared by id (their order in the file is not meaning; a
#: moved rack changes its row, which is compared as the pseudo-column ``parent``).
_BY_ID = (
    *("sites", "rows", "racks", "devices", "networks", "links", "storage_tiers"),
    *("workloads", "software_stacks"),
)
_TREE = ("sites", "rows", "racks", "devices")
_PARENTS = {
    "rows": ("sites", "site_seq"),
    "racks": ("rows", "row_seq"),
    "devices": ("racks", "rack_seq"),
}


def meaning(design: Design) -> dict[str, Any]:
    """What a design says, for comparing: per table, each object's field values by id
    (the writer's rows, with the parent named by id instead of seq), the meta rows
    without the save stamps, the workloads without the fields their kind or model
    ignores, and the catalog items compared as items (their ``raw`` mappings may differ
    in spelling only)."""
    out: dict[str, Any] = {}
    ids_by_seq: dict[str, dict[int, Any]] = {}
    for table, rows in design_rows(design):
        if table == "catalog_snapshot":
            continue
        rows = [tuple(r) for r in rows]
        if table == "meta":
            out[table] = {r[0]: r[1] for r in rows if r[0] not in ("app_version", "saved_at")}
            continue
        columns = row_columns(table)
        named = [dict(zip(columns, r, strict=True)) for r in rows]
        if table in _PARENTS:
            parent, key = _PARENTS[table]
            for values in named:
                values["parent"] = ids_by_seq[parent].get(values.pop(key))
        if table in _TREE:
            ids_by_seq[table] = {v["seq"]: v["id"] for v in named}
        for values in named:
            values.pop("seq", None)
        if table == "workloads":
            named = [_without_ignored(v) for v in named]
        if table in _BY_ID:
            out[table] = {v["id"]: v for v in named}
        else:  # waivers: one per rule and object
            out[table] = {(v["rule"], v["object_id"]): v for v in named}
    out["device_types"] = dict(design.device_types)
    return out


def _without_ignored(values: dict[str, Any]) -> dict[str, Any]:
    ignored = set(IGNORED_BY_KIND.get(values["kind"], ()))
    if values["model"] != "custom":
        ignored |= {"params", "model_config"}  # a preset fixes the model (resolve_model)
    return {k: (None if k in ignored else v) for k, v in values.items()}


def changed_cells(a: dict[str, Any], b: dict[str, Any]) -> set[tuple[str, str]]:
    """(table, field) of every value that differs; (table, "id") for an object that
    is only in one of them."""
    out: set[tuple[str, str]] = set()
    for table in a:
        old, new = a[table], b[table]
        if table == "device_types":
            out |= {
                ("catalog_snapshot", s) for s in old.keys() | new.keys() if old.get(s) != new.get(s)
            }
            continue
        if old.keys() != new.keys():
            out.add((table, {"meta": "key", "waivers": "#rows"}.get(table, "id")))
        for key in old.keys() & new.keys():
            x, y = old[key], new[key]
            if table == "meta":
                if x != y:
                    out.add((table, key))
                continue
            out |= {(table, name) for name in x if x[name] != y[name]}
    return out


def type_problems(design: Design) -> list[str]:
    """Where an object's field does not hold the type its class declares (an int may
    stand for a float), or a float is not finite: what no accepted file may hold,
    whatever the value checks say."""
    problems = []
    objects: list[tuple[str, Any]] = [("design", design)]
    objects += [("site", s) for s in design.sites]
    objects += [("row", r) for s in design.sites for r in s.rows]
    objects += [("rack", r) for r in design.iter_racks()]
    objects += [("device", d) for _, d in design.iter_devices()]
    for name in ("networks", "links", "storage_tiers", "workloads", "software_stacks", "waivers"):
        objects += [(name, o) for o in getattr(design, name)]
    for label, obj in objects:
        for f in dataclasses.fields(obj):
            if not f.init or f.name in ("sites", "rows", "racks", "devices", "device_types"):
                continue
            value = getattr(obj, f.name)
            hint = _hints(type(obj))[f.name]
            if label == "workloads" and f.name in LOOSE_INTS:
                hint = hint | float
            if not _matches(value, hint):
                problems.append(f"{label} {getattr(obj, 'id', '')!r}.{f.name} = {value!r}")
    return problems


@functools.cache
def _hints(cls: type) -> dict[str, Any]:
    return typing.get_type_hints(cls)


def _matches(value: Any, hint: Any) -> bool:
    origin = typing.get_origin(hint)
    if origin in (typing.Union, types.UnionType):
        return any(_matches(value, h) for h in typing.get_args(hint))
    if hint is type(None):
        return value is None
    if hint is typing.Any:
        return True
    if origin is not None:
        if not isinstance(value, origin):
            return False
        args = typing.get_args(hint)
        if origin is list:
            return all(_matches(v, args[0]) for v in value)
        if origin is dict:
            return all(_matches(k, args[0]) and _matches(v, args[1]) for k, v in value.items())
        return True
    if hint is float:
        return type(value) in (int, float) and math.isfinite(value)
    if hint is int:
        return type(value) is int
    if isinstance(hint, type) and dataclasses.is_dataclass(hint):
        return isinstance(value, hint)
    return type(value) is hint


def baseline(folder: Path) -> Baseline:
    """The original's meaning and findings (opened from ``folder``)."""
    path = _write(folder, "original.dcwb", sample_bytes())
    design = open_design(path)
    path.unlink()
    keys = frozenset((f.rule, f.message) for f in check_design(design))
    return Baseline(meaning(design), keys)


def _write(folder: Path, name: str, data: bytes) -> Path:
    path = folder / name
    path.write_bytes(data)
    return path


def check_case(case: Case, data: bytes, folder: Path, base: Baseline) -> Outcome:
    """Open ``data`` as a project file in ``folder`` (which must be empty) and judge it;
    an AssertionError says what went wrong."""
    path = _write(folder, "case.dcwb", data)
    digest = hashlib.sha256(data).hexdigest()
    start = time.perf_counter()
    # A hang must end the run, not stall it: a traceback and exit if C code never
    # returns, a TimeoutError (failing the case) if Python code loops.
    faulthandler.dump_traceback_later(3 * LIMIT_S, exit=True)
    alarm = hasattr(signal, "setitimer")
    if alarm:
        previous = signal.signal(signal.SIGALRM, _hung)
        signal.setitimer(signal.ITIMER_REAL, LIMIT_S)
    try:
        design = open_design(path)
    except ProjectFileError as exc:
        message = str(exc)
        assert message.startswith(f"{path}: "), f"{case.ident}: message {message!r}"
        assert "\n" not in message, f"{case.ident}: message of several lines"
        outcome = Outcome("refused", message=exc.problem)
    except Exception as exc:  # the assertion this fuzzing is for
        raise AssertionError(f"{case.ident}: {type(exc).__name__} escaped: {exc}") from exc
    else:
        outcome = _judge(case, design, base)
    finally:
        if alarm:
            signal.setitimer(signal.ITIMER_REAL, 0)
            signal.signal(signal.SIGALRM, previous)
        faulthandler.cancel_dump_traceback_later()
    outcome.seconds = time.perf_counter() - start
    assert hashlib.sha256(path.read_bytes()).hexdigest() == digest, f"{case.ident}: file changed"
    assert [p.name for p in folder.iterdir()] == ["case.dcwb"], f"{case.ident}: files appeared"
    assert outcome.seconds < LIMIT_S, f"{case.ident}: took {outcome.seconds:.1f} s"
    path.unlink()
    return outcome


def _hung(signum: int, frame: object) -> None:
    raise TimeoutError(f"no case may take {LIMIT_S:g} s")


def _judge(case: Case, design: Design, base: Baseline) -> Outcome:
    wrong = type_problems(design)
    assert not wrong, f"{case.ident}: opened with {wrong[0]}"
    now = meaning(design)
    changed = changed_cells(base.meaning, now)
    if not changed:
        return Outcome("same")
    try:  # what ``workbench report`` prints; it once blamed a --gpus nobody gave
        design_report(design)
    except Exception as exc:
        raise AssertionError(
            f"{case.ident}: the report raised {type(exc).__name__}: {exc}"
        ) from exc
    findings = check_design(design)
    crashed = [f.message for f in findings if f.rule == INTERNAL_ERROR]
    if case.ident in KNOWN_RULE_FAILURES:
        assert crashed, f"{case.ident}: fixed? remove it from KNOWN_RULE_FAILURES"
        return Outcome("known", changed=changed, message=crashed[0])
    assert not crashed, f"{case.ident}: a rule raised on an accepted file: {crashed[0]}"
    new = {f.rule for f in findings if (f.rule, f.message) not in base.findings}
    if new:
        return Outcome("flagged", changed=changed, new_rules=new)
    unexplained = {
        (table, name)
        for table, name in changed - FREE_COLUMNS
        # A catalog item the catalog's own parser accepts is one a catalog could hold.
        if table != "catalog_snapshot"
    }
    assert not unexplained, (
        f"{case.ident}: opened with {sorted(unexplained)} changed and no finding"
    )
    return Outcome("quiet", changed=changed)


def run_cases(
    cases: list[Case], folder: Path, base: Baseline, *, keep_going: bool = False
) -> list[tuple[Case, Outcome]]:
    """Each case judged in ``folder``; with ``keep_going`` a failed judgement becomes a
    "FAILED" outcome carrying its message (for the benchmark) instead of raising."""
    results = []
    for case in cases:
        data = case.build(sample_bytes(), folder)
        if data is None:
            results.append((case, Outcome("skipped")))
            continue
        try:
            results.append((case, check_case(case, data, folder, base)))
        except AssertionError as exc:
            if not keep_going:
                raise
            results.append((case, Outcome("FAILED", message=str(exc))))
            for leftover in folder.iterdir():
                leftover.unlink()
    return results


# -- the tests ---------------------------------------------------------------------------


@pytest.fixture(scope="module")
def base(tmp_path_factory: pytest.TempPathFactory) -> Baseline:
    return baseline(tmp_path_factory.mktemp("fuzz-base"))


def test_seeded_corruptions_never_escape_or_change_the_file(base: Baseline, tmp_path: Path) -> None:
    results = run_cases(make_cases(DEFAULT_CASES, BASE_SEED), tmp_path, base)
    verdicts = [o.verdict for _, o in results]
    # The mix is what makes the run worth its time: many refused, some flagged.
    assert verdicts.count("refused") > DEFAULT_CASES // 3
    assert verdicts.count("flagged") >= 5
    assert verdicts.count("skipped") < DEFAULT_CASES // 4


def test_the_original_opens_unchanged(base: Baseline, tmp_path: Path) -> None:
    outcome = check_case(Case("original", "value"), sample_bytes(), tmp_path, base)
    assert outcome.verdict == "same"


def test_the_oracle_can_fail(base: Baseline, tmp_path: Path) -> None:
    """The judge is no rubber stamp: a quiet change outside FREE_COLUMNS fails it, and
    so does a value of the wrong type, whatever the file checks said."""
    path = _write(tmp_path, "x.dcwb", sample_bytes())
    design = open_design(path)
    design.workloads[0].precision = "fp8"  # valid, reported by no rule: unexplained
    with pytest.raises(AssertionError, match=r"\('workloads', 'precision'\)\] changed"):
        _judge(Case("self-test", "value"), design, base)
    design = open_design(path)
    _, device = next(design.iter_devices())
    device.position = 2.5  # type: ignore[assignment]
    with pytest.raises(AssertionError, match=r"device .*\.position = 2\.5"):
        _judge(Case("self-test", "value"), design, base)
    design.workloads[0].mfu = float("nan")
    assert any(".mfu = nan" in p for p in type_problems(design))


def test_ignored_fields_match_the_form() -> None:
    """IGNORED_BY_KIND is the workload form's ``applies`` (its one home), plus the
    training-only checkpoint interval."""
    from workbench.ui.estimates import fields  # a missing form is a failure, not a skip

    for kind, ignored in IGNORED_BY_KIND.items():
        from_form = {f.name for f in fields.FIELDS if kind not in f.applies}
        assert ignored - {"checkpoint_interval_min"} == from_form
