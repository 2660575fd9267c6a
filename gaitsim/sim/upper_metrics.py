"""Upper-body and yaw-balance figures of a run (pure numpy over the recorded steps).

- ``yaw_moment_rms_nm``: RMS of the vertical free moment the ground exerts on the feet:
  the ground's vertical moment about the centre of pressure. The ground is the only
  source of a vertical moment on the robot (gravity and the body assist act vertically or
  about horizontal axes), so it is the rate of the robot's angular momentum about the
  vertical through its centre of mass, less the moment of the horizontal ground force
  (mass x horizontal acceleration of the centre of mass) about the centre of pressure
  (the normal-force-weighted foot contacts). Summed this way it includes the torsional
  friction of each contact, which PyBullet's contact points leave out. The rates are taken
  by central differences and low-passed at LOWPASS_HZ (impacts aside, the gait's moments
  live well below it).
- ``yaw_moment_com_rms_nm``: RMS of the ground's vertical moment about the centre of mass
  (the rate of that angular momentum alone): what the arms' and the chest's counter-swing
  act on, without the lever of the horizontal ground force about the centre of pressure
  (which on an assisted biped whose centre of mass the assist holds ahead of its feet can
  outweigh it).
- ``hip_twist_deg`` / ``shoulder_twist_deg``: the amplitude of the body's (hips') and the
  chest's (shoulders') yaw about the reference heading (sqrt(2) x the RMS of the yaw less
  its one-cycle moving mean: a sinusoid's amplitude); ``shoulder_hip_ratio``: the
  least-squares slope of the shoulders' twist on the hips' (the seed's rule: -1.2).
- ``head_bob_mm`` / ``base_bob_mm``: the median over gait cycles of the peak-to-peak
  vertical motion of the head's centre (of the body frame), a straight-line trend (a
  slope) removed; ``head_pitch_deg_rms``: RMS of the head's pitch about its mean.
- ``gaze_lead_s``: how far ahead along the path the head looks while turning: the mean yaw
  of the head less the path's heading, over the path's mean turning rate (None on a path
  that does not turn; a head fixed on a body that lags the path scores below 0).

Every figure uses the steps after the first gait cycle, up to a fall.
"""

from __future__ import annotations

import math

import numpy as np

LOWPASS_HZ = 10.0
MIN_TURN_RATE = 0.05  # rad/s: slower mean turning gives no gaze lead


def _yaw(q: np.ndarray) -> np.ndarray:
    x, y, z, w = q[..., 0], q[..., 1], q[..., 2], q[..., 3]
    return np.arctan2(2 * (w * z + x * y), 1 - 2 * (y * y + z * z))


def _pitch(q: np.ndarray) -> np.ndarray:
    """+ nose down (a rotation about the body's y axis), as the controller's."""
    x, y, z, w = q[..., 0], q[..., 1], q[..., 2], q[..., 3]
    return np.arcsin(np.clip(2 * (w * y - z * x), -1.0, 1.0))


def _wrap(a):
    return (a + np.pi) % (2 * np.pi) - np.pi


def _smooth(x: np.ndarray, n: int) -> np.ndarray:
    """Moving mean over ``n`` samples along axis 0 (edges: the shorter windows)."""
    n = min(n, len(x))
    if n <= 1:
        return x
    k = np.ones(n) / n
    num = np.convolve(x, k, mode="same")
    den = np.convolve(np.ones(len(x)), k, mode="same")
    return num / den


def _lowpass_n(t) -> int:
    dt = float(np.median(np.diff(t))) if len(t) > 1 else 1.0
    return max(1, round(1.0 / (LOWPASS_HZ * dt)))


def momentum_rate(t, momentum_z) -> np.ndarray:
    """The rate of the angular momentum about the vertical through the centre of mass
    (N m), low-passed at LOWPASS_HZ: the ground's vertical moment about the centre of mass."""
    t = np.asarray(t, dtype=float)
    if len(t) < 2:
        return np.zeros(len(t))
    return np.gradient(_smooth(np.asarray(momentum_z, dtype=float), _lowpass_n(t)), t)


def free_moment(t, momentum_z, com, feet, foot_forces, mass: float) -> np.ndarray:
    """The ground's vertical moment about the centre of pressure at each step (N m); nan
    where no foot carries load. Shapes: t (T,), momentum_z (T,), com (T, 3), feet (T, L, 3),
    foot_forces (T, L)."""
    t = np.asarray(t, dtype=float)
    com = np.asarray(com, dtype=float)
    rate, acc = _rate_and_acceleration(t, momentum_z, com, _lowpass_n(t))
    return _cop_moment(rate, acc, com, feet, foot_forces, mass)


def _rate_and_acceleration(t, momentum_z, com, n: int):
    """``momentum_rate`` and the centre of mass's low-passed horizontal acceleration (T, 2),
    the smoothed series differentiated side by side: one np.gradient along the steps works
    out each column with the arithmetic it would on its own (the same numbers, a third of
    the calls)."""
    cols = [_smooth(com[:, 0], n), _smooth(com[:, 1], n),
            _smooth(np.asarray(momentum_z, dtype=float), n)]  # fmt: skip
    d = np.gradient(np.stack(cols, 1), t, axis=0)
    return d[:, 2], np.gradient(d[:, :2], t, axis=0)


def _cop_moment(dh, acc, com, feet, foot_forces, mass: float) -> np.ndarray:
    """``free_moment`` from the momentum rate ``dh`` and the acceleration ``acc``."""
    f = np.asarray(foot_forces, dtype=float)
    total = f.sum(axis=1)
    safe = np.where(total > 0, total, 1.0)
    cop = np.einsum("tl,tlk->tk", f, np.asarray(feet, dtype=float)[..., :2]) / safe[:, None]
    r = cop - com[:, :2]
    moment = dh - mass * (r[:, 0] * acc[:, 1] - r[:, 1] * acc[:, 0])
    return np.where(total > 0, moment, np.nan)


def twist_amplitude(yaw, ref_heading, cycle_steps: float) -> np.ndarray:
    """The yaw about the reference heading less its one-cycle moving mean (rad)."""
    x = np.unwrap(_wrap(np.asarray(yaw) - np.asarray(ref_heading)))
    return x - _smooth(x, max(1, round(cycle_steps)))


def _amp_deg(x: np.ndarray) -> float | None:
    return float(np.degrees(math.sqrt(2.0) * np.sqrt(np.mean(x * x)))) if x.size else None


def _mm(metres: float) -> float | None:
    """Metres as millimetres; None for a run shorter than a gait cycle (nan)."""
    return None if not math.isfinite(metres) else 1000.0 * metres


def cycle_peak_to_peak(z, cycle_steps: float) -> float:
    """Median over whole gait cycles of the peak-to-peak of ``z`` less its straight-line
    trend (the unit of ``z``)."""
    z = np.asarray(z, dtype=float)
    n = max(2, round(cycle_steps))
    if len(z) < n:
        return math.nan
    k = np.arange(len(z))
    z = z - np.polyval(np.polyfit(k, z, 1), k)
    whole = len(z) // n * n
    spans = z[:whole].reshape(-1, n)
    return float(np.median(spans.max(axis=1) - spans.min(axis=1)))


def upper_body_figures(rec: dict, *, mass: float, cycle_steps: float, end: int,
                       kinematic: bool = False) -> dict:  # fmt: skip
    """The module docstring's figures from a run's record (``end``: the steps to use,
    up to a fall). Figures of parts the walker lacks are None; a kinematic body gives no
    free moment (its base is placed, not pushed by the ground)."""
    ok = slice(min(round(cycle_steps), max(end - 1, 0)), end)
    out: dict = {"yaw_moment_rms_nm": None, "yaw_moment_com_rms_nm": None}
    if not kinematic and "momentum_z" in rec and len(rec["t"]) > 1:
        t, com = np.asarray(rec["t"], dtype=float), np.asarray(rec["com"], dtype=float)
        # (both figures read the rate)
        rate, acc = _rate_and_acceleration(t, rec["momentum_z"], com, _lowpass_n(t))
        m = _cop_moment(rate, acc, com, rec["feet"], rec["foot_forces"], mass)[ok]
        m = m[np.isfinite(m)]
        out["yaw_moment_rms_nm"] = float(np.sqrt(np.mean(m * m))) if m.size else None
        c = rate[ok]
        c = c[np.isfinite(c)]
        out["yaw_moment_com_rms_nm"] = float(np.sqrt(np.mean(c * c))) if c.size else None
    ref = rec["ref_heading"]
    hips = twist_amplitude(_yaw(rec["base_quat"]), ref, cycle_steps)[ok]
    out["hip_twist_deg"] = _amp_deg(hips)
    out["shoulder_twist_deg"] = out["shoulder_hip_ratio"] = None
    if "chest_quat" in rec:
        chest = twist_amplitude(_yaw(rec["chest_quat"]), ref, cycle_steps)[ok]
        out["shoulder_twist_deg"] = _amp_deg(chest)
        den = float(np.dot(hips, hips))
        out["shoulder_hip_ratio"] = float(np.dot(hips, chest) / den) if den > 0 else None
    out["base_bob_mm"] = _mm(cycle_peak_to_peak(rec["base_pos"][ok, 2], cycle_steps))
    out.update(head_bob_mm=None, head_pitch_deg_rms=None, gaze_lead_s=None)
    if "head" in rec:
        out["head_bob_mm"] = _mm(cycle_peak_to_peak(rec["head"][ok, 2], cycle_steps))
        pitch = _pitch(rec["head_quat"][ok])
        out["head_pitch_deg_rms"] = float(np.degrees(np.std(pitch))) if pitch.size else None
        out["gaze_lead_s"] = gaze_lead(rec["t"][ok], rec["head_quat"][ok], ref[ok])
    return out


def gaze_lead(t, head_quat, heading) -> float | None:
    """Mean (head yaw - path heading) over the path's mean turning rate (s); None when the
    path turns slower than MIN_TURN_RATE on average."""
    if len(t) < 2:
        return None
    path = np.unwrap(np.asarray(heading, dtype=float))
    rate = (path[-1] - path[0]) / (t[-1] - t[0])
    if abs(rate) < MIN_TURN_RATE:
        return None
    ahead = _wrap(_yaw(np.asarray(head_quat)) - np.asarray(heading, dtype=float))
    return float(np.mean(ahead) / rate)
