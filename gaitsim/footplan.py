"""The per-step foot plan: which feet are down, where each planted foot is held and where
each swing foot is going, one control step at a time, in plain floats.

``Walker.feet_plan`` answers the same questions for any distance at once, as a pure
function; a controller needs them step by step and with a little state that the pure plan
cannot know: where a foot really touched down (physics puts it a few millimetres from the
plan), a foot-placement correction that changes while the foot is in the air, a steering
turn on top of the path. ``FootPlanner`` is that stateful twin. With no correction, no
steering and the planned touchdown points, its stance feet, contact timing and swing end
points are exactly the Walker's (a property test holds them equal).

Its swing differs from the Walker's in one documented way: the Walker moves a swing foot
with the seed's body-frame smoothstep (so in the world it leaves the ground at the body's
speed); the planner eases it along the straight world chord from the lift-off point to the
landing point with zero world velocity at both ends, lifted by the same arc, which is what
a position-controlled leg can follow without a jolt.
"""

from __future__ import annotations

import math

import numpy as np

from .gait import clearance_floor, smooth01, swing_height
from .path import pose_one
from .terrain import Flat, Rough
from .walker import Walker


class Steering:
    """A planar rigid turn applied on top of a path (yaw-rate modulation): ``x' = R x + t``.

    Held as (cos, sin, tx, ty); ``turn(angle, pivot)`` composes a rotation about a world
    point. Shared by whoever must agree on the steered path (the reference body, the feet).
    """

    __slots__ = ("c", "identity", "s", "tx", "ty")

    def __init__(self) -> None:
        self.c, self.s, self.tx, self.ty = 1.0, 0.0, 0.0, 0.0
        self.identity = True  # no turn at all (kept by ``turn``: read every lookup)

    @property
    def angle(self) -> float:
        return math.atan2(self.s, self.c)

    def xy(self, x: float, y: float) -> tuple[float, float]:
        return self.c * x - self.s * y + self.tx, self.s * x + self.c * y + self.ty

    def turn(self, angle: float, px: float, py: float) -> None:
        """Compose a turn by ``angle`` (rad) about the world point (px, py)."""
        cd, sd = math.cos(angle), math.sin(angle)
        c, s, tx, ty = self.c, self.s, self.tx, self.ty
        self.c, self.s = cd * c - sd * s, sd * c + cd * s
        self.tx = cd * (tx - px) - sd * (ty - py) + px
        self.ty = sd * (tx - px) + cd * (ty - py) + py
        self.identity = self.s == 0.0 and self.c == 1.0 and self.tx == 0.0 and self.ty == 0.0


class FootPlanner:
    """The foot plan of ``walker``, advanced one step at a time (see the module docstring).

    Public state, per leg: ``stance`` (bool), ``stance_progress`` (0 at touchdown .. 1 at
    lift-off, 0 in swing), ``swing_progress`` (0 .. 1, 0 in stance), ``plant`` (where a
    stance foot is held, world foot-centre point), ``lift_from`` and ``land_at`` (the ends
    of the current or last swing).
    """

    def __init__(self, walker: Walker, steering: Steering | None = None,
                 lift: float | None = None):  # fmt: skip
        self.walker = walker
        self.gait = walker.gait
        self.lift = self.gait.lift if lift is None else float(lift)  # the swing's peak (m)
        self.steering = steering if steering is not None else Steering()
        self.n_legs = self.gait.n_legs
        self.duty = self.gait.duty
        # the walker's cycle and stride (m), read several times a step: a Walker does not
        # change after it is built
        self._cycle, self._stride = walker.cycle, walker.stride
        self._phase = [leg.phase for leg in self.gait.legs]
        self._home_z = [leg.home[2] for leg in self.gait.legs]
        self._home_xy = [tuple(map(float, h[:2])) for h in walker.geometry.homes]
        self._uneven = isinstance(walker.terrain, Rough)
        self._flies = walker.flies  # swing feet rise with the body (``Walker.flight_rise``)
        t = walker.terrain
        self._flat_z = float(t.level) + walker.geometry.foot_radius if isinstance(t, Flat) else None
        self.reset(0.0)

    # ------------------------------------------------------------------ geometry of the plan
    @property
    def cycle(self) -> float:
        return self._cycle

    @property
    def stride(self) -> float:
        return self._stride

    @property
    def home_xy(self) -> list[tuple[float, float]]:
        """Each leg's home (x forward, y left) in the body frame (m)."""
        return self._home_xy

    def cycle_position(self, s: float, i: int) -> float:
        """Leg ``i``'s place in its cycle at distance ``s``, in [0, 1)."""
        x = s / self._cycle + self._phase[i]
        t = x - math.floor(x)
        return 0.0 if t >= 1.0 else t

    def mid_before(self, s: float, t: float) -> float:
        """Mid-stance distance of the stance that ended before the swing at (s, t)."""
        return s - (t - self.duty) * self._cycle - self._stride / 2

    def mid_after(self, s: float, t: float) -> float:
        """Mid-stance distance of the stance after the swing at (s, t)."""
        cycle = self._cycle
        return s - (t - self.duty) * cycle + (1.0 - self.duty) * cycle + self._stride / 2

    def rest_z(self, i: int, x: float, y: float) -> float:
        """Height of leg ``i``'s foot centre resting on the ground at (x, y)."""
        if self._flat_z is not None:  # level ground: no numpy call in a control loop
            g = self._flat_z
        else:
            g = float(self.walker.ground_point(np.array([x, y])))
        return g + self._home_z[i]

    def plant_point(self, i: int, d_mid: float) -> tuple[float, float, float]:
        """Where leg ``i`` is planted for the stance centred at distance ``d_mid``: its home
        under the (steered) path's pose there (the Walker's plant, in floats)."""
        px, py, h = pose_one(self.walker.path, d_mid)
        hx, hy = self._home_xy[i]
        c, s = math.cos(h), math.sin(h)
        x, y = self.steering.xy(px + c * hx - s * hy, py + s * hx + c * hy)
        return (x, y, self.rest_z(i, x, y))

    def plan_heading(self, d_mid: float) -> float:
        """The heading a foot planted for the stance centred at ``d_mid`` faces: the
        (steered) path's heading there (``Walker.foot_headings``, in floats)."""
        return pose_one(self.walker.path, d_mid)[2] + self.steering.angle

    def heading(self, i: int) -> float:
        """Leg ``i``'s foot heading now: its plant's in stance; in swing turning from its
        last plant's to its next's on the swing's smoothstep."""
        if self.stance[i]:
            return self.plant_heading[i]
        a, b = self.lift_heading[i], self.land_heading[i]
        turn = (b - a + math.pi) % (2.0 * math.pi) - math.pi
        return a + smooth01(self.swing_progress[i]) * turn

    def swing_target(self, i: int, u: float, corr=(0.0, 0.0), lift_scale: float = 1.0,
                     rate: float = 1.0, rise: float = 0.0):  # fmt: skip
        """World target of swing leg ``i`` at swing progress ``u`` (0 lift-off .. 1
        touchdown); ``corr`` shifts the landing point (foot-placement feedback); ``rate``:
        the step rate as a share of the gait's own (the clearance arc's floor grows as it
        falls); ``rise``: raised with a flying body (``Walker.flight_rise``)."""
        sig = smooth01(u)
        a, b = self.lift_from[i], self.land_at[i]
        bx, by = b[0] + corr[0], b[1] + corr[1]
        w = self.walker
        if w.swing == "sine":
            arc = math.sin(math.pi * sig)
        else:
            arc = float(swing_height(u, w.swing, clearance_floor(rate)))
        x, y = a[0] + sig * (bx - a[0]), a[1] + sig * (by - a[1])
        z = a[2] + sig * (b[2] - a[2])
        if self._uneven and 0.0 < u < 1.0:  # lift over the ground under the foot, not the chord
            z = max(z, self.rest_z(i, x, y))
        return (x, y, z + self.lift * lift_scale * arc + rise)

    # ------------------------------------------------------------------ state
    def reset(self, s0: float) -> None:
        """The plan at distance ``s0``: stance feet where the Walker plants them, swinging
        feet between the Walker's plants before and after their swing."""
        n = self.n_legs
        self.stance = [False] * n
        self.stance_progress = [0.0] * n
        self.swing_progress = [0.0] * n
        self.plant = [(0.0, 0.0, 0.0)] * n
        self.plant_heading = [0.0] * n  # where each foot faces (soles that can yaw)
        for i in range(n):
            t = self.cycle_position(s0, i)
            if t < self.duty:
                self.stance[i] = True
                self.stance_progress[i] = t / self.duty
                d_mid = s0 - t * self.cycle + self.stride / 2
                self.plant[i] = self.plant_point(i, d_mid)
                self.plant_heading[i] = self.plan_heading(d_mid)
            else:
                self.swing_progress[i] = (t - self.duty) / (1.0 - self.duty)
        self.lift_from = list(self.plant)
        self.land_at = list(self.plant)
        self.lift_heading = list(self.plant_heading)
        self.land_heading = list(self.plant_heading)
        for i in range(n):
            if not self.stance[i]:
                t = self.cycle_position(s0, i)
                self.lift_from[i] = self.plant_point(i, self.mid_before(s0, t))
                self.land_at[i] = self.plant_point(i, self.mid_after(s0, t))
                self.lift_heading[i] = self.plan_heading(self.mid_before(s0, t))
                self.land_heading[i] = self.plan_heading(self.mid_after(s0, t))
        self.s = float(s0)

    def advance(self, s: float, ds: float = 0.0, touchdown=None, corr=(0.0, 0.0),
                lift_scale: float = 1.0, rate: float = 1.0, liftoff=None):  # fmt: skip
        """Move the plan to distance ``s``.

        ``touchdown``: per leg, the world (x, y) where a foot that touches down now really
        is (None: the planned landing point plus ``corr``); ``liftoff``: per leg, the world
        (x, y) a stance foot that lifts off now is held at (None: its plant; a held sphere
        foot that has rolled is a little off it). ``ds``: the distance to the next
        step, for the targets one step ahead. Returns ``(now, ahead, events)``: world
        targets now and ``ds`` later (a stance foot: its plant), and which legs changed
        between stance and swing. ``lift_scale`` and ``rate`` modulate the swing (see
        ``swing_target``).
        """
        duty, cycle = self.duty, self._cycle
        now, ahead, events = [], [], []
        du = ds / ((1.0 - duty) * cycle) if duty < 1.0 else 0.0
        rise = rise2 = 0.0
        if self._flies:  # swing feet rise with a flying body
            rise, rise2 = (float(r) for r in self.walker.flight_rise(np.array((s, s + ds))))
        for i in range(self.n_legs):
            t = self.cycle_position(s, i)
            st = t < duty
            if st and not self.stance[i]:  # touchdown: hold the foot where it lands
                if touchdown is not None:
                    fx, fy = touchdown[i][0], touchdown[i][1]
                else:
                    a = self.land_at[i]
                    fx, fy = a[0] + corr[0], a[1] + corr[1]
                self.plant[i] = (fx, fy, self.rest_z(i, fx, fy))
                self.plant_heading[i] = self.land_heading[i]
            elif not st and self.stance[i]:  # lift-off: plan the swing to the next plant
                self.lift_from[i] = self.plant[i]
                if liftoff is not None:  # from where the foot really is held
                    self.lift_from[i] = (liftoff[i][0], liftoff[i][1], self.plant[i][2])
                self.land_at[i] = self.plant_point(i, self.mid_after(s, t))
                self.lift_heading[i] = self.plant_heading[i]
                self.land_heading[i] = self.plan_heading(self.mid_after(s, t))
            events.append(st != self.stance[i])
            self.stance[i] = st
            if st:
                self.stance_progress[i] = t / duty
                self.swing_progress[i] = 0.0
                now.append(self.plant[i])
                ahead.append(self.plant[i])
            else:
                u = (t - duty) / (1.0 - duty)
                self.stance_progress[i] = 0.0
                self.swing_progress[i] = u
                now.append(self.swing_target(i, u, corr, lift_scale, rate, rise))
                ahead.append(self.swing_target(i, min(u + du, 1.0), corr, lift_scale, rate,
                                               rise2))  # fmt: skip
        self.s = float(s)
        return now, ahead, events
