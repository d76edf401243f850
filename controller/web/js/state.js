// The page's one state: who is asking, the newest view from the stream, the inputs' health and the
// games' looks. main.js changes it (and stream.js the last row seen, api.js a forgotten seat,
// host.js a lock-out); the other modules only read it. Nothing else is kept between redraws.
const params = new URLSearchParams(location.search);

export const state = {
  seatToken: params.get("seat") || localStorage.getItem("seatToken") || "",
  role: "spectator",  // from /api/status "you": spectator, seat or host
  seat: null,
  health: null,  // /api/status: camera, board, gpio (and the game, until the stream's view comes)
  view: null,  // the newest "snapshot" event: {version, row, game, finished, state, table, verdict, choices}
  hostVerdict: null,  // {version, verdict}: the host's own verdict where the stream's hides a question
  looks: {},  // game name -> its look (GET /api/games/{name}/look), once it came
  kinds: [],  // the log's event kinds: the stream's event names for rows
  lastRow: null,  // the newest log row seen: a new stream starts after it, so nothing is missed
  cue: "",  // what the phone last beeped for
  games: [],  // the games this table can referee (GET /api/games/available)
  joined: params.get("seat") !== null,  // came by a seat's link just now: asked for a name
  pinLocked: false,  // wrong PINs lock the table out: the typed PIN waits (host.js says why)
};

// The seat's token is kept on the phone, never left in the address bar (nor in a shared link).
if (params.get("seat")) {
  localStorage.setItem("seatToken", state.seatToken);
  params.delete("seat");
  history.replaceState(null, "", location.pathname + (params.size ? "?" + params : "") + location.hash);
}
