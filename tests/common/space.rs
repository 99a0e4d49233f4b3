//! Runs in space built by hand: sticks at rest, a diabolo between still hands, and the
//! settings of a test run.

use diabolo::model::space::{SpaceBody, SpaceDiabolo, SpaceParams, SpaceState};
use diabolo::simulation::space::{HeldStill, SpaceSettings, SpaceSimulation};
use diabolo::simulation::StepperOptions;
use nalgebra::Vector3;

/// Asserts that `space` is `planar` lifted into space: every object's velocity in x-y and every
/// spin within `rel` (relative, plus 1), every z velocity exactly 0.
pub fn assert_lifted(
    space: &SpaceState,
    planar: &diabolo::model::CartesianState,
    rel: f64,
    what: &str,
) {
    for j in 0..space.objects() {
        let (a, b) = (space.velocity(j), planar.velocity(j));
        assert!(
            (a.xy() - b).norm() < rel * (1.0 + b.norm()) && a.z == 0.0,
            "{what}: v_{j} {a:?} against {b:?}"
        );
    }
    for (k, (a, b)) in space.diabolos.iter().zip(&planar.diabolos).enumerate() {
        assert!(
            (a.spin - b.spin).abs() < rel * (1.0 + b.spin.abs()),
            "{what}: spin {} against {} (diabolo {})",
            a.spin,
            b.spin,
            k + 1
        );
    }
}

/// A stick tip at rest at `pos`.
pub fn at_rest(pos: Vector3<f64>) -> SpaceBody {
    SpaceBody {
        pos,
        vel: Vector3::zeros(),
    }
}

/// A run of `duration` s with rows every `output_interval` s, stepped at the tolerances
/// `(rtol, atol)`.
pub fn test_settings(
    duration: f64,
    output_interval: f64,
    (rtol, atol): (f64, f64),
) -> SpaceSettings {
    SpaceSettings {
        duration,
        output_interval,
        stepper: StepperOptions {
            rtol,
            atol,
            ..StepperOptions::default()
        },
        ..SpaceSettings::default()
    }
}

/// One diabolo on a string between stick tips held still at `tips`.
pub fn held_still(
    params: SpaceParams,
    tips: [Vector3<f64>; 2],
    diabolo: SpaceDiabolo,
    settings: SpaceSettings,
) -> SpaceSimulation<HeldStill> {
    SpaceSimulation {
        params,
        hands: [HeldStill, HeldStill],
        modes: vec![diabolo::simulation::DiaboloMode::String],
        initial: SpaceState {
            left: at_rest(tips[0]),
            right: at_rest(tips[1]),
            diabolos: vec![diabolo],
        },
        settings,
    }
}

/// A scenario's text built in space (it must be one), with `--set` style overrides.
pub fn in_space(
    text: &str,
    sets: &[(&str, &str)],
) -> SpaceSimulation<diabolo::simulation::drive::Drive<3>> {
    let sets: Vec<(String, String)> = sets
        .iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect();
    match diabolo::Scenario::parse(text, &sets)
        .unwrap()
        .build_any(
            std::path::Path::new("."),
            &diabolo::scenario::Limits::default(),
        )
        .unwrap()
    {
        diabolo::scenario::Built::Space(sim) => sim,
        diabolo::scenario::Built::Plane(_) => panic!("a scenario in space"),
    }
}

/// The text of the shipped scenario `name` (scenarios/NAME.json).
pub fn shipped_text(name: &str) -> String {
    let path = format!("{}/scenarios/{name}.json", env!("CARGO_MANIFEST_DIR"));
    std::fs::read_to_string(path).unwrap()
}

/// How a fuzz case's run in space ended, tallied: a finished run must have closed its energy
/// ledger within 1e-7 J (counted in `finished`); a stopped one counts its status word in
/// `stops` and gives its time.
pub fn tally_ending(
    report: &diabolo::simulation::space::SpaceReport,
    case: usize,
    finished: &mut usize,
    stops: &mut std::collections::BTreeMap<String, usize>,
) -> Option<f64> {
    use diabolo::simulation::space::SpaceStatus;
    match &report.status {
        SpaceStatus::Finished => {
            *finished += 1;
            assert!(
                report.ledger_residual < 1e-7,
                "case {case}: ledger {}",
                report.ledger_residual
            );
            None
        }
        SpaceStatus::Stopped { t, reason } => {
            assert!(!reason.to_string().is_empty());
            *stops.entry(reason.status().to_string()).or_default() += 1;
            Some(*t)
        }
    }
}
