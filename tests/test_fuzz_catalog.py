"""Seeded corruptions of real catalog files: whatever a stranger's file holds, loading
and importing it ends in items or CatalogErrors, quickly, and never changes it.

Each case takes one real file (a shipped catalog file or a NetBox device type from
``tests/data/netbox``) and corrupts it one to three ways: aliases (billion laughs,
self-reference), tags, huge or infinite numbers, wrong types, deep nesting,
truncation, random byte flips, duplicated lines and keys, huge strings and huge lists.
Then for every case:

* ``load_file`` raises nothing and reports only CatalogErrors, each one line that
  names the file;
* the importer's per-file step raises nothing but CatalogError, and copies exactly
  the source's bytes, or nothing;
* the case finishes within :data:`CASE_SECONDS` of CPU time (a CPU timer also
  interrupts a case that would run away, so a regression fails instead of hanging the
  run; CPU time, not the wall clock, so a machine busy with other work cannot fail it);
* the corrupted file is byte-for-byte unchanged afterwards;
* every item that loads passes validation again from its snapshot (``raw``) and that
  snapshot is plain JSON (no NaN, no infinity).

The default run has :data:`DEFAULT_CASES` cases (a few seconds);
``tests/benchmarks/bench_fuzz_catalog.py`` runs thousands with timings and memory.
"""

from __future__ import annotations

import hashlib
import json
import random
import re
import shutil
import signal
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import pytest

from workbench.catalog import Catalog, CatalogError, limits, load_catalog, load_file, parse_item
from workbench.catalog.errors import display_path
from workbench.catalog.loader import catalog_files
from workbench.cli.catalog_cmds import _import_one

ROOT = Path(__file__).resolve().parents[1]
SEED_FILES: tuple[Path, ...] = tuple(
    sorted(catalog_files(ROOT / "catalogs"))  # the loader's own walk: compat/ is not items
    + sorted((ROOT / "tests/data/netbox").glob("*.yaml"))
)

DEFAULT_CASES = 300
BASE_SEED = 20240601

#: CPU seconds per case: the slowest cases (a file at the value-count limit) take about
#: 0.4 s on the development machine.  Counted in this process's CPU time, so the limit
#: holds however many other processes share the machine (the suite runs in parallel).
CASE_SECONDS = 5.0

_VALUE_LINE = re.compile(rb"^(\s*(?:- )?[\w.-]+:)[ \t]*(.*)$")

# --- corruptions ---------------------------------------------------------------------


def _value_lines(lines: list[bytes]) -> list[int]:
    return [i for i, line in enumerate(lines) if _VALUE_LINE.match(line)]


def _replace_value(rng: random.Random, data: bytes, new: bytes) -> bytes:
    """``data`` with the value of one random ``key: value`` line replaced by ``new``."""
    lines = data.split(b"\n")
    choices = _value_lines(lines)
    if not choices:
        return data + b"\nextra: " + new + b"\n"
    index = rng.choice(choices)
    match = _VALUE_LINE.match(lines[index])
    assert match is not None
    lines[index] = match.group(1) + b" " + new
    return b"\n".join(lines)


def _billion_laughs(rng: random.Random, data: bytes) -> bytes:
    levels, width = rng.randint(3, 10), rng.randint(2, 10)
    block = b"  l0: &l0 [" + b", ".join([b"lol"] * width) + b"]\n"
    for level in range(1, levels):
        refs = b", ".join([b"*l%d" % (level - 1)] * width)
        block += b"  l%d: &l%d [%s]\n" % (level, level, refs)
    key = rng.choice([b"props", b"bomb", b"sources", b"comments"])
    return data.rstrip(b"\n") + b"\n" + key + b":\n" + block


def _alias(rng: random.Random, data: bytes) -> bytes:
    choice = rng.randrange(4)
    if choice == 0:  # refers to itself
        return _replace_value(rng, data, b"&x [1, *x]")
    if choice == 1:  # a mapping that contains itself
        return _replace_value(rng, data, b"&m {a: *m}")
    if choice == 2:  # an innocent-looking repeat
        first = _replace_value(rng, data, b"&v 12")
        return _replace_value(rng, first, b"*v")
    return _replace_value(rng, data, b"*undefined")


_TAGS = (
    b"!!python/object/apply:os.system ['true']",
    b"!!python/object/new:tuple [[1]]",
    b"!!python/name:os.system",
    b"!!python/tuple [1, 2]",
    b"!foo bar",
    b"!foo {a: 1}",
    b"!!binary aGVsbG8=",
    b"!!set {a: null}",
    b"!!omap [a: 1]",
    b"!!pairs [a: 1]",
    b"!<tag:example.com,2024:x> y",
    b"!foo%0Abar x",
    b"!!str 12",
    b"!!int '12'",
    b"!!int twelve",
    b"!!float .5",
    b"!!bool yes",
    b"!!bool maybe",
    b"!!null ''",
    b"!!timestamp 2024-02-30",
    b"!!timestamp 2024-01-01",
    b"!!map {a: 1}",
    b"!!seq [1]",
    b"!!seq {a: 1}",
    b"! plain",
)


def _tag(rng: random.Random, data: bytes) -> bytes:
    return _replace_value(rng, data, rng.choice(_TAGS))


def _number(rng: random.Random, data: bytes) -> bytes:
    digits = rng.choice([16, 17, 25, 33, 400, 4301, 20_000])
    new = rng.choice(
        [
            b"1" + b"0" * digits,
            b"-" + b"9" * digits,
            b"1.0e+309",
            b"-1.0e+309",
            b"1.0e+15",
            b"1.000000000000001e+15",
            b".inf",
            b"-.Inf",
            b".nan",
            b".NaN",
            b"0x" + b"f" * rng.randint(1, 40),
            b"0b" + b"1" * rng.randint(1, 80),
            b"0o777",
            b"0777",
            b"1_000_000",
            b"190:20:30",
            b"-0",
            b"1e3",
            b"5e-324",
            b"-1",
        ]
    )
    return _replace_value(rng, data, new)


def _wrong_type(rng: random.Random, data: bytes) -> bytes:
    new = rng.choice(
        [b"[1, 2]", b"{a: b}", b"null", b"~", b"true", b"''", b"[[]]", b"{}", b"3.5", b"-1"]
        + [b"[{name: x}]", b"{name: [1]}", b"2024-01-01", b"'\\x00'", b'"\\u0000"', b"|\n  text"]
    )
    return _replace_value(rng, data, new)


def _deep(rng: random.Random, data: bytes) -> bytes:
    depth = rng.choice([5, 30, 31, 32, 33, 100, 999, 1001, 5000])
    if rng.random() < 0.5:
        new = b"[" * depth + b"]" * depth
    else:
        new = b"{a: " * depth + b"1" + b"}" * depth
    return _replace_value(rng, data, new)


def _truncate(rng: random.Random, data: bytes) -> bytes:
    return data[: rng.randrange(len(data) + 1)]


_SPECIAL_BYTES = b"\x00\xff\xfe\xc3:\n\t&*![]{}-\"'#%@`|>?,\r\x1b\x85"


def _flip(rng: random.Random, data: bytes) -> bytes:
    mutable = bytearray(data)
    for _ in range(rng.randint(1, 8)):
        if not mutable:
            break
        at = rng.randrange(len(mutable))
        mutable[at] = rng.choice(_SPECIAL_BYTES) if rng.random() < 0.7 else rng.randrange(256)
    return bytes(mutable)


def _duplicate(rng: random.Random, data: bytes) -> bytes:
    lines = data.split(b"\n")
    index = rng.randrange(len(lines))
    copies = rng.choice([1, 1, 2, 50])
    return b"\n".join(lines[: index + 1] + [lines[index]] * copies + lines[index + 1 :])


def _huge_string(rng: random.Random, data: bytes) -> bytes:
    size = rng.choice(
        [limits.MAX_STRING_CHARS, limits.MAX_STRING_CHARS + 1, 200_000, limits.MAX_FILE_BYTES]
    )
    body = rng.choice([b"x", b"\xc3\xa9", b"ab "]) * (size // 2 if rng.random() < 0.3 else size)
    quote = rng.choice([b"", b"'", b'"'])
    return _replace_value(rng, data, quote + body + quote)


def _huge_list(rng: random.Random, data: bytes) -> bytes:
    count = rng.choice([1_000, limits.MAX_VALUES_PER_FILE + 1])
    if rng.random() < 0.5:
        return _replace_value(rng, data, b"[" + b",".join([b"0"] * count) + b"]")
    entries = b"".join(b"\n  - {name: e%d, type: 400gbase-x-osfp}" % i for i in range(count // 4))
    return data.rstrip(b"\n") + b"\ninterfaces:" + entries + b"\n"


@dataclass(frozen=True)
class Mutator:
    name: str
    apply: Callable[[random.Random, bytes], bytes]
    weight: int


MUTATORS: tuple[Mutator, ...] = (
    Mutator("billion-laughs", _billion_laughs, 4),
    Mutator("alias", _alias, 6),
    Mutator("tag", _tag, 8),
    Mutator("number", _number, 8),
    Mutator("wrong-type", _wrong_type, 8),
    Mutator("deep", _deep, 5),
    Mutator("truncate", _truncate, 6),
    Mutator("flip", _flip, 10),
    Mutator("duplicate", _duplicate, 6),
    Mutator("huge-string", _huge_string, 3),
    Mutator("huge-list", _huge_list, 1),
)


@dataclass(frozen=True)
class Case:
    number: int
    seed_file: Path
    mutations: tuple[str, ...]
    data: bytes

    @property
    def label(self) -> str:
        return f"case {self.number}: {self.seed_file.name} + {'+'.join(self.mutations)}"


def make_case(number: int, base_seed: int = BASE_SEED) -> Case:
    """Corrupted file ``number``: the same one on every run for a given seed."""
    rng = random.Random(base_seed * 1_000_003 + number)
    seed_file = rng.choice(SEED_FILES)
    data = seed_file.read_bytes()
    chosen = rng.choices(MUTATORS, [m.weight for m in MUTATORS], k=rng.choice([1, 1, 1, 2, 3]))
    for mutator in chosen:
        data = mutator.apply(rng, data)
    return Case(number, seed_file, tuple(m.name for m in chosen), data)


def make_cases(count: int, base_seed: int = BASE_SEED) -> Iterator[Case]:
    """Cases 0 to ``count - 1``, made one at a time (some are megabytes)."""
    for number in range(count):
        yield make_case(number, base_seed)


# --- running one case ----------------------------------------------------------------


class CaseTimeout(Exception):
    """Raised by the timer in a case that runs away."""


@contextmanager
def time_limit(seconds: float) -> Iterator[None]:
    """Interrupt the block after ``seconds`` of CPU (POSIX main thread), so a hang fails.

    A parser that runs away burns CPU, so a CPU timer (``ITIMER_PROF``, process user +
    system time) catches it, and a wall-clock timer would also fire on a case that only
    waited for a busy machine.
    """
    usable = hasattr(signal, "setitimer")
    if usable:

        def expired(signum, frame):
            raise CaseTimeout(f"still running after {seconds} s of CPU")

        previous = signal.signal(signal.SIGPROF, expired)
        signal.setitimer(signal.ITIMER_PROF, seconds)
    try:
        yield
    finally:
        if usable:
            signal.setitimer(signal.ITIMER_PROF, 0)
            signal.signal(signal.SIGPROF, previous)


@dataclass
class Outcome:
    seconds: float  # CPU seconds (process_time): the load of the machine does not count
    items: int
    errors: int
    imported: bool


def check_case(case: Case, workdir: Path, known: dict, limit: float = CASE_SECONDS) -> Outcome:
    """Load and import one corrupted file, asserting every promise of this module.

    ``limit`` is the time allowed (the benchmark raises it when tracing memory, which
    slows everything down several times).
    """
    folder = workdir / f"case-{case.number}"
    folder.mkdir()
    source = folder / "device.yaml"
    source.write_bytes(case.data)
    before = hashlib.sha256(case.data).hexdigest()
    dest = folder / "dest"
    dest.mkdir()
    start = time.process_time()
    with time_limit(limit):
        result = load_file(source)
        imported = True
        try:
            _import_one(source, dest, known, Catalog(), force=False)
        except CatalogError as exc:
            imported = False
            _check_error(exc, source)
    seconds = time.process_time() - start
    assert seconds < limit, f"{case.label}: {seconds:.2f} s"
    assert hashlib.sha256(source.read_bytes()).hexdigest() == before, f"{case.label}: changed"
    for error in result.errors:
        _check_error(error, source)
    for item in result.items:
        snapshot = json.loads(json.dumps(item.raw, allow_nan=False))
        assert parse_item(snapshot, item.source_file) == item, case.label
    copied = sorted(dest.iterdir())
    if imported:
        # The file's own bytes, then (importing over a shipped item) the figures it lacks.
        assert len(copied) == 1 and copied[0].read_bytes().startswith(case.data), case.label
    else:
        assert copied == [], f"{case.label}: a refused file was copied"
    shutil.rmtree(folder)
    return Outcome(seconds, len(result.items), len(result.errors), imported)


def _check_error(error: object, source: Path) -> None:
    assert isinstance(error, CatalogError), repr(error)
    text = str(error)
    assert "\n" not in text and text.startswith(display_path(source)), text


# --- the test ------------------------------------------------------------------------


@pytest.fixture(scope="module")
def known() -> dict:
    return load_catalog(include_user=False).items


def test_seed_files_load_cleanly_before_they_are_corrupted(known):
    assert len(SEED_FILES) >= 20
    for path in SEED_FILES:
        result = load_file(path)
        assert result.errors == [] and result.items, path


def test_corrupted_catalog_files_never_crash_hang_or_change(tmp_path, known):
    outcomes = [check_case(case, tmp_path, known) for case in make_cases(DEFAULT_CASES)]
    # The corruptions must exercise both outcomes, or the test proves little.
    # NetBox's schema refuses more corruptions than the old hand-written checks did
    # (a truncated file loses is_full_depth, a mangled type leaves the enumeration).
    assert sum(1 for o in outcomes if o.items) > DEFAULT_CASES // 20
    assert sum(1 for o in outcomes if o.errors) > DEFAULT_CASES // 2
    assert any(o.imported for o in outcomes) and not all(o.imported for o in outcomes)
