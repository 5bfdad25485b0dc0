"""The window's shorter lock turns (``ui.shell.gil_turns``): lowered while any thread's
work runs, put back to what it was by the last to end, in whatever order they end."""

from __future__ import annotations

import sys

from workbench.ui.shell.gil_turns import SWITCH_S, shorter_turns


def test_the_interval_is_put_back_by_the_last_to_end() -> None:
    before = sys.getswitchinterval()
    assert before > SWITCH_S  # the interpreter's default, 5 ms
    first, second = shorter_turns(), shorter_turns()
    first.__enter__()
    assert sys.getswitchinterval() == SWITCH_S
    second.__enter__()
    first.__exit__(None, None, None)  # the first out is not the last: still short
    assert sys.getswitchinterval() == SWITCH_S
    second.__exit__(None, None, None)
    assert sys.getswitchinterval() == before


def test_a_raised_error_puts_it_back() -> None:
    before = sys.getswitchinterval()
    try:
        with shorter_turns():
            raise RuntimeError("the thread's work failed")
    except RuntimeError:
        pass
    assert sys.getswitchinterval() == before
