//! Cost of a whole run: a 10 s single-diabolo scenario with capstan friction (step law), spin
//! drag, a sine-driven right stick and rows every millisecond, DOPRI5 at rtol 1e-9.
//! Three measurements split the cost:
//! - `stepping`: the taut-phase stepper alone over the 10 s (no event location, no rows);
//! - `events`: the whole hybrid run with its event location and handling, one row at the end;
//! - `rows_1ms`: the whole run with 10,001 rows collected in memory.
//!
//! `events - stepping` is the cost of event location, `rows_1ms - events` that of the output.
//!
//! `whip_10s` is a shipped scenario end to end: `scenarios/whip.json` (six whip strokes of the
//! right hand, loosen/tense pairs, stick/unstick) with `sim.duration` overridden to 10 s (the
//! strokes end at 3.6 s; the diabolo then swings on still hands to the end without a failure),
//! its rows every 0.01 s (1,001) collected in memory. Its steps, derivative evaluations and events
//! are printed to standard error.
//!
//! `whip_3s_rows_1ms`: the whip for 3 s at rtol 1e-9 with rows every 1 ms (3,001) written as
//! the trajectory CSV to a sink, formatted on the run's thread (`one_thread`) and on two threads
//! (`two_threads`, as `diabolo run` writes); the ratio is printed to standard error.
//!
//! `high_toss_3s` is `scenarios/high_toss.json` (a toss to 2.45 m, its flight and catch) run
//! for 3 s with rows every 1 ms (3,001), collected in memory.
//!
//! `space_whip_10s`: the same 10 s whip through the model in space (`SpaceSimulation::from_planar`,
//! fast-top axle), rows every 0.01 s collected; the ratio of its time to the planar whip's is
//! printed to standard error (the price of the 3D path on a planar scenario).
//!
//! `env_1000_steps`: the Gymnasium environment's job (1,000 steps of 10 ms with both hands
//! set each step, random or gentle hands), the core of `diabolo.Batch`'s per-member cost.
//!
//! Run: `cargo bench --bench run`.

use criterion::{criterion_group, criterion_main, Criterion};
use diabolo::model::{CartesianState, ParamValues, Params};
use diabolo::output::{ParallelTrajectoryWriter, TrajectoryWriter};
use diabolo::scenario::Scenario;
use diabolo::simulation::drive::{ClampedSpline, Drive, Path};
use diabolo::simulation::TautSystem;
use diabolo::simulation::{EventKind, Row, Settings, Simulation};
use diabolo::simulation::{Method, Stepper, StepperOptions};
use nalgebra::Vector2;
use std::collections::BTreeMap;
use std::hint::black_box;

fn scenario(output_interval: f64) -> Simulation {
    let p = Params::new(ParamValues {
        spin_drag: 0.05,
        ..Default::default()
    })
    .unwrap();
    let state = CartesianState::hanging(&p, [-0.4, 1.5], [0.4, 1.5], 0.05, 0.6).unwrap();
    let left = Drive::Path(Path::Keyframes(
        ClampedSpline::new(vec![(0.0, Vector2::new(-0.4, 1.5))]).unwrap(),
    ));
    let right = Drive::Path(Path::Sine {
        center: Vector2::new(0.4, 1.5),
        amplitude: Vector2::new(0.05, 0.1),
        frequency: 1.5,
        phase: Vector2::zeros(),
    });
    let settings = Settings {
        duration: 10.0,
        output_interval,
        rtol: 1e-9,
        atol: 1e-12,
        method: Method::Dopri5,
        ..Default::default()
    };
    Simulation::new(p, [left, right], state, settings).unwrap()
}

fn run(c: &mut Criterion) {
    let mut group = c.benchmark_group("run_10s");
    group.sample_size(30);

    let sim = scenario(0.001);
    let mut rows = Vec::with_capacity(10_001);
    group.bench_function("rows_1ms", |b| {
        b.iter(|| {
            rows.clear();
            let report = sim.run(&mut |row| rows.push(row.clone()));
            black_box((report.end_time, rows.len()))
        })
    });
    let report = sim.run(&mut |_| {});
    eprintln!(
        "run_10s: {:?}, {} events, failure {:?}",
        report.stats,
        report.events.len(),
        report.failure
    );

    let sim = scenario(10.0);
    group.bench_function("events", |b| {
        b.iter(|| {
            black_box(sim.run(&mut |row| {
                black_box(row.t);
            }))
        })
    });

    // The taut phase alone from the start state (on the path, with the starting impulse
    // applied by the run: take its state from the run's first row).
    let start = {
        let mut first = None;
        let start_sim = scenario(0.001);
        let _ = start_sim.run(&mut |row| {
            if first.is_none() {
                first = Some(row.state.clone());
            }
        });
        first.unwrap()
    };
    let mut system = TautSystem::new(&sim.params, 1, sim.drives.clone());
    let reduced = system
        .dynamics()
        .layout()
        .reduce(&start, sim.params.string_length, 1e-8)
        .unwrap();
    let mut y0 = vec![0.0; system.dimension()];
    y0[..reduced.values().len()].copy_from_slice(reduced.values());
    let options = StepperOptions {
        rtol: 1e-9,
        atol: 1e-12,
        ..Default::default()
    };
    let mut stepper = Stepper::new(Method::Dopri5, options, y0.len()).unwrap();
    group.bench_function("stepping", |b| {
        b.iter(|| {
            stepper.reset(&mut system, 0.0, &y0).unwrap();
            let mut t = 0.0;
            while t < 10.0 {
                t = stepper.step(&mut system, 10.0).unwrap().t_new;
            }
            black_box(stepper.y()[0])
        })
    });
    eprintln!("stepping alone: {:?}", stepper.stats());
    group.finish();
}

/// A shipped scenario with `sets` overriding its fields.
fn shipped(name: &str, sets: &[(&str, &str)]) -> Simulation {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("scenarios");
    let text = std::fs::read_to_string(dir.join(format!("{name}.json"))).unwrap();
    let sets: Vec<(String, String)> = sets
        .iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect();
    Scenario::parse(&text, &sets).unwrap().build(&dir).unwrap()
}

/// Benchmarks `sim` as `label` (its rows collected in memory), then runs it once more to check
/// it reaches `duration` and prints its steps, evaluations and events.
fn bench_shipped(c: &mut Criterion, label: &str, sim: &Simulation, duration: f64) {
    let mut rows: Vec<Row> = Vec::new();
    c.bench_function(label, |b| {
        b.iter(|| {
            rows.clear();
            let report = sim.run(&mut |row| rows.push(row.clone()));
            black_box((report.end_time, rows.len()))
        })
    });
    rows.clear();
    let report = sim.run(&mut |row| rows.push(row.clone()));
    assert!(
        report.failure.is_none() && report.end_time == duration,
        "{label} must run its {duration} s: {:?}",
        report.failure
    );
    let mut kinds: BTreeMap<EventKind, usize> = BTreeMap::new();
    for event in &report.events {
        *kinds.entry(event.kind).or_default() += 1;
    }
    let kinds: Vec<String> = kinds
        .iter()
        .map(|(kind, count)| format!("{count} {}", kind.name()))
        .collect();
    eprintln!(
        "{label}: {} rows, {} steps ({} rejected), {} derivative evaluations, {} events ({})",
        rows.len(),
        report.stats.steps,
        report.stats.rejected_steps,
        report.stats.derivative_evaluations,
        report.events.len(),
        kinds.join(", ")
    );
}

fn whip(c: &mut Criterion) {
    bench_shipped(
        c,
        "whip_10s",
        &shipped("whip", &[("sim.duration", "10")]),
        10.0,
    );
}

fn high_toss(c: &mut Criterion) {
    let sets = [("sim.duration", "3"), ("sim.output_interval", "0.001")];
    bench_shipped(c, "high_toss_3s", &shipped("high_toss", &sets), 3.0);
}

/// A session stepped at 1 kHz over a taut stretch (the swing, from 0.5 s): `advance` alone,
/// and a control step (the right hand's acceleration set, 1 ms advanced, the state read). 1,000
/// steps per iteration.
fn session(c: &mut Criterion) {
    let sim = shipped("swing", &[("sim.duration", "100")]);
    let mut start = sim.session();
    start.advance(0.5, None).unwrap();
    let mut group = c.benchmark_group("session_1000_steps");
    group.sample_size(30);
    group.bench_function("advance_1ms", |b| {
        b.iter(|| {
            let mut session = start.clone();
            for k in 1..=1000 {
                session.advance(0.5 + k as f64 * 1e-3, None).unwrap();
            }
            black_box(session.time())
        })
    });
    group.bench_function("control_1ms", |b| {
        b.iter(|| {
            let mut session = start.clone();
            for k in 1..=1000 {
                let lift = 0.1 * (k as f64 * 0.01).sin();
                let drive = Drive::Accel(diabolo::simulation::drive::Schedule::Constant(
                    Vector2::new(0.0, lift),
                ));
                session.set_drive(1, drive).unwrap();
                session.advance(0.5 + k as f64 * 1e-3, None).unwrap();
                black_box(session.state().unwrap().t);
            }
        })
    });
    group.finish();
}

/// The Gymnasium environment's job in Rust (python/diabolo/gym.py, the hold task's default
/// scenario): one diabolo on a 1.46 m string, both hands' accelerations drawn uniform in
/// +-`scale` (m/s^2, a seeded generator) and set with one re-entry every 10 ms, the session
/// started over when the run fails or the diabolo drops, 1,000 env steps per iteration. `random`
/// is the policy of the 3,760 env steps/s (+-30 m/s^2; the hands pull the string straight
/// every hundred steps or so), `gentle` +-3 m/s^2. The failures per 1,000 steps are printed.
fn env(c: &mut Criterion) {
    let text = r#"{"name": "gym", "params": {"string_length": 1.46},
        "initial": {"left": {"pos": [-0.4, 1.5], "vel": [0, 0]},
                    "right": {"pos": [0.4, 1.5], "vel": [0, 0]},
                    "diabolos": [{"x": 0.0, "spin": 0.3}]},
        "drive": {"left": {"type": "accel", "value": [0, 0]},
                  "right": {"type": "accel", "value": [0, 0]}},
        "sim": {"duration": 10.01, "output_interval": 10.0, "floor": 0.1}}"#;
    let sim = Scenario::parse(text, &[])
        .unwrap()
        .build(std::path::Path::new("."))
        .unwrap();
    let play = |scale: f64| {
        let mut rng = diabolo::random::SplitMix64(1);
        let mut session = sim.session();
        let mut failures = 0;
        for _ in 0..1000 {
            let mut accel = || {
                Vector2::new(
                    scale * (2.0 * rng.unit() - 1.0),
                    scale * (2.0 * rng.unit() - 1.0),
                )
            };
            let drives = [0, 1].map(|_| {
                Some(Drive::Accel(
                    diabolo::simulation::drive::Schedule::Constant(accel()),
                ))
            });
            let stepped = session
                .set_drives(drives)
                .and_then(|_| session.advance(session.time() + 0.01, None));
            let dropped = session.state().map_or(true, |row| {
                row.modes.contains(&diabolo::DiaboloMode::Dropped)
            });
            failures += usize::from(stepped.is_err());
            if stepped.is_err() || dropped || session.finished() {
                session = sim.session();
            }
        }
        failures
    };
    eprintln!(
        "env_1000_steps: failures per 1,000 steps: random {}, gentle {}",
        play(30.0),
        play(3.0)
    );
    let mut group = c.benchmark_group("env_1000_steps");
    group.sample_size(20);
    group.bench_function("random", |b| b.iter(|| black_box(play(30.0))));
    group.bench_function("gentle", |b| b.iter(|| black_box(play(3.0))));
    group.finish();
}

/// The whip for 3 s at rtol 1e-9 with rows every 1 ms (3,001), formatted as the trajectory CSV
/// into a sink: on the run's thread (`TrajectoryWriter`) and on two threads
/// (`ParallelTrajectoryWriter`, what `diabolo run` uses). The ratio is printed.
fn whip_rows(c: &mut Criterion) {
    let sets = [
        ("sim.duration", "3"),
        ("sim.rtol", "1e-9"),
        ("sim.output_interval", "0.001"),
    ];
    let sim = shipped("whip", &sets);
    let one_thread = || {
        let mut writer = TrajectoryWriter::new(std::io::sink(), &sim).unwrap();
        let report = sim.run(&mut |row| writer.write_row(row).unwrap());
        black_box(report.end_time)
    };
    let two_threads = || {
        let mut writer = ParallelTrajectoryWriter::new(std::io::sink(), &sim).unwrap();
        let report = sim.run(&mut |row| writer.write_row(row).unwrap());
        writer.finish().unwrap();
        black_box(report.end_time)
    };
    let mut group = c.benchmark_group("whip_3s_rows_1ms");
    group.sample_size(30);
    group.bench_function("one_thread", |b| b.iter(one_thread));
    group.bench_function("two_threads", |b| b.iter(two_threads));
    group.finish();
    let best = |f: &dyn Fn() -> f64| {
        (0..50)
            .map(|_| {
                let started = std::time::Instant::now();
                f();
                started.elapsed().as_secs_f64()
            })
            .fold(f64::INFINITY, f64::min)
    };
    let ratio = best(&one_thread) / best(&two_threads);
    eprintln!("whip_3s_rows_1ms: one thread / two threads = {ratio:.2}");
}

fn space_whip(c: &mut Criterion) {
    use diabolo::model::space::AxleValues;
    use diabolo::simulation::space::SpaceSimulation;
    let planar = shipped("whip", &[("sim.duration", "10")]);
    let space = SpaceSimulation::from_planar(&planar, AxleValues::default()).unwrap();
    let run_space = || {
        let mut rows = 0usize;
        let report = space.run(|_| rows += 1);
        black_box((report.steps, rows))
    };
    let run_planar = || {
        let mut rows = 0usize;
        planar.run(&mut |_| rows += 1);
        black_box(rows)
    };
    let mut group = c.benchmark_group("space_whip_10s");
    group.sample_size(20);
    group.bench_function("space", |b| b.iter(run_space));
    group.finish();
    let best = |f: &dyn Fn()| {
        (0..20)
            .map(|_| {
                let started = std::time::Instant::now();
                f();
                started.elapsed().as_secs_f64()
            })
            .fold(f64::INFINITY, f64::min)
    };
    let ratio = best(&|| {
        run_space();
    }) / best(&|| {
        run_planar();
    });
    eprintln!("space_whip_10s: space / planar = {ratio:.2}");
}

criterion_group!(benches, run, whip, whip_rows, high_toss, session, env, space_whip);
criterion_main!(benches);
