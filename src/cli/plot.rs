//! `diabolo plot` and `diabolo animate`: pictures of a trajectory.

use std::path::Path;

use super::args::{AnimateArgs, PlotArgs, WindowArgs};
use super::{commit, create, note, CliError};
use diabolo::check::CheckError;
use diabolo::input_limits::{read_failure, Records};
use diabolo::output::compress;
use diabolo::output::table::Table;
use diabolo::output::{AtomicFile, CountProgress};
use diabolo::plot::{
    self, AnimateOptions, Cut, Format, OrbitPictureOptions, PlotError, SeriesOptions, View, Window,
    XyOptions,
};

/// Draws the time series (or with `--xy` the paths) to the picture file.
pub fn plot(args: &PlotArgs) -> Result<(), CliError> {
    let format = Format::for_command(&args.output, "diabolo plot", &[Format::Svg, Format::Png])?;
    if let Some(text) = branch_text(&args.trajectory)? {
        return bifurcation(args, &text, format);
    }
    if let Some(spec) = &args.poincare {
        return poincare(args, spec, format);
    }
    let window = window(&args.window);
    let table = window.rows(&picture_table(&args.trajectory)?)?;
    let events = match &args.events {
        Some(path) => window.events(&plot::read_events(path)?),
        None => Vec::new(),
    };
    let title = Some(file_title(&args.trajectory));
    // The views of --xy (checked before the file is created).
    let views = if args.xy {
        let requested = args
            .view
            .iter()
            .map(|name| View::from_name(name))
            .collect::<Result<Vec<_>, _>>()?;
        plot::xy::views_of(&table, &requested)?
    } else {
        Vec::new()
    };
    let mut file = create(&args.output)?;
    let drawn = if args.xy {
        let defaults = XyOptions::default();
        let options = XyOptions {
            width: args.width.unwrap_or(plot::xy::default_width(views.len())),
            height: args.height.unwrap_or(defaults.height),
            instants: args.instants,
            title,
            radius: args.radius,
            views,
        };
        plot::xy(&table, &events, &options, format, &mut file)
    } else {
        let options = SeriesOptions {
            panels: SeriesOptions::panels_from(&args.columns),
            width: args.width.unwrap_or(SeriesOptions::default().width),
            height: args.height,
            title,
            ..SeriesOptions::default()
        };
        plot::series(&table, &events, &options, format, &mut file)
    };
    finish_picture(file, drawn)
}

/// Writes the animation and notes its frames, duration and spin slowdown on standard error.
pub fn animate(args: &AnimateArgs) -> Result<(), CliError> {
    let format = Format::for_command(&args.output, "diabolo animate", &[Format::Svg, Format::Gif])?;
    let window = window(&args.window);
    let table = window.rows(&picture_table(&args.trajectory)?)?;
    let events = match &args.events {
        Some(path) => window.events(&plot::read_events(path)?),
        None => Vec::new(),
    };
    let options = AnimateOptions {
        fps: args.fps,
        speed: args.speed,
        width: args.width,
        height: args.height,
        spin_slowdown: args.spin_slowdown,
        title: Some(file_title(&args.trajectory)),
        radius: args.radius,
        events,
        views: args
            .view
            .iter()
            .map(|name| View::from_name(name))
            .collect::<Result<Vec<_>, _>>()?,
        ..AnimateOptions::default()
    };
    let mut file = create(&args.output)?;
    let mut progress = CountProgress::new("frames", args.progress.quiet);
    let drawn =
        plot::animate_with_progress(&table, &options, format, &mut file, &mut |done, all| {
            progress.reached(done as u64, Some(all as u64), "")
        });
    progress.finish();
    let animation = finish_picture(file, drawn)?;
    let spin = if animation.spin_slowdown == 1.0 {
        "spools at the real spin".to_string()
    } else {
        format!("spools turn {}x slower than real", animation.spin_slowdown)
    };
    note(format_args!(
        "{}: {} frames, {:.2} s, {spin}",
        args.output.display(),
        animation.frames,
        animation.duration,
    ))
}

/// The trajectory a picture is drawn from, at most [`plot::MAX_ROWS`] rows of it (a note
/// on standard error says when rows were left out).
fn picture_table(path: &Path) -> Result<Table, CliError> {
    let table = Table::read_thinned(path, plot::MAX_ROWS).map_err(CheckError::from)?;
    if table.thinned() {
        note(format_args!(
            "note: {} has {} rows; the picture is drawn from one row in {} ({} rows, the last \
             included)",
            path.display(),
            table.rows_read,
            table.stride,
            table.rows()
        ))?;
    }
    Ok(table)
}

/// The time window of `--from` and `--to`.
fn window(args: &WindowArgs) -> Window {
    Window {
        from: args.from,
        to: args.to,
    }
}

/// A picture's title: the trajectory's file name.
fn file_title(path: &Path) -> String {
    path.file_name().map_or_else(
        || path.display().to_string(),
        |n| n.to_string_lossy().to_string(),
    )
}

/// Commits a drawn picture, or reports why it was not drawn (its temporary file is removed).
fn finish_picture<T>(file: AtomicFile, drawn: Result<T, PlotError>) -> Result<T, CliError> {
    match drawn {
        Ok(value) => {
            commit(file)?;
            Ok(value)
        }
        Err(PlotError::Write(source)) => Err(CliError::Output {
            what: "cannot write",
            path: file.target().to_path_buf(),
            source,
        }),
        Err(e) => Err(e.into()),
    }
}

/// The text of a continuation's CSV (`diabolo orbit --continue`), or `None` for any other file.
fn branch_text(path: &Path) -> Result<Option<String>, CliError> {
    let failure = |e: std::io::Error| {
        CliError::Plot(PlotError::Input {
            file: path.display().to_string(),
            reason: read_failure(&e),
        })
    };
    let mut first = String::new();
    compress::open(path)
        .map(std::io::BufReader::new)
        .and_then(|mut r| std::io::BufRead::read_line(&mut r, &mut first))
        .map_err(failure)?;
    if !plot::is_branch_header(&first) {
        return Ok(None);
    }
    compress::read_to_string(path, Records::Csv)
        .map(Some)
        .map_err(failure)
}

/// The picture's size: the flags', else the orbit pictures' defaults.
fn orbit_options(args: &PlotArgs) -> OrbitPictureOptions {
    let defaults = OrbitPictureOptions::default();
    OrbitPictureOptions {
        width: args.width.unwrap_or(defaults.width),
        height: args.height.unwrap_or(defaults.height),
        title: Some(file_title(&args.trajectory)),
    }
}

/// The bifurcation diagram of a continuation (`--columns C`: the coordinate drawn).
fn bifurcation(args: &PlotArgs, text: &str, format: Format) -> Result<(), CliError> {
    let branch = plot::read_branch(
        text,
        &args.trajectory.display().to_string(),
        args.columns.first().map(String::as_str),
    )?;
    let mut file = create(&args.output)?;
    let drawn = plot::bifurcation(&branch, &orbit_options(args), format, &mut file);
    finish_picture(file, drawn)
}

/// The Poincare section of a long run (`--columns A,B`: the two columns drawn).
fn poincare(args: &PlotArgs, spec: &str, format: Format) -> Result<(), CliError> {
    let cut = Cut::parse(spec)?;
    let (a, b) = match args.columns.as_slice() {
        [] => ("d1_x", "d1_vx"),
        [a, b] => (a.as_str(), b.as_str()),
        _ => {
            return Err(PlotError::Options(
                "--poincare draws two columns: give --columns A,B".into(),
            )
            .into())
        }
    };
    let table = window(&args.window).rows(&picture_table(&args.trajectory)?)?;
    let mut file = create(&args.output)?;
    let drawn = plot::poincare(
        &table,
        &cut,
        (a, b),
        &orbit_options(args),
        format,
        &mut file,
    );
    let points = finish_picture(file, drawn)?;
    note(format_args!(
        "{}: {points} points on the section",
        args.output.display()
    ))
}
