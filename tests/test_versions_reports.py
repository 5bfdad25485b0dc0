"""The node-report readers: each format read from its sample with the exact values, and
every way a file can be wrong refused with its file and line."""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from workbench.versions.reports import (
    MAX_REPORT_BYTES,
    ReportError,
    decode_report,
    detect,
    read_report,
)

DATA = Path(__file__).parent / "data" / "node_reports"

H100_SERIALS = ", ".join(f"16540230112{i:02d}" for i in range(8))


def read(name: str) -> dict[str, tuple[str, int | None]]:
    """layer → (value, line) of a sample file, checking each layer comes once."""
    report_format, readings = read_report((DATA / name).read_bytes(), name)
    layers = [r.layer for r in readings]
    assert len(layers) == len(set(layers)), layers
    return {r.layer: (r.value, r.line) for r in readings}


def refused(data: bytes | str, file: str = "node.txt") -> ReportError:
    """The ReportError reading ``data`` raises (fails the test when none is)."""
    raw = data.encode() if isinstance(data, str) else data
    with pytest.raises(ReportError) as caught:
        read_report(raw, file)
    error = caught.value
    assert error.file == file
    assert str(error).startswith(file)
    return error


# -- the formats, from their samples ------------------------------------------------------


def test_nvidia_smi_csv() -> None:
    assert read("nvidia-smi.csv") == {
        "gpu_count": ("8", 1),
        "gpu_model": ("NVIDIA H100 80GB HBM3", 2),
        "driver": ("550.90.07", 2),
        "vbios": ("96.00.99.00.01", 2),
        "gpu_serials": (H100_SERIALS, 2),
        "gpu_memory_mib": ("81559", 2),
        "gpu_power_limit_w": ("700", 2),
    }


def test_nvidia_smi_csv_mixed_models_nounits_and_missing_serial() -> None:
    """Mixed GPUs: every distinct value, sorted, joined with " + "; one [N/A] serial
    drops the serial list rather than recording three boards of four."""
    assert read("nvidia-smi-mixed-nounits.csv") == {
        "gpu_count": ("4", 1),
        "gpu_model": ("NVIDIA A100-SXM4-40GB + NVIDIA A100-SXM4-80GB", 2),
        "driver": ("535.183.06", 2),
        "vbios": ("92.00.45.00.03 + 92.00.68.00.01", 2),
        "gpu_memory_mib": ("40960 + 81920", 2),
        "gpu_power_limit_w": ("350.5 + 400", 2),
    }


def test_nvidia_smi_xml_current_layout() -> None:
    """gpu_power_readings/current_power_limit, not module_power_readings (N/A there)."""
    assert read("nvidia-smi-q-h100.xml") == {
        "driver": ("550.90.07", 5),
        "driver_cuda": ("12.4", 6),  # the newest CUDA the driver supports, not the runtime
        "gpu_count": ("8", 7),
        "gpu_model": ("NVIDIA H100 80GB HBM3", 9),
        "vbios": ("96.00.99.00.01", 31),
        "gpu_serials": (H100_SERIALS, 28),
        "gpu_memory_mib": ("81559", 76),
        "gpu_power_limit_w": ("700", 127),
    }
    lines = (DATA / "nvidia-smi-q-h100.xml").read_text().splitlines()
    assert "<current_power_limit>700.00 W<" in lines[127 - 1]
    assert "<total>81559 MiB<" in lines[76 - 1]


def test_nvidia_smi_xml_older_layout() -> None:
    """power_readings/power_limit (older drivers) and an older DTD version."""
    readings = read("nvidia-smi-q-a100-r470.xml")
    assert readings["driver"] == ("470.199.02", 5)
    assert readings["driver_cuda"] == ("11.4", 6)
    assert readings["gpu_count"] == ("4", 7)
    assert readings["gpu_model"] == ("NVIDIA A100-SXM4-40GB", 9)
    assert readings["vbios"] == ("92.00.45.00.03", 31)
    assert readings["gpu_memory_mib"] == ("40536", 76)
    assert readings["gpu_power_limit_w"] == ("400", 127)
    assert readings["gpu_serials"][0] == ", ".join(f"13240218054{30 + i}" for i in range(4))


def test_nvidia_smi_xml_one_gpu_of_several() -> None:
    """``-i 0`` output: the count is the node's (attached_gpus), the serial list is
    left out because it is not the node's set."""
    text = (DATA / "nvidia-smi-q-a100-r470.xml").read_text()
    first_gpu_end = text.index("</gpu>") + len("</gpu>\n")
    one = text[:first_gpu_end] + "</nvidia_smi_log>\n"
    readings = {r.layer: r.value for r in detect(one).parse(one, "one.xml")}
    assert readings["gpu_count"] == "4"
    assert "gpu_serials" not in readings
    assert readings["gpu_model"] == "NVIDIA A100-SXM4-40GB"


def test_uname_ethtool_ibstat_dmidecode() -> None:
    assert read("uname-r.txt") == {"kernel": ("6.8.0-45-generic", 1)}
    assert read("ethtool-i.txt") == {
        "nic_driver": ("mlx5_core 24.04-0.6.6", 1),
        "nic_firmware": ("28.39.2048", 3),  # the PSID in parentheses dropped
    }
    assert read("ibstat.txt") == {"nic_model": ("MT4129", 2), "nic_firmware": ("28.39.2048", 4)}
    assert read("dmidecode-bios.txt") == {"bios": ("2.1c", 8)}


def test_ibstat_several_cas_with_different_firmware() -> None:
    assert read("ibstat-mixed.txt") == {
        "nic_model": ("MT4129 + MT41692", 2),
        "nic_firmware": ("28.38.1002 + 28.39.2048 + 32.39.2048", 4),
    }


def test_detect_reads_content_not_the_name() -> None:
    expected = {
        "nvidia-smi.csv": "nvidia-smi-csv",
        "nvidia-smi-q-h100.xml": "nvidia-smi-xml",
        "uname-r.txt": "uname-r",
        "ethtool-i.txt": "ethtool-i",
        "ibstat.txt": "ibstat",
        "dmidecode-bios.txt": "dmidecode-bios",
    }
    for name, format_name in expected.items():
        data = (DATA / name).read_bytes()
        report_format, _ = read_report(data, "gpu-1.report.xml")  # the name says XML
        assert report_format.name == format_name, name
    crlf = (DATA / "ethtool-i.txt").read_bytes().replace(b"\n", b"\r\n")
    assert read_report(crlf, "x")[1][0].value == "mlx5_core 24.04-0.6.6"
    bom = b"\xef\xbb\xbf" + (DATA / "uname-r.txt").read_bytes()
    assert read_report(bom, "x")[1][0].value == "6.8.0-45-generic"


# -- what is refused ----------------------------------------------------------------------


@pytest.mark.parametrize(
    "name", ["nvidia-smi.csv", "uname-r.txt", "ethtool-i.txt", "ibstat.txt", "dmidecode-bios.txt"]
)
def test_cut_off_mid_line(name: str) -> None:
    data = (DATA / name).read_bytes()
    cut = data[: data.rstrip(b"\n").rfind(b"\n") + 4]  # three bytes into the last line
    error = refused(cut, name)
    assert error.line == cut.count(b"\n") + 1
    assert "cut off" in error.message


def test_cut_off_xml() -> None:
    data = (DATA / "nvidia-smi-q-h100.xml").read_bytes()
    cut = data[: len(data) // 2]
    error = refused(cut, "gpu.xml")
    assert error.line is not None and error.line >= cut.count(b"\n")
    assert "well-formed" in error.message and "cut off" in error.message


def test_cut_off_at_a_line_end_is_still_caught_by_structure() -> None:
    """A copy stopped exactly at a line break passes the line test; the formats whose
    structure shows the end catch it anyway."""
    ibstat = (DATA / "ibstat.txt").read_text()
    error = refused(ibstat[: ibstat.rindex("CA '") + len("CA 'mlx5_3'\n")], "ib.txt")
    assert "mlx5_3" in error.message and error.line == 52
    ethtool = (DATA / "ethtool-i.txt").read_text()
    assert "cut off" in refused(ethtool[: ethtool.index("expansion")], "eth.txt").message


def test_binary_junk() -> None:
    error = refused(b"6.8.0-45-generic\n\x7fELF\x02\x01\x01\x00\x00\x00\n", "uname.txt")
    assert error.line == 2 and "NUL" in error.message
    error = refused(b"driver: mlx5_core\nversion: \xe9t\xe9\n", "eth.txt")
    assert error.line == 2 and "UTF-8" in error.message
    error = refused("6.8.0-45-generic\n".encode("utf-16"), "uname.txt")
    assert "UTF-16" in error.message


def test_foreign_xml() -> None:
    error = refused((DATA / "bad" / "foreign.svg").read_bytes(), "foreign.svg")
    assert "<svg>" in error.message and error.line == 2
    error = refused((DATA / "bad" / "gpu-inventory.xml").read_bytes(), "inv.xml")
    assert "<gpu>" in error.message and "nvidia_smi_log" in error.message and error.line == 2
    error = refused("<nvidia_smi_log>\n\t<attached_gpus>1</attached_gpus>\n</nvidia_smi_log>\n")
    assert "driver_version" in error.message


def test_entity_bomb_and_external_entities_are_refused_before_parsing() -> None:
    error = refused((DATA / "bad" / "entity-bomb.xml").read_bytes(), "bomb.xml")
    assert error.line == 2 and "DOCTYPE" in error.message
    external = (
        '<?xml version="1.0"?>\n<!DOCTYPE nvidia_smi_log SYSTEM "nvsmi_device_v12.dtd">\n'
        '<!ENTITY leak SYSTEM "file:///etc/passwd">\n<nvidia_smi_log/>\n'
    )
    error = refused(external, "leak.xml")
    assert error.line == 3 and "ENTITY" in error.message
    subset = '<!DOCTYPE nvidia_smi_log SYSTEM "nvsmi_device_v12.dtd" [ ]>\n<nvidia_smi_log/>\n'
    assert "DOCTYPE" in refused(subset, "subset.xml").message


def test_csv_columns() -> None:
    error = refused((DATA / "bad" / "wrong-columns.csv").read_bytes(), "q.csv")
    assert error.line == 1 and "'timestamp'" in error.message
    error = refused((DATA / "nvidia-smi-noheader.csv").read_bytes(), "q.csv")
    assert error.line == 1 and "noheader" in error.message and "--format=csv" in error.message
    short = "index, name, driver_version\n0, NVIDIA H100 80GB HBM3\n"
    error = refused(short, "q.csv")
    assert error.line == 2 and "2 values" in error.message
    assert "no GPU rows" in refused("index, name, driver_version\n", "q.csv").message
    wrong_unit = "index, memory.total [GiB]\n0, 80 GiB\n"
    assert "[GiB]" in refused(wrong_unit, "q.csv").message
    bad_number = "index, power.limit [W]\n0, lots W\n"
    error = refused(bad_number, "q.csv")
    assert error.line == 2 and "'lots W'" in error.message


def test_empty_and_unrecognised() -> None:
    assert refused((DATA / "bad" / "empty.txt").read_bytes()).message == "is empty"
    assert refused(b"\n  \n\t\n").message == "is empty"
    error = refused("hello there\nthis is a note\n", "notes.txt")
    assert error.line == 1 and "not a report" in error.message and "ibstat" in error.message


def test_other_refusals() -> None:
    assert refused("6.8.0-45-generic\n6.8.0-40-generic\n").line == 2  # two uname lines
    assert (
        "SMBIOS"
        in refused("# dmidecode 3.5\n# No SMBIOS nor DMI entry point found, sorry.\n").message
    )
    assert "BIOS Information" in refused("# dmidecode 3.5\nHandle 0x0001, DMI type 1\n").message
    error = refused("driver: mlx5_core\ngarbage line\nbus-info: 0000:1a:00.0\n", "eth.txt")
    assert error.line == 2
    error = refused("CA 'mlx5_0'\n\tCA type: MT4129\n\tFirmware version: 28.39.2048\nnoise\n")
    assert error.line == 4
    control = "driver: mlx5_core\x1b[0m\nfirmware-version: 1.2\nbus-info: 0000:1a:00.0\n"
    assert "control characters" in refused(control).message
    too_big = b"6.8.0-45-generic\n" + b" " * MAX_REPORT_BYTES
    assert refused(too_big).line is None


def test_decode_report_gives_text() -> None:
    assert decode_report(b"\xef\xbb\xbf6.8.0\n", "x") == "6.8.0\n"


def test_damaged_samples_raise_only_report_errors() -> None:
    """Cut, spliced and truncated copies of every sample: each is read or refused with a
    ReportError, never another exception (a seeded sweep, the same every run)."""
    samples = [p.read_bytes() for p in sorted(DATA.glob("*")) if p.is_file()]
    pieces = [b"<", b">", b"&", b"&amp;", b",", b"\n", b":", b"CA '", b"<gpu>", b"</gpu>"]
    pieces += [b"<!ENTITY", b"[N/A]", b"\t", b" MiB", b"\xc3", b"</total>", b"<serial>"]
    rng = random.Random(20260505)
    refusals = 0
    for _ in range(400):
        data = bytearray(rng.choice(samples))
        for _ in range(rng.randint(1, 3)):
            at = rng.randrange(len(data) + 1)
            choice = rng.random()
            if choice < 0.4:
                del data[at : at + rng.randint(1, 40)]
            elif choice < 0.8:
                data[at:at] = rng.choice(pieces)
            else:
                del data[at:]
        try:
            read_report(bytes(data), "damaged")
        except ReportError as error:
            assert error.file == "damaged"
            refusals += 1
    assert refusals > 100  # the sweep does reach the refusals
