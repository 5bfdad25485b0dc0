"""Commands say what they are doing once a step runs past two seconds (issue 21: a
1,000,000-GPU campus keeps `new`, `check` and `report` busy for tens of seconds) and
stay quiet on small designs; standard output, which --json uses, is never written."""

from __future__ import annotations

import time

from workbench.cli.progress import step


def test_a_long_step_says_what_it_does_and_how_long_it_took(capsys) -> None:
    with step("checking the design", after_s=0.05):
        time.sleep(0.3)
    out, err = capsys.readouterr()
    assert out == ""
    assert "workbench: checking the design…" in err
    assert "checking the design: done in" in err


def test_a_short_step_says_nothing(capsys) -> None:
    with step("opening x.dcwb", after_s=5.0):
        pass
    assert capsys.readouterr() == ("", "")


def test_quiet_says_nothing_however_long_the_step(capsys) -> None:
    """A command's --quiet ("print nothing on success") silences progress too."""
    with step("writing cables.xlsx", after_s=0.01, quiet=True):
        time.sleep(0.1)
    assert capsys.readouterr() == ("", "")
