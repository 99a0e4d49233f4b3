//! A diabolo hanging below two held sticks, then whipped: builds the state in code, evaluates the
//! rotating-frame tension solution, and prints the physics of that instant.
//!
//! Run: `cargo run --release --example hanging`

use diabolo::model::{AxleMode, CartesianState, ParamValues, Params, StickInput, TautDynamics};
use nalgebra::Vector2;

fn main() -> anyhow::Result<()> {
    let params = Params::new(ParamValues {
        string_length: 1.46,
        ..Default::default()
    })?;
    // Sticks 0.8 m apart at shoulder height, the diabolo at the bottom of the string, spinning
    // at 100 rad/s (w = r omega = 0.0065 m * 100 rad/s).
    let mut state = CartesianState::hanging(&params, [-0.4, 1.5], [0.4, 1.5], 0.0, 0.65)?;
    let mut dynamics = TautDynamics::new(&params, 1);
    let layout = dynamics.layout();
    let held = [
        StickInput::Accel(Vector2::zeros()),
        StickInput::Accel(Vector2::zeros()),
    ];

    let x = layout
        .reduce(&state, params.string_length, 1e-9)?
        .into_values();
    dynamics.evaluate(&x, &held, &[AxleMode::from_slip(0.65)])?;
    report("hanging still", &dynamics);

    // The whip: the left stick pulls string through the axle at 1.5 m/s, faster than the axle
    // surface turns (w' < 0), while the right stick gives way: friction spins the diabolo up.
    state.left.vel = Vector2::new(-1.5, 0.0);
    let e1 = (state.right.pos - state.diabolos[0].pos).normalize();
    let e0 = (state.diabolos[0].pos - state.left.pos).normalize();
    state.right.vel = e1 * e0.dot(&state.left.vel);
    let x = layout
        .reduce(&state, params.string_length, 1e-9)?
        .into_values();
    let mut rates = vec![0.0; layout.len()];
    dynamics.evaluate(&x, &held, &[AxleMode::from_slip(0.0)])?;
    let slip = dynamics.axles().contacts()[0].slip_speed;
    dynamics.evaluate(&x, &held, &[AxleMode::from_slip(slip)])?;
    dynamics.write_rates(&mut rates);
    report("whip", &dynamics);
    println!(
        "  spin-up rate w' = {:+.3} m/s^2 (d omega/dt = {:+.0} rad/s^2)",
        dynamics.spin_rate(1),
        dynamics.spin_rate(1) / 0.0065
    );
    Ok(())
}

fn report(label: &str, dynamics: &TautDynamics) {
    let t = dynamics.tension();
    let contact = dynamics.axles().contacts()[0];
    println!("{label}:");
    println!(
        "  gear ratio G = {:.4}, centrifugal term F_C = {:+.4} m/s^2, d_1 = {:.4}",
        t.gear_ratio,
        t.centrifugal_term,
        dynamics.axles().tension_ratios()[1]
    );
    println!(
        "  tensions T_0 = {:.4} N, T_1 = {:.4} N",
        dynamics.segment_tension(0),
        dynamics.segment_tension(1)
    );
    println!(
        "  slip speed w' = {:+.4} m/s over a contact angle of {:.3} rad",
        contact.slip_speed, contact.contact_angle
    );
    let f = t.hand_forces;
    println!(
        "  hand forces: left ({:+.3}, {:+.3}) N, right ({:+.3}, {:+.3}) N",
        f[0].x, f[0].y, f[1].x, f[1].y
    );
    let b = dynamics.power_balance();
    println!(
        "  power: hands {:+.4} W, friction loss {:.4} W, drag loss {:.4} W",
        b.hand_power, b.friction_dissipation, b.drag_loss
    );
}
