"""A real ``tavli-serve`` for the tests that need one: a subprocess on a free loopback port."""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import time
from dataclasses import dataclass



@dataclass
class Served:
    """A running server: its process, its address and what it said before it listened."""

    process: subprocess.Popen
    url: str
    said: list[str]

    def stop(self, sig: int = signal.SIGTERM, timeout_s: float = 30.0) -> int:
        """Send ``sig``; the exit status (the process is killed if it outlives ``timeout_s``)."""
        if self.process.poll() is None:
            self.process.send_signal(sig)
        try:
            return self.process.wait(timeout_s)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()
            raise AssertionError(f"tavli-serve did not stop within {timeout_s} s of signal {sig}")
        finally:
            self.said.append(self.process.stderr.read())   # what it said until it stopped
            self.process.stderr.close()


def start_server(*args: str) -> Served:
    """Start ``tavli-serve --port 0 ARGS`` and wait until it says where it listens."""
    process = subprocess.Popen(
        [sys.executable, "-m", "tavli_fast.serve.main", "--port", "0", *args],
        stderr=subprocess.PIPE, text=True, env=os.environ.copy())
    deadline = time.monotonic() + 60
    said = []
    while time.monotonic() < deadline:
        line = process.stderr.readline()
        said.append(line)
        found = re.search(r"serving on (http://\S+/)", line)
        if found:
            return Served(process, found.group(1), said)
        if not line and process.poll() is not None:
            break
    process.kill()
    process.wait()
    process.stderr.close()
    raise AssertionError(f"tavli-serve did not start: {''.join(said)}")
