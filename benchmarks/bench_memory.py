"""A very long run's memory and its interrupt: ``gaitsim walk fox --seconds 36000``.

Starts the command, samples its peak resident memory (VmHWM from /proc) for a while, sends
SIGINT and measures how long it takes to exit. The goals: memory does not depend on the
requested duration (under 1 GB in the first 20 s of a 10-hour run), and Ctrl-C is honoured
within a second.

    python benchmarks/bench_memory.py [--watch 20] [--seconds 36000] [--json]
"""

from __future__ import annotations

import argparse
import json
import os
import signal
import subprocess
import sys
import time

GOAL_MB = 1024.0
GOAL_INTERRUPT_S = 1.0


def peak_rss_mb(pid: int) -> float:
    """The process's peak resident set size (MB), from /proc/<pid>/status."""
    with open(f"/proc/{pid}/status") as fh:
        for line in fh:
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) / 1024.0
    return float("nan")


def measure(seconds: float, watch: float) -> dict:
    cmd = [sys.executable, "-m", "gaitsim.cli", "walk", "fox", "--seconds", f"{seconds:g}", "-q"]
    proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    peak, t0 = 0.0, time.perf_counter()
    try:
        while time.perf_counter() - t0 < watch and proc.poll() is None:
            peak = max(peak, peak_rss_mb(proc.pid))
            time.sleep(0.2)
        if proc.poll() is not None:
            raise RuntimeError(f"the run ended early: {proc.stderr.read()[-500:]}")
        peak = max(peak, peak_rss_mb(proc.pid))
        t1 = time.perf_counter()
        proc.send_signal(signal.SIGINT)
        proc.wait(timeout=30)
        interrupt = time.perf_counter() - t1
    finally:
        if proc.poll() is None:
            proc.kill()
    return {
        "command": " ".join(cmd[1:]),
        "watched_s": watch,
        "peak_rss_mb": peak,
        "goal_mb": GOAL_MB,
        "interrupt_exit_s": interrupt,
        "goal_interrupt_s": GOAL_INTERRUPT_S,
        "exit_code": proc.returncode,
    }


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seconds", type=float, default=36000.0, help="requested run length")
    ap.add_argument("--watch", type=float, default=20.0, help="wall seconds to watch it run")
    ap.add_argument("--json", action="store_true", help="print one JSON object")
    args = ap.parse_args(argv)
    if not os.path.exists("/proc/self/status"):
        ap.error("needs Linux /proc to read peak memory")
    r = measure(args.seconds, args.watch)
    if args.json:
        print(json.dumps(r, indent=1))
    else:
        ok = "meets" if r["peak_rss_mb"] < GOAL_MB else "ABOVE"
        fast = "meets" if r["interrupt_exit_s"] < GOAL_INTERRUPT_S else "ABOVE"
        print(f"{r['command']}: peak memory {r['peak_rss_mb']:.0f} MB in {args.watch:g} s "
              f"(goal < {GOAL_MB:g} MB: {ok}); SIGINT to exit {r['interrupt_exit_s']:.2f} s "
              f"(goal < {GOAL_INTERRUPT_S:g} s: {fast}); exit code {r['exit_code']}")  # fmt: skip
    return 0


if __name__ == "__main__":
    sys.exit(main())
