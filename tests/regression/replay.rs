//! Replay of motion capture and parameter identification: a replay of a recording excerpt gives
//! finite error figures, the same on every run, and beats the naive baselines; the simulated
//! string never stretches beyond its length during a replay (a loosening the free motion does
//! not follow is caught, not escaped through); and `fit` recovers the friction coefficient and
//! the spin inertia of a synthetic recording made by the simulator itself with known values.

use approx::abs_diff_eq;
use diabolo::fit::{fit, FitOptions, FreeParameter};
use diabolo::model::{ParamValues, Params};
use diabolo::replay::{
    effective_length, replay, start_simulation, statistics, InitialEstimate, LengthEstimate,
    Recording, ReplayOptions, AXLE_RADIUS,
};
use diabolo::simulation::drive::{Drive, Path};
use diabolo::simulation::{RunError, Settings, Simulation};
use nalgebra::Vector2;

fn recording(name: &str, until: f64) -> Recording {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("data/omron")
        .join(name);
    let mut rec = Recording::read(&path).unwrap();
    let keep = rec.t.iter().take_while(|t| **t <= until).count();
    rec.t.truncate(keep);
    rec.left.truncate(keep);
    rec.right.truncate(keep);
    rec.dia.truncate(keep);
    rec.spin.truncate(keep);
    rec
}

fn reference_options() -> ReplayOptions {
    ReplayOptions {
        horizons: vec![0.2, 0.5, 1.0],
        params: ParamValues {
            friction: 0.25,
            spin_inertia: 50.0,
            spin_drag: 0.0,
            ..Default::default()
        },
        ..Default::default()
    }
}

#[test]
fn replay_of_an_excerpt_is_finite_reproducible_and_beats_the_baselines() {
    let rec = recording("y_swing_1_seg1.csv", 3.0);
    let options = reference_options();
    let a = replay(&rec, &options).unwrap();
    let b = replay(&rec, &options).unwrap();
    assert_eq!(a, b);
    let stats = statistics(&a, &options.horizons);
    for s in &stats {
        assert!(s.n >= 4, "{s:?}");
        assert!(
            s.mean.is_finite()
                && s.median.is_finite()
                && s.p90.is_finite()
                && s.vel_mean.is_finite()
                && s.spin_mean.is_finite()
        );
        assert!(s.mean < 0.1, "{s:?}");
        assert!(s.mean < s.stay_mean && s.mean < s.midpoint_mean, "{s:?}");
    }
}

#[test]
fn the_string_never_stretches_during_a_replay() {
    // From this start the string loosens where the hands pull it apart: the loose phase must
    // come back to the taut string, not let the diabolo leave its reach.
    let rec = recording("y_swing_1_seg1.csv", 3.5);
    let options = reference_options();
    let length = effective_length(&rec, LengthEstimate::MedianTaut);
    let params = Params::new(ParamValues {
        string_length: length,
        ..options.params
    })
    .unwrap();
    let sim = start_simulation(&rec, &options, &params, 0.85, 2.0)
        .unwrap()
        .simulation;
    let mut worst = 0.0_f64;
    let report = sim.run(&mut |row| worst = worst.min(row.slack));
    assert!(report.failure.is_none(), "{:?}", report.failure);
    assert!(worst > -1e-9 * length, "slack down to {worst:e} m");
}

/// A recording made by the simulator: both hands on sines, a spinning diabolo, 120 Hz.
fn synthetic(friction: f64, spin_inertia: f64) -> Recording {
    synthetic_with(ParamValues {
        friction,
        spin_inertia,
        string_length: 1.45,
        ..Default::default()
    })
}

/// [`synthetic`] with any parameters.
fn synthetic_with(values: ParamValues) -> Recording {
    let p = Params::new(values).unwrap();
    let sine = |cx: f64, ax: f64, ay: f64, f: f64, ph: f64| {
        Drive::Path(Path::Sine {
            center: Vector2::new(cx, 0.0),
            amplitude: Vector2::new(ax, ay),
            frequency: f,
            phase: Vector2::new(ph, ph + 1.0),
        })
    };
    let drives = [
        sine(-0.3, 0.1, 0.12, 0.9, 0.0),
        sine(0.3, 0.08, 0.15, 1.3, 2.0),
    ];
    let left = drives[0].path().unwrap().at(0.0).pos;
    let right = drives[1].path().unwrap().at(0.0).pos;
    let state =
        diabolo::model::CartesianState::hanging(&p, left.into(), right.into(), 0.05, 0.6).unwrap();
    let settings = Settings {
        duration: 4.0,
        output_interval: 1.0 / 120.0,
        rtol: 1e-10,
        atol: 1e-13,
        ..Default::default()
    };
    let sim = Simulation::new(p, drives, state, settings).unwrap();
    let mut rec = Recording {
        name: "synthetic".into(),
        t: vec![],
        left: vec![],
        right: vec![],
        dia: vec![],
        spin: vec![],
        space: None,
    };
    let report = sim.run(&mut |row| {
        rec.t.push(row.t);
        rec.left.push(row.state.left.pos);
        rec.right.push(row.state.right.pos);
        rec.dia.push(row.state.diabolos[0].pos);
        rec.spin.push(-row.state.diabolos[0].spin / AXLE_RADIUS);
    });
    assert!(report.failure.is_none(), "{:?}", report.failure);
    rec
}

#[test]
fn fit_recovers_known_parameters_from_a_synthetic_recording() {
    let rec = synthetic(0.2, 30.0);
    let options = FitOptions {
        replay: ReplayOptions {
            horizons: vec![0.2, 0.5, 1.0],
            stride: 0.4,
            params: ParamValues {
                friction: 0.12,
                spin_inertia: 60.0,
                ..Default::default()
            },
            ..Default::default()
        },
        free: vec![FreeParameter::Friction, FreeParameter::SpinInertia],
        spin_weight: 1e-3,
        tilt_weight: diabolo::fit::DEFAULT_TILT_WEIGHT,
        max_iterations: 60,
    };
    let report = fit(std::slice::from_ref(&rec), &options).unwrap();
    let (c, j) = (
        report.fitted.params.friction,
        report.fitted.params.spin_inertia,
    );
    assert!(abs_diff_eq!(c, 0.2, epsilon = 0.01), "c = {c} ({report:?})");
    assert!(abs_diff_eq!(j, 30.0, epsilon = 3.0), "J = {j} ({report:?})");
    assert!(
        report.objective_after < 0.2 * report.objective_before,
        "{report:?}"
    );
}

// The compliant string's parameters are recovered the same way: a recording made with
// EA = 150 N, eta = 1 N s, fitted from EA = 250 N, eta = 0.3 N s with the string's unstretched
// length given. Measured: EA 149.3 N, eta 1.03 N s.
#[test]
fn fit_recovers_the_stiffness_and_damping_of_a_synthetic_compliant_recording() {
    let truth = ParamValues {
        friction: 0.2,
        spin_inertia: 30.0,
        string_length: 1.45,
        string_stiffness: Some(150.0),
        string_damping: 1.0,
        ..Default::default()
    };
    let rec = synthetic_with(truth);
    let options = FitOptions {
        replay: ReplayOptions {
            horizons: vec![0.2, 0.5, 1.0],
            stride: 0.4,
            length: LengthEstimate::Fixed(1.45),
            params: ParamValues {
                string_stiffness: Some(250.0),
                string_damping: 0.3,
                ..truth
            },
            ..Default::default()
        },
        free: vec![FreeParameter::StringStiffness, FreeParameter::StringDamping],
        spin_weight: 1e-3,
        tilt_weight: diabolo::fit::DEFAULT_TILT_WEIGHT,
        max_iterations: 60,
    };
    let report = fit(std::slice::from_ref(&rec), &options).unwrap();
    let p = &report.fitted.params;
    let (ea, eta) = (p.string_stiffness.unwrap(), p.string_damping);
    assert!(abs_diff_eq!(ea, 150.0, epsilon = 3.0), "EA = {ea}");
    assert!(abs_diff_eq!(eta, 1.0, epsilon = 0.1), "eta = {eta}");
    assert!(
        report.objective_after < 0.2 * report.objective_before,
        "{report:?}"
    );
}

// The throw's launch file (the tips pulled 1.477 m apart, more than the string's length) replays
// at every start with the compliant string fitted on the omron recordings; the inextensible
// string loses the 14 starts of the launch (from 0.95 s to 1.275 s).
#[test]
fn a_compliant_replay_of_a_throw_keeps_every_start() {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let rec = Recording::read(&path.join("data/throws/throw_1_seg1.csv")).unwrap();
    let replay_with = |file: &str| {
        let mut options = diabolo::fit::ParamsFile::read(&path.join("validation").join(file))
            .unwrap()
            .replay_options()
            .unwrap();
        options.horizons = vec![0.1, 0.2];
        options.stride = 0.025;
        options.length = LengthEstimate::Fixed(1.449);
        let results = replay(&rec, &options).unwrap();
        let failed: Vec<f64> = results
            .iter()
            .filter(|r| r.failure.is_some())
            .map(|r| r.start)
            .collect();
        (
            results.len(),
            failed,
            statistics(&results, &options.horizons),
        )
    };
    let (starts, failed, stats) = replay_with("omron_fitted_compliant.json");
    assert_eq!(starts, 42);
    assert!(failed.is_empty(), "{failed:?}");
    assert!(stats[1].mean < 0.03, "{stats:?}");
    let (_, failed, _) = replay_with("omron_fitted.json");
    assert!(failed.len() >= 10, "{failed:?}");
    assert!(
        failed.iter().all(|&t| (0.9..1.3).contains(&t)),
        "{failed:?}"
    );
}

#[test]
fn a_start_where_neither_phase_is_consistent_runs_through() {
    // At 0.616 s after this start T0 falls through zero while the hands' motion stretches the
    // free string: loosening is undone at once. The string stays taut (a zero-impulse tense)
    // instead of chattering between the phases until the event cap ends the run.
    let rec = recording("y_swing_1_seg1.csv", 100.0);
    let options = reference_options();
    let params = diabolo::replay::recording_params(&rec, &options).unwrap();
    let sim = start_simulation(&rec, &options, &params, 6.0, 2.0)
        .unwrap()
        .simulation;
    let mut worst = 0.0_f64;
    let report = sim.run(&mut |row| worst = worst.min(row.slack));
    // Past the inconsistent instant; the ledger watch (issue 31) then finds the ledger open by
    // 4.7 mJ at 1.835 s (cause not found yet), and says so instead of ok.
    match &report.failure {
        None => {}
        Some(RunError::LedgerOpen { t, .. }) if *t > 1.5 => {}
        other => panic!("{other:?}"),
    }
    assert!(report.events.len() < 100, "{} events", report.events.len());
    assert!(
        worst > -1e-9 * params.string_length,
        "slack down to {worst:e} m"
    );
}

#[test]
fn replay_command_reports_json_and_refuses_bad_options() {
    let file = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("data/omron/deceleration_diabolo_red_2.csv");
    let run = |extra: &[&str]| {
        std::process::Command::new(env!("CARGO_BIN_EXE_diabolo"))
            .arg("replay")
            .arg(&file)
            .args(extra)
            .output()
            .unwrap()
    };
    let out = run(&["--json", "--horizons", "0.2,1"]);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let report: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let horizons = report["horizons"].as_array().unwrap();
    assert_eq!(horizons.len(), 2);
    for h in horizons {
        assert!(
            h["n"].as_u64().unwrap() > 0
                && h["mean"].as_f64().unwrap().is_finite()
                && h["p90"].as_f64().is_some()
        );
    }
    assert_eq!(report["dropped"], 0);
    for bad in [
        &["--hand-smoothing", "0"][..],
        &["--length", "long"],
        &["--horizons", "0.3333"],
        &["--window", "0"],
        &["--initial", "future"],
    ] {
        assert_eq!(run(bad).status.code(), Some(2), "{bad:?}");
    }
}

#[test]
fn assimilation_recovers_the_motion_of_a_simulated_recording() {
    // A recording made by the simulator has no noise and no unmodelled motion: the state that
    // the assimilation fits to the 0.2 s before each start must continue the recorded motion,
    // up to the sampling of the hands (local cubics on 120 Hz frames) and the comparison's
    // linear interpolation between frames (below 1e-4 m). The cubic differentiator, which
    // ignores the string, is the yardstick.
    let rec = synthetic(0.2, 30.0);
    let options = |initial| ReplayOptions {
        horizons: vec![0.2, 0.5, 1.0],
        stride: 0.4,
        params: ParamValues {
            friction: 0.2,
            spin_inertia: 30.0,
            ..Default::default()
        },
        length: LengthEstimate::Fixed(1.45),
        initial,
        ..Default::default()
    };
    let errors = |initial| {
        let o = options(initial);
        statistics(&replay(&rec, &o).unwrap(), &o.horizons)
    };
    let assimilated = errors(InitialEstimate::Assimilated { window: 0.2 });
    let cubic = errors(InitialEstimate::PastCubic);
    for (a, c) in assimilated.iter().zip(&cubic) {
        assert!(a.n >= 5 && a.dropped == 0, "{a:?}");
        // Measured: 4.5e-6 to 7.4e-6 m and 0.001 rad/s; the cubic 0.6 to 2.6 mm.
        assert!(a.mean < 1e-4, "assimilated {a:?}");
        assert!(a.spin_mean < 0.01, "assimilated {a:?}");
        assert!(a.mean < 0.2 * c.mean, "assimilated {a:?}, cubic {c:?}");
    }
}

#[test]
fn assimilation_uses_no_frame_after_the_start() {
    // Changing every diabolo frame and spin after the start must not change the prediction:
    // the hands after the start drive the model, the diabolo after it is only scored.
    let rec = recording("y_swing_1_seg1.csv", 3.5);
    let mut altered = rec.clone();
    let start = 2.0;
    for i in 0..altered.t.len() {
        if altered.t[i] > start + 1e-9 {
            altered.dia[i] += Vector2::new(0.3, -0.2);
            altered.spin[i] += 50.0;
        }
    }
    // The string length is fixed here: the default estimate is a calibration of the whole
    // recording (the median of its taut frames), not part of the initial state.
    let options = ReplayOptions {
        length: LengthEstimate::Fixed(1.444),
        ..reference_options()
    };
    let trajectory = |rec: &Recording| {
        let params = diabolo::replay::recording_params(rec, &options).unwrap();
        let run = start_simulation(rec, &options, &params, start, 1.0).unwrap();
        let mut rows = Vec::new();
        let report = run
            .simulation
            .run(&mut |row| rows.push(row.state.diabolos[0]));
        assert!(report.failure.is_none(), "{:?}", report.failure);
        rows
    };
    assert_eq!(trajectory(&rec), trajectory(&altered));
}

#[test]
fn read_dir_lists_the_recordings_by_name_and_names_a_missing_folder() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("data/omron");
    let names: Vec<String> = Recording::read_dir(&dir)
        .unwrap()
        .into_iter()
        .map(|r| r.name)
        .collect();
    assert_eq!(
        names,
        [
            "acceleration_1",
            "deceleration_diabolo_red_2",
            "right_hand_extend_1",
            "y_swing_1_seg1",
            "z_hop_1"
        ]
    );
    let missing = Recording::read_dir(&dir.join("nowhere"))
        .unwrap_err()
        .to_string();
    assert!(
        missing.contains("nowhere") && missing.contains("cannot list"),
        "{missing}"
    );
}

#[test]
fn steps_end_at_the_recorded_frames_so_few_are_rejected() {
    // A recorded hand path is a quintic between frames: its jerk jumps at every frame (120 Hz).
    // Steps that straddled the frames were rejected 1,448 times in 2,360 steps on this start
    // (measured on the whole recording);
    // ending the steps at the frames (drive breakpoints) leaves 141 in 1,463. A count, not a
    // timing: it is the same on every machine.
    let rec = recording("y_swing_1_seg1.csv", 4.5);
    let options = ReplayOptions {
        initial: InitialEstimate::PastCubic,
        ..reference_options()
    };
    let params = diabolo::replay::recording_params(&rec, &options).unwrap();
    let sim = start_simulation(&rec, &options, &params, 2.0, 2.0)
        .unwrap()
        .simulation;
    let report = sim.run(&mut |_| {});
    assert!(report.failure.is_none(), "{:?}", report.failure);
    let stats = report.stats;
    assert!(
        stats.rejected_steps * 4 < stats.steps,
        "{} of {} steps rejected",
        stats.rejected_steps,
        stats.steps
    );
}

/// A still recording: hands 0.6 m apart at 1.5 m, the diabolo below them, 120 Hz.
fn still_recording(seconds: f64) -> Recording {
    let frames = (seconds * 120.0) as usize + 1;
    Recording {
        name: "still".into(),
        t: (0..frames).map(|i| i as f64 / 120.0).collect(),
        left: vec![Vector2::new(-0.3, 1.5); frames],
        right: vec![Vector2::new(0.3, 1.5); frames],
        dia: vec![Vector2::new(0.0, 0.9); frames],
        spin: vec![60.0; frames],
        space: None,
    }
}

#[test]
fn replay_refuses_strides_below_the_frame_interval_and_too_many_starts() {
    let rec = still_recording(3.0);
    let options = |stride| ReplayOptions {
        stride,
        ..reference_options()
    };
    // --stride 1e-9 took 4 GB for the list of starts.
    let error = replay(&rec, &options(1e-9)).unwrap_err().to_string();
    assert!(
        error.contains("--stride") && error.contains("frame interval"),
        "{error}"
    );
    let long = still_recording(300.0);
    let error = replay(&long, &options(1.0 / 120.0))
        .unwrap_err()
        .to_string();
    assert!(
        error.contains(&diabolo::replay::MAX_STARTS.to_string()),
        "{error}"
    );
}

#[test]
fn replay_refuses_horizons_too_many_or_longer_than_the_recording() {
    let rec = still_recording(3.0);
    for (horizons, needle) in [
        (vec![5.0], "longer than the recording"),
        (vec![0.2, f64::NAN], "positive horizons"),
        (vec![0.005; 101], "at most 100"),
    ] {
        let options = ReplayOptions {
            horizons,
            ..reference_options()
        };
        let error = replay(&rec, &options).unwrap_err().to_string();
        assert!(
            error.contains("--horizons") && error.contains(needle),
            "{error}"
        );
    }
}

/// A recording as a file: the hands move apart from 0.5 m to 0.8 m in 3 s.
fn parting_hands_file(dir: &std::path::Path) -> std::path::PathBuf {
    let mut text =
        String::from("# hands parting\nt,left_x,left_y,right_x,right_y,dia_x,dia_y,spin\n");
    for i in 0..=360 {
        let t = i as f64 / 120.0;
        let half = 0.25 + 0.05 * t;
        text.push_str(&format!(
            "{t:?},{:?},1.5,{half:?},1.5,0.0,1.0,60.0\n",
            -half
        ));
    }
    let path = dir.join("parting.csv");
    std::fs::write(&path, text).unwrap();
    path
}

fn scratch(name: &str) -> std::path::PathBuf {
    let d = std::env::temp_dir().join(format!("diabolo-replay-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

fn replay_command(args: &[&std::ffi::OsStr]) -> std::process::Output {
    std::process::Command::new(env!("CARGO_BIN_EXE_diabolo"))
        .arg("replay")
        .args(args)
        .output()
        .unwrap()
}

#[test]
fn dropped_starts_are_listed_with_their_time_and_error() {
    // A string of 1.3 m: once the hands are more than 1.3 m apart the run fails; starts later
    // than that cannot even begin.
    let dir = scratch("dropped");
    let file = parting_hands_file(&dir);
    let common = ["--length", "0.65", "--horizons", "0.2", "--stride", "0.5"];
    let mut args: Vec<&std::ffi::OsStr> = vec![file.as_os_str()];
    args.extend(common.iter().map(std::ffi::OsStr::new));
    let out = replay_command(&args);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let table = String::from_utf8_lossy(&out.stdout).to_string();
    let count: usize = table
        .lines()
        .find_map(|l| l.strip_prefix("dropped (run failed): "))
        .unwrap()
        .parse()
        .unwrap();
    assert!(count > 0, "{table}");
    let listed: Vec<&str> = table
        .lines()
        .filter(|l| l.starts_with("  start at t = "))
        .collect();
    assert_eq!(listed.len(), count, "{table}");
    assert!(
        listed.iter().all(|l| l.contains(" s: ") && l.len() > 30),
        "{table}"
    );

    args.push(std::ffi::OsStr::new("--json"));
    let out = replay_command(&args);
    let report: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let dropped = report["dropped_starts"].as_array().unwrap();
    assert_eq!(dropped.len(), count);
    assert_eq!(report["dropped"], count);
    for d in dropped {
        assert!(d["start"].as_f64().unwrap() > 0.0, "{d}");
        assert!(!d["error"].as_str().unwrap().is_empty(), "{d}");
    }
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn recordings_with_cells_that_are_not_numbers_name_the_line_and_column() {
    let dir = scratch("cells");
    let file = parting_hands_file(&dir);
    let text = std::fs::read_to_string(&file).unwrap();
    for cell in ["abc", "", "0x10", "inf"] {
        let bad: Vec<String> = text
            .lines()
            .enumerate()
            .map(|(i, l)| {
                if i == 4 {
                    l.replacen(",1.5,", &format!(",{cell},"), 1)
                } else {
                    l.to_string()
                }
            })
            .collect();
        let error = Recording::parse("bad", &bad.join("\n")).unwrap_err();
        assert!(error.contains("line 5, column left_y"), "{error}");
        let path = dir.join("bad.csv");
        std::fs::write(&path, bad.join("\n")).unwrap();
        let out = replay_command(&[path.as_os_str()]);
        assert_eq!(out.status.code(), Some(2));
        let message = String::from_utf8_lossy(&out.stderr);
        assert!(
            message.contains("bad.csv") && message.contains("line 5, column left_y"),
            "{message}"
        );
    }
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn fit_refuses_endless_iterations_and_weights_that_are_not_numbers() {
    let rec = still_recording(3.0);
    let options = |max_iterations, spin_weight| FitOptions {
        replay: reference_options(),
        free: vec![FreeParameter::Friction],
        spin_weight,
        tilt_weight: diabolo::fit::DEFAULT_TILT_WEIGHT,
        max_iterations,
    };
    let error = fit(std::slice::from_ref(&rec), &options(1_000_000_000, 1e-3))
        .unwrap_err()
        .to_string();
    assert!(
        error.contains("--iterations") && error.contains("1000"),
        "{error}"
    );
    let error = fit(&[rec], &options(60, f64::NAN)).unwrap_err().to_string();
    assert!(error.contains("--spin-weight"), "{error}");

    let dir = scratch("fit");
    let file = parting_hands_file(&dir);
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_diabolo"))
        .arg("fit")
        .arg(&file)
        .args(["--iterations", "1000000000"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("--iterations"));
    let _ = std::fs::remove_dir_all(&dir);
}

/// A shipped recording of `data/`.
fn shipped(path: &str) -> std::path::PathBuf {
    std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("data")
        .join(path)
}

fn stdout_json(out: &std::process::Output) -> serde_json::Value {
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).unwrap()
}

#[test]
fn replay_of_a_folder_replays_each_recording_by_name_as_alone() {
    let dir = scratch("folder");
    let parting = parting_hands_file(&dir);
    let seg2 = dir.join("b_throw_1_seg2.csv");
    std::fs::copy(shipped("throws/throw_1_seg2.csv"), &seg2).unwrap();
    std::fs::write(dir.join("notes.txt"), "not a recording").unwrap();
    let common = ["--horizons", "0.2", "--stride", "0.25", "--json", "-q"];
    let run = |input: &std::path::Path, extra: &[&str]| {
        let mut args: Vec<&std::ffi::OsStr> = vec![input.as_os_str()];
        args.extend(common.iter().chain(extra).map(std::ffi::OsStr::new));
        replay_command(&args)
    };
    let errors = dir.join("errors.csv");
    let folder = stdout_json(&run(&dir, &["-o", errors.to_str().unwrap()]));
    let folder = folder.as_array().unwrap();
    let names: Vec<&str> = folder
        .iter()
        .map(|r| r["recording"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["b_throw_1_seg2", "parting"]);
    // Each recording's report is the one it gets replayed alone.
    assert_eq!(folder[0], stdout_json(&run(&seg2, &[])));
    assert_eq!(folder[1], stdout_json(&run(&parting, &[])));
    // The per-start errors name each line's recording.
    let text = std::fs::read_to_string(&errors).unwrap();
    let mut lines = text.lines();
    assert!(lines
        .next()
        .unwrap()
        .starts_with("recording,start,horizon,"));
    let starts = |name: &str| {
        text.lines()
            .filter(|l| l.starts_with(&format!("{name},")))
            .count() as u64
    };
    for report in folder {
        let name = report["recording"].as_str().unwrap();
        assert_eq!(starts(name), report["starts"].as_u64().unwrap(), "{name}");
    }
    let empty = scratch("empty_folder");
    let out = replay_command(&[empty.as_os_str()]);
    assert_eq!(out.status.code(), Some(2));
    let message = String::from_utf8_lossy(&out.stderr);
    assert!(
        message.contains("empty_folder") && message.contains("no recording"),
        "{message}"
    );
    let _ = std::fs::remove_dir_all(&dir);
    let _ = std::fs::remove_dir_all(&empty);
}

#[test]
fn fit_of_a_folder_fits_every_recording_of_it() {
    let dir = scratch("fit_folder");
    parting_hands_file(&dir);
    std::fs::copy(
        shipped("throws/throw_1_seg2.csv"),
        dir.join("throw_1_seg2.csv"),
    )
    .unwrap();
    let params = dir.join("fitted.json");
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_diabolo"))
        .arg("fit")
        .arg(&dir)
        .args([
            "--free",
            "friction",
            "--iterations",
            "1",
            "--stride",
            "0.25",
        ])
        .arg("-o")
        .arg(&params)
        .args(["-q"])
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(stdout.contains("fitted on 2 recordings"), "{stdout}");
    // The 0.825 s throw holds 0.2 and 0.5 s of the default horizons; the 3 s file all four.
    assert!(
        stdout.contains("throw_1_seg2: horizons left out: 1 s, 2 s"),
        "{stdout}"
    );
    assert!(!stdout.contains("parting:"), "{stdout}");
    let written = diabolo::fit::ParamsFile::read(&params).unwrap();
    assert_eq!(written.fit.unwrap().recordings.len(), 1, "the folder given");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_short_recording_with_the_default_horizons_reports_those_left_out() {
    // throw_1_seg2 lasts 0.825 s and its first start is 0.25 s in: of the default horizons
    // (0.2, 0.5, 1, 2 s) it holds 0.2 and 0.5 s.
    let file = shipped("throws/throw_1_seg2.csv");
    let rec = Recording::read(&file).unwrap();
    let holds = rec.t[rec.t.len() - 1] - rec.t[0] - 0.25;
    assert!((0.5..1.0).contains(&holds), "{holds}");
    let report = stdout_json(&replay_command(&[file.as_os_str(), "--json".as_ref()]));
    let scored: Vec<f64> = report["horizons"]
        .as_array()
        .unwrap()
        .iter()
        .map(|h| h["horizon"].as_f64().unwrap())
        .collect();
    assert_eq!(scored, [0.2, 0.5]);
    assert_eq!(report["horizons_left_out"], serde_json::json!([1.0, 2.0]));
    assert!((report["longest_horizon"].as_f64().unwrap() - holds).abs() < 1e-12);
    for h in report["horizons"].as_array().unwrap() {
        assert!(h["n"].as_u64().unwrap() > 0, "{h}");
    }
    let text = replay_command(&[file.as_os_str()]);
    let text = String::from_utf8_lossy(&text.stdout);
    assert!(
        text.contains("horizons left out: 1 s, 2 s (longer than the recording holds: at most"),
        "{text}"
    );
    // A horizon that is given and that the recording cannot hold is an error naming both.
    for given in ["0.2,1", "0.7"] {
        let out = replay_command(&[file.as_os_str(), "--horizons".as_ref(), given.as_ref()]);
        assert_eq!(out.status.code(), Some(2), "{given}");
        let message = String::from_utf8_lossy(&out.stderr);
        assert!(
            message.contains("throw_1_seg2.csv")
                && message.contains("--horizons")
                && message.contains("longer than the recording throw_1_seg2 holds"),
            "{message}"
        );
        assert!(out.stdout.is_empty());
    }
}

/// (the sums |tipL - dia| + |tipR - dia| of the frames with the diabolo below the line of the
/// tips, sorted; the farthest the tips get apart), m: computed here from the frames.
fn taut_sums_and_tips_span(rec: &Recording) -> (Vec<f64>, f64) {
    let mut sums = Vec::new();
    let mut span = 0.0_f64;
    for i in 0..rec.t.len() {
        let (l, r, d) = (rec.left[i], rec.right[i], rec.dia[i]);
        let chord = r - l;
        let above = chord.x * (d.y - l.y) - chord.y * (d.x - l.x);
        if above < 0.0 {
            sums.push((l - d).norm() + (r - d).norm());
        }
        span = span.max(chord.norm());
    }
    sums.sort_by(f64::total_cmp);
    (sums, span)
}

#[test]
fn the_throw_length_is_estimated_from_taut_frames_and_spans_the_tips() {
    // The launch file: the diabolo flies above the tips' line at its end, where the sum of its
    // distances to the tips grows to 1.60 m; the string's taut sums are 1.44 to 1.47 m.
    let rec = Recording::read(&shipped("throws/throw_1_seg1.csv")).unwrap();
    let (taut, span) = taut_sums_and_tips_span(&rec);
    let mut all = rec.string_sums();
    all.sort_by(f64::total_cmp);
    assert!(all[all.len() - 1] > 1.59, "the flight's sums");
    let (median, max) = (taut[taut.len() / 2], taut[taut.len() - 1]);
    let estimate = effective_length(&rec, LengthEstimate::MedianTaut);
    assert!(
        (median..=max).contains(&estimate),
        "{estimate} outside the taut sums {median}..{max}"
    );
    // An inextensible string is no shorter than the tips' span (1.477 m at the launch).
    let options = ReplayOptions::default();
    let length = diabolo::replay::replay_length(&rec, &options).unwrap();
    assert_eq!(length.taut, estimate);
    assert_eq!(length.tips_span, span);
    assert_eq!(length.length, estimate.max(span));
    assert!((1.44..1.48).contains(&length.length), "{length:?}");
    // A compliant string, or a given length, is used as it is.
    let compliant = ReplayOptions {
        params: ParamValues {
            string_stiffness: Some(118.0),
            ..ParamValues::default()
        },
        ..ReplayOptions::default()
    };
    let length = diabolo::replay::replay_length(&rec, &compliant).unwrap();
    assert_eq!(length.length, estimate);
    // The report gives the length it uses.
    let file = shipped("throws/throw_1_seg1.csv");
    let report = stdout_json(&replay_command(&[
        file.as_os_str(),
        "--json".as_ref(),
        "--horizons".as_ref(),
        "0.2".as_ref(),
        "--stride".as_ref(),
        "0.5".as_ref(),
    ]));
    // (serde_json reads some decimals 1 ulp off.)
    let reported = |key: &str| report[key].as_f64().unwrap();
    assert!((reported("string_length") - estimate.max(span)).abs() < 1e-12);
    assert!((reported("taut_length") - estimate).abs() < 1e-12);
    // A recording whose frames all have the diabolo above the tips cannot be estimated.
    let mut above = rec.clone();
    for d in &mut above.dia {
        d.y += 5.0;
    }
    let error = diabolo::replay::replay_length(&above, &options)
        .unwrap_err()
        .to_string();
    assert!(
        error.contains("throw_1_seg1") && error.contains("--length"),
        "{error}"
    );
}
