//! Pictures of a trajectory in space (issue 33): `plot --xy` and `animate` draw the front view
//! and the view from above side by side with each diabolo's axle, the time series plots the
//! space columns by name, a missing space column is an error naming it, and a planar
//! trajectory draws exactly as before (golden pictures, blessed with `DIABOLO_BLESS=1`).
//!
//! The fixtures (`tests/fixtures/space_swing.csv`, `plane_swing.csv`: two diabolos swinging in
//! depth, their axles tilting and turning, the string loose for a moment) are written by
//! `tests/fixtures/space_swing.py` with the columns `diabolo run` writes in 3D and in the plane.

use crate::common;
use common::command::{diabolo, text};
use common::pictures::{decode_gif, decode_png, svg_document as document, svg_texts as texts};

use std::path::{Path, PathBuf};

use diabolo::output::table::Table;
use diabolo::plot::{self, AnimateOptions, Format, SeriesOptions, View, XyOptions};

fn fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures")
        .join(name)
}

fn space() -> Table {
    Table::read(&fixture("space_swing.csv")).unwrap()
}

fn pairs(points: &str) -> Vec<(f64, f64)> {
    points
        .split_whitespace()
        .map(|p| {
            let (x, y) = p.split_once(',').expect("x,y");
            (x.parse().unwrap(), y.parse().unwrap())
        })
        .collect()
}

fn xy_svg(table: &Table, options: &XyOptions) -> Vec<u8> {
    let mut out = Vec::new();
    plot::xy(table, &[], options, Format::Svg, &mut out).unwrap();
    out
}

/// The axle segments of an `--xy` SVG: two-point polylines of the axle's colour and width.
fn axle_segments(document: &roxmltree::Document) -> Vec<Vec<(f64, f64)>> {
    document
        .descendants()
        .filter(|n| {
            n.has_tag_name("polyline")
                && n.attribute("stroke") == Some("#333333")
                && n.attribute("stroke-width") == Some("3")
        })
        .map(|n| pairs(n.attribute("points").unwrap()))
        .filter(|p| p.len() == 2)
        .collect()
}

#[test]
fn xy_of_a_run_in_space_draws_the_front_view_and_the_view_from_above_with_the_axles() {
    let table = space();
    let options = XyOptions {
        width: 1200,
        ..XyOptions::default()
    };
    let svg = xy_svg(&table, &options);
    let document = document(&svg);
    let texts = texts(&document);
    for label in [
        "front (x-y)",
        "from above (x-z)",
        "x (m)",
        "y (m)",
        "z (m): down = toward the audience",
        "axle (drawn 12 cm long)",
    ] {
        assert!(texts.iter().any(|t| t == label), "{label} in {texts:?}");
    }
    assert_eq!(texts.iter().filter(|t| *t == "x (m)").count(), 2);
    // The legend's swatch, then an axle per diabolo and instant in each view.
    let segments = axle_segments(&document);
    assert_eq!(segments.len(), 1 + 2 * 5 * 2, "{segments:?}");
    let segments = &segments[1..];
    // The axles point mostly toward the audience (tilt within 20 degrees): short seen from
    // the front, long seen from above, and vertical in the view from above at the start.
    let length = |s: &Vec<(f64, f64)>| (s[1].0 - s[0].0).hypot(s[1].1 - s[0].1);
    let (front, top) = segments[..20].split_at(10);
    let (front, top): (f64, f64) = (front.iter().map(length).sum(), top.iter().map(length).sum());
    assert!(
        top > 2.0 * front,
        "from above {top} px, in front {front} px"
    );
    let first_top = &segments[10];
    assert!(
        (first_top[0].0 - first_top[1].0).abs() < 1.0,
        "{first_top:?}"
    );
    // The view from above labels z, not -z: the audience's side (positive z) is below.
    assert!(texts.iter().any(|t| t == "0.2") && texts.iter().any(|t| t == "-0.2"));
    // A PNG of it decodes at its size.
    let mut png_bytes = Vec::new();
    plot::xy(&table, &[], &options, Format::Png, &mut png_bytes).unwrap();
    let (width, height, _) = decode_png(&png_bytes);
    assert_eq!((width, height), (1200, 640));
}

#[test]
fn xy_views_are_chosen_and_a_planar_run_has_only_the_front_one() {
    let table = space();
    let options = XyOptions {
        views: vec![View::Side],
        instants: 3,
        ..XyOptions::default()
    };
    let svg = xy_svg(&table, &options);
    let document = document(&svg);
    let texts = texts(&document);
    assert!(texts
        .iter()
        .any(|t| t == "z (m): right = toward the audience"));
    assert!(texts.iter().any(|t| t == "from the left (z-y)"));
    assert!(!texts.iter().any(|t| t == "front (x-y)"));
    assert_eq!(axle_segments(&document).len(), 2 * 3 + 1);
    assert_eq!(
        plot::xy::views_of(&table, &[]).unwrap(),
        vec![View::Front, View::Top]
    );
    let plane = Table::read(&fixture("plane_swing.csv")).unwrap();
    assert_eq!(plot::xy::views_of(&plane, &[]).unwrap(), vec![View::Front]);
    let options = XyOptions {
        views: vec![View::Top],
        ..XyOptions::default()
    };
    let error = plot::xy(&plane, &[], &options, Format::Svg, &mut Vec::new()).unwrap_err();
    assert!(
        error.is_input() && error.to_string().contains("planar"),
        "{error}"
    );
}

#[test]
fn animation_of_a_run_in_space_moves_the_axles_in_both_views() {
    let table = space();
    let mut svg = Vec::new();
    let animation =
        plot::animate(&table, &AnimateOptions::default(), Format::Svg, &mut svg).unwrap();
    let document = document(&svg);
    let texts = texts(&document);
    assert!(texts.iter().any(|t| t == "front (x-y)"), "{texts:?}");
    assert!(texts
        .iter()
        .any(|t| t == "from above (x-z), audience below"));
    // An axle and a rim per diabolo and view, each with one value per frame (and the last
    // held), every value a segment or a closed outline.
    for (class, points) in [("axle", 2), ("rim", 32)] {
        let parts: Vec<_> = document
            .descendants()
            .filter(|n| n.attribute("class") == Some(class))
            .collect();
        assert_eq!(parts.len(), 2 * 2, "{class}");
        for part in parts {
            let animate = part
                .children()
                .find(|c| {
                    c.has_tag_name("animate") && c.attribute("attributeName") == Some("points")
                })
                .expect("animated points");
            let values: Vec<&str> = animate.attribute("values").unwrap().split(';').collect();
            assert_eq!(values.len(), animation.frames + 1, "{class}");
            assert!(values.iter().all(|v| pairs(v).len() == points), "{class}");
        }
    }
    // The axle of diabolo 1 seen from above turns as the run goes on (turn 40 degrees a second).
    let axle = document
        .descendants()
        .filter(|n| n.attribute("class") == Some("axle"))
        .nth(2)
        .unwrap();
    let direction = |v: &str| {
        let p = pairs(v);
        (p[1].0 - p[0].0).atan2(p[1].1 - p[0].1).to_degrees()
    };
    let values: Vec<&str> = axle
        .children()
        .find(|c| c.has_tag_name("animate"))
        .unwrap()
        .attribute("values")
        .unwrap()
        .split(';')
        .collect();
    let turned = (direction(values[values.len() - 1]) - direction(values[0])).abs();
    let turned = turned.min(180.0 - turned);
    assert!((turned - 40.0).abs() < 3.0, "turned {turned} degrees");
    // The GIF has its frames.
    let mut gif_bytes = Vec::new();
    let options = AnimateOptions {
        fps: 10.0,
        ..AnimateOptions::default()
    };
    let drawn = plot::animate(&table, &options, Format::Gif, &mut gif_bytes).unwrap();
    let (_, _, frames, _) = decode_gif(&gif_bytes);
    assert_eq!(frames, drawn.frames);
}

#[test]
fn time_series_plot_the_space_columns_by_name() {
    let options = SeriesOptions {
        panels: SeriesOptions::panels_from(&["d1_tilt".into(), "d1_z+d2_z".into()]),
        ..SeriesOptions::default()
    };
    let mut svg = Vec::new();
    plot::series(&space(), &[], &options, Format::Svg, &mut svg).unwrap();
    let texts = texts(&document(&svg));
    assert!(
        texts.iter().any(|t| t == "d1_tilt: axle tilt (°)"),
        "{texts:?}"
    );
    assert!(texts.iter().any(|t| t == "depth z (m)"), "{texts:?}");
}

#[test]
fn a_run_in_space_without_an_axle_column_is_refused_naming_it() {
    let csv_text = std::fs::read_to_string(fixture("space_swing.csv")).unwrap();
    let mut lines = csv_text.lines();
    let header: Vec<&str> = lines.next().unwrap().split(',').collect();
    let drop = header.iter().position(|n| *n == "d1_az").unwrap();
    let without = |line: &str| {
        line.split(',')
            .enumerate()
            .filter(|(i, _)| *i != drop)
            .map(|(_, v)| v)
            .collect::<Vec<_>>()
            .join(",")
    };
    let dir = std::env::temp_dir().join(format!("diabolo-plot-space-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let csv = dir.join("no_az.csv");
    let body: Vec<String> = std::iter::once(without(&header.join(",")))
        .chain(lines.map(without))
        .collect();
    std::fs::write(&csv, body.join("\n") + "\n").unwrap();
    let table = Table::read(&csv).unwrap();
    let error = plot::xy(
        &table,
        &[],
        &XyOptions::default(),
        Format::Svg,
        &mut Vec::new(),
    )
    .unwrap_err();
    assert!(
        error.is_input() && error.to_string().contains("no column d1_az"),
        "{error}"
    );
    let error = plot::animate(
        &table,
        &AnimateOptions::default(),
        Format::Svg,
        &mut Vec::new(),
    )
    .unwrap_err();
    assert!(error.to_string().contains("d1_az"), "{error}");
    // The command: exit 2, the column named, no picture written.
    let picture = dir.join("no_az.svg");
    for command in ["plot", "animate"] {
        let mut args = vec![
            command,
            csv.to_str().unwrap(),
            "-o",
            picture.to_str().unwrap(),
        ];
        if command == "plot" {
            args.push("--xy");
        }
        let out = diabolo(&args);
        assert_eq!(out.status.code(), Some(2), "{}", text(&out.stderr));
        assert!(text(&out.stderr).contains("d1_az"), "{}", text(&out.stderr));
        assert!(!picture.exists());
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// Compares `bytes` with the golden picture `name` (writes it with `DIABOLO_BLESS=1`).
fn golden(name: &str, bytes: &[u8]) {
    let path = fixture(name);
    if std::env::var_os("DIABOLO_BLESS").is_some() {
        std::fs::write(&path, bytes).unwrap();
    }
    let expected = std::fs::read(&path).unwrap();
    assert!(
        expected == bytes,
        "{name} differs from the golden picture (a planar picture must not change)"
    );
}

#[test]
fn planar_pictures_are_unchanged() {
    let plane = Table::read(&fixture("plane_swing.csv")).unwrap();
    golden("plane_swing_xy.svg", &xy_svg(&plane, &XyOptions::default()));
    let mut svg = Vec::new();
    plot::animate(&plane, &AnimateOptions::default(), Format::Svg, &mut svg).unwrap();
    golden("plane_swing.svg", &svg);
}
