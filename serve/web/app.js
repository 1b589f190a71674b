// The page of `konane serve`: a board with every legal move coloured by its value, the perfect
// line, a game with undo and redo held in the URL, the openings, a paste box, search for
// positions no table holds, practice with hidden answers and hints, play against the computer
// (the table's or the search's perfect move, else the engine's on any board) and a review of the
// game. It talks only to the JSON API of the same server and applies no rule itself: the
// positions after each move, the legal moves, the values and the review all come from the server
// (/api/probe, /api/solve, /api/game, /api/analyse, /api/openings, /api/bestmove for the
// engine's move, and /api/value for the combinatorial game value of the position played by jumps
// alone).
'use strict';

const S = {
  tables: [],         // /api/tables
  searchLimit: 0,
  board: null,        // {rows, cols, name} of the current game
  rules: 'brainking', // ruleset of the current game
  start: '',          // the position the game starts from
  full: '',           // the full board (the start of a game from the beginning)
  history: [],        // [{pos: text, move: text or null (the move that led here), engine: how
                      //   the computer chose that move, when it did}]
  index: 0,           // current entry of history
  answer: null,       // /api/probe or /api/solve answer for the current position
  legal: [],          // [{move, child}] of the current position
  source: '',
  selected: null,     // square name of the piece picked up
  request: 0,         // number of the latest request (older answers are dropped)
  busy: false,
  hint: 0,            // practice: hint steps taken at this position (0 to 3)
  revealed: false,    // practice: every answer shown at this position
  openingsShown: false,
  anim: null,         // {index, t0}: the move into history[index] is being animated
  review: null,       // /api/analyse answer for the game up to reviewIndex
  reviewIndex: -1,
  cgt: null,          // /api/value answer for the current position, or {error}, or null (asking)
  linkNotice: null,   // {request, text}: the bad fields of the link opened, shown with its position
};

const $ = (id) => document.getElementById(id);
const CELL = 60, MARGIN = 26, ANIM_MS = 450, REPLY_MS = 600, THINK_POLL_MS = 250;
const RULESETS = ['brainking', 'center', 'any'];
// The most positions the page lets the server value for the game value of one position (a small
// budget: a position whose value needs more is shown as "not computed within ..." at once).
const VALUE_LIMIT = 20000;
// The boards offered when the server has no table (then the page opens on 8x8).
const DEFAULT_BOARDS = ['8x8', '6x6', '5x5', '4x4', '10x6'];
// The most positions a search may keep on a board over 36 squares (searchLimit()).
const BIG_BOARD_LIMIT = 200000;

// ---------------------------------------------------------------------------------------------
// Reading positions and square names (the notation of the command line), to draw them.

function parsePos(text) {
  const m = /^\s*([xo.\/]+)\s+([bw])\s*$/i.exec(text || '');
  if (!m) return null;
  const grid = m[1].toLowerCase().split('/').map((r) => r.split(''));
  const cols = grid[0].length;
  if (grid.some((r) => r.length !== cols)) return null;
  return { rows: grid.length, cols, grid, side: m[2].toLowerCase() };
}

// Files a..z, then aa, ab, ... as in a spreadsheet (bijective base 26); ranks in decimal.
function fileName(f) {
  let s = '';
  for (let n = f + 1; n > 0; n = Math.floor((n - 1) / 26)) {
    s = String.fromCharCode(97 + (n - 1) % 26) + s;
  }
  return s;
}
function sqName(f, rank) { return fileName(f) + rank; }
function sqParse(name) {
  const m = /^([a-z]+)(\d+)$/.exec(name);
  let f = 0;
  for (const ch of m[1]) f = f * 26 + (ch.charCodeAt(0) - 96);
  return { f: f - 1, r: parseInt(m[2], 10) };
}
function at(p, f, r) { return p.grid[p.rows - r][f]; }
function sideName(c) { return c === 'b' || c === 'black' ? 'Black' : 'White'; }
function boardName(rows, cols) { return rows + 'x' + cols; }

// ---------------------------------------------------------------------------------------------
// The API

async function getJson(path) {
  let res;
  try {
    res = await fetch(path, { cache: 'no-store' });
  } catch (e) {
    return { status: 0, body: { error: 'the server does not answer: ' + e.message } };
  }
  let body = null;
  try { body = await res.json(); } catch (e) { body = { error: 'answer is not JSON (HTTP ' + res.status + ')' }; }
  return { status: res.status, body };
}

function query(params) {
  return new URLSearchParams(Object.entries(params).filter(([, v]) => v !== undefined && v !== null))
    .toString();
}

function tablesOf(name) { return S.tables.filter((t) => t.board === name); }
function currentTable() {
  return S.board && S.tables.find((t) => t.board === S.board.name && t.rules === S.rules) || null;
}

// The answer for a position: the table's (/api/probe), else a search (/api/solve).
async function answerFor(text) {
  if (currentTable()) {
    const r = await getJson('/api/probe?' + query({ position: text, rules: S.rules }));
    if (r.status === 200) return { answer: r.body, source: 'table' };
    if (r.status !== 404) return { error: r.body.error };
  }
  const s = await getJson('/api/solve?' + query({ position: text, rules: S.rules, limit: searchLimit() }));
  if (s.status === 200) return { answer: s.body, source: 'search' };
  return { error: 'search: ' + s.body.error };
}

// The positions the page lets a search keep: the server's limit, or BIG_BOARD_LIMIT past 36
// squares, where a search of the early game is out of reach (refused in a fraction of a second
// instead of seconds: the engine plays those positions).
function searchLimit() {
  const big = S.board && S.board.rows * S.board.cols > 36;
  return big ? String(Math.min(S.searchLimit, BIG_BOARD_LIMIT)) : undefined;
}

// The combinatorial game value of a position played by jumps alone (/api/value), within
// VALUE_LIMIT positions: the answer, or {error, limit: true} when it needs more, or {error}.
async function valueFor(text) {
  const r = await getJson('/api/value?' + query({ position: text, limit: String(VALUE_LIMIT) }));
  if (r.status === 200) return r.body;
  return { error: r.body.error, limit: r.status === 422 };
}

// How the page writes a game value: the form, the outcome class, the mean and temperature.
function describeValue(v) {
  const says = { L: 'Black wins whoever starts', R: 'White wins whoever starts',
    N: 'the player to move wins', P: 'the player to move loses' }[v.outcome];
  let t = `${v.value}  (${v.outcome}: ${says}`;
  if (!v.number) t += `; mean ${v.mean}, temperature ${v.temperature}`;
  if (v.regions.length > 1) t += `; ${v.regions.length} regions`;
  return t + ')';
}

// The positions of a game (/api/game): {start, plies: [{move, position}], legal} or {error}.
async function gameFor(board, rules, start, record) {
  const r = await getJson('/api/game?' + query({ board, rules, start: start || undefined, game: record }));
  return r.status === 200 ? r.body : { error: r.body.error };
}

// ---------------------------------------------------------------------------------------------
// The game

function current() { return S.history[S.index].pos; }
function record(upto) {
  return S.history.slice(1, (upto === undefined ? S.history.length - 1 : upto) + 1)
    .map((h) => h.move).join(' ');
}
function sideAt(i) { return parsePos(S.history[i].pos).side === 'b' ? 'black' : 'white'; }
function practising() { return $('practice').checked; }
function shownAll() { return !practising() || S.revealed; }

function setMessage(text, info) {
  $('message').textContent = text || '';
  $('message').className = info ? 'info' : '';
}

// The URL holds the board, the ruleset, the start when it is not the full board, the whole
// game record, the ply shown and the mode: a shared link reopens the game where it was.
function updateUrl() {
  const params = { board: S.board.name, rules: S.rules };
  if (S.start !== S.full) params.start = S.start;
  if (S.history.length > 1) params.game = record();
  if (S.index !== S.history.length - 1) params.at = String(S.index);
  if ($('play').value) params.play = $('play').value;
  if (practising()) params.practice = '1';
  history.replaceState(null, '', '?' + query(params));
}

async function show() {
  const id = ++S.request;
  S.selected = null;
  S.answer = null;
  S.legal = [];
  S.hint = 0;
  S.revealed = false;
  S.busy = true;
  S.cgt = null;
  document.body.dataset.state = 'loading';
  updateUrl();
  render();
  const text = current();
  // The game value (jumps alone) is asked for beside the table's answer; the page is ready when
  // both have come.
  const [r, v] = await Promise.all([answerFor(text), valueFor(text)]);
  if (id !== S.request) return;
  S.cgt = v;
  if (id !== S.request) return;  // a newer position was asked for meanwhile
  // What was wrong with the link the page was opened with stays shown with its first position.
  const note = S.linkNotice && S.linkNotice.request === id ? S.linkNotice.text : '';
  const withNote = (t) => (note && t ? note + ' ' + t : note || t);
  if (r.error) {
    // No value: the legal moves still come from the rules, so that the game can go on.
    const g = await gameFor(S.board.name, S.rules, text, '');
    if (id !== S.request) return;
    S.legal = g.error ? [] : g.legal;
    setMessage(withNote(r.error));
  } else {
    S.answer = r.answer;
    S.legal = r.answer.moves.map((m) => ({ move: m.move, child: m.child }));
    S.source = r.source;
    setMessage(withNote(r.source === 'search'
      ? 'No table of ' + S.board.name + ' ' + S.rules + ' holds this position: answered by search (limit ' +
        Number(searchLimit() || S.searchLimit).toLocaleString('en') + ' positions).' : ''), !note);
  }
  S.busy = false;
  render();
  document.body.dataset.state = 'ready';
  if (!maybeReply() && S.legal.length === 0 && S.index > 0) showReview();
}

// Plays a legal move of the current position (its child comes from the server's answer); `note`
// says how the computer chose it, when it did.
function play(move, note) {
  const m = S.legal.find((l) => l.move === move);
  if (!m) return false;
  S.history = S.history.slice(0, S.index + 1);
  S.history.push({ pos: m.child, move, engine: note });
  S.index++;
  S.anim = { index: S.index, t0: performance.now() };
  show();
  return true;
}

function goTo(i, animate) {
  if (i < 0 || i >= S.history.length || i === S.index) return;
  S.anim = animate && i === S.index + 1 ? { index: i, t0: performance.now() } : null;
  S.index = i;
  show();
}

function newGame(board, rules, start, moves, index) {
  S.board = board;
  S.rules = rules;
  S.full = fullBoard(board);
  S.start = start || S.full;
  S.history = [{ pos: S.start, move: null }, ...(moves || []).map((p) => ({ pos: p.position, move: p.move }))];
  S.index = !Number.isInteger(index) ? S.history.length - 1 : Math.max(0, Math.min(index, S.history.length - 1));
  S.anim = null;
  S.review = null;
  S.reviewIndex = -1;
  S.openingsShown = false;
  renderPickers();
  showOpenings();
  show();
}

// The full board as the server writes it (fetched once per board by /api/game).
const fullBoards = {};
function fullBoard(board) { return fullBoards[board.name]; }
async function loadFullBoard(name, rules) {
  if (fullBoards[name]) return fullBoards[name];
  const g = await gameFor(name, rules, null, '');
  if (g.error) return null;
  fullBoards[name] = g.start;
  return g.start;
}

// In play mode, the computer answers the player's moves when the position shown is the end of
// the game and the computer is to move (never after an undo: the player's turn is then shown):
// with the perfect move of the table or the search, else (no table, the search over its limit)
// with the engine's move (/api/bestmove) in the time of the level chosen. Returns whether a
// reply is coming.
function maybeReply() {
  const side = $('play').value;
  const a = S.answer;
  if (!side || S.busy || S.index !== S.history.length - 1) return false;
  const id = S.request;
  if (a) {
    if (!a.best || a.to_move === side) return false;
    const note = (a.search ? 'search' : 'table') + ' (' + describe(a.value, a.depth) + ')';
    document.body.dataset.state = 'replying';
    setTimeout(() => {
      if (id === S.request && S.answer === a) play(a.best, note);
    }, REPLY_MS);
    return true;
  }
  if (!S.legal.length || sideAt(S.index) === side) return false;
  const text = current(), t0 = performance.now();
  document.body.dataset.state = 'replying';
  // While the engine thinks, its progress (/api/progress) in place of the last move's note.
  const think = 'p' + Math.random().toString(36).slice(2, 12);
  const poll = setInterval(async () => {
    const p = await getJson('/api/progress?' + query({ id: think }));
    if (id === S.request && p.status === 200 && p.body.thinking) $('engine').textContent = thinkingText(p.body);
  }, THINK_POLL_MS);
  getJson('/api/bestmove?' + query({ position: text, rules: S.rules, time: $('level').value, id: think }))
    .then((r) => {
      clearInterval(poll);
      if (id !== S.request) return;
      if (r.status !== 200 || !r.body.move) {
        setMessage('The engine: ' + (r.body.error || 'no move'));
        document.body.dataset.state = 'ready';
        return;
      }
      const note = `${r.body.describe}, ${r.body.seconds.toFixed(1)} s`;
      setTimeout(() => {
        if (id === S.request) play(r.body.move, note);
      }, Math.max(0, REPLY_MS - (performance.now() - t0)));
    });
  return true;
}

// The engine thinking, from /api/progress: "thinking: proof search, 0.4 s", then "thinking:
// depth 9, score 100, 1.20 M nodes, 0.8 s: e6-e4 c6-e6 ..." (the line's first six moves).
function thinkingText(p) {
  const s = `${p.seconds.toFixed(1)} s`;
  if (p.phase !== 'search') return `thinking: proof search, ${s}`;
  const line = p.line.slice(0, 6).join(' ') + (p.line.length > 6 ? ' …' : '');
  return `thinking: depth ${p.depth}, score ${p.score}, ${(p.nodes / 1e6).toFixed(2)} M nodes, ${s}: ${line}`;
}

// Undo and redo: one ply, or against the table, to the player's previous (next) turn, so that
// an undo takes back the player's move and the table's reply together.
function undoTarget() {
  const side = $('play').value;
  if (!side) return S.index - 1;
  for (let i = S.index - 1; i >= 0; i--) if (sideAt(i) === side) return i;
  return -1;
}
function redoTarget() {
  const side = $('play').value;
  const last = S.history.length - 1;
  if (S.index >= last) return -1;
  if (!side) return S.index + 1;
  for (let i = S.index + 1; i < last; i++) if (sideAt(i) === side) return i;
  return last;
}
function undo() { const i = undoTarget(); if (i >= 0) goTo(i); }
function redo() { const i = redoTarget(); if (i >= 0) goTo(i, true); }

// ---------------------------------------------------------------------------------------------
// Drawing

const SVG = 'http://www.w3.org/2000/svg';
function el(name, attrs, parent, text) {
  const e = document.createElementNS(SVG, name);
  for (const [k, v] of Object.entries(attrs)) e.setAttribute(k, v);
  if (text !== undefined) e.textContent = text;
  if (parent) parent.appendChild(e);
  return e;
}

// The board is turned to the player's side: playing White, rank 1 is at the top and file a at
// the right.
function flipped() { return $('play').value === 'white'; }
function cellXY(p, f, r) {
  const col = flipped() ? p.cols - 1 - f : f;
  const row = flipped() ? r - 1 : p.rows - r;
  return { x: MARGIN + col * CELL, y: row * CELL };
}
function centre(p, name) {
  const s = sqParse(name);
  const c = cellXY(p, s.f, s.r);
  return { x: c.x + CELL / 2, y: c.y + CELL / 2 };
}

// The moves whose value may be shown now: all of them, or in practice the perfect one after
// the third hint.
function visibleMoves() {
  const a = S.answer;
  if (!a) return [];
  if (shownAll()) return a.moves;
  if (S.hint >= 3) return a.moves.filter((m) => m.move === a.best);
  return [];
}

function renderBoard(p) {
  const svg = $('board');
  svg.innerHTML = '';
  const w = MARGIN + p.cols * CELL + 6, h = p.rows * CELL + MARGIN;
  svg.setAttribute('viewBox', `0 0 ${w} ${h}`);
  svg.dataset.flipped = flipped() ? '1' : '0';
  const defs = el('defs', {}, svg);
  for (const kind of ['win', 'loss']) {
    const m = el('marker', { id: 'head-' + kind, viewBox: '0 0 10 10', refX: 6, refY: 5,
      markerWidth: 4, markerHeight: 4, orient: 'auto-start-reverse' }, defs);
    el('path', { d: 'M0,0 L10,5 L0,10 z', class: kind }, m);
  }
  const targets = new Set(S.selected
    ? S.legal.filter((m) => m.move.startsWith(S.selected + '-')).map((m) => m.move.split('-')[1])
    : []);
  // The last move: its squares outlined, the pieces it took shown fading, the piece sliding.
  const last = S.index > 0 ? S.history[S.index] : null;
  const before = last ? parsePos(S.history[S.index - 1].pos) : null;
  const lastSquares = new Set(last ? last.move.split('-') : []);
  const animating = S.anim && S.anim.index === S.index && performance.now() - S.anim.t0 < ANIM_MS;
  const pieces = {};
  for (let r = p.rows; r >= 1; r--) {
    for (let f = 0; f < p.cols; f++) {
      const name = sqName(f, r);
      const { x, y } = cellXY(p, f, r);
      const blackSquare = (f + p.rows - r) % 2 === 0;
      const g = el('g', { class: 'sq', 'data-square': name }, svg);
      el('rect', { x, y, width: CELL, height: CELL, class: blackSquare ? 'dark' : 'light' }, g);
      if (lastSquares.has(name)) {
        el('rect', { x: x + 2, y: y + 2, width: CELL - 4, height: CELL - 4, class: 'last' }, g);
      }
      const c = at(p, f, r);
      if (c !== '.') {
        pieces[name] = el('circle', { cx: x + CELL / 2, cy: y + CELL / 2, r: CELL * 0.36,
          class: 'piece ' + (c === 'x' ? 'black' : 'white') +
            (S.selected === name ? ' selected' : '') }, g);
      } else if (before && at(before, f, r) !== '.' && !lastSquares.has(name)) {
        // A piece the last move took: a faint mark where it stood.
        el('circle', { cx: x + CELL / 2, cy: y + CELL / 2, r: CELL * 0.12, class: 'taken' }, g);
        if (animating) {
          const ghost = el('circle', { cx: x + CELL / 2, cy: y + CELL / 2, r: CELL * 0.36,
            class: 'ghost ' + (at(before, f, r) === 'x' ? 'black' : 'white') }, g);
          animate(ghost, [{ opacity: 1 }, { opacity: 0 }], 'forwards');
        }
      }
      if (targets.has(name)) {
        el('circle', { cx: x + CELL / 2, cy: y + CELL / 2, r: CELL * 0.16, class: 'target' }, g);
      }
      g.addEventListener('click', () => clickSquare(name));
    }
  }
  if (last && animating) {
    const parts = last.move.split('-');
    if (parts.length === 2 && pieces[parts[1]]) {
      const a = centre(p, parts[0]), b = centre(p, parts[1]);
      animate(pieces[parts[1]], [{ transform: `translate(${a.x - b.x}px, ${a.y - b.y}px)` },
        { transform: 'translate(0px, 0px)' }]);
    } else if (parts.length === 1) {
      const s = sqParse(parts[0]);
      const c = centre(p, parts[0]);
      const ghost = el('circle', { cx: c.x, cy: c.y, r: CELL * 0.36,
        class: 'ghost ' + (at(before, s.f, s.r) === 'x' ? 'black' : 'white') }, svg);
      animate(ghost, [{ opacity: 1 }, { opacity: 0 }], 'forwards');
    }
  }
  for (let r = p.rows; r >= 1; r--) {
    const { y } = cellXY(p, 0, r);
    el('text', { x: 4, y: y + CELL / 2 + 4, class: 'coord' }, svg, String(r));
  }
  for (let f = 0; f < p.cols; f++) {
    const { x } = cellXY(p, f, 1);
    el('text', { x: x + CELL / 2 - 4, y: p.rows * CELL + 18, class: 'coord' }, svg, fileName(f));
  }
  const a = S.answer;
  if (a && practising() && !S.revealed && S.hint === 2 && a.best) {
    const c = centre(p, a.best.split('-')[0]);
    el('circle', { cx: c.x, cy: c.y, r: CELL * 0.44, class: 'hintfrom' }, svg);
  }
  if (!$('values').checked && shownAll()) return;
  for (const m of visibleMoves()) drawMove(p, m, a.best);
}

// Animates an element from the start of the last move, continuing where an earlier drawing of
// the same move left off (the board is redrawn when the answer comes).
function animate(e, frames, fill) {
  const anim = e.animate(frames, { duration: ANIM_MS, easing: 'ease-out', fill: fill || 'none' });
  anim.currentTime = Math.min(ANIM_MS, performance.now() - S.anim.t0);
}

// A move's arrow (a ring for a removal) coloured by its value, with its depth written where no
// piece stands: in the landing square (always empty) beside the arrow's head, or in the corner
// of a removal's square.
function drawMove(p, m, best) {
  const svg = $('board');
  const kind = m.value;
  const cls = kind + (m.move === best ? ' best' : '');
  const parts = m.move.split('-');
  if (parts.length === 1) {
    const c = centre(p, parts[0]);
    el('circle', { cx: c.x, cy: c.y, r: CELL * 0.42, class: 'removal ' + cls }, svg);
    el('text', { x: c.x - CELL / 2 + 1, y: c.y - CELL / 2 + 1, class: 'mlabel corner ' + kind,
      'data-move': m.move }, svg, String(m.depth));
    return;
  }
  const a = centre(p, parts[0]), b = centre(p, parts[1]);
  const dx = b.x - a.x, dy = b.y - a.y, len = Math.hypot(dx, dy);
  const ux = dx / len, uy = dy / len;
  el('line', { x1: a.x + ux * CELL * 0.2, y1: a.y + uy * CELL * 0.2,
    x2: b.x - ux * CELL * 0.22, y2: b.y - uy * CELL * 0.22, class: 'arrow ' + cls,
    'marker-end': `url(#head-${kind})` }, svg);
  // Each of the (at most four) moves into one square comes from its own side: the labels sit
  // in different quarters of the landing square.
  el('text', { x: b.x - ux * CELL * 0.25 - uy * CELL * 0.22, y: b.y - uy * CELL * 0.25 + ux * CELL * 0.22,
    class: 'mlabel ' + kind, 'data-move': m.move }, svg, String(m.depth));
}

function describe(value, depth) {
  if (value === 'loss' && depth === 0) return 'loss (no move)';
  return `${value} in ${depth} pl${depth === 1 ? 'y' : 'ies'}`;
}

function render() {
  const text = current();
  const p = parsePos(text);
  renderBoard(p);
  const a = S.answer;
  const all = shownAll();
  $('position').textContent = text;
  const side = $('play').value;
  $('tomove').textContent = sideName(p.side) +
    (side ? (side === (p.side === 'b' ? 'black' : 'white') ? ' (you)' : ' (the computer)') : '');
  let note = '—';
  for (let i = S.index; i > 0; i--) {
    if (S.history[i].engine) { note = `${S.history[i].move}: ${S.history[i].engine}`; break; }
  }
  $('engine').textContent = note;
  const hidden = 'hidden (practice)';
  $('value').textContent = !a ? (S.busy ? '…' : '—')
    : all ? describe(a.value, a.depth) + ' for ' + a.to_move
      : S.hint >= 1 ? `${a.value === 'win' ? 'won' : 'lost'} for ${a.to_move}` : hidden;
  $('value').className = a && (all || S.hint >= 1) ? a.value : '';
  // The game value tells who wins: hidden in practice like the value.
  const v = S.cgt;
  $('cgt').textContent = !v ? '…' : !all ? hidden
    : v.error ? (v.limit ? `not computed within ${VALUE_LIMIT.toLocaleString('en')} positions` : v.error)
      : describeValue(v);
  $('cgt').dataset.value = v && all && !v.error ? v.value : '';
  $('cgt').dataset.state = !v ? 'asking' : v.error ? (v.limit ? 'limit' : 'error') : 'valued';
  $('best').textContent = !a ? '—'
    : !a.best ? 'none: ' + a.to_move + ' has no move and loses'
      : all || S.hint >= 3 ? a.best
        : S.hint === 2 ? 'starts from ' + a.best.split('-')[0] : hidden;
  $('source').textContent = !a ? (S.busy ? '…' : 'none') : a.search
    ? `search (limit ${S.searchLimit.toLocaleString('en')} positions; searched ${a.search.positions.toLocaleString('en')})`
    : `table ${currentTable().file.split('/').pop()} (${S.board.name} ${S.rules})`;
  const ol = $('moves');
  ol.innerHTML = '';
  for (const m of (a ? a.moves : S.legal)) {
    const li = document.createElement('li');
    li.dataset.move = m.move;
    const show = a && (all || (S.hint >= 3 && m.move === a.best));
    if (show) {
      li.dataset.value = m.value;
      li.dataset.depth = m.depth;
      li.className = m.value + (m.move === a.best ? ' best' : '');
      li.textContent = `${m.move}  ${m.value} ${m.depth}${m.move === a.best ? '  ★ perfect' : ''}`;
    } else {
      li.textContent = m.move;
    }
    li.addEventListener('click', () => userMove(m.move));
    ol.appendChild(li);
  }
  $('line').textContent = !a ? '' : !all ? hidden
    : a.line.length ? a.line.join(' ') : '(none: the side to move has no move)';
  renderGame();
  renderResult(p);
  $('undo').disabled = undoTarget() < 0;
  $('redo').disabled = redoTarget() < 0;
  $('hint').disabled = !practising() || !a || !a.best || S.revealed || S.hint >= 3;
  $('reveal').disabled = !practising() || !a || S.revealed;
  $('hint').hidden = $('reveal').hidden = !practising();
  renderHintText(a);
  renderReview();
}

function renderHintText(a) {
  let t = '';
  if (practising() && a && !S.revealed) {
    const who = a.to_move === 'black' ? 'Black' : 'White';
    if (S.hint >= 1) t = `Hint 1: ${who}, to move, ${a.value === 'win' ? 'wins' : 'loses'} with perfect play.`;
    if (S.hint >= 2) t += ` Hint 2: the perfect move starts from ${a.best.split('-')[0]}.`;
    if (S.hint >= 3) t += ` Hint 3: ${a.best}.`;
  }
  $('hinttext').textContent = t;
}

// The record with move numbers (a number for each Black move, "1…" when White starts); the
// moves after the one shown (to redo) are greyed.
function renderGame() {
  const g = $('game');
  g.innerHTML = '';
  if (S.history.length === 1) { g.textContent = '(no move yet)'; return; }
  const blackFirst = parsePos(S.history[0].pos).side === 'b';
  const start = document.createElement('span');
  start.className = 'ply' + (S.index === 0 ? ' current' : '');
  start.textContent = 'start';
  start.dataset.ply = '0';
  start.addEventListener('click', () => goTo(0));
  g.appendChild(start);
  for (let i = 1; i < S.history.length; i++) {
    const blackMoves = blackFirst ? i % 2 === 1 : i % 2 === 0;
    const number = Math.floor((i + (blackFirst ? 1 : 2)) / 2);
    if (blackMoves || i === 1) {
      const n = document.createElement('span');
      n.className = 'num';
      n.textContent = ' ' + number + (blackMoves ? '.' : '…');
      g.appendChild(n);
    }
    const s = document.createElement('span');
    s.className = 'ply' + (i === S.index ? ' current' : '') + (i > S.index ? ' future' : '');
    s.dataset.ply = String(i);
    s.dataset.move = S.history[i].move;
    s.textContent = S.history[i].move;
    s.addEventListener('click', () => goTo(i));
    g.appendChild(document.createTextNode(' '));
    g.appendChild(s);
    if (S.history[i].engine) {  // how the computer chose the move, beside it
      s.title = S.history[i].engine;
      const n = document.createElement('small');
      n.className = 'note';
      n.textContent = ' (' + S.history[i].engine + ')';
      g.appendChild(n);
    }
  }
}

function renderResult(p) {
  const r = $('result');
  if (S.busy || S.legal.length || !(S.answer || S.index > 0)) { r.textContent = ''; return; }
  const loser = sideName(p.side), winner = sideName(p.side === 'b' ? 'w' : 'b');
  const plies = S.index;
  const from = S.start === S.full ? '' : ' from the start position';
  r.textContent = `Game over: ${winner} wins after ${plies} pl${plies === 1 ? 'y' : 'ies'}${from}; ` +
    `${loser}, to move, has no jump.`;
}

// ---------------------------------------------------------------------------------------------
// Moves by click and by typing

function myTurn() {
  const side = $('play').value;
  return !side || (S.answer ? S.answer.to_move : sideAt(S.index)) === side;
}

function userMove(move) {
  if (S.busy) return;
  if (!myTurn()) { setMessage("It is the computer's turn."); return; }
  play(move);
}

function clickSquare(name) {
  if (S.busy || !myTurn()) return;
  const legal = S.legal.map((m) => m.move);
  if (legal.includes(name)) return play(name);  // a removal
  if (S.selected && legal.includes(S.selected + '-' + name)) return play(S.selected + '-' + name);
  S.selected = legal.some((m) => m.startsWith(name + '-')) && S.selected !== name ? name : null;
  render();
}

// A typed move: "c5-c3", "c5 c3", "C5c3" or a removal "c3", matched against the legal moves.
function typedMove(text) {
  const t = text.trim().toLowerCase().replace(/\s*[-x\s]\s*/g, '-');
  const m = /^([a-z]+\d+)-?([a-z]+\d+)?$/.exec(t);
  if (!m) { setMessage(`"${text}": write a move as c5-c3, or a square to remove (c3)`); return; }
  const move = m[2] ? m[1] + '-' + m[2] : m[1];
  if (S.busy) return;
  if (!myTurn()) { setMessage("It is the computer's turn."); return; }
  if (!S.legal.some((l) => l.move === move)) {
    setMessage(`${move} is not a legal move here; the legal moves: ` +
      (S.legal.map((l) => l.move).join(' ') || 'none'));
    return;
  }
  $('moveinput').value = '';
  play(move);
}

// ---------------------------------------------------------------------------------------------
// Review: every move of the game up to the position shown, judged by the table (/api/analyse,
// the facts of `konane analyse`).

async function showReview() {
  const t = currentTable();
  $('reviewbox').hidden = false;
  if (!t) {
    S.review = { error: `the review needs a table of ${S.board.name} ${S.rules}; none is served` };
    renderReview();
    return;
  }
  const index = S.index;
  const r = await getJson('/api/analyse?' + query({ board: S.board.name, rules: S.rules,
    start: S.start !== S.full ? S.start : undefined, game: record(index) }));
  S.review = r.status === 200 ? r.body : { error: r.body.error };
  S.reviewIndex = index;
  renderReview();
  $('reviewbox').dataset.ready = '1';
}

function verdict(m) {
  if (m.mistake) return ['mistake', `mistake: the win went to ${m.mover === 'black' ? 'White' : 'Black'}`];
  if (!m.inaccurate) return ['perfect', 'perfect'];
  return m.before.value === 'win' ? ['slower', 'winning but slower'] : ['faster', 'losing faster'];
}

function renderReview() {
  const box = $('reviewbox');
  const rv = S.review;
  if (!rv) { box.hidden = true; return; }
  box.hidden = false;
  const table = $('review');
  table.innerHTML = '';
  if (rv.error) { $('reviewsummary').textContent = rv.error; $('reviewnote').textContent = ''; return; }
  const side = $('play').value;
  $('reviewnote').textContent = side ? `(your moves as ${sideName(side)})` : '(every move)';
  const mine = rv.moves.filter((m) => !side || m.mover === side);
  const count = (k) => mine.filter((m) => verdict(m)[0] === k).length;
  $('reviewsummary').textContent = `${mine.length} move${mine.length === 1 ? '' : 's'}: ` +
    `${count('perfect')} perfect, ${count('slower') + count('faster')} slower to win or faster to lose, ` +
    `${count('mistake')} mistake${count('mistake') === 1 ? '' : 's'}. At the start ${rv.winner_at_start} wins; ` +
    (rv.final.game_over ? `at the end ${rv.final.winner} has won.` : `now ${rv.final.winner} wins with perfect play.`);
  const head = table.insertRow();
  for (const h of ['Ply', 'Mover', 'Played', 'Verdict', 'Perfect move']) {
    const th = document.createElement('th');
    th.textContent = h;
    head.appendChild(th);
  }
  for (const m of rv.moves) {
    const row = table.insertRow();
    row.dataset.ply = m.ply;
    const judged = !side || m.mover === side;
    const [kind, words] = verdict(m);
    if (judged) row.dataset.verdict = kind;
    row.className = judged ? kind : 'other';
    const played = `${m.move} (${describe(m.move_value.value, m.move_value.depth)})`;
    const best = kind === 'perfect' ? '' : `${m.best} (${describe(m.best_value.value, m.best_value.depth)})`;
    for (const v of [m.ply, m.mover, played, judged ? words : 'the table', judged ? best : '']) {
      row.insertCell().textContent = String(v);
    }
    row.addEventListener('click', () => goTo(m.ply - 1));
  }
}

// ---------------------------------------------------------------------------------------------
// Openings

async function showOpenings() {
  const t = currentTable();
  const table = $('openings');
  table.innerHTML = '';
  $('verdict').textContent = '';
  $('showopenings').hidden = true;
  if (!t) {
    $('openingsnote').textContent = `(no table of ${S.board.name} ${S.rules} is served)`;
    return;
  }
  $('openingsnote').textContent = `(${t.board} ${t.rules}; depth in plies from the full board)`;
  const r = await getJson('/api/openings?' + query({ board: t.board, rules: t.rules }));
  if (currentTable() !== t) return;
  if (r.status !== 200) { $('verdict').textContent = r.body.error; return; }
  S.openings = r.body;
  renderOpenings();
}

function renderOpenings() {
  const o = S.openings;
  const t = currentTable();
  const table = $('openings');
  table.innerHTML = '';
  if (!o || !t || o.board !== t.board || o.rules !== t.rules) return;
  const shown = !practising() || S.openingsShown;
  $('showopenings').hidden = shown;
  const winning = new Set(o.best_replies.filter((c) => c.winner === 'black').map((c) => c.black));
  const bestReply = new Set(o.best_replies.map((c) => c.black + ' ' + c.white));
  // The table counts from Black's first jump; the page from the full board (two removals more).
  $('verdict').textContent = !shown ? "The winners are hidden (practice)."
    : o.best
      ? `${sideName(o.winner)} wins with perfect play: Black removes ${o.best.black}` +
        (o.best.white ? `, White's best reply ${o.best.white}` : '') +
        `, ${o.best.depth + 2} plies from the full board. Bold: Black's winning removals.`
      : 'Black has no removal and loses.';
  const head = table.insertRow();
  for (const h of shown ? ['Black removes', 'White replies', 'Winner', 'Depth', ''] : ['Black removes', 'White replies']) {
    const th = document.createElement('th');
    th.textContent = h;
    head.appendChild(th);
  }
  for (const l of o.openings) {
    const row = table.insertRow();
    row.dataset.black = l.black;
    row.dataset.white = l.white;
    const cells = [l.black, l.white];
    if (shown) {
      if (winning.has(l.black)) row.className = 'winning';
      const notes = [];
      if (bestReply.has(l.black + ' ' + l.white)) notes.push("White's best reply");
      if (o.best && o.best.black === l.black && o.best.white === l.white) notes.push('★ perfect opening');
      cells.push(l.winner, l.depth + 2, notes.join(', '));
    }
    for (const v of cells) row.insertCell().textContent = String(v);
    row.addEventListener('click', () => loadRecord(t.board, t.rules, null, l.black + ' ' + l.white));
  }
}

// ---------------------------------------------------------------------------------------------
// Board, ruleset, paste box

function renderPickers() {
  const bs = $('boardsel'), rs = $('rulessel');
  const boards = [...new Set(S.tables.map((t) => t.board))];
  // Without a table, the usual boards (the engine and the searches answer them).
  if (!S.tables.length) boards.push(...DEFAULT_BOARDS);
  if (S.board && !boards.includes(S.board.name)) boards.push(S.board.name);
  bs.innerHTML = '';
  for (const b of boards) {
    const o = document.createElement('option');
    o.value = b;
    o.textContent = tablesOf(b).length ? b : b + (S.tables.length ? ' (no table: search)' : '');
    bs.appendChild(o);
  }
  bs.value = S.board.name;
  const served = tablesOf(S.board.name).map((t) => t.rules);
  const rules = served.length ? served : RULESETS;
  if (!rules.includes(S.rules)) rules.push(S.rules);
  rs.innerHTML = '';
  for (const r of rules) {
    const o = document.createElement('option');
    o.value = r;
    o.textContent = served.length && !served.includes(r) ? r + ' (no table: search)' : r;
    rs.appendChild(o);
  }
  rs.value = S.rules;
}

// Loads a game from its record (moves from `start`, or the full board) on a board and ruleset.
async function loadRecord(boardName, rules, start, moves, index) {
  const g = await gameFor(boardName, rules, start, moves || '');
  if (g.error) { setMessage(g.error); return false; }
  const [rows, cols] = boardName.split('x').map(Number);
  if (!start) fullBoards[boardName] = g.start;
  const full = await loadFullBoard(boardName, rules);
  if (!full) { setMessage('no full board for ' + boardName); return false; }
  setMessage('');
  newGame({ rows, cols, name: boardName }, g.rules, g.start, g.plies, index);
  return true;
}

// The ruleset for a board: the current one when a table of the board has it, else the first
// table's of the board, else the current one (the board is then answered by search).
function rulesFor(boardName) {
  const ts = tablesOf(boardName);
  if (!ts.length || ts.some((t) => t.rules === S.rules)) return S.rules;
  return ts[0].rules;
}

async function loadPasted(text) {
  text = text.trim();
  if (!text) return;
  if (/^[xo.\/]+\s+[bw]$/i.test(text)) {
    const p = parsePos(text);
    if (!p) { setMessage('position: every row must have the same length'); return; }
    const name = boardName(p.rows, p.cols);
    await loadRecord(name, rulesFor(name), text, '');
    return;
  }
  // A game record from the full board: of the current board, or of the board named first
  // ("4x6 a1 b1 ..."). A board no table holds is answered by search, never another table.
  let name = S.board.name;
  const m = /^(\d+)\s*x\s*(\d+)[:\s]\s*(.*)$/i.exec(text);
  if (m) { name = boardName(+m[1], +m[2]); text = m[3]; }
  await loadRecord(name, rulesFor(name), null, text);
}

// ---------------------------------------------------------------------------------------------
// Start

function hintStep() {
  if (!S.answer || !S.answer.best || S.hint >= 3) return;
  S.hint++;
  render();
}

async function init() {
  const r = await getJson('/api/tables');
  S.tables = r.body.tables || [];
  S.searchLimit = r.body.search_limit;
  $('boardsel').addEventListener('change', async () => {
    const name = $('boardsel').value;
    await loadRecord(name, rulesFor(name), null, '');
  });
  $('rulessel').addEventListener('change', () => loadRecord(S.board.name, $('rulessel').value, null, ''));
  $('new').addEventListener('click', () => loadRecord(S.board.name, S.rules, null, ''));
  $('undo').addEventListener('click', undo);
  $('redo').addEventListener('click', redo);
  $('hint').addEventListener('click', hintStep);
  $('reveal').addEventListener('click', () => { S.revealed = true; render(); });
  $('reviewbtn').addEventListener('click', showReview);
  $('showopenings').addEventListener('click', () => { S.openingsShown = true; renderOpenings(); });
  $('play').addEventListener('change', () => { updateUrl(); render(); maybeReply(); });
  $('practice').addEventListener('change', () => { updateUrl(); render(); renderOpenings(); });
  $('values').addEventListener('change', render);
  $('moveform').addEventListener('submit', (e) => { e.preventDefault(); typedMove($('moveinput').value); });
  $('pasteform').addEventListener('submit', (e) => { e.preventDefault(); loadPasted($('paste').value); });
  document.addEventListener('keydown', (e) => {
    if (e.target.tagName === 'INPUT' || e.target.tagName === 'SELECT' || e.altKey || e.ctrlKey || e.metaKey) return;
    if (e.key === 'ArrowLeft') undo();
    else if (e.key === 'ArrowRight') redo();
    else if (e.key === 'Home') goTo(0);
    else if (e.key === 'End') goTo(S.history.length - 1);
    else return;
    e.preventDefault();
  });
  // Every field of a shared link is checked: a bad one is named on the page and left out, and
  // the rest of the link still opens (the board, the game, the ply shown).
  const url = new URLSearchParams(location.search);
  const problems = [];
  const bad = (field, why) => {
    const v = url.get(field);
    problems.push(`${field}=${v.length > 40 ? v.slice(0, 40) + '...' : v}: ${why}`);
  };
  const play = url.get('play');
  if (play === 'black' || play === 'white') $('play').value = play;
  else if (play !== null && play !== '') bad('play', 'not black or white');
  const practice = url.get('practice');
  $('practice').checked = practice === '1';
  if (practice !== null && practice !== '0' && practice !== '1') bad('practice', 'not 0 or 1');
  // The start: start= (or position=, the links of earlier versions), else the full board.
  const startField = url.has('start') ? 'start' : 'position';
  let start = url.get(startField);
  const given = start ? parsePos(start) : null;
  if (start && !given) {
    bad(startField, 'not a position (rows of x, o and . separated by /, then b or w)');
    start = null;
  }
  let name = url.get('board');
  if (name !== null && !/^[1-9][0-9]?x[1-9][0-9]?$/.test(name)) {
    bad('board', 'not a board size RxC');
    name = null;
  }
  name = name || (given ? boardName(given.rows, given.cols) : null) ||
    (S.tables.length ? S.tables[0].board : '8x8');
  if (given && boardName(given.rows, given.cols) !== name) {
    problems.push(`the start position is not a ${name} position`);
    name = boardName(given.rows, given.cols);
  }
  let rules = url.get('rules');
  if (rules !== null && !RULESETS.includes(rules)) {
    bad('rules', 'not brainking, center or any');
    rules = null;
  }
  rules = rules || rulesFor(name);
  let at;
  if (url.has('at')) {
    if (/^[0-9]{1,6}$/.test(url.get('at'))) at = Number(url.get('at'));
    else bad('at', 'not a move number (the last position of the game is shown)');
  }
  if (!(await loadRecord(name, rules, start, url.get('game') || '', at))) {
    problems.push('the game: ' + $('message').textContent);
    const first = S.tables[0];
    await loadRecord(first ? first.board : name, first ? first.rules : rules, null, '');
  }
  if (problems.length) {
    S.linkNotice = { request: S.request, text: 'The link: ' + problems.join('; ') + '.' };
    setMessage(S.linkNotice.text);
  }
}

init();
