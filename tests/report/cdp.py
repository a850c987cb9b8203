"""A minimal Chrome DevTools Protocol client over --remote-debugging-pipe (no extra
dependency): open a page in headless Chromium, collect console errors and exceptions,
evaluate JavaScript, take a screenshot.

Chromium reads commands from fd 3 and writes replies and events to fd 4, each message a
JSON object followed by a NUL byte.
"""

from __future__ import annotations

import base64
import contextlib
import json
import os
import queue
import shutil
import subprocess
import threading
import time
from pathlib import Path
from typing import Any


class Browser:
    def __init__(self, width: int = 1280, height: int = 900) -> None:
        exe = shutil.which("chromium") or shutil.which("chromium-browser")
        if exe is None:
            raise FileNotFoundError("chromium (Debian package chromium, deps/apt.txt)")
        cmd_r, self._cmd_w = os.pipe()
        self._resp_r, resp_w = os.pipe()

        def fds() -> None:  # in the child: the pipe ends become fd 3 and fd 4
            a, b = os.dup(cmd_r), os.dup(resp_w)  # away from 3 and 4 first
            os.dup2(a, 3)  # dup2 makes them inheritable (pipes are close-on-exec)
            os.dup2(b, 4)

        self.proc = subprocess.Popen(
            [
                exe,
                "--headless=new",
                "--no-sandbox",  # root in a VM: the sandbox needs user namespaces
                "--disable-gpu",
                "--no-first-run",
                "--remote-debugging-pipe",
                f"--window-size={width},{height}",
                "about:blank",
            ],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            close_fds=False,
            preexec_fn=fds,
        )
        os.close(cmd_r)
        os.close(resp_w)
        self._id = 0
        self._replies: dict[int, dict[str, Any]] = {}
        self.events: queue.Queue[dict[str, Any]] = queue.Queue()
        self._cond = threading.Condition()
        threading.Thread(target=self._reader, daemon=True).start()
        self.session = self._attach()

    def _reader(self) -> None:
        buf = b""
        while True:
            chunk = os.read(self._resp_r, 1 << 16)
            if not chunk:
                return
            buf += chunk
            while b"\0" in buf:
                raw, buf = buf.split(b"\0", 1)
                msg = json.loads(raw)
                if "id" in msg:
                    with self._cond:
                        self._replies[msg["id"]] = msg
                        self._cond.notify_all()
                else:
                    self.events.put(msg)

    def send(
        self, method: str, params: dict[str, Any] | None = None, timeout: float = 30, **kw: Any
    ) -> dict[str, Any]:
        self._id += 1
        msg = {"id": self._id, "method": method, "params": params or {}, **kw}
        os.write(self._cmd_w, json.dumps(msg).encode() + b"\0")
        deadline = time.monotonic() + timeout
        with self._cond:
            while self._id not in self._replies:
                left = deadline - time.monotonic()
                if left <= 0:
                    raise TimeoutError(f"no reply to {method}")
                self._cond.wait(left)
            reply = self._replies.pop(self._id)
        if "error" in reply:
            raise RuntimeError(f"{method}: {reply['error']}")
        return reply.get("result", {})

    def page(self, method: str, params: dict[str, Any] | None = None) -> dict[str, Any]:
        return self.send(method, params, sessionId=self.session)

    def _attach(self) -> str:
        targets = self.send("Target.getTargets")["targetInfos"]
        page = next(t for t in targets if t["type"] == "page")
        return self.send("Target.attachToTarget", {"targetId": page["targetId"], "flatten": True})[
            "sessionId"
        ]

    def open(self, url: str, timeout: float = 60) -> list[dict[str, Any]]:
        """Navigate and wait for the load event; returns every event seen until then."""
        for domain in ("Page", "Runtime", "Log"):
            self.page(f"{domain}.enable")
        self.page("Page.navigate", {"url": url})
        seen = []
        deadline = time.monotonic() + timeout
        while True:
            ev = self.events.get(timeout=max(0.1, deadline - time.monotonic()))
            seen.append(ev)
            if ev.get("method") == "Page.loadEventFired":
                break
        time.sleep(0.3)  # late console messages
        while not self.events.empty():
            seen.append(self.events.get_nowait())
        return seen

    def evaluate(self, expression: str) -> Any:
        r = self.page("Runtime.evaluate", {"expression": expression, "returnByValue": True})
        return r["result"].get("value")

    def screenshot(self, path: Path) -> int:
        r = self.page("Page.captureScreenshot", {"format": "png", "captureBeyondViewport": True})
        data = base64.b64decode(r["data"])
        path.write_bytes(data)
        return len(data)

    def close(self) -> None:
        with contextlib.suppress(TimeoutError, RuntimeError, OSError):
            self.send("Browser.close", timeout=5)
        try:
            self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
        os.close(self._cmd_w)


def console_errors(events: list[dict[str, Any]]) -> list[str]:
    out = []
    for ev in events:
        m, p = ev.get("method"), ev.get("params", {})
        if m == "Runtime.consoleAPICalled" and p.get("type") in ("error", "assert"):
            out.append(" ".join(str(a.get("value", a.get("description"))) for a in p["args"]))
        elif m == "Runtime.exceptionThrown":
            out.append(p["exceptionDetails"].get("text", "exception"))
        elif m == "Log.entryAdded" and p["entry"]["level"] == "error":
            out.append(p["entry"]["text"])
    return out
