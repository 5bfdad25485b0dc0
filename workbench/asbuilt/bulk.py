"""The verdicts of the links no capture touches, for all of them at once.

In a 100,000-GPU design most of the 440,000 links have no captured cable at either end:
they are ``missing`` where a capture covers one of their devices on their plane and
``unchecked`` elsewhere.  Deciding that one link at a time in Python was two thirds of
a check (``tests/benchmarks/bench_asbuilt.py``), so it is done here in bulk: the link
fields are read with C-level ``map``\\ s, the coverage test is a numpy lookup in a
device × plane table, and the verdict tuples are built without a Python call per link.

The matcher gives *every* link this verdict first and then overwrites the few links a
capture touches (:func:`touched`) with what the captures say, so the rule here must
stay exactly the one :meth:`workbench.asbuilt.matcher._Matcher._is_covered` applies
(``tests/test_asbuilt_bulk.py`` checks the two agree).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from itertools import repeat
from operator import attrgetter, itemgetter
from typing import TYPE_CHECKING, Any

import numpy as np

from workbench.model.design import Link

if TYPE_CHECKING:
    from workbench.asbuilt.matcher import Verdict

_ID = attrgetter("id")
_NETWORK = attrgetter("network")
_SPEED = attrgetter("speed_gbps")
_FIRST = itemgetter(0)


def nothing_seen(
    verdict_type: type[Verdict],
    links: Sequence[Link],
    devices: tuple[list[str], list[str]],
    plane_of: Mapping[str, str | None],
    covered: Mapping[str, set[str | None]],
    fields: tuple[tuple[Any, ...], tuple[Any, ...]],
    expected_speed: Callable[[Link], float | None],
) -> list[Verdict]:
    """One verdict per link, in order, as if nothing had been captured at its ends.

    ``devices`` are the links' a and b device ids; ``plane_of`` maps a network id to
    its plane; ``fields`` are the (verdict, -, detail, found, where) of a link that is
    not covered and of one that is; ``expected_speed`` gives the speed of a link whose
    own speed is None.
    """
    n = len(links)
    a_devs, b_devs = devices
    speeds: list[float | None] = list(map(_SPEED, links))
    for i in [i for i, s in enumerate(speeds) if s is None]:
        speeds[i] = expected_speed(links[i])
    if covered:
        seen = _seen(links, a_devs, b_devs, plane_of, covered).astype(np.intp)
    else:
        seen = np.zeros(n, dtype=np.intp)
    unchecked, missing = fields
    verdict = np.array([unchecked[0], missing[0]], dtype=object)[seen].tolist()
    detail = np.array([unchecked[2], missing[2]], dtype=object)[seen].tolist()
    found = np.array([unchecked[3], missing[3]], dtype=object)[seen].tolist()
    where = np.array([unchecked[4], missing[4]], dtype=object)[seen].tolist()
    rows = zip(verdict, map(_ID, links), detail, found, where, speeds, repeat(None),
               zip(a_devs, b_devs, strict=True))  # fmt: skip
    # tuple.__new__ straight from C: Verdict(...) would be a Python call per link.
    return list(map(tuple.__new__, repeat(verdict_type), rows))


def _seen(
    links: Sequence[Link],
    a_devs: list[str],
    b_devs: list[str],
    plane_of: Mapping[str, str | None],
    covered: Mapping[str, set[str | None]],
) -> np.ndarray:
    """True where a capture covers either device of the link on its plane: the plane is
    in the device's covered planes, or the device is covered at all and the link (or
    the coverage) is on no plane."""
    n = len(links)
    planes = list(
        dict.fromkeys([None, *plane_of.values(), *(p for s in covered.values() for p in s)])
    )
    code = {p: k for k, p in enumerate(planes)}
    none = code[None]
    net_code = {net: code[p] for net, p in plane_of.items()}
    # The matcher looks a link up by ``link.network or ""``.
    net_code[None] = net_code.get("", none)  # type: ignore[index]
    link_plane = np.fromiter(map(net_code.get, map(_NETWORK, links), repeat(none)), np.intp, n)
    row = {dev: k for k, dev in enumerate(covered, 1)}  # row 0: a device nothing covers
    table = np.zeros((len(row) + 1, len(planes)), dtype=bool)
    for dev, k in row.items():
        table[k, [code[p] for p in covered[dev]]] = True
    any_plane: np.ndarray = np.any(table, axis=1)
    no_plane: np.ndarray = table[:, none]
    a = np.fromiter(map(row.get, a_devs, repeat(0)), np.intp, n)
    b = np.fromiter(map(row.get, b_devs, repeat(0)), np.intp, n)
    seen: np.ndarray = (
        table[a, link_plane]
        | table[b, link_plane]
        | ((any_plane[a] | any_plane[b]) & ((link_plane == none) | no_plane[a] | no_plane[b]))
    )
    return seen


def touched(
    near: list[int],
    ends: tuple[list[tuple[str, str]], list[tuple[str, str]]],
    at: Mapping[tuple[str, str], int],
    wild: Mapping[str, object],
) -> list[int]:
    """Of the links ``near`` (ascending indexes, with their a and b ``ends``), those with
    a captured cable at an end or on a device that has a capture whose port is unknown:
    the only ones the captures can say more about than :func:`nothing_seen`."""
    a_ends, b_ends = ends
    n = len(a_ends)
    hit = np.fromiter(map(at.__contains__, a_ends), bool, n)
    hit |= np.fromiter(map(at.__contains__, b_ends), bool, n)
    if wild:
        hit |= np.fromiter(map(wild.__contains__, map(_FIRST, a_ends)), bool, n)
        hit |= np.fromiter(map(wild.__contains__, map(_FIRST, b_ends)), bool, n)
    return np.asarray(near, dtype=np.intp)[hit].tolist()
