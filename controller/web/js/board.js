// The mat as SVG, drawn from the table (GET /api/table, or the stream's view) and the game's look
// (GET /api/games/{name}/look): each piece by its form, colour, letter and exits, which the look
// gives; nothing here knows a game. Directions are 0 north, 1 east, 2 south, 3 west, of the piece
// at turn 0; `turn` quarter turns clockwise.
import { html, svg as el } from "./dom.js";

const TRACK = "#3e2723";
const PLAIN = "#777";

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
  if (look.letter) g.appendChild(el("text", {x: cx + s * 0.32, y: cy - s * 0.24, "text-anchor": "middle",
                                             "font-size": s * 0.2, "font-weight": "bold",
                                             fill: look.ink || "#fff"}, look.letter));
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
  g.appendChild(el("text", {x: cx, y: cy + s * 0.1, "text-anchor": "middle", "font-size": s * 0.28,
                            "font-weight": "bold", fill: look.ink}, look.letter));
}

function chasm(g, p, look, loc) {
  const s = Math.min(loc.w, loc.h);
  const cx = loc.x, cy = loc.y;
  g.appendChild(el("rect", {x: cx - s * 0.4, y: cy - s * 0.4, width: s * 0.8, height: s * 0.8,
                            fill: "#111", stroke: look.colour, "stroke-width": 3}));
  g.appendChild(el("text", {x: cx, y: cy + s * 0.1, "text-anchor": "middle", "font-size": s * 0.28,
                            fill: "#fff"}, "▼" + look.letter));
}

function station(g, p, look, loc) {
  g.appendChild(el("rect", {x: loc.x - loc.w * 0.45, y: loc.y - loc.h * 0.45, width: loc.w * 0.9,
                            height: loc.h * 0.9, fill: look.colour || "#555", rx: 3}));
  g.appendChild(el("text", {x: loc.x, y: loc.y + loc.h * 0.2, "text-anchor": "middle", fill: "#fff",
                            "font-size": loc.h * 0.55, "font-weight": "bold"}, look.letter));
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
  if (words[0]) g.appendChild(el("text", {x: loc.x, y: top + band * 0.72, "text-anchor": "middle",
                                          "font-weight": "bold", fill: "#fff",
                                          "font-size": fit(words[0], band * 0.7)}, words[0]));
  words.slice(1).forEach((word, i) =>
    g.appendChild(el("text", {x: loc.x, y: top + band + (h - band) * (i === 0 ? 0.45 : 0.8),
                              "text-anchor": "middle", "font-weight": i === 0 ? "bold" : "normal",
                              "font-size": fit(word, i === 0 ? (h - band) * 0.38 : (h - band) * 0.2)}, word)));
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

const TAP_PX = 26;  // the least side of a square or card on screen: large enough to tap

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
export function drawBoard(svg, t, look, wordsList, onTap) {
  svg.replaceChildren();
  if (wordsList) wordsList.replaceChildren();
  if (!t) { svg.setAttribute("aria-label", "no game with a table is open"); return; }
  const last = new Set(t.last_move || []);
  const marked = new Set(t.marked || []);
  const felt = new Set(t.felt || []);  // the board felt a piece here; the camera is still looking
  const grid = new Set(((t.axes && t.axes.columns) || []).length ? t.locations
    .filter((l) => /^[A-Z]{1,2}\d{1,2}$/.test(l.name)).map((l) => l.name) : []);
  const placeOf = (name) => (t.locations.find((l) => l.name === name) || {place: name}).place || name;
  for (const loc of t.locations) {
    const isMarked = marked.has(loc.name);
    const isFelt = felt.has(loc.name) && !isMarked;
    const cls = "loc" + (isMarked ? (t.alert ? " alert" : " marked") : isFelt ? " felt" : last.has(loc.name) ? " last" : "");
    const place = loc.place || loc.name;
    const g = el("g", {"data-name": loc.name, "data-place": place, class: "place"});
    g.appendChild(el("rect", {class: cls, x: loc.x - loc.w / 2, y: loc.y - loc.h / 2,
                              width: loc.w, height: loc.h}));
    const pieces = t.pieces[loc.name] || [];
    const said = counted(pieces.map((p) => p.label));
    g.appendChild(el("title", {}, place + ": " + (said || "empty")));
    if (!pieces.length && !grid.has(loc.name)) {
      const short = shortName(place);
      const size = Math.min(loc.h * 0.22, (loc.w * 0.9) / Math.max(2, short.length * 0.6));
      g.appendChild(el("text", {class: "slot-name", x: loc.x, y: loc.y + size * 0.35,
                                "text-anchor": "middle", "font-size": size}, short));
    }
    underFirst(pieces, look).forEach((p) => g.appendChild(drawPiece(p, look, loc)));
    const markSize = Math.min(loc.w, loc.h) * 0.34;
    if (isMarked) g.appendChild(el("text", {class: "mark", x: loc.x - loc.w / 2 + 1, y: loc.y - loc.h / 2 + markSize,
                                            "font-size": markSize, fill: t.alert ? "#b00020" : "#8a5a00"}, t.alert ? "✗" : "!"));
    else if (last.has(loc.name)) g.appendChild(el("text", {class: "mark", x: loc.x - loc.w / 2 + 1,
                                                          y: loc.y - loc.h / 2 + markSize, "font-size": markSize,
                                                          fill: "#0d47a1"}, "●"));
    if (onTap) g.addEventListener("click", () => onTap(loc, pieces));
    svg.appendChild(g);
    if (wordsList && (said || isMarked || isFelt || last.has(loc.name))) {
      const notes = (isMarked ? (t.alert ? " (not legal)" : " (to do)") : "") + (isFelt ? " (a piece felt here: checking it)" : "") +
        (last.has(loc.name) ? " (last move)" : "");
      wordsList.appendChild(html("li", {}, `${place}: ${said || "empty"}${notes}`));
    }
  }
  const cell = grid.size ? Math.min(...t.locations.filter((l) => grid.has(l.name)).map((l) => Math.min(l.w, l.h))) : 0;
  const labels = drawAxes(svg, t.axes, cell * 0.42, t.locations.filter((l) => !grid.has(l.name)));
  // The drawing fits what is on the mat (a mat for six lanes played by two shows two), with room
  // for the coordinates.
  const box = [Infinity, Infinity, -Infinity, -Infinity];
  for (const l of t.locations) {
    box[0] = Math.min(box[0], l.x - l.w / 2); box[1] = Math.min(box[1], l.y - l.h / 2);
    box[2] = Math.max(box[2], l.x + l.w / 2); box[3] = Math.max(box[3], l.y + l.h / 2);
  }
  if (labels) labels.forEach((v, i) => { box[i] = i < 2 ? Math.min(box[i], v) : Math.max(box[i], v); });
  const margin = 6;
  const [x0, y0] = [box[0] - margin, box[1] - margin];
  const [w, h] = [box[2] - box[0] + 2 * margin, box[3] - box[1] + 2 * margin];
  svg.setAttribute("viewBox", `${x0} ${y0} ${w} ${h}`);
  const smallest = Math.min(...t.locations.map((l) => Math.min(l.w, l.h)));
  svg.style.minWidth = Math.round(w * TAP_PX / smallest) + "px";  // wider: the frame scrolls
  const pieces = Object.values(t.pieces).reduce((n, ps) => n + ps.length, 0);
  svg.setAttribute("aria-label", `the table: ${pieces} pieces` +
    (last.size ? `; last move at ${[...last].map(placeOf).join(", ")}` : "") +
    (marked.size ? `; look at ${[...marked].map(placeOf).join(", ")}` : "") +
    (felt.size ? `; a piece felt at ${[...felt].map(placeOf).join(", ")}, being checked` : "") + ". The table in words follows.");
}

// One place drawn large (a close-up of a square or a card, to read it whole).
export function drawCloseUp(svg, loc, pieces, look) {
  svg.replaceChildren();
  const pad = Math.max(loc.w, loc.h) * 0.05;
  svg.setAttribute("viewBox", `${loc.x - loc.w / 2 - pad} ${loc.y - loc.h / 2 - pad} ${loc.w + 2 * pad} ${loc.h + 2 * pad}`);
  svg.style.minWidth = "";
  svg.appendChild(el("rect", {class: "loc", x: loc.x - loc.w / 2, y: loc.y - loc.h / 2, width: loc.w, height: loc.h}));
  underFirst(pieces, look).forEach((p) => svg.appendChild(drawPiece(p, look, loc)));
}
