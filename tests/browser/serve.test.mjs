// End-to-end tests of `konane serve` in a real headless browser: Debian's Chromium driven by
// playwright-core (no browser is downloaded; executablePath is the system Chromium).
//
// The server is started on a free port with two tables (5x5 and 4x4, generated here); the page
// is loaded, a short game is played by clicking, and every value, move value and perfect move
// the page shows is checked against `konane probe --json` / `konane solve --json` (the probe
// library's answers). Also: undo and redo, the URL round trip, the paste box, search for a
// board no table holds, play against the table, the openings table, error answers of the API,
// and that Ctrl-C stops the server.
//
// Environment: KONANE (the konane binary, required), WORK (a scratch folder, required),
// CHROMIUM (default /usr/bin/chromium), SCREENSHOT (a PNG path: where to save a screenshot of
// the page, as docs/serve.png; none when unset).
import { spawn, execFileSync } from 'node:child_process';
import { mkdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import assert from 'node:assert/strict';
import { chromium } from 'playwright-core';

const KONANE = process.env.KONANE;
const WORK = process.env.WORK;
const CHROMIUM = process.env.CHROMIUM || '/usr/bin/chromium';
if (!KONANE || !WORK) {
  console.error('serve.test.mjs: set KONANE (the konane binary) and WORK (a scratch folder)');
  process.exit(2);
}

// ------------------------------------------------------------------------------------------------
// The library's answers, through the command line.

function konaneJson(...args) {
  return JSON.parse(execFileSync(KONANE, args, { encoding: 'utf8' }));
}

function describe(value, depth) {
  if (value === 'loss' && depth === 0) return 'loss (no move)';
  return `${value} in ${depth} pl${depth === 1 ? 'y' : 'ies'}`;
}

// ------------------------------------------------------------------------------------------------
// Setup: tables, server, browser.

rmSync(WORK, { recursive: true, force: true });
mkdirSync(WORK, { recursive: true });
const T5 = join(WORK, 'konane-5x5-brainking.kbt');
const T4 = join(WORK, 'konane-4x4-brainking.kbt');
execFileSync(KONANE, ['generate', '5x5', '-q', '-j', '1', '-o', T5]);
execFileSync(KONANE, ['generate', '4x4', '-q', '-j', '1', '-o', T4]);

const server = spawn(KONANE, ['serve', T5, T4, '--port', '0', '--search-limit', '100000'],
  { stdio: ['ignore', 'pipe', 'pipe'] });
let serverErr = '';
server.stderr.on('data', (d) => { serverErr += d; });
const serverExit = new Promise((resolve) => server.on('exit', (code, signal) => resolve({ code, signal })));
const BASE = await new Promise((resolve, reject) => {
  let out = '';
  server.stdout.on('data', (d) => {
    out += d;
    const m = /http:\/\/[0-9.]+:[0-9]+/.exec(out);
    if (m) resolve(m[0]);
  });
  server.on('exit', (code) => reject(new Error(`konane serve exited (${code}): ${serverErr}`)));
});

const browser = await chromium.launch({
  executablePath: CHROMIUM,
  args: ['--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage'],
});
const context = await browser.newContext({ viewport: { width: 1200, height: 1000 } });
// Generous: on a busy 2-core machine Chromium may take a minute to start a renderer. A wait
// that runs out is a failure, never a pass.
context.setDefaultTimeout(120000);
// Start a renderer before the first test, so that its start-up is not counted against it.
{
  const warm = await context.newPage();
  await warm.goto(BASE + '/api/tables');
  await warm.close();
}
const pageErrors = [];

async function newPage() {
  const page = await context.newPage();
  page.on('pageerror', (e) => pageErrors.push(e.message));
  return page;
}

// Waits until the page has answered the position shown (no request in flight).
async function ready(page, position) {
  await page.waitForFunction((pos) => document.body.dataset.state === 'ready' &&
    (pos === undefined || document.querySelector('#position').textContent === pos), position);
}

// What the page shows for the current position.
async function shown(page) {
  return page.evaluate(() => ({
    position: document.querySelector('#position').textContent,
    value: document.querySelector('#value').textContent,
    best: document.querySelector('#best').textContent,
    line: document.querySelector('#line').textContent,
    source: document.querySelector('#source').textContent,
    message: document.querySelector('#message').textContent,
    moves: [...document.querySelectorAll('#moves li')].map((li) => ({
      move: li.dataset.move, value: li.dataset.value, depth: Number(li.dataset.depth),
    })),
    arrows: document.querySelectorAll('#board .arrow, #board .removal').length,
    bestMarks: document.querySelectorAll('#board .best').length,
  }));
}

// Checks what the page shows against the library's answer (`konane probe --json`).
async function checkAgainstTable(page, table) {
  const s = await shown(page);
  const want = konaneJson('probe', table, s.position, '--json');
  assert.equal(s.position, want.position);
  assert.equal(s.value, describe(want.value, want.depth) + ' for ' + want.to_move);
  assert.equal(s.best, want.best ?? `none: ${want.to_move} has no move and loses`);
  assert.deepEqual(s.moves, want.moves);
  assert.equal(s.line, want.line.length ? want.line.join(' ') : '(none: the side to move has no move)');
  assert.equal(s.arrows, want.moves.length, 'one arrow or marker per legal move');
  assert.equal(s.bestMarks, want.best ? 1 : 0, 'the perfect move is marked on the board');
  return want;
}

// Plays a move by clicking: a removal on its square, a jump on its piece then its landing square.
async function clickMove(page, move) {
  const [from, to] = move.split('-');
  await page.click(`#board [data-square="${from}"]`);
  if (to) {
    await page.waitForSelector('#board .target');
    await page.click(`#board [data-square="${to}"]`);
  }
}

// ------------------------------------------------------------------------------------------------
// The tests

const results = [];
async function test(name, fn) {
  const t0 = Date.now();
  try {
    await fn();
    results.push(true);
    console.log(`ok - ${name} (${Date.now() - t0} ms)`);
  } catch (e) {
    results.push(false);
    console.log(`not ok - ${name}\n${e.stack}`);
  }
}

let gameUrl = null;

await test('the page lists the tables and shows the full board with the table\'s answer', async () => {
  const page = await newPage();
  await page.goto(BASE + '/');
  await ready(page);
  const options = await page.$$eval('#table option:not([disabled])', (os) => os.map((o) => o.textContent));
  assert.deepEqual(options, ['5x5 brainking', '4x4 brainking']);
  const want = await checkAgainstTable(page, T5);
  assert.equal(want.position, 'xoxox/oxoxo/xoxox/oxoxo/xoxox b');
  assert.equal((await page.$$('#board [data-square]')).length, 25);
  await page.close();
});

await test('a short game played by clicking: values and perfect moves as the library gives them', async () => {
  const page = await newPage();
  await page.goto(BASE + '/');
  await ready(page);
  // Black removes c3, White replies with its perfect removal, then three perfect jumps and one
  // other move: every position checked against the library.
  const played = [];
  for (let ply = 0; ply < 6; ply++) {
    const want = await checkAgainstTable(page, T5);
    const move = ply === 0 ? 'c3' : ply === 4 ? want.moves[want.moves.length - 1].move : want.best;
    await clickMove(page, move);
    played.push(move);
    await page.waitForFunction((n) => document.querySelector('#game').textContent.split(' ').length === n, played.length);
    await ready(page);
  }
  const end = await checkAgainstTable(page, T5);
  assert.equal(await page.textContent('#game'), played.join(' '));
  // The same game given to the library as a record reaches the same position.
  assert.equal(konaneJson('probe', T5, '--game', played.join(' '), '--json').position, end.position);
  // Undo twice, redo once: the positions of the game.
  await page.click('#undo');
  await page.click('#undo');
  await ready(page, konaneJson('probe', T5, '--game', played.slice(0, 4).join(' '), '--json').position);
  await checkAgainstTable(page, T5);
  await page.click('#redo');
  await ready(page, konaneJson('probe', T5, '--game', played.slice(0, 5).join(' '), '--json').position);
  await checkAgainstTable(page, T5);
  assert.equal(await page.textContent('#game'), played.slice(0, 5).join(' '));
  gameUrl = page.url();
  await page.close();
});

await test('the URL holds the position: reloading it shows the same position and answer', async () => {
  assert.ok(gameUrl);
  const url = new URL(gameUrl);
  const position = url.searchParams.get('position');
  assert.match(position, /^[xo.\/]+ [bw]$/);
  const page = await newPage();
  await page.goto(gameUrl);
  await ready(page, position);
  await checkAgainstTable(page, T5);
  await page.close();
});

await test('the paste box takes a position and a game record, and names what is wrong', async () => {
  const page = await newPage();
  await page.goto(BASE + '/');
  await ready(page);
  // A game record on the current board (5x5).
  await page.fill('#paste', 'c3 c2 c5-c3');
  await page.click('#load');
  const want = konaneJson('probe', T5, '--game', 'c3 c2 c5-c3', '--json');
  await ready(page, want.position);
  await checkAgainstTable(page, T5);
  // A 4x4 position: the 4x4 table answers, its openings are shown.
  await page.fill('#paste', 'xoxo/oxox/xoxo/oxo. w');
  await page.click('#load');
  await ready(page, 'xoxo/oxox/xoxo/oxo. w');
  await checkAgainstTable(page, T4);
  assert.equal(await page.inputValue('#table'), '1');
  // A record with an illegal move: the server's message is shown, the position is kept.
  await page.fill('#paste', 'd1 c1 a1-a9');
  await page.click('#load');
  await page.waitForFunction(() => document.querySelector('#message').textContent !== '');
  const api = await (await fetch(`${BASE}/api/probe?board=4x4&game=${encodeURIComponent('d1 c1 a1-a9')}`)).json();
  assert.equal(await page.textContent('#message'), api.error);
  assert.match(api.error, /move 3/);
  assert.equal(await page.textContent('#position'), 'xoxo/oxox/xoxo/oxo. w');
  await page.close();
});

await test('a board no table holds is answered by the search, its limit shown', async () => {
  const page = await newPage();
  const position = 'xoxo./oxoxo/xoxox b';  // 3x5: no table
  await page.goto(`${BASE}/?position=${encodeURIComponent(position)}&rules=brainking`);
  await ready(page, position);
  const s = await shown(page);
  const want = konaneJson('solve', position, '--json');
  assert.equal(s.value, describe(want.value, want.depth) + ' for ' + want.to_move);
  assert.equal(s.best, want.best ?? `none: ${want.to_move} has no move and loses`);
  assert.deepEqual(s.moves, want.moves);
  assert.match(s.source, /^search \(limit 100,000 positions; searched [0-9,]+\)$/);
  assert.match(s.message, /answered by search \(limit 100,000 positions\)/);
  // Over the limit: a clear message, no answer.
  const big = 'xoxoxo/oxoxox/xo..xo/oxoxox/xoxoxo/oxoxox b';  // 6x6: over 100,000 positions
  await page.goto(`${BASE}/?position=${encodeURIComponent(big)}&rules=brainking`);
  await ready(page, big);
  const b = await shown(page);
  assert.match(b.message, /search limit of 100000 positions reached/);
  assert.equal(b.moves.length, 0);
  await page.close();
});

await test('play against the table: each move is answered with the perfect move', async () => {
  const page = await newPage();
  const start = 'xoxox/oxoxo/xoxox/oxoxo/xoxox b';
  await page.goto(`${BASE}/?position=${encodeURIComponent(start)}&rules=brainking&play=black`);
  await ready(page, start);
  let record = [];
  for (let turn = 0; turn < 3; turn++) {
    const mine = await checkAgainstTable(page, T5);
    assert.equal(mine.to_move, 'black');
    // The player's move: a removal first, then the last listed move (not always perfect).
    const move = turn === 0 ? 'c3' : mine.moves[mine.moves.length - 1].move;
    const afterMine = konaneJson('probe', T5, '--game', [...record, move].join(' '), '--json');
    assert.ok(afterMine.best, 'the table has a reply');
    await clickMove(page, move);
    await page.waitForFunction((n) => document.querySelector('#game').textContent.split(' ').length === n,
      record.length + 2);
    await ready(page);
    record = (await page.textContent('#game')).split(' ');
    assert.equal(record.at(-2), move);
    assert.equal(record.at(-1), afterMine.best, 'the table answered with the perfect move');
  }
  await page.close();
});

await test('the openings table: every pair, winning removals marked, a row plays the opening', async () => {
  const page = await newPage();
  await page.goto(BASE + '/');
  await ready(page);
  const want = konaneJson('openings', T5, '--json');
  await page.waitForSelector('#openings tr[data-black]');
  const rows = await page.$$eval('#openings tr[data-black]', (rs) => rs.map((r) => ({
    black: r.dataset.black, white: r.dataset.white, winning: r.classList.contains('winning'),
    winner: r.cells[2].textContent, depth: Number(r.cells[3].textContent),
  })));
  const winning = new Set(want.best_replies.filter((c) => c.winner === 'black').map((c) => c.black));
  assert.deepEqual(rows, want.openings.map((o) => ({
    black: o.black, white: o.white, winning: winning.has(o.black), winner: o.winner, depth: o.depth,
  })));
  assert.match(await page.textContent('#verdict'), new RegExp(`Black removes ${want.best.black}`));
  await page.click(`#openings tr[data-black="${want.best.black}"][data-white="${want.best.white}"]`);
  const after = konaneJson('probe', T5, '--game', `${want.best.black} ${want.best.white}`, '--json');
  await ready(page, after.position);
  await checkAgainstTable(page, T5);
  await page.close();
});

await test('the API answers as the command line, and bad requests get a 4xx JSON message', async () => {
  const get = async (path, init) => {
    const r = await fetch(BASE + path, init);
    return { status: r.status, type: r.headers.get('content-type'), body: await r.json() };
  };
  const pos = 'xoxox/oxoxo/xo.ox/ox.xo/xoxox b';
  const probe = await get(`/api/probe?position=${encodeURIComponent(pos)}`);
  assert.equal(probe.status, 200);
  assert.deepEqual(probe.body, konaneJson('probe', T5, pos, '--json'));
  const game = await get(`/api/probe?board=5x5&game=${encodeURIComponent('c3 c2')}`);
  assert.deepEqual(game.body, konaneJson('probe', T5, '--game', 'c3 c2', '--json'));
  const openings = await get('/api/openings?board=4x4&rules=brainking');
  assert.deepEqual(openings.body, konaneJson('openings', T4, '--json'));
  const cases = [
    ['/api/probe?position=xoxo%2Foxzx%20b', 400, /position: .*'z'/],
    ['/api/probe?board=5x5&game=c3%20zz', 400, /game: move 2/],
    ['/api/probe?position=xox%2Foxo%2Fxox%20b', 404, /no table for board 3x3/],
    ['/api/openings?board=6x6', 404, /no table for board 6x6/],
    ['/api/openings?board=5x5&rules=center', 404, /no table for board 5x5 ruleset center/],
    ['/api/openings?board=5x5&rules=nonsense', 400, /nonsense/],
    ['/api/probe', 400, /give either position/],
    ['/etc/passwd', 404, /no such path: \/etc\/passwd/],
    ['/api/../../etc/passwd', 404, /no such path/],
  ];
  for (const [path, status, re] of cases) {
    const r = await get(path);
    assert.equal(r.status, status, path);
    assert.match(r.type, /application\/json/, path);
    assert.match(r.body.error, re, path);
  }
  const huge = await get('/api/probe', { method: 'POST', body: 'x'.repeat(1 << 20) });
  assert.equal(huge.status, 413);
  assert.match(huge.body.error, /too large/);
  const post = await get('/api/probe', { method: 'POST', body: 'x' });
  assert.equal(post.status, 405);
  // Still serving.
  assert.equal((await get('/api/tables')).body.tables.length, 2);
});

await test('a position with winning and losing moves (the screenshot of the docs)', async () => {
  const page = await newPage();
  await page.goto(BASE + '/');
  await ready(page);
  const record = 'a1 b1 a3-a1 b3-b1 a5-a3 b5-b3 d2-b2 c4-c2';
  await page.fill('#paste', record);
  await page.click('#load');
  await ready(page, konaneJson('probe', T5, '--game', record, '--json').position);
  const want = await checkAgainstTable(page, T5);
  assert.deepEqual(new Set(want.moves.map((m) => m.value)), new Set(['win', 'loss']));
  const colours = await page.$$eval('#board .arrow', (as) => as.map((a) => getComputedStyle(a).stroke));
  assert.equal(new Set(colours).size, 2, 'winning and losing moves drawn in two colours');
  if (process.env.SCREENSHOT) await page.screenshot({ path: process.env.SCREENSHOT, fullPage: true });
  await page.close();
});

await test('no script error on any page', async () => {
  assert.deepEqual(pageErrors, []);
});

await browser.close();

await test('Ctrl-C stops the server cleanly', async () => {
  server.kill('SIGINT');
  const { code, signal } = await serverExit;
  assert.equal(signal, null);
  assert.equal(code, 0);
  assert.match(serverErr, /konane serve: stopped/);
});

rmSync(WORK, { recursive: true, force: true });
const failed = results.filter((r) => !r).length;
console.log(`${results.length - failed}/${results.length} passed`);
process.exit(failed ? 1 : 0);
