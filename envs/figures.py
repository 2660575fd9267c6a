"""The yaw-balance and upper-body figures of an episode so far, for the env's ``info``.

``simulate`` measures them over a whole run (``gaitsim.sim.upper_metrics``); the env keeps
the few per-step values they need and works them out with the same function once per gait
cycle (and on a fall, the episode's last step), so a step costs a few appends. A figure
is reported only while it has a value (plain floats, so that equal episodes give equal
infos: no nan): none before two gait cycles have been walked (the figures skip the
first), and never one that does not apply (a path that does not turn: gaze_lead_s; a
kinematic body: the yaw moments). Keys: yaw_moment_rms_nm, yaw_moment_com_rms_nm,
hip_twist_deg and base_bob_mm for every walker, shoulder_twist_deg and shoulder_hip_ratio
for walkers with a torso, head_bob_mm, head_pitch_deg_rms and gaze_lead_s for walkers with
a head.
"""

from __future__ import annotations

import math

import numpy as np

from gaitsim.sim.upper_metrics import upper_body_figures

BASE_KEYS = ("yaw_moment_rms_nm", "yaw_moment_com_rms_nm", "hip_twist_deg", "base_bob_mm")
TORSO_KEYS = ("shoulder_twist_deg", "shoulder_hip_ratio")
HEAD_KEYS = ("head_bob_mm", "head_pitch_deg_rms", "gaze_lead_s")


def figure_keys(torso: bool, head: bool) -> tuple[str, ...]:
    """The info keys of a walker with (or without) a torso and a head."""
    return BASE_KEYS + (TORSO_KEYS if torso else ()) + (HEAD_KEYS if head else ())


class UpperTally:
    """Per-step records of one episode and its latest figures (``values``).

    ``cycle_steps``: control steps per gait cycle; ``mass``: the robot's (kg);
    ``kinematic``: a placed body (no free moment); ``momentum``: turns a series of the
    readings' ``momentum_z`` into values (the robot's ``momentum_series``; default: they
    are values already)."""

    def __init__(self, *, mass: float, cycle_steps: float, torso: bool, head: bool,
                 kinematic: bool = False, momentum=None):  # fmt: skip
        self.mass, self.cycle_steps, self.kinematic = float(mass), float(cycle_steps), kinematic
        self._momentum = momentum
        self.every = max(1, round(cycle_steps))
        self.torso, self.head = torso, head
        self.keys = figure_keys(torso, head)
        self.values: dict[str, float] = {}  # the figures that have a value
        names = ["t", "ref_heading", "base_pos", "base_quat", "com", "feet", "foot_forces",
                 "momentum_z"]  # fmt: skip
        names += ["chest_quat"] if torso else []
        names += ["head", "head_quat"] if head else []
        self._rows: dict[str, list] = {k: [] for k in names}  # steps not yet in _arrays
        self._arrays: dict[str, np.ndarray] = {}  # the earlier steps, as arrays
        self._buffers: dict[str, np.ndarray] = {}  # their storage (``_record``)
        self._n = 0

    def __len__(self) -> int:
        return self._n

    def add(self, t: float, ref_heading: float, sensed) -> None:
        """Record one control step: its time, the reference heading and the reading."""
        r = self._rows
        self._n += 1
        r["t"].append(t)
        r["ref_heading"].append(ref_heading)
        r["base_pos"].append(sensed.position)
        r["base_quat"].append(sensed.quaternion)
        r["com"].append(sensed.com)
        r["feet"].append(sensed.feet)
        r["foot_forces"].append(sensed.foot_forces)
        r["momentum_z"].append(sensed.momentum_z)
        if self.torso:
            r["chest_quat"].append(sensed.chest_quaternion)
        if self.head:
            r["head"].append(sensed.head)
            r["head_quat"].append(sensed.head_quaternion)

    def update(self, final: bool = False) -> dict[str, float]:
        """The figures, worked out again at each whole gait cycle and when ``final``;
        none until two cycles have been recorded."""
        n = len(self)
        if n >= 2 * self.every and (final or n % self.every == 0):
            self.values = self._figures()
        return self.values

    def _record(self) -> dict[str, np.ndarray]:
        """Every step so far as arrays (the new steps converted once, then kept): views
        of buffers that double when full, so a pass copies only its new steps."""
        for k, rows in self._rows.items():
            if not rows:
                continue
            if k == "momentum_z" and self._momentum is not None:
                new = self._momentum(rows)
            else:
                new = np.asarray(rows, dtype=float)
            buf = self._buffers.get(k)
            n0 = 0 if buf is None else len(self._arrays[k])
            n1 = n0 + len(new)
            if buf is None or n1 > len(buf):
                grown = np.empty((max(n1, 2 * n0), *new.shape[1:]))
                if buf is not None:
                    grown[:n0] = buf[:n0]
                self._buffers[k] = buf = grown
            buf[n0:n1] = new
            self._arrays[k] = buf[:n1]
            rows.clear()
        return dict(self._arrays)

    def _figures(self) -> dict[str, float]:
        rec = self._record()
        if rec["foot_forces"].shape != rec["feet"].shape[:2]:  # no force readings
            del rec["momentum_z"]
        out = upper_body_figures(rec, mass=self.mass, cycle_steps=self.cycle_steps,
                                 end=len(self), kinematic=self.kinematic)  # fmt: skip
        values = {k: out.get(k) for k in self.keys}
        return {k: float(v) for k, v in values.items() if v is not None and math.isfinite(v)}
