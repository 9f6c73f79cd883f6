"""A minimal headless Chromium driver over the DevTools protocol (``--remote-debugging-pipe``).

No dependency beyond the browser: commands and events are NUL-terminated JSON messages on two
pipes (the browser reads file descriptor 3 and writes 4). Used by the tests that render pages
the library writes, to see them as a reader's browser does: console errors, uncaught
exceptions, failed loads, the visible text, the images and a screenshot.
"""

from __future__ import annotations

import base64
import fcntl
import json
import os
import shutil
import subprocess
import tempfile
import time
from pathlib import Path
from typing import Any

BROWSERS = ("chromium", "chromium-browser", "google-chrome", "google-chrome-stable")
FLAGS = ("--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync",
         "--disable-dev-shm-usage", "--hide-scrollbars", "--window-size=1100,1400")


def _high_fd(fd: int) -> int:
    """A non-inheritable duplicate of ``fd`` numbered 10 or more (``fd`` itself is closed)."""
    high = fcntl.fcntl(fd, fcntl.F_DUPFD_CLOEXEC, 10)
    os.close(fd)
    return high


def find_browser() -> str | None:
    """Path of an installed Chromium (or Chrome), or None."""
    for name in BROWSERS:
        path = shutil.which(name)
        if path:
            return path
    return None


class Browser:
    """One headless browser process with one page, driven through the DevTools pipe."""

    def __init__(self, executable: str, timeout: float = 60.0) -> None:
        self.timeout = timeout
        self._profile = tempfile.TemporaryDirectory(prefix="logicrules-chromium-")
        self._log = open(Path(self._profile.name) / "stderr.log", "w+b")  # noqa: SIM115 (closed in close)
        # Pipe ends numbered above 4, so that placing them at 3 and 4 in the child clobbers none.
        to_browser_r, self._to_browser, self._from_browser, from_browser_w = (
            _high_fd(fd) for fd in (*os.pipe(), *os.pipe()))

        # The browser expects its pipe ends as fds 3 and 4; dup2 makes them inheritable (the
        # pipes themselves are not, so nothing else leaks into the browser).
        def child_fds() -> None:
            os.dup2(to_browser_r, 3)
            os.dup2(from_browser_w, 4)

        self._process = subprocess.Popen(
            [executable, *FLAGS, f"--user-data-dir={self._profile.name}", "--remote-debugging-pipe",
             "about:blank"],
            stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=self._log,
            preexec_fn=child_fds, close_fds=False,
        )
        os.close(to_browser_r)
        os.close(from_browser_w)
        self._buffer = b""
        self._next_id = 0
        self.events: list[dict[str, Any]] = []
        target = self.send("Target.createTarget", url="about:blank")["targetId"]
        self._session = self.send("Target.attachToTarget", targetId=target, flatten=True)["sessionId"]
        for domain in ("Page", "Runtime", "Log"):
            self.send(f"{domain}.enable", session=True)

    # ---------------------------------------------------------------- protocol
    def _read_message(self, deadline: float) -> dict[str, Any]:
        while b"\0" not in self._buffer:
            if time.monotonic() > deadline or self._process.poll() is not None:
                raise TimeoutError(f"the browser did not answer in time; its log:\n{self.log_tail()}")
            chunk = os.read(self._from_browser, 1 << 20)
            if not chunk:
                raise ConnectionError(f"the browser closed its DevTools pipe; its log:\n{self.log_tail()}")
            self._buffer += chunk
        message, self._buffer = self._buffer.split(b"\0", 1)
        return json.loads(message)

    def send(self, method: str, session: bool = False, **params: Any) -> dict[str, Any]:
        """Send one command and return its result (events that arrive meanwhile are kept)."""
        self._next_id += 1
        message: dict[str, Any] = {"id": self._next_id, "method": method, "params": params}
        if session:
            message["sessionId"] = self._session
        os.write(self._to_browser, json.dumps(message).encode() + b"\0")
        deadline = time.monotonic() + self.timeout
        while True:
            reply = self._read_message(deadline)
            if reply.get("id") == self._next_id:
                if "error" in reply:
                    raise RuntimeError(f"{method}: {reply['error']}")
                return reply.get("result", {})
            self.events.append(reply)

    def wait_for(self, method: str) -> dict[str, Any]:
        """Wait for the next event ``method`` (e.g. ``Page.loadEventFired``)."""
        deadline = time.monotonic() + self.timeout
        for event in self.events:
            if event.get("method") == method and not event.get("_seen"):
                event["_seen"] = True
                return event
        while True:
            event = self._read_message(deadline)
            self.events.append(event)
            if event.get("method") == method:
                event["_seen"] = True
                return event

    def log_tail(self, lines: int = 20) -> str:
        """The last lines the browser wrote on stderr."""
        self._log.flush()
        self._log.seek(0)
        return "\n".join(self._log.read().decode(errors="replace").splitlines()[-lines:])

    # ------------------------------------------------------------------ pages
    def open(self, path: Path) -> None:
        """Load a local file and wait until it (with its images) has loaded."""
        self.events.clear()
        self.send("Page.navigate", session=True, url=Path(path).resolve().as_uri())
        self.wait_for("Page.loadEventFired")

    def evaluate(self, expression: str) -> Any:
        result = self.send("Runtime.evaluate", session=True, expression=expression, returnByValue=True)
        if "exceptionDetails" in result:
            raise RuntimeError(f"{expression}: {result['exceptionDetails']}")
        return result["result"].get("value")

    def problems(self) -> list[str]:
        """Console errors, uncaught exceptions and failed loads seen since the page was opened."""
        found = []
        for event in self.events:
            method, params = event.get("method"), event.get("params", {})
            if method == "Runtime.exceptionThrown":
                details = params["exceptionDetails"]
                found.append(f"exception: {details.get('exception', {}).get('description', details.get('text'))}")
            elif method == "Runtime.consoleAPICalled" and params.get("type") in ("error", "assert"):
                found.append(f"console.{params['type']}: {[a.get('value') for a in params.get('args', [])]}")
            elif method == "Log.entryAdded" and params["entry"].get("level") == "error":
                found.append(f"log: {params['entry'].get('text')} {params['entry'].get('url', '')}")
        return found

    def screenshot(self, full_page: bool = True) -> bytes:
        """The page as PNG bytes (the whole page, not only the window, by default)."""
        data = self.send("Page.captureScreenshot", session=True, format="png",
                         captureBeyondViewport=full_page)["data"]
        return base64.b64decode(data)

    def close(self) -> None:
        try:
            self.send("Browser.close")
        except (TimeoutError, ConnectionError, RuntimeError, OSError):
            pass
        try:
            self._process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self._process.kill()
            self._process.wait()
        for fd in (self._to_browser, self._from_browser):
            try:
                os.close(fd)
            except OSError:
                pass
        self._log.close()
        self._profile.cleanup()

    def __enter__(self) -> Browser:
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()
