"""Plots of sweep results and gait diagrams (matplotlib, Agg backend, PNG files)."""

from __future__ import annotations

import io
import math
from pathlib import Path

import numpy as np

from .catalog import atomic_write_bytes

PLOT_METRICS = {
    "speed_ratio": "speed ratio (actual / commanded)",
    "slip_mm_per_stance": "stance slip (mm per stance)",
    "max_shortfall_m": "max reach shortfall (m)",
    "min_support_margin_m": "min support margin (m)",
    "fell": "share of episodes that fell",
    "cost_of_transport": "cost of transport",
}


def _pyplot():
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt


def _save(fig, path: Path) -> Path:
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=110, bbox_inches="tight")
    atomic_write_bytes(path, buf.getvalue())
    return path


def _axis_values(values) -> tuple[list[float], list[str]]:
    """Numeric x positions for sweep values (strings such as 'straight' get their own)."""
    xs, labels = [], []
    for k, v in enumerate(values):
        if isinstance(v, str):
            xs.append(float(k))
        else:
            xs.append(float(k) if any(isinstance(u, str) for u in values) else float(v))
        labels.append(str(v))
    return xs, labels


def sweep_plots(rows: list[dict], out: Path, sweep_name: str, parameter: str) -> list[Path]:
    """One PNG per metric: mean over seeds per walker against the swept value, with the
    min-max spread across seeds as a band."""
    plt = _pyplot()
    values = list(dict.fromkeys(r["value"] for r in rows))
    xs, labels = _axis_values(values)
    walkers = list(dict.fromkeys(r["walker"] for r in rows))
    paths = []
    for metric, label in PLOT_METRICS.items():
        fig, ax = plt.subplots(figsize=(6.4, 4.0))
        for w in walkers:
            mean, lo, hi = [], [], []
            for v in values:
                ys = [r[metric] for r in rows if r["walker"] == w and r["value"] == v]
                ys = [float(y) for y in ys if y is not None and math.isfinite(float(y))]
                mean.append(np.mean(ys) if ys else np.nan)
                lo.append(np.min(ys) if ys else np.nan)
                hi.append(np.max(ys) if ys else np.nan)
            line = ax.plot(xs, mean, marker="o", label=w)[0]
            ax.fill_between(xs, lo, hi, color=line.get_color(), alpha=0.15)
        ax.set_xlabel(parameter)
        ax.set_ylabel(label)
        ax.set_title(f"{sweep_name}: {label}")
        if any(isinstance(v, str) for v in values):
            ax.set_xticks(xs, labels)
        ax.grid(alpha=0.3)
        ax.legend(fontsize=7, ncol=2)
        paths.append(_save(fig, out / f"{sweep_name}_{metric}.png"))
        plt.close(fig)
    return paths


def gait_diagram(
    leg_names, t, planned, measured, out: Path, title: str, cycles_s: float | None = None
) -> Path:
    """Footfall pattern per leg: planned stance (light bars) and measured contact (dark)."""
    plt = _pyplot()
    t = np.asarray(t)
    planned = np.asarray(planned, bool)
    measured = np.asarray(measured, bool)
    if cycles_s is not None:
        keep = t - t[0] <= cycles_s
        t, planned, measured = t[keep], planned[keep], measured[keep]
    dt = float(np.median(np.diff(t))) if len(t) > 1 else 0.01
    fig, ax = plt.subplots(figsize=(7.0, 0.45 * len(leg_names) + 1.2))
    for i in range(len(leg_names)):
        for row, mask, color, h in (
            (i + 0.15, planned[:, i], "#9ecae1", 0.32),
            (i - 0.2, measured[:, i], "#08519c", 0.32),
        ):
            runs = _runs(mask)
            ax.broken_barh([(t[a], (b - a + 1) * dt) for a, b in runs], (row, h), color=color)
    ax.set_yticks(range(len(leg_names)), leg_names)
    ax.set_xlabel("time (s)")
    ax.set_title(f"{title}  (light: planned stance, dark: measured contact)")
    ax.set_ylim(-0.5, len(leg_names) - 0.3)
    path = _save(fig, out)
    plt.close(fig)
    return path


def _runs(mask) -> list[tuple[int, int]]:
    m = np.asarray(mask, np.int8)
    starts = np.flatnonzero(np.diff(np.r_[0, m]) == 1)
    ends = np.flatnonzero(np.diff(np.r_[m, 0]) == -1)
    return list(zip(starts.tolist(), ends.tolist(), strict=True))
