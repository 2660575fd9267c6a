"""Command-line argument types shared by the experiment scripts."""

from __future__ import annotations

import argparse


def subset(choices, what: str):
    """An argparse ``type``: a comma-separated, non-empty subset of ``choices`` as a tuple
    (blanks dropped); anything else is an ArgumentTypeError that names the ``what`` given
    and the choices."""
    choices = tuple(choices)

    def parse(text: str) -> tuple[str, ...]:
        out = tuple(c.strip() for c in text.split(",") if c.strip())
        bad = [c for c in out if c not in choices]
        if bad or not out:
            raise argparse.ArgumentTypeError(
                f"unknown {what}(s) {', '.join(bad) or '(none given)'}; "
                f"choose from {', '.join(choices)}"
            )
        return out

    return parse
