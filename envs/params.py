"""Env parameters that are a constant or a (low, high) range drawn once per episode.

Pure Python: no simulator, no gymnasium. Draws come only from the generator passed in
(the env's ``np_random`` after ``reset(seed=...)``), in a fixed order, so equal seeds give
equal episodes.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

Param = float | tuple[float, float]


def check_param(
    name: str,
    value,
    *,
    positive: bool = False,
    nonzero: bool = False,
    lo: float | None = None,
    hi: float | None = None,
) -> Param:
    """``value`` as a float or a (low, high) tuple of floats; raises ValueError naming ``name``.

    ``positive``: every value must be > 0; ``nonzero``: a range must not contain 0 (both
    ends of the same sign); ``lo``/``hi``: open bounds every value must stay within.
    """
    if isinstance(value, Sequence) and not isinstance(value, str):
        if len(value) != 2:
            raise ValueError(f"{name}: a range must be (low, high), got {value!r}")
        a, b = (_number(f"{name}[{k}]", v) for k, v in enumerate(value))
        if a > b:
            raise ValueError(f"{name}: range low must be <= high, got ({a}, {b})")
        for k, v in enumerate((a, b)):
            _bounded(f"{name}[{k}]", v, positive, lo, hi)
        if nonzero and a <= 0.0 <= b:
            raise ValueError(f"{name}: a range must not include 0, got ({a}, {b})")
        return (a, b)
    v = _number(name, value)
    _bounded(name, v, positive, lo, hi)
    return v


def _number(name: str, value) -> float:
    try:
        v = float(value)
    except (TypeError, ValueError):
        raise ValueError(
            f"{name}: must be a number or a (low, high) range, got {value!r}"
        ) from None
    if math.isnan(v):
        raise ValueError(f"{name}: must be a number, got nan")
    return v


def _bounded(name: str, v: float, positive: bool, lo: float | None, hi: float | None) -> None:
    if positive and not (v > 0 and math.isfinite(v)):
        raise ValueError(f"{name}: must be > 0 and finite, got {v!r}")
    if lo is not None and not v > lo:
        raise ValueError(f"{name}: must be > {lo}, got {v!r}")
    if hi is not None and not v < hi:
        raise ValueError(f"{name}: must be < {hi}, got {v!r}")


def is_range(value: Param | None) -> bool:
    return isinstance(value, tuple)


def draw(value: Param, rng) -> float:
    """A constant as is; a range uniformly from ``rng`` (one draw per range)."""
    if isinstance(value, tuple):
        return float(rng.uniform(value[0], value[1]))
    return float(value)


def extremes(value: Param) -> tuple[float, float]:
    """(low, high) of a range, or (v, v) of a constant."""
    if isinstance(value, tuple):
        return value
    return (value, value)


def span(value: Param, n: int) -> list[float]:
    """``n`` evenly spaced values across a range (the constant alone for a constant)."""
    if not isinstance(value, tuple):
        return [float(value)]
    a, b = value
    return [a + (b - a) * k / (n - 1) for k in range(n)] if n > 1 else [a]
