"""What the window's first check loads after the first frame (``check_loading``): every
module of ``CHECK_MODULES`` loaded on a thread, waited for without blocking, and the
rules registered in the order the command line registers them.

Each run is a fresh process: in this one the modules are loaded already.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

#: Drive the loader as the window does (look again while it yields True), and report.
CHILD = r"""
import json, sys, threading, time
from workbench.ui.shell import check_loading

switch = sys.getswitchinterval()
before = [m for m in check_loading.CHECK_MODULES if m in sys.modules]
loaded_on = {}
original = check_loading.importlib.import_module
def recording(name, package=None):
    loaded_on.setdefault(name, threading.current_thread() is threading.main_thread())
    return original(name, package)
check_loading.importlib.import_module = recording
waits = lowered = done_here = 0
for waiting in check_loading.import_steps():
    if waiting:
        waits += 1
        lowered += sys.getswitchinterval() < switch
        time.sleep(0.002)
    else:
        done_here += 1
from workbench.rules.registry import REGISTRY
print("REPORT " + json.dumps({
    "before": before,
    "missing": [m for m in check_loading.CHECK_MODULES if m not in sys.modules],
    "on_main": sorted(name for name, main in loaded_on.items() if main),
    "waits": waits, "lowered": lowered, "done_here": done_here,
    "restored": sys.getswitchinterval() == switch,
    "rules": list(REGISTRY),
}), flush=True)
"""

#: The rules as the command line registers them.
PLAIN = r"""
import json
from workbench.rules.registry import all_rules
print("REPORT " + json.dumps({"rules": list(all_rules())}), flush=True)
"""


def _run(code: str) -> dict:
    root = Path(__file__).resolve().parents[1]
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(root), env.get("PYTHONPATH")]))
    done = subprocess.run(
        [sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=120
    )
    for line in done.stdout.splitlines():
        if line.startswith("REPORT "):
            return json.loads(line.removeprefix("REPORT "))
    raise AssertionError(f"no report (exit {done.returncode}):\n{done.stderr[-3000:]}")


def test_the_check_modules_load_on_a_thread_in_the_command_lines_rule_order() -> None:
    found = _run(CHILD)
    assert found["before"] == [], "a check module was loaded with the loader itself"
    assert found["missing"] == []
    assert found["on_main"] == [] and found["done_here"] == 0, found["on_main"]
    # Waited for from outside (the event loop), the GIL handed over sooner meanwhile,
    # and the switch interval as it was once loaded.
    assert found["waits"] > 0 and found["lowered"] == found["waits"]
    assert found["restored"]
    assert found["rules"] and found["rules"] == _run(PLAIN)["rules"]
