//! Cost of one full taut-phase derivative evaluation (state in, all rates out: geometry,
//! friction, tension, accelerations, spin rates) for N = 1, 2, 4, 16, 64, 256 diabolos.
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

fn derivative(c: &mut Criterion) {
    let mut group = c.benchmark_group("derivative");
    for n in [1usize, 2, 4, 16, 64, 256] {
        let (state, length) = sagging_chain(n);
        let params = Params::new(ParamValues {
            string_length: length,
            spin_drag: 0.05,
            ..Default::default()
        })
        .unwrap();
        let mut dynamics = TautDynamics::new(&params, n);
        let x = dynamics
            .layout()
            .reduce(&state, length, 1e-9)
            .unwrap()
            .into_values();
        let mut out = vec![0.0; x.len()];
        let inputs = [
            StickInput::Force(Vector2::new(0.1, 0.3)),
            StickInput::Force(Vector2::new(-0.1, 0.2)),
        ];
        let modes: Vec<AxleMode> = (0..n)
            .map(|i| AxleMode::from_slip(if i % 2 == 0 { 1.0 } else { -1.0 }))
            .collect();
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

criterion_group!(benches, derivative);
criterion_main!(benches);
