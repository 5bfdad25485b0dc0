"""Version strings compared as versions, not as text.

Text comparison puts ``535.54.03`` after ``535.104.05`` and ``12.10`` before ``12.9``;
every check of the version matrix would then be wrong in the cases that matter.  The
strings nodes report are also not all semantic versions: kernels are
``5.15.0-105-generic``, OS releases ``Ubuntu 22.04.4 LTS``, PyTorch wheels
``2.4.0+cu124``, NGC builds ``2.4.0a0+3bcc3cd``.  :func:`parse_version` reads all of
them into one shape:

``[name] release [pre-release] [suffix] [+local]``

* ``name``: words before the first digit (``ubuntu``, ``torch``, ``containerd``); a lone
  ``v`` or ``r`` (``v1.2``, ``R535``) is only a way of writing the number and dropped;
* ``release``: the numbers, separated by ``.`` or ``-`` (``5.15.0-105`` is four
  numbers: the kernel's ABI number is part of its release), compared numerically with
  trailing zeros ignored (``12.4`` == ``12.4.0``);
* ``pre``: ``dev``, ``a``/``alpha``, ``b``/``beta``, ``rc`` and a number, which sort
  *before* the release they lead to (``2.4.0rc1`` < ``2.4.0``), as PEP 440 orders them;
* ``suffix``: what follows (``generic``, ``lts``, ``el8_9.x86_64``), compared as text;
* ``local``: after ``+`` (``cu124``, ``git6ddf5cf``), compared as text, last.

The order is a plain tuple order on that key, so it is total and transitive by
construction (the property tests check it on generated versions).
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass

#: The longest text read as a version; a report value longer than this is not one.
MAX_VERSION_CHARS = 128
#: A number part longer than this is an id or a date stamp run together, not a version.
MAX_NUMBER_DIGITS = 18

#: Pre-release words and their rank (a release without one ranks above all of them).
_PRE_RANKS: dict[str, int] = {
    "dev": 0,
    "alpha": 1,
    "a": 1,
    "beta": 2,
    "b": 2,
    "preview": 3,
    "pre": 3,
    "rc": 3,
    "c": 3,
}
_FINAL = 9  # rank of "no pre-release"

_NAME = re.compile(r"[^\d]*")
#: What a name in front of the number may hold (``Ubuntu``, ``containerd://``, ``torch==``).
_NAME_CHARS = re.compile(r"[A-Za-z :/=@._()-]*")
_RELEASE = re.compile(r"\d+(?:[.-]\d+)*")
_PRE = re.compile(r"[.-]?(dev|alpha|beta|preview|pre|rc|a|b|c)\.?(\d*)(?![A-Za-z])", re.I)
_LOCAL_CUDA = re.compile(r"^(?:cu|cuda)[-_.]?(\d+)(?:\.(\d+))?$", re.I)


class NotAVersionError(ValueError):
    """A string that cannot be read as a version; the message says what was expected."""


@functools.total_ordering
@dataclass(frozen=True, eq=False)
class Version:
    """One parsed version; compare with ``<``, ``==`` (see the module docstring)."""

    text: str
    name: str
    release: tuple[int, ...]
    pre: tuple[str, int] | None
    suffix: str
    local: str

    @property
    def key(self) -> tuple[object, ...]:
        """What the order compares: trailing zeros of the release do not count."""
        release = self.release
        while len(release) > 1 and release[-1] == 0:
            release = release[:-1]
        pre = (_PRE_RANKS[self.pre[0]], self.pre[1]) if self.pre else (_FINAL, 0)
        return (self.name, release, pre, self.suffix, self.local)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Version):
            return NotImplemented
        return self.key == other.key

    def __lt__(self, other: object) -> bool:
        if not isinstance(other, Version):
            return NotImplemented
        return self.key < other.key

    def __hash__(self) -> int:
        return hash(self.key)

    def __str__(self) -> str:
        return self.text

    @property
    def major(self) -> int:
        """The first number: a driver's branch (535), CUDA's major (12)."""
        return self.release[0]

    @property
    def minor(self) -> int:
        return self.release[1] if len(self.release) > 1 else 0

    @property
    def major_minor(self) -> tuple[int, int]:
        return (self.major, self.minor)

    @property
    def is_prerelease(self) -> bool:
        """A development, alpha, beta or release-candidate build (NGC's ``2.4.0a0``)."""
        return self.pre is not None

    @property
    def public(self) -> str:
        """The release without the local tag: ``2.4.0+cu124`` → ``2.4.0``."""
        return self.text.split("+", 1)[0].strip()

    @property
    def local_cuda(self) -> Version | None:
        """The CUDA a build names: in its local tag (``2.4.0+cu124`` → 12.4) or, as
        container image tags write it, in its suffix (``2.1.0-cuda12.1`` → 12.1)."""
        if self.local:
            return cuda_of_tag(self.local)
        for word in re.split(r"[-_ ]", self.suffix):
            if word.startswith("cu"):
                found = cuda_of_tag(word)
                if found is not None:
                    return found
        return None


def _clean_name(raw: str) -> str:
    name = " ".join(raw.strip(" =:/@-_.").lower().split())
    return "" if name in ("v", "r", "ver", "version") else name


@functools.lru_cache(maxsize=65536)
def parse_version(text: str) -> Version:
    """``text`` as a :class:`Version`; :class:`NotAVersionError` when it is not one.

    Cached: a design's nodes report the same few strings thousands of times.
    """
    if not isinstance(text, str):
        raise NotAVersionError(f"expected a version as text, got {type(text).__name__}")
    stripped = text.strip()
    shown = stripped if len(stripped) <= 40 else stripped[:37] + "..."
    if not stripped:
        raise NotAVersionError("an empty value is not a version")
    if len(stripped) > MAX_VERSION_CHARS:
        raise NotAVersionError(
            f"{shown!r} is {len(stripped)} characters; a version is at most {MAX_VERSION_CHARS}"
        )
    if not stripped.isprintable():
        raise NotAVersionError(f"{shown!r} holds control characters; it is not a version")
    public, _, local = stripped.partition("+")
    name_match = _NAME.match(public)
    name_raw = name_match.group(0) if name_match else ""
    rest = public[len(name_raw) :]
    release_match = _RELEASE.match(rest)
    if release_match is None or len(name_raw) > 40 or not _NAME_CHARS.fullmatch(name_raw):
        raise NotAVersionError(
            f"{shown!r} is not a version: expected numbers separated by dots, such as "
            "535.104.05, 12.4 or 5.15.0-105-generic"
        )
    numbers = re.split(r"[.-]", release_match.group(0))
    if any(len(n) > MAX_NUMBER_DIGITS for n in numbers):
        raise NotAVersionError(
            f"{shown!r} is not a version: a number of more than {MAX_NUMBER_DIGITS} digits"
        )
    rest = rest[release_match.end() :]
    pre: tuple[str, int] | None = None
    pre_match = _PRE.match(rest)
    if pre_match is not None:
        word = pre_match.group(1).lower()
        pre = (word, int(pre_match.group(2) or 0))
        rest = rest[pre_match.end() :]
    suffix = " ".join(rest.strip(" .-_").lower().split())
    return Version(
        text=stripped,
        name=_clean_name(name_raw),
        release=tuple(int(n) for n in numbers),
        pre=pre,
        suffix=suffix,
        local=local.strip().lower(),
    )


def try_version(text: str | None) -> Version | None:
    """:func:`parse_version`, or None for None and for text that is not a version."""
    if text is None:
        return None
    try:
        return parse_version(text)
    except NotAVersionError:
        return None


def compare(a: str, b: str) -> int:
    """-1, 0 or 1 as version ``a`` is older than, the same as or newer than ``b``."""
    va, vb = parse_version(a), parse_version(b)
    return (va > vb) - (va < vb)


@functools.lru_cache(maxsize=65536)
def matches(pin: str, value: str) -> bool:
    """Whether ``value`` satisfies the baseline pin ``pin``.

    A pin names as much of a version as the team cares about: ``12.4`` is met by
    ``12.4`` and ``12.4.1``, ``535`` by any 535 driver, ``535.104.05`` only by itself.
    A pin's name, pre-release, suffix and local tag must match when the pin gives them
    (``2.4.0`` is met by ``2.4.0+cu124``; ``2.4.0+cu124`` is not met by ``+cu121``).
    Text that is not a version on either side is compared as text, ignoring case.
    Cached: 12,500 nodes compare the same few pins and values.
    """
    vp, vv = try_version(pin), try_version(value)
    if vp is None or vv is None:
        return " ".join(pin.lower().split()) == " ".join(value.lower().split())
    if vp.name and vp.name != vv.name:
        return False
    # ``12.4.0`` pins 12.4.0, which a node reporting ``12.4`` also runs (trailing zeros).
    padded = vv.release + (0,) * (len(vp.release) - len(vv.release))
    if padded[: len(vp.release)] != vp.release:
        return False
    if vp.pre is not None and vp.pre != vv.pre:
        return False
    if vp.suffix and vp.suffix != vv.suffix:
        return False
    return not (vp.local and vp.local != vv.local)


def cuda_of_tag(tag: str) -> Version | None:
    """The CUDA version a build tag names: ``cu124`` → 12.4, ``cu118`` → 11.8,
    ``cuda12.4`` → 12.4; None for ``cpu``, ``rocm6.1`` or a git hash.

    PyTorch writes the CUDA major and minor run together, the minor being the last
    digit (``cu92`` was CUDA 9.2, ``cu102`` 10.2), which is how it is read here.
    """
    found = _LOCAL_CUDA.match(tag.strip())
    if found is None:
        return None
    digits, minor = found.group(1), found.group(2)
    if minor is not None:
        return parse_version(f"{int(digits)}.{int(minor)}")
    if len(digits) < 2:
        return None
    return parse_version(f"{int(digits[:-1])}.{digits[-1]}")


@functools.lru_cache(maxsize=4096)
def cuda_version(text: str) -> Version:
    """A CUDA version from what a layer holds: ``12.4``, ``12.4.1``, ``cu124``,
    ``CUDA 12.4``; NotAVersionError otherwise."""
    tagged = cuda_of_tag(text)
    if tagged is not None:
        return tagged
    parsed = parse_version(text)
    if parsed.name not in ("", "cuda"):
        raise NotAVersionError(f"{text.strip()!r} is not a CUDA version (such as 12.4 or cu124)")
    if parsed.local_cuda is not None:
        return parsed.local_cuda
    # Only the numbers: ``CUDA 12.4`` and ``12.4`` must compare equal.
    return parse_version(".".join(str(n) for n in parsed.release))


def driver_branch(text: str) -> int:
    """The driver branch of a driver version: ``535.104.05`` → 535."""
    return parse_version(text).major


def short(version: Version, parts: int = 2) -> str:
    """``12.4.1`` → ``12.4`` (``parts`` numbers of the release, for messages)."""
    return ".".join(str(n) for n in version.release[:parts])
