"""Headless video of a run: PyBullet's CPU tiny renderer, a camera that follows the body.

Runs on either engine draw the same way: a robot in a MuJoCo world is drawn by a PyBullet
twin of it (same URDF, same ground) posed from the MuJoCo state at each frame, so videos
need no OpenGL and look alike whichever engine simulated them.

``VideoRecorder(world, robot)`` renders a frame on each ``capture()`` (call it every
``frame_interval(control_hz, fps)`` control steps) and ``save(path)`` writes a .gif (Pillow)
or an .mp4 (imageio with the imageio-ffmpeg plugin: ``pip install "gaitsim[video]"``).
Rendering never opens or touches a display. The encoder writes a temporary file beside the
target, which is decoded back and checked (every frame there) before it is renamed over the
target, so a failed encode (a full disk, a crashed encoder) leaves no file and raises.
"""

from __future__ import annotations

import math
import os
import tempfile
import zlib
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pybullet as p

from ..catalog import atomic_output
from ..terrain import Rough
from .robot import Robot
from .world import World

FORMATS = (".mp4", ".gif")
CAMERA_YAW_DEG = 30.0  # side-ish view from behind the left flank
CAMERA_PITCH_DEG = -20.0
CAMERA_FOV_DEG = 45.0
FOOTPRINT_SCALE = 1.5  # camera distance: 4 hip heights + max(body length, 1.5 feet spreads)
LIGHT_DIRECTION = (1.0, 1.0, 2.0)
ROUGH_VISUAL_MAX_SIDE = 256  # vertices per side of the rough ground's stand-in render mesh
CHECKER_M = 0.5  # checker square on the rough ground's stand-in (m)
MP4_INSTALL_HINT = (
    'writing .mp4 needs imageio with its ffmpeg plugin: pip install "gaitsim[video]" '
    "(or imageio imageio-ffmpeg), or write a .gif instead"
)


class VideoError(RuntimeError):
    """A video cannot be written (unsupported format, missing encoder, a failed encode)."""


def check_format(path) -> str:
    """The video format of ``path`` ('.mp4' or '.gif'); raises VideoError if it can't be written.

    Call it before a run, so a long simulation is not wasted on an unwritable file name.
    """
    suffix = Path(path).suffix.lower()
    if suffix not in FORMATS:
        raise VideoError(
            f"video file must end in .mp4 or .gif, got {Path(path).name!r}; e.g. --video walk.gif"
        )
    if suffix == ".mp4":
        _mp4_writer_factory()
    return suffix


def _mp4_writer_factory():
    try:
        import imageio.v2 as iio
        import imageio_ffmpeg  # noqa: F401  (the FFMPEG format needs it)
    except ImportError as exc:
        raise VideoError(f"{MP4_INSTALL_HINT} ({exc})") from None
    return iio.get_writer


def frame_interval(control_hz: float, fps: float) -> int:
    """Control steps between frames: control_hz / fps, rounded, at least 1."""
    if not (math.isfinite(fps) and fps > 0):
        raise ValueError(f"fps must be positive, got {fps!r}")
    return max(1, round(control_hz / fps))


class VideoRecorder:
    """Renders frames of ``robot`` in ``world`` with the tiny renderer and saves a video.

    ``fps`` is the playback rate of the saved file: for real-time playback capture every
    ``frame_interval(control_hz, fps)`` steps and pass ``fps=control_hz / interval``.
    Frames are kept zlib-compressed (a rendered frame is mostly flat colour, about 40x
    smaller), so a long run does not hold hundreds of megabytes of pixels.
    """

    def __init__(self, world: World, robot: Robot, fps: float = 30, size=(480, 360)):
        width, height = (int(v) for v in size)
        if width < 16 or height < 16:
            raise ValueError(f"video size must be at least 16 x 16 pixels, got {size!r}")
        if not (math.isfinite(fps) and fps > 0):
            raise ValueError(f"fps must be positive, got {fps!r}")
        self.world, self.robot = world, robot
        self._view = None  # the PyBullet (world, robot) that draws a MuJoCo run
        if getattr(world, "engine", "pybullet") != "pybullet":
            view_world = World(world.terrain)
            self._view = (view_world, Robot(view_world, robot.body))
            world = view_world
        self.fps = float(fps)
        self.size = (width, height)
        geo = robot.geometry
        # the walker's length: its body box or, for wide-legged walkers, its feet's spread
        span = max(geo.body[0], FOOTPRINT_SCALE * float(np.ptp(geo.homes[:, :2], axis=0).max()))
        self.distance = 4.0 * geo.hip_height + span
        self.frames: list[bytes] = []
        self.shadow = 1
        if isinstance(world.terrain, Rough):
            _rough_stand_in(world)  # the drawing world (the twin's, for MuJoCo)
            self.shadow = 0  # the shadow pass would still draw the full heightfield
        self._proj = p.computeProjectionMatrixFOV(
            CAMERA_FOV_DEG,
            width / height,
            0.01 * self.distance,
            50.0 * self.distance,
            physicsClientId=world.client,
        )

    def __len__(self) -> int:
        return len(self.frames)

    def render(self) -> np.ndarray:
        """One RGB frame (height, width, 3) uint8, the camera aimed at the body."""
        world, robot = self._drawn()
        cid = world.client
        target, _ = p.getBasePositionAndOrientation(robot.body_id, physicsClientId=cid)
        view = p.computeViewMatrixFromYawPitchRoll(
            cameraTargetPosition=list(target),
            distance=self.distance,
            yaw=CAMERA_YAW_DEG,
            pitch=CAMERA_PITCH_DEG,
            roll=0.0,
            upAxisIndex=2,
            physicsClientId=cid,
        )
        width, height = self.size
        img = p.getCameraImage(
            width,
            height,
            viewMatrix=view,
            projectionMatrix=self._proj,
            shadow=self.shadow,
            lightDirection=list(LIGHT_DIRECTION),
            renderer=p.ER_TINY_RENDERER,
            flags=p.ER_NO_SEGMENTATION_MASK,
            physicsClientId=cid,
        )
        rgba = np.asarray(img[2], dtype=np.uint8).reshape(height, width, 4)
        return np.ascontiguousarray(rgba[:, :, :3])

    def _drawn(self):
        """The PyBullet world and robot to draw: the run's own, or the twin posed as the
        MuJoCo robot is now."""
        if self._view is None:
            return self.world, self.robot
        world, twin = self._view
        position, quaternion = self.robot.base_pose()
        twin.reset_base(position, quaternion)
        twin.set_joint_positions(self.robot.joint_state()[0])
        if twin.body.ankle_joint_names:  # the soles, and the upper body, as they are too
            twin.set_ankle_positions(self.robot.ankle_state()[0])
        if twin.body.upper_joint_names:
            twin.set_upper_positions(self.robot.upper_state()[0])
        return world, twin

    def close(self) -> None:
        """Release the drawing twin's PyBullet client (a MuJoCo run's); idempotent."""
        if self._view is not None:
            self._view[0].close()
            self._view = None

    def capture(self) -> None:
        """Render the current state and keep it as the next frame."""
        self.frames.append(zlib.compress(self.render().tobytes(), 1))

    def frame(self, i: int) -> np.ndarray:
        width, height = self.size
        return np.frombuffer(zlib.decompress(self.frames[i]), np.uint8).reshape(height, width, 3)

    def save(self, path, on_frame: Callable[[], None] | None = None) -> Path:
        """Write the frames to ``path`` (.gif or .mp4) atomically; returns the path.

        ``on_frame()`` is called as each frame is encoded (progress bars). On any failure
        the temporary file is removed and ``path`` is left as it was; an encoder that
        reports success but leaves a file that does not decode to every frame raises
        VideoError, and an OSError (a full disk...) a WriteError naming ``path``.
        """
        path = Path(path)
        suffix = check_format(path)
        if not self.frames:
            raise VideoError("no frames were captured; nothing to save")
        with atomic_output(path, suffix=f".tmp{suffix}", min_size=1) as tmp:
            if suffix == ".gif":
                self._save_gif(str(tmp), on_frame)
            else:
                self._save_mp4(str(tmp), on_frame)
            self._verify(path, tmp, suffix)
        return path

    def _verify(self, path: Path, tmp: Path, suffix: str) -> None:
        """Decode the encoder's file back; VideoError unless it holds the frames."""
        try:
            frames = _gif_frames(tmp) if suffix == ".gif" else _mp4_frames(tmp)
        except Exception as exc:  # any decoder failure means an unplayable file
            lines = [ln.strip() for ln in str(exc).splitlines() if ln.strip()]
            why = (lines[-1] if lines else type(exc).__name__)[:200]  # ffmpeg's last word
            raise VideoError(
                f"{path}: the encoder left an unreadable {suffix} file ({why}); is the disk "
                "full? Nothing was written"
            ) from None
        # a GIF merges identical consecutive frames; an mp4 keeps every one
        if frames < 1 or (suffix == ".mp4" and frames != len(self.frames)):
            raise VideoError(
                f"{path}: the encoder wrote {frames} of {len(self.frames)} frames; is the disk "
                "full? Nothing was written"
            )

    def _frames(self, on_frame):
        for i in range(len(self.frames)):
            yield self.frame(i)
            if on_frame is not None:
                on_frame()

    def _save_gif(self, tmp: str, on_frame) -> None:
        from PIL import Image

        images = (Image.fromarray(f) for f in self._frames(on_frame))
        first = next(images)
        first.save(
            tmp,
            format="GIF",
            save_all=True,
            append_images=images,  # Pillow consumes it lazily, frame by frame
            duration=round(1000.0 / self.fps),  # ms per frame (GIF stores centiseconds)
            loop=0,
        )

    def _save_mp4(self, tmp: str, on_frame) -> None:
        get_writer = _mp4_writer_factory()
        writer = get_writer(
            tmp,
            format="FFMPEG",
            mode="I",
            fps=self.fps,
            codec="libx264",
            pixelformat="yuv420p",
            macro_block_size=2,  # yuv420p needs even sides; don't resize 360 to 368
            quality=7,
        )
        try:
            for f in self._frames(on_frame):
                writer.append_data(f)
        finally:
            writer.close()


def _gif_frames(path: Path) -> int:
    """Frames in a GIF, each decoded (a truncated file raises)."""
    from PIL import Image

    with Image.open(path) as im:
        if im.format != "GIF":
            raise ValueError(f"not a GIF but {im.format}")
        n = getattr(im, "n_frames", 1)
        for i in range(n):
            im.seek(i)
            im.load()
    return n


def _mp4_frames(path: Path) -> int:
    """Frames ffmpeg decodes from an mp4 (a truncated file raises)."""
    import imageio_ffmpeg

    return int(imageio_ffmpeg.count_frames_and_secs(str(path))[0])


def _rough_stand_in(world: World) -> int:
    """Draw a rough ground as a coarse checkered mesh instead of its heightfield.

    The tiny renderer draws the heightfield's every cell (about 1.3 million triangles for
    the default 16 m field: 0.3 s a frame). This hides that visual and adds a visual-only
    body (no collision shape: physics, contacts and rays are unchanged) sampling the same
    grid every few cells, with the terrain's normals and a checker texture so the motion
    shows. Returns the stand-in's body id.
    """
    from PIL import Image

    cid, terrain = world.client, world.terrain
    n = terrain.n
    every = max(1, math.ceil((n - 1) / (ROUGH_VISUAL_MAX_SIDE - 1)))
    idx = np.unique(np.r_[np.arange(0, n, every), n - 1])
    ox, oy = terrain.origin
    x, y = np.meshgrid(ox + idx * terrain.cell, oy + idx * terrain.cell)  # grid[i, j] layout
    z = terrain.grid[np.ix_(idx, idx)]
    m = len(idx)
    corner = (np.arange(m - 1)[:, None] * m + np.arange(m - 1)[None, :]).ravel()
    triangles = np.column_stack(
        [corner, corner + 1, corner + m + 1, corner, corner + m + 1, corner + m]
    )
    span = (m - 1) * every * terrain.cell
    uvs = np.column_stack([(x.ravel() - ox) / span, (y.ravel() - oy) / span])
    shape = p.createVisualShape(
        p.GEOM_MESH,
        vertices=np.column_stack([x.ravel(), y.ravel(), z.ravel()]).tolist(),
        indices=triangles.ravel().tolist(),
        uvs=uvs.tolist(),
        normals=terrain.normal(x.ravel(), y.ravel()).tolist(),
        physicsClientId=cid,
    )
    body = p.createMultiBody(
        baseMass=0.0,
        baseCollisionShapeIndex=-1,
        baseVisualShapeIndex=shape,
        physicsClientId=cid,
    )
    squares = max(1, round(span / CHECKER_M))
    odd = (np.arange(squares)[:, None] + np.arange(squares)[None, :]) % 2 == 1
    rgb = np.where(odd[..., None], np.uint8([160, 180, 235]), np.uint8([235, 235, 235]))
    rgb = np.kron(rgb, np.ones((8, 8, 1), np.uint8)).astype(np.uint8)
    with tempfile.TemporaryDirectory() as folder:  # loadTexture reads a file
        png = os.path.join(folder, "checker.png")
        Image.fromarray(rgb).save(png)
        texture = p.loadTexture(png, physicsClientId=cid)
    p.changeVisualShape(body, -1, textureUniqueId=texture, physicsClientId=cid)
    p.changeVisualShape(world.ground_id, -1, rgbaColor=[1, 1, 1, 0], physicsClientId=cid)
    return body
