// Everything around the mat, drawn from the state: the header (game, turn, phase, who you are),
// the verdict with its steps and the referee's question, your moves, the scores and your private
// part, the last events, the end of a game; and the tone and vibration that mark your turn, a
// question and an alert. Every line comes from the Pi already in players' words.
import { $, html, nameTag, playerName, playersOf, svg as el } from "./dom.js";
import { drawPiece } from "./board.js";
import { listed, ntr, tr } from "./words.js";

// The game as the stream's view names it (or /api/status, before the first view came).
export function gameOf(state) {
  return state.view ? state.view.game : state.health ? state.health.game : null;
}

const mySeatOf = (state) => (state.role === "seat" ? state.seat : null);

export function drawHeader(state) {
  const mySeat = mySeatOf(state);
  const me = $("me");
  me.replaceChildren();
  me.className = "badge";
  me.dataset.role = state.role || "";  // who this phone is, for a test in any language
  me.dataset.seat = mySeat === null ? "" : String(mySeat);
  const players = playersOf(state);
  if (state.health) {
    if (mySeat !== null && players[mySeat]) {
      const [before, after] = tr("you are {player}").split("{player}");
      if (before) me.appendChild(document.createTextNode(before));
      me.appendChild(nameTag(players[mySeat], false));
      if (after) me.appendChild(document.createTextNode(after));
    } else {
      me.textContent = state.role === "seat" ? tr("you are player {number}", {number: mySeat + 1}) :
        state.role === "host" ? tr("host") : state.role === "spectator" ? tr("spectator") : state.role;
    }
  }
  const g = gameOf(state);
  if (!state.view && !state.health) return;
  $("title").textContent = g ? g.title : state.view && state.view.finished ? state.view.finished.title : "railtable";
  const turn = !g ? (state.view && state.view.finished ? tr("game over") : tr("no game open")) :
    g.current_player === -1 ? tr("the table draws") : g.current_player === null ? tr("game over") :
    g.current_player === mySeat ? tr("your turn, {player}", {player: playerName(state, mySeat)}) :
    tr("{player}'s turn", {player: playerName(state, g.current_player)});
  $("turn").textContent = turn;
  $("turn").className = "badge" + (g && mySeat !== null && g.current_player === mySeat ? " myturn" : "");
  const st = state.view ? state.view.state : null;
  $("phase").textContent = st && st.phase ? st.phase_words || String(st.phase).replaceAll("_", " ") : "";
  $("phase").hidden = !(st && st.phase);
}

// The verdict as the asker may see it: the stream's, or the host's own where the stream hides a
// seat's question from everyone but that seat.
export function verdictOf(state) {
  const h = state.hostVerdict;
  return state.role === "host" && h && h.version === state.view.version ? h.verdict : state.view.verdict;
}

// Whether the host should ask for its own verdict: a seat is asked, and the stream's view hides how.
export function hidesQuestion(view) {
  const v = view.verdict;
  return Boolean(v && v.seat !== null && v.seat !== undefined && !(v.options && v.options.length) && !v.hidden);
}

const NOT_LEGAL = /^not a legal move:\s*/i;

// A group of steps, said whole: what to do with how many of what ("rail": a card; "magnetic": what
// the sensor board felt; another kind by the game's own word for it).
function groupLine(verb, kind, n) {
  if (verb === "put" && kind === "rail") {
    return ntr("Put {count} card on the places marked ! as shown", "Put {count} cards on the places marked ! as shown", n);
  }
  if (verb === "put" && kind === "magnetic") {
    return ntr("Put {count} magnetic piece on the places marked ! as shown",
               "Put {count} magnetic pieces on the places marked ! as shown", n);
  }
  if (verb === "put" && kind === "piece") {
    return ntr("Put {count} piece on the places marked ! as shown", "Put {count} pieces on the places marked ! as shown", n);
  }
  if (verb === "put") {
    const word = kind.replaceAll("_", " ");
    const pieces = n === 1 ? word : /(s|x|ch|sh)$/.test(word) ? word + "es" : word + "s";
    return ntr("Put {count} {pieces} on the places marked ! as shown", "Put {count} {pieces} on the places marked ! as shown",
               n, {pieces});
  }
  if (verb === "take") return ntr("Take {count} piece off the places marked !", "Take {count} pieces off the places marked !", n);
  if (verb === "turn") return ntr("Turn {count} piece where marked !", "Turn {count} pieces where marked !", n);
  return ntr("Set {count} piece where marked !", "Set {count} pieces where marked !", n);
}

// Many steps (a game's setup) as a few groups, each with its list folded away.
function drawSteps(state, v) {
  const box = $("steps");
  box.replaceChildren();
  const steps = (v && v.instructions) || [];
  if (steps.length < 4) return false;
  const table = state.view.table;
  const groups = new Map();
  for (const step of steps) {
    const verb = step.text.split(" ")[0];
    const kinds = ((table && table.pieces[step.location]) || []).map((p) => p.kind);
    const kind = verb === "put" && kinds.length ? kinds[0] : "piece";
    const key = verb + " " + kind;
    if (!groups.has(key)) groups.set(key, {verb, kind, steps: []});
    groups.get(key).steps.push(step);
  }
  for (const {verb, kind, steps: some} of groups.values()) {
    const d = html("details", {class: "group"});
    d.appendChild(html("summary", {}, groupLine(verb, kind, some.length)));
    const list = html("ul", {});
    some.forEach((s) => list.appendChild(html("li", {}, s.text)));
    d.appendChild(list);
    box.appendChild(d);
  }
  return true;
}

// The verdict box and the question's buttons; returns what should beep (an alert, your turn, a question).
export function drawVerdict(state, answer) {
  const v = verdictOf(state);
  const g = gameOf(state);
  const mySeat = mySeatOf(state);
  const box = $("verdict");
  const asked = v && v.options && v.options.length;
  const actor = v && v.seat !== null && v.seat !== undefined ? v.seat : g && g.current_player >= 0 ? g.current_player : null;
  const player = actor === null ? "" : actor === mySeat ? tr("{player} (you)", {player: playerName(state, actor)}) :
    playerName(state, actor);
  const alone = actor === null;  // a line said to the player who acts, or to everyone when nobody does
  const grouped = drawSteps(state, v);  // also clears the last verdict's steps
  let text;
  if (asked && v.hidden) {
    text = alone ? tr("A choice only you make, in secret: pick it below.") :
      tr("{player}: a choice only you make, in secret: pick it below.", {player});
  } else if (asked && (state.role === "host" || v.seat === mySeat)) {
    text = alone ? tr("The table does not show which move it was; pick it below.") :
      tr("{player}: the table does not show which move it was; pick it below.", {player});
  } else if (asked) {
    text = alone ? tr("The table does not show which move it was; they pick it on their phone.") :
      tr("{player}: the table does not show which move it was; they pick it on their phone.", {player});
  } else if (grouped) {
    const n = v.instructions.length;
    text = actor === null ?
      ntr("{count} thing to do on the table, marked ! on the board:", "{count} things to do on the table, marked ! on the board:", n) :
      ntr("{player}: {count} thing to do on the table, marked ! on the board:",
          "{player}: {count} things to do on the table, marked ! on the board:", n, {player});
  } else if (v && v.kind === "applied" && !(v.instructions || []).length) {
    text = cap(v.words || v.text || "");  // a move seen: the last events say whose
  } else if (v) {
    const said = (v.words || v.text || "").replace(NOT_LEGAL, "");
    text = actor === null || said.startsWith(playerName(state, actor)) ? said : tr("{player}: {said}", {player, said});
  } else {
    text = g ? tr("The table is as the rules expect.") : state.view.finished ? tr("The game is over.") :
      tr("No game is open: the host starts one.");
  }
  // a piece the sensor board just felt, while the camera looks: said over a move already seen
  const table = g && state.view.table;
  const felt = (table && table.felt) || [];
  const checking = felt.length && !asked && !grouped && (!v || v.kind === "applied");
  if (checking) {
    const placeOf = (name) => (table.locations.find((l) => l.name === name) || {place: name}).place || name;
    text = tr("A piece moved on {places}: checking it…", {places: felt.map(placeOf).join(", ")});
  }
  box.textContent = text;
  const seen = v && v.kind === "applied" && !(v.instructions || []).length;
  box.className = checking ? "" : v ? (v.kind === "alert" ? "alert" : seen ? "" : "todo") : "";
  const q = $("question");
  q.replaceChildren();
  if (asked) {
    if (v.hidden) q.appendChild(html("p", {class: "secret"}, tr("Only you see this: nobody else's phone shows these choices.")));
    q.appendChild(html("p", {}, state.role === "host" ? tr("{player} is asked. Pick one:", {player: playerName(state, v.seat)}) :
      v.hidden ? tr("Your choice. Pick one:") : tr("Which was it? Pick one:")));
    v.options.forEach((o, i) => {
      const b = html("button", {class: "primary"}, o.words || o.text);
      b.onclick = () => answer(i);
      q.appendChild(b);
    });
  }
  return (v && v.kind === "alert" ? "alert:" + v.text : "") +
         (g && mySeat !== null && g.current_player === mySeat ? "turn" : "") +
         (asked ? "ask:" + v.text : "");
}

// Each player's row: name, colour and a star for a winner, what the points are made of under the
// name (a phone's width has no room for a third column), the points.
function scoreRows(body, players, scores, parts, mySeat, winners, none = tr("nothing yet")) {
  body.replaceChildren();
  const order = scores.map((_, seat) => seat);
  if (mySeat !== null) order.sort((a, b) => (b === mySeat) - (a === mySeat));  // your own row first
  for (const seat of order) {
    const row = html("tr", {});
    const th = html("th", {scope: "row"});
    const p = players[seat] || {name: tr("Player {number}", {number: seat + 1}), hex: "#999"};
    th.appendChild(nameTag(p, seat === mySeat));
    if (winners.includes(seat)) th.appendChild(html("span", {class: "star"}, " " + tr("★ winner")));
    // A part counted only at the end (it has "provisional") is shown apart, in words, and left
    // out of the main number: that is what the player has banked, and it never goes down.
    const all = parts[seat] || [];
    const later = all.filter((x) => x.provisional);
    const made = all.filter((x) => !x.provisional).map((x) => `${x.what}: ${x.points}`).join(" · ");
    th.appendChild(html("div", {class: "made"}, made || none));
    const ifs = later.map((x) => tr("+{points} if {what} at the end", {points: x.points, what: x.what})).join(" · ");
    if (ifs) th.appendChild(html("div", {class: "made provisional"}, `(${ifs})`));
    row.appendChild(th);
    const extra = later.reduce((sum, x) => sum + x.points, 0);
    const banked = scores[seat] - extra;
    row.appendChild(html("td", {class: "points"}, extra ? `${banked} (+${extra})` : String(banked)));
    body.appendChild(row);
  }
}

// A hand of cards drawn as cards, each tapped to see it whole.
function drawHand(box, ids, look, onTap) {
  const pieces = look && look.pieces ? look.pieces : {};
  const found = ids.map((id) => Object.keys(pieces).find((k) => k.split(":")[1] === id));
  if (!found.length || found.some((k) => !k)) return false;
  const row = html("div", {class: "hand"});
  found.forEach((key, i) => {
    const [kind, identity] = key.split(":");
    const loc = {x: 32, y: 44, w: 63, h: 88};
    const s = el("svg", {viewBox: "0 0 64 88", class: "card", role: "img", tabindex: "0"});
    const piece = {kind, identity, face: null, turn: 0, label: ids[i]};
    s.appendChild(drawPiece(piece, look, loc));
    const b = html("button", {class: "card-button", "aria-label": tr("see this card whole")});
    b.appendChild(s);
    b.onclick = () => onTap(loc, [piece]);
    row.appendChild(b);
  });
  box.appendChild(row);
  return true;
}

export function drawScores(state, look, onTap) {
  const st = state.view.state;
  const mySeat = mySeatOf(state);
  if (!st) { $("private").hidden = true; $("scores").tBodies[0].replaceChildren(); return; }
  const top = Math.max(...st.scores);
  scoreRows($("scores").tBodies[0], playersOf(state), st.scores, st.score_parts, mySeat,
            st.is_over ? st.scores.map((x, s) => (x === top ? s : -1)) : []);
  const mine = Object.entries(st.private || {});
  $("private").hidden = !(state.role === "seat" && mine.length);
  const box = $("private-body");
  box.replaceChildren();
  const words = st.private_words || {};
  for (const [key, value] of mine) {
    const name = key.replaceAll("_", " ");
    const none = tr("none");
    box.appendChild(html("p", {}, tr("Your {part}: {what}", {part: name, what: words[key] || none})));
    if (Array.isArray(value) && value.every((x) => typeof x === "string")) drawHand(box, value, look, onTap);
  }
}

// The end of a game: who won, the final scores and what they are made of; it stays until the
// host starts another game.
export function drawFinished(state) {
  const f = state.view.finished;
  const open = Boolean(state.view.game);
  $("finished").hidden = !f || open;
  if (!f || open) return;
  $("finished").dataset.game = String(f.id);
  const names = f.winners.map((s) => f.players[s] ? f.players[s].name : tr("Player {number}", {number: s + 1}));
  $("finished-h").textContent = tr("Game over");
  $("finished-winner").textContent = names.length === 1 ? tr("★ {player} wins!", {player: names[0]}) :
    tr("★ {players} share the win!", {players: listed(names)});
  scoreRows($("finished-scores").tBodies[0], f.players, f.scores, f.score_parts, mySeatOf(state), f.winners, tr("no points"));
  $("finished-why").textContent = tr("Why it ended: {reason}.", {reason: f.reason});
  $("again").hidden = state.role !== "host";
}

// The moves no sensor sees, offered to the seat whose turn it is; many of one kind (the race's
// "turn up the tile on ..." for every face-down tile) as one choice of where, so the board stays
// on the screen.
const MANY = 4;
export function drawMine(state, act) {
  const mine = $("mine");
  const offered = state.role === "seat" ? state.view.choices || [] : [];
  mine.replaceChildren();
  if (!offered.length) return;
  mine.appendChild(html("p", {}, tr("Your move (nothing on the table shows these):")));
  const kinds = new Map();
  for (const choice of offered) {
    const type = (choice.action && choice.action.type) || choice.text;
    if (!kinds.has(type)) kinds.set(type, []);
    kinds.get(type).push(choice);
  }
  for (const some of kinds.values()) {
    if (some.length > MANY) { mine.appendChild(choosePlace(some, act)); continue; }
    for (const choice of some) {
      const b = html("button", {}, choice.text);
      b.onclick = () => act(choice.action);
      mine.appendChild(b);
    }
  }
}

// Many moves of one kind as one line: what they share ("turn up the tile on"), then a select of
// what differs ("C7"), and one button.
function choosePlace(some, act) {
  const words = some.map((c) => c.text.split(" "));
  let n = 0;
  while (words.every((w) => n < w.length - 1 && w[n] === words[0][n])) n++;
  const shared = words[0].slice(0, n).join(" ");
  const row = html("p", {class: "many"});
  const select = html("select", {"aria-label": shared || tr("which")});
  some.forEach((c, i) => select.appendChild(html("option", {value: String(i)}, words[i].slice(n).join(" "))));
  const name = shared.charAt(0).toUpperCase() + shared.slice(1);
  row.appendChild(html("label", {}, name + " "));
  row.lastChild.appendChild(select);
  const b = html("button", {class: "primary"}, tr("Do it"));
  b.onclick = () => act(some[Number(select.value)].action);
  row.appendChild(document.createTextNode(" "));
  row.appendChild(b);
  return row;
}

// ---- the last events: one line per move
const QUIET_VERDICTS = new Set(["in_sync", "applied", "instructions", "alert"]);  // said by other rows

function cap(text) { return text.charAt(0).toUpperCase() + text.slice(1); }

function hintsLine(hints) {
  if (hints === "on") return tr("Hints are on");
  if (hints === "off") return tr("Hints are off");
  return tr("Hints are {state}", {state: hints});
}

function computerLine(player, level) {
  if (level === "easy") return tr("{player} plays here now (easy level)", {player});
  if (level === "normal") return tr("{player} plays here now (normal level)", {player});
  if (level === "strong") return tr("{player} plays here now (strong level)", {player});
  return tr("{player} plays here now ({level} level)", {player, level});
}

function eventText(e, state) {
  const d = e.data || {};
  const who = e.who || playerName(state, e.seat);
  if (e.kind === "action") {
    const move = d.text || (d.action && d.action.type) || tr("a move");
    return tr("{player}: {move}", {player: who, move});
  }
  if (e.kind === "start") return tr("A new game begins");
  if (e.kind === "end") return d.reason ? tr("The game ends: {reason}", {reason: d.reason}) : tr("The game ends");
  if (e.kind === "undo") return ntr("The host took back {count} move", "The host took back {count} moves", d.count);
  if (e.kind === "player" && d.hints) return hintsLine(d.hints);
  if (e.kind === "player" && d.computer !== undefined) {
    return cap(d.computer ? computerLine(who, d.computer) : tr("{player} plays here again", {player: who}));
  }
  if (e.kind === "player") return tr("{player} joined", {player: playerName(state, e.seat)});
  if (e.kind === "verdict" && QUIET_VERDICTS.has(d.kind)) return null;
  if (e.kind === "instruction" && (d.instructions || []).length > 3) {
    return ntr("To do: {count} thing on the table", "To do: {count} things on the table", d.instructions.length);
  }
  if (e.kind === "alert") return tr("✗ Not a legal move: {why}", {why: (d.words || d.text || "").replace(NOT_LEGAL, "")});
  if (d.words || d.text) return cap(d.words || d.text);
  return null;
}

function drawnLine(li) {
  const parts = [...li.draws.entries()].map(([t, n]) => (n > 1 ? `${t} ×${n}` : t));
  li.textContent = tr("The table drew: {draws}", {draws: parts.slice(0, 8).join("; ") + (parts.length > 8 ? "; …" : "")});
}

export function addEvent(e, state) {
  const list = $("events");
  const chance = e.kind === "action" && (e.seat === -1 || e.seat === null);
  if (chance) {
    const text = ((e.data && e.data.text) || tr("a draw")).replace(/ \(hidden\)$/, tr(", face down"));
    let li = list.firstChild;
    if (!li || !li.draws) {
      li = html("li", {class: "draws"});
      li.draws = new Map();
      list.prepend(li);
    }
    li.draws.set(text, (li.draws.get(text) || 0) + 1);
    drawnLine(li);
  } else {
    const text = eventText(e, state);
    if (text === null) return;
    if (list.firstChild && list.firstChild.textContent === text) return;  // said once
    list.prepend(html("li", {}, text));
  }
  while (list.children.length > 40) list.lastChild.remove();
}

export function setUpSound() {
  $("sound").checked = localStorage.getItem("sound") !== "off";
  $("sound").onchange = () => localStorage.setItem("sound", $("sound").checked ? "on" : "off");
}

export function signal() {
  if (!$("sound").checked) return;
  if (navigator.vibrate) navigator.vibrate(150);
  try {
    const audio = new (window.AudioContext || window.webkitAudioContext)();
    const tone = audio.createOscillator();
    tone.frequency.value = 660;
    tone.connect(audio.destination);
    tone.start();
    tone.stop(audio.currentTime + 0.15);
  } catch (e) { /* no sound on this phone */ }
}
