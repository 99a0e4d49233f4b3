//! Does the recorded string stretch under tension? For every frame where the string is taut,
//! the two segment tensions follow from the measured diabolo acceleration (m (a - g) = T1 u1 +
//! T2 u2, u toward the tips; a from a centred cubic over +-0.05 s), and the taut sum
//! S = |tipL - dia| + |tipR - dia| is regressed on T1 l1 + T2 l2: a linear string of rest length
//! L0 and axial stiffness EA gives S = L0 + (T1 l1 + T2 l2) / EA.
//! Run: `cargo run --release --example string_stretch`.
use diabolo::replay::Recording;
use diabolo::simulation::drive::SampledPath;
use nalgebra::{Matrix2, Vector2};

fn main() -> anyhow::Result<()> {
    let recordings =
        Recording::read_dir(&std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("data/omron"))?;
    let (mass, gravity) = (0.2, Vector2::new(0.0, -9.81));
    println!("recording                     frames  L0 (m)   EA (N)   R^2   sum range (m)  T1 l1 + T2 l2 range (N m)");
    for rec in recordings {
        let frames: Vec<(f64, Vector2<f64>)> =
            rec.t.iter().copied().zip(rec.dia.iter().copied()).collect();
        let path = SampledPath::new(frames, 0.05)?;
        let mut points = Vec::new();
        for i in 0..rec.t.len() {
            let acc = path.at(rec.t[i]).acc;
            let (d1, d2) = (rec.left[i] - rec.dia[i], rec.right[i] - rec.dia[i]);
            let (l1, l2) = (d1.norm(), d2.norm());
            let u = Matrix2::from_columns(&[d1 / l1, d2 / l2]);
            let Some(t) = u.lu().solve(&(mass * (acc - gravity))) else {
                continue;
            };
            // Taut and well conditioned: both tensions clearly positive.
            if t[0] > 0.3 && t[1] > 0.3 {
                points.push((t[0] * l1 + t[1] * l2, l1 + l2));
            }
        }
        let n = points.len() as f64;
        if n < 20.0 {
            continue;
        }
        let (mx, my) = (
            points.iter().map(|p| p.0).sum::<f64>() / n,
            points.iter().map(|p| p.1).sum::<f64>() / n,
        );
        let sxx: f64 = points.iter().map(|p| (p.0 - mx).powi(2)).sum();
        let sxy: f64 = points.iter().map(|p| (p.0 - mx) * (p.1 - my)).sum();
        let syy: f64 = points.iter().map(|p| (p.1 - my).powi(2)).sum();
        let slope = sxy / sxx;
        let range = |f: fn(&(f64, f64)) -> f64| {
            let v: Vec<f64> = points.iter().map(f).collect();
            (
                v.iter().copied().fold(f64::INFINITY, f64::min),
                v.iter().copied().fold(f64::NEG_INFINITY, f64::max),
            )
        };
        let (s0, s1) = range(|p| p.1);
        let (x0, x1) = range(|p| p.0);
        println!(
            "{:28} {:6}  {:.4}  {:7.0}  {:.2}  {:.4}-{:.4}  {:.2}-{:.2}",
            rec.name,
            points.len(),
            my - slope * mx,
            1.0 / slope,
            sxy * sxy / (sxx * syy),
            s0,
            s1,
            x0,
            x1
        );
    }
    Ok(())
}
