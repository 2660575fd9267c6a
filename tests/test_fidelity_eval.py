"""experiments/fidelity_eval.py: the gait-fidelity issue's bounds, applied by hand-built
summaries (every bound met, then each one missed by a little)."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "experiments"))

import fidelity_eval as fe


def _summary(**kw) -> dict:
    s = {
        "duty_by_leg": [0.70, 0.66, 0.70, 0.66],
        "touchdowns_per_stance": 1.1,
        "contact_timing_error": 0.05,
        "speed_ratio": 1.0,
        "slip_mm_per_stance": 2.0,
        "verdict": "walked",
    }
    s.update(kw)
    return s


def test_a_run_inside_every_bound_misses_none():
    assert fe.misses("fox", "flat", _summary(), 0.70) == []
    assert fe.misses("seed3", "up5", _summary(touchdowns_per_stance=1.5), 0.70) == []


@pytest.mark.parametrize(
    ("name", "cond", "change", "reason"),
    [
        ("seed3", "flat", {"duty_by_leg": [0.70, 0.70, 0.70, 0.781]}, "worst-leg duty"),
        ("seed3", "flat", {"duty_by_leg": [0.76, 0.76, 0.76, 0.76]}, "mean duty"),
        ("seed3", "flat_seed1", {"touchdowns_per_stance": 1.21}, "touchdowns"),
        ("seed3", "flat", {"contact_timing_error": 0.101}, "timing"),
        ("seed3", "flat", {"speed_ratio": 0.89}, "speed ratio"),
        ("fox", "flat", {"slip_mm_per_stance": 4.3}, "slip"),
        ("seed3", "rough1cm", {"touchdowns_per_stance": 1.51}, "touchdowns"),
        ("seed3", "down5", {"verdict": "fell"}, "verdict fell"),
    ],
)
def test_each_bound_is_applied(name, cond, change, reason):
    why = fe.misses(name, cond, _summary(**change), 0.70)
    assert len(why) == 1 and reason in why[0], why


@pytest.mark.parametrize("cond", ["flat", "up5"])
def test_a_run_with_no_touchdowns_measured_misses_that_bound(cond):
    # a walker that falls before any planned stance ends has no touchdowns per stance
    # (None in its summary): a miss, not a crash of the report
    why = fe.misses("seed3", cond, _summary(touchdowns_per_stance=None, verdict="fell"), 0.70)
    assert any("touchdowns per stance nan" in w for w in why) and "verdict fell" in why


def test_slip_is_bounded_for_the_built_in_walkers_only_and_off_flat_ground_duty_is_not():
    assert fe.misses("seed3", "flat", _summary(slip_mm_per_stance=9.0), 0.70) == []
    odd = _summary(duty_by_leg=[0.4, 0.4, 0.4, 0.4], slip_mm_per_stance=9.0)
    assert fe.misses("fox", "up5", odd, 0.70) == []


def test_the_generated_sample_is_the_issues():
    seeds = fe.generated_seeds()
    assert 38 in seeds and len(seeds) == 17


@pytest.mark.parametrize("text, want", [("40-99", range(40, 100)), ("7", range(7, 8)),
                                        (" 3 - 5 ", range(3, 6))])  # fmt: skip
def test_seed_ranges_are_inclusive(text, want):
    assert fe.seed_range(text) == want


@pytest.mark.parametrize("text", ["", "9-3", "a-b", "-4", "1-2-3"])
def test_bad_seed_ranges_say_what_is_expected(text):
    with pytest.raises(fe.argparse.ArgumentTypeError, match="A-B"):
        fe.seed_range(text)


def test_conditions_are_a_checked_subset():
    assert fe.condition_list("flat, up5") == ("flat", "up5")
    with pytest.raises(fe.argparse.ArgumentTypeError, match="flat_seed1"):
        fe.condition_list("flat,uphill")


def test_the_command_line_refuses_bad_options(capsys):
    with pytest.raises(SystemExit) as e:
        fe.main(["--seeds", "9-3"])
    assert e.value.code == 2
    assert "--seeds" in capsys.readouterr().err


def test_an_empty_sample_is_refused(capsys):
    # seed 0 draws a 12-legged gait of duty 0.36: not in the sample
    with pytest.raises(SystemExit) as e:
        fe.main(["--seeds", "0", "--no-built-in"])
    assert e.value.code == 2
    assert "no walker to run" in capsys.readouterr().err


def test_a_chosen_sample_runs_only_what_was_asked(capsys, tmp_path):
    out = tmp_path / "runs.json"
    argv = ["--seeds", "38", "--conditions", "flat", "--no-built-in", "--seconds", "1",
            "--workers", "1", "--json", str(out)]  # fmt: skip
    assert fe.main(argv) == 0
    assert list(fe.json.loads(out.read_text())) == ["seed38/flat"]
    assert " of 1 runs meet every bound" in capsys.readouterr().out


@pytest.mark.parametrize(
    ("text", "want"),
    [("kp=0.05", ("kp", 0.05)), (" motor_share = 0.25 ", ("motor_share", 0.25)),
     ("roll_compensation=false", ("roll_compensation", False)), ("kd=none", ("kd", None)),
     ("body=assist", ("body", "assist"))],
)  # fmt: skip
def test_config_settings_are_parsed_and_checked(text, want):
    assert fe.config_setting(text) == want


@pytest.mark.parametrize(
    ("text", "why"),
    [("kp", "FIELD=VALUE"), ("stiffness=1", "FIELD=VALUE"), ("kp=", "FIELD=VALUE"),
     ("kp=2", "position gain"), ("body=flying", "body must be one of")],
)  # fmt: skip
def test_bad_config_settings_say_what_is_wrong(text, why, capsys):
    with pytest.raises(SystemExit) as e:
        fe.main(["--set", text])
    assert e.value.code == 2
    assert why in capsys.readouterr().err


def test_a_setting_reaches_the_run():
    # the stiff stance gain on a trot that stands on its diagonals: the run reads it
    soft = fe.run_cell(("hound", "flat", 0.5, "pybullet"))[2]
    stiff = fe.run_cell(("hound", "flat", 0.5, "pybullet", (("kp", 0.05),)))[2]
    same = fe.run_cell(("hound", "flat", 0.5, "pybullet", (("kp", 0.03),)))[2]
    assert stiff["slip_mm_per_stance"] != soft["slip_mm_per_stance"]
    assert same["slip_mm_per_stance"] == soft["slip_mm_per_stance"]


def test_the_report_counts_the_misses_with_a_built_in_walker_in_the_sample(capsys):
    """A built-in walker's own line (its slip) and the mean slip of the whole sample
    (the per-walker slip once shadowed the sample's list and the report crashed)."""
    results = [
        ("fox", "flat", _summary(duty_by_leg=[0.70] * 4, slip_mm_per_stance=3.0)),
        ("fox", "up5", _summary(touchdowns_per_stance=1.6, slip_mm_per_stance=1.0)),
    ]
    assert fe.report(results) == 1
    out = capsys.readouterr().out
    assert "fox: touchdowns per stance 1.10" in out and "slip 3.0 mm per stance" in out
    assert "1 of 2 runs meet every bound" in out and "mean slip 2.00 mm" in out


def test_the_report_survives_a_run_with_no_touchdowns_measured(capsys):
    """A run that fell before any planned stance ended has touchdowns None: counted as a
    miss, left out of the worst figure (it once crashed the report after a whole sample)."""
    results = [
        ("fox", "flat", _summary(touchdowns_per_stance=None, verdict="fell")),
        ("fox", "up5", _summary(touchdowns_per_stance=1.3)),
        ("fox", "flat_seed1", _summary(touchdowns_per_stance=1.15)),
    ]
    assert fe.report(results) == 1
    out = capsys.readouterr().out
    assert "miss: fox flat:" in out and "fox: touchdowns per stance nan" in out
    assert "2 of 3 runs meet every bound" in out
    assert "worst touchdowns per stance 1.15 flat, 1.30 on slopes" in out


def test_the_report_counts_the_runs_by_pattern_and_height_over_half_track(capsys):
    """The fox (a lateral-sequence walk 3.4 half tracks tall) and quadruped 21 (a
    diagonal-sequence walk 5.3 tall): one line per pattern and band."""
    results = [
        ("fox", "flat", _summary()),
        ("fox", "up5", _summary(verdict="fell")),
        ("quadruped21", "up5", _summary()),
    ]
    fe.report(results)
    out = capsys.readouterr().out
    assert ("by pattern and height / half track: walk (lateral sequence), below 4: "
            "1 of 2 runs meet every bound") in out
    assert ("by pattern and height / half track: walk (diagonal sequence), 4-6: "
            "1 of 1 runs meet every bound") in out


def _write_catalog(path: Path) -> None:
    """A pace quadruped (in the sample) and a biped made of its left legs (left out)."""
    legs = [{"name": n, "side": s, "phase": ph, "knee": k, "upper": 0.3, "lower": 0.3,
             "home": [x, 0.0, z]}
            for n, s, ph, k, x, z in [("fl", "L", 0.0, "forward", 0.15, 0.3),
                                      ("fr", "R", 0.5, "forward", -0.15, 0.3),
                                      ("hl", "L", 0.0, "back", 0.15, -0.3),
                                      ("hr", "R", 0.5, "back", -0.15, -0.3)]]  # fmt: skip
    gait = {"stride": 0.3, "duty": 0.65, "lift": 0.06, "clip_speed": 0.4, "segments": legs}
    biped = dict(gait, duty=0.6, segments=[legs[0], legs[1]])
    path.write_text(fe.json.dumps({"pacer": {"gait": gait}, "hopper": {"gait": biped}}))


def test_a_users_catalog_joins_the_sample_with_its_verdict_only_walkers_named(tmp_path):
    cat = tmp_path / "mine.json"
    _write_catalog(cat)
    names, notes = fe.catalog_walkers(str(cat))
    pacer, hopper = f"{cat}{fe.CATALOG_SEP}pacer", f"{cat}{fe.CATALOG_SEP}hopper"
    assert names == [pacer, hopper]
    assert notes == ["hopper (2 legs, duty 0.6, assist body)"]
    assert not fe.verdict_only(pacer) and fe.verdict_only(hopper)
    assert not fe.verdict_only("seed3") and not fe.verdict_only("fox")
    entry = fe.walker_of(pacer)
    assert entry.gait.n_legs == 4 and entry.gait.duty == pytest.approx(0.65)


def test_a_verdict_only_walker_is_judged_by_its_verdict_alone():
    bad = _summary(touchdowns_per_stance=3.0, duty_by_leg=[0.2] * 4, speed_ratio=0.5)
    assert fe.misses("x", "flat", bad, 0.70, verdict=True) == []
    assert fe.misses("x", "up5", _summary(verdict="carried"), 0.70, verdict=True) == [
        "verdict carried"
    ]


def test_a_catalog_run_runs_its_walkers_only(tmp_path, capsys):
    cat, out = tmp_path / "mine.json", tmp_path / "runs.json"
    _write_catalog(cat)
    argv = ["--catalog", str(cat), "--no-built-in", "--conditions", "flat", "--seconds",
            "1", "--workers", "1", "--json", str(out)]  # fmt: skip
    assert fe.main(argv) in (0, 1)  # 1 s is too short for the bounds; the run is the point
    runs = fe.json.loads(out.read_text())
    assert list(runs) == [f"{cat}{fe.CATALOG_SEP}{w}/flat" for w in ("pacer", "hopper")]
    assert runs[f"{cat}{fe.CATALOG_SEP}hopper/flat"]["body"] == "assist"  # its default body
    assert runs[f"{cat}{fe.CATALOG_SEP}pacer/flat"]["body"] == "free"
    captured = capsys.readouterr()
    assert "hopper (2 legs, duty 0.6, assist body)" in captured.err
    assert "verdict only: " in captured.out and "hopper flat" in captured.out


@pytest.mark.parametrize("text", ["{not json", '{"w": {"gait": {"stride": -1}}}'])
def test_a_bad_catalog_is_refused_with_exit_2_and_the_file_named(tmp_path, capsys, text):
    cat = tmp_path / "bad.json"
    cat.write_text(text)
    with pytest.raises(SystemExit) as e:
        fe.main(["--catalog", str(cat), "--no-built-in"])
    assert e.value.code == 2
    assert "--catalog" in capsys.readouterr().err


def test_a_missing_catalog_is_refused_with_exit_2(tmp_path, capsys):
    with pytest.raises(SystemExit) as e:
        fe.main(["--catalog", str(tmp_path / "none.json"), "--no-built-in"])
    assert e.value.code == 2
    assert "none.json" in capsys.readouterr().err


@pytest.mark.parametrize(("name", "walkers"), [("user_walkers.json", 12),
                                               ("awkward_walkers.json", 10),
                                               ("sprawled_walkers.json", 7),
                                               ("animal_walkers.json", 6),
                                               ("first_catalog.json", 7),
                                               ("second_catalog.json", 14),
                                               ("third_catalog.json", 14),
                                               ("fourth_catalog.json", 14),
                                               ("fifth_catalog.json", 8),
                                               ("sixth_catalog.json", 14)])  # fmt: skip
def test_the_shipped_hand_written_catalogs_load_and_pass_the_walk_test(name, walkers):
    """The hand-written catalogs the README's figures come from stay valid catalogs whose
    every walker passes the kinematic walk test (no stance foot slides, all in reach)."""
    from gaitsim.catalog import load_catalog
    from gaitsim.validate import validate_entry

    path = Path(__file__).resolve().parents[1] / "experiments" / name
    catalog = load_catalog(str(path))
    assert len(catalog) == walkers
    failed = [k for k, e in catalog.items() if not validate_entry(e)["pass"]]
    assert failed == []


def test_the_sprawled_catalog_is_sprawled():
    """experiments/sprawled_walkers.json: every leg knee up; the harvestman's and the
    crab's thighs about three times their shins (long thighs on sprawled legs, which the
    knee floor's up-knee case covers; these five walked before it too); and the two pond
    skaters' front and hind feet nearly in line with the body, so that their default hips
    move in along it (``geometry.UP_MAX_SWEEP``), while the other five keep theirs."""
    from gaitsim.catalog import load_catalog
    from gaitsim.geometry import _default_mount_xy

    path = Path(__file__).resolve().parents[1] / "experiments" / "sprawled_walkers.json"
    catalog = load_catalog(str(path))
    assert {leg.knee for e in catalog.values() for leg in e.gait.legs} == {"up"}
    for name in ("harvestman", "longthigh_crab"):
        assert all(leg.upper >= 2.9 * leg.lower for leg in catalog[name].gait.legs)
    for name, entry in catalog.items():
        moved = [abs(_default_mount_xy(entry.gait, leg)[0] - leg.home[0]) > 0.05
                 for leg in entry.gait.legs]  # fmt: skip
        skater = name.endswith("_skater")
        assert moved == [skater and leg.name[1] in "fh" for leg in entry.gait.legs], name


def test_the_lopsided_sample_is_the_walkers_that_change():
    """``--lopsided-knees``: the seeds whose generated walker can have one hind knee
    forward and one back, drawn so (``lopsidedN``), and no other seed."""
    from gaitsim.generate import random_entry

    seeds = fe.generated_seeds(range(200, 260), lopsided=True)
    assert seeds == [201, 231, 247, 255]
    knees = [leg.knee for leg in fe.walker_of("lopsided201").gait.legs]
    assert knees == ["back", "back", "back", "forward"]
    assert fe.walker_of("seed201") == random_entry(201)
    assert [leg.knee for leg in fe.walker_of("seed201").gait.legs] == ["back"] * 4


def test_the_mixed_sample_is_the_mixed_walkers_within_the_bounds():
    """``--mixed-legs``: the seeds whose walker drawn with ``mixed_legs`` has four or more
    legs and duty >= 0.5 (``mixedN``)."""
    from gaitsim.generate import random_entry

    seeds = fe.generated_seeds(range(1000, 1012), mixed=True)
    assert seeds == [s for s in range(1000, 1012)
                     if fe.in_bounds(random_entry(s, mixed_legs=True).gait)]  # fmt: skip
    assert seeds and fe.walker_of(f"mixed{seeds[0]}") == random_entry(seeds[0], mixed_legs=True)
    assert fe.walker_of(f"mixed{seeds[0]}") != random_entry(seeds[0])


def test_every_kind_runs_every_walker_and_judges_the_rest_by_verdict(capsys, tmp_path):
    # seed 0: a 12-legged gait of duty 0.36 (the assist, its verdict alone); 38: a trot
    out = tmp_path / "runs.json"
    argv = ["--seeds", "0-0", "--every-kind", "--conditions", "flat", "--no-built-in",
            "--seconds", "1", "--workers", "1", "--json", str(out)]  # fmt: skip
    fe.main(argv)
    runs = fe.json.loads(out.read_text())
    assert list(runs) == ["any0/flat"] and runs["any0/flat"]["body"] == "assist"
    assert "verdict only: any0 flat" in capsys.readouterr().out
    assert fe.verdict_only("any0") and not fe.verdict_only("any38")


def test_the_flight_sample_is_the_gaits_with_flight_phases():
    """``--flight-gaits``: every plain or mixed-legged walker of the seeds with some part
    of its cycle with no foot down, judged by its verdict on its default body."""
    from gaitsim.generate import random_entry
    from gaitsim.geometry import flight_share

    names = fe.flight_names(range(0, 12))
    assert names and all(n.startswith("flight") for n in names)
    for s in range(12):
        plain, mixed = random_entry(s), random_entry(s, mixed_legs=True)
        assert (f"flight{s}" in names) == (flight_share(plain.gait) > 0)
        assert (f"flightm{s}" in names) == (mixed != plain and flight_share(mixed.gait) > 0)
    for n in names:
        assert flight_share(fe.walker_of(n).gait) > 0 and fe.verdict_only(n)
    assert any(n.startswith("flightm") for n in names)


def test_the_samples_are_one_at_a_time(capsys):
    with pytest.raises(SystemExit) as e:
        fe.main(["--mixed-legs", "--every-kind"])
    assert e.value.code == 2
    assert "different samples" in capsys.readouterr().err
    with pytest.raises(SystemExit) as e:
        fe.main(["--every-kind", "--flight-gaits"])
    assert e.value.code == 2
    assert "different samples" in capsys.readouterr().err


def test_the_irregular_sample_is_the_irregular_generators_walkers():
    """``--irregular``: irregularN is ``irregular_entry(N)``; a three-legged one is judged by
    its verdict on its default body, the others by the bounds."""
    from gaitsim.generate import irregular_entry

    for s in range(12):
        name = f"irregular{s}"
        entry = fe.walker_of(name)
        assert entry == irregular_entry(s)
        assert fe.verdict_only(name) == (entry.gait.n_legs < 4)
    with pytest.raises(SystemExit) as e:
        fe.main(["--irregular", "--flight-gaits"])
    assert e.value.code == 2


def test_the_quadruped_sample_is_the_quadruped_generators_walks():
    """``--quadruped-walks``: quadrupedN is ``quadruped_entry(N)``, judged by the bounds (four
    legs, duty >= 0.55); it is a sample of its own."""
    from gaitsim.generate import quadruped_entry

    for s in range(8):
        name = f"quadruped{s}"
        assert fe.walker_of(name) == quadruped_entry(s)
        assert not fe.verdict_only(name) and fe.in_bounds(fe.walker_of(name).gait)
    with pytest.raises(SystemExit) as e:
        fe.main(["--quadruped-walks", "--irregular"])
    assert e.value.code == 2


def test_the_striding_sample_is_the_striding_generators_bipeds_judged_by_their_verdict():
    """``--striding-bipeds``: stridingN is ``striding_entry(N)``, a biped (outside the
    bounds), so it runs on its default body and is judged by its verdict; a sample of its
    own."""
    from gaitsim.generate import striding_entry

    for s in range(6):
        name = f"striding{s}"
        assert fe.walker_of(name) == striding_entry(s)
        assert fe.verdict_only(name) and not fe.in_bounds(fe.walker_of(name).gait)
    with pytest.raises(SystemExit) as e:
        fe.main(["--striding-bipeds", "--quadruped-walks"])
    assert e.value.code == 2


def test_a_pattern_keeps_only_the_walkers_of_that_footfall(capsys, tmp_path):
    from gaitsim.catalog import gait_pattern

    names = ["fox", "horn_beetle", "spider_bot"] + [f"seed{s}" for s in fe.generated_seeds()]
    trots = fe.with_pattern(names, " Trot ")
    assert trots and all(gait_pattern(fe.walker_of(n).gait) == "trot" for n in trots)
    assert "fox" not in trots and fe.with_pattern(names, "walk (lateral sequence)")[0] == "fox"
    assert fe.with_pattern(names, "gallop") == []
    out = tmp_path / "runs.json"
    first = next(n for n in trots if n.startswith("seed"))
    argv = ["--seeds", f"0-{first[4:]}", "--pattern", "trot", "--conditions", "flat",
            "--no-built-in", "--seconds", "1", "--workers", "1", "--json", str(out)]  # fmt: skip
    assert fe.main(argv) == 0
    assert list(fe.json.loads(out.read_text())) == [f"{first}/flat"]
    with pytest.raises(SystemExit) as e:
        fe.main(["--seeds", "0-39", "--no-built-in", "--pattern", "gallop"])
    assert e.value.code == 2 and "'gallop'" in capsys.readouterr().err


def test_the_first_catalog_s_dog_is_written_as_a_diagonal_walk_and_its_twin_as_a_lateral():
    """experiments/first_catalog.json (stop 58): the dog's phases are written as landing
    times (left hind 0, left fore 0.25, right hind 0.5, right fore 0.75), which makes a
    diagonal-sequence walk; ``dog_lateral`` is the same dog with its fore phases swapped;
    the two bipeds get the assist by default, one for its stride, one for its tempo."""
    from gaitsim.catalog import gait_pattern, load_catalog
    from gaitsim.geometry import geometry
    from gaitsim.sim.run import LONG_STRIDE, default_body, stride_ratio
    from gaitsim.sim.stance import steps_slowly

    path = Path(__file__).resolve().parents[1] / "experiments" / "first_catalog.json"
    catalog = load_catalog(str(path))
    assert gait_pattern(catalog["dog"].gait) == "walk (diagonal sequence)"
    assert gait_pattern(catalog["dog_lateral"].gait) == "walk (lateral sequence)"
    assert [leg.phase for leg in catalog["dog"].gait.legs] == [0.25, 0.75, 0.0, 0.5]
    assert [leg.phase for leg in catalog["dog_lateral"].gait.legs] == [0.75, 0.25, 0.0, 0.5]
    assert default_body(catalog["chicken"]) == default_body(catalog["humanoid"]) == "assist"
    assert stride_ratio(catalog["chicken"]) > LONG_STRIDE
    human = catalog["humanoid"]
    assert steps_slowly(human.gait, geometry(human.gait).hip_height)
    assert stride_ratio(human) < LONG_STRIDE


def test_the_second_catalog_names_its_flight_gaits_and_bodies():
    """experiments/second_catalog.json (stop 59), written before running it: the kangaroo
    and the hopper are hops (both feet at one phase), the pronk a pronk; all three, and the
    bounder (duty 0.45), get the assist by default for their flight phases; the cat's
    phases, written as landing times, make a diagonal-sequence walk; the three-legged and
    the point-footed gecko trot (whose line stands let a drift grow) get the assist, the
    others a free body."""
    from gaitsim.catalog import gait_pattern, load_catalog
    from gaitsim.geometry import flight_gait, flight_share
    from gaitsim.sim.run import default_body

    path = Path(__file__).resolve().parents[1] / "experiments" / "second_catalog.json"
    catalog = load_catalog(str(path))
    patterns = {k: gait_pattern(e.gait) for k, e in catalog.items()}
    assert patterns["kangaroo"] == patterns["hopper"] == "hop"
    assert patterns["pronk"] == "pronk" and patterns["bounder"] == "bound"
    assert patterns["cat"] == "walk (diagonal sequence)"
    flying = {k for k, e in catalog.items() if flight_gait(e.gait)}
    assert flying == {"kangaroo", "hopper", "pronk", "bounder"}
    assert flight_share(catalog["kangaroo"].gait) == pytest.approx(0.6, abs=0.01)
    assert flight_share(catalog["pronk"].gait) == pytest.approx(0.3, abs=0.01)
    bodies = {k: default_body(e) for k, e in catalog.items()}
    assert {k for k, b in bodies.items() if b == "assist"} == flying | {"gecko", "tripod3"}


def test_the_third_catalog_names_its_gaits_and_bodies():
    """experiments/third_catalog.json (stop 60), written before running it: the greyhound
    is a rotary gallop (fore right, fore left, hind left, hind right: round the body) with
    flight phases; the slow point-footed trots (table_bot, the mouse), whose line stands
    let a drift grow, and the two bipeds get the assist, the others a free body; the
    tortoise's hips sit at the sides of the body it was written with."""
    import numpy as np

    from gaitsim.catalog import gait_pattern, load_catalog
    from gaitsim.geometry import flight_gait, geometry
    from gaitsim.sim.run import default_body

    path = Path(__file__).resolve().parents[1] / "experiments" / "third_catalog.json"
    catalog = load_catalog(str(path))
    patterns = {k: gait_pattern(e.gait) for k, e in catalog.items()}
    assert patterns["greyhound"] == "gallop (rotary)"
    assert patterns["camel_pace"] == "pace" and patterns["table_bot"] == "trot"
    assert patterns["hyena"] == "walk (lateral sequence)"
    assert patterns["tortoise"] == patterns["dachshund"] == "walk (diagonal sequence)"
    assert {k for k, e in catalog.items() if flight_gait(e.gait)} == {"greyhound"}
    bodies = {k: default_body(e) for k, e in catalog.items()}
    assert {k for k, b in bodies.items() if b == "assist"} == {
        "greyhound", "table_bot", "mouse", "chicken", "humanoid"}
    tortoise = geometry(catalog["tortoise"].gait)
    assert np.abs(tortoise.mounts[:, 1]) == pytest.approx(0.125)  # half the body's width



def test_fall_time_under_keeps_the_small_walkers():
    """``--fall-time-under S`` keeps the walkers whose fall time is under S: of the
    built-in walkers, the horn beetle (0.0766 s) under 0.08, none under 0.0765; of the
    every-kind seeds 0-1099, 91 under 0.0765 (stop 60's small sample)."""
    from gaitsim.geometry import fall_time, geometry

    assert fe.with_fall_time_under(list(fe.BUILT_IN), 0.08) == ["horn_beetle"]
    assert fe.with_fall_time_under(list(fe.BUILT_IN), 0.0765) == []
    small = fe.with_fall_time_under([f"any{s}" for s in range(1100)], 0.0765)
    assert len(small) == 91
    assert all(fall_time(geometry(fe.walker_of(n).gait)) < 0.0765 for n in small)
