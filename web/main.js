// The page: the simulator (diabolo_web.wasm, the core crate compiled to WebAssembly) played in
// real time, the hands on the pointer (one per finger) or the keys. window.diabolo is the
// scripting interface: load(jsonText), step(seconds, drawing = true), state(), setHand(side, x,
// y), events(), trajectory(), geometry(), duration(), pause(), play(), notice(), frameStats(), view.
import init, { Diabolo } from './diabolo_web.js';

const canvas = document.getElementById('stage');
const ctx = canvas.getContext('2d');
const $ = (id) => document.getElementById(id);
const SCALE = 190;                 // pixels per metre: 4 m across, 3.2 m up (a throw's apex)
const ORIGIN = { x: 380, y: 600 }; // the world's (0, 0) on the canvas
const FRAME = 1 / 60;              // s of simulated time per frame at full speed
// The frame budget: the physics of one frame gets at most BUDGET_MS of the page's time, asked
// for STEPS_PER_CALL integration steps at a time; what does not fit is simulated later (the
// play runs slower than real time, and says so), never at the price of a frozen page.
const BUDGET_MS = 8;
const STEPS_PER_CALL = 16;
const KEY_SPEED = 1.0;             // m/s: how fast a key moves its hand
const LOST_BELOW = 1.0;            // m under the floor: a diabolo there is lost off the bottom
let sim = null, text = '', geometry = null, playing = true, speed = 1, shown = 0;
let behind = 0;                    // the last frame's shortfall, s of simulated time
let spokes = [];                   // the drawn angle of each diabolo's spokes, rad
let ended = false;                 // the restart notice is up
// The frames played since the last reset: how many, the most physics one took (ms), how many
// ran out of budget.
let stats = { frames: 0, worstMs: 0, late: 0 };
const toScreen = (x, y) => [ORIGIN.x + SCALE * x, ORIGIN.y - SCALE * y];
const toWorld = (px, py) => [(px - ORIGIN.x) / SCALE, (ORIGIN.y - py) / SCALE];

function message(m) { $('message').textContent = m || ''; }

// Shows the notice over the stage with its restart button (a dropped or lost diabolo, a run
// failure, the end of the scenario); the play stops.
function notice(m) {
  ended = true; playing = false; $('play').textContent = 'Play';
  $('notice-text').textContent = m;
  $('notice').hidden = false;
}

// Loads a scenario; a bad one throws the command line's message (the caller keeps the last good
// one running).
function load(jsonText) {
  const next = new Diabolo(jsonText);
  if (sim) sim.free();
  sim = next; text = jsonText; shown = 0; behind = 0; spokes = []; ended = false;
  geometry = JSON.parse(sim.geometry());
  keyTargets = [null, null];
  $('events').textContent = '';
  $('notice').hidden = true;
  message('');
  return true;
}

function state() { return JSON.parse(sim.state()); }

// The events since the last call, into the list; a drop or a failure raises the notice.
function report() {
  for (const e of JSON.parse(sim.eventsFrom(shown))) {
    shown += 1;
    const line = document.createElement('div');
    line.textContent = `${e.t.toFixed(3)} s  ${e.kind}${e.object ? ' ' + e.object : ''}`;
    $('events').appendChild(line);
    $('events').scrollTop = 1e9;
    if (e.kind === 'drop') notice(`Diabolo ${e.object} dropped on the floor at t = ${e.t.toFixed(2)} s.`);
    if (e.kind === 'failure') notice(`The run stopped: ${e.reason}`);
  }
}

// Advances the spokes of every diabolo by the simulated time dt: they turn so that the rim moves
// at the axle's surface speed (the axle itself turns R / r times faster, beyond what 60 frames a
// second can show).
function turn(s, dt) {
  s.diabolos.forEach((d, k) => { spokes[k] = (spokes[k] || 0) - d.spin / geometry.diabolo_radius * dt; });
}

// Steps the simulation by `seconds` at once (the scripting interface).
// A failure is thrown (and raises the notice).
function step(seconds) {
  const before = state();
  try { sim.step(seconds); } finally { report(); }
  turn(before, state().t - before.t);
}

// One frame's physics within the budget.
function frameStep(seconds) {
  const start = performance.now();
  const t0 = state().t;
  const until = Math.min(t0 + seconds, sim.duration());
  let reached = t0;
  while (reached < until && performance.now() - start < BUDGET_MS) {
    reached = sim.advance(until, STEPS_PER_CALL);
  }
  behind = until - reached;
  const spent = performance.now() - start;
  stats.frames += 1; stats.worstMs = Math.max(stats.worstMs, spent); stats.late += behind > 1e-9 ? 1 : 0;
  const s = state();
  turn(s, reached - t0);
  report();
  return s;
}

// The string from stick to stick through the diabolos on it in slot order; slack (L - sum l)
// shared by the segments in proportion to their chords, each drawn sagging by the depth of a
// parabola of that length.
function drawString(s, l, r) {
  const on = s.diabolos.filter((d) => d.mode === 'string').sort((a, b) => a.slot - b.slot);
  const points = [l, ...on.map((d) => toScreen(d.x, d.y)), r];
  const chords = points.slice(1).map((p, i) => Math.hypot(p[0] - points[i][0], p[1] - points[i][1]));
  const total = chords.reduce((a, b) => a + b, 0);
  const slack = Math.max(0, s.slack) * SCALE;
  ctx.strokeStyle = s.phase === 'loose' ? '#b9770e' : '#333';
  ctx.lineWidth = 1.5; ctx.beginPath(); ctx.moveTo(...points[0]);
  points.slice(1).forEach((p, i) => {
    const [a, c] = [points[i], chords[i]];
    const sag = total > 0 && c > 0 ? Math.sqrt(3 * c * (slack * c / total) / 8) : 0;
    ctx.quadraticCurveTo((a[0] + p[0]) / 2, (a[1] + p[1]) / 2 + 2 * sag, p[0], p[1]);
  });
  ctx.stroke();
}

function drawDiabolo(d, k) {
  const [x, y] = toScreen(d.x, d.y);
  const radius = geometry.diabolo_radius * SCALE;
  ctx.fillStyle = d.mode === 'string' ? '#2c6fbb' : d.mode === 'flying' ? '#c0392b' : '#777';
  ctx.beginPath(); ctx.arc(x, y, radius, 0, 2 * Math.PI); ctx.fill();
  ctx.strokeStyle = '#fff'; ctx.lineWidth = 2; ctx.beginPath();
  for (let i = 0; i < 3; i++) {
    const a = (spokes[k] || 0) + (i * 2 * Math.PI) / 3;
    ctx.moveTo(x, y); ctx.lineTo(x + 0.85 * radius * Math.cos(a), y + 0.85 * radius * Math.sin(a));
  }
  ctx.stroke();
}

function draw(s = state()) {
  ctx.clearRect(0, 0, canvas.width, canvas.height);
  if (geometry.floor !== null) {
    const [, fy] = toScreen(0, geometry.floor);
    ctx.fillStyle = '#e8e4da'; ctx.fillRect(0, fy, canvas.width, canvas.height - fy);
  } else {
    const [, fy] = toScreen(0, 0);
    ctx.strokeStyle = '#ccc'; ctx.setLineDash([6, 6]); ctx.beginPath(); ctx.moveTo(0, fy); ctx.lineTo(canvas.width, fy); ctx.stroke();
    ctx.setLineDash([]); ctx.fillStyle = '#999'; ctx.fillText('no floor in this scenario', 8, fy - 4);
  }
  const [l, r] = s.sticks.map((p) => toScreen(p.x, p.y));
  drawString(s, l, r);
  for (const [x, y] of [l, r]) {
    ctx.fillStyle = '#7a4b1c'; ctx.beginPath(); ctx.arc(x, y, 6, 0, 2 * Math.PI); ctx.fill();
  }
  for (const target of [...held.values(), ...keyTargets].filter(Boolean)) {
    const [x, y] = toScreen(target.x, target.y);
    ctx.strokeStyle = '#7a4b1c'; ctx.lineWidth = 1; ctx.beginPath(); ctx.arc(x, y, 10, 0, 2 * Math.PI); ctx.stroke();
  }
  s.diabolos.forEach(drawDiabolo);
  const tensions = (s.tensions || []).map((t) => t.toFixed(2)).join(', ');
  const late = behind > 1e-9 ? `   slower than real time (${(100 * (1 - behind / (FRAME * speed))).toFixed(0)} %)` : '';
  $('readout').textContent = `t = ${s.t.toFixed(2)} s   ${s.phase}   tensions ${tensions} N   spin ${s.diabolos.map((d) => d.spin.toFixed(2)).join(', ')} m/s${late}`;
  const lost = s.diabolos.findIndex((d) => d.y < (geometry.floor ?? 0) - LOST_BELOW);
  if (lost >= 0 && !ended) notice(`Diabolo ${lost + 1} is lost off the bottom (there is no floor in this scenario).`);
}

function frame() {
  let s;
  if (sim && playing) {
    try {
      moveKeyHands(FRAME * speed);
      s = frameStep(FRAME * speed);
      if (s.t >= sim.duration() - 1e-12 && !ended) notice(`The scenario ends at t = ${s.t.toFixed(2)} s.`);
    } catch (e) {
      if (!ended) notice(`${e.message || e}`);
    }
  }
  if (sim) { try { draw(s); } catch (e) { if (!ended) notice(`${e.message || e}`); } }
  requestAnimationFrame(frame);
}

// One pointer per stick: a pointer takes the free stick nearest where it goes down (a second
// finger takes the other stick); its hand then pulls the stick toward it.
const held = new Map();    // pointerId -> {side, x, y}
function setHand(side, x, y) {
  try { sim.setHand(side, x, y); } catch (e) { message(e.message || e); }
}
canvas.addEventListener('pointerdown', (ev) => {
  if (!sim) return;
  const [x, y] = toWorld(ev.offsetX, ev.offsetY);
  const taken = new Set([...held.values()].map((h) => h.side));
  const sides = [0, 1].filter((side) => !taken.has(side));
  if (!sides.length) return;
  const sticks = state().sticks;
  const side = sides.reduce((a, b) => (Math.hypot(sticks[a].x - x, sticks[a].y - y) <= Math.hypot(sticks[b].x - x, sticks[b].y - y) ? a : b));
  held.set(ev.pointerId, { side, x, y });
  keyTargets[side] = null;
  canvas.setPointerCapture(ev.pointerId);
  setHand(side, x, y);
});
canvas.addEventListener('pointermove', (ev) => {
  const hand = held.get(ev.pointerId);
  if (!sim || !hand) return;
  [hand.x, hand.y] = toWorld(ev.offsetX, ev.offsetY);
  setHand(hand.side, hand.x, hand.y);
});
for (const end of ['pointerup', 'pointercancel']) canvas.addEventListener(end, (ev) => held.delete(ev.pointerId));

// The keys: W A S D move the left hand, the arrows the right one, at KEY_SPEED while held.
const KEYS = {
  w: [0, 0, 1], a: [0, -1, 0], s: [0, 0, -1], d: [0, 1, 0],
  ArrowUp: [1, 0, 1], ArrowLeft: [1, -1, 0], ArrowDown: [1, 0, -1], ArrowRight: [1, 1, 0],
};
const down = new Set();
let keyTargets = [null, null];
window.addEventListener('keydown', (ev) => {
  if (ev.target === $('editor') || !(ev.key in KEYS)) return;
  down.add(ev.key); ev.preventDefault();
});
window.addEventListener('keyup', (ev) => down.delete(ev.key));
function moveKeyHands(dt) {
  if (!down.size) return;
  const sticks = state().sticks;
  for (const key of down) {
    const [side, dx, dy] = KEYS[key];
    const target = keyTargets[side] || (keyTargets[side] = { x: sticks[side].x, y: sticks[side].y });
    target.x += dx * KEY_SPEED * dt; target.y += dy * KEY_SPEED * dt;
  }
  keyTargets.forEach((target, side) => { if (target) setHand(side, target.x, target.y); });
}

function download(name, type, body) {
  const a = document.createElement('a');
  a.href = URL.createObjectURL(new Blob([body], { type }));
  a.download = name; a.click();
  URL.revokeObjectURL(a.href);
}

function restart() { load(text); playing = true; $('play').textContent = 'Pause'; }
function play(on) { playing = on && !ended; $('play').textContent = playing ? 'Pause' : 'Play'; }
$('play').onclick = () => play(!playing);
$('slow').onclick = () => { speed = speed === 1 ? 0.25 : 1; $('slow').textContent = speed === 1 ? 'Slow motion' : 'Full speed'; };
$('restart').onclick = restart;
$('notice-restart').onclick = restart;
$('apply').onclick = () => { try { load($('editor').value); play(true); } catch (e) { message(`${e.message || e}\n(still playing the last good scenario)`); } };
$('download').onclick = () => download('scenario.json', 'application/json', text);
$('download-csv').onclick = () => download('trajectory.csv', 'text/csv', sim.trajectory());
$('notice-csv').onclick = () => download('trajectory.csv', 'text/csv', sim.trajectory());
$('link').onclick = () => {
  const url = `${location.origin}${location.pathname}?scenario=${encodeURIComponent(text)}`;
  history.replaceState(null, '', url);
  navigator.clipboard?.writeText(url).catch(() => {});
  message('The address bar now carries this scenario.');
};

async function main() {
  await init();
  const names = await (await fetch('scenarios/index.json')).json();
  for (const n of names) { const o = document.createElement('option'); o.textContent = n; $('menu').appendChild(o); }
  const open = async (name) => {
    const t = await (await fetch(`scenarios/${name}.json`)).text();
    $('menu').value = name;
    $('editor').value = t;
    try { load(t); play(true); } catch (e) { message(e.message || e); }
  };
  $('menu').onchange = () => open($('menu').value);
  const fromLink = new URLSearchParams(location.search).get('scenario');
  if (fromLink) { $('editor').value = fromLink; try { load(fromLink); } catch (e) { message(e.message || e); } }
  else await open(names.includes('whip') ? 'whip' : names[0]);
  window.diabolo = {
    load: (t) => { load(t); $('editor').value = JSON.stringify(JSON.parse(t), null, 2); $('menu').value = ''; play(true); return true; },
    step: (seconds, drawing = true) => { step(seconds); if (drawing) draw(); },
    state: () => state(),
    setHand: (side, x, y) => sim.setHand(side === 'left' ? 0 : side === 'right' ? 1 : side, x, y),
    events: () => JSON.parse(sim.events()),
    trajectory: () => sim.trajectory(),
    geometry: () => geometry,
    duration: () => sim.duration(),
    pause: () => play(false),
    play: () => play(true),
    notice: () => ($('notice').hidden ? null : $('notice-text').textContent),
    frameStats: () => ({ ...stats }),
    view: { scale: SCALE, origin: ORIGIN },
    resetFrameStats: () => { stats = { frames: 0, worstMs: 0, late: 0 }; },
  };
  requestAnimationFrame(frame);
}
main();
