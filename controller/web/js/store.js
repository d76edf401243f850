// The event log's state as a banner for everyone: while the table cannot write its log (a full
// disk), play is paused, and every phone says so at the top of the page until it can again.
// Fed by the stream's view and by /api/status, both of which carry `store` ({state, detail}).
import { tr } from "./words.js";

const ID = "store-banner";

export function showStore(store) {
  if (!store) return;
  let banner = document.getElementById(ID);
  if (!banner) {
    banner = document.createElement("div");
    banner.id = ID;
    banner.setAttribute("role", "alert");
    banner.hidden = true;
    Object.assign(banner.style, {
      position: "sticky", top: "0", zIndex: "10", padding: "0.6em 0.8em", margin: "0 0 0.5em",
      background: "#b00020", color: "#fff", fontWeight: "bold", borderRadius: "4px",
    });
    document.body.prepend(banner);
  }
  const failing = store.state !== "ok";
  const text = failing ? (store.detail || tr("event log: cannot be written — play is paused")) : "";
  if (banner.hidden === !failing && banner.textContent === text) return;
  banner.textContent = text;
  banner.hidden = !failing;
}
