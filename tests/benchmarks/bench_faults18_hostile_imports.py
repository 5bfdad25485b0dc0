"""Hostile import folders through every importer's command (issue 18, measurement 4):
count hangs (no exit within 30 s) and tracebacks (anything but a one-line error).

Run: ``python tests/benchmarks/bench_faults18_hostile_imports.py ARGS`` (see ``sys.argv`` below); the
numbers of the issue-18 run are in that session's report.
"""

import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

PY = sys.executable
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from test_versions_import import DATA as REPORTS  # noqa: E402
from test_versions_import import make_design  # noqa: E402

from workbench.netbox import write_netbox  # noqa: E402
from workbench.store import save_design  # noqa: E402
from workbench.templates import build_template  # noqa: E402

root = Path(tempfile.mkdtemp())
gpu = build_template("hgx-h100-air")
save_design(gpu, root / "gpu.dcwb")
save_design(make_design(), root / "nodes.dcwb")
HEADER = "node,item,measured,verdict,timestamp\n"


def poison(path: Path, how: str) -> None:
    if path.exists() or path.is_symlink():
        if path.is_dir() and not path.is_symlink():
            shutil.rmtree(path)
        else:
            path.unlink()
    if how == "fifo":
        os.mkfifo(path)
    elif how == "link-fifo":
        os.mkfifo(str(path) + ".p")
        path.symlink_to(str(path) + ".p")
    elif how == "link-zero":
        path.symlink_to("/dev/zero")
    elif how == "dir":
        path.mkdir()
    elif how == "binary":
        path.write_bytes(os.urandom(4096))
    elif how == "nul":
        path.write_bytes(b"a,b\x00c\n" * 50)
    elif how == "not-utf8":
        path.write_bytes(b"name,x\n\xff\xfe,1\n")
    elif how == "cr-in-field":
        path.write_text('name,x\n"a\rb",1\n')
    elif how == "empty":
        path.write_bytes(b"")
    elif how == "long-line":
        path.write_bytes(b"a" * 5_000_000 + b"\n")
    elif how == "quote-open":
        path.write_text('name,x\n"unterminated,1\n')


KINDS = [
    "fifo",
    "link-fifo",
    "link-zero",
    "dir",
    "binary",
    "nul",
    "not-utf8",
    "cr-in-field",
    "empty",
    "long-line",
    "quote-open",
]

cases = []


def netbox(name):
    def make(how):
        d = root / f"nb-{name}-{how}"
        write_netbox(gpu, d)
        poison(d / name, how)
        return ["netbox", "import", str(d), str(root / f"o-{name}-{how}.dcwb"), "--force"]

    return make


for name in ("devices.csv", "racks.csv", "cables.csv", "workbench.yaml", "device-types.yaml"):
    cases += [(f"netbox import {name}", netbox(name))]


def acceptance(how):
    d = root / f"acc-{how}"
    d.mkdir()
    (d / "results-gpu00002.csv").write_text(HEADER)
    poison(d / "results-gpu00001.csv", how)
    return ["acceptance", "import", str(root / "gpu.dcwb"), str(d)]


cases.append(("acceptance import", acceptance))


def versions(how):
    d = root / f"ver-{how}"
    d.mkdir()
    shutil.copy(REPORTS / "uname-r.txt", d / "gpu-r01-u06.uname.txt")
    poison(d / "gpu-r01-u02.nvidia-smi.csv", how)
    return ["versions", "import", str(root / "nodes.dcwb"), str(d)]


cases.append(("versions import", versions))


def baseline(how):
    f = root / f"stack-{how}.yaml"
    poison(f, how)
    return ["versions", "baseline", str(root / "nodes.dcwb"), str(f)]


cases.append(("versions baseline", baseline))


def asbuilt(how):
    d = root / f"ab-{how}"
    d.mkdir()
    poison(d / "leaf1.lldp.json", how)
    return ["asbuilt", str(root / "gpu.dcwb"), str(d)]


cases.append(("asbuilt", asbuilt))


def catalog(how):
    f = root / f"dt-{how}.yaml"
    poison(f, how)
    return ["catalog", "import-netbox", str(f), "--dest", str(root / f"cat-{how}")]


cases.append(("catalog import-netbox", catalog))


# Names that are not UTF-8.
def badname_versions(how):
    d = root / f"vn-{how}"
    d.mkdir()
    shutil.copy(REPORTS / "uname-r.txt", os.fsdecode(bytes(d) + b"/gpu-r01-u02.\xff.uname.txt"))
    return ["versions", "import", str(root / "nodes.dcwb"), str(d)]


runs = hangs = tracebacks = 0
bad = []
for label, make in cases:
    for how in KINDS:
        args = make(how)
        runs += 1
        try:
            r = subprocess.run(
                [PY, "-m", "workbench", *args],
                capture_output=True,
                text=True,
                timeout=30,
                errors="replace",
            )
        except subprocess.TimeoutExpired:
            hangs += 1
            bad.append(f"HANG {label} {how}")
            continue
        if "Traceback" in r.stderr:
            tracebacks += 1
            bad.append(f"TRACEBACK {label} {how}: {r.stderr[-400:]}")
        elif r.returncode == 0 and how in ("fifo", "link-fifo", "link-zero", "dir"):
            bad.append(f"ACCEPTED? {label} {how}: {r.stdout[-200:]}")
for args in [badname_versions("x"), ["report", os.fsdecode(bytes(root) + b"/\xff.dcwb")]]:
    runs += 1
    r = subprocess.run(
        [PY, "-m", "workbench", *args], capture_output=True, text=True, timeout=30, errors="replace"
    )
    if "Traceback" in r.stderr:
        tracebacks += 1
        bad.append(f"TRACEBACK {args[:2]}: {r.stderr[-300:]}")
for line in bad:
    print(line)
print(
    f"hostile import runs: {runs} ({len(cases)} importer inputs x {len(KINDS)} kinds + 2 odd names); hangs: {hangs}; tracebacks: {tracebacks}"
)
