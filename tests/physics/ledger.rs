//! The energy ledger as a run-time invariant (docs/model.md, "Energy ledger"): the reproducers
//! of issue 31 close their ledger with no loss account falling, an open ledger ends a run with
//! the status `ledger_open`, and tolerances too loose to keep the ledger are refused.

use crate::common;

use common::command::{diabolo, text};
use common::shipped;
use diabolo::simulation::Row;

/// The largest |E - E(0) - (W - losses)| over `rows` (computed here from the rows' columns,
/// independently of the run's own watch), J, and the largest fall of any loss account from
/// its highest value so far, J.
fn ledger_of(rows: &[Row]) -> (f64, f64) {
    let losses = |r: &Row| {
        [
            r.friction_loss,
            r.drag_loss,
            r.impulse_loss,
            r.string_loss.unwrap_or(0.0),
        ]
    };
    let e0 = rows[0].energy;
    let mut highest = [f64::NEG_INFINITY; 4];
    let (mut residual, mut fall) = (0.0_f64, 0.0_f64);
    for r in rows {
        let l = losses(r);
        residual = residual.max(((r.energy - e0) - (r.hand_work - l.iter().sum::<f64>())).abs());
        for (h, v) in highest.iter_mut().zip(l) {
            fall = fall.max(*h - v);
            *h = h.max(v);
        }
    }
    (residual, fall)
}

fn run_rows(sim: &diabolo::Simulation) -> (diabolo::RunReport, Vec<Row>) {
    let mut rows = Vec::new();
    let report = sim.run(&mut |r| rows.push(r.clone()));
    (report, rows)
}

const STRUCK_PAIR: &str = r#"[{"x":0},{"mode":"flying","pos":[0.3196,1.949]},{"mode":"flying","pos":[-0.0111,3.109]},{"mode":"flying","pos":[0.2227,1.7]}]"#;

// Issue 31: a flying diabolo strikes one of a pair resting side by side on the string
// (0.651 s); the impact leaves the pair separating, and the contact force held across it did
// work lambda l' that no account held (the ledger drifted to -0.066 J; +0.66 J with EA 100).
#[test]
fn a_flying_diabolo_striking_a_resting_pair_keeps_the_ledger_closed() {
    for stiffness in [None, Some("100")] {
        let mut sets = vec![
            ("params.contact_restitution", "0"),
            ("sim.duration", "1"),
            ("initial.diabolos", STRUCK_PAIR),
        ];
        if let Some(ea) = stiffness {
            sets.push(("params.string_stiffness", ea));
        }
        let (report, rows) = run_rows(&shipped("whip", &sets));
        // With restitution 0 the striking diabolo comes to rest on top of the one it hit, a
        // resting contact off the string's neighbours: the inextensible run stops there (it
        // used to go on with the flying diabolo sinking into the other unseen).
        match &report.failure {
            None => {}
            Some(diabolo::RunError::Pressed { .. }) => {}
            Some(other) => panic!("EA {stiffness:?}: {other}"),
        }
        let (residual, fall) = ledger_of(&rows);
        assert!(
            residual < 1e-7,
            "EA {stiffness:?}: ledger open by {residual:e} J"
        );
        assert!(fall < 1e-9, "EA {stiffness:?}: a loss fell by {fall:e} J");
    }
}

// Issue 31: hands still, a diabolo lands on a stiff stretchy string (EA 1e4) at atol 1e-6;
// the axle slipped on the way its slip had come back from, friction_loss fell to -0.101 J and
// the energy rose from 4.7088 to 4.8098 J. With the hands still nothing can add energy.
#[test]
fn friction_never_makes_energy_in_a_stiff_stretchy_catch() {
    let sim = shipped(
        "stretchy_catch",
        &[
            ("params.string_stiffness", "1e4"),
            ("params.string_damping", "0.01"),
            ("sim.atol", "1e-6"),
        ],
    );
    let (report, rows) = run_rows(&sim);
    assert!(report.failure.is_none(), "{:?}", report.failure);
    let (residual, fall) = ledger_of(&rows);
    assert!(residual < 1e-3, "ledger open by {residual:e} J");
    assert!(fall < 1e-4, "a loss fell by {fall:e} J");
    let e0 = rows[0].energy;
    let highest = rows.iter().map(|r| r.energy).fold(f64::MIN, f64::max);
    assert!(highest < e0 + 1e-4, "energy rose from {e0} to {highest} J");
}

// Issue 31: three diabolos thrown onto a compliant string (EA 1000 N, eta 0.5 N s) in the swing
// at rtol 1e-4: the damper account fell to -0.46 J while the string was 0.44 m slack, and the
// run ended ledger_open. The loose phase's damper term (a stretch left while slack relaxing)
// was evaluated in the stages of a step reaching past the tensing, where the string stretches
// with a stretch and the term turns negative, and bent the step's interpolant of the account.
// The term only takes energy from a stretch that shortens: the account never falls, and the
// ledger closes.
#[test]
fn the_damper_account_draws_no_energy_back_while_the_string_is_slack() {
    let diabolos = r#"[{"mode":"flying","pos":[0.0978,2.4651],"vel":[-0.823,-0.581]},{"mode":"flying","pos":[0.3931,2.9527],"vel":[-0.546,1.774]},{"mode":"flying","pos":[0.0988,3.1478],"vel":[-0.311,1.833]}]"#;
    let sim = shipped(
        "swing",
        &[
            ("sim.duration", "2"),
            ("sim.output_interval", "0.001"),
            ("initial.diabolos", diabolos),
            ("params.contact_restitution", "0.7"),
            ("params.string_stiffness", "1000"),
            ("params.string_damping", "0.5"),
            ("sim.rtol", "1e-4"),
            ("sim.atol", "1e-9"),
        ],
    );
    let (report, rows) = run_rows(&sim);
    assert!(report.failure.is_none(), "{:?}", report.failure);
    // The damper account fell by 0.46 J within 10 ms at 0.44 m slack. What is left is the
    // integration's own error on the account (its integrand has a kink where a stretch runs
    // out, inside a step; dopri5 has a negative weight): 8.1e-3 J at most here (a 7 ms hump of
    // 6e-4 J at 1.34 s, 2.4e-3 J where the string loosens at 0.53 s), within the ledger's
    // 0.38 J tolerance, which the run's own watch holds it to.
    let (_, fall) = ledger_of(&rows);
    assert!(
        fall < 0.046,
        "a loss fell by {fall:e} J (a tenth of the old fall)"
    );
    let (residual, _) = ledger_of(&rows);
    assert!(residual < 0.1, "ledger open by {residual:e} J");
}

// Tolerances beyond 1e-3 are refused at validation (exit 2, naming the field and the range):
// at rtol 0.1, atol 1 the step control let a ledger open by 27,000 J in a run that said ok.
#[test]
fn tolerances_too_loose_for_the_ledger_are_refused() {
    for (key, value) in [("sim.rtol", "0.1"), ("sim.atol", "1"), ("sim.rtol", "2e-3")] {
        let set = format!("{key}={value}");
        let out = diabolo(&["run", "scenarios/whip.json", "--set", &set, "-q"]);
        assert_eq!(out.status.code(), Some(2), "{set}");
        let message = text(&out.stderr);
        assert!(message.contains(key), "{message}");
        assert!(
            message.contains("1e-3") || message.contains("0.001"),
            "{message}"
        );
        assert!(out.stdout.is_empty());
    }
    let out = diabolo(&[
        "run",
        "scenarios/whip.json",
        "--set",
        "sim.rtol=1e-3",
        "--set",
        "sim.atol=1e-3",
        "-q",
        "-o",
        "/dev/null",
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
}

// Every shipped scenario closes its ledger within the invariant's tolerance and says ok.
#[test]
fn every_shipped_scenario_keeps_its_ledger() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("scenarios");
    let mut names: Vec<String> = std::fs::read_dir(&dir)
        .unwrap()
        .filter_map(|e| {
            let p = e.unwrap().path();
            // The scenarios in space (`"space": true`) have their own ledger check.
            (p.extension()? == "json"
                && std::fs::read_to_string(&p).is_ok_and(|t| !t.contains("\"space\": true")))
            .then(|| p.file_stem().unwrap().to_string_lossy().into())
        })
        .collect();
    names.sort();
    assert!(names.len() >= 15);
    for name in names {
        let (report, rows) = run_rows(&shipped(&name, &[]));
        assert!(report.failure.is_none(), "{name}: {:?}", report.failure);
        let (residual, fall) = ledger_of(&rows);
        assert!(residual < 1e-8, "{name}: ledger open by {residual:e} J");
        assert!(fall < 1e-9, "{name}: a loss fell by {fall:e} J");
    }
}

// A run whose ledger opens ends with status ledger_open (exit 1), naming the time and the
// account, with the trajectory up to then written. The case: a compliant string (EA 1000 N) in
// the swing with diabolos thrown onto it, at the loosest accepted rtol, 1e-3: its ledger
// drifts 2.94 J open against a tolerance of 2.86 J (found by random scenarios, issue 31; the case
// the helper first used, a damper account falling in the loose phase past the tensing, was
// mended at its cause: the loose phase's damper no longer draws energy back in a stage that
// reaches past the tensing).
#[test]
fn an_open_ledger_ends_the_run_with_status_ledger_open() {
    let dir = std::env::temp_dir().join(format!("ledger_open_{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let (csv, summary) = (dir.join("run.csv"), dir.join("summary.json"));
    let diabolos = r#"[{"x":0.0},{"mode":"flying","pos":[0.4479,2.2922],"vel":[-0.903,1.464]},{"mode":"flying","pos":[-0.4059,2.5742],"vel":[0.819,-0.356]}]"#;
    let sets = [
        "sim.duration=2".to_string(),
        "sim.output_interval=0.001".to_string(),
        format!("initial.diabolos={diabolos}"),
        "params.contact_restitution=0.7".to_string(),
        "params.string_stiffness=1000".to_string(),
        "params.string_damping=0.5".to_string(),
        "sim.rtol=1e-3".to_string(),
        "sim.atol=1e-6".to_string(),
    ];
    let mut args = vec!["run", "scenarios/swing.json", "-o"];
    args.push(csv.to_str().unwrap());
    args.extend(["--summary", summary.to_str().unwrap()]);
    for s in &sets {
        args.extend(["--set", s.as_str()]);
    }
    let out = diabolo(&args);
    assert_eq!(out.status.code(), Some(1), "{}", text(&out.stderr));
    let summary: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&summary).unwrap()).unwrap();
    assert_eq!(summary["status"], "ledger_open");
    let failure = summary["failure"].as_str().unwrap();
    assert!(failure.starts_with("t = "), "{failure}");
    assert!(failure.contains("energy ledger opens"), "{failure}");
    assert!(
        failure.contains("_loss") || failure.contains("E - E(0)"),
        "{failure}"
    );
    // The rows before the breach are written.
    let rows = std::fs::read_to_string(&csv).unwrap();
    assert!(rows.lines().count() > 10, "{rows}");
    std::fs::remove_dir_all(&dir).unwrap();
}
