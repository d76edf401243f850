// The mat as SVG, drawn from the table (GET /api/table, or the stream's view) and the game's look
// (GET /api/games/{name}/look): each piece by its form, colour, letter and exits, which the look
// gives; nothing here knows a game. Directions are 0 north, 1 east, 2 south, 3 west, of the piece
// at turn 0; `turn` quarter turns clockwise.
import { html, svg as el } from "./dom.js";
import { ntr, tr } from "./words.js";

const TRACK = "#3e2723";
const PLAIN = "#777";
const MIN_PX = 11;  // no board text smaller than this on the screen
let floor = 0;  // the least font size in the drawing's units while a board is drawn (0: any)

// About how wide a text is at font size `n` (DejaVu Sans' widths, a little generous).
function textWidth(words, n, bold) {
  let em = 0;
  for (const c of String(words)) em += /[A-Z&]/.test(c) ? 0.74 : /[0-9]/.test(c) ? 0.64 : c === " " ? 0.32 : /[ilt.,:]/.test(c) ? 0.36 : 0.6;
  return em * n * (bold ? 1.08 : 1);
}

// Text of `size` at (x, y) in `room` units of width, at least the floor; a little too wide at
// the floor, its letters pressed closer (never smaller); still too wide, set on its side in
// `tall` units, else left out (the close-up and the table in words say it whole). Returns
// whether it was drawn.
const SQUEEZE = 1.25;  // how much wider than its room a text may be before it is pressed to fit
function label(g, x, y, words, size, room, attrs = {}, tall = 0) {
  const wide = (n) => textWidth(words, n, attrs["font-weight"] === "bold");
  const n = Math.max(floor, Math.min(size, room / wide(1)));
  if (wide(n) <= room * SQUEEZE) {
    pressed(g, el("text", {x, y: y + (n - size) * 0.35, "text-anchor": "middle", ...attrs, "font-size": n}, words),
            room, wide(n));
    return true;
  }
  const m = Math.max(floor, Math.min(size, tall / wide(1)));
  if (tall && wide(m) <= tall * SQUEEZE) {
    pressed(g, el("text", {x, y, "text-anchor": "middle", "dominant-baseline": "central", ...attrs,
                           "font-size": m, transform: `rotate(-90 ${x} ${y})`}, words), tall, wide(m));
    return true;
  }
  return false;
}

// A text into `g`, its letters pressed to `room` where it is wider (measured where the page
// shows it, else as estimated).
function pressed(g, t, room, guess) {
  g.appendChild(t);
  let real = 0;
  try { real = t.getComputedTextLength(); } catch (e) { real = 0; }
  if ((real || guess) > room * 1.01) {
    t.setAttribute("textLength", room);
    t.setAttribute("lengthAdjust", "spacingAndGlyphs");
  }
}

// A piece the look does not name (a card file of one's own): a plain card with its name's words.
function unknown(p) {
  return {form: "card", colour: PLAIN, words: p.identity.replaceAll("_", " ").split(" ").slice(0, 3)};
}

function lookUp(look, p) {
  const key = `${p.kind}:${p.identity}` + (p.face ? ":" + p.face : "");
  return (look && look.pieces && look.pieces[key]) || unknown(p);
}

// Where direction `d`, turned `turn`, meets the edge of a box `rx` by `ry` around (cx, cy).
function edge(cx, cy, rx, ry, d, turn) {
  return [[cx, cy - ry], [cx + rx, cy], [cx, cy + ry], [cx - rx, cy]][(d + turn) % 4];
}

function tile(g, p, look, loc) {
  const s = Math.min(loc.w, loc.h);
  const cx = loc.x, cy = loc.y;
  const owned = Boolean(look.colour);
  g.appendChild(el("rect", {x: cx - s * 0.45, y: cy - s * 0.45, width: s * 0.9, height: s * 0.9,
                            fill: owned ? "#efe7dc" : "#a1887f", rx: 2}));
  if (owned) {  // the owner's colour fills a corner: art is filled, marks are outlines
    g.appendChild(el("path", {d: `M ${cx + s * 0.45} ${cy - s * 0.45} h ${-s * 0.42} L ${cx + s * 0.45} ${cy - s * 0.03} Z`,
                              fill: look.colour}));
  }
  for (const exit of look.exits || []) {
    const [x, y] = edge(cx, cy, s * 0.45, s * 0.45, exit, p.turn);
    g.appendChild(el("line", {x1: cx, y1: cy, x2: x, y2: y, stroke: TRACK,
                              "stroke-width": s * 0.12, "stroke-linecap": "round"}));
  }
  if (look.letter) {
    const n = Math.max(s * 0.2, floor);
    g.appendChild(el("text", {x: cx + s * 0.45 - n * 0.45, y: cy - s * 0.45 + n * 0.85, "text-anchor": "middle",
                              "font-size": n, "font-weight": "bold", fill: look.colour || "#000",
                              stroke: "#fff", "stroke-width": n * 0.12, "paint-order": "stroke"}, look.letter));
  }
}

function token(g, p, look, loc) {
  const s = Math.min(loc.w, loc.h);
  const cx = loc.x, cy = loc.y;
  g.appendChild(el("circle", {cx, cy, r: s * 0.3, fill: look.colour,
                              stroke: look.cap === "black" ? "#000" : "#555",
                              "stroke-width": look.cap === "black" ? 3 : 1.2,
                              "stroke-dasharray": look.cap === "white" ? "3 2" : "none"}));
  if (look.heading) {
    const a = (p.turn % 4) * Math.PI / 2;
    g.appendChild(el("path", {d: `M ${cx + Math.sin(a) * s * 0.47} ${cy - Math.cos(a) * s * 0.47}
                                 L ${cx + Math.sin(a + 0.5) * s * 0.3} ${cy - Math.cos(a + 0.5) * s * 0.3}
                                 L ${cx + Math.sin(a - 0.5) * s * 0.3} ${cy - Math.cos(a - 0.5) * s * 0.3} Z`,
                              fill: "#000"}));
  }
  const n = Math.max(s * 0.28, floor);
  g.appendChild(el("text", {x: cx, y: cy + n * 0.36, "text-anchor": "middle", "font-size": n,
                            "font-weight": "bold", fill: look.ink}, look.letter));
}

function chasm(g, p, look, loc) {
  const s = Math.min(loc.w, loc.h);
  const cx = loc.x, cy = loc.y;
  g.appendChild(el("rect", {x: cx - s * 0.4, y: cy - s * 0.4, width: s * 0.8, height: s * 0.8,
                            fill: "#111", stroke: look.colour, "stroke-width": 3}));
  label(g, cx, cy + s * 0.1, "▼" + look.letter, s * 0.28, s * 0.8, {fill: "#fff"});
}

function station(g, p, look, loc) {
  g.appendChild(el("rect", {x: loc.x - loc.w * 0.45, y: loc.y - loc.h * 0.45, width: loc.w * 0.9,
                            height: loc.h * 0.9, fill: look.colour || "#555", rx: 3}));
  label(g, loc.x, loc.y + loc.h * 0.2, look.letter, loc.h * 0.55, loc.w * 0.9, {fill: "#fff", "font-weight": "bold"});
}

// A rail card lying in its slot: each track joins its exits (two: a straight line or a curve;
// more: all meet in the middle); `over` crosses an earlier track on a bridge; stubs end short.
function rail(g, p, look, loc) {
  const at = (d) => edge(loc.x, loc.y, loc.w * 0.45, loc.h * 0.45, d, p.turn);
  g.appendChild(el("rect", {x: loc.x - loc.w * 0.47, y: loc.y - loc.h * 0.47, width: loc.w * 0.94,
                            height: loc.h * 0.94, fill: "#fffdf5", stroke: "#555", rx: 3}));
  const track = {stroke: TRACK, "stroke-width": Math.min(loc.w, loc.h) * 0.09,
                 fill: "none", "stroke-linecap": "round"};
  for (const t of look.tracks || []) {
    if (t.exits.length === 2) {
      const [a, b] = t.exits.map(at);
      const straight = Math.abs(t.exits[0] - t.exits[1]) === 2;
      const d = straight ? `M ${a[0]} ${a[1]} L ${b[0]} ${b[1]}`
                         : `M ${a[0]} ${a[1]} Q ${loc.x} ${loc.y} ${b[0]} ${b[1]}`;
      if (t.over) g.appendChild(el("path", {...track, d, stroke: "#fffdf5", "stroke-width": track["stroke-width"] * 2.2}));
      g.appendChild(el("path", {...track, d}));
    } else {
      for (const exit of t.exits) {
        const [x, y] = at(exit);
        g.appendChild(el("line", {...track, x1: x, y1: y, x2: loc.x, y2: loc.y}));
      }
    }
  }
  for (const exit of look.stubs || []) {
    const [x, y] = at(exit);
    const sx = x + (loc.x - x) * 0.45, sy = y + (loc.y - y) * 0.45;
    g.appendChild(el("line", {...track, x1: x, y1: y, x2: sx, y2: sy}));
    g.appendChild(el("circle", {cx: sx, cy: sy, r: track["stroke-width"] * 0.9, fill: "#b00020"}));
  }
}

// A card: its colour as a filled band, its words large enough to read at the card's own size
// (the first word, company or suit, across the band; the value big below it).
function card(g, p, look, loc) {
  const w = loc.w * 0.9, h = loc.h * 0.9, left = loc.x - w / 2, top = loc.y - h / 2;
  g.appendChild(el("rect", {x: left, y: top, width: w, height: h, fill: "#fffdf5", stroke: "#555",
                            "stroke-width": Math.max(0.6, w * 0.02), rx: Math.min(w, h) * 0.06}));
  const band = Math.min(h * 0.3, w * 0.55);
  g.appendChild(el("rect", {x: left, y: top, width: w, height: band, fill: look.colour || PLAIN,
                            rx: Math.min(w, h) * 0.06}));
  const words = (look.words || []).filter(Boolean);
  const fit = (text, size) => Math.min(size, (w * 0.92) / Math.max(1, text.length * 0.58));
  if (words[0]) label(g, loc.x, top + band * 0.72, words[0], fit(words[0], band * 0.7), w * 0.94,
                      {"font-weight": "bold", fill: "#fff"});
  const rest = words.slice(1);
  const at = (i) => top + band + (h - band) * (rest.length === 1 ? 0.5 : i === 0 ? 0.3 : 0.72);
  const fitted = rest.map((word, i) => fit(word, i === 0 ? (h - band) * 0.38 : (h - band) * 0.2));
  if (floor && rest.some((word, i) => textWidth(word, Math.max(fitted[i], floor), i === 0) > w * 0.94)) {
    // too narrow for the words across: all of them along the card, one line each
    const n = Math.max(floor, Math.min(...fitted));
    rest.forEach((word, i) => label(g, loc.x + (i - (rest.length - 1) / 2) * n * 1.1, top + band + (h - band) / 2,
                                    word, n, 0, {"font-weight": i === 0 ? "bold" : "normal"}, (h - band) * 0.98));
  } else {
    rest.forEach((word, i) => label(g, loc.x, at(i) + fitted[i] * 0.35, word, fitted[i], w * 0.94,
                                    {"font-weight": i === 0 ? "bold" : "normal"}));
  }
}

const FORMS = {tile, token, chasm, station, rail, card};
const ON_TOP = {chasm: 1, token: 2};  // a minecart or wagon on its track tile, not under it

// The pieces of one place in the order they are drawn: tiles and cards first, tokens on top.
function underFirst(pieces, look) {
  const layer = (p) => ON_TOP[lookUp(look, p).form] || 0;
  return [...pieces].sort((a, b) => layer(a) - layer(b));
}

export function drawPiece(p, look, loc) {
  const g = el("g", {"aria-hidden": "true"});
  const seen = lookUp(look, p);
  (FORMS[seen.form] || card)(g, p, seen, loc);
  return g;
}

const TAP_PX = 23;  // the least side of a square or card on screen: large enough to tap
const CARD_PX = 40;  // the least side of a card slot on a board of slots (Trick of the Rails): its words legible

// The short name written on an empty place that is not on the board's grid: its number, else
// its name ("trick lane space 4": 4).
function shortName(place) {
  const words = place.replace(/^the /, "").split(" ");
  const last = words[words.length - 1];
  return /\d/.test(last) ? last : place.replace(/^the /, "");
}

// The board's coordinates on every edge: column names above and below, row names either side.
// A label that would lie on a card or slot beside the grid (Derailed!'s stations) moves out past
// it, and all the labels of that edge with it, so that they stay in one line. Returns the box
// [left, top, right, bottom] the labels take, to fit the drawing around.
function drawAxes(svg, axes, size, others) {
  if (!axes || !axes.box) return null;
  const [left, top, right, bottom] = axes.box;
  const attrs = {class: "coord", "font-size": size, "text-anchor": "middle"};
  const pad = size * 0.75;
  const wide = (name) => size * 0.62 * name.length + size * 0.2;
  const hits = ([x, y, w, h]) => others.filter((l) => Math.abs(l.x - x) < (l.w + w) / 2 && Math.abs(l.y - y) < (l.h + h) / 2);
  const xEdge = (l, out) => l.x + out * l.w / 2;
  const yEdge = (l, out) => l.y + out * l.h / 2;
  // The centre of one label, from `start` outward (`out` -1 or +1) past whatever lies there.
  const outward = (start, out, boxAt, edgeOf) => {
    let v = start;
    for (let n = 0; n < 8; n++) {
      const hit = hits(boxAt(v));
      if (!hit.length) break;
      const edges = hit.map((l) => edgeOf(l, out));
      v = (out < 0 ? Math.min(...edges) : Math.max(...edges)) + out * pad;
    }
    return v;
  };
  const furthest = (values, out) => (out < 0 ? Math.min(...values) : Math.max(...values));
  const rowsAt = (start, out) => furthest(axes.rows.map((r) => outward(start, out, (x) => [x, r.y, wide(r.name), size], xEdge)), out);
  const columnsAt = (start, out) => furthest(axes.columns.map((c) => outward(start, out, (y) => [c.x, y, wide(c.name), size], yEdge)), out);
  // every label of an edge in one line: the one pushed furthest sets it
  const xl = rowsAt(left - pad, -1), xr = rowsAt(right + pad, 1);
  const yt = columnsAt(top - pad, -1), yb = columnsAt(bottom + pad, 1);
  for (const c of axes.columns) {
    svg.appendChild(el("text", {...attrs, x: c.x, y: yt + size * 0.35}, c.name));
    svg.appendChild(el("text", {...attrs, x: c.x, y: yb + size * 0.35}, c.name));
  }
  for (const r of axes.rows) {
    svg.appendChild(el("text", {...attrs, x: xl, y: r.y + size * 0.35}, r.name));
    svg.appendChild(el("text", {...attrs, x: xr, y: r.y + size * 0.35}, r.name));
  }
  const widest = Math.max(0, ...axes.rows.map((r) => wide(r.name))) / 2;
  return [xl - widest, yt - size * 0.6, xr + widest, yb + size * 0.6];
}

// Labels with their counts: "red wagon ×3", not the same words three times.
export function counted(labels) {
  const n = new Map();
  labels.forEach((l) => n.set(l, (n.get(l) || 0) + 1));
  return [...n.entries()].map(([l, k]) => (k > 1 ? `${l} ×${k}` : l)).join(", ");
}

// The whole mat into `svg`; with `wordsList`, the table in words too (for a screen reader);
// `onTap(loc, pieces)` when a place is tapped.
// ---- things with no marker (jewels on a deposit, in a minecart's hold; a speed die): filled
// shapes, each jewel by its own shape and colour; more than three of a kind: one with its count.
const GEM_PATHS = {  // around (0, 0), within a radius of 1
  rock: "M -0.9 0.3 L -0.6 -0.6 L 0.2 -0.9 L 0.9 -0.3 L 0.8 0.6 L 0 0.9 L -0.7 0.8 Z",
  ruby: "M 0 -1 L 0.9 0 L 0 1 L -0.9 0 Z",
  emerald: "M -0.45 -0.9 L 0.45 -0.9 L 0.8 -0.45 L 0.8 0.45 L 0.45 0.9 L -0.45 0.9 L -0.8 0.45 L -0.8 -0.45 Z",
  gold: "M -1 0.7 L -0.55 -0.55 L 0.55 -0.55 L 1 0.7 Z",
  diamond: "M -1 -0.35 L -0.55 -0.85 L 0.55 -0.85 L 1 -0.35 L 0 1 Z",
};
const PIPS = {1: [[0, 0]], 2: [[-1, -1], [1, 1]], 3: [[-1, -1], [0, 0], [1, 1]],
              4: [[-1, -1], [1, -1], [-1, 1], [1, 1]], 5: [[-1, -1], [1, -1], [0, 0], [-1, 1], [1, 1]],
              6: [[-1, -1], [1, -1], [-1, 0], [1, 0], [-1, 1], [1, 1]]};

function gem(g, seen, x, y, r, count) {
  g.appendChild(el("path", {class: "gem", d: GEM_PATHS[seen.shape] || GEM_PATHS.rock, fill: seen.colour,
                            stroke: "#222", "stroke-width": 0.12, transform: `translate(${x} ${y}) scale(${r})`}));
  if (count > 1) {
    const n = Math.max(r * 1.1, floor);
    g.appendChild(el("circle", {cx: x + r * 0.8, cy: y - r * 0.7, r: n * 0.62, fill: "#000"}));
    g.appendChild(el("text", {class: "count", x: x + r * 0.8, y: y - r * 0.7 + n * 0.36, "text-anchor": "middle",
                              "font-size": n, "font-weight": "bold", fill: "#fff"}, String(count)));
  }
}

function die(g, value, x, y, side) {
  g.appendChild(el("rect", {class: "die", x: x - side / 2, y: y - side / 2, width: side, height: side,
                            rx: side * 0.18, fill: "#fff", stroke: "#222", "stroke-width": side * 0.07}));
  for (const [px, py] of PIPS[value] || []) {
    g.appendChild(el("circle", {cx: x + px * side * 0.27, cy: y + py * side * 0.27, r: side * 0.1, fill: "#222"}));
  }
  if (!PIPS[value]) label(g, x, y + side * 0.3, String(value), side * 0.8, side);
}

// One place's goods: the deposit's jewels fill the square (its lower part under a minecart),
// the hold's along its top, the speed die in a corner.
export function drawGoods(g, goods, look, loc) {
  if (!goods || !goods.items.length) return;
  const s = Math.min(loc.w, loc.h);
  const kinds = (look && look.goods) || {};
  const marks = (kind) => goods.items.filter((i) => i.kind === kind)
    .flatMap((i) => (i.count <= 3 ? Array(i.count).fill([i.identity, 1]) : [[i.identity, i.count]]));
  const carted = goods.items.some((i) => i.kind === "die");
  const row = (list, y, most, left, right) => {
    const r = Math.min(most, (right - left) / (2.25 * Math.max(1, list.length)));
    const step = list.length > 1 ? Math.min(r * 2.3, (right - left - 2 * r) / (list.length - 1)) : 0;
    const start = loc.x - (step * (list.length - 1)) / 2;
    list.forEach(([id, n], i) => gem(g, kinds[id] || {shape: id, colour: PLAIN}, start + i * step, y, r, n));
  };
  const deposit = marks("jewel");
  const left = loc.x - s * 0.44, right = loc.x + s * 0.44;
  if (carted) {
    row(deposit, loc.y + s * 0.36, s * 0.1, left, right);
    const hold = marks("hold");
    if (hold.length) {
      g.appendChild(el("rect", {x: left, y: loc.y - s * 0.47, width: s * 0.62, height: s * 0.22, rx: s * 0.04,
                                fill: "#3e2723", opacity: 0.85}));
      row(hold, loc.y - s * 0.36, s * 0.09, left, left + s * 0.62);
    }
    const d = goods.items.find((i) => i.kind === "die");
    die(g, d.count, loc.x + s * 0.34, loc.y - s * 0.34, s * 0.24);
  } else if (deposit.length > 2) {
    row(deposit.slice(0, Math.ceil(deposit.length / 2)), loc.y - s * 0.21, s * 0.19, left, right);
    row(deposit.slice(Math.ceil(deposit.length / 2)), loc.y + s * 0.21, s * 0.19, left, right);
  } else {
    row(deposit, loc.y, s * 0.22, left, right);
  }
}

// The scale the board will be shown at, in px a unit: the frame's width, or wider to scroll.
function shownScale(svg, w, least) {
  const frame = svg.parentElement;
  const fw = (frame && frame.clientWidth ? frame.clientWidth : document.documentElement.clientWidth - 24) - 2;
  return Math.max(fw, least) / w;
}

// The whole mat into `svg`; with `wordsList`, the table in words too (for a screen reader);
// `onTap(loc, pieces, goods)` when a place is tapped. Drawn again at a larger least font where
// the first drawing came out smaller on the screen than MIN_PX.
export function drawBoard(svg, t, look, wordsList, onTap) {
  let want = 0;
  for (let pass = 0; pass < 4; pass++) {
    const got = drawOnce(svg, t, look, wordsList, onTap, want);
    if (!got || got.floor * got.scale >= MIN_PX - 0.01) break;
    want = MIN_PX / got.scale;
  }
  floor = 0;
  const frame = svg.parentElement;
  if (frame && frame.classList.contains("frame")) followScroll(frame);
}

// A cue where the board goes on past the frame's edge: a fade on that side, and a hint.
function followScroll(frame) {
  const update = () => {
    const more = frame.scrollWidth - frame.clientWidth > 2;
    frame.parentElement.classList.toggle("more-right", more && frame.scrollLeft + frame.clientWidth < frame.scrollWidth - 2);
    frame.parentElement.classList.toggle("more-left", more && frame.scrollLeft > 2);
    const hint = document.getElementById("scroll-hint");
    if (hint) hint.hidden = !more;
  };
  if (!frame.dataset.follows) {
    frame.dataset.follows = "1";
    frame.addEventListener("scroll", update, {passive: true});
    window.addEventListener("resize", update);
  }
  update();
}

function drawOnce(svg, t, look, wordsList, onTap, want) {
  svg.replaceChildren();
  if (wordsList) wordsList.replaceChildren();
  if (!t) { svg.setAttribute("aria-label", tr("no game with a table is open")); return null; }
  const last = new Set(t.last_move || []);
  const marked = new Set(t.marked || []);
  const felt = new Set(t.felt || []);  // the board felt a piece here; the camera is still looking
  const allGoods = t.goods || {};
  const grid = new Set(((t.axes && t.axes.columns) || []).length ? t.locations
    .filter((l) => /^[A-Z]{1,2}\d{1,2}$/.test(l.name)).map((l) => l.name) : []);
  const placeOf = (name) => (t.locations.find((l) => l.name === name) || {place: name}).place || name;
  const box = [Infinity, Infinity, -Infinity, -Infinity];
  for (const l of t.locations) {
    box[0] = Math.min(box[0], l.x - l.w / 2); box[1] = Math.min(box[1], l.y - l.h / 2);
    box[2] = Math.max(box[2], l.x + l.w / 2); box[3] = Math.max(box[3], l.y + l.h / 2);
  }
  const smallest = Math.min(...t.locations.map((l) => Math.min(l.w, l.h)));
  const tap = grid.size ? TAP_PX : CARD_PX;
  const cell = grid.size ? Math.min(...t.locations.filter((l) => grid.has(l.name)).map((l) => Math.min(l.w, l.h))) : 0;
  const guess = box[2] - box[0] + 12 + (grid.size ? cell * 1.6 : 0);
  floor = Math.max(want, MIN_PX / shownScale(svg, guess, guess * tap / smallest));
  for (const loc of t.locations) {
    const isMarked = marked.has(loc.name);
    const isFelt = felt.has(loc.name) && !isMarked;
    const cls = "loc" + (isMarked ? (t.alert ? " alert" : " marked") : isFelt ? " felt" : last.has(loc.name) ? " last" : "");
    const place = loc.place || loc.name;
    const g = el("g", {"data-name": loc.name, "data-place": place, class: "place"});
    g.appendChild(el("rect", {class: cls, x: loc.x - loc.w / 2, y: loc.y - loc.h / 2,
                              width: loc.w, height: loc.h}));
    const pieces = t.pieces[loc.name] || [];
    const goods = allGoods[loc.name] || null;
    const said = [counted(pieces.map((p) => p.label)), goods ? goods.words : ""].filter(Boolean).join("; ");
    const empty = tr("empty");
    g.appendChild(el("title", {}, tr("{place}: {what}", {place, what: said || empty})));
    if (!pieces.length && !goods && !grid.has(loc.name)) {
      const short = shortName(place);
      const size = Math.min(loc.h * 0.22, (loc.w * 0.9) / Math.max(2, short.length * 0.6));
      const attrs = {class: "slot-name"};
      if (!label(g, loc.x, loc.y + size * 0.35, short, size, loc.w * 0.92, attrs, loc.h * 0.92)) {
        const words = short.split(" ");  // one word a line, on its side where it is narrow
        const n = floor;
        const across = words.every((word) => textWidth(word, n) <= loc.w * 0.92 * SQUEEZE) && words.length * n * 1.15 <= loc.h;
        const fits = words.every((word) => textWidth(word, n) <= loc.h * 0.92 * SQUEEZE) && words.length * n * 1.15 <= loc.w;
        if (across) words.forEach((word, i) => label(g, loc.x, loc.y + (i - (words.length - 1) / 2) * n * 1.15 + n * 0.35,
                                                     word, n, loc.w * 0.92, attrs));
        else if (fits) words.forEach((word, i) => label(g, loc.x + (i - (words.length - 1) / 2) * n * 1.15, loc.y, word, n,
                                         0, attrs, loc.h * 0.92));
      }
    }
    underFirst(pieces, look).forEach((p) => g.appendChild(drawPiece(p, look, loc)));
    drawGoods(g, goods, look, loc);
    const markSize = Math.max(Math.min(loc.w, loc.h) * 0.34, floor);
    if (isMarked) g.appendChild(el("text", {class: "mark", x: loc.x - loc.w / 2 + 1, y: loc.y - loc.h / 2 + markSize,
                                            "font-size": markSize, fill: t.alert ? "#b00020" : "#8a5a00"}, t.alert ? "✗" : "!"));
    else if (last.has(loc.name)) g.appendChild(el("text", {class: "mark", x: loc.x - loc.w / 2 + 1,
                                                          y: loc.y - loc.h / 2 + markSize, "font-size": markSize,
                                                          fill: "#0d47a1"}, "●"));
    if (onTap) g.addEventListener("click", () => onTap(loc, pieces, goods));
    svg.appendChild(g);
    if (wordsList && (said || isMarked || isFelt || last.has(loc.name))) {
      const notes = [isMarked ? (t.alert ? tr("(not legal)") : tr("(to do)")) : "",
        isFelt ? tr("(a piece felt here: checking it)") : "", last.has(loc.name) ? tr("(last move)") : ""];
      const line = tr("{place}: {what}", {place, what: said || empty});
      wordsList.appendChild(html("li", {}, [line, ...notes.filter(Boolean)].join(" ")));
    }
  }
  const labels = drawAxes(svg, t.axes, Math.max(cell * 0.42, floor), t.locations.filter((l) => !grid.has(l.name)));
  // The drawing fits what is on the mat (a mat for six lanes played by two shows two), with room
  // for the coordinates.
  if (labels) labels.forEach((v, i) => { box[i] = i < 2 ? Math.min(box[i], v) : Math.max(box[i], v); });
  const margin = 6;
  const [x0, y0] = [box[0] - margin, box[1] - margin];
  const [w, h] = [box[2] - box[0] + 2 * margin, box[3] - box[1] + 2 * margin];
  svg.setAttribute("viewBox", `${x0} ${y0} ${w} ${h}`);
  const least = Math.round(w * tap / smallest);
  svg.style.minWidth = least + "px";  // wider: the frame scrolls
  const pieces = Object.values(t.pieces).reduce((n, ps) => n + ps.length, 0);
  const placesOf = (names) => [...names].map(placeOf).join(", ");
  const about = [ntr("the table: {count} piece", "the table: {count} pieces", pieces),
    last.size ? tr("last move at {places}", {places: placesOf(last)}) : "",
    marked.size ? tr("look at {places}", {places: placesOf(marked)}) : "",
    felt.size ? tr("a piece felt at {places}, being checked", {places: placesOf(felt)}) : ""];
  svg.setAttribute("aria-label", about.filter(Boolean).join("; ") + ". " + tr("The table in words follows."));
  return {floor, scale: shownScale(svg, w, least)};
}

// One place drawn large (a close-up of a square or a card, to read it whole), its goods too.
export function drawCloseUp(svg, loc, pieces, look, goods) {
  svg.replaceChildren();
  floor = 0;
  const pad = Math.max(loc.w, loc.h) * 0.05;
  svg.setAttribute("viewBox", `${loc.x - loc.w / 2 - pad} ${loc.y - loc.h / 2 - pad} ${loc.w + 2 * pad} ${loc.h + 2 * pad}`);
  svg.style.minWidth = "";
  svg.appendChild(el("rect", {class: "loc", x: loc.x - loc.w / 2, y: loc.y - loc.h / 2, width: loc.w, height: loc.h}));
  underFirst(pieces, look).forEach((p) => svg.appendChild(drawPiece(p, look, loc)));
  drawGoods(svg, goods, look, loc);
}
