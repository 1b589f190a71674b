// The page of `konane serve`: a board, every legal move coloured by its value, the perfect line,
// undo and redo, the position in the URL, the openings, a paste box, search for positions no
// table holds, and play against the table. It talks only to the JSON API of the same server.
'use strict';

const S = {
  tables: [],        // /api/tables
  searchLimit: 0,
  rules: 'brainking', // ruleset of the current game
  history: [],       // [{pos: text, move: text or null (the move that led here)}]
  index: 0,          // current entry of history
  answer: null,      // /api/probe or /api/solve answer for the current position
  selected: null,    // square name of the piece picked up
  request: 0,        // number of the latest request (older answers are dropped)
  busy: false,
};

const $ = (id) => document.getElementById(id);
const CELL = 60, MARGIN = 26;

// ---------------------------------------------------------------------------------------------
// Positions in the notation of the command line: rows from the top rank down, '/' between,
// then ' b' or ' w' for the side to move. Black's squares: (file + R - rank) even.

function parsePos(text) {
  const m = /^\s*([xo.\/]+)\s+([bw])\s*$/i.exec(text);
  if (!m) return null;
  const grid = m[1].toLowerCase().split('/').map((r) => r.split(''));
  const cols = grid[0].length;
  if (grid.some((r) => r.length !== cols)) return null;
  return { rows: grid.length, cols, grid, side: m[2].toLowerCase() };
}

function posText(p) {
  return p.grid.map((r) => r.join('')).join('/') + ' ' + p.side;
}

function startText(rows, cols) {
  const out = [];
  for (let i = 0; i < rows; i++) {
    let r = '';
    for (let f = 0; f < cols; f++) r += (f + i) % 2 === 0 ? 'x' : 'o';
    out.push(r);
  }
  return out.join('/') + ' b';
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
function put(p, f, r, c) { p.grid[p.rows - r][f] = c; }

// The position after a legal move ("c3": a removal; "c5-c3": a jump, possibly several in one
// straight line, every other square on the way being a captured piece).
function applyMove(text, move) {
  const p = parsePos(text);
  const parts = move.split('-');
  if (parts.length === 1) {
    const s = sqParse(parts[0]);
    put(p, s.f, s.r, '.');
  } else {
    const a = sqParse(parts[0]), b = sqParse(parts[1]);
    const df = Math.sign(b.f - a.f), dr = Math.sign(b.r - a.r);
    const n = Math.max(Math.abs(b.f - a.f), Math.abs(b.r - a.r));
    const piece = at(p, a.f, a.r);
    put(p, a.f, a.r, '.');
    for (let k = 1; k < n; k += 2) put(p, a.f + k * df, a.r + k * dr, '.');
    put(p, b.f, b.r, piece);
  }
  p.side = p.side === 'b' ? 'w' : 'b';
  return posText(p);
}

// ---------------------------------------------------------------------------------------------
// The API

async function getJson(path) {
  const res = await fetch(path, { cache: 'no-store' });
  let body = null;
  try { body = await res.json(); } catch (e) { body = { error: 'answer is not JSON (HTTP ' + res.status + ')' }; }
  return { status: res.status, body };
}

function query(params) {
  return Object.entries(params).map(([k, v]) => k + '=' + encodeURIComponent(v)).join('&');
}

function tableFor(p) {
  if (!p) return null;
  return S.tables.find((t) => t.rows === p.rows && t.cols === p.cols && t.rules === S.rules) ||
    null;
}

// The answer for a position: the table's (/api/probe), else a search (/api/solve).
async function answerFor(text) {
  const r = await getJson('/api/probe?' + query({ position: text, rules: S.rules }));
  if (r.status === 200) return { answer: r.body, source: 'table' };
  if (r.status !== 404) return { error: r.body.error };
  const s = await getJson('/api/solve?' + query({ position: text, rules: S.rules }));
  if (s.status === 200) return { answer: s.body, source: 'search', note: r.body.error };
  return { error: r.body.error + '. Search: ' + s.body.error };
}

// ---------------------------------------------------------------------------------------------
// Navigation

function current() { return S.history[S.index].pos; }

function setMessage(text, info) {
  $('message').textContent = text || '';
  $('message').className = info ? 'info' : '';
}

function updateUrl() {
  const params = { position: current(), rules: S.rules };
  if ($('play').value) params.play = $('play').value;
  history.replaceState(null, '', '?' + query(params));
}

async function show() {
  const id = ++S.request;
  S.selected = null;
  S.answer = null;
  S.busy = true;
  document.body.dataset.state = 'loading';
  updateUrl();
  render();
  const text = current();
  const r = await answerFor(text);
  if (id !== S.request) return;  // a newer position was asked for meanwhile
  S.busy = false;
  if (r.error) {
    setMessage(r.error);
  } else {
    S.answer = r.answer;
    S.source = r.source;
    setMessage(r.source === 'search'
      ? 'No table holds this position: answered by search (limit ' +
        S.searchLimit.toLocaleString('en') + ' positions).' : '', true);
  }
  render();
  document.body.dataset.state = 'ready';
  maybeReply();
}

function play(move) {
  S.history = S.history.slice(0, S.index + 1);
  S.history.push({ pos: applyMove(current(), move), move });
  S.index++;
  show();
}

function reset(text) {
  S.history = [{ pos: text, move: null }];
  S.index = 0;
  show();
}

function sideName(c) { return c === 'b' ? 'black' : 'white'; }

// In play mode, the table answers each of the player's moves with the perfect move.
function maybeReply() {
  const mode = $('play').value;
  const a = S.answer;
  if (!mode || !a || !a.best) return;
  if (a.to_move === mode) return;
  const id = S.request;
  document.body.dataset.state = 'replying';
  setTimeout(() => {
    if (id === S.request && S.answer === a) play(a.best);
  }, 350);
}

function undo() { if (S.index > 0) { S.index--; show(); } }
function redo() { if (S.index + 1 < S.history.length) { S.index++; show(); } }

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

function centre(p, name) {
  const s = sqParse(name);
  return { x: MARGIN + s.f * CELL + CELL / 2, y: (p.rows - s.r) * CELL + CELL / 2 };
}

function renderBoard(p) {
  const svg = $('board');
  svg.innerHTML = '';
  const w = MARGIN + p.cols * CELL + 6, h = p.rows * CELL + MARGIN;
  svg.setAttribute('viewBox', `0 0 ${w} ${h}`);
  const defs = el('defs', {}, svg);
  for (const kind of ['win', 'loss']) {
    const m = el('marker', { id: 'head-' + kind, viewBox: '0 0 10 10', refX: 6, refY: 5,
      markerWidth: 4, markerHeight: 4, orient: 'auto-start-reverse' }, defs);
    el('path', { d: 'M0,0 L10,5 L0,10 z', class: kind }, m);
  }
  const legal = (S.answer && S.answer.moves) || [];
  const targets = new Set(S.selected
    ? legal.filter((m) => m.move.startsWith(S.selected + '-')).map((m) => m.move.split('-')[1])
    : []);
  for (let r = p.rows; r >= 1; r--) {
    const y = (p.rows - r) * CELL;
    el('text', { x: 4, y: y + CELL / 2 + 4, class: 'coord' }, svg, String(r));
    for (let f = 0; f < p.cols; f++) {
      const name = sqName(f, r);
      const x = MARGIN + f * CELL;
      const blackSquare = (f + p.rows - r) % 2 === 0;
      const g = el('g', { class: 'sq', 'data-square': name }, svg);
      el('rect', { x, y, width: CELL, height: CELL, class: blackSquare ? 'dark' : 'light' }, g);
      const c = at(p, f, r);
      if (c !== '.') {
        el('circle', { cx: x + CELL / 2, cy: y + CELL / 2, r: CELL * 0.36,
          class: 'piece ' + (c === 'x' ? 'black' : 'white') +
            (S.selected === name ? ' selected' : '') }, g);
      }
      if (targets.has(name)) {
        el('circle', { cx: x + CELL / 2, cy: y + CELL / 2, r: CELL * 0.16, class: 'target' }, g);
      }
      g.addEventListener('click', () => clickSquare(name));
    }
  }
  for (let f = 0; f < p.cols; f++) {
    el('text', { x: MARGIN + f * CELL + CELL / 2 - 4, y: p.rows * CELL + 18, class: 'coord' }, svg,
      fileName(f));
  }
  if (!$('hints').checked || !S.answer) return;
  const best = S.answer.best;
  for (const m of legal) {
    const kind = m.value;
    const cls = kind + (m.move === best ? ' best' : '');
    const parts = m.move.split('-');
    if (parts.length === 1) {
      const c = centre(p, parts[0]);
      el('circle', { cx: c.x, cy: c.y, r: CELL * 0.42, class: 'removal ' + cls }, svg);
      el('text', { x: c.x - 8, y: c.y - CELL * 0.22, class: 'mlabel ' + kind }, svg,
        String(m.depth));
    } else {
      const a = centre(p, parts[0]), b = centre(p, parts[1]);
      const dx = b.x - a.x, dy = b.y - a.y, len = Math.hypot(dx, dy);
      const sx = a.x + dx / len * CELL * 0.2, sy = a.y + dy / len * CELL * 0.2;
      const ex = b.x - dx / len * CELL * 0.22, ey = b.y - dy / len * CELL * 0.22;
      el('line', { x1: sx, y1: sy, x2: ex, y2: ey, class: 'arrow ' + cls,
        'marker-end': `url(#head-${kind})` }, svg);
      // The depth just past the moving piece, beside the arrow: labels of different moves do
      // not meet where arrows cross or share a landing square.
      const ux = dx / len, uy = dy / len;
      const lx = a.x + ux * CELL * 0.62 - uy * 11 - 7, ly = a.y + uy * CELL * 0.62 + ux * 11 + 5;
      el('text', { x: lx, y: ly, class: 'mlabel ' + kind }, svg, String(m.depth));
    }
  }
}

function describe(value, depth) {
  if (value === 'loss' && depth === 0) return 'loss (no move)';
  return `${value} in ${depth} pl${depth === 1 ? 'y' : 'ies'}`;
}

function render() {
  const text = current();
  const p = parsePos(text);
  renderBoard(p);
  $('position').textContent = text;
  $('tomove').textContent = sideName(p.side);
  const a = S.answer;
  const t = tableFor(p);
  $('value').textContent = a ? describe(a.value, a.depth) + ' for ' + a.to_move
    : (S.busy ? '…' : '—');
  $('value').className = a ? a.value : '';
  $('best').textContent = a ? (a.best || 'none: ' + a.to_move + ' has no move and loses') : '—';
  $('source').textContent = !a ? '—' : a.search
    ? `search (limit ${S.searchLimit.toLocaleString('en')} positions; searched ${a.search.positions.toLocaleString('en')})`
    : `table ${t ? t.file.split('/').pop() : ''} (${p.rows}x${p.cols} ${S.rules})`;
  const ol = $('moves');
  ol.innerHTML = '';
  for (const m of (a ? a.moves : [])) {
    const li = document.createElement('li');
    li.dataset.move = m.move;
    li.dataset.value = m.value;
    li.dataset.depth = m.depth;
    li.className = m.value + (m.move === a.best ? ' best' : '');
    li.textContent = `${m.move}  ${m.value} ${m.depth}${m.move === a.best ? '  ★ perfect' : ''}`;
    li.addEventListener('click', () => play(m.move));
    ol.appendChild(li);
  }
  $('line').textContent = a ? (a.line.length ? a.line.join(' ') : '(none: the side to move has no move)') : '';
  const moves = S.history.slice(1, S.index + 1).map((h) => h.move);
  $('game').textContent = moves.length ? moves.join(' ') : '(no move yet)';
  $('undo').disabled = S.index === 0;
  $('redo').disabled = S.index + 1 >= S.history.length;
  const sel = $('table');
  sel.value = t ? String(S.tables.indexOf(t)) : '';
}

function clickSquare(name) {
  const a = S.answer;
  if (!a || S.busy) return;
  const mode = $('play').value;
  if (mode && a.to_move !== mode) return;  // the table's turn
  const legal = a.moves.map((m) => m.move);
  if (legal.includes(name)) return play(name);  // a removal
  if (S.selected && legal.includes(S.selected + '-' + name)) return play(S.selected + '-' + name);
  S.selected = legal.some((m) => m.startsWith(name + '-')) && S.selected !== name ? name : null;
  render();
}

// ---------------------------------------------------------------------------------------------
// Openings

async function showOpenings() {
  const p = parsePos(current());
  const t = tableFor(p);
  const table = $('openings');
  table.innerHTML = '';
  $('verdict').textContent = '';
  if (!t) {
    $('openingsnote').textContent = '(no table for this board and ruleset)';
    return;
  }
  $('openingsnote').textContent = `(${t.board} ${t.rules}; depth in plies from Black's first jump)`;
  const r = await getJson('/api/openings?' + query({ board: t.board, rules: t.rules }));
  if (r.status !== 200) { $('verdict').textContent = r.body.error; return; }
  const o = r.body;
  const winning = new Set(o.best_replies.filter((c) => c.winner === 'black').map((c) => c.black));
  const bestReply = new Set(o.best_replies.map((c) => c.black + ' ' + c.white));
  $('verdict').textContent = o.best
    ? `${o.winner} wins with perfect play: Black removes ${o.best.black}` +
      (o.best.white ? `, White's best reply ${o.best.white}` : '') +
      `, ${o.best.depth} plies from Black's first jump. Bold: Black's winning removals.`
    : 'Black has no removal and loses.';
  const head = table.insertRow();
  for (const h of ['Black removes', 'White replies', 'Winner', 'Depth', '']) {
    const th = document.createElement('th');
    th.textContent = h;
    head.appendChild(th);
  }
  for (const l of o.openings) {
    const row = table.insertRow();
    row.dataset.black = l.black;
    row.dataset.white = l.white;
    if (winning.has(l.black)) row.className = 'winning';
    const notes = [];
    if (bestReply.has(l.black + ' ' + l.white)) notes.push("White's best reply");
    if (o.best && o.best.black === l.black && o.best.white === l.white) notes.push('★ perfect opening');
    for (const v of [l.black, l.white, l.winner, l.depth, notes.join(', ')]) {
      row.insertCell().textContent = String(v);
    }
    row.addEventListener('click', () => {
      const start = startText(p.rows, p.cols);
      const afterBlack = applyMove(start, l.black);
      S.history = [{ pos: start, move: null }, { pos: afterBlack, move: l.black },
        { pos: applyMove(afterBlack, l.white), move: l.white }];
      S.index = 2;
      show();
    });
  }
}

// ---------------------------------------------------------------------------------------------
// Controls

function chooseTable(i) {
  const t = S.tables[i];
  if (!t) return;
  S.rules = t.rules;
  reset(startText(t.rows, t.cols));
  showOpenings();
}

async function loadPasted(text) {
  text = text.trim();
  if (!text) return;
  if (/^[xo.\/]+\s+[bw]$/i.test(text)) {
    const p = parsePos(text);
    if (!p) { setMessage('position: every row must have the same length'); return; }
    const before = tableFor(parsePos(current()));
    reset(posText(p));
    if (tableFor(p) !== before) showOpenings();
    return;
  }
  // A game record from the full board of the current table.
  const p = parsePos(current());
  const t = tableFor(p) || S.tables[0];
  const r = await getJson('/api/probe?' + query({ game: text, board: t.board, rules: t.rules }));
  if (r.status === 400 || (r.status === 404 && /no table/.test(r.body.error))) {
    setMessage(r.body.error);
    return;
  }
  S.rules = t.rules;
  let pos = startText(t.rows, t.cols);
  S.history = [{ pos, move: null }];
  for (const m of text.split(/\s+/)) {
    pos = applyMove(pos, m);
    S.history.push({ pos, move: m });
  }
  S.index = S.history.length - 1;
  show();
  showOpenings();
}

async function init() {
  const r = await getJson('/api/tables');
  S.tables = r.body.tables;
  S.searchLimit = r.body.search_limit;
  const sel = $('table');
  S.tables.forEach((t, i) => {
    const o = document.createElement('option');
    o.value = String(i);
    o.textContent = `${t.board} ${t.rules}`;
    sel.appendChild(o);
  });
  const none = document.createElement('option');
  none.value = '';
  none.textContent = '(no table: search)';
  none.disabled = true;
  sel.appendChild(none);
  sel.addEventListener('change', () => chooseTable(parseInt(sel.value, 10)));
  $('new').addEventListener('click', () => {
    const p = parsePos(current());
    reset(startText(p.rows, p.cols));
  });
  $('undo').addEventListener('click', undo);
  $('redo').addEventListener('click', redo);
  $('play').addEventListener('change', () => { updateUrl(); maybeReply(); });
  $('hints').addEventListener('change', render);
  $('pasteform').addEventListener('submit', (e) => { e.preventDefault(); loadPasted($('paste').value); });
  document.addEventListener('keydown', (e) => {
    if (e.target.tagName === 'INPUT') return;
    if (e.key === 'ArrowLeft') undo();
    if (e.key === 'ArrowRight') redo();
  });
  const url = new URLSearchParams(location.search);
  if (url.get('play') === 'black' || url.get('play') === 'white') $('play').value = url.get('play');
  if (url.get('rules')) S.rules = url.get('rules');
  const given = url.get('position') && parsePos(url.get('position'));
  if (url.get('position') && !given) setMessage('position in the URL: not a position: ' + url.get('position'));
  if (given) {
    reset(posText(given));
  } else if (S.tables.length) {
    S.rules = S.tables[0].rules;
    reset(startText(S.tables[0].rows, S.tables[0].cols));
  }
  showOpenings();
}

init();
