// End-to-end tests of `konane serve` in a real headless browser: Debian's Chromium driven by
// playwright-core (no browser is downloaded; executablePath is the system Chromium).
//
// The server is started on a free port with two tables (5x5 and 4x4, generated here); the page
// is loaded, a short game is played by clicking, and every value, move value and perfect move
// the page shows is checked against `konane probe --json` / `konane solve --json` (the probe
// library's answers). Also: undo and redo, the URL round trip of a whole game with its undo, the
// paste box, typed moves, the board and ruleset pickers, search for a board no table holds,
// practice mode (no answer before a hint, the three hints, the reveal), play against the table
// (the table's reply, takebacks, the board turned for White), play against the engine on 8x8
// with a server given no table, the review against `konane analyse --json`, the openings table,
// a 360-px phone layout without horizontal scroll, error answers of the API, the game value
// (jumps alone) of the position shown within its small budget, and that Ctrl-C stops the server.
//
// Environment: KONANE (the konane binary, required), WORK (a scratch folder, required),
// CHROMIUM (default /usr/bin/chromium), SCREENSHOTS (a folder, e.g. docs: where to save the
// screenshots serve.png, practice.png and review.png; none when unset), ONLY (a regular
// expression: run only the tests whose name matches it).
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
      move: li.dataset.move, value: li.dataset.value,
      depth: li.dataset.depth === undefined ? undefined : Number(li.dataset.depth),
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
  assert.deepEqual(s.moves, want.moves.map(({ move, value, depth }) => ({ move, value, depth })));
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
// The moves of the game up to the position shown, as the page's record lists them.
async function playedMoves(page) {
  return page.$$eval('#game .ply[data-move]:not(.future)', (ss) => ss.map((s) => s.dataset.move));
}

// Waits until the record shown has n moves up to the position shown, and the page is ready.
async function waitPlies(page, n) {
  await page.waitForFunction((k) => document.body.dataset.state === 'ready' &&
    document.querySelectorAll('#game .ply[data-move]:not(.future)').length === k, n);
}

// The library's answer after a record on 5x5.
function after5(moves) {
  return konaneJson('probe', T5, '--game', moves.join(' '), '--json');
}

const shots = process.env.SCREENSHOTS;
// ONLY (a regular expression): run only the tests whose name it matches (while working on one).
const ONLY = process.env.ONLY ? new RegExp(process.env.ONLY) : null;

// ------------------------------------------------------------------------------------------------
// The tests

const results = [];
async function test(name, fn) {
  if (ONLY && !ONLY.test(name)) return;
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

await test('the page lists the boards and rulesets and shows the full board with the table\'s answer', async () => {
  const page = await newPage();
  await page.goto(BASE + '/');
  await ready(page);
  const boards = await page.$$eval('#boardsel option', (os) => os.map((o) => o.value));
  assert.deepEqual(boards, ['5x5', '4x4']);
  const rules = await page.$$eval('#rulessel option', (os) => os.map((o) => o.value));
  assert.deepEqual(rules, ['brainking']);
  const want = await checkAgainstTable(page, T5);
  assert.equal(want.position, 'xoxox/oxoxo/xoxox/oxoxo/xoxox b');
  assert.equal((await page.$$('#board [data-square]')).length, 25);
  // The board picker: the 4x4 full board, answered by the 4x4 table.
  await page.selectOption('#boardsel', '4x4');
  await ready(page, 'xoxo/oxox/xoxo/oxox b');
  await checkAgainstTable(page, T4);
  assert.match(new URL(page.url()).search, /board=4x4/);
  await page.close();
});

await test('a short game played by clicking and typing: values and perfect moves as the library gives them', async () => {
  const page = await newPage();
  await page.goto(BASE + '/');
  await ready(page);
  // Black removes c3, White replies with its perfect removal, then three perfect jumps and one
  // other move: every position checked against the library. Odd plies are typed.
  const played = [];
  for (let ply = 0; ply < 6; ply++) {
    const want = await checkAgainstTable(page, T5);
    const move = ply === 0 ? 'c3' : ply === 4 ? want.moves[want.moves.length - 1].move : want.best;
    if (ply % 2) {
      await page.fill('#moveinput', move.toUpperCase().replace('-', ' '));
      await page.press('#moveinput', 'Enter');
    } else {
      await clickMove(page, move);
    }
    played.push(move);
    await waitPlies(page, played.length);
  }
  // The last move is drawn: its two squares outlined.
  const lastSquares = await page.$$eval('#board .last', (rs) => rs.map((r) => r.parentNode.dataset.square));
  assert.deepEqual(lastSquares.sort(), played.at(-1).split('-').sort());
  const end = await checkAgainstTable(page, T5);
  assert.deepEqual(await playedMoves(page), played);
  // Move numbers: one per Black move.
  assert.match(await page.textContent('#game'), /^start 1\. c3 c2 2\. /);
  // The same game given to the library as a record reaches the same position.
  assert.equal(after5(played).position, end.position);
  // A typed move that is not legal: a message listing the legal moves, nothing played.
  await page.fill('#moveinput', 'a1-a9');
  await page.press('#moveinput', 'Enter');
  await page.waitForFunction(() => /not a legal move/.test(document.querySelector('#message').textContent));
  assert.equal(await page.textContent('#position'), end.position);
  // Undo twice, redo once: the positions of the game.
  await page.click('#undo');
  await page.click('#undo');
  await ready(page, after5(played.slice(0, 4)).position);
  await checkAgainstTable(page, T5);
  await page.click('#redo');
  await ready(page, after5(played.slice(0, 5)).position);
  await checkAgainstTable(page, T5);
  assert.deepEqual(await playedMoves(page), played.slice(0, 5));
  // The keyboard: Home, End, ←.
  await page.keyboard.press('Home');
  await ready(page, 'xoxox/oxoxo/xoxox/oxoxo/xoxox b');
  await page.keyboard.press('End');
  await ready(page, end.position);
  await page.keyboard.press('ArrowLeft');
  await ready(page, after5(played.slice(0, 5)).position);
  await page.close();
});

await test('the URL holds the whole game: a reload restores the position, the record and its undo', async () => {
  const page = await newPage();
  await page.goto(BASE + '/');
  await ready(page);
  const played = ['c3', 'c2', 'c5-c3', 'a2-c2'];
  for (let i = 0; i < played.length; i++) {
    await clickMove(page, played[i]);
    await waitPlies(page, i + 1);
  }
  await page.click('#undo');
  await ready(page, after5(played.slice(0, 3)).position);
  const url = new URL(page.url());
  assert.equal(url.searchParams.get('game'), played.join(' '));
  assert.equal(url.searchParams.get('at'), '3');
  assert.equal(url.searchParams.get('board'), '5x5');
  await page.close();
  const again = await newPage();
  await again.goto(url.href);
  await ready(again, after5(played.slice(0, 3)).position);
  await checkAgainstTable(again, T5);
  assert.deepEqual(await playedMoves(again), played.slice(0, 3));
  assert.deepEqual(await again.$$eval('#game .ply.future', (ss) => ss.map((s) => s.dataset.move)), ['a2-c2']);
  await again.click('#undo');
  await ready(again, after5(played.slice(0, 2)).position);
  await again.click('#redo');
  await again.click('#redo');
  await ready(again, after5(played).position);
  gameUrl = again.url();
  await again.close();
  // A link of the earlier pages (position= only) still opens.
  const old = await newPage();
  const pos = after5(played).position;
  await old.goto(`${BASE}/?position=${encodeURIComponent(pos)}&rules=brainking`);
  await ready(old, pos);
  await checkAgainstTable(old, T5);
  await old.close();
});

await test('the paste box takes a position and a game record, and names what is wrong', async () => {
  const page = await newPage();
  await page.goto(BASE + '/');
  await ready(page);
  // A game record on the current board (5x5).
  await page.fill('#paste', 'c3 c2 c5-c3');
  await page.click('#load');
  await ready(page, after5(['c3', 'c2', 'c5-c3']).position);
  await checkAgainstTable(page, T5);
  // A 4x4 position: the 4x4 table answers.
  await page.fill('#paste', 'xoxo/oxox/xoxo/oxo. w');
  await page.click('#load');
  await ready(page, 'xoxo/oxox/xoxo/oxo. w');
  await checkAgainstTable(page, T4);
  assert.equal(await page.inputValue('#boardsel'), '4x4');
  // A record with an illegal move: the server's message is shown, the position is kept.
  await page.fill('#paste', 'd1 c1 a1-a9');
  await page.click('#load');
  await page.waitForFunction(() => document.querySelector('#message').textContent !== '');
  const api = await (await fetch(`${BASE}/api/game?board=4x4&rules=brainking&game=${encodeURIComponent('d1 c1 a1-a9')}`)).json();
  assert.equal(await page.textContent('#message'), api.error);
  assert.match(api.error, /move 3/);
  assert.equal(await page.textContent('#position'), 'xoxo/oxox/xoxo/oxo. w');
  // A record on a board no table holds: played on that board, answered by the search (never
  // moved to another table).
  await page.fill('#paste', '3x4 a3 b3');
  await page.click('#load');
  await page.waitForFunction(() => document.body.dataset.state === 'ready' &&
    document.querySelector('#position').textContent.split('/').length === 3);
  const s = await shown(page);
  const solved = konaneJson('solve', s.position, '--json');
  assert.equal(s.value, describe(solved.value, solved.depth) + ' for ' + solved.to_move);
  assert.match(s.source, /^search /);
  assert.equal(await page.inputValue('#boardsel'), '3x4');
  assert.deepEqual(await playedMoves(page), ['a3', 'b3']);
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
  assert.deepEqual(s.moves, want.moves.map(({ move, value, depth }) => ({ move, value, depth })));
  assert.match(s.source, /^search \(limit 100,000 positions; searched [0-9,]+\)$/);
  assert.match(s.message, /answered by search \(limit 100,000 positions\)/);
  // Over the limit: a clear message, no value; the legal moves (from the rules) stay playable.
  const big = 'xoxoxo/oxoxox/xo..xo/oxoxox/xoxoxo/oxoxox b';  // 6x6: over 100,000 positions
  await page.goto(`${BASE}/?position=${encodeURIComponent(big)}&rules=brainking`);
  await ready(page, big);
  const b = await shown(page);
  assert.match(b.message, /search limit of 100000 positions reached/);
  assert.equal(b.value, '—');
  assert.ok(b.moves.length > 0);
  assert.ok(b.moves.every((m) => m.value === undefined));
  await page.close();
});

// What the page shows for a game value (the page's describeValue), from `konane value --json`.
function valueText(v) {
  const says = { L: 'Black wins whoever starts', R: 'White wins whoever starts',
    N: 'the player to move wins', P: 'the player to move loses' }[v.outcome];
  let t = `${v.value}  (${v.outcome}: ${says}`;
  if (!v.number) t += `; mean ${v.mean}, temperature ${v.temperature}`;
  if (v.regions.length > 1) t += `; ${v.regions.length} regions`;
  return t + ')';
}

// Waits until the page has its game value (or its refusal) for the position shown.
async function valued(page) {
  await page.waitForFunction(() => document.body.dataset.state === 'ready' &&
    document.querySelector('#cgt').dataset.state !== 'asking');
  return page.textContent('#cgt');
}

await test('the game value (jumps alone) of the position shown, as `konane value` gives it, within a small budget', async () => {
  const page = await newPage();
  // A published value (cgt-tools' Kōnane tests; docs/cgt.md): the 3x4 position is {1|-1}.
  const published = '.ox./o..x/.... b';
  await page.goto(`${BASE}/?position=${encodeURIComponent(published)}&rules=brainking`);
  await ready(page, published);
  const want = konaneJson('value', published, '--json', '-q');
  assert.equal(want.value, '{1|-1}');
  assert.equal(await valued(page), valueText(want));
  assert.equal(await page.getAttribute('#cgt', 'data-value'), '{1|-1}');
  // After a move the value follows the position shown (by the CLI again).
  const move = (await shown(page)).moves[0].move;
  await clickMove(page, move);
  await page.waitForFunction((p) => document.querySelector('#position').textContent !== p, published);
  await ready(page);
  const after = (await shown(page)).position;
  assert.equal(await valued(page), valueText(konaneJson('value', after, '--json', '-q')));
  // A position of two regions (3x6, no table): their sum, the regions counted.
  const two = '.ox.../....../...ox. b';
  await page.goto(`${BASE}/?position=${encodeURIComponent(two)}&rules=brainking`);
  await ready(page, two);
  const sum = konaneJson('value', two, '--json', '-q');
  assert.equal(sum.regions.length, 2);
  assert.equal(await valued(page), valueText(sum));
  // A position whose value needs more than the page's budget (20,000 positions, as the CLI's
  // --max-nodes confirms): "not computed within", and the table's answer still shown.
  const rec = ['c3', 'c2'];
  const big = after5(rec);
  let refused = '';
  try {
    execFileSync(KONANE, ['value', big.position, '--max-nodes', '20000', '-q'], { encoding: 'utf8', stdio: 'pipe' });
  } catch (e) { refused = String(e.stderr); }
  assert.match(refused, /not computed within 20000 positions/);
  await page.goto(`${BASE}/?board=5x5&rules=brainking&game=${encodeURIComponent(rec.join(' '))}`);
  await ready(page, big.position);
  assert.equal(await valued(page), 'not computed within 20,000 positions');
  await checkAgainstTable(page, T5);
  // The API refuses a malformed limit, and never goes past the server's own.
  const bad = await fetch(`${BASE}/api/value?position=${encodeURIComponent(published)}&limit=0`);
  assert.equal(bad.status, 400);
  assert.match((await bad.json()).error, /limit '0'/);
  await page.close();
});

await test('practice mode shows no answer before a hint; three hints, then the reveal', async () => {
  const page = await newPage();
  await page.goto(`${BASE}/?board=5x5&rules=brainking&game=${encodeURIComponent('c3 c2')}&practice=1`);
  const want = after5(['c3', 'c2']);
  await ready(page, want.position);
  await page.waitForSelector('#openings tr[data-black]');
  const noAnswer = async () => {
    const s = await shown(page);
    assert.match(s.value, /hidden/);
    assert.match(s.best, /hidden/);
    assert.match(s.line, /hidden/);
    assert.equal(await valued(page), 'hidden (practice)');
    assert.equal(s.arrows, 0);
    assert.equal(s.bestMarks, 0);
    assert.ok(s.moves.length > 0 && s.moves.every((m) => m.value === undefined && m.depth === undefined));
    assert.equal(await page.$$eval('#board .mlabel, #board .hintfrom', (x) => x.length), 0);
    // No win, loss or depth anywhere but in the page's explanation.
    const text = await page.evaluate(() => [...document.querySelectorAll('main, #openingsbox')]
      .map((e) => e.innerText).join('\n'));
    assert.doesNotMatch(text, /\b(win|loss|wins|won|lost|perfect move:)\b|★/i);
    // The openings: the pairs without their winners and depths.
    assert.equal(await page.$$eval('#openings tr:first-child th', (x) => x.length), 2);
  };
  await noAnswer();
  // Hint 1: won or lost.
  await page.click('#hint');
  assert.equal(await page.textContent('#value'), `${want.value === 'win' ? 'won' : 'lost'} for ${want.to_move}`);
  assert.equal((await shown(page)).arrows, 0);
  // Hint 2: the piece the perfect move starts from.
  await page.click('#hint');
  const from = want.best.split('-')[0];
  assert.equal(await page.textContent('#best'), 'starts from ' + from);
  assert.equal(await page.$$eval('#board .hintfrom', (x) => x.length), 1);
  assert.equal((await shown(page)).arrows, 0);
  // Hint 3: the move, drawn alone.
  await page.click('#hint');
  let s = await shown(page);
  assert.equal(s.best, want.best);
  assert.equal(s.arrows, 1);
  assert.equal(s.bestMarks, 1);
  assert.deepEqual(s.moves.filter((m) => m.value), [want.moves.find((m) => m.move === want.best)]
    .map(({ move, value, depth }) => ({ move, value, depth })));
  // Reveal: everything, as the library gives it.
  await page.click('#reveal');
  await checkAgainstTable(page, T5);
  assert.equal(await valued(page), 'not computed within 20,000 positions');
  // The next position is hidden again.
  await clickMove(page, want.best);
  await ready(page, after5(['c3', 'c2', want.best]).position);
  if (shots) {
    // The screenshot of the docs: practice mode after two hints.
    await page.click('#hint');
    await page.click('#hint');
    await page.screenshot({ path: join(shots, 'practice.png'), fullPage: true });
  }
  await page.click('#undo');
  await ready(page, want.position);
  await noAnswer();
  await page.close();
});

await test('play against the table: each move is answered with the perfect move', async () => {
  const page = await newPage();
  const start = 'xoxox/oxoxo/xoxox/oxoxo/xoxox b';
  await page.goto(`${BASE}/?board=5x5&rules=brainking&play=black`);
  await ready(page, start);
  assert.equal(await page.$eval('#board', (b) => b.dataset.flipped), '0');
  let rec = [];
  for (let turn = 0; turn < 3; turn++) {
    const mine = await checkAgainstTable(page, T5);
    assert.equal(mine.to_move, 'black');
    // The player's move: a removal first, then the last listed move (not always perfect).
    const move = turn === 0 ? 'c3' : mine.moves[mine.moves.length - 1].move;
    const afterMine = after5([...rec, move]);
    assert.ok(afterMine.best, 'the table has a reply');
    await clickMove(page, move);
    await waitPlies(page, rec.length + 2);
    rec = await playedMoves(page);
    assert.equal(rec.at(-2), move);
    assert.equal(rec.at(-1), afterMine.best, 'the table answered with the perfect move');
  }
  await page.close();
});

await test('a takeback in play mode returns to the position before your move, and stays', async () => {
  const page = await newPage();
  await page.goto(`${BASE}/?board=5x5&rules=brainking&play=black`);
  await ready(page, 'xoxox/oxoxo/xoxox/oxoxo/xoxox b');
  await clickMove(page, 'c3');
  await waitPlies(page, 2);
  const beforeMine = after5(await playedMoves(page));
  await clickMove(page, beforeMine.best);
  await waitPlies(page, 4);
  const rec = await playedMoves(page);
  // Undo: your move and the table's reply are taken back together.
  await page.click('#undo');
  await ready(page, beforeMine.position);
  assert.deepEqual(await playedMoves(page), rec.slice(0, 2));
  // The table does not replay: no reply is scheduled (the page would be 'replying'), it is
  // your turn.
  assert.equal(await page.evaluate(() => document.body.dataset.state), 'ready');
  assert.equal(await page.textContent('#position'), beforeMine.position);
  assert.match(await page.textContent('#tomove'), /Black \(you\)/);
  // Again (←): back to the start, where undo stops.
  await page.keyboard.press('ArrowLeft');
  await ready(page, 'xoxox/oxoxo/xoxox/oxoxo/xoxox b');
  assert.equal(await page.isDisabled('#undo'), true);
  // Redo goes forward to your next turn; another move there is answered.
  await page.click('#redo');
  await ready(page, beforeMine.position);
  const other = beforeMine.moves.find((m) => m.move !== rec[2]).move;
  await clickMove(page, other);
  await waitPlies(page, 4);
  const now = await playedMoves(page);
  assert.equal(now[2], other);
  assert.equal(now[3], after5(now.slice(0, 3)).best);
  await page.close();
});

await test('playing White: the board is turned, the table opens', async () => {
  const page = await newPage();
  await page.goto(`${BASE}/?board=5x5&rules=brainking&play=white`);
  await waitPlies(page, 1);
  assert.equal(await page.$eval('#board', (b) => b.dataset.flipped), '1');
  const box = async (sq) => page.$eval(`#board [data-square="${sq}"] rect`, (r) => r.getBoundingClientRect().toJSON());
  const a1 = await box('a1'), e5 = await box('e5');
  assert.ok(a1.top < e5.top && a1.left > e5.left, 'rank 1 at the top, file a at the right');
  const rec = await playedMoves(page);
  assert.equal(rec[0], konaneJson('probe', T5, '--json').best);
  assert.match(await page.textContent('#tomove'), /White \(you\)/);
  await page.close();
});

await test('the review marks a deliberately bad move as a mistake, as konane analyse does', async () => {
  // On 4x4 White wins: play White against the table, throw the win away once (a move to a
  // position Black wins), then play the perfect moves to the end.
  const page = await newPage();
  await page.goto(`${BASE}/?board=4x4&rules=brainking&play=white`);
  await waitPlies(page, 1);
  let rec = [];
  let mistakeAt = 0;
  for (;;) {
    rec = await playedMoves(page);
    const a = konaneJson('probe', T4, '--game', rec.join(' '), '--json');
    if (!a.best) break;
    assert.equal(a.to_move, 'white');
    const bad = a.value === 'win' && !mistakeAt && a.moves.find((m) => m.value === 'loss');
    if (bad) mistakeAt = rec.length + 1;
    await clickMove(page, bad ? bad.move : a.best);
    await page.waitForFunction((k) => document.body.dataset.state === 'ready' &&
      document.querySelectorAll('#game .ply[data-move]:not(.future)').length >= k, rec.length + 1);
  }
  assert.ok(mistakeAt > 0, 'a losing move was played from a won position');
  await page.waitForSelector('#reviewbox[data-ready="1"]');
  const result = await page.textContent('#result');
  assert.match(result, new RegExp(`^Game over: (Black|White) wins after ${rec.length} plies`));
  const want = konaneJson('analyse', T4, rec.join(' '), '--json');
  assert.match(result, new RegExp(`^Game over: ${want.final.winner === 'black' ? 'Black' : 'White'} wins`));
  const rows = await page.$$eval('#review tr[data-ply]', (rs) => rs.map((r) => ({
    ply: Number(r.dataset.ply), verdict: r.dataset.verdict, best: r.cells[4].textContent,
  })));
  assert.equal(rows.length, want.moves.length);
  for (const m of want.moves) {
    const row = rows[m.ply - 1];
    if (m.mover !== 'white') { assert.equal(row.verdict, undefined); continue; }
    const kind = m.mistake ? 'mistake' : m.inaccurate ? (m.before.value === 'win' ? 'slower' : 'faster') : 'perfect';
    assert.equal(row.verdict, kind, `ply ${m.ply}`);
    if (kind !== 'perfect') assert.match(row.best, new RegExp('^' + m.best + ' '));
  }
  assert.equal(rows[mistakeAt - 1].verdict, 'mistake');
  assert.ok(want.mistakes.includes(mistakeAt));
  if (shots) await page.screenshot({ path: join(shots, 'review.png'), fullPage: true });
  await page.close();
});

await test('a 360-px phone screen: no horizontal scroll, nothing past the right edge', async () => {
  const phone = await browser.newContext({ viewport: { width: 360, height: 740 }, deviceScaleFactor: 2 });
  phone.setDefaultTimeout(120000);
  const page = await phone.newPage();
  page.on('pageerror', (e) => pageErrors.push(e.message));
  for (const url of [gameUrl, `${BASE}/?board=5x5&rules=brainking&play=white&practice=1`,
    `${BASE}/?position=${encodeURIComponent('xoxoxo/oxoxox/xo..xo/oxoxox/xoxoxo/oxoxox b')}`]) {
    await page.goto(url);
    await ready(page);
    await page.fill('#paste', 'xoxoxo/oxoxox/xo..xo/oxoxox/xoxoxo/oxoxox b and some more text');
    await page.click('#reviewbtn');
    await page.waitForSelector('#reviewbox:not([hidden])');
    const wide = await page.evaluate(() => {
      const out = [];
      const W = document.documentElement.clientWidth;
      if (document.documentElement.scrollWidth > W) out.push('document ' + document.documentElement.scrollWidth);
      for (const e of document.querySelectorAll('body *')) {
        if (e.closest('.scroll') || e.closest('[hidden]')) continue;
        const r = e.getBoundingClientRect();
        if (r.width && r.right > W + 0.5) out.push(`${e.tagName}#${e.id}.${e.className.baseVal ?? e.className} ${r.right}`);
      }
      return out;
    });
    assert.deepEqual(wide, [], url);
  }
  await phone.close();
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
  // Depths from the full board: the table's (from Black's first jump) and the two removals.
  assert.deepEqual(rows, want.openings.map((o) => ({
    black: o.black, white: o.white, winning: winning.has(o.black), winner: o.winner, depth: o.depth + 2,
  })));
  assert.match(await page.textContent('#verdict'), new RegExp(`Black removes ${want.best.black}`));
  // One convention: the opening's depth is the value of the full board's perfect move.
  const full = konaneJson('probe', T5, '--json');
  assert.equal(want.best.depth + 2, full.depth);
  await page.click(`#openings tr[data-black="${want.best.black}"][data-white="${want.best.white}"]`);
  await ready(page, after5([want.best.black, want.best.white]).position);
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
  const analyse = await get(`/api/analyse?board=5x5&game=${encodeURIComponent('c3 c2 c5-c3 a2-c2')}`);
  assert.equal(analyse.status, 200);
  assert.deepEqual(analyse.body, konaneJson('analyse', T5, 'c3 c2 c5-c3 a2-c2', '--json'));
  const cases = [
    ['/api/probe?position=xoxo%2Foxzx%20b', 400, /position: .*'z'/],
    ['/api/probe?board=5x5&game=c3%20zz', 400, /game: move 2/],
    ['/api/probe?position=xox%2Foxo%2Fxox%20b', 404, /no table for board 3x3/],
    ['/api/openings?board=6x6', 404, /no table for board 6x6/],
    ['/api/openings?board=5x5&rules=center', 404, /no table for board 5x5 ruleset center/],
    ['/api/openings?board=5x5&rules=nonsense', 400, /nonsense/],
    ['/api/analyse?board=3x3&game=a3', 404, /no table for board 3x3/],
    ['/api/game?board=5x5&game=c3%20zz', 400, /game: move 2/],
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

await test('a position with winning and losing moves: two colours, no label over a piece', async () => {
  const page = await newPage();
  await page.goto(BASE + '/');
  await ready(page);
  const rec = 'a1 b1 a3-a1 b3-b1 a5-a3 b5-b3 d2-b2 c4-c2';
  await page.fill('#paste', rec);
  await page.click('#load');
  await ready(page, after5(rec.split(' ')).position);
  const want = await checkAgainstTable(page, T5);
  assert.deepEqual(new Set(want.moves.map((m) => m.value)), new Set(['win', 'loss']));
  const colours = await page.$$eval('#board .arrow', (as) => as.map((a) => getComputedStyle(a).stroke));
  assert.equal(new Set(colours).size, 2, 'winning and losing moves drawn in two colours');
  // Every depth label on the board is clear of every piece (and of the other labels).
  for (const path of [page.url(), `${BASE}/?board=5x5&rules=brainking`]) {
    await page.goto(path);
    await ready(page);
    const clashes = await page.evaluate(() => {
      const labels = [...document.querySelectorAll('#board .mlabel')].map((t) => t.getBBox());
      const pieces = [...document.querySelectorAll('#board .piece')].map((c) => ({
        x: +c.getAttribute('cx'), y: +c.getAttribute('cy'), r: +c.getAttribute('r') }));
      const out = [];
      for (const b of labels) {
        for (const c of pieces) {
          const dx = Math.max(b.x - c.x, 0, c.x - (b.x + b.width));
          const dy = Math.max(b.y - c.y, 0, c.y - (b.y + b.height));
          if (Math.hypot(dx, dy) < c.r) out.push(`label at ${b.x},${b.y} over the piece at ${c.x},${c.y}`);
        }
      }
      labels.forEach((a, i) => labels.slice(i + 1).forEach((b) => {
        if (a.x < b.x + b.width && b.x < a.x + a.width && a.y < b.y + b.height && b.y < a.y + a.height) {
          out.push(`labels at ${a.x},${a.y} and ${b.x},${b.y} overlap`);
        }
      }));
      return { out, n: labels.length };
    });
    assert.ok(clashes.n > 0);
    assert.deepEqual(clashes.out, []);
  }
  await page.goto(BASE + '/?board=5x5&rules=brainking&game=' + encodeURIComponent(rec));
  await ready(page);
  if (shots) await page.screenshot({ path: join(shots, 'serve.png'), fullPage: true });
  await page.close();
});

await test('a shared link with a bad field names it and opens the rest', async () => {
  const page = await newPage();
  const errors = pageErrors.length;
  const game = `${BASE}/?board=4x4&game=${encodeURIComponent('d1 c1')}`;
  await page.goto(game);
  await ready(page);
  const last = await shown(page);
  assert.equal(last.message, '');
  // at= not a move number (NaN, empty, signed, exponent): the game at its last position, the
  // field named (before: a script error and an empty board, record and message).
  for (const at of ['NaN', '', '-1', '1e3']) {
    await page.goto(`${game}&at=${encodeURIComponent(at)}`);
    await ready(page, last.position);
    const s = await shown(page);
    assert.ok(s.message.includes(`at=${at}: not a move number`), `${at}: ${s.message}`);
    assert.deepEqual(await playedMoves(page), ['d1', 'c1'], at);
  }
  // A good at= still picks the ply.
  await page.goto(`${game}&at=1`);
  await ready(page);
  assert.equal((await shown(page)).message, '');
  assert.deepEqual(await playedMoves(page), ['d1']);
  // A bad rules, play or practice is named and left out; the game opens.
  await page.goto(`${game}&rules=nope&play=red&practice=yes`);
  await ready(page, last.position);
  const s = await shown(page);
  for (const field of ['rules=nope', 'play=red', 'practice=yes']) assert.ok(s.message.includes(field), s.message);
  await page.goto(`${BASE}/?board=${encodeURIComponent('4x4<b>')}`);
  await ready(page);
  assert.ok((await shown(page)).message.includes('board=4x4<b>: not a board size RxC'));
  assert.equal(pageErrors.length, errors, pageErrors.join('\n'));
  await page.close();
});

await test('without a table: 8x8 by default, played against the engine, its moves explained', async () => {
  // A second server, given no table: the engine and the searches on any board.
  const bare = spawn(KONANE, ['serve', '--port', '0'], { stdio: ['ignore', 'pipe', 'pipe'] });
  const bareExit = new Promise((resolve) => bare.on('exit', resolve));
  try {
    const base = await new Promise((resolve, reject) => {
      let out = '';
      bare.stdout.on('data', (d) => {
        out += d;
        const m = /http:\/\/[0-9.]+:[0-9]+/.exec(out);
        if (m) resolve(m[0]);
      });
      bare.on('exit', (code) => reject(new Error(`konane serve without a table exited (${code})`)));
    });
    assert.match(await (await fetch(base + '/api/tables')).text(), /"tables":\[\]/);
    const page = await newPage();
    await page.goto(`${base}/?play=black`);
    const full = 'xoxoxoxo/oxoxoxox/xoxoxoxo/oxoxoxox/xoxoxoxo/oxoxoxox/xoxoxoxo/oxoxoxox b';
    await ready(page, full);
    assert.equal(await page.$eval('#boardsel', (s) => s.value), '8x8');
    await page.selectOption('#level', '0.2');
    // Black removes d5; the engine (White) removes a piece next to the hole.
    await clickMove(page, 'd5');
    await waitPlies(page, 2);
    let rec = await playedMoves(page);
    assert.equal(rec[0], 'd5');
    assert.ok(['c5', 'e5', 'd4', 'd6'].includes(rec[1]), rec[1]);
    const explained = /^(search depth [0-9]+, score -?[0-9]+|proof \(win\)|only move), [0-9.]+ s$/;
    assert.match(await page.textContent('#engine'), new RegExp(`^${rec[1]}: `));
    let notes = await page.$$eval('#game .note', (ns) => ns.map((n) => n.textContent.slice(2, -1)));
    assert.equal(notes.length, 1);
    assert.match(notes[0], explained);
    // A jump of Black's, answered by the engine again, at 3 s a move: the page shows it
    // thinking (/api/progress) until the move comes.
    await page.selectOption('#level', '3');
    const jump = await page.$eval('#moves li', (li) => li.dataset.move);
    await clickMove(page, jump);
    await page.waitForFunction(
      () => /^thinking: (proof search|depth [0-9]+, score -?[0-9]+, [0-9.]+ M nodes), [0-9.]+ s/
        .test(document.querySelector('#engine').textContent), null, { timeout: 5000 });
    await waitPlies(page, 4);
    rec = await playedMoves(page);
    assert.equal(rec[2], jump);
    notes = await page.$$eval('#game .note', (ns) => ns.map((n) => n.textContent.slice(2, -1)));
    assert.equal(notes.length, 2);
    assert.match(notes[1], explained);
    assert.match(await page.textContent('#tomove'), /Black \(you\)/);
    await page.close();
  } finally {
    bare.kill('SIGINT');
    await bareExit;
  }
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

// With ONLY the test above may not have run: the server must not outlive the run.
if (server.exitCode === null && server.signalCode === null) {
  server.kill('SIGTERM');
  await serverExit;
}
rmSync(WORK, { recursive: true, force: true });
const failed = results.filter((r) => !r).length;
console.log(`${results.length - failed}/${results.length} passed`);
process.exit(failed ? 1 : 0);
