//! The recordings in three dimensions (`data/space/`, `data/inclination/`): read with the
//! planar columns unchanged and the third dimension alongside, strict about their cells and
//! their axle, and the "stays as it is" forecasts of the inclination take as its analysis
//! measured them.

use diabolo::model::axle_angles;
use diabolo::replay::{stay_baselines, Recording, AXLE_SMOOTHING};

fn data(path: &str) -> std::path::PathBuf {
    std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("data")
        .join(path)
}

#[test]
fn a_space_recording_holds_the_planar_one_and_the_third_dimension() {
    let planar = Recording::read(&data("omron/z_hop_1.csv")).unwrap();
    let space = Recording::read(&data("space/z_hop_1.csv")).unwrap();
    assert!(planar.space.is_none());
    assert_eq!(
        (
            &planar.t,
            &planar.left,
            &planar.right,
            &planar.dia,
            &planar.spin
        ),
        (&space.t, &space.left, &space.right, &space.dia, &space.spin)
    );
    let third = space.space.as_ref().unwrap();
    for series in [&third.left_z, &third.right_z, &third.dia_z] {
        assert_eq!(series.len(), space.t.len());
    }
    assert_eq!(third.axle.len(), space.t.len());
    // The first frame: dia_z -0.045425, axle (0.025915, -0.041008, 0.998823).
    assert_eq!(third.dia_z[0], -0.045425);
    // (The angles of the axle normalised: the file gives six decimals.)
    let tilt = axle_angles::tilt(&third.axle[0]);
    let turn = axle_angles::turn(&third.axle[0]);
    assert!(
        (tilt - (-0.041008f64).asin().to_degrees()).abs() < 1e-4,
        "{tilt}"
    );
    assert!(
        (turn - 0.025915f64.atan2(0.998823).to_degrees()).abs() < 1e-4,
        "{turn}"
    );
    // A folder of 3D recordings reads as one of planar ones does.
    let all = Recording::read_path(&data("inclination")).unwrap();
    assert_eq!(all.len(), 9);
    assert!(all.iter().all(|r| r.space.is_some()));
}

#[test]
fn space_recordings_name_the_line_and_column_of_a_bad_cell_or_axle() {
    let header = "t,left_x,left_y,left_z,right_x,right_y,right_z,dia_x,dia_y,dia_z,axle_x,axle_y,\
                  axle_z,spin";
    let row = |i: usize, dia_z: &str, axle: &str| {
        format!(
            "{},-0.1,0,0.01,0.1,0,0.02,0,-0.7,{dia_z},{axle},100",
            i as f64 / 120.0
        )
    };
    let file = |bad: String| {
        let mut lines = vec!["# a comment".to_string(), header.to_string()];
        for i in 0..10 {
            lines.push(if i == 3 {
                bad.clone()
            } else {
                row(i, "0.005", "0,0,1")
            });
        }
        lines.join("\n")
    };
    let good = Recording::parse("good", &file(row(3, "0.005", "0,0,1"))).unwrap();
    assert_eq!(good.space.unwrap().dia_z[3], 0.005);
    let cases = [
        (row(3, "abc", "0,0,1"), "line 6, column dia_z"),
        (row(3, "0", "0,0,nan"), "line 6, column axle_z"),
        (
            row(3, "0", "0,0.6,0.6"),
            "line 6: columns axle_x, axle_y, axle_z",
        ),
        (row(3, "0", "0,0,-1"), "line 6: column axle_z"),
        (
            "0.025,1,2,3".to_string(),
            "line 6 has 4 fields, the header 14",
        ),
    ];
    for (bad, expected) in cases {
        let error = Recording::parse("bad", &file(bad)).unwrap_err();
        assert!(error.contains(expected), "{error}");
    }
    let error = Recording::parse("bad", "t,x\n0,1").unwrap_err();
    assert!(
        error.contains("expected the header t,left_x,left_y,right_x,right_y,dia_x,dia_y,spin")
            && error.contains("axle_z,spin"),
        "{error}"
    );
}

#[test]
fn the_inclination_take_keeps_its_tilt_as_its_analysis_found() {
    // "The tilt stays as it is": 0.28 / 0.58 / 1.09 / 2.03 degrees at 0.2 / 0.5 / 1 / 2 s
    // (every frame a start, pooled over the nine segments; see `stay_baselines`).
    let recordings = Recording::read_path(&data("inclination")).unwrap();
    let horizons = [0.2, 0.5, 1.0, 2.0];
    let baselines = stay_baselines(&recordings, &horizons, AXLE_SMOOTHING).unwrap();
    for (b, expected) in baselines.iter().zip([0.28, 0.58, 1.09, 2.03]) {
        assert!(
            (b.tilt_mean - expected).abs() <= 0.01,
            "{} s: {} degrees, expected {expected}",
            b.horizon,
            b.tilt_mean
        );
        assert!(b.n > 16_000, "{b:?}");
        assert!(b.turn_mean.is_finite() && b.oop_mean.is_finite() && b.plane_mean.is_finite());
    }
    // A planar recording has no tilt to keep.
    let planar = Recording::read(&data("omron/z_hop_1.csv")).unwrap();
    let error = stay_baselines(&[planar], &horizons, AXLE_SMOOTHING).unwrap_err();
    assert!(error.to_string().contains("z_hop_1"), "{error}");
}
