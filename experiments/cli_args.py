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


def config_setting(text: str) -> tuple[str, object]:
    """``FIELD=VALUE``: one ControlConfig field and its value (a number, true/false, or
    text), checked against the dataclass; anything else is an ArgumentTypeError naming
    the fields."""
    import dataclasses

    from gaitsim.sim.controller import ControlConfig

    names = sorted(f.name for f in dataclasses.fields(ControlConfig) if f.name != "assist")
    field_name, sep, raw = text.partition("=")
    field_name, raw = field_name.strip(), raw.strip()
    if not sep or field_name not in names or not raw:
        raise argparse.ArgumentTypeError(
            f"expected FIELD=VALUE with FIELD one of {', '.join(names)}; got {text!r}"
        )
    value: object = raw
    if raw.lower() in ("true", "false"):
        value = raw.lower() == "true"
    elif raw.lower() == "none":
        value = None
    else:
        try:
            value = float(raw)
        except ValueError:
            pass
    try:
        ControlConfig(**{field_name: value})
    except (TypeError, ValueError) as exc:
        raise argparse.ArgumentTypeError(f"{text}: {exc}") from None
    return field_name, value
