"""health_check.sh proven on what the real tools print (tests/data/node-outputs/).

Each tool the script calls is a stub on PATH that prints the DGX H100 transcript for
the arguments it gets (and fails loudly on arguments it was not written for); /proc,
/sys and /etc are read under ``HC_ROOT``.  The only other commands on PATH are the
POSIX tools the script needs, so nothing of this machine leaks in.  The healthy node
gives every item PASS; each fault (one transcript altered) gives exactly its item FAIL
with the measured value.
"""

from __future__ import annotations

import csv
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from workbench.export.health_check import write_health_check
from workbench.templates.builder import sample_design

DATA = Path(__file__).parent / "data" / "node-outputs" / "dgx-h100"
NODE, PEER = "gpu00001", "gpu00002"
POSIX = ("bash", "sh", "awk", "sed", "tr", "cut", "grep", "sort", "paste", "wc", "head",
         "tail", "cat", "mkdir", "mv", "dirname", "date", "rm", "mktemp")  # fmt: skip

#: tool → bash case arms over "$*" (T is the transcript folder)
STUBS = {
    "nvidia-smi": """
  --query-gpu=*) cat "$T/nvidia-smi-query-gpu.csv" ;;
  "-q -d MEMORY") cat "$T/nvidia-smi-q-d-memory.txt" ;;
  "topo -m") cat "$T/nvidia-smi-topo-m.txt" ;;
  "nvlink -s") cat "$T/nvidia-smi-nvlink-s.txt" ;;""",
    "lspci": '  -vv) cat "$T/lspci-vv.txt" ;;',
    "dmidecode": '  "-s bios-version") cat "$T/dmidecode-s-bios-version.txt" ;;',
    "sysctl": '  -a) cat "$T/sysctl-a.txt" ;;',
    "lsmod": '  "") cat "$T/lsmod.txt" ;;',
    "chronyc": '  tracking) cat "$T/chronyc-tracking.txt" ;;',
    "mokutil": '  --sb-state) cat "$T/mokutil-sb-state.txt" ;;',
    "uname": '  -r) cat "$T/uname-r.txt" ;;',
    "apt-mark": '  showhold) cat "$T/apt-mark-showhold.txt" ;;',
    "dkms": '  "status nvidia") cat "$T/dkms-status.txt" ;;',
    "ibstatus": '  "") cat "$T/ibstatus.txt" ;;',
    "ibstat": '  "") cat "$T/ibstat.txt" ;;',
    "ibv_devinfo": '  "") cat "$T/ibv_devinfo.txt" ;;',
    "ethtool": '  *) cat "$T/ethtool-$1.txt" || exit 75 ;;',
    "ipmitool": """
  "lan print 1") cat "$T/ipmitool-lan-print.txt" ;;
  "mc info") cat "$T/ipmitool-mc-info.txt" ;;""",
    "python3": """
  "-c import torch") exit 0 ;;
  -) cat >/dev/null; cat "$T/matmul.txt" ;;""",
    "dcgmi": '  "diag -r 2") cat "$T/dcgmi-diag-r2.txt" ;;',
    "all_reduce_perf": '  "-b 8G -e 8G -f 2 -g 8") cat "$T/all_reduce_perf-g8.txt" ;;',
    "srun": f"""
  *"-N 2 -w {NODE},{PEER} --ntasks-per-node=8 --gpus-per-node=8 --mpi=pmix all_reduce_perf"*)
    [ "$NCCL_ALGO" = Ring ] || exit 76; cat "$T/all_reduce_perf-2node.txt" ;;
  *"-p training -N 2 -w {NODE},{PEER} --ntasks-per-node=8 --gpus-per-node=8 bash -c"*)
    cat "$T/srun-world.txt" ;;""",
    "ssh": f'  "-o BatchMode=yes {PEER} ib_write_bw -d mlx5_"[0-7]" --report_gbits -D 5") echo "$*" >>"$T/ssh.log" ;;',
    "sleep": "  *) ;;",
    "ib_write_bw": f'  "-d mlx5_"[0-7]" --report_gbits -D 5 {PEER}") cat "$T/ib_write_bw.txt" ;;',
    "fio": """
  *--direct=1*--output-format=json*) cat "$T/fio-read.json" ;;""",
    "nvidia-ctk": '  --version) cat "$T/nvidia-ctk-version.txt" ;;',
    "docker": """
  "run --rm --gpus all --ipc=host --network=host --ulimit memlock=-1 --ulimit stack=67108864 -e NCCL_DEBUG=VERSION cuda-base nvidia-smi -L")
    cat "$T/docker-nvidia-smi-L.txt" ;;
  "run --rm --gpus all --ipc=host --network=host --ulimit memlock=-1 --ulimit stack=67108864 -e NCCL_DEBUG=VERSION nccl-tests all_reduce_perf -b 8G -e 8G -f 2 -g 8")
    cat "$T/docker-all_reduce_perf.txt" ;;""",
    "sinfo": f'  "-h -n {NODE} -o %t") cat "$T/sinfo.txt" ;;',
    "scontrol": f'  "show node {NODE}") cat "$T/scontrol-show-node.txt" ;;',
    "kubectl": f"""
  "get node {NODE} -o jsonpath={{.status.allocatable.nvidia\\\\.com/gpu}}")
    cat "$T/kubectl-allocatable.txt" ;;""",
    "train_short": '  "") cat "$T/train.log" ;;',
}


@pytest.fixture(scope="module")
def exported(tmp_path_factory) -> Path:
    folder = tmp_path_factory.mktemp("hc")
    write_health_check(sample_design(), folder)
    return folder


#: enroot (Slurm sites with pyxis) in place of docker: the same transcripts, its syntax
ENROOT = """
  "start --rw --env NCCL_DEBUG=VERSION cuda-base nvidia-smi -L") cat "$T/docker-nvidia-smi-L.txt" ;;
  "start --rw --env NCCL_DEBUG=VERSION nccl-tests all_reduce_perf -b 8G -e 8G -f 2 -g 8") cat "$T/docker-all_reduce_perf.txt" ;;"""


def _bin(where: Path, transcripts: Path, runtime: str = "docker") -> Path:
    bin_dir = where / "bin"
    bin_dir.mkdir()
    for tool in POSIX:
        found = shutil.which(tool)
        assert found, f"{tool} is needed to run health_check.sh"
        (bin_dir / tool).symlink_to(found)
    stubs = dict(STUBS)
    if runtime == "enroot":
        del stubs["docker"]
        stubs["enroot"] = ENROOT
    for tool, arms in stubs.items():
        stub = bin_dir / tool
        stub.write_text(
            f'#!/bin/bash\nT="{transcripts}"\ncase "$*" in\n{arms}\n'
            f'  *) echo "{tool} stub: unexpected arguments: $*" >&2; exit 99 ;;\nesac\n'
        )
        stub.chmod(0o755)
    return bin_dir


def run_node(
    exported: Path, tmp_path: Path, change=None, runtime: str = "docker"
) -> dict[str, tuple[str, str]]:
    """Run the script on a copy of the transcripts (``change(folder)`` alters it);
    item → (measured, verdict)."""
    transcripts = tmp_path / "t"
    shutil.copytree(DATA, transcripts, symlinks=True)
    if change is not None:
        change(transcripts)
    bin_dir = _bin(tmp_path, transcripts, runtime)
    fio_dir = tmp_path / "fio"
    fio_dir.mkdir()
    env = {
        "PATH": str(bin_dir),
        "HOME": str(tmp_path),
        "LC_ALL": "C",
        "HC_ROOT": str(transcripts / "root"),
        "FIO_DIR": str(fio_dir),
        "CONTAINER_IMAGE": "cuda-base",
        "NCCL_IMAGE": "nccl-tests",
        "TRAIN_CMD": "train_short",
    }
    out = tmp_path / "out"
    run = subprocess.run(
        [str(bin_dir / "bash"), str(exported / "health_check.sh"), "-n", NODE, "-p", PEER,
         "-a", "-o", str(out)],
        capture_output=True, text=True, timeout=120, env=env, cwd=tmp_path,
    )  # fmt: skip
    assert run.returncode in (0, 1), run.stdout + run.stderr
    with (out / f"results-{NODE}.csv").open() as f:
        return {r["item"]: (r["measured"], r["verdict"]) for r in csv.DictReader(f)}


def _edit(name: str, old: str, new: str, count: int = 1):
    def change(folder: Path) -> None:
        path = folder / name
        text = path.read_text()
        assert old in text, f"{name} has no {old!r}"
        path.write_text(text.replace(old, new, count))

    return change


def _replace(name: str, text: str):
    def change(folder: Path) -> None:
        (folder / name).write_text(text)

    return change


def _both(*changes):
    def change(folder: Path) -> None:
        for c in changes:
            c(folder)

    return change


MANUAL = {"biz.train_converges", "biz.infer_p99"}


def test_healthy_node_passes_every_item(exported: Path, tmp_path: Path) -> None:
    results = run_node(exported, tmp_path)
    servers = (tmp_path / "t" / "ssh.log").read_text().splitlines()
    assert len(servers) == 8  # ib_write_bw's server side started on the peer, per rail
    expected = {r.split(",")[1] for r in (exported / "expected.csv").read_text().splitlines()
                if r.startswith(NODE + ",")}  # fmt: skip
    assert set(results) == expected
    not_passed = {k: v for k, v in results.items() if v[1] != "PASS" and k not in MANUAL}
    assert not not_passed
    assert {results[k][1] for k in MANUAL} == {"SKIP"}
    assert results["nic.rate"][0] == "8"  # phys state: lines are not state: lines
    assert results["net.allreduce_2node"][0] == "371.015"
    assert results["gpu.driver"][0] == "550.127.08"


def test_enroot_runs_the_container_items(exported: Path, tmp_path: Path) -> None:
    results = run_node(exported, tmp_path, runtime="enroot")
    assert results["ctr.gpus"] == ("8", "PASS")
    assert results["ctr.nccl"] == ("446.687", "PASS")


FAULTS = [
    ("bios.aspm", _edit("lspci-vv.txt", "LnkCtl:\tASPM Disabled", "LnkCtl:\tASPM L1 Enabled"), "1"),
    ("bios.above4g", _edit("lspci-vv.txt", "Memory at 228000000000 (64-bit, prefetchable) [size=128G]",
                           "Memory at e0000000 (64-bit, prefetchable) [size=256M]"), "7"),
    ("bios.rebar", _edit("nvidia-smi-q-d-memory.txt", "Total                             : 131072 MiB",
                         "Total                             : 256 MiB"), "256"),
    ("bios.numa", _edit("nvidia-smi-topo-m.txt", "168-223\t1", "168-223\t0", 4), "1"),
    ("bios.sriov", _edit("lspci-vv.txt", "Number of VFs: 0", "Number of VFs: 8"), "8"),
    ("os.iommu", _edit("root/proc/cmdline", " iommu=pt", ""), "not set"),
    ("os.hugepages", _edit("sysctl-a.txt", "vm.nr_hugepages = 1024", "vm.nr_hugepages = 0"), "0"),
    ("os.max_map_count", _edit("sysctl-a.txt", "262144", "65530"), "65530"),
    ("os.nouveau", _edit("lsmod.txt", "raid1 ", "nouveau              2879488  0\nraid1 "), "loaded"),
    ("os.swap", _edit("root/proc/swaps", "Priority\n",
                      "Priority\n/swap.img                               file\t\t8388604\t\t0\t\t-2\n"), "1"),
    ("os.memlock", _edit("root/proc/self/limits", "Max locked memory         unlimited            unlimited",
                         "Max locked memory         8388608              8388608  "), "8388608"),
    ("os.chrony", _edit("chronyc-tracking.txt", "Leap status     : Normal",
                        "Leap status     : Not synchronised"), "Not synchronised"),
    ("os.disk_mirror", _edit("root/proc/mdstat", "[2/2] [UU]", "[2/1] [U_]"), "0"),
    ("os.release", _edit("root/etc/os-release", '"Ubuntu 22.04.5 LTS"', '"Ubuntu 22.04.4 LTS"'),
     "Ubuntu 22.04.4 LTS"),
    ("os.kernel", _both(*(_edit(f, "5.15.0-126", "5.15.0-127", 3) for f in
                          ("uname-r.txt", "apt-mark-showhold.txt", "dkms-status.txt"))),
     "5.15.0-127-generic"),
    ("os.kernel_pinned", _edit("apt-mark-showhold.txt", "linux-image-5.15.0-126-generic\n", ""),
     "not held"),
    ("os.dkms", _edit("dkms-status.txt", ": installed", ": built"), "built"),
    ("gpu.count", _edit("nvidia-smi-query-gpu.csv", "7, 550.127.08, 96.00.99.00.01, Enabled, 700.00, 35\n", ""),
     "7"),
    ("gpu.driver", _edit("nvidia-smi-query-gpu.csv", "550.127.08", "535.183.01", 8), "535.183.01"),
    ("gpu.power_limit", _edit("nvidia-smi-query-gpu.csv", "Enabled, 700.00, 36", "Enabled, 500.00, 36"),
     "500.00"),
    ("gpu.persistence", _edit("nvidia-smi-query-gpu.csv", "Enabled, 700.00, 36", "Disabled, 700.00, 36"),
     "Disabled+Enabled"),
    ("gpu.temperature", _edit("nvidia-smi-query-gpu.csv", "700.00, 37", "700.00, 87"), "87"),
    ("gpu.pcie_link", _edit("lspci-vv.txt", "LnkSta:\tSpeed 32GT/s (ok), Width x16 (ok)",
                            "LnkSta:\tSpeed 16GT/s (downgraded), Width x16 (ok)"), "7"),
    ("gpu.nvlink", _edit("nvidia-smi-topo-m.txt", "GPU1\t NV18", "GPU1\t SYS"), "55"),
    ("gpu.nvlink_links", _edit("nvidia-smi-nvlink-s.txt", "Link 7: 26.562 GB/s", "Link 7: <inactive>"),
     "1"),
    ("nic.rate", _edit("ibstatus.txt", "state:\t\t 4: ACTIVE\n\tphys state:\t 5: LinkUp",
                       "state:\t\t 1: DOWN\n\tphys state:\t 3: Disabled"), "7"),
    ("nic.mtu", _edit("ibv_devinfo.txt", "active_mtu:\t\t4096 (5)", "active_mtu:\t\t2048 (4)"), "7"),
    ("storage.nic_rate", _edit("ethtool-enp170s0f1np1.txt", "Speed: 200000Mb/s", "Speed: 100000Mb/s"), "1"),
    ("bmc.address", _edit("ipmitool-lan-print.txt", ": 10.7.0.2", ": 10.7.0.99"), "10.7.0.99"),
    ("gpu.fp16_matmul", _edit("matmul.txt", "712.6", "412.3"), "412.3"),
    ("gpu.dcgm_diag", _edit("dcgmi-diag-r2.txt", "| GPU Memory                | Pass - All",
                            "| GPU Memory                | Fail - GPU: 3"), "Fail: GPU Memory"),
    ("net.allreduce_node", _edit("all_reduce_perf-g8.txt", "Avg bus bandwidth    : 448.336",
                                 "Avg bus bandwidth    : 251.300"), "251.300"),
    ("net.allreduce_2node", _edit("all_reduce_perf-2node.txt", "Avg bus bandwidth    : 371.015",
                                  "Avg bus bandwidth    : 322.480"), "322.480"),
    ("net.ib_write_bw", _edit("ib_write_bw.txt", "396.12", "187.50"), "187.50"),
    ("storage.fio_read", _edit("fio-read.json", '"bw_bytes" : 5624678400', '"bw_bytes" : 1912602624'),
     "1.9"),
    ("ctr.toolkit", _edit("nvidia-ctk-version.txt", "1.17.3", "1.16.2"), "1.16.2"),
    ("ctr.gpus", _replace("docker-nvidia-smi-L.txt", "docker: Error response from daemon: could "
                          'not select device driver "" with capabilities: [[gpu]].\n'), "0"),
    ("ctr.nccl", _edit("docker-all_reduce_perf.txt", "Avg bus bandwidth    : 446.687",
                       "Avg bus bandwidth    : 120.400"), "120.400"),
    ("ctr.nccl_version", _edit("docker-all_reduce_perf.txt", "NCCL version 2.21.5+cuda12.4",
                               "NCCL version 2.19.3+cuda12.3"), "2.19.3"),
    ("sched.sinfo", _edit("sinfo.txt", "idle", "drain"), "drain"),
    ("sched.gres", _edit("scontrol-show-node.txt", "Gres=gpu:h100:8(S:0-1)", "Gres=(null)"), "0"),
    ("sched.k8s_gpus", _edit("kubectl-allocatable.txt", "8", "0"), "0"),
    ("sched.srun_world", _edit("srun-world.txt", "16", "2"), "2"),
    ("biz.train_mfu", _edit("train.log", "(TFLOP/s/GPU): 402.7", "(TFLOP/s/GPU): 301.3"), "301.3"),
]  # fmt: skip


@pytest.mark.parametrize(("item", "change", "measured"), FAULTS, ids=[f[0] for f in FAULTS])
def test_one_fault_fails_exactly_its_item(
    exported: Path, tmp_path: Path, item: str, change, measured: str
) -> None:
    results = run_node(exported, tmp_path, change)
    failed = {k: v for k, v in results.items() if v[1] == "FAIL"}
    assert failed == {item: (measured, "FAIL")}


def test_every_judged_item_has_a_fault() -> None:
    judged = {
        r.split(",")[1] for r in _expected_rows() if r.split(",")[2] not in ("record", "manual")
    }
    assert judged == {f[0] for f in FAULTS}


def _expected_rows() -> list[str]:
    from workbench.export.health_check import expected_csv

    return [r for r in expected_csv(sample_design()).splitlines() if r.startswith(NODE + ",")]


@pytest.mark.skipif(shutil.which("shellcheck") is None, reason="shellcheck not installed")
def test_exported_script_is_shellcheck_clean(exported: Path) -> None:
    run = subprocess.run(["shellcheck", str(exported / "health_check.sh")],
                         capture_output=True, text=True, timeout=60)  # fmt: skip
    assert run.returncode == 0, run.stdout


if os.name != "posix":  # pragma: no cover
    pytest.skip("health_check.sh needs a POSIX shell", allow_module_level=True)


def test_healthy_results_import_into_a_sign_off_ready_checklist(
    exported: Path, tmp_path: Path
) -> None:
    """Done-when of the issue: the healthy node's results CSV, imported by the command
    line, gives a checklist whose judged rows all read PASS with the measured values;
    only the two business rows are left to the signer."""
    import openpyxl

    from workbench.store import save_design

    run_node(exported, tmp_path)
    project = tmp_path / "sample.dcwb"
    save_design(sample_design(), project)
    cmd = subprocess.run(
        [sys.executable, "-m", "workbench", "acceptance", "import", str(project),
         str(tmp_path / "out"), "--checklist", str(tmp_path / "c.xlsx")],
        capture_output=True, text=True, timeout=300,
    )  # fmt: skip
    assert cmd.returncode == 0, cmd.stderr
    assert "49 PASS" in cmd.stdout and "2 SKIP" in cmd.stdout
    book = openpyxl.load_workbook(tmp_path / "c.xlsx")
    rows = list(book[NODE].iter_rows(min_row=2, values_only=True))
    verdicts = {row[0]: (row[5], row[6]) for row in rows}
    assert {v for k, (_m, v) in verdicts.items() if k not in MANUAL} == {"PASS"}
    assert verdicts["net.allreduce_2node"] == ("371.015", "PASS")
    assert rows[0][0] == "bios.aspm"  # nothing failed: checklist order


def test_usage_is_the_header_comment(exported: Path) -> None:
    run = subprocess.run(["bash", str(exported / "health_check.sh"), "-h"],
                         capture_output=True, text=True, timeout=30)  # fmt: skip
    assert run.returncode == 0
    lines = run.stdout.splitlines()
    assert lines[0].startswith("health_check.sh:") and lines[-1].startswith("Run as root")


def test_a_tier_read_with_gds_checks_nvidia_fs_on_every_node(tmp_path) -> None:
    """Before: a tier said to be read with GPUDirect Storage gave no checklist row.  Now
    each node gets storage.gds: nvidia-fs loaded (/sys/module/nvidia_fs/version, seed
    004's check), FAIL while the module is absent, PASS with its version once loaded."""
    from workbench.export.health_check import expected_csv

    design = sample_design()
    assert "storage.gds" not in expected_csv(design)  # no tier says GDS: no row
    design.storage_tiers[0].gpudirect_storage = True
    exported = tmp_path / "hc"
    write_health_check(design, exported)
    absent = run_node(exported, tmp_path / "a")
    assert absent["storage.gds"][1] == "FAIL"

    def loaded(folder: Path) -> None:
        module = folder / "root" / "sys" / "module" / "nvidia_fs"
        module.mkdir(parents=True, exist_ok=True)
        (module / "version").write_text("2.17.5\n")

    present = run_node(exported, tmp_path / "b", loaded)
    assert present["storage.gds"] == ("2.17.5", "PASS")
