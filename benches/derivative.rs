//! Cost of one full taut-phase derivative evaluation (state in, all rates out: geometry,
//! friction, tension, accelerations, spin rates) for N = 1, 2, 4, 16, 64, 256 diabolos, every
//! axle slipping; and (`derivative_gripping`) for N = 1, 4, 16 with every axle gripping, where
//! the grip solve finds the tensions (the ratio gripping / slipping per N is printed to
//! standard error: issue 17 asks for at most 1.5 at N = 16).
//! Run: `cargo bench --bench derivative`. The figures and their scaling are in the issue notes
//! (and BENCHMARKS.md once it exists); the target is under 200 ns for N = 1 and linear growth.

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use diabolo::model::{AxleMode, ParamValues, Params, StickInput, TautDynamics};
use diabolo::model::{Body, CartesianState, DiaboloState};
use nalgebra::Vector2;
use std::hint::black_box;

/// N diabolos along a sagging curve between sticks 1 m apart, all moving and spinning.
fn sagging_chain(n: usize) -> (CartesianState, f64) {
    let point = |s: f64| Vector2::new(s - 0.5, -0.6 * (1.0 - (2.0 * s - 1.0).powi(2)));
    let diabolos = (1..=n)
        .map(|i| {
            let s = i as f64 / (n + 1) as f64;
            DiaboloState {
                pos: point(s),
                vel: Vector2::new(0.3, -0.2 * s),
                spin: 0.5,
                knot: 0,
            }
        })
        .collect();
    let mut state = CartesianState {
        left: Body {
            pos: point(0.0),
            vel: Vector2::new(0.1, 0.2),
        },
        right: Body {
            pos: point(1.0),
            vel: Vector2::zeros(),
        },
        diabolos,
    };
    let length = state.string_used();
    // Make the string's length rate zero by the right stick's velocity along e_N.
    let e_n = (state.right.pos - state.diabolos[n - 1].pos).normalize();
    let rate: f64 = (0..=n)
        .map(|i| {
            (state.position(i + 1) - state.position(i))
                .normalize()
                .dot(&(state.velocity(i + 1) - state.velocity(i)))
        })
        .sum();
    state.right.vel -= rate * e_n;
    (state, length)
}

/// The chain's workspace, reduced state, stick inputs and axle modes (slipping both ways, or
/// every axle gripping).
fn chain(n: usize, gripping: bool) -> (TautDynamics, Vec<f64>, [StickInput; 2], Vec<AxleMode>) {
    let (state, length) = sagging_chain(n);
    let params = Params::new(ParamValues {
        string_length: length,
        spin_drag: 0.05,
        ..Default::default()
    })
    .unwrap();
    let dynamics = TautDynamics::new(&params, n);
    let x = dynamics
        .layout()
        .reduce(&state, length, 1e-9)
        .unwrap()
        .into_values();
    let inputs = [
        StickInput::Force(Vector2::new(0.1, 0.3)),
        StickInput::Force(Vector2::new(-0.1, 0.2)),
    ];
    let modes: Vec<AxleMode> = (0..n)
        .map(|i| {
            if gripping {
                AxleMode::Stuck
            } else {
                AxleMode::from_slip(if i % 2 == 0 { 1.0 } else { -1.0 })
            }
        })
        .collect();
    (dynamics, x, inputs, modes)
}

/// Median time of one evaluation over `runs` batches of 1,000, ns.
fn time_per_evaluation(n: usize, gripping: bool, runs: usize) -> f64 {
    let (mut dynamics, x, inputs, modes) = chain(n, gripping);
    let mut out = vec![0.0; x.len()];
    let mut times: Vec<f64> = (0..runs)
        .map(|_| {
            let started = std::time::Instant::now();
            for _ in 0..1000 {
                dynamics
                    .rates(black_box(&x), black_box(&inputs), &modes, &mut out)
                    .unwrap();
                black_box(&out);
            }
            started.elapsed().as_secs_f64() * 1e6
        })
        .collect();
    times.sort_by(f64::total_cmp);
    times[runs / 2]
}

fn derivative(c: &mut Criterion) {
    for (name, gripping, sizes) in [
        ("derivative", false, &[1usize, 2, 4, 16, 64, 256][..]),
        ("derivative_gripping", true, &[1usize, 4, 16, 64][..]),
    ] {
        let mut group = c.benchmark_group(name);
        for &n in sizes {
            let (mut dynamics, x, inputs, modes) = chain(n, gripping);
            let mut out = vec![0.0; x.len()];
            group.throughput(Throughput::Elements(n as u64));
            group.bench_with_input(BenchmarkId::from_parameter(n), &n, |b, _| {
                b.iter(|| {
                    dynamics
                        .rates(black_box(&x), black_box(&inputs), &modes, &mut out)
                        .unwrap();
                    black_box(&out);
                })
            });
        }
        group.finish();
    }
    for n in [1, 4, 16, 64] {
        let ratio = time_per_evaluation(n, true, 21) / time_per_evaluation(n, false, 21);
        eprintln!("derivative N = {n}: gripping / slipping = {ratio:.2}");
    }
}

criterion_group!(benches, derivative);
criterion_main!(benches);
