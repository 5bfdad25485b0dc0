"""The window system the journey tests drive the real application through.

One :class:`XSession` is an Xvfb display with the openbox window manager (so focus,
dialogs and window activation behave as on a desktop) and, on it, the workbench started
as a user starts it (``python -m workbench [FILE]``).  Input is OS-level: xdotool moves
the mouse in small steps, presses and releases buttons and types keys, so the window
sees the same X events a person's hand makes.  Waits are on something observable: a
window appearing (``xdotool search --sync``) or the window probe
(:mod:`workbench.ui.shell.probe`) reporting a state; never a fixed sleep alone.
"""

from __future__ import annotations

import json
import os
import shutil
import socket
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

#: The programs a journey needs (Debian packages xvfb, openbox, xdotool, imagemagick).
NEEDED = ("Xvfb", "openbox", "xdotool", "import")

SCREEN = (1600, 1000)


def missing_programs() -> list[str]:
    return [p for p in NEEDED if shutil.which(p) is None]


class JourneyError(AssertionError):
    """A journey step did not happen (with what the window said)."""


class XSession:
    """Xvfb + openbox + the workbench, driven with xdotool."""

    def __init__(self, workdir: Path):
        self.workdir = workdir
        self.home = workdir / "home"
        self.home.mkdir(parents=True, exist_ok=True)
        runtime = workdir / "runtime"
        runtime.mkdir(exist_ok=True)
        runtime.chmod(0o700)
        self.probe_path = str(workdir / "probe.sock")
        self.logs = workdir / "logs"
        self.logs.mkdir(exist_ok=True)
        read_fd, write_fd = os.pipe()
        self.xvfb = subprocess.Popen(
            [
                "Xvfb",
                "-displayfd",
                str(write_fd),
                "-screen",
                "0",
                f"{SCREEN[0]}x{SCREEN[1]}x24",
                "-nolisten",
                "tcp",
            ],
            pass_fds=(write_fd,),
            stdout=subprocess.DEVNULL,
            stderr=open(self.logs / "xvfb.log", "wb"),  # noqa: SIM115 - lives with the process
        )
        os.close(write_fd)
        with os.fdopen(read_fd) as pipe:
            number = pipe.readline().strip()
        if not number:
            raise JourneyError("Xvfb did not start (see xvfb.log)")
        self.env = {
            **os.environ,
            "DISPLAY": f":{number}",
            "HOME": str(self.home),
            "XDG_CONFIG_HOME": str(self.home / ".config"),
            "XDG_DATA_HOME": str(self.home / ".local" / "share"),
            "XDG_CACHE_HOME": str(self.home / ".cache"),
            "XDG_RUNTIME_DIR": str(runtime),
            "QT_QPA_PLATFORM": "xcb",
            "WORKBENCH_PROBE": self.probe_path,
            "PYTHONPATH": os.pathsep.join(p for p in sys.path if p),
        }
        self.env.pop("QT_QPA_PLATFORMTHEME", None)
        self.wm = subprocess.Popen(
            ["openbox", "--sm-disable"],
            env=self.env,
            stdout=subprocess.DEVNULL,
            stderr=open(self.logs / "openbox.log", "wb"),  # noqa: SIM115
        )
        self.app: subprocess.Popen[bytes] | None = None
        self._app_log = 0

    # -- the application ----------------------------------------------------------------
    def new_design(self, path: Path, gpus: int, timeout: float = 300.0) -> Path:
        """Make ``path`` with ``workbench new --gpus GPUS`` in this session's environment
        (the command line a planner would use), and return it."""
        subprocess.run(
            [sys.executable, "-m", "workbench", "new", "--gpus", str(gpus), str(path)],
            check=True,
            capture_output=True,
            env=self.env,
            timeout=timeout,
        )
        return path

    def start_app(self, *args: str, timeout: float = 90.0) -> None:
        """Start ``workbench ARGS`` and wait until its main window is shown and its probe
        answers."""
        self._app_log += 1
        log = open(self.logs / f"app-{self._app_log}.log", "wb")  # noqa: SIM115
        if os.path.exists(self.probe_path):
            os.unlink(self.probe_path)
        self.app = subprocess.Popen(
            [sys.executable, "-m", "workbench", *args],
            env=self.env,
            cwd=self.workdir,
            stdout=log,
            stderr=subprocess.STDOUT,
        )
        self.wait_window("Workbench", timeout=timeout)
        deadline = time.monotonic() + timeout
        while True:
            try:
                self.ask("state")
                return
            except OSError as exc:
                if time.monotonic() > deadline or self.app.poll() is not None:
                    log = self.app_log()
                    raise JourneyError(f"the window probe never answered: {log}") from exc
                time.sleep(0.1)

    def app_log(self) -> str:
        path = self.logs / f"app-{self._app_log}.log"
        return path.read_text(errors="replace")[-3000:] if path.exists() else ""

    def wait_exit(self, timeout: float = 30.0) -> int:
        assert self.app is not None
        try:
            return self.app.wait(timeout)
        except subprocess.TimeoutExpired as exc:
            raise JourneyError(f"the workbench did not quit: {self.app_log()}") from exc

    def ask(self, q: str, **args: Any) -> Any:
        """One question to the window probe (see :mod:`workbench.ui.shell.probe`)."""
        with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as conn:
            conn.settimeout(20)
            conn.connect(self.probe_path)
            conn.sendall(json.dumps({"q": q, **args}).encode() + b"\n")
            data = b""
            while not data.endswith(b"\n"):
                chunk = conn.recv(65536)
                if not chunk:
                    break
                data += chunk
        answer = json.loads(data)
        if isinstance(answer, dict) and "error" in answer:
            raise JourneyError(f"probe {q}: {answer['error']}")
        return answer

    def wait_for(
        self, what: str, test: Callable[[dict[str, Any]], Any], timeout: float = 30.0
    ) -> dict[str, Any]:
        """Poll the window's state until ``test(state)`` holds; the state."""
        deadline = time.monotonic() + timeout
        while True:
            state = self.ask("state")
            if test(state):
                return state
            if time.monotonic() > deadline:
                raise JourneyError(
                    f"waited {timeout:g} s for {what}; status {state['status']!r}, "
                    f"active window {state['active_window']!r}"
                )
            time.sleep(0.1)

    # -- X input --------------------------------------------------------------------------
    def xdotool(self, *args: str | int, timeout: float = 60.0) -> str:
        result = subprocess.run(
            ["xdotool", *map(str, args)],
            env=self.env,
            capture_output=True,
            text=True,
            timeout=timeout,
        )
        if result.returncode != 0:
            raise JourneyError(f"xdotool {' '.join(map(str, args))}: {result.stderr.strip()}")
        return result.stdout

    def wait_window(self, name: str, timeout: float = 30.0) -> str:
        """Wait until a visible window whose title matches ``name`` exists; its id."""
        try:
            out = self.xdotool("search", "--sync", "--onlyvisible", "--name", name, timeout=timeout)
        except subprocess.TimeoutExpired as exc:
            raise JourneyError(f"no window {name!r} appeared in {timeout:g} s") from exc
        return out.split()[0]

    def activate(self, window_id: str) -> None:
        self.xdotool("windowactivate", "--sync", window_id)

    def pointer(self) -> tuple[int, int]:
        out = self.xdotool("getmouselocation", "--shell")
        fields = dict(line.split("=") for line in out.split())
        return int(fields["X"]), int(fields["Y"])

    def _path(self, to: tuple[int, int], steps: int) -> list[str]:
        x0, y0 = self.pointer()
        args: list[str] = []
        for i in range(1, steps + 1):
            x = round(x0 + (to[0] - x0) * i / steps)
            y = round(y0 + (to[1] - y0) * i / steps)
            args += ["mousemove", str(x), str(y), "sleep", "0.02"]
        return args

    def move(self, to: tuple[int, int], steps: int = 15) -> None:
        """Move the mouse to ``to`` in small steps, as a hand does."""
        self.xdotool(*self._path(to, steps))

    def click(self, at: tuple[int, int], button: int = 1) -> None:
        self.move(at)
        self.xdotool("click", button)

    def press(self, button: int = 1) -> None:
        self.xdotool("mousedown", button)

    def release(self, button: int = 1) -> None:
        self.xdotool("mouseup", button)

    def drag(self, points: list[tuple[int, int]], steps: int = 15) -> None:
        """Press at the pointer, move through ``points`` in small steps, release at
        the last: the path a drag from the catalog takes."""
        self.press()
        for point in points:
            self.move(point, steps)
        self.release()

    def key(self, *keys: str) -> None:
        self.xdotool("key", "--clearmodifiers", *keys)

    def type(self, text: str) -> None:
        self.xdotool("type", "--delay", "15", text)

    def screenshot(self, path: Path) -> Path:
        """The whole screen as a PNG."""
        subprocess.run(
            ["import", "-window", "root", str(path)],
            env=self.env,
            check=True,
            timeout=60,
            capture_output=True,
        )
        return path

    # -- the end ----------------------------------------------------------------------------
    def close(self) -> None:
        for proc in (self.app, self.wm, self.xvfb):
            if proc is not None and proc.poll() is None:
                proc.terminate()
                try:
                    proc.wait(10)
                except subprocess.TimeoutExpired:
                    proc.kill()
                    proc.wait(5)


def centre(rect: dict[str, int]) -> tuple[int, int]:
    return rect["x"] + rect["w"] // 2, rect["y"] + rect["h"] // 2


def at(point: dict[str, int]) -> tuple[int, int]:
    return point["x"], point["y"]
