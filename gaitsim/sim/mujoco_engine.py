"""The MuJoCo engine: ``MujocoWorld`` and ``MujocoRobot``, the PyBullet World and Robot's
interface on MuJoCo, built from the same generated URDF with MuJoCo's own spec API.

The model is compiled from the walker's URDF file (``mujoco.MjSpec``), not written by hand
a second time. To it the spec adds what a URDF cannot say:

- a free joint on the base link (``fixed_base``: none; the base is welded where it is put);
- the ground from the same terrain object the kinematics use: a plane for ``Flat`` and
  ``Slope``, a height field for ``Rough`` (its grid padded at the edges as in PyBullet);
- one position actuator per joint (the legs' in chain order, then the upper body's, then
  the ankles'), that reproduces PyBullet's position motor (see
  ``MujocoRobot.command_joint_list``);
- contact parameters: robot geoms collide with the ground only (PyBullet loads URDFs
  without self-collision too), each through an explicit pair with it (MuJoCo then skips
  its broad phase, 7 % of a step, ``_ground_pairs``, whose parameters are those MuJoCo's
  own mixing gives the two geoms); feet take precedence in every foot-ground pair, with the
  world's friction, a torsional friction of one foot radius per newton (PyBullet's
  spinning friction) and a soft contact whose time constant and damping ratio are those of
  the foot pad (``geometry.foot_pad``: a sink of 10 % of the radius under an even share of
  the weight), never faster than ``MIN_TIMECONST_STEPS`` physics steps; the no-slip pass
  (``NOSLIP_ITERATIONS``) holds a loaded foot where it stands, as PyBullet's friction
  anchor does. A sole's box geom is its foot's and gets the same; MuJoCo's soft contact
  sets each contact's dynamics in its own acceleration space, so the corners of a sole do
  not need the pad shared among them as PyBullet's spring-dampers do (measured, the
  mechanic standing, legs and ankles held, 4 contacts a sole: its ankles 2.1-3.3 mm below
  their height, its base 3.4-4.8 mm with the leg motors' give; the pad's design: 4.8 mm);
- no dry friction on the motored joints: the URDF's joint friction (PyBullet loads it
  without using it) would be a constraint row per joint, a third of a physics step's cost;
  the hip pitch joints get viscous damping in its place (``_joint_friction``);
- the ankles' rotor inertia sized for a planted foot's load (``ANKLE_ARMATURE``,
  ``MujocoRobot._standing_inertia``), their actuators' damping ANKLE_VELOCITY_CLOSURE times
  the legs'; their motors are the legs';
- a sole's corner spheres get the sole's own stiffness (PyBullet's: its four corners'
  ``Body.sole_pad``, stiffened so that the sole on one edge sinks at most
  ``feet.EDGE_SINK`` of a corner) for the time constant and damping ratio, not the foot
  pad's: sqrt(k_sole / k_pad) = 1.5 times quicker for the built-in bipeds.

The integrator is MuJoCo's ``implicitfast``: the actuators' velocity feedback is
integrated implicitly, so they can close a joint's velocity error within a step without
going unstable. Each world step is SUBSTEPS MuJoCo steps in C with the motors' velocity
targets held; between world steps one fused numpy update sets them for every actuator
(``MujocoRobot._servo``). Constraint islands are off (one robot is one kinematic tree).

Where a step's time goes (the fox walking, MuJoCo 4.0, per MuJoCo step of about 15 us):
position stage 9 us (kinematics 2, collision 1.5 with the explicit pairs, the no-slip
pass's projection 2), constraint solver and no-slip pass 5.5 us. Tried and left: the
no-slip pass with 2 or 0 iterations (0 tripled the generated walkers' mean slip; 2
slipped worse than 4), one MuJoCo step per world step (the fox fell twice in
fidelity_eval), the motor law as an affine actuator evaluated at every MuJoCo step
(generated walker 1, 684 kg, touched down 1.4 times per stance instead of 1.0), the
elliptic cone (slower), fewer solver or line search iterations (it converges in 2-3).
"""

from __future__ import annotations

import logging
import math

import numpy as np

from ..feet import SOLE_CORNERS
from ..ik import leg_ik
from ..terrain import Flat, Rough, Slope
from .common import RobotBase, WorldBase
from .robot import DEFAULT_KD, DEFAULT_KP, FORCE_SCALE, Sensed
from .world import HEIGHTFIELD_PAD, DisplayError

log = logging.getLogger(__name__)

try:  # an optional extra: pip install gaitsim[mujoco]
    import mujoco
except ImportError:  # pragma: no cover - exercised only without the extra
    mujoco = None
else:
    # MuJoCo's warnings go to this module's logger, not to stderr and MUJOCO_LOG.TXT in
    # the working directory (a blown-up run is reported by its verdict, non_finite)
    mujoco.set_mju_user_warning(lambda text: log.warning("mujoco: %s", text))
    BAD_STATE = [int(w) for w in (mujoco.mjtWarning.mjWARN_BADQPOS,
                                  mujoco.mjtWarning.mjWARN_BADQVEL,
                                  mujoco.mjtWarning.mjWARN_BADQACC)]  # fmt: skip

VELOCITY_CLOSURE = 1.0  # an actuator's damping is this many joint inertias per MuJoCo step (see
# MujocoRobot.command_joint_list): it closes about 80 % of a velocity error in one step
MIN_TIMECONST_STEPS = 2.0  # MuJoCo's soft contacts are unstable faster than two steps
NOSLIP_ITERATIONS = 4  # the no-slip pass: PyBullet's friction anchor (a loaded foot stays put)
CONE = 0  # mujoco.mjtCone: 0 pyramidal, 1 elliptic
SUBSTEPS = 2  # MuJoCo steps per world step
ARMATURE = 0.5  # each joint's rotor inertia, as a share of its leg's inertia about it
ANKLE_ARMATURE = 0.001  # an ankle's rotor inertia: at least this share of the body's inertia
# about it on a planted foot (MujocoRobot._standing_inertia; the mechanic: 0.0086 and
# 0.0060 kg m^2 for pitch and roll, against the foot's own 0.001 and 0.0003). With ARMATURE
# alone the foot (a light sole, a lighter ankle link between its two joints) was too small a
# load for its motor and the soft contacts: the mechanic standing, legs and ankles held,
# rocked heel to toe and fell back in 3 s. Stop 33 sized it 0.01; stop 50 lightened it
# tenfold with the ankles' damping raised (ANKLE_VELOCITY_CLOSURE) and the soles' contacts
# stiffened to their own pad (``_robot_contacts``): with 0.01 a free biped's trailing sole
# left the ground and landed again within its stance, 2.1-2.4 touchdowns a stance, and the
# free raptor walked 6 of the 54 runs below (docs/bipeds.md, stop 50). The price of a
# light rotor: a sliding toe-off, see ANKLE_VELOCITY_CLOSURE
ANKLE_VELOCITY_CLOSURE = 3.0  # the ankles' actuators close velocity errors three times as
# fast as the legs' (VELOCITY_CLOSURE): with the legs' closure the light rotor walked 29
# of 42 runs of the two bipeds against 40 (7 conditions x 3 starts). With the two (and the
# soles' contacts), the built-in bipeds free on MuJoCo, the bipeds issue's 9 conditions x
# 6 starts (``experiments/biped_free.py --engine mujoco
# --starts 6``): the mechanic walks 47 of 54 (stop 49: 45), the raptor 50 (6); touchdowns
# a stance 1.10 and 1.29 (2.09, 2.41; 7 conditions x 6 starts). The mechanic's slip per
# contact rose from 5-7 mm over 2.2-2.6 contacts a stance to 23-25 mm over one: its
# unloading trailing sole drags on its toe (14 mm forward, 20 mm sideways in a traced
# toe-off), which PyBullet's holds to 8 mm
HIP_PITCH_FRICTION_DAMPING = 2.0  # s/rad: the viscous damping (N m s/rad) that stands in
# for each N m of a hip pitch joint's URDF friction (``_joint_friction``): the same drag at
# 0.5 rad/s. Measured on the horn beetle, 12 seeded 10 s episodes on flat ground: touchdowns
# per stance 1.20 with the friction, 1.29 without it, 1.17 with this (1.24 and 1.20 with
# 1 and 2 s/rad on every motored joint, whose damping made other walkers' feet slip more:
# generated walker 17, 0.79 mm per stance with the friction, 1.50 with 2 s/rad on every
# joint, 0.84 with this)
HFIELD_BASE = 0.5  # m of solid height field below its lowest point
URDF_COMPILER = '<mujoco><compiler fusestatic="false" discardvisual="true"/></mujoco>'


class MujocoMissing(ImportError):
    """The MuJoCo engine was asked for without the mujoco package installed."""


def require_mujoco():
    """The mujoco module, or MujocoMissing saying how to install it."""
    if mujoco is None:
        from .engine import MUJOCO_MISSING

        raise MujocoMissing(MUJOCO_MISSING)
    return mujoco


class MujocoWorld(WorldBase):
    """A MuJoCo model and data with gravity, a fixed time step and the ground of
    ``terrain`` (the keywords: ``common.WorldBase``); the PyBullet ``World``'s interface.
    One robot per world: loading it compiles the model (ground and robot together); loading
    the same body again reuses it.

    ``solver_iterations`` caps MuJoCo's Newton solver (it usually converges in a few);
    ``gui`` is not offered (use the PyBullet engine for a window).
    """

    engine = "mujoco"
    DETERMINISTIC_PAIRS = True

    def _start(self, gui: bool) -> None:
        require_mujoco()
        if gui:
            raise DisplayError(
                "the mujoco engine has no GUI window in gaitsim; use the pybullet engine for "
                "--gui, or record a video (gaitsim walk --video FILE.gif) instead"
            )
        self.substeps = SUBSTEPS
        self._diverged = False  # MuJoCo found the state diverged (and reset it): see step
        self._bad = 0  # MuJoCo's count of diverged states at the last step
        self.model = self.data = None
        self.robot = None
        self._compiled_for = None  # the Body the model was compiled with
        self._ground_only = None  # a ground-only model and data, for rays before a robot
        self.ground_id = 0  # the ground geom's id in either model
        self._open = True

    # ------------------------------------------------------------------ model
    def _spec(self, urdf_text: str | None = None):
        """A spec with the options and the ground, around the robot's URDF (if given)."""
        spec = mujoco.MjSpec.from_string(urdf_text) if urdf_text else mujoco.MjSpec()
        opt = spec.option
        opt.timestep = self.dt / self.substeps
        opt.gravity = [0.0, 0.0, -self.gravity]
        opt.integrator = mujoco.mjtIntegrator.mjINT_IMPLICITFAST
        opt.cone = CONE
        opt.iterations = self.solver_iterations
        opt.noslip_iterations = NOSLIP_ITERATIONS
        # one robot, one kinematic tree: at most one constraint island, and finding it
        # costs 5 % of a step (the solution is the same without: checked bit for bit)
        opt.disableflags |= int(mujoco.mjtDisableBit.mjDSBL_ISLAND)
        _add_ground(spec, self.terrain, self.friction)
        return spec

    def _compile(self, robot, fixed_base: bool, base_position) -> None:
        """Compile ground and ``robot``'s body into one model (once per distinct body)."""
        body = robot.body
        if self.model is not None and self._compiled_for is body and not fixed_base:
            return
        text = body.urdf_path.read_text().replace("</robot>", URDF_COMPILER + "</robot>")
        spec = self._spec(text)
        base = spec.worldbody.first_body()
        if fixed_base:
            base.pos = [float(v) for v in base_position]
        else:
            base.add_freejoint()
        _robot_contacts(spec, body, self.friction, self.dt / self.substeps)
        for name in (*body.joint_names, *body.upper_joint_names, *body.ankle_joint_names):
            act = spec.add_actuator()
            act.name, act.target = name, name
            act.trntype = mujoco.mjtTrn.mjTRN_JOINT
            act.gaintype = mujoco.mjtGain.mjGAIN_FIXED
            act.biastype = mujoco.mjtBias.mjBIAS_AFFINE
            act.forcelimited = mujoco.mjtLimited.mjLIMITED_TRUE
            act.forcerange = [-1.0, 1.0]  # set by every command
        self.model = spec.compile()
        _pair_friction(self.model)
        _joint_friction(self.model, body)
        self.data = mujoco.MjData(self.model)
        self._warnings = self.data.warning.number
        self._diverged, self._bad = False, 0
        self.ground_id = self.model.geom("ground").id
        self._compiled_for = None if fixed_base else body

    # ------------------------------------------------------------------ ground
    def ray_heights(self, xy, *, top: float = 20.0, bottom: float = -20.0) -> np.ndarray:
        """Height of the first surface hit by a vertical ray over each world ``xy`` (..., 2)
        between z = ``top`` and ``bottom`` (NaN: a miss); the robot, if loaded, can be hit."""
        xy = np.asarray(xy, dtype=float)
        if xy.shape[-1] != 2:
            raise ValueError(f"ray_heights: xy must be shaped (..., 2), got {xy.shape}")
        if self.model is not None:
            m, d = self.model, self.data
        else:
            if self._ground_only is None:
                model = self._spec().compile()
                self._ground_only = (model, mujoco.MjData(model))
            m, d = self._ground_only
        mujoco.mj_kinematics(m, d)
        flat = xy.reshape(-1, 2)
        out = np.full(len(flat), np.nan)
        down = np.array([0.0, 0.0, -1.0])
        geomid = np.zeros(1, dtype=np.int32)
        for k, (x, y) in enumerate(flat):
            dist = mujoco.mj_ray(m, d, np.array([x, y, top]), down, None, 1, -1, geomid)
            if dist >= 0 and dist <= top - bottom:
                out[k] = top - dist
        return out.reshape(xy.shape[:-1])

    def set_friction(self, friction: float) -> None:
        """Change the ground's (and so every foot-ground pair's) friction coefficient."""
        if not (math.isfinite(friction) and friction > 0):
            raise ValueError(f"friction must be a positive number, got {friction!r}")
        self.friction = float(friction)
        for m in (self.model, self._ground_only and self._ground_only[0]):
            if m is not None:
                m.geom_friction[m.geom_priority > 0, 0] = self.friction
                m.geom_friction[self.ground_id, 0] = self.friction
                _pair_friction(m)

    # ------------------------------------------------------------------ time
    def step(self, n: int = 1, before=None) -> None:
        """Advance the simulation by ``n`` fixed time steps (in C, without returning).
        ``before(dt)``, if given, is called before each of MuJoCo's own steps (``substeps``
        a world step) with its length (s): an explicit force held over a whole world step
        would act on a stale state for the later ones (the assist on small, tall walkers
        diverged so)."""
        if self.model is not None:
            m, d, k = self.model, self.data, self.substeps
            servo = self.robot._servo if self.robot is not None else None
            if not self._diverged:
                h = m.opt.timestep
                end = d.time + int(n) * k * h
                for _ in range(int(n)):
                    if servo is not None:
                        servo()
                    if before is None:
                        mujoco.mj_step(m, d, k)
                        continue
                    for _ in range(k):
                        before(h)
                        mujoco.mj_step(m, d)
                # MuJoCo resets a diverged state to the model's initial pose (its clock back
                # to 0, its warning counters cleared) and goes on; make the blow-up visible
                # instead, and keep it so (the run ends with verdict non_finite)
                bad = _bad_states(self._warnings)
                self._diverged = d.time < end - 0.5 * h or bad > self._bad
                self._bad = bad
            if self._diverged:
                d.qpos[:] = np.nan
        self._steps += int(n)

    def close(self) -> None:
        """Drop the model and data; calling it again does nothing."""
        self._open = False
        self.model = self.data = self._ground_only = None

    def __repr__(self) -> str:
        state = "closed" if self.closed else "open"
        return f"MujocoWorld({self.terrain.describe()}, {state}, t={self.time:.3f} s)"


def _rotated(q, v) -> tuple[float, float, float]:
    """The vector ``v`` rotated by the unit quaternion ``q`` = (w, x, y, z), in floats."""
    w, x, y, z = q
    a, b, c = v
    # t = 2 (q_vec x v); v' = v + w t + q_vec x t
    tx, ty, tz = 2 * (y * c - z * b), 2 * (z * a - x * c), 2 * (x * b - y * a)
    return (a + w * tx + y * tz - z * ty, b + w * ty + z * tx - x * tz,
            c + w * tz + x * ty - y * tx)  # fmt: skip


def _bad_states(warnings) -> int:
    """How often MuJoCo has found a state diverged (and reset it) since its counters were
    last cleared; ``warnings``: the data's ``warning.number``, a live view into it (kept:
    reading it anew costs 6 us a step)."""
    return int(warnings[BAD_STATE[0]] + warnings[BAD_STATE[1]] + warnings[BAD_STATE[2]])


def _add_ground(spec, terrain, friction: float) -> None:
    """The ground geom (id 0: the first geom of the world body) for ``terrain``."""
    geom = spec.worldbody.add_geom()
    geom.name = "ground"
    geom.contype = geom.conaffinity = 0  # it collides through the robot's pairs only
    geom.friction = [friction, 0.0, 0.0]
    geom.condim = 3
    if isinstance(terrain, Flat):
        geom.type = mujoco.mjtGeom.mjGEOM_PLANE
        geom.size = [0.0, 0.0, 1.0]
        geom.pos = [0.0, 0.0, float(terrain.level)]
    elif isinstance(terrain, Slope):
        n = np.asarray(terrain.normal(terrain.origin[0], terrain.origin[1]), dtype=float)
        geom.type = mujoco.mjtGeom.mjGEOM_PLANE
        geom.size = [0.0, 0.0, 1.0]
        geom.pos = [float(terrain.origin[0]), float(terrain.origin[1]), 0.0]
        geom.quat = _quat_z_to(n)
    elif isinstance(terrain, Rough):
        _add_height_field(spec, geom, terrain)
    else:
        raise TypeError(
            f"MujocoWorld: no physics ground for terrain {terrain!r}; expected Flat, Slope "
            "or Rough"
        )


def _add_height_field(spec, geom, terrain) -> None:
    """A MuJoCo height field for a Rough terrain: grid[i, j] at origin + (j, i) * cell,
    rows along y (MuJoCo's rows run along y from its -y edge too), padded at the edges."""
    grid = np.pad(terrain.grid, HEIGHTFIELD_PAD, mode="edge")
    n_y, n_x = grid.shape
    cell = terrain.cell
    lo, hi = float(grid.min()), float(grid.max())
    span = max(hi - lo, 1e-6)
    field = spec.add_hfield()
    field.name = "ground"
    field.nrow, field.ncol = n_y, n_x
    field.size = [(n_x - 1) * cell / 2, (n_y - 1) * cell / 2, span, HFIELD_BASE]
    field.userdata = ((grid - lo) / span).ravel().tolist()
    ox, oy = np.subtract(terrain.origin, HEIGHTFIELD_PAD * cell)
    geom.type = mujoco.mjtGeom.mjGEOM_HFIELD
    geom.hfieldname = "ground"
    geom.pos = [ox + (n_x - 1) * cell / 2, oy + (n_y - 1) * cell / 2, lo]


def _quat_z_to(n) -> list[float]:
    """The (w, x, y, z) rotation taking +z to the unit vector ``n``."""
    n = n / np.linalg.norm(n)
    axis = np.cross([0.0, 0.0, 1.0], n)
    s, c = np.linalg.norm(axis), float(n[2])
    if s < 1e-12:
        return [1.0, 0.0, 0.0, 0.0]
    half = math.atan2(s, c) / 2
    return [math.cos(half), *(math.sin(half) * axis / s)]


def pad_solref(pad, mass_share: float, dt: float) -> tuple[float, float]:
    """MuJoCo's (time constant, damping ratio) for a foot pad of stiffness and damping
    ``pad`` carrying ``mass_share`` kg: the time constant is one over the pad's natural
    frequency, at least MIN_TIMECONST_STEPS physics steps."""
    k, c = pad
    omega = math.sqrt(k / mass_share)
    zeta = c / (2.0 * math.sqrt(k * mass_share))
    return max(1.0 / omega, MIN_TIMECONST_STEPS * dt), zeta


def _robot_contacts(spec, body, friction: float, dt: float) -> None:
    """Robot geoms collide with the ground only (``_ground_pairs``); feet win their pairs
    with the pad's soft contact (``dt``: MuJoCo's step; a sole's: its corners' pads
    together, ``Body.sole_stiffness``), the world's friction and a torsional friction of
    one foot radius."""
    feet = set(body.foot_links)
    pad = body.pad if body.sole_pad is None else (SOLE_CORNERS * body.sole_pad[0],
                                                  SOLE_CORNERS * body.sole_pad[1])  # fmt: skip
    timeconst, zeta = pad_solref(pad, body.mass / body.n_legs, dt)
    for link in spec.bodies:
        if link.name == "world":
            continue
        for geom in link.geoms:
            if link.name in feet:
                geom.priority = 1
                geom.condim = 4
                geom.friction = [friction, body.geometry.foot_radius, 0.0]
                geom.solref = [timeconst, zeta]
    _ground_pairs(spec)


def _ground_pairs(spec) -> None:
    """Every robot geom's contact with the ground as an explicit pair, and no geom left to
    collide otherwise: MuJoCo checks each pair directly instead of running its broad phase
    over every geom (7 % of the fox's step). A pair gets the parameters MuJoCo's mixing
    gives the two geoms: the higher priority's (a foot's), else the larger condim and
    friction and the mean solref and solimp (equal solmix); its friction is set on the
    compiled model (``_pair_friction``), where ``set_friction`` changes it too."""
    ground = next(g for g in spec.worldbody.geoms if g.name == "ground")
    k = 0
    for link in spec.bodies:
        if link.name == "world":
            continue
        for geom in link.geoms:
            if not geom.name:  # a pair names its geoms
                geom.name, k = f"robot_geom_{k}", k + 1
            pair = spec.add_pair()
            pair.geomname1, pair.geomname2 = ground.name, geom.name
            if geom.priority > ground.priority:
                pair.condim = geom.condim
                pair.solref, pair.solimp = list(geom.solref), list(geom.solimp)
            else:
                pair.condim = max(geom.condim, ground.condim)
                pair.solref = list((np.asarray(geom.solref) + ground.solref) / 2)
                pair.solimp = list((np.asarray(geom.solimp) + ground.solimp) / 2)
            pair.margin, pair.gap = max(geom.margin, ground.margin), max(geom.gap, ground.gap)
            geom.contype = geom.conaffinity = 0


def _pair_friction(model) -> None:
    """Each ground pair's friction (tangential twice, torsional, rolling twice) from its two
    geoms' as MuJoCo mixes them: the higher priority's, else the larger of each."""
    if not model.npair:
        return
    ground, geom = model.pair_geom1, model.pair_geom2
    own = model.geom_friction[geom]
    mixed = np.maximum(own, model.geom_friction[ground])
    wins = (model.geom_priority[geom] > model.geom_priority[ground])[:, None]
    f = np.where(wins, own, mixed)
    model.pair_friction[:] = f[:, [0, 0, 1, 2, 2]]


def _joint_friction(model, body) -> None:
    """The motored joints' dry friction (the URDF's, FRICTION_PER_EFFORT of the effort)
    taken out: MuJoCo makes it a constraint row per joint, which for the fox doubled the
    rows its solver and no-slip pass handled and cost a third of a physics step (PyBullet
    loads the URDF's joint friction without using it: a joint let go turns alike under a
    torque of half or twice it). The hip pitch joints get viscous damping in its place,
    HIP_PITCH_FRICTION_DAMPING per N m of it (see there)."""
    motored = (*body.joint_names, *body.upper_joint_names, *body.ankle_joint_names)
    dofs = np.array([model.jnt_dofadr[model.joint(n).id] for n in motored], dtype=int)
    pitch = dofs[1 : len(body.joint_names) : 3]  # chain order: hip roll, hip pitch, knee
    model.dof_damping[pitch] += HIP_PITCH_FRICTION_DAMPING * model.dof_frictionloss[pitch]
    model.dof_frictionloss[dofs] = 0.0


def _as_slice(index: np.ndarray):
    """``index`` as a slice when it is a run of consecutive integers, else itself."""
    if len(index) and np.array_equal(index, np.arange(index[0], index[0] + len(index))):
        return slice(int(index[0]), int(index[0]) + len(index))
    return index


class MujocoRobot(RobotBase):
    """A walker's URDF body in a MujocoWorld; the PyBullet ``Robot``'s interface and array
    shapes (joints (L, 3) in chain order, feet (L, 3); see ``common.RobotBase`` for the
    start pose and the keywords). Quaternions are (x, y, z, w) as in PyBullet; MuJoCo's
    (w, x, y, z) never leaves this class."""

    def _load(self, base_position, base_orientation) -> None:
        world = self.world
        if world.closed:
            raise RuntimeError("MujocoRobot: the world is closed")
        if world.robot is not None and not world.robot._removed:
            raise RuntimeError("MujocoRobot: a MujocoWorld holds one robot; remove it first")
        self.client = None
        self.body_id = 1  # the base link (body 0 is the world)
        world._compile(self, self.fixed_base, base_position)
        world.robot = self
        self._removed = False
        self._index()
        self.set_gains()
        if not self.fixed_base:  # the start pose before any contact is worked out: at the
            # model's origin the body stands in rough ground, with more contacts than
            # MuJoCo's arena holds
            x, y, z, w = (float(v) for v in base_orientation)
            self.data.qpos[:7] = [*(float(v) for v in base_position), w, x, y, z]

    # ------------------------------------------------------------------ indexing
    def _index(self) -> None:
        m = self.model = self.world.model
        self.data = self.world.data
        names = list(self.body.joint_names)
        ids = [m.joint(n).id for n in names]
        self.joint_names = names
        self._qadr = np.array([m.jnt_qposadr[j] for j in ids])
        self._vadr = np.array([m.jnt_dofadr[j] for j in ids])
        # the chain's joints are consecutive in qpos and qvel: slices read faster
        self._qsl = _as_slice(self._qadr)
        self._vsl = _as_slice(self._vadr)
        self.joint_index = np.array(ids, dtype=int).reshape(-1, 3)
        self.foot_names = list(self.body.foot_links)
        self._feet = np.array([m.body(n).id for n in self.foot_names])
        self.foot_index = self._feet.copy()
        self.effort = np.broadcast_to(np.asarray(self.body.effort, float)[:, None],
                                      (self.n_legs, 3)).copy()  # fmt: skip
        self.lower = np.asarray(self.body.lower, float).reshape(-1, 3)
        self.upper = np.asarray(self.body.upper, float).reshape(-1, 3)
        self.max_velocity = np.full((self.n_legs, 3), np.inf)
        self._body_mass = m.body_mass[1:].copy()  # the robot's bodies: all but the world
        self.mass = float(self._body_mass.sum())
        self.link_names = {b: m.body(b).name for b in range(1, m.nbody)}
        self._foot_list = [int(f) for f in self._feet]
        self._foot_set = set(self._foot_list)
        self._foot_or_base = {*self._foot_set, self.body_id}
        self._geom_body = m.geom_bodyid.copy()
        self._ff = np.zeros(len(names))  # the held feedforward torques, chain order
        self._index_upper()
        self._index_ankles()
        # rotor inertia (armature) in proportion to each joint's own inertia: a real geared
        # joint has it, and without it a leg whose bones nearly cancel (a short upper bone
        # on a long lower one) has a joint inertia several times smaller than its
        # diagonal, and the stiff servos chatter
        inertia = self._joint_inertia()
        acted = self._acted()
        m.dof_armature[acted] = ARMATURE * inertia
        self._inertia = inertia * (1.0 + ARMATURE)
        ankles = slice(len(inertia) - len(self._avadr), None)  # the last, in actuator order
        if len(self._avadr):  # ankles: see ANKLE_ARMATURE
            own = inertia[ankles]
            rotor = np.maximum(ARMATURE * own, ANKLE_ARMATURE * self._ankle_load)
            m.dof_armature[self._avadr] = rotor
            self._inertia[ankles] = own + rotor
        # the actuators' damping: VELOCITY_CLOSURE joint inertias per MuJoCo step (the
        # ankles' ANKLE_VELOCITY_CLOSURE)
        closure = np.full(len(self._inertia), VELOCITY_CLOSURE)
        closure[ankles] = ANKLE_VELOCITY_CLOSURE
        damping = closure * self._inertia / self.model.opt.timestep
        # actuators: the legs' first, then the upper body's, then the ankles'
        self._nl = len(names)
        self._na0 = self._nl + len(self._uvadr)  # the first ankle actuator
        self._damping = damping[: self._nl]
        self._udamping = damping[self._nl : self._na0]
        self._adamping = damping[self._na0 :]
        self._views()

    def _views(self) -> None:
        """The servo's arrays over every actuator (legs, upper body, ankles: the groups'
        slices ``_sl``, ``_su``, ``_sa``): position targets, rates and velocities, and views
        into the data and the model that the servo and the leg commands write and read
        every world step (MuJoCo's arrays stay where they are for a model's life; a fresh
        view per access costs more than the arithmetic): the controls, the motored joints'
        positions in actuator order (a view where they are consecutive, else None: indexed
        anew), the legs' actuator gains, biases and force ranges."""
        d, m, nl, a0 = self.data, self.model, self._nl, self._na0
        nu = a0 + len(self._aqadr)
        self._sl, self._su, self._sa = slice(0, nl), slice(nl, a0), slice(a0, nu)
        # a released group keeps target, rate and velocity 0: its control is 0 (its gain is)
        self._target, self._rates, self._vel = np.zeros(nu), np.zeros(nu), np.zeros(nu)
        self._ctrl = d.ctrl[:nu]
        self._act_qadr = np.concatenate([self._qadr, self._uqadr, self._aqadr]).astype(int)
        sl = _as_slice(self._act_qadr)
        self._qpos_act = d.qpos[sl] if isinstance(sl, slice) else None
        self._gain_l, self._bias_l = m.actuator_gainprm[:nl, 0], m.actuator_biasprm[:nl, 2]
        self._range_lo = m.actuator_forcerange[:nl, 0]
        self._range_hi = m.actuator_forcerange[:nl, 1]
        self._kd_set = False  # the default kd's gains and biases are in the model
        self._forces_set = False  # ... and the default force limits
        self._d_xpos, self._d_xquat, self._d_qpos, self._d_qvel = d.xpos, d.xquat, d.qpos, d.qvel
        self._d_xipos = d.xipos[1:]  # the robot's bodies' centres of mass (all but the world)
        self._d_force = d.actuator_force[:nl]
        self._f6 = np.zeros(6)  # one contact's force, mj_contactForce's output

    def _index_upper(self) -> None:
        """The upper body's joints, their actuators' rows and the head and chest bodies."""
        m = self.model
        names = list(self.body.upper_joint_names)
        ids = [m.joint(n).id for n in names]
        self._uqadr = np.array([m.jnt_qposadr[j] for j in ids], dtype=int)
        self._uvadr = np.array([m.jnt_dofadr[j] for j in ids], dtype=int)
        self.upper_effort = np.asarray(self.body.upper_effort, float)
        self._upper_on = False  # the upper body's motor constants are set (until a release)
        has = self.body.upper_body is not None
        self._head = m.body("head").id if has and self.body.upper_body.head is not None else None
        self._chest = m.body("chest").id if has and self.body.upper_body.torso is not None else None

    def _index_ankles(self) -> None:
        """The ankles' joints (``Body.ankle_joint_names``; none on sphere feet)."""
        m = self.model
        names = list(self.body.ankle_joint_names)
        missing = [n for n in names if mujoco.mj_name2id(m, mujoco.mjtObj.mjOBJ_JOINT, n) < 0]
        if missing:
            raise RuntimeError(f"MujocoRobot: {self.urdf_path} lacks ankle joints {missing}")
        ids = [m.joint(n).id for n in names]
        self.ankle_names = names
        self._aqadr = np.array([m.jnt_qposadr[j] for j in ids], dtype=int)
        self._avadr = np.array([m.jnt_dofadr[j] for j in ids], dtype=int)
        self.ankle_effort = np.asarray(self.body.ankle_effort, float)
        self.ankle_lower = np.asarray(self.body.ankle_lower, float)
        self.ankle_upper = np.asarray(self.body.ankle_upper, float)

    def _acted(self) -> np.ndarray:
        """The dofs with actuators, in actuator order (legs, upper body, ankles)."""
        return np.concatenate([self._vadr, self._uvadr, self._avadr]).astype(int)

    def _joint_inertia(self) -> np.ndarray:
        """Each joint's inertia (kg m^2) at the home pose (ankles at 0): its subtree about its
        axis, the armature left out. Also each ankle's load on a planted foot."""
        m, d = self.model, self.data
        q0 = d.qpos.copy()
        home, _ = leg_ik(self.geometry.chain, self.geometry.homes)
        d.qpos[self._qadr] = home.ravel()
        d.qpos[self._aqadr] = 0.0  # whatever a robot loaded before left there
        # no contacts: the base still sits at the model's origin, inside any rough ground
        flags = m.opt.disableflags
        m.opt.disableflags = flags | int(mujoco.mjtDisableBit.mjDSBL_CONTACT)
        try:
            mujoco.mj_forward(m, d)
        finally:
            m.opt.disableflags = flags
        full = np.zeros((m.nv, m.nv))
        try:
            mujoco.mj_fullM(m, d, full)  # mujoco >= 3.3
        except TypeError:
            mujoco.mj_fullM(m, full, d.qM)  # mujoco 3.2
        self._ankle_load = self._standing_inertia()
        d.qpos[:] = q0
        acted = self._acted()
        return np.diag(full)[acted] - m.dof_armature[acted]  # the links' own

    def _standing_inertia(self) -> np.ndarray:
        """Each ankle joint's load on a planted foot (kg m^2): the rest of the robot (every
        body outside the joint's subtree) about the joint's axis, from the current frames."""
        m, d = self.model, self.data
        out = np.zeros(len(self._avadr))
        for k, j in enumerate(m.dof_jntid[self._avadr]):
            below = {int(m.jnt_bodyid[j])}
            for b in range(int(m.jnt_bodyid[j]) + 1, m.nbody):  # parents come first
                if int(m.body_parentid[b]) in below:
                    below.add(b)
            axis, anchor = d.xaxis[j], d.xanchor[j]
            for b in range(1, m.nbody):
                if b in below:
                    continue
                local = d.ximat[b].reshape(3, 3).T @ axis  # the axis in b's inertial frame
                arm = np.cross(d.xipos[b] - anchor, axis)
                out[k] += m.body_inertia[b] @ local**2 + m.body_mass[b] * arm @ arm
        return out

    # ------------------------------------------------------------------ control
    def set_gains(self, kp=None, kd=None, force_scale: float = FORCE_SCALE) -> None:
        """Gains (at PHYSICS_HZ, see ``gain_scale``) and force limits used by
        ``command_joint_list`` (PyBullet's meaning)."""
        n = len(self.joint_names)
        self._kp = np.full(n, float(DEFAULT_KP if kp is None else kp) * self.gain_scale)
        self._kd = np.full(n, float(DEFAULT_KD if kd is None else kd))
        self._kd_set = False
        self._forces = self.effort.ravel() * float(force_scale)
        self._forces_set = False

    def release_joints(self) -> None:
        """No motor force on any joint: the joints move freely."""
        m = self.model
        m.actuator_gainprm[:, 0] = 0.0
        m.actuator_biasprm[:, :3] = 0.0
        self._kd_set = False
        m.actuator_forcerange[:] = 0.0
        self._forces_set = False
        self._upper_on = False
        self._target[:] = self._rates[:] = self._vel[:] = 0.0

    def set_upper_positions(self, q) -> None:
        """Teleport the upper body's joints to ``q`` (n,), at rest."""
        self.data.qpos[self._uqadr] = np.ravel(q)
        self.data.qvel[self._uvadr] = 0.0
        self._refresh()

    def upper_state(self) -> tuple[np.ndarray, np.ndarray]:
        """The upper body's joint positions and velocities, each (n,) (empty without one)."""
        return self.data.qpos[self._uqadr].copy(), self.data.qvel[self._uvadr].copy()

    def command_upper(self, q, v=None) -> None:
        """The upper body's position motors (PyBullet's DEFAULT_KP, DEFAULT_KD, the URDF
        effort limits), as ``command_joint_list`` does for the legs."""
        if not len(self._uqadr):
            return
        m, nl, a0 = self.model, self._nl, self._na0
        if not self._upper_on:  # the motors' constants: set on the first command after a release
            m.actuator_gainprm[nl:a0, 0] = self._udamping * DEFAULT_KD
            m.actuator_biasprm[nl:a0, 2] = -self._udamping * DEFAULT_KD
            m.actuator_forcerange[nl:a0, 0] = -self.upper_effort
            m.actuator_forcerange[nl:a0, 1] = self.upper_effort
            self._rates[self._su] = DEFAULT_KP * self.gain_scale / DEFAULT_KD / self.world.dt
            self._upper_on = True
        self._target[self._su] = q
        self._vel[self._su] = 0.0 if v is None else v

    def set_ankle_positions(self, q) -> None:
        """Teleport the ankles' joints to ``q`` (n,), at rest."""
        self.data.qpos[self._aqadr] = np.ravel(q)
        self.data.qvel[self._avadr] = 0.0
        self._refresh()

    def ankle_state(self) -> tuple[np.ndarray, np.ndarray]:
        """The ankles' joint positions and velocities, each (n,) (empty on sphere feet)."""
        return self.data.qpos[self._aqadr].copy(), self.data.qvel[self._avadr].copy()

    def command_ankles(self, q, v=None, kp=None, forces=None, bias=None) -> None:
        """The ankles' position motors: PyBullet's law (as ``command_joint_list``) with
        position gains ``kp`` (default DEFAULT_KP; a scalar or (n,)), DEFAULT_KD and force
        limits ``forces`` (N m; default ``Body.ankle_effort``); ``bias`` (n,) shifts each
        joint's torque range to [bias - force, bias + force] (MuJoCo's force range is
        asymmetric as it stands). Nothing on sphere feet."""
        n = len(self._aqadr)
        if not n:
            return
        m, a0 = self.model, self._na0
        kp = np.broadcast_to(np.asarray(DEFAULT_KP if kp is None else kp, dtype=float), (n,))
        f = self.ankle_effort if forces is None else np.asarray(forces, dtype=float)
        m.actuator_gainprm[a0:, 0] = self._adamping * DEFAULT_KD
        m.actuator_biasprm[a0:, 2] = -self._adamping * DEFAULT_KD
        b = 0.0 if bias is None else np.asarray(bias, dtype=float)
        m.actuator_forcerange[a0:, 0] = b - f
        m.actuator_forcerange[a0:, 1] = b + f
        self._rates[self._sa] = kp * self.gain_scale / DEFAULT_KD / self.world.dt
        self._target[self._sa] = q
        self._vel[self._sa] = 0.0 if v is None else v

    def command_joint_list(self, q, v=None, kp=None, forces=None, kd=None) -> None:
        """PyBullet's position motor on every joint (flat lists in chain order; defaults:
        zero velocity, the set gains and force limits).

        PyBullet's motor is a velocity constraint: at each physics step, within its force
        limit, it drives ``kd (v - v_now) + kp (q - q_now) / dt`` to zero, i.e. sets the
        joint velocity to ``v + (kp / kd) (q - q_now) / dt``. Here that velocity target is
        computed the same way before each world step (``_servo``) and held by a MuJoCo
        velocity actuator, clamped to the force limit, whose damping of
        VELOCITY_CLOSURE x the joint's inertia per MuJoCo step (times kd) closes the
        error within about a step; the implicit integrator keeps so stiff a damper stable.
        """
        sl = self._sl
        self._target[sl] = q
        self._vel[sl] = 0.0 if v is None else v
        kp = self._kp if kp is None else np.asarray(kp, dtype=float) * self.gain_scale
        default_kd = kd is None
        kd = self._kd if default_kd else np.asarray(kd, dtype=float)
        rate = self._rates[sl]
        np.divide(kp, kd, out=rate)
        rate /= self.world.dt
        if not (default_kd and self._kd_set):  # (the default's are written once)
            self._gain_l[:] = self._damping * kd
            self._bias_l[:] = -self._damping * kd
        self._kd_set = default_kd
        if forces is None:
            if not self._forces_set:  # (the default's are written once)
                np.negative(self._forces, out=self._range_lo)
                self._range_hi[:] = self._forces
                self._forces_set = True
        else:
            f = np.asarray(forces, dtype=float)
            np.negative(f, out=self._range_lo)
            self._range_hi[:] = f
            self._forces_set = False

    def _servo(self) -> None:
        """The motors' velocity targets for the current joint positions, every actuator's
        ``v + rate (q - q_now)`` (before each world step)."""
        qa = self._qpos_act
        ctrl = self._ctrl
        np.subtract(self._target, self.data.qpos[self._act_qadr] if qa is None else qa, out=ctrl)
        ctrl *= self._rates
        ctrl += self._vel

    def command_torque_list(self, tau) -> None:
        """Feedforward joint torques (flat, chain order), held until the next call."""
        self._ff = np.asarray(tau, dtype=float)
        self.data.qfrc_applied[self._vsl] = self._ff

    def apply_base_wrench(self, force, torque) -> None:
        """A world-frame force at the base's origin and a torque on the base, for the next
        physics step only (PyBullet's applyExternalForce / applyExternalTorque)."""
        self.data.xfrc_applied[self.body_id, :3] = force
        self.data.xfrc_applied[self.body_id, 3:] = torque

    def set_joint_positions(self, q, velocities=None) -> None:
        """Teleport every joint to ``q`` (L, 3) (and ``velocities``, default 0)."""
        q = self._shaped(q, "set_joint_positions").ravel()
        v = np.zeros_like(q) if velocities is None else self._shaped(velocities, "v").ravel()
        self.data.qpos[self._qadr] = q
        self.data.qvel[self._vadr] = v
        self._refresh()

    def reset_base(self, position, orientation=(0.0, 0.0, 0.0, 1.0)) -> None:
        """Teleport the base to a pose and zero its velocity; forget the solver's warm start
        and any applied forces, so a reused world replays an episode exactly."""
        d = self.data
        self.world._diverged = False  # a new start; a state still not finite diverges anew
        if not self.fixed_base:
            x, y, z, w = (float(v) for v in orientation)
            d.qpos[:3] = [float(v) for v in position]
            d.qpos[3:7] = [w, x, y, z]
            d.qvel[:6] = 0.0
        d.qacc_warmstart[:] = 0.0
        d.xfrc_applied[:] = 0.0
        # the joints' held feedforward and the motors' last velocity targets too: mj_forward
        # (``_refresh``) works the contact forces out with them, and a sole's ankle limits
        # read those forces on the next step (the free mechanic's seeded episodes differed)
        d.qfrc_applied[:] = 0.0
        d.ctrl[:] = 0.0
        self._ff = np.zeros_like(self._ff)
        self._refresh()

    def set_base_velocity(self, linear, angular=(0.0, 0.0, 0.0)) -> None:
        """Set the base's world linear and angular velocity."""
        if self.fixed_base:
            return
        d = self.data
        d.qvel[:3] = [float(v) for v in linear]
        d.qvel[3:6] = self._base_rot().T @ np.asarray(angular, dtype=float)  # body-local

    def _refresh(self) -> None:
        """Positions, frames and contacts for the current state (after a teleport)."""
        mujoco.mj_forward(self.model, self.data)

    # ------------------------------------------------------------------ state
    def joint_state(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Joint positions, velocities and torques (motor + feedforward), each (L, 3)."""
        d = self.data
        tau = d.actuator_force[: self._nl] + self._ff
        return (d.qpos[self._qadr].reshape(-1, 3).copy(), d.qvel[self._vadr].reshape(-1, 3).copy(),
                tau.reshape(-1, 3))  # fmt: skip

    def base_pose(self) -> tuple[np.ndarray, np.ndarray]:
        """Body frame B in the world: position (3,), quaternion (x, y, z, w) (4,)."""
        d = self.data
        if self.fixed_base:
            w, x, y, z = d.xquat[self.body_id]
            return d.xpos[self.body_id].copy(), np.array([x, y, z, w])
        w, x, y, z = d.qpos[3:7]
        return d.qpos[:3].copy(), np.array([x, y, z, w])

    def base_pose_floats(self) -> tuple[tuple, tuple]:
        """``base_pose`` as tuples of Python floats (the loops run every substep)."""
        d = self.data
        if self.fixed_base:
            x, y, z = d.xpos[self.body_id].tolist()
            w, qx, qy, qz = d.xquat[self.body_id].tolist()
        else:
            x, y, z, w, qx, qy, qz = d.qpos[:7].tolist()
        return (x, y, z), (qx, qy, qz, w)

    def base_velocity(self) -> tuple[np.ndarray, np.ndarray]:
        """World linear (3,) and angular (3,) velocity of the base."""
        d = self.data
        if self.fixed_base:
            return np.zeros(3), np.zeros(3)
        return d.qvel[:3].copy(), self._base_rot() @ d.qvel[3:6]

    def _base_rot(self) -> np.ndarray:
        """The free base's rotation matrix from its state (frames may be a step old)."""
        rot = np.zeros(9)
        mujoco.mju_quat2Mat(rot, self.data.qpos[3:7])
        return rot.reshape(3, 3)

    def place_base(self, position, orientation, linear, angular) -> None:
        """Set the base's pose and world velocity (the kinematic body mode, every step)."""
        d = self.data
        x, y, z, w = (float(v) for v in orientation)
        d.qpos[:3] = [float(v) for v in position]
        d.qpos[3:7] = [w, x, y, z]
        self.set_base_velocity(linear, angular)

    def foot_positions(self) -> np.ndarray:
        """World foot-sphere centres (L, 3)."""
        mujoco.mj_kinematics(self.model, self.data)
        return self.data.xpos[self._feet].copy()

    def center_of_mass(self) -> np.ndarray:
        mujoco.mj_kinematics(self.model, self.data)
        return self._body_mass @ self.data.xipos[1:] / self.mass

    def _contact_bodies(self) -> list[int]:
        """The robot body of each of the last step's contacts, in MuJoCo's contact order."""
        d = self.data
        n = d.ncon
        if n == 0:
            return []
        # every contact pairs the ground (geom 0, the model's first) with a robot geom
        return self._geom_body[d.contact.geom[:n].max(axis=1)].tolist()

    def _touching(self) -> set[int]:
        """Robot bodies in contact with the ground now."""
        return set(self._contact_bodies())

    def foot_contacts(self, ground_id=None) -> np.ndarray:
        touching = self._touching()
        return np.array([f in touching for f in self._foot_list], dtype=bool)

    def body_ground_contact(self, ground_id=None) -> bool:
        return bool(self._touching() - self._foot_set)

    def sense(self) -> Sensed:
        """The same reading as the PyBullet Robot's, from MuJoCo's state.

        Frames are recomputed for the current state (``mj_kinematics``); contacts are those
        of the last step's collision pass, as in PyBullet.
        """
        m, d = self.model, self.data
        mujoco.mj_kinematics(m, d)
        b = self.body_id
        xpos, xquat, qvel = self._d_xpos, self._d_xquat, self._d_qvel
        w, x, y, z = xquat[b].tolist()
        if self.fixed_base:
            lin = ang = (0.0, 0.0, 0.0)
        else:
            v6 = qvel[:6].tolist()
            lin = tuple(v6[:3])
            ang = _rotated((w, x, y, z), v6[3:])  # MuJoCo's is body-local
        bodies = self._contact_bodies()
        touching = set(bodies)
        legs = not touching <= self._foot_or_base  # a bone touches the ground
        feet = xpos[self._feet].tolist()  # lists of 3: the controller reads them by index
        if self.track_momentum:  # the base's subtree is the robot: its momentum about its
            mujoco.mj_subtreeVel(m, d)  # own centre of mass, world frame
        upper = self._upper_reading()
        if len(self._aqadr):  # soles: forces and centres of pressure in one pass
            forces, cops = self._foot_pressure()
            upper = (*upper, tuple(self._d_qpos[self._aqadr].tolist()), cops)
        else:
            forces = self._foot_forces(bodies)
        return Sensed(
            tuple(xpos[b].tolist()),
            (x, y, z, w),
            lin,
            ang,
            tuple(self._d_qpos[self._qsl].tolist()),
            tuple(qvel[self._vsl].tolist()),
            tuple((self._d_force + self._ff).tolist()),
            feet,
            tuple((self._body_mass @ self._d_xipos / self.mass).tolist()),
            [f in touching for f in self._foot_list],
            b in touching,
            legs,
            [[qx, qy, qz, qw] for qw, qx, qy, qz in xquat[self._feet].tolist()],
            forces,
            float(d.subtree_angmom[b, 2]) if self.track_momentum else math.nan,
            *upper,
            leg_force=self._leg_force(bodies) if legs else 0.0,
            upper_velocities=tuple(qvel[self._uvadr].tolist()),
        )

    def _leg_force(self, bodies) -> float:
        """The ground's normal force (N) on the robot's bodies other than its feet and base,
        from the last step's contacts (``bodies``: each contact's robot body)."""
        m, d, f6, out = self.model, self.data, self._f6, 0.0
        for i, body in enumerate(bodies):
            if body not in self._foot_or_base:
                mujoco.mj_contactForce(m, d, i, f6)
                out += float(f6[0])
        return out

    def _foot_forces(self, bodies) -> list[float]:
        """Each foot's ground normal force (N), from the last step's contacts (``bodies``:
        each contact's robot body, ``_contact_bodies``)."""
        m, d = self.model, self.data
        out = dict.fromkeys(self._foot_list, 0.0)
        f6 = self._f6
        for i, body in enumerate(bodies):
            if body in out:
                mujoco.mj_contactForce(m, d, i, f6)
                out[body] += float(f6[0])
        return [out[f] for f in self._foot_list]

    def _foot_pressure(self) -> tuple[list[float], list]:
        """Each foot's ground normal force (N) and centre of pressure (world (x, y, z), or
        None without force): the normal-force-weighted mean of its contacts' points on the
        foot (MuJoCo's contact position is midway between the surfaces: moved to the
        foot's by half the penetration along the normal)."""
        m, d = self.model, self.data
        force = dict.fromkeys(self._foot_list, 0.0)
        moment = {f: np.zeros(3) for f in self._foot_list}
        f6 = np.zeros(6)
        con = d.contact
        for i in range(d.ncon):
            g1, g2 = con.geom[i]
            body = int(self._geom_body[max(g1, g2)])
            if body not in force:
                continue
            mujoco.mj_contactForce(m, d, i, f6)
            fn = float(f6[0])
            force[body] += fn
            # the frame's normal points from geom1 to geom2: to the foot when it is geom2
            normal = con.frame[i, :3] if g2 > g1 else -con.frame[i, :3]
            moment[body] += fn * (con.pos[i] + normal * (con.dist[i] / 2.0))
        cops = [tuple((moment[f] / force[f]).tolist()) if force[f] > 0.0 else None
                for f in self._foot_list]  # fmt: skip
        return [force[f] for f in self._foot_list], cops

    def _upper_reading(self):
        """(upper joint positions, head centre, head and chest quaternions), as PyBullet's."""
        if self.body.upper_body is None:
            return (), None, None, None
        xquat = self._d_xquat

        def quat(b):
            w, x, y, z = xquat[b].tolist()
            return (x, y, z, w)

        head = self._head
        return (tuple(self._d_qpos[self._uqadr].tolist()),
                None if head is None else tuple(self._d_xpos[head].tolist()),
                None if head is None else quat(head),
                None if self._chest is None else quat(self._chest))  # fmt: skip

    def _mass_points(self) -> tuple[np.ndarray, np.ndarray]:
        mujoco.mj_kinematics(self.model, self.data)
        return self._body_mass, self.data.xipos[1:].copy()

    # ------------------------------------------------------------------ lifetime
    def remove(self) -> None:
        """Take the robot out of its world (the model is kept for a reload of the body)."""
        if self._removed:
            return
        self._removed = True
        if self.world.robot is self:
            self.world.robot = None
