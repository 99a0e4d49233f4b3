//! Pictures of a run (`diabolo plot`, `diabolo animate`), rendered for the shipped `sun` scenario
//! and checked well-formed: SVG parses as XML with the expected labels and animation elements,
//! PNG and GIF decode with the expected size and frame count. Also the spool angle (the
//! integrated spin), input errors, and the command's exit codes and atomic files.

use crate::common;
use common::command::{diabolo, text};
use common::pictures::{decode_gif, decode_png, svg_document, svg_texts};

use approx::{abs_diff_eq, assert_abs_diff_eq};
use std::io::Cursor;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use diabolo::output::table::Table;
use diabolo::plot::{self, AnimateOptions, Event, Format, PlotError, SeriesOptions, XyOptions};

/// A shipped scenario's trajectory and event log, run by the command.
struct Shipped {
    dir: PathBuf,
    csv: PathBuf,
    events_path: PathBuf,
    table: Table,
    events: Vec<Event>,
}

fn sun() -> &'static Shipped {
    static SUN: OnceLock<Shipped> = OnceLock::new();
    SUN.get_or_init(|| run_shipped("sun"))
}

/// Runs a shipped scenario with the command into a scratch folder.
fn run_shipped(name: &str) -> Shipped {
    let dir = scratch(name);
    let csv = dir.join(format!("{name}.csv"));
    let events_path = dir.join(format!("{name}.jsonl"));
    let scenario = Path::new(env!("CARGO_MANIFEST_DIR")).join(format!("scenarios/{name}.json"));
    let out = diabolo(&[
        "run",
        scenario.to_str().unwrap(),
        "-o",
        csv.to_str().unwrap(),
        "--events",
        events_path.to_str().unwrap(),
        "--quiet",
    ]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let table = Table::read(&csv).unwrap();
    let events = plot::read_events(&events_path).unwrap();
    assert!(!events.is_empty(), "{name} has events to mark");
    Shipped {
        dir,
        csv,
        events_path,
        table,
        events,
    }
}

fn scratch(name: &str) -> PathBuf {
    common::command::scratch("plot", name)
}

fn render_series(options: &SeriesOptions, format: Format) -> Vec<u8> {
    let sun = sun();
    let mut out = Vec::new();
    plot::series(&sun.table, &sun.events, options, format, &mut out).unwrap();
    out
}

#[test]
fn time_series_svg_is_xml_with_a_labelled_panel_per_default_quantity() {
    let svg = render_series(&SeriesOptions::default(), Format::Svg);
    let document = svg_document(&svg);
    let texts = svg_texts(&document);
    for label in [
        "d1_y: height (m)",
        "d1_w: spin w (m/s)",
        "tension (N)",
        "slack (m)",
        "t (s)",
        "stick",
        "unstick",
    ] {
        assert!(texts.iter().any(|t| t == label), "{label} in {texts:?}");
    }
    // The tensions share a panel, with a legend.
    assert!(texts.iter().any(|t| t == "T0") && texts.iter().any(|t| t == "T1"));
}

#[test]
fn time_series_png_decodes_at_its_size_with_a_panel_per_quantity() {
    let options = SeriesOptions {
        width: 700,
        panel_height: 150,
        ..SeriesOptions::default()
    };
    let png = render_series(&options, Format::Png);
    let (width, height, inked) = decode_png(&png);
    // A 50 px header, four panels, a 20 px footer.
    assert_eq!((width, height), (700, 50 + 4 * 150 + 20));
    assert!(inked > 0.02, "something is drawn ({inked})");
}

#[test]
fn chosen_columns_make_panels_and_plus_joins_columns_in_one() {
    let options = SeriesOptions {
        panels: SeriesOptions::panels_from(&["d1_x".into(), "energy+hand_work".into()]),
        height: Some(400),
        ..SeriesOptions::default()
    };
    let document_bytes = render_series(&options, Format::Svg);
    let texts = svg_texts(&svg_document(&document_bytes));
    assert!(texts.iter().any(|t| t == "d1_x: x (m)"), "{texts:?}");
    assert!(texts.iter().any(|t| t == "energy (J)"), "{texts:?}");
    let (width, height, _) = decode_png(&render_series(&options, Format::Png));
    assert_eq!((width, height), (900, 400));
}

#[test]
fn unknown_columns_and_formats_are_input_errors() {
    let sun = sun();
    let options = SeriesOptions {
        panels: vec![vec!["d9_y".into()]],
        ..SeriesOptions::default()
    };
    let error = plot::series(&sun.table, &[], &options, Format::Svg, &mut Vec::new()).unwrap_err();
    assert!(
        error.is_input() && error.to_string().contains("d9_y"),
        "{error}"
    );
    let error = plot::series(
        &sun.table,
        &[],
        &SeriesOptions::default(),
        Format::Gif,
        &mut Vec::new(),
    )
    .unwrap_err();
    assert!(error.is_input(), "{error}");
    let error = plot::animate(
        &sun.table,
        &AnimateOptions::default(),
        Format::Png,
        &mut Vec::new(),
    )
    .unwrap_err();
    assert!(error.is_input(), "{error}");
    assert!(matches!(
        Format::from_path(Path::new("picture.jpg")),
        Err(PlotError::Options(_))
    ));
    assert_eq!(
        Format::from_path(Path::new("A.SVG")).unwrap(),
        Format::Svg,
        "the extension's case does not matter"
    );
}

#[test]
fn xy_plot_is_well_formed_with_every_object_and_the_string_at_its_instants() {
    let sun = sun();
    let options = XyOptions {
        instants: 4,
        ..XyOptions::default()
    };
    let mut svg = Vec::new();
    plot::xy(&sun.table, &sun.events, &options, Format::Svg, &mut svg).unwrap();
    let texts = svg_texts(&svg_document(&svg));
    for label in [
        "left stick",
        "right stick",
        "diabolo 1",
        "x (m)",
        "y (m)",
        "t = 0.00 s",
        "t = 0.90 s",
        "t = 1.80 s",
        "t = 2.70 s",
        "stick",
    ] {
        assert!(texts.iter().any(|t| t == label), "{label} in {texts:?}");
    }
    let mut png = Vec::new();
    plot::xy(&sun.table, &sun.events, &options, Format::Png, &mut png).unwrap();
    let (width, height, inked) = decode_png(&png);
    assert_eq!((width, height), (800, 640));
    assert!(inked > 0.02);
}

/// (attribute or type, values count, keyTimes count, dur, repeatCount) of each animation element.
fn animations(document: &roxmltree::Document) -> Vec<(String, usize, usize, String, String)> {
    document
        .descendants()
        .filter(|n| n.has_tag_name("animate") || n.has_tag_name("animateTransform"))
        .map(|n| {
            let what = n
                .attribute("type")
                .or(n.attribute("attributeName"))
                .unwrap()
                .to_string();
            let count = |a: &str| n.attribute(a).unwrap_or("").split(';').count();
            (
                what,
                count("values"),
                count("keyTimes"),
                n.attribute("dur").unwrap_or("").to_string(),
                n.attribute("repeatCount").unwrap_or("").to_string(),
            )
        })
        .collect()
}

#[test]
fn animated_svg_loops_with_one_value_per_frame_for_every_moving_part() {
    let sun = sun();
    let mut svg = Vec::new();
    let made = plot::animate(
        &sun.table,
        &AnimateOptions::default(),
        Format::Svg,
        &mut svg,
    )
    .unwrap();
    // 2.7 s at 30 fps: frames at 0, 1/30, ..., 2.7 s.
    assert_eq!(made.frames, 82);
    assert_abs_diff_eq!(made.duration, 82.0 / 30.0, epsilon = 1e-12);
    let document = svg_document(&svg);
    let animations = animations(&document);
    let linear: Vec<_> = animations
        .iter()
        .filter(|a| matches!(a.0.as_str(), "points" | "translate" | "rotate"))
        .collect();
    // The string, two sticks, and the diabolo's position and spin.
    assert_eq!(linear.len(), 5, "{animations:?}");
    for (what, values, key_times, dur, repeat) in &linear {
        assert_eq!(
            *values,
            made.frames + 1,
            "{what}: a value per frame, the last held"
        );
        assert_eq!(key_times, values, "{what}");
        assert_eq!(dur, "2.7333s");
        assert_eq!(repeat, "indefinite");
    }
    // The time is shown frame by frame (sun stays taut: one phase text, never hidden).
    let texts = svg_texts(&document);
    assert!(texts.iter().any(|t| t == "t = 0.00 s"));
    assert!(texts.iter().any(|t| t == "t = 2.70 s"));
    assert_eq!(texts.iter().filter(|t| t.starts_with("t = ")).count(), 82);
    assert_eq!(texts.iter().filter(|t| *t == "taut").count(), 1);
    assert!(texts
        .iter()
        .any(|t| t == &format!("spools turn {}× slower than real", made.spin_slowdown)));
}

#[test]
fn spool_angle_is_the_integrated_spin_over_the_axle_radius() {
    let sun = sun();
    let options = AnimateOptions {
        spin_slowdown: Some(1.0),
        ..AnimateOptions::default()
    };
    let mut svg = Vec::new();
    plot::animate(&sun.table, &options, Format::Svg, &mut svg).unwrap();
    let document = svg_document(&svg);
    let rotate = document
        .descendants()
        .find(|n| n.attribute("type") == Some("rotate"))
        .unwrap();
    let values: Vec<f64> = rotate
        .attribute("values")
        .unwrap()
        .split(';')
        .map(|v| v.parse().unwrap())
        .collect();
    let column = |name: &str| {
        let i = sun.table.names.iter().position(|n| n == name).unwrap();
        &sun.table.numbers[i]
    };
    let (t, w) = (column("t"), column("d1_w"));
    let integral: f64 = (1..t.len())
        .map(|i| 0.5 * (w[i - 1] + w[i]) * (t[i] - t[i - 1]))
        .sum();
    let expected = (integral / plot::AXLE_RADIUS).to_degrees();
    let last = values[values.len() - 1];
    assert!(
        abs_diff_eq!(last, expected, epsilon = 0.1),
        "{last} degrees, expected {expected}"
    );
    // Positive spin turns the spool clockwise on screen (SVG angles grow clockwise).
    assert!(values.windows(2).all(|p| p[1] >= p[0]));
}

#[test]
fn gif_has_one_frame_per_tick_at_the_requested_size_and_rate() {
    let sun = sun();
    let mut gif = Vec::new();
    let made = plot::animate(
        &sun.table,
        &AnimateOptions::default(),
        Format::Gif,
        &mut gif,
    )
    .unwrap();
    let (width, height, frames, delay) = decode_gif(&gif);
    assert_eq!((width, height), (640, 480));
    assert_eq!(frames, made.frames);
    assert_eq!(frames, 82);
    // Whole centiseconds, rounded so that the total stays at frames / fps.
    assert_eq!(delay, 273);

    let options = AnimateOptions {
        fps: 10.0,
        speed: 2.0,
        width: 320,
        height: 240,
        ..AnimateOptions::default()
    };
    let mut gif = Vec::new();
    plot::animate(&sun.table, &options, Format::Gif, &mut gif).unwrap();
    // 2.7 s played in 1.35 s at 10 fps.
    assert_eq!(decode_gif(&gif), (320, 240, 14, 140));
}

#[test]
fn animation_refuses_rates_a_gif_cannot_show_and_too_many_frames() {
    let sun = sun();
    let fast = AnimateOptions {
        fps: 60.0,
        ..AnimateOptions::default()
    };
    let error = plot::animate(&sun.table, &fast, Format::Gif, &mut Vec::new()).unwrap_err();
    assert!(
        error.is_input() && error.to_string().contains("50"),
        "{error}"
    );
    let many = AnimateOptions {
        speed: 0.01,
        ..AnimateOptions::default()
    };
    let error = plot::animate(&sun.table, &many, Format::Svg, &mut Vec::new()).unwrap_err();
    assert!(
        error.is_input() && error.to_string().contains("--speed"),
        "{error}"
    );
}

#[test]
fn commands_write_the_four_pictures() {
    let sun = sun();
    let (csv, events) = (sun.csv.to_str().unwrap(), sun.events_path.to_str().unwrap());
    let out = |name: &str| sun.dir.join(name).display().to_string();
    for args in [
        vec!["plot", csv, "-o", &out("series.svg"), "--events", events],
        vec![
            "plot",
            csv,
            "-o",
            &out("series.png"),
            "--columns",
            "d1_y,T0+T1",
        ],
        vec!["plot", csv, "--xy", "-o", &out("xy.svg"), "--instants", "3"],
        vec!["animate", csv, "-o", &out("sun.svg")],
        vec!["animate", csv, "-o", &out("sun.gif"), "--fps", "15"],
    ] {
        let result = diabolo(&args);
        assert!(
            result.status.success(),
            "{args:?}: {}",
            text(&result.stderr)
        );
    }
    svg_document(&std::fs::read(out("series.svg")).unwrap());
    svg_document(&std::fs::read(out("xy.svg")).unwrap());
    svg_document(&std::fs::read(out("sun.svg")).unwrap());
    let (w, h, _) = decode_png(&std::fs::read(out("series.png")).unwrap());
    assert_eq!((w, h), (900, 50 + 2 * 180 + 20));
    let (w, h, frames, _) = decode_gif(&std::fs::read(out("sun.gif")).unwrap());
    assert_eq!((w, h, frames), (640, 480, 41));
}

#[test]
fn unreadable_input_exits_2_and_writes_nothing() {
    let sun = sun();
    let dir = scratch("bad-input");
    let target = dir.join("out.svg").display().to_string();
    let missing = dir.join("missing.csv").display().to_string();
    let csv = sun.csv.to_str().unwrap();
    let not_events = dir.join("not_events.jsonl");
    std::fs::write(&not_events, "{\"kind\": \"tense\"}\n").unwrap();
    let not_events = not_events.display().to_string();
    let wrong_format = dir.join("out.jpg").display().to_string();
    for args in [
        vec!["plot", &missing, "-o", &target],
        vec!["plot", &missing, "--xy", "-o", &target],
        vec!["animate", &missing, "-o", &target],
        vec!["plot", csv, "-o", &target, "--events", &not_events],
        vec!["plot", csv, "-o", &target, "--columns", "d1_y,nothing"],
        vec!["plot", csv, "-o", &wrong_format],
        vec!["animate", csv, "-o", &target, "--fps", "0"],
    ] {
        let result = diabolo(&args);
        assert_eq!(result.status.code(), Some(2), "{args:?}");
        assert!(text(&result.stderr).starts_with("error: "), "{args:?}");
        let left: Vec<_> = std::fs::read_dir(&dir)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().to_string())
            .filter(|name| name != "not_events.jsonl")
            .collect();
        assert!(left.is_empty(), "{args:?} left {left:?}");
    }
}

#[test]
fn loose_phases_are_shaded_and_animated_as_a_dashed_string() {
    let snap = run_shipped("snap");
    let mut svg = Vec::new();
    plot::series(
        &snap.table,
        &snap.events,
        &SeriesOptions::default(),
        Format::Svg,
        &mut svg,
    )
    .unwrap();
    let texts = svg_texts(&svg_document(&svg));
    for label in ["loose phase", "loosen", "tense"] {
        assert!(texts.iter().any(|t| t == label), "{label} in {texts:?}");
    }

    let mut svg = Vec::new();
    let made = plot::animate(
        &snap.table,
        &AnimateOptions::default(),
        Format::Svg,
        &mut svg,
    )
    .unwrap();
    let document = svg_document(&svg);
    let strings: Vec<_> = document
        .descendants()
        .filter(|n| n.has_tag_name("polyline"))
        .collect();
    assert_eq!(strings.len(), 2, "a solid and a dashed string");
    let dashed = strings
        .iter()
        .find(|n| n.attribute("stroke-dasharray").is_some())
        .unwrap();
    let shown = dashed
        .children()
        .find(|n| n.attribute("attributeName") == Some("visibility"))
        .unwrap();
    assert_eq!(shown.attribute("calcMode"), Some("discrete"));
    assert!(shown.attribute("values").unwrap().contains("visible"));
    let texts = svg_texts(&document);
    assert!(texts.iter().any(|t| t == "loose") && texts.iter().any(|t| t == "taut"));

    let mut gif = Vec::new();
    plot::animate(
        &snap.table,
        &AnimateOptions::default(),
        Format::Gif,
        &mut gif,
    )
    .unwrap();
    assert_eq!(decode_gif(&gif).2, made.frames);
}

/// The polylines of an SVG drawn in `colour` (`#RRGGBB`) below the 50 px header (its legend),
/// each as its points.
fn polylines(document: &roxmltree::Document, colour: &str) -> Vec<Vec<(f64, f64)>> {
    let lines = document
        .descendants()
        .filter(|n| n.has_tag_name("polyline") && n.attribute("stroke") == Some(colour))
        .map(|n| {
            n.attribute("points")
                .unwrap_or("")
                .split_whitespace()
                .map(|p| {
                    let (x, y) = p.split_once(',').unwrap();
                    (x.parse().unwrap(), y.parse().unwrap())
                })
                .collect::<Vec<(f64, f64)>>()
        });
    lines.filter(|l| l.iter().all(|p| p.1 > 50.0)).collect()
}

#[test]
fn a_window_draws_only_the_rows_and_events_inside_it() {
    let sun = sun();
    let (csv, events) = (sun.csv.to_str().unwrap(), sun.events_path.to_str().unwrap());
    let target = sun.dir.join("window.svg");
    let args = [
        "plot",
        csv,
        "-o",
        target.to_str().unwrap(),
        "--columns",
        "d1_y",
    ];
    let out = diabolo(&[&args[..], &["--events", events, "--from", "1", "--to", "2"]].concat());
    assert!(out.status.success(), "{}", text(&out.stderr));
    let svg = std::fs::read(&target).unwrap();
    let document = svg_document(&svg);
    let inside = |t: &f64| (1.0..=2.0).contains(t);
    let rows = sun.table.numbers[0].iter().filter(|t| inside(t)).count();
    let curve = polylines(&document, "#0066CC");
    assert_eq!(curve.len(), 1);
    assert_eq!(curve[0].len(), rows, "one point per row in the window");
    assert!(rows < sun.table.rows() / 2);
    // The sun's events in [1, 2] s are sticks and unsticks: one line each, none for the others.
    let drawn = |colour| polylines(&document, colour).len();
    let count = |kind: &str| {
        sun.events
            .iter()
            .filter(|e| e.kind == kind && inside(&e.t))
            .count()
    };
    assert_eq!(drawn("#009933"), count("stick"));
    assert_eq!(drawn("#0099CC"), count("unstick"));
    assert!(count("stick") > 0);
    let outside = sun.events.iter().filter(|e| !inside(&e.t)).count();
    assert!(
        outside > 0 && drawn("#9933CC") == 0,
        "no slip reversal, all at t < 1"
    );

    // The time axis spans the window (a tick at 1.5 s).
    let texts = svg_texts(&document);
    let ticks: Vec<f64> = texts.iter().filter_map(|t| t.parse().ok()).collect();
    assert!(ticks.contains(&1.5), "{texts:?}");

    // A window outside the run is refused, naming the run's time range; nothing is written.
    let missing = sun.dir.join("outside.svg");
    let out = diabolo(&["plot", csv, "-o", missing.to_str().unwrap(), "--from", "5"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        text(&out.stderr).contains("runs from 0 s to 2.7 s"),
        "{}",
        text(&out.stderr)
    );
    assert!(!missing.exists());
    let gif = sun.dir.join("window.gif");
    let out = diabolo(&[
        "animate",
        csv,
        "-o",
        gif.to_str().unwrap(),
        "--from",
        "1",
        "--to",
        "2",
    ]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let (_, _, frames, _) = decode_gif(&std::fs::read(&gif).unwrap());
    assert_eq!(frames, 31, "1 s at 30 fps, both ends");
}

#[test]
fn many_events_are_marked_in_a_strip_one_mark_per_kind_and_pixel_column() {
    let sun = sun();
    let kinds = ["tense", "loosen", "stick"];
    let end = sun.table.numbers[0][sun.table.rows() - 1];
    let events: Vec<Event> = (0..600)
        .map(|i| Event {
            t: end * i as f64 / 600.0,
            kind: kinds[i % 3].into(),
            object: Some(1),
        })
        .collect();
    let options = SeriesOptions {
        panels: vec![vec!["d1_y".into()]],
        width: 200,
        ..SeriesOptions::default()
    };
    let mut svg = Vec::new();
    plot::series(&sun.table, &events, &options, Format::Svg, &mut svg).unwrap();
    let document = svg_document(&svg);
    let texts = svg_texts(&document);
    assert!(
        texts.iter().any(|t| t.starts_with("600 events: marks")),
        "{texts:?}"
    );
    for (kind, colour) in kinds.iter().zip(["#CC0000", "#FF9900", "#009933"]) {
        assert!(texts.iter().any(|t| t == kind), "{kind} in the legend");
        let marks = polylines(&document, colour);
        let marks: Vec<_> = marks.iter().filter(|m| m.len() == 2).collect();
        // 200 events of each kind on about 90 pixel columns: one mark per column.
        assert!(
            (50..=100).contains(&marks.len()),
            "{kind}: {} marks",
            marks.len()
        );
        // Short marks (4 px), not lines across the panel.
        assert!(marks.iter().all(|m| (m[0].1 - m[1].1).abs() <= 5.0));
    }
}

#[test]
fn a_curve_identical_to_another_in_its_panel_is_dashed_and_says_so() {
    let options = SeriesOptions {
        panels: vec![vec!["d1_y".into(), "d1_y".into(), "d1_x".into()]],
        ..SeriesOptions::default()
    };
    let mut svg = Vec::new();
    plot::series(&sun().table, &[], &options, Format::Svg, &mut svg).unwrap();
    let document = svg_document(&svg);
    let texts = svg_texts(&document);
    assert!(
        texts.iter().any(|t| t == "d1_y (= d1_y, dashed)"),
        "{texts:?}"
    );
    assert!(texts.iter().any(|t| t == "d1_x"), "{texts:?}");
    // The first and third are one polyline each (and a legend swatch); the second, dashed,
    // many short ones.
    assert_eq!(polylines(&document, "#0066CC").len(), 2);
    assert!(polylines(&document, "#CC3300").len() > 10);
    assert_eq!(polylines(&document, "#009933").len(), 2);
}

#[test]
fn xy_time_labels_do_not_pile_up() {
    let sun = sun();
    let options = XyOptions {
        instants: 60,
        ..XyOptions::default()
    };
    let mut svg = Vec::new();
    plot::xy(&sun.table, &[], &options, Format::Svg, &mut svg).unwrap();
    let texts = svg_texts(&svg_document(&svg));
    let labels = texts.iter().filter(|t| t.starts_with("t = ")).count();
    assert!(
        (2..60).contains(&labels),
        "{labels} of 60 time labels shown"
    );
}

#[test]
fn png_curves_are_anti_aliased_with_blends_of_their_colour_and_white() {
    let options = SeriesOptions {
        panels: vec![vec!["d1_y".into()]],
        ..SeriesOptions::default()
    };
    let png = render_series(&options, Format::Png);
    let decoder = png::Decoder::new(Cursor::new(&png));
    let mut reader = decoder.read_info().unwrap();
    let mut buffer = vec![0; reader.output_buffer_size().unwrap()];
    let info = reader.next_frame(&mut buffer).unwrap();
    // The curve is #0066CC on white: a partly covered pixel is white + f (colour - white),
    // 0 < f < 1, the same f in the three channels.
    let blend = |p: &[u8]| {
        let f = (255.0 - f64::from(p[0])) / 255.0;
        let expect = |c: f64| 255.0 + f * (c - 255.0);
        f > 0.05
            && f < 0.95
            && (f64::from(p[1]) - expect(102.0)).abs() <= 2.0
            && (f64::from(p[2]) - expect(204.0)).abs() <= 2.0
    };
    let pixels = &buffer[..info.buffer_size()];
    let blended = pixels.chunks_exact(3).filter(|p| blend(p)).count();
    let solid = pixels
        .chunks_exact(3)
        .filter(|p| p == &[0, 102, 204])
        .count();
    assert!(
        blended > solid / 2,
        "{blended} blended pixels, {solid} solid"
    );
}

/// The animated values of the first `animate`/`animateTransform` child of `node` with
/// `attribute` (or transform type), split per frame.
fn frame_values<'a>(node: roxmltree::Node<'a, 'a>, attribute: &str) -> Vec<&'a str> {
    node.descendants()
        .find(|n| {
            n.attribute("attributeName") == Some(attribute)
                || n.attribute("type") == Some(attribute)
        })
        .and_then(|n| n.attribute("values"))
        .map(|v| v.split(';').collect())
        .unwrap_or_default()
}

fn pair(text: &str) -> (f64, f64) {
    let (x, y) = text
        .split_once([',', ' '])
        .unwrap_or_else(|| panic!("a point: {text}"));
    (x.trim().parse().unwrap(), y.trim().parse().unwrap())
}

#[test]
fn the_animated_string_runs_through_the_diabolos_on_it_only() {
    // The shower: in every frame the string's polyline visits the left stick, the diabolos on
    // the string by slot, the right stick (padded with the right stick's point); a flying
    // diabolo is drawn free, off the polyline.
    let shower = run_shipped("shower");
    let options = AnimateOptions {
        fps: 10.0,
        ..AnimateOptions::default()
    };
    let mut svg = Vec::new();
    plot::animate(&shower.table, &options, Format::Svg, &mut svg).unwrap();
    let document = svg_document(&svg);
    let string = document
        .descendants()
        .find(|n| n.has_tag_name("polyline") && n.attribute("stroke-dasharray").is_none())
        .unwrap();
    let polylines: Vec<Vec<(f64, f64)>> = frame_values(string, "points")
        .iter()
        .map(|f| f.split_whitespace().map(pair).collect())
        .collect();
    // The diabolos' groups: translate per frame.
    let groups: Vec<Vec<(f64, f64)>> = document
        .descendants()
        .filter(|n| {
            n.has_tag_name("g")
                && n.children()
                    .any(|c| c.has_tag_name("circle") && c.attribute("fill-opacity").is_some())
        })
        .map(|g| {
            frame_values(g, "translate")
                .iter()
                .map(|v| pair(v))
                .collect()
        })
        .collect();
    assert_eq!(groups.len(), 2);
    let t = &shower.table.numbers[0];
    let mode = |k: usize, at: f64| {
        let column = shower
            .table
            .names
            .iter()
            .position(|n| *n == format!("d{k}_mode"))
            .unwrap();
        let (row, _) = diabolo::output::table::locate(t, at);
        shower.table.text[column][row].clone()
    };
    let (mut flying_seen, mut string_seen) = (0, 0);
    for (f, line) in polylines.iter().enumerate().take(polylines.len() - 1) {
        assert_eq!(line.len(), 4, "N + 2 points in every frame");
        for k in 1..=2 {
            let p = groups[k - 1][f];
            let on_line = line
                .iter()
                .any(|q| (q.0 - p.0).abs() < 0.6 && (q.1 - p.1).abs() < 0.6);
            match mode(k, f as f64 / 10.0).as_str() {
                "flying" => {
                    assert!(!on_line, "frame {f}: flying diabolo {k} on the string");
                    flying_seen += 1;
                }
                _ => {
                    assert!(on_line, "frame {f}: diabolo {k} off the string");
                    string_seen += 1;
                }
            }
        }
    }
    assert!(
        flying_seen > 5 && string_seen > 5,
        "{flying_seen} {string_seen}"
    );
}

#[test]
fn a_dropped_diabolo_is_greyed_and_the_disc_is_drawn_at_its_radius() {
    let missed = run_shipped("missed_catch");
    let draw = |radius: Option<f64>| {
        let options = AnimateOptions {
            fps: 5.0,
            radius,
            ..AnimateOptions::default()
        };
        let mut svg = Vec::new();
        plot::animate(&missed.table, &options, Format::Svg, &mut svg).unwrap();
        String::from_utf8(svg).unwrap()
    };
    let svg = draw(None);
    let document = svg_document(svg.as_bytes());
    let rim = document
        .descendants()
        .find(|n| n.has_tag_name("circle") && n.attribute("fill-opacity").is_some())
        .unwrap();
    let strokes = frame_values(rim, "stroke");
    assert!(strokes.first().is_some_and(|s| *s != "#999999"));
    assert_eq!(strokes.last(), Some(&"#999999"), "grey once dropped");
    // Twice the radius: twice the disc (the view, fitted to the motion, barely changes).
    let r = |svg: &str| -> f64 {
        let document = svg_document(svg.as_bytes());
        let rim = document
            .descendants()
            .find(|n| n.has_tag_name("circle") && n.attribute("fill-opacity").is_some())
            .unwrap();
        rim.attribute("r").unwrap().parse().unwrap()
    };
    let ratio = r(&draw(Some(0.127))) / r(&svg);
    assert!((ratio - 2.0).abs() < 0.15, "{ratio}");
    let bad = plot::animate(
        &missed.table,
        &AnimateOptions {
            radius: Some(0.0),
            ..AnimateOptions::default()
        },
        Format::Svg,
        &mut Vec::new(),
    );
    assert!(matches!(bad, Err(PlotError::Options(m)) if m.contains("--radius")));
}

#[test]
fn animate_labels_each_event_on_the_fifteen_frames_from_its_time() {
    let sun = sun();
    let options = AnimateOptions {
        events: sun.events.clone(),
        ..AnimateOptions::default()
    };
    let mut svg = Vec::new();
    let made = plot::animate(&sun.table, &options, Format::Svg, &mut svg).unwrap();
    let document = svg_document(&svg);
    let kinds: Vec<&str> = sun.events.iter().map(|e| e.kind.as_str()).collect();
    let labels: Vec<roxmltree::Node> = document
        .descendants()
        .filter(|n| n.has_tag_name("text") && n.attribute("font-size") == Some("12"))
        .filter(|n| n.text().is_some_and(|t| kinds.contains(&t)))
        .collect();
    // sun's events all fall within its 2.7 s: one label each, in the log's order.
    assert_eq!(labels.len(), sun.events.len());
    let frames = made.frames as f64;
    for (label, event) in labels.iter().zip(&sun.events) {
        assert_eq!(label.text(), Some(event.kind.as_str()));
        // Shown from the first frame at or after the event (frames every 1/30 s) for 15.
        let first = (0..made.frames)
            .find(|&f| f as f64 / 30.0 >= event.t)
            .unwrap();
        let end = (first + 15).min(made.frames);
        let visibility = label
            .children()
            .find(|n| n.attribute("attributeName") == Some("visibility"))
            .expect("a label shows on some frames only");
        let times: Vec<f64> = visibility
            .attribute("keyTimes")
            .unwrap()
            .split(';')
            .map(|v| v.parse().unwrap())
            .collect();
        let values: Vec<&str> = visibility.attribute("values").unwrap().split(';').collect();
        // keyTimes are written to 6 digits: a frame's time within 1e-5 (frames are 1/82 apart).
        let shown_at = |f: usize| {
            let at = f as f64 / frames;
            let i = times.iter().rposition(|&k| k <= at + 1e-5).unwrap();
            values[i] == "visible"
        };
        for f in 0..made.frames {
            assert_eq!(
                shown_at(f),
                (first..end).contains(&f),
                "{} at {} s, frame {f}",
                event.kind,
                event.t
            );
        }
    }
    // Without events, no label.
    let mut plain = Vec::new();
    plot::animate(
        &sun.table,
        &AnimateOptions::default(),
        Format::Svg,
        &mut plain,
    )
    .unwrap();
    let plain = svg_document(&plain);
    assert!(!svg_texts(&plain)
        .iter()
        .any(|t| kinds.contains(&t.as_str())));
}

#[test]
fn animate_events_flag_draws_the_labels_into_the_gif_and_refuses_a_bad_log() {
    let sun = sun();
    let (csv, events) = (sun.csv.to_str().unwrap(), sun.events_path.to_str().unwrap());
    let out = |name: &str| sun.dir.join(name).display().to_string();
    let (plain, labelled) = (out("plain_events.gif"), out("labelled_events.gif"));
    for args in [
        vec!["animate", csv, "-o", &plain, "--fps", "10"],
        vec![
            "animate", csv, "-o", &labelled, "--fps", "10", "--events", events,
        ],
    ] {
        let result = diabolo(&args);
        assert!(
            result.status.success(),
            "{args:?}: {}",
            text(&result.stderr)
        );
    }
    let (plain, labelled) = (
        std::fs::read(&plain).unwrap(),
        std::fs::read(&labelled).unwrap(),
    );
    assert_eq!(decode_gif(&plain).2, decode_gif(&labelled).2);
    assert_ne!(plain, labelled, "the labels are drawn");
    let bad = sun.dir.join("bad_animate_events.jsonl");
    std::fs::write(&bad, "{\"kind\": \"tense\"}\n").unwrap();
    let target = out("refused.gif");
    let result = diabolo(&[
        "animate",
        csv,
        "-o",
        &target,
        "--events",
        bad.to_str().unwrap(),
    ]);
    assert_eq!(result.status.code(), Some(2), "{}", text(&result.stderr));
    assert!(text(&result.stderr).contains("line 1: no number \"t\""));
    assert!(!Path::new(&target).exists());
}
