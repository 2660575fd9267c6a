"""Walk a custom walker in PyBullet for a few seconds, print a summary and plot the run.

    python examples/walk_and_plot.py --seconds 5 --out walk_and_plot_out

Loads examples/my_walker.json (or --catalog FILE), runs one physics episode with
gaitsim.sim.run.simulate, and writes two PNG files into --out: the body's forward position
against time next to the commanded reference, and a gait diagram (planned stance against
measured foot contact per leg).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np

import gaitsim
from gaitsim.plots import gait_diagram
from gaitsim.sim.run import simulate

HERE = Path(__file__).resolve().parent


def parse_args(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument(
        "--catalog",
        default=str(HERE / "my_walker.json"),
        metavar="FILE",
        help="catalog JSON (default: examples/my_walker.json)",
    )
    ap.add_argument("--walker", help="walker name in the catalog (default: its first walker)")
    ap.add_argument("--seconds", type=float, default=5.0, help="simulated seconds (default 5)")
    ap.add_argument(
        "--out",
        default="walk_and_plot_out",
        metavar="DIR",
        help="folder for the plots (default walk_and_plot_out)",
    )
    args = ap.parse_args(argv)
    if not (np.isfinite(args.seconds) and args.seconds > 0):
        ap.error(f"--seconds must be a positive number, got {args.seconds}")
    return args


def plot_body_x(t, body_x, ref_x, path: Path, title: str) -> Path:
    """Body and reference forward position against time."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(6.4, 3.6))
    ax.plot(t, ref_x, "--", color="0.5", label="commanded reference")
    ax.plot(t, body_x, color="#08519c", label="body (measured)")
    ax.set_xlabel("time (s)")
    ax.set_ylabel("body x (m)")
    ax.set_title(title)
    ax.grid(alpha=0.3)
    ax.legend()
    fig.savefig(path, dpi=110, bbox_inches="tight")
    plt.close(fig)
    return path


def main(argv=None) -> int:
    args = parse_args(argv)
    try:
        catalog = gaitsim.load_catalog(args.catalog)
    except gaitsim.CatalogError as exc:
        print(f"walk_and_plot: {exc}", file=sys.stderr)
        return 2
    name = args.walker or next(iter(catalog))
    if name not in catalog:
        known = ", ".join(catalog)
        print(f"walk_and_plot: no walker {name!r}; choose from {known}", file=sys.stderr)
        return 2
    entry = catalog[name]

    result = simulate(entry, seconds=args.seconds)
    s, rec = result.summary, result.record

    print(f"walker               {name} ({entry.gait.n_legs} legs)")
    print(f"simulated            {s['simulated_s']:.2f} s")
    print(f"distance             {s['distance_m']:.3f} m")
    print(
        f"speed                {s['speed_m_s']:.3f} m/s "
        f"(commanded {s['commanded_speed_m_s']:.3f}, ratio {s['speed_ratio']:.2f})"
    )
    print(f"slip                 {s['slip_mm_per_stance']:.2f} mm per stance")
    print(f"max reach shortfall  {s['max_shortfall_m'] * 1000:.1f} mm")
    fell = f"yes, at {s['time_to_fall_s']:.2f} s" if s["fell"] else "no"
    print(f"fell                 {fell}")

    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    body = plot_body_x(
        rec["t"], rec["base_pos"][:, 0], rec["ref_pos"][:, 0], out / f"{name}_body_x.png", name
    )
    gait = gait_diagram(
        list(entry.gait.leg_names),
        rec["t"],
        rec["planned_stance"],
        rec["contacts"],
        out / f"{name}_gait.png",
        name,
        cycles_s=2 * entry.gait.cycle / entry.gait.clip_speed,  # the first two cycles
    )
    print(f"plots                {body}, {gait}")
    return 1 if s["fell"] else 0


if __name__ == "__main__":
    sys.exit(main())
