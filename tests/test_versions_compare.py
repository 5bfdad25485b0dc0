"""Version strings compare as versions: numbers numerically, vendor strings tolerated,
pre-releases before their release, and text that is not a version refused clearly."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from workbench.versions.compare import (
    NotAVersionError,
    compare,
    cuda_of_tag,
    cuda_version,
    driver_branch,
    matches,
    parse_version,
    try_version,
)


@pytest.mark.parametrize(
    ("older", "newer"),
    [
        ("535.54.03", "535.104.05"),  # text order would put 104 first
        ("12.4", "12.4.1"),
        ("12.9", "12.10"),
        ("520.61.05", "525.60.13"),
        ("2.4.0rc1", "2.4.0"),
        ("2.6.0.dev20241112", "2.6.0a0"),
        ("2.6.0a0", "2.6.0b1"),
        ("2.6.0b1", "2.6.0rc1"),
        ("5.15.0-105-generic", "5.15.0-106-generic"),
        ("5.15.0-105-generic", "6.8.0-40-generic"),
        ("4.18.0-513.24.1.el8_9.x86_64", "4.18.0-553.el8_10.x86_64"),
        ("1.7.2", "1.10.0"),
    ],
)
def test_versions_order_by_number(older: str, newer: str) -> None:
    assert parse_version(older) < parse_version(newer)
    assert compare(older, newer) == -1
    assert compare(newer, older) == 1


@pytest.mark.parametrize(
    ("a", "b"),
    [
        ("12.4", "12.4.0"),
        ("535", "535.0.0"),
        ("v1.2.3", "1.2.3"),
        ("R535", "535"),
        ("12.04", "12.4"),
    ],
)
def test_equal_versions(a: str, b: str) -> None:
    assert parse_version(a) == parse_version(b)
    assert hash(parse_version(a)) == hash(parse_version(b))
    assert compare(a, b) == 0


def test_vbios_strings_compare_equal_only_to_themselves() -> None:
    """VBIOS parts are hexadecimal (96.00.A1.00.01): they are not ordered as hex, but a
    pin is met only by the same string, which is what drift needs."""
    assert matches("96.00.A1.00.01", "96.00.a1.00.01")
    assert not matches("96.00.99.00.01", "96.00.A1.00.01")
    assert not matches("96.00.A1.00.01", "96.00.99.00.01")


def test_vendor_strings_are_read_into_their_parts() -> None:
    kernel = parse_version("5.15.0-105-generic")
    assert kernel.release == (5, 15, 0, 105)
    assert kernel.suffix == "generic"
    os_release = parse_version("Ubuntu 22.04.4 LTS")
    assert (os_release.name, os_release.release, os_release.suffix) == ("ubuntu", (22, 4, 4), "lts")
    assert parse_version("containerd://1.7.13").name == "containerd"
    assert parse_version("torch==2.4.0").name == "torch"
    nccl = parse_version("2.21.5-1+cuda12.4")
    assert nccl.release == (2, 21, 5, 1)
    assert str(nccl.local_cuda) == "12.4"
    assert parse_version("1.7.2").release == (1, 7, 2)  # a BIOS release


def test_pytorch_local_build_tag_names_its_cuda() -> None:
    torch = parse_version("2.4.0+cu124")
    assert torch.release == (2, 4, 0)
    assert torch.local == "cu124"
    assert torch.local_cuda == parse_version("12.4")
    assert torch.public == "2.4.0"
    assert parse_version("2.4.0a0+3bcc3cd").is_prerelease
    assert parse_version("2.4.0a0+3bcc3cd").local_cuda is None  # an NGC git build
    # A container image tag, as in pytorch/pytorch:2.1.0-cuda12.1 (the planning notes).
    assert parse_version("2.1.0-cuda12.1").local_cuda == parse_version("12.1")
    assert parse_version("2.1.0-cuda12.1-cudnn8-runtime").local_cuda == parse_version("12.1")
    assert parse_version("5.15.0-105-generic").local_cuda is None


@pytest.mark.parametrize(
    ("tag", "cuda"),
    [
        ("cu124", "12.4"),
        ("cu118", "11.8"),
        ("cu92", "9.2"),
        ("cu102", "10.2"),
        ("cuda12.4", "12.4"),
        ("CU128", "12.8"),
    ],
)
def test_cuda_of_tag(tag: str, cuda: str) -> None:
    assert cuda_of_tag(tag) == parse_version(cuda)


@pytest.mark.parametrize("tag", ["cpu", "rocm6.1", "git6ddf5cf", "cu", "cu1"])
def test_tags_that_name_no_cuda(tag: str) -> None:
    assert cuda_of_tag(tag) is None


def test_cuda_version_reads_every_way_a_layer_writes_it() -> None:
    assert cuda_version("cu124") == cuda_version("12.4") == cuda_version("CUDA 12.4")
    assert cuda_version("12.4.1") == parse_version("12.4.1")
    with pytest.raises(NotAVersionError, match="not a CUDA version"):
        cuda_version("Ubuntu 22.04")


def test_driver_branch() -> None:
    assert driver_branch("535.104.05") == 535
    assert driver_branch("550.54.14") == 550


@pytest.mark.parametrize("bad", ["", "   ", "latest", "N/A", "abc", "1.2\x00", "x" * 200, "9" * 30])
def test_what_is_not_a_version_is_refused_with_a_reason(bad: str) -> None:
    with pytest.raises(NotAVersionError) as caught:
        parse_version(bad)
    assert isinstance(caught.value, ValueError)
    message = str(caught.value)
    assert "version" in message and "\n" not in message and len(message) < 200
    assert try_version(bad) is None


def test_refusal_names_the_value_and_an_example() -> None:
    with pytest.raises(NotAVersionError, match=r"'latest' is not a version.*535\.104\.05"):
        parse_version("latest")


@pytest.mark.parametrize(
    ("pin", "value", "met"),
    [
        ("12.4", "12.4.1", True),
        ("12.4", "12.4", True),
        ("12.4.0", "12.4", True),
        ("12.4.0", "12.4.1", False),
        ("12.4", "12.5", False),
        ("535", "535.104.05", True),
        ("535.104.05", "535.54.03", False),
        ("2.4.0", "2.4.0+cu124", True),
        ("2.4.0+cu124", "2.4.0+cu121", False),
        ("5.15.0-105-generic", "5.15.0-105-generic", True),
        ("5.15.0-105-generic", "5.15.0-105-lowlatency", False),
        ("Ubuntu 22.04", "Ubuntu 22.04.4 LTS", True),
        ("Ubuntu 22.04", "Rocky Linux 9.3", False),
        ("custom-build", "Custom-Build", True),
    ],
)
def test_a_pin_is_met_by_what_starts_with_it(pin: str, value: str, met: bool) -> None:
    assert matches(pin, value) is met


# -- properties ------------------------------------------------------------------------------

_numbers = st.lists(st.integers(min_value=0, max_value=10**6), min_size=1, max_size=5)
_dotted = _numbers.map(lambda parts: ".".join(str(n) for n in parts))
_pre = st.sampled_from(["", "a1", "b2", "rc1", ".dev3"])
_versions = st.builds(lambda d, p: d + p, _dotted, _pre)


@given(_versions, _versions)
def test_order_is_total_and_antisymmetric(a: str, b: str) -> None:
    va, vb = parse_version(a), parse_version(b)
    assert (va < vb) + (va == vb) + (va > vb) == 1
    assert compare(a, b) == -compare(b, a)


@given(_versions, _versions, _versions)
def test_order_is_transitive(a: str, b: str, c: str) -> None:
    va, vb, vc = sorted(parse_version(v) for v in (a, b, c))
    assert va <= vb <= vc
    assert va <= vc


@given(_numbers, _numbers)
def test_dotted_versions_order_like_their_number_lists(x: list[int], y: list[int]) -> None:
    """With trailing zeros dropped, a dotted version orders exactly as its numbers do."""

    def key(parts: list[int]) -> list[int]:
        while len(parts) > 1 and parts[-1] == 0:
            parts = parts[:-1]
        return parts

    a, b = ".".join(map(str, x)), ".".join(map(str, y))
    assert (parse_version(a) < parse_version(b)) == (key(x) < key(y))
    assert (parse_version(a) == parse_version(b)) == (key(x) == key(y))


@given(_dotted)
def test_a_release_is_newer_than_its_pre_releases(release: str) -> None:
    for pre in ("a1", "b1", "rc1", ".dev1"):
        assert parse_version(release + pre) < parse_version(release)
