"""Commands say what they are doing once a step runs past two seconds (issue 21: a
1,000,000-GPU campus keeps `new`, `check` and `report` busy for tens of seconds) and
stay quiet on small designs; standard output, which --json uses, is never written."""

from __future__ import annotations

import time

from workbench.cli.progress import step


def assert_rising(told: list[tuple[float, str]], start: float | None = 0.0) -> None:
    """What every progress told must be: rising, below 1, from ``start`` (when given)."""
    fractions = [f for f, _what in told]
    assert fractions == sorted(fractions) and fractions[-1] < 1.0, fractions
    assert start is None or fractions[0] == start, fractions


def table_rows(path) -> list[list[tuple]]:
    """The racks', devices' and links' rows of a saved design, in order."""
    import sqlite3

    conn = sqlite3.connect(path)
    try:
        return [
            conn.execute(f'SELECT * FROM "{t}" ORDER BY seq').fetchall()
            for t in ("racks", "devices", "links")
        ]
    finally:
        conn.close()


def waited(condition, deadline_s: float = 60.0) -> bool:
    """Whether ``condition()`` came true before the deadline (a bound on a stuck thread,
    not a timing: the step's watcher thread runs when the machine lets it)."""
    end = time.monotonic() + deadline_s
    while not condition():
        if time.monotonic() > end:
            return False
        time.sleep(0.001)
    return True


def test_a_long_step_says_what_it_does_and_how_long_it_took(capsys) -> None:
    with step("checking the design", after_s=0.05) as tell:
        assert tell.said.wait(60)
    out, err = capsys.readouterr()
    assert out == ""
    assert "workbench: checking the design…" in err
    assert "checking the design: done in" in err


def test_a_short_step_says_nothing(capsys) -> None:
    with step("opening x.dcwb", after_s=3600):
        pass
    assert capsys.readouterr() == ("", "")


def test_quiet_says_nothing_however_long_the_step(capsys) -> None:
    """A command's --quiet ("print nothing on success") silences progress too."""
    with step("writing cables.xlsx", after_s=0.01, quiet=True):
        time.sleep(0.1)
    assert capsys.readouterr() == ("", "")


def test_a_long_step_says_how_far_it_got_while_the_figure_moves(capsys) -> None:
    """The work reports through what the step gives it; the step prints the latest
    figure every few seconds (here every millisecond), once per figure, never 100 %: a
    whole figure is left to the "done" line.  The test waits for each line to be
    printed, not for time to pass."""
    with step("writing x.xlsx", after_s=0.0, every_s=0.001) as tell:
        tell(0.25, "Cables")
        assert waited(lambda: tell.shown == (0.25, "Cables"))
        tell(0.999, "Pull list")
        assert waited(lambda: tell.shown == (0.999, "Pull list"))
        tell(1.0, "")  # whole: said by the "done" line alone, however often it looks
        time.sleep(0.05)
    err = capsys.readouterr().err.splitlines()
    assert err[0] == "workbench: writing x.xlsx…"
    assert err[1:3] == [
        "workbench: writing x.xlsx: 25 % (Cables)",
        "workbench: writing x.xlsx: 99 % (Pull list)",
    ]
    assert err[3].startswith("workbench: writing x.xlsx: done in ")
    assert len(err) == 4


def test_pages_say_which_one_is_under_way() -> None:
    with step("drawing x.pdf", after_s=60) as tell:
        tell.pages(4, 1406)
        assert tell.latest == (4 / 1406, "page 5 of 1,406")
        tell.pages(1406, 1406)
        assert tell.latest == (1.0, "page 1,406 of 1,406")


def test_the_check_tells_each_rule_before_it_runs(tmp_path) -> None:
    """check_design's progress: every rule of the registry named in order, with the
    share of the rules done before it."""
    from workbench.cli.main import main
    from workbench.rules import check_design
    from workbench.rules.registry import all_rules
    from workbench.store import open_design

    path = tmp_path / "d.dcwb"
    assert main(["new", str(path), "--gpus", "64"]) == 0
    told: list[tuple[float, str]] = []
    check_design(open_design(path), progress=lambda f, what: told.append((f, what)))
    ids = list(all_rules())
    assert told == [
        (n / len(ids), f"rule {n + 1} of {len(ids)}: {id_}") for n, id_ in enumerate(ids)
    ]


def test_the_check_command_names_the_rule_it_is_in(tmp_path, capsys, monkeypatch) -> None:
    """`workbench check` hands the step's callback to the check, and the step prints the
    rule the check is in: here every rule, in order, each waited for before the check
    goes on (the step's first line made due at once)."""
    import workbench.cli.progress as progress
    import workbench.rules as rules
    from workbench.cli.main import main
    from workbench.rules.registry import all_rules

    path = tmp_path / "d.dcwb"
    assert main(["new", str(path), "--gpus", "64"]) == 0
    real = rules.check_design

    def waiting(design, progress=None, **kw):
        def told(fraction: float, what: str) -> None:
            progress(fraction, what)
            assert waited(lambda: progress.shown == (fraction, what))

        return real(design, progress=told, **kw)

    monkeypatch.setattr(progress, "AFTER_S", 0.0)
    monkeypatch.setattr(progress, "EVERY_S", 0.001)
    monkeypatch.setattr(rules, "check_design", waiting)
    capsys.readouterr()
    main(["check", str(path)])
    err = capsys.readouterr().err.splitlines()
    ids = list(all_rules())
    said = [line for line in err if line.startswith("workbench: checking the design: ")]
    assert said[:-1] == [
        f"workbench: checking the design: {int(n / len(ids) * 100)} % (rule {n + 1} of {len(ids)}: {i})"
        for n, i in enumerate(ids)
    ]
    assert said[-1].startswith("workbench: checking the design: done in ")


def test_the_report_tells_each_part_in_order_and_reads_the_same() -> None:
    """design_report's progress: its parts in order, the fractions rising from 0 and
    below 1, and the report itself the same as without a listener."""
    import json

    from workbench.catalog import load_catalog
    from workbench.export.report import design_report
    from workbench.templates import build_template

    design = build_template("dgx-h100-superpod", gpus=256, catalog=load_catalog(include_user=False))
    told: list[tuple[float, str]] = []
    with_progress = design_report(design, progress=lambda f, part: told.append((f, part)))
    assert [part for _f, part in told] == [
        "totals",
        "compute fabric",
        "workloads",
        "rack budgets",
        "fabric planes",
        "storage tiers",
        "costs",
    ]
    assert_rising(told)
    assert json.dumps(with_progress, sort_keys=True) == json.dumps(
        design_report(design), sort_keys=True
    )


def test_an_open_tells_its_parts_and_reads_the_same_design(tmp_path) -> None:
    """open_design's progress: the rows, every chunk of links read of all of them, then
    the value checks, the fractions rising and below 1; and the design it reads is the
    one read without a listener (saved again, the same rows)."""
    import sqlite3

    from workbench.cli.main import main
    from workbench.store import open_design, save_design

    path = tmp_path / "d.dcwb"
    assert main(["new", str(path), "--gpus", "256"]) == 0
    links = sqlite3.connect(path).execute('SELECT count(*) FROM "links"').fetchone()[0]
    told: list[tuple[float, str]] = []
    design = open_design(path, progress=lambda f, part: told.append((f, part)))
    parts = [part.split(":")[0] for _f, part in told]
    assert parts[0] == "racks and devices" and parts[-1] == "checking every value"
    assert set(parts[1:-1]) == {"links"}
    assert told[-2][1] == f"links: {links:,} of {links:,}"
    assert_rising(told, start=None)

    save_design(design, tmp_path / "told.dcwb")
    save_design(open_design(path), tmp_path / "plain.dcwb")
    assert table_rows(tmp_path / "told.dcwb") == table_rows(tmp_path / "plain.dcwb")


def test_a_save_tells_each_table_by_its_share_of_the_rows(tmp_path) -> None:
    """save_design's progress: every table named before it is written, with its row
    count; the fractions rising and below 1; the file the same as written unwatched."""

    from workbench.catalog import load_catalog
    from workbench.store import save_design
    from workbench.templates import build_template

    design = build_template("dgx-h100-superpod", gpus=256, catalog=load_catalog(include_user=False))
    told: list[tuple[float, str]] = []
    save_design(design, tmp_path / "told.dcwb", lambda f, what: told.append((f, what)))
    save_design(design, tmp_path / "plain.dcwb")
    tables = [what.split(":")[0] for _f, what in told]
    assert tables[:5] == ["meta", "sites", "rows", "racks", "devices"]
    assert "links" in tables and tables[-1] == "catalog_snapshot"
    links = next(what for _f, what in told if what.startswith("links:"))
    assert links == f"links: {len(design.links):,} rows"
    assert_rising(told)

    assert table_rows(tmp_path / "told.dcwb") == table_rows(tmp_path / "plain.dcwb")


def test_a_build_tells_its_parts_and_each_plane() -> None:
    """build_template's progress: its parts in order, each plane's cabling within the
    fabrics' span, the fractions rising and below 1."""
    from workbench.catalog import load_catalog
    from workbench.templates import build_template

    told: list[tuple[float, str]] = []
    catalog = load_catalog(include_user=False)
    build_template("dgx-h100-superpod", 512, catalog, lambda f, part: told.append((f, part)))
    assert [part for _f, part in told] == [
        "racks and devices",
        "the training job",
        "the fabrics",
        "the compute fabric",
        "the storage fabric",
        "the management fabric",
        "the oob fabric",
        "power feeds",
        "the hall plan",
    ]
    assert_rising(told)
