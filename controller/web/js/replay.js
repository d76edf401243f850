// Finished games and their replays: the list with final scores, a game's table step by step (as
// everyone may see it), and the host's export of the JSON game record.
import { fetchFile, get, lookOf } from "./api.js";
import { $, html } from "./dom.js";
import { drawBoard } from "./board.js";
import { ntr, tr } from "./words.js";

let shown = null;  // the replay step on screen, with the game's name: {game, ...the replay}

export async function replay(id, game, step) {
  const [r, look] = await Promise.all([get(`/api/games/${id}/replay?step=${step}`), lookOf(game)]);
  if (!r) return;
  shown = {...r, game};
  $("replay").hidden = false;
  $("replay-title").textContent = tr("{game}, game {number}", {game: r.title, number: r.game_id});
  const what = r.seat === null ? r.text : tr("{player}: {what}", {player: r.who, what: r.text});
  $("replay-where").textContent = tr("step {step} of {steps}: {what} · scores {scores}",
    {step: r.step, steps: r.steps, what, scores: r.scores.join(" / ")});
  $("replay-step").max = r.steps;
  $("replay-step").value = r.step;
  drawBoard($("replay-mat"), r.table, look, null);
}

async function exportRecord(g) {
  const r = await fetchFile(`/api/games/${g.id}/record`);
  if (!r) return;
  html("a", {href: URL.createObjectURL(await r.blob()), download: `railtable-game-${g.id}.json`}).click();
}

async function listGames() {
  const games = (await get("/api/games")) || [];
  const box = $("games");
  box.replaceChildren();
  if (!games.length) { box.appendChild(html("p", {}, tr("No finished game yet."))); return; }
  const list = html("ul", {});
  for (const g of games.slice().sort((a, b) => b.id - a.id).slice(0, 30)) {
    const scores = (g.scores || []).map((x, i) => `${(g.names || [])[i] || tr("Player {number}", {number: i + 1})} ${x}`);
    const li = html("li", {}, ntr("{game}, {count} player, ended {when}: {scores}", "{game}, {count} players, ended {when}: {scores}",
      g.players, {game: g.title, when: new Date(g.ended_at * 1000).toLocaleString(), scores: scores.join(", ")}) + " ");
    const b = html("button", {}, tr("Replay"));
    b.onclick = () => replay(g.id, g.game, 0);
    li.appendChild(b);
    const x = html("button", {}, tr("Export record"));
    x.onclick = () => exportRecord(g);
    li.appendChild(x);
    list.appendChild(li);
  }
  box.appendChild(list);
}

export function setUpReplay() {
  const go = (f) => () => {
    if (shown) replay(shown.game_id, shown.game, Math.max(0, Math.min(shown.steps, f(shown))));
  };
  $("replay-first").onclick = go(() => 0);
  $("replay-prev").onclick = go((r) => r.step - 1);
  $("replay-next").onclick = go((r) => r.step + 1);
  $("replay-last").onclick = go((r) => r.steps);
  $("replay-step").onchange = go(() => Number($("replay-step").value));
  $("history").ontoggle = () => { if ($("history").open) listGames(); };
}
