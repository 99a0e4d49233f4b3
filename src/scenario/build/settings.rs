//! The `sim` section: every number within its range, the run within the limits, and the
//! run's [`Settings`].

use crate::display::{compact, Compact};
use crate::model::Range;
use crate::simulation::Method;
use crate::simulation::Settings;

use super::checks::{invalid, within};
use crate::scenario::error::ScenarioError;
use crate::scenario::limits::{row_count, Limits};
use crate::scenario::ranges;
use crate::scenario::spec::{MethodName, SimSpec};

/// Every number of `sim` within its range, and the run within the limits.
fn check_sim(spec: &SimSpec, limits: &Limits) -> Result<(), ScenarioError> {
    let duration = Range {
        min: ranges::DURATION_MIN,
        max: limits.max_duration,
        unit: "s",
        why: "the upper bound is --max-duration",
    };
    if spec.duration.is_finite() && spec.duration > limits.max_duration {
        return Err(invalid(
            "sim.duration",
            compact(spec.duration),
            format!(
                "longer than the limit of {} s of simulated time (--max-duration), which keeps a run from streaming rows until the disk fills",
                Compact(limits.max_duration)
            ),
            "shorten the run, or raise the limit with --max-duration SECONDS",
        ));
    }
    within(|| "sim.duration".into(), spec.duration, &duration)?;
    within(
        || "sim.output_interval".into(),
        spec.output_interval,
        &ranges::OUTPUT_INTERVAL,
    )?;
    let rows = row_count(spec.duration, spec.output_interval.min(spec.duration));
    if rows > limits.max_rows {
        return Err(invalid(
            "sim.output_interval",
            compact(spec.output_interval),
            format!(
                "{} s every {} s makes {} rows, more than the limit of {} (--max-rows; a row is about 480 bytes of CSV)",
                Compact(spec.duration),
                Compact(spec.output_interval),
                if rows == u64::MAX { "over 1.8e19".to_string() } else { rows.to_string() },
                limits.max_rows
            ),
            "raise sim.output_interval, shorten sim.duration, or raise the limit with --max-rows N",
        ));
    }
    within(|| "sim.rtol".into(), spec.rtol, &ranges::RTOL)?;
    within(|| "sim.atol".into(), spec.atol, &ranges::ATOL)?;
    if let Some(max_step) = spec.max_step {
        within(|| "sim.max_step".into(), max_step, &ranges::MAX_STEP)?;
    }
    if let Some(step) = spec.step {
        within(|| "sim.step".into(), step, &ranges::STEP)?;
    }
    if let Some(period) = spec.period {
        within(|| "sim.period".into(), period, &ranges::MAX_STEP)?;
    }
    within(
        || "sim.zeno_speed".into(),
        spec.zeno_speed,
        &ranges::ZENO_SPEED,
    )?;
    within(
        || "sim.zeno_bounces".into(),
        spec.zeno_bounces as f64,
        &ranges::ZENO_BOUNCES,
    )?;
    within(
        || "sim.max_events_per_second".into(),
        spec.max_events_per_second,
        &ranges::MAX_EVENTS_PER_SECOND,
    )?;
    within(
        || "sim.meeting_distance".into(),
        spec.meeting_distance,
        &ranges::MEETING_DISTANCE,
    )
}

/// Refuses a `sim.step` or `sim.max_step` that forces more steps than the method takes in
/// about 40 minutes with the scenario's diabolos ([`ranges::max_forced_steps`]).
fn check_forced_steps(spec: &SimSpec, diabolos: usize) -> Result<(), ScenarioError> {
    let most = ranges::max_forced_steps(spec.method, diabolos);
    for (field, step) in [("step", spec.step), ("max_step", spec.max_step)] {
        let Some(step) = step else { continue };
        let steps = spec.duration / step;
        if steps > most {
            return Err(invalid(
                format!("sim.{field}"),
                compact(step),
                format!(
                    "{} s in steps of at most {} s is {} steps, more than the {} that method {} \
                     takes with {diabolos} diabolo(s) in about 40 minutes of computing (about \
                     {} us a step)",
                    Compact(spec.duration),
                    Compact(step),
                    Compact(steps.floor()),
                    Compact(most),
                    spec.method.name(),
                    Compact(ranges::step_cost(spec.method, diabolos) * 1e6),
                ),
                format!("lengthen sim.{field} or shorten sim.duration"),
            ));
        }
    }
    Ok(())
}

pub(super) fn build_settings(
    spec: &SimSpec,
    limits: &Limits,
    diabolos: usize,
) -> Result<Settings, ScenarioError> {
    check_sim(spec, limits)?;
    check_forced_steps(spec, diabolos)?;
    let method = match (spec.method, spec.step) {
        (MethodName::Rk4, Some(step)) => Method::Rk4 { step },
        (MethodName::Rk4, None) => {
            return Err(invalid(
                "sim.step",
                "missing",
                "method rk4 takes a fixed step",
                "add \"step\": 0.001 (s) to sim",
            ))
        }
        (_, Some(step)) => {
            return Err(invalid(
                "sim.step",
                compact(step),
                "only method rk4 has a fixed step",
                "remove sim.step, or set \"method\": \"rk4\"",
            ))
        }
        (MethodName::Dopri5, None) => Method::Dopri5,
        (MethodName::Dop853, None) => Method::Dop853,
        (MethodName::Rodas, None) => Method::Rodas,
    };
    let mut settings = Settings {
        duration: spec.duration,
        output_interval: spec.output_interval,
        rtol: spec.rtol,
        atol: spec.atol,
        max_step: spec.max_step,
        method,
        zeno_speed: spec.zeno_speed,
        zeno_bounces: spec.zeno_bounces,
        max_events_per_second: spec.max_events_per_second,
        meeting_distance: spec.meeting_distance,
        max_wall: spec.max_wall,
        floor: spec.floor,
        period: spec.period,
        ..Settings::default()
    };
    if settings.output_interval > settings.duration && settings.duration > 0.0 {
        // One row at the start and one at the end.
        settings.output_interval = settings.duration;
    }
    Ok(settings)
}
