// The page in a real browser (Debian's chromium, headless, driven by playwright-core): a shipped
// scenario played through window.diabolo against the native command line, a pointer drag that
// moves a stick, no console errors, and screenshots. Run by scripts/test-web, which builds the
// page, serves it on 127.0.0.1 and passes: node browser.mjs URL EXPECTED.json OUT_DIR.
import { chromium } from 'playwright-core';
import { readFileSync, mkdirSync } from 'node:fs';

const [url, expectedPath, out] = process.argv.slice(2);
const expected = JSON.parse(readFileSync(expectedPath, 'utf8'));
mkdirSync(out, { recursive: true });
const failures = [];
const check = (ok, what) => { console.log(`${ok ? 'ok  ' : 'FAIL'} ${what}`); if (!ok) failures.push(what); };

const browser = await chromium.launch({
  executablePath: process.env.CHROMIUM || '/usr/bin/chromium',
  args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
    '--disable-background-networking', '--disable-component-update', '--disable-sync'],
});
const page = await browser.newPage({ viewport: { width: 1200, height: 700 } });
const errors = [];
page.on('console', (m) => { if (m.type() === 'error') errors.push(m.text()); });
page.on('pageerror', (e) => errors.push(String(e)));
const started = Date.now();
await page.goto(url);
await page.waitForFunction(() => window.diabolo !== undefined, null, { timeout: 20000 });
console.log(`first frame after ${Date.now() - started} ms`);
await page.screenshot({ path: `${out}/1-loaded.png` });

// The shipped scenario played in the page to t = 1 s, against `diabolo run` to the same time.
const text = readFileSync(expected.scenario, 'utf8');
const state = await page.evaluate(([t, s]) => { window.diabolo.load(t); window.diabolo.step(s); return window.diabolo.state(); },
  [text, expected.duration]);
const [x, y] = expected.final_positions[0];
const error = Math.hypot(state.diabolos[0].x - x, state.diabolos[0].y - y);
console.log(`page against the command line at t = ${state.t} s: ${error.toExponential(2)} m`);
check(Math.abs(state.t - expected.duration) < 1e-12 && error < 1e-9, 'the page plays the scenario as the command line does (1e-9 m)');
await page.screenshot({ path: `${out}/2-played.png` });

// A pointer drag on the right stick moves it.
const before = await page.evaluate(() => window.diabolo.state().sticks[1]);
const box = await page.locator('#stage').boundingBox();
const at = (p) => [box.x + 380 + 260 * p.x, box.y + 600 - 260 * p.y];
const [sx, sy] = at(before);
await page.mouse.move(sx, sy);
await page.mouse.down();
for (let i = 1; i <= 10; i++) { await page.mouse.move(sx + 8 * i, sy - 3 * i); await page.waitForTimeout(30); }
await page.waitForTimeout(300);
await page.mouse.up();
const after = await page.evaluate(() => window.diabolo.state().sticks[1]);
check(after.x > before.x + 0.1, `a pointer drag moves the right stick (${before.x.toFixed(3)} -> ${after.x.toFixed(3)} m)`);
await page.screenshot({ path: `${out}/3-dragged.png` });

// A bad scenario typed into the editor: the command line's message, the last good one still playing.
await page.fill('#editor', '{"params": {"string_length": -1}}');
await page.click('#apply');
const shown = await page.textContent('#message');
check(shown.includes('missing field `initial`'), `a bad scenario shows the validation message: ${shown.split('\n')[0]}`);
await page.screenshot({ path: `${out}/4-bad-scenario.png` });

// The physics of one 60 Hz frame, measured in the page: one diabolo (the whip) and two (the
// shower: throws, flights, landings, contacts), up to 300 frames within the run, drawing left
// out.
const two = readFileSync('scenarios/shower.json', 'utf8');
const frameMs = await page.evaluate(([one, two]) => {
  const ms = (t) => {
    window.diabolo.load(t);
    const frames = Math.min(300, Math.floor(window.diabolo.duration() * 60));
    const start = performance.now();
    for (let i = 0; i < frames; i++) window.diabolo.step(1 / 60, false);
    return (performance.now() - start) / frames;
  };
  return [ms(one), ms(two)];
}, [text, two]);
console.log(`physics per 60 Hz frame: ${frameMs[0].toFixed(3)} ms (1 diabolo), ${frameMs[1].toFixed(3)} ms (2 diabolos)`);
check(frameMs[1] < 16.7, 'two diabolos fit a 60 Hz frame');

check(errors.length === 0, `no console errors${errors.length ? ': ' + errors.join('; ') : ''}`);
await browser.close();
process.exit(failures.length ? 1 : 0);
