"""A small client of Chromium's DevTools protocol over ``--remote-debugging-pipe`` (standard library only):
open pages from files, read console errors, run script, take screenshots. Tests skip where no Chromium is."""

from __future__ import annotations

import base64
import contextlib
import json
import os
import select
import shutil
import subprocess
import tempfile
import time
from pathlib import Path
from typing import Any

CANDIDATES = ("chromium", "chromium-browser", "google-chrome")


def find_chromium() -> str | None:
    for name in CANDIDATES:
        found = shutil.which(name)
        if found:
            return found
    return None


class BrowserError(RuntimeError):
    pass


class Browser:
    """One headless Chromium; ``open`` gives a tab at a viewport width."""

    def __init__(self, executable: str, timeout: float = 30.0) -> None:
        self.timeout = timeout
        self.profile = tempfile.mkdtemp(prefix="trainledger-chromium-")
        to_child_r, self._to_child = os.pipe()
        self._from_child, from_child_w = os.pipe()

        def wire() -> None:  # the protocol's fixed descriptors: 3 reads commands, 4 writes replies
            reads, writes = os.dup(to_child_r), os.dup(from_child_w)  # out of the way of 3 and 4 first
            os.dup2(reads, 3)
            os.dup2(writes, 4)

        self.proc = subprocess.Popen(
            [
                executable,
                "--headless",
                "--no-sandbox",
                "--disable-gpu",
                "--disable-dev-shm-usage",
                "--remote-debugging-pipe",
                "--no-first-run",
                "--disable-background-networking",
                "--disable-component-update",
                "--disable-sync",
                "--hide-scrollbars",
                f"--user-data-dir={self.profile}",
                "about:blank",
            ],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            preexec_fn=wire,
            pass_fds=(3, 4),  # kept open by number: wire() puts the pipes there
        )
        os.close(to_child_r)
        os.close(from_child_w)
        self._buffer = b""
        self._next = 0
        self.events: list[dict[str, Any]] = []

    def close(self) -> None:
        with contextlib.suppress(BrowserError, OSError):
            self.send("Browser.close")
        try:
            self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
        os.close(self._to_child)
        os.close(self._from_child)
        shutil.rmtree(self.profile, ignore_errors=True)

    def _read(self, deadline: float) -> dict[str, Any]:
        while b"\0" not in self._buffer:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                raise BrowserError("Chromium did not answer in time")
            ready, _, _ = select.select([self._from_child], [], [], remaining)
            if ready:
                chunk = os.read(self._from_child, 1 << 20)
                if not chunk:
                    raise BrowserError("Chromium closed the DevTools pipe")
                self._buffer += chunk
        message, self._buffer = self._buffer.split(b"\0", 1)
        return json.loads(message)

    def send(self, method: str, params: dict[str, Any] | None = None, session: str | None = None) -> Any:
        self._next += 1
        message: dict[str, Any] = {"id": self._next, "method": method, "params": params or {}}
        if session:
            message["sessionId"] = session
        os.write(self._to_child, json.dumps(message).encode() + b"\0")
        deadline = time.monotonic() + self.timeout
        while True:
            reply = self._read(deadline)
            if reply.get("id") == self._next:
                if "error" in reply:
                    raise BrowserError(f"{method}: {reply['error']}")
                return reply.get("result", {})
            self.events.append(reply)

    def wait_for(self, method: str, session: str) -> dict[str, Any]:
        deadline = time.monotonic() + self.timeout
        while True:
            for i, event in enumerate(self.events):
                if event.get("method") == method and event.get("sessionId") == session:
                    return self.events.pop(i)
            self.events.append(self._read(deadline))

    def open(self, url: str, width: int, height: int = 900) -> Tab:
        target = self.send("Target.createTarget", {"url": "about:blank"})["targetId"]
        session = self.send("Target.attachToTarget", {"targetId": target, "flatten": True})["sessionId"]
        tab = Tab(self, target, session, width, height)
        for domain in ("Page", "Runtime", "Log"):
            self.send(f"{domain}.enable", session=session)
        tab.resize(height)
        self.send("Page.navigate", {"url": url}, session)
        self.wait_for("Page.loadEventFired", session)
        return tab


class Tab:
    def __init__(self, browser: Browser, target: str, session: str, width: int, height: int) -> None:
        self.browser = browser
        self.target = target
        self.session = session
        self.width = width
        self.height = height

    def resize(self, height: int) -> None:
        self.browser.send(
            "Emulation.setDeviceMetricsOverride",
            {"width": self.width, "height": height, "deviceScaleFactor": 1, "mobile": False},
            self.session,
        )

    def eval(self, expression: str) -> Any:
        result = self.browser.send(
            "Runtime.evaluate",
            {"expression": expression, "returnByValue": True, "awaitPromise": True},
            self.session,
        )
        if "exceptionDetails" in result:
            raise BrowserError(f"{expression[:60]}...: {result['exceptionDetails']}")
        return result["result"].get("value")

    def wait(self, expression: str, timeout: float = 15.0) -> None:
        deadline = time.monotonic() + timeout
        while not self.eval(expression):
            if time.monotonic() > deadline:
                raise BrowserError(f"timed out waiting for {expression}")
            time.sleep(0.05)

    def errors(self) -> list[str]:
        """Uncaught exceptions, console.error calls and error log entries (failed loads) of this tab."""
        found = []
        for event in self.browser.events:
            if event.get("sessionId") != self.session:
                continue
            params = event.get("params", {})
            if event.get("method") == "Runtime.exceptionThrown":
                found.append(json.dumps(params["exceptionDetails"])[:500])
            elif event.get("method") == "Runtime.consoleAPICalled" and params.get("type") == "error":
                found.append(json.dumps(params.get("args"))[:500])
            elif event.get("method") == "Log.entryAdded" and params["entry"].get("level") == "error":
                found.append(f"{params['entry'].get('text')} {params['entry'].get('url', '')}")
        return found

    def screenshot(self, path: Path) -> None:
        """The whole page, at this tab's width."""
        height = int(self.eval("Math.ceil(document.documentElement.scrollHeight)"))
        self.resize(min(max(height, 400), 16000))
        data = self.browser.send("Page.captureScreenshot", {"format": "png"}, self.session)["data"]
        path.write_bytes(base64.b64decode(data))
        self.resize(self.height)

    def close(self) -> None:
        self.browser.send("Target.closeTarget", {"targetId": self.target})
