"""The ``gaitsim`` command: catalog, validate, clip, urdf (and the physics commands).

Exit codes: 0 success, 1 a check failed (e.g. a walker failed the walk test), 2 bad input
(the message says what was wrong and how to fix it).
"""

from __future__ import annotations

import argparse
import io
import json
import sys
from pathlib import Path

import numpy as np

from . import __version__
from .catalog import (
    Catalog,
    CatalogError,
    Entry,
    atomic_write_bytes,
    atomic_write_text,
    gait_pattern,
    load_catalog,
)


class UsageError(Exception):
    """Bad command-line input; the message says how to fix it."""


def _progress(iterable, desc: str, total: int | None = None, quiet: bool = False):
    from tqdm import tqdm

    return tqdm(iterable, desc=desc, total=total, disable=quiet, file=sys.stderr, leave=False)


def _catalog(args) -> Catalog:
    return load_catalog(args.catalog)


def _walkers(catalog: Catalog, names: list[str] | None) -> list[Entry]:
    if not names:
        return list(catalog.values())
    missing = [n for n in names if n not in catalog]
    if missing:
        raise UsageError(
            f"unknown walker(s) {', '.join(missing)}; choose from {', '.join(catalog)}"
        )
    return [catalog[n] for n in names]


def _table(rows: list[list[str]], header: list[str]) -> str:
    widths = [max(len(str(r[i])) for r in [header, *rows]) for i in range(len(header))]
    fmt = "  ".join(f"{{:<{w}}}" for w in widths)
    lines = [fmt.format(*header), fmt.format(*("-" * w for w in widths))]
    lines += [fmt.format(*map(str, r)) for r in rows]
    return "\n".join(lines)


# ---------------------------------------------------------------------------- commands


def cmd_catalog(args) -> int:
    cat = _catalog(args)
    rows = []
    out = []
    for e in cat.values():
        g = e.gait
        info = {
            "walker": e.name,
            "legs": g.n_legs,
            "pattern": gait_pattern(g),
            "duty": g.duty,
            "stride_m": g.stride,
            "cycle_m": g.cycle,
            "speed_m_s": g.clip_speed,
            "knees": sorted({leg.knee for leg in g.legs}),
        }
        out.append(info)
        rows.append(
            [
                e.name,
                g.n_legs,
                info["pattern"],
                f"{g.duty:.2f}",
                f"{g.stride:.3f}",
                f"{g.cycle:.3f}",
                f"{g.clip_speed:.3f}",
                ",".join(info["knees"]),
            ]
        )
    if args.json:
        print(json.dumps(out, indent=2))
    else:
        header = ["walker", "legs", "pattern", "duty", "stride m", "cycle m", "speed m/s", "knees"]
        print(_table(rows, header))
    return 0


def cmd_validate(args) -> int:
    from .catalog import save_catalog
    from .validate import SLIDE_LIMIT_MM, VARIANTS, validate_entry

    if args.write and not args.catalog:
        raise UsageError("--write needs --catalog FILE: name the catalog file to update")
    cat = _catalog(args)
    results = [
        validate_entry(e, mode=args.mode, speed_scale=args.speed_scale)
        for e in _progress(cat.values(), "walk test", len(cat), args.quiet)
    ]
    if args.json:
        print(json.dumps(results, indent=2))
    else:
        names = [v.name for v in VARIANTS]
        header = ["walker", *[f"{n} mm" for n in names], "flat shortfall m", "result"]
        rows = [
            [
                r["walker"],
                *[f"{r['foot_slide_mm'][n]:.4f}" for n in names],
                f"{r['max_shortfall_m']['straight']:.4f}",
                "ok" if r["pass"] else "FAIL",
            ]
            for r in results
        ]
        print(_table(rows, header))
        print(
            f"\n{args.mode}-mode stance-foot slide between samples (2 cycles, 120 samples per "
            f"cycle); a walker fails above {SLIDE_LIMIT_MM} mm or when a foot is out of reach "
            "on flat ground"
        )
    if args.write:
        entries = []
        for e, r in zip(cat.values(), results, strict=True):
            wt = dict(e.walk_test or {})
            wt["foot_slide_mm"] = round(r["foot_slide_mm"]["straight"], 6)
            entries.append(Entry(e.name, e.gait, wt, e.extra))
        # a bare gait object has no place for walk_test, so it is saved as a catalog
        save_catalog(Catalog(entries), args.catalog)
        if not args.quiet:
            print(f"wrote walk_test.foot_slide_mm to {args.catalog}", file=sys.stderr)
    return 0 if all(r["pass"] for r in results) else 1


def cmd_clip(args) -> int:
    from .validate import bake_clip, clip_to_csv, clip_to_json

    out = Path(args.out)
    suffix = out.suffix.lower()
    if suffix not in (".csv", ".json", ".npz"):
        raise UsageError(f"--out must end in .csv, .json or .npz, got {out.name!r}")
    if args.samples < 2:
        raise UsageError(f"--samples must be at least 2, got {args.samples}")
    cat = _catalog(args)
    entry = _walkers(cat, [args.walker])[0]
    clip = bake_clip(entry, samples=args.samples, speed_scale=args.speed_scale)
    if suffix == ".csv":
        atomic_write_text(out, clip_to_csv(clip))
    elif suffix == ".json":
        atomic_write_text(out, json.dumps(clip_to_json(clip), indent=1) + "\n")
    else:
        buf = io.BytesIO()
        np.savez(
            buf,
            phase=clip["phase"],
            distance_m=clip["distance_m"],
            time_s=clip["time_s"],
            body_z_m=clip["body_z_m"],
            joints_rad=clip["joints_rad"],
            joint_names=np.array(clip["joint_names"]),
            cycle_m=clip["cycle_m"],
            clip_speed=clip["clip_speed"],
        )
        atomic_write_bytes(out, buf.getvalue())
    if not args.quiet:
        print(
            f"wrote {args.samples} samples of {entry.name}'s cycle ({clip['cycle_m']:.4f} m, "
            f"{clip['duration_s']:.3f} s at {clip['clip_speed']} m/s) to {out}; "
            f"play at speed / clip_speed",
            file=sys.stderr,
        )
    return 0


def cmd_urdf(args) -> int:
    from .urdf import write_catalog

    cat = _catalog(args)
    paths = write_catalog(cat, args.out)
    if not args.quiet:
        for p in paths:
            print(p)
    return 0


# ---------------------------------------------------------------------------- parser


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="gaitsim",
        description="Procedural walk cycles (Gaitkit catalogs) as kinematics, URDF and physics.",
    )
    parser.add_argument("--version", action="version", version=f"gaitsim {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")

    def add(name, help_, func):
        p = sub.add_parser(name, help=help_, description=help_)
        p.set_defaults(func=func)
        p.add_argument("--catalog", metavar="FILE", help="catalog JSON (default: built-in)")
        p.add_argument("-q", "--quiet", action="store_true", help="no progress or notes")
        return p

    p = add("catalog", "list the walkers in a catalog", cmd_catalog)
    p.add_argument("--json", action="store_true", help="print JSON instead of a table")

    p = add("validate", "run the walk test (and its variants) on every walker", cmd_validate)
    p.add_argument("--json", action="store_true", help="one JSON object per walker")
    p.add_argument(
        "--write",
        action="store_true",
        help="store walk_test.foot_slide_mm (straight, flat) in --catalog FILE atomically",
    )
    p.add_argument("--speed-scale", type=float, default=1.0, help="stride scale (default 1)")
    p.add_argument(
        "--mode",
        choices=["planted", "body"],
        default="planted",
        help="planted: stance feet fixed in the world (default); body: the seed's body-frame "
        "targets, which slide on tight turns",
    )

    p = add("clip", "bake one flat gait cycle of joint angles for other engines", cmd_clip)
    p.add_argument("walker", help="walker name in the catalog")
    p.add_argument("--out", required=True, metavar="FILE", help="output .csv, .json or .npz")
    p.add_argument("--samples", type=int, default=120, help="samples per cycle (default 120)")
    p.add_argument("--speed-scale", type=float, default=1.0, help="stride scale (default 1)")

    p = add("urdf", "write one URDF per walker", cmd_urdf)
    p.add_argument("--out", default="urdf", metavar="DIR", help="output folder (default urdf)")
    return parser


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if not getattr(args, "func", None):
        parser.print_help()
        return 2
    try:
        return args.func(args)
    except (UsageError, CatalogError, ValueError, KeyError) as exc:
        msg = exc.args[0] if isinstance(exc, KeyError) and exc.args else exc
        print(f"gaitsim {args.command}: error: {msg}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        return 130


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
