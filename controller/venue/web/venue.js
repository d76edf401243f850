// The venue page: draws the evening (GET /api/venue/stream, one JSON per change) for a big
// screen and for phones. Everything it shows comes from the tables' public messages.

import { ntr, setUpLanguage, tr } from "./words.js";

const $ = (id) => document.getElementById(id);

function el(tag, attrs = {}, ...children) {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (k === "class") node.className = v; else node.setAttribute(k, v);
  }
  for (const c of children) node.append(c instanceof Node ? c : document.createTextNode(String(c)));
  return node;
}

const seatName = (table, p) => p.name || tr("player {number}", {number: p.seat + 1});
const num = (x) => (Number.isInteger(x) ? String(x) : x.toFixed(1));

function tableCard(t) {
  const status = t.online === false ? ["off", tr("offline")] : t.needs_help ? ["need", tr("needs help")]
    : ["", tr("playing")];
  const card = el("li", {class: `table${t.needs_help ? " help" : ""}${t.online === false ? " offline" : ""}`,
                         "data-table": t.table},
    el("h3", {}, t.table, el("span", {class: `status ${status[0]}`}, status[1])));
  const g = t.game;
  if (g) {
    card.append(el("p", {class: "game"}, g.title || g.name, g.is_over ? ` · ${tr("over")}` : ""));
    const scores = el("ul", {class: "scores", "aria-label": tr("scores")});
    g.players.forEach((p, i) => {
      const mine = g.current_player === p.seat;
      scores.append(el("li", {class: mine ? "turn" : ""},
        el("span", {}, mine ? tr("{player} (to play)", {player: seatName(t.table, p)}) : seatName(t.table, p)),
        el("span", {}, g.scores ? num(g.scores[i]) : "")));
    });
    card.append(scores);
  } else {
    card.append(el("p", {class: "game"}, tr("no game open")));
  }
  if (t.help.length) card.append(el("ul", {class: "reasons"}, ...t.help.map((h) => el("li", {}, h))));
  if (t.recent.length) {
    card.append(el("ul", {class: "recent", "aria-label": tr("latest")},
      ...t.recent.slice(0, 3).map((e) => el("li", {}, e.text))));
  }
  return card;
}

function standingsTable(lines, caption) {
  const headings = ["#", tr("player"), tr("games"), tr("wins"), tr("beaten"), tr("points")];
  const table = el("table", {class: "standings"}, el("caption", {class: "quiet"}, caption),
    el("tr", {}, ...headings.map((h) => el("th", {}, h))));
  for (const l of lines.slice(0, 20)) {
    table.append(el("tr", {}, el("td", {}, l.rank), el("td", {}, l.player), el("td", {}, l.games),
      el("td", {}, l.wins), el("td", {}, l.beaten), el("td", {}, num(l.points))));
  }
  return table;
}

function drawStandings(s, box) {
  box.replaceChildren();
  if (!s.players.length) { box.append(el("p", {class: "quiet"}, tr("No game finished yet."))); return; }
  box.append(standingsTable(s.players, tr("all games")));
  for (const g of s.games) box.append(standingsTable(g.players, g.title));
}

function drawTournament(t) {
  $("tournament").hidden = !t;
  if (!t) return;
  const box = $("round");
  box.replaceChildren(el("p", {}, ntr("{name}: {count} player", "{name}: {count} players",
    t.players.length, {name: t.name})));
  const r = t.rounds[t.rounds.length - 1];
  if (r) {
    box.append(el("p", {}, r.complete ? tr("Round {number}: {title} (complete)", {number: r.number, title: r.title})
      : tr("Round {number}: {title}", {number: r.number, title: r.title})));
    for (const s of r.tables) {
      const result = s.result ? ` → ${s.result.results.map((x) => `${x.player} ${num(x.score)}`).join(", ")}` : "";
      box.append(el("p", {class: "seating"}, el("b", {}, s.table), s.players.join(", "), result));
    }
    if (r.byes.length) box.append(el("p", {class: "quiet"}, tr("sitting out: {players}", {players: r.byes.join(", ")})));
  } else {
    box.append(el("p", {class: "quiet"}, tr("No round seated yet.")));
  }
  if (t.standings.players.length) box.append(standingsTable(t.standings.players, tr("tournament")));
}

let gamesListed = false;
function draw(v) {
  const online = v.tables.filter((t) => t.online !== false).length;
  const tables = ntr("{online} of {count} table online", "{online} of {count} tables online",
    v.tables.length, {online});
  const finished = ntr("{count} game finished", "{count} games finished", v.finished.length);
  const broker = tr("broker {state}", {state: v.broker.state});
  $("summary").textContent = `${tables} · ${finished} · ${broker}`;
  const banner = $("help");
  banner.hidden = !v.needing_help.length;
  banner.textContent = v.needing_help.length ? tr("Needs help: {tables}", {tables: v.needing_help.join(", ")}) : "";
  $("tables").replaceChildren(...v.tables.map(tableCard));
  drawStandings(v.standings, $("standings"));
  $("finished").replaceChildren(...v.finished.slice(0, 12).map((g) => el("li", {},
    `${g.table}: ${g.title} — ${g.results.map((r) => `${r.player} ${num(r.score)}`).join(", ")}`)));
  drawTournament(v.tournament);
  if (!gamesListed) {
    $("game").replaceChildren(...v.games.map((g) => el("option", {value: g.name},
      `${g.title} (${g.min_players}-${g.max_players})`)));
    gamesListed = true;
  }
}

async function organise(method, path, body) {
  const r = await fetch(path, {method, headers: {"Content-Type": "application/json",
    "X-Organiser-PIN": $("pin").value}, body: body ? JSON.stringify(body) : undefined});
  const answer = await r.json().catch(() => ({}));
  $("said").textContent = r.ok ? tr("done") : (answer.detail || tr("refused ({status})", {status: r.status}));
}

$("start").addEventListener("click", () => organise("POST", "/api/tournament", {
  name: $("tname").value, players: $("players").value.split("\n").map((s) => s.trim()).filter(Boolean)}));
$("next").addEventListener("click", () => organise("POST", "/api/tournament/rounds", {game: $("game").value}));
$("end").addEventListener("click", () => organise("DELETE", "/api/tournament"));

const source = new EventSource("/api/venue/stream");
source.addEventListener("venue", (e) => draw(JSON.parse(e.data)));
source.onerror = () => { $("summary").textContent = tr("venue page reconnecting…"); };
setUpLanguage($("language"));
