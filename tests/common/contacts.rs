//! The contact invariants of one output row, checked independently of the simulator's guards:
//! no two live diabolos closer than 2R, no live diabolo within R of a stick tip, no flying one
//! below the floor. Used on `Row`s (tests/physics/no_pass_through.rs) and on trajectory CSVs
//! (tests/fuzz.rs).

/// A gap below minus this (m) is an overlap; less is round-off of the rows.
pub const GAP_ROUNDOFF: f64 = 1e-7;

/// A diabolo in a row: its number K, its centre (m) and its mode ("string", "flying",
/// "dropped").
pub struct Disc<'a> {
    pub k: usize,
    pub pos: [f64; 2],
    pub mode: &'a str,
}

/// The first violation of the contact invariants at time `t` (s), in words; `tips` are the
/// left and the right stick tip, `radius` R (m), `floor` the floor's height (m) if any.
pub fn violation(
    t: f64,
    tips: [[f64; 2]; 2],
    discs: &[Disc],
    radius: f64,
    floor: Option<f64>,
) -> Option<String> {
    let distance = |a: [f64; 2], b: [f64; 2]| (a[0] - b[0]).hypot(a[1] - b[1]);
    let live: Vec<&Disc> = discs.iter().filter(|d| d.mode != "dropped").collect();
    for (i, a) in live.iter().enumerate() {
        for b in &live[i + 1..] {
            let gap = distance(a.pos, b.pos) - 2.0 * radius;
            if gap < -GAP_ROUNDOFF {
                return Some(format!(
                    "t = {t}: diabolos {} and {} overlap by {:.3e} m",
                    a.k, b.k, -gap
                ));
            }
        }
        for (name, tip) in ["left", "right"].into_iter().zip(tips) {
            let gap = distance(a.pos, tip) - radius;
            if gap < -GAP_ROUNDOFF {
                return Some(format!(
                    "t = {t}: diabolo {} is {:.3e} m inside the {name} tip",
                    a.k, -gap
                ));
            }
        }
        if let (Some(floor), "flying") = (floor, a.mode) {
            if a.pos[1] - radius < floor - GAP_ROUNDOFF {
                return Some(format!("t = {t}: diabolo {} flies below the floor", a.k));
            }
        }
    }
    None
}
