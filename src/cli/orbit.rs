//! `diabolo orbit`: a periodic orbit of a scenario, its multipliers and its energy budget; or,
//! with `--continue`, the orbit followed through a parameter, one CSV row per value.

use std::io::Write;

use super::args::OrbitArgs;
use super::input::{load, read_document};
use super::stabilize::{self, Corrections};
use super::{create_output, note, say, write_file, CliError};
use diabolo::display::compact;
use diabolo::orbit::{
    check_search, continue_orbit, find_orbit, forced_period, orbit_json, parse_section,
    stabilization_json, stabilize, summary, ContinuationPoint, Orbit, OrbitError, OrbitOptions,
    Timing,
};
use diabolo::output::table::CsvLine;
use diabolo::output::{AtomicFile, TrajectoryWriter};
use diabolo::scenario::{overrides, Scenario, ScenarioError};
use diabolo::simulation::Simulation;
use diabolo::sweep::Axis;

pub fn orbit(args: &OrbitArgs) -> Result<(), CliError> {
    let (_, simulation) = load(&args.input)?;
    let options = options(args)?;
    if let Some(spec) = &args.continuation {
        return continuation(args, spec, &simulation, &options);
    }
    let timing = timing(args, &simulation)?;
    check_search(&simulation, timing, &options)?;
    let corrections = Corrections::read(args, timing, &options)?;
    let output = output(args, "-o")?;
    let trajectory = args
        .trajectory
        .as_deref()
        .map(|p| create_output("--trajectory", p))
        .transpose()?;
    if let Timing::Forced { period } = timing {
        trajectory_fits(args, &simulation, period)?;
    }
    let orbit = find_orbit(&simulation, timing, &options)?;
    trajectory_fits(args, &simulation, orbit.period)?;
    let mut json = orbit_json(&orbit);
    let stabilization = match &corrections {
        Some(c) => {
            let corrected = |u: &[f64]| c.corrected(u);
            let s = stabilize(&orbit, &c.keys, &c.base, &corrected, &c.options)?;
            json["stabilization"] = stabilization_json(&s);
            Some(s)
        }
        None => None,
    };
    if let Some(file) = trajectory {
        write_period(file, &simulation, &orbit)?;
    }
    let text = serde_json::to_string_pretty(&json).expect("JSON of numbers");
    match output {
        Some(file) => write_file(file, |f| writeln!(f, "{text}")),
        None => say(text),
    }?;
    match &stabilization {
        Some(s) => {
            note(summary(s).trim_end())?;
            stabilize::outcome(s)
        }
        None => Ok(()),
    }
}

/// The search's options from the flags, checked.
fn options(args: &OrbitArgs) -> Result<OrbitOptions, CliError> {
    if !(args.tol.is_finite() && args.tol > 0.0) {
        return Err(flag(
            "--tol",
            format!(
                "must be a finite number greater than 0, got {}",
                compact(args.tol)
            ),
        ));
    }
    if !(args.guess_time.is_finite() && args.guess_time >= 0.0) {
        return Err(flag(
            "--guess-time",
            format!(
                "must be a finite number of seconds >= 0, got {}",
                compact(args.guess_time)
            ),
        ));
    }
    let jobs = match args.jobs {
        Some(0) => return Err(flag("--jobs", "at least one thread is needed".into())),
        Some(j) => j,
        None => OrbitOptions::default().jobs,
    };
    if args.section.is_some() && args.period.is_some() {
        return Err(flag(
            "--section",
            "give either --section (an autonomous orbit) or --period (a forced one), not both"
                .into(),
        ));
    }
    Ok(OrbitOptions {
        tolerance: args.tol,
        guess_time: args.guess_time,
        jobs,
        max_duration: args.input.limits()?.max_duration,
        ..OrbitOptions::default()
    })
}

/// How the orbit of `simulation` is timed: by --section, --period or its drives.
fn timing(args: &OrbitArgs, simulation: &Simulation) -> Result<Timing, OrbitError> {
    match &args.section {
        Some(spec) => Ok(Timing::Autonomous(parse_section(spec, simulation)?)),
        None => match forced_period(simulation, args.period)? {
            Some(period) => Ok(Timing::Forced { period }),
            None => Err(OrbitError::NoPeriod),
        },
    }
}

fn output(args: &OrbitArgs, flag: &'static str) -> Result<Option<AtomicFile>, CliError> {
    args.output
        .as_deref()
        .map(|p| create_output(flag, p))
        .transpose()
}

/// `--trajectory`'s rows (one period every `sim.output_interval`) within `--max-rows`.
fn trajectory_fits(args: &OrbitArgs, simulation: &Simulation, period: f64) -> Result<(), CliError> {
    let interval = simulation.settings.output_interval;
    let rows = (period / interval).floor() + 1.0;
    let limit = args.input.limits()?.max_rows;
    if args.trajectory.is_none() || rows <= limit as f64 {
        return Ok(());
    }
    Err(flag(
        "--trajectory",
        format!(
            "one period of {} s every {} s (sim.output_interval) makes {} rows, more than the limit of {limit} (--max-rows); raise sim.output_interval, or raise the limit with --max-rows N",
            compact(period),
            compact(interval),
            compact(rows)
        ),
    ))
}

/// One period from the orbit's start as a trajectory CSV.
fn write_period(file: AtomicFile, simulation: &Simulation, orbit: &Orbit) -> Result<(), CliError> {
    let mut one_period = simulation.clone();
    one_period.initial = orbit.state.clone();
    one_period.settings.duration = orbit.period;
    one_period.settings.rtol = one_period.settings.rtol.min(1e-12);
    one_period.settings.atol = one_period.settings.atol.min(1e-14);
    write_file(file, |f| {
        let mut writer = TrajectoryWriter::new(f, &one_period)?;
        let mut result = Ok(());
        one_period.run(&mut |row| {
            if result.is_ok() {
                result = writer.write_row(row);
            }
        });
        result.and_then(|()| writer.into_inner().flush())
    })
}

/// `--continue KEY=START:STOP:COUNT`: the branch as CSV rows.
fn continuation(
    args: &OrbitArgs,
    spec: &str,
    first: &Simulation,
    options: &OrbitOptions,
) -> Result<(), CliError> {
    let Axis::Grid {
        key,
        start,
        stop,
        count,
    } = Axis::parse_grid_of("--continue", spec)?
    else {
        unreachable!("a grid axis")
    };
    let values: Vec<f64> = (0..count)
        .map(|i| match count {
            1 => start,
            _ => start + (stop - start) * i as f64 / (count - 1) as f64,
        })
        .collect();
    let limits = args.input.limits()?;
    let (document, base) = read_document(&args.input)?;
    let build = |value: f64| -> Result<Simulation, ScenarioError> {
        let mut doc = document.clone();
        overrides::apply(&mut doc, &key, serde_json::json!(value))?;
        Scenario::from_value(doc)?.build_within(&base, &limits)
    };
    // Every value must make a scenario, a timing and a search within the limits before
    // anything runs.
    for &v in &values {
        let sim = build(v)?;
        check_search(&sim, timing(args, &sim)?, options)?;
    }
    let out = output(args, "-o")?;
    let simulation = |v: f64| build(v).map_err(|e| OrbitError::Setup(e.to_string()));
    let timed = |sim: &Simulation| timing(args, sim);
    let points = continue_orbit(&simulation, &timed, &values, options);
    let mut text = Vec::new();
    write_branch(&mut text, &key, first, &points).expect("writing to memory");
    match out {
        Some(file) => write_file(file, |f| f.write_all(&text)),
        None => say(String::from_utf8_lossy(&text).trim_end()),
    }?;
    let failed = points.iter().filter(|p| p.orbit.is_err()).count();
    if failed > 0 {
        return Err(CliError::Run(format!(
            "no orbit at {failed} of {} values (see their status and error columns)",
            points.len()
        )));
    }
    Ok(())
}

/// The branch's CSV: the parameter, the status, the period, Newton's work, stability and the
/// crossing flags, the multiplier nearest the circle, the fixed point, every multiplier.
fn write_branch(
    out: &mut Vec<u8>,
    key: &str,
    first: &Simulation,
    points: &[ContinuationPoint],
) -> std::io::Result<()> {
    let names = first_names(points, first);
    let m = names.len();
    let mut line = CsvLine::default();
    line.text(key);
    line.texts([
        "status",
        "error",
        "period",
        "residual",
        "iterations",
        "attempts",
        "stable",
        "crossing",
        "crossing_at",
        "crossing_re",
        "crossing_im",
        "nearest_re",
        "nearest_im",
        "nearest_modulus",
        "energy_net",
    ]);
    line.texts(&names);
    line.texts(names.iter().map(|n| format!("{n}_amplitude")));
    for i in 1..=m {
        line.texts([
            format!("mu{i}_modulus"),
            format!("mu{i}_argument"),
            format!("mu{i}_trivial"),
        ]);
    }
    line.end(out)?;
    for p in points {
        line.number(p.value);
        match &p.orbit {
            Ok(o) => {
                line.word("ok").word("").number(o.period).number(o.residual);
                line.integer(o.history.len() as i64 - 1)
                    .integer(p.attempts as i64)
                    .word(if o.stable { "true" } else { "false" });
                match p.crossing {
                    Some(c) => line
                        .word(c.kind)
                        .number(c.at)
                        .number(c.multiplier.re)
                        .number(c.multiplier.im),
                    None => line.word("").word("").word("").word(""),
                };
                match p.nearest {
                    Some(mu) => line.number(mu.re).number(mu.im).number(mu.norm()),
                    None => line.word("").word("").word(""),
                };
                line.number(o.budget.net());
                for v in o.point.iter().chain(&o.amplitudes) {
                    line.number(*v);
                }
                for mu in &o.multipliers {
                    line.number(mu.modulus())
                        .number(mu.argument())
                        .word(mu.trivial.unwrap_or(""));
                }
                for _ in o.multipliers.len()..m {
                    line.word("").word("").word("");
                }
            }
            Err(e) => {
                line.word("failed").text(&e.to_string());
                line.word("").word("").word("").integer(p.attempts as i64);
                for _ in 0..9 + 2 * m + 3 * m {
                    line.word("");
                }
            }
        }
        line.end(out)?;
    }
    Ok(())
}

/// The coordinates' names (from the first orbit found, else the first scenario's).
fn first_names(points: &[ContinuationPoint], first: &Simulation) -> Vec<String> {
    points
        .iter()
        .find_map(|p| p.orbit.as_ref().ok().map(|o| o.names.clone()))
        .unwrap_or_else(|| {
            let n = first.initial.diabolo_count();
            (1..=n)
                .flat_map(|k| ["x", "y", "vx", "vy", "w"].map(|f| format!("d{k}_{f}")))
                .collect()
        })
}

fn flag(flag: &str, reason: String) -> CliError {
    CliError::Input(ScenarioError::Flag {
        flag: flag.into(),
        reason,
    })
}
