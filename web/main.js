// The page: the simulator (diabolo_web.wasm, the core crate compiled to WebAssembly) played in
// real time, the hands on the pointer. window.diabolo is the scripting interface:
// load(jsonText), step(seconds, drawing = true), state(), setHand(side, x, y).
import init, { Diabolo } from './diabolo_web.js';

const canvas = document.getElementById('stage');
const ctx = canvas.getContext('2d');
const $ = (id) => document.getElementById(id);
const SCALE = 260;            // pixels per metre
const ORIGIN = { x: 380, y: 600 }; // the world's (0, 0) on the canvas
const FRAME = 1 / 60;          // s of simulated time per frame at full speed
let sim = null, text = '', playing = true, speed = 1, shown = 0;
const toScreen = (x, y) => [ORIGIN.x + SCALE * x, ORIGIN.y - SCALE * y];
const toWorld = (px, py) => [(px - ORIGIN.x) / SCALE, (ORIGIN.y - py) / SCALE];

function message(m) { $('message').textContent = m || ''; }

// Loads a scenario; a bad one keeps the last good one running and shows the command line's message.
function load(jsonText) {
  const next = new Diabolo(jsonText);  // throws the validation message
  if (sim) sim.free();
  sim = next; text = jsonText; shown = 0;
  $('events').textContent = '';
  message('');
  return true;
}

function state() { return JSON.parse(sim.state()); }

function step(seconds) {
  sim.step(seconds);
  const events = JSON.parse(sim.events());
  for (; shown < events.length; shown++) {
    const e = events[shown];
    const line = document.createElement('div');
    line.textContent = `${e.t.toFixed(3)} s  ${e.kind}${e.object ? ' ' + e.object : ''}`;
    $('events').appendChild(line);
    $('events').scrollTop = 1e9;
  }
}

function draw() {
  const s = state();
  ctx.clearRect(0, 0, canvas.width, canvas.height);
  ctx.strokeStyle = '#888'; ctx.beginPath();
  const [fx, fy] = toScreen(-2, 0); ctx.moveTo(0, fy); ctx.lineTo(canvas.width, fy); ctx.stroke();
  const [l, r] = s.sticks.map((p) => toScreen(p.x, p.y));
  // The string: from the left stick through the diabolos on it, left to right, to the right stick.
  const on = s.diabolos.filter((d) => d.mode === 'string').sort((a, b) => a.x - b.x);
  ctx.strokeStyle = '#333'; ctx.lineWidth = 1.5; ctx.beginPath(); ctx.moveTo(...l);
  for (const d of on) ctx.lineTo(...toScreen(d.x, d.y));
  ctx.lineTo(...r); ctx.stroke();
  for (const [x, y] of [l, r]) {
    ctx.fillStyle = '#7a4b1c'; ctx.beginPath(); ctx.arc(x, y, 6, 0, 2 * Math.PI); ctx.fill();
  }
  for (const d of s.diabolos) {
    const [x, y] = toScreen(d.x, d.y);
    ctx.fillStyle = d.mode === 'flying' ? '#c0392b' : '#2c6fbb';
    ctx.beginPath(); ctx.arc(x, y, 0.0635 * SCALE, 0, 2 * Math.PI); ctx.fill();
  }
  const tensions = (s.tensions || []).map((t) => t.toFixed(2)).join(', ');
  $('readout').textContent = `t = ${s.t.toFixed(2)} s   tensions ${tensions} N   spin ${s.diabolos.map((d) => d.spin.toFixed(2)).join(', ')} m/s`;
}

function frame() {
  if (sim && playing) {
    try {
      if (state().t < sim.duration() - 1e-12) step(FRAME * speed);
    } catch (e) {
      playing = false; $('play').textContent = 'Play';
      message(`${e.message || e}\nRestart to play again.`);
    }
  }
  if (sim) draw();
  requestAnimationFrame(frame);
}

// One pointer per stick: a pointer takes the stick nearest where it goes down.
const held = new Map();
canvas.addEventListener('pointerdown', (ev) => {
  if (!sim) return;
  const [x, y] = toWorld(ev.offsetX, ev.offsetY);
  const s = state();
  const d = s.sticks.map((p) => Math.hypot(p.x - x, p.y - y));
  const side = d[0] <= d[1] ? 0 : 1;
  held.set(ev.pointerId, side);
  canvas.setPointerCapture(ev.pointerId);
  sim.setHand(side, x, y);
});
canvas.addEventListener('pointermove', (ev) => {
  if (!sim || !held.has(ev.pointerId)) return;
  const [x, y] = toWorld(ev.offsetX, ev.offsetY);
  try { sim.setHand(held.get(ev.pointerId), x, y); } catch (e) { message(e.message || e); }
});
for (const end of ['pointerup', 'pointercancel']) canvas.addEventListener(end, (ev) => held.delete(ev.pointerId));

$('play').onclick = () => { playing = !playing; $('play').textContent = playing ? 'Pause' : 'Play'; };
$('slow').onclick = () => { speed = speed === 1 ? 0.25 : 1; $('slow').textContent = speed === 1 ? 'Slow motion' : 'Full speed'; };
$('restart').onclick = () => { load(text); playing = true; $('play').textContent = 'Pause'; };
$('apply').onclick = () => { try { load($('editor').value); } catch (e) { message(`${e.message || e}\n(still playing the last good scenario)`); } };
$('download').onclick = () => {
  const a = document.createElement('a');
  a.href = URL.createObjectURL(new Blob([text], { type: 'application/json' }));
  a.download = 'scenario.json'; a.click();
};

async function main() {
  await init();
  const names = await (await fetch('scenarios/index.json')).json();
  for (const n of names) { const o = document.createElement('option'); o.textContent = n; $('menu').appendChild(o); }
  const open = async (name) => {
    const t = await (await fetch(`scenarios/${name}.json`)).text();
    $('menu').value = name;
    $('editor').value = t;
    try { load(t); } catch (e) { message(e.message || e); }
  };
  $('menu').onchange = () => open($('menu').value);
  const fromLink = new URLSearchParams(location.search).get('scenario');
  if (fromLink) { $('editor').value = fromLink; try { load(fromLink); } catch (e) { message(e.message || e); } }
  else await open(names.includes('whip') ? 'whip' : names[0]);
  window.diabolo = {
    load: (t) => load(t),
    step: (seconds, drawing = true) => { step(seconds); if (drawing) draw(); },
    state: () => state(),
    duration: () => sim.duration(),
    setHand: (side, x, y) => sim.setHand(side === 'left' ? 0 : side === 'right' ? 1 : side, x, y),
  };
  requestAnimationFrame(frame);
}
main();
