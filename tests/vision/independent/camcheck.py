"""The independent camera check: a scripted Off the Rails game under nine conditions, rendered
by our own renderer (scene.py / world.py), fed through the pipeline as the service feeds it.

  .venv/bin/python tests/vision/independent/camcheck.py [-v] [--only NAME] [--json F] [--save DIR]
"""

from __future__ import annotations

import argparse
import copy
import json
import math
import os
import sys
import time
from collections import Counter

import cv2
import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from scene import CART_COLOURS, SKINS, SLEEVES, Conditions, Hand, Piece, Renderer

from controller.vision_bridge import board_geometry, stickers
from rules.offtherails.physical import catalogue, layout
from vision.pipeline import VisionPipeline
from vision.readings import LocationState

HERE = os.path.dirname(os.path.abspath(__file__))
QUIET = 14  # still frames after the hands leave


def conditions() -> list[Conditions]:
    all_skins = tuple(SKINS.values())
    base = dict(skins=all_skins)
    soft_glare = [(330.0, 250.0, 0.0, 30.0, 40.0)]  # a soft unsaturated highlight
    return [
        Conditions(
            "base",
            shadow=0.4,
            shadow_edge_mm=12,
            glare=[*soft_glare, (446.0, 386.0, 5.0, 12.0, 60.0)],
            **base,
        ),
        Conditions("lens k1 -0.30", k1=-0.30, **base),
        Conditions("tilt 25, k1 -0.20", tilt=25, k1=-0.20, **base),
        Conditions("soft focus 1.3 px", blur=1.3, **base),
        Conditions("flicker 15 %", flicker=0.15, **base),
        Conditions("deep shadow, hard edge", shadow=0.55, shadow_edge_mm=2, **base),
        Conditions(
            "dark skin, resting hands",
            skins=(SKINS["dark"], SKINS["very dark"], SKINS["brown"]),
            rest=True,
        ),
        Conditions(
            "strong glare",
            gain=0.85,
            glare=[
                (246.0, 226.0, 7.0, 25.0, 90.0),
                (386.0, 346.0, 5.0, 40.0, 70.0),
                (150.0, 420.0, 0.0, 45.0, 55.0),
            ],
            **base,
        ),
        Conditions("hovering tile", hover=True, **base),
    ]


# --- the game ------------------------------------------------------------------------------
def sq(col: str, row: int) -> str:
    return f"{col}{row}"


COLS = "ABCDEFGHIJKL"


def neighbours4(name):
    if name == "reveal":
        return []
    c, r = COLS.index(name[0]), int(name[1:])
    out = []
    for dc, dr in ((1, 0), (-1, 0), (0, 1), (0, -1)):
        if 0 <= c + dc < 12 and 1 <= r + dr <= 12:
            out.append(f"{COLS[c + dc]}{r + dr}")
    return out


def opening(rng):
    """About 24 tiles in a connected track network, five carts on tiles (G6, C10, I3, ...)."""
    board: dict[str, list[Piece]] = {}
    must = ["G6", "C10", "I3", "E8", "J9"]
    todo = list(must)
    while len(board) < 24:
        name = todo.pop(0) if todo else None
        if name is None:
            base = list(board)[int(rng.integers(len(board)))]
            cand = [n for n in neighbours4(base) if n not in board]
            if not cand:
                continue
            name = cand[int(rng.integers(len(cand)))]
        if name in board:
            continue
        board[name] = [tile(rng)]
    for i, name in enumerate(["G6", "C10", "I3", "E8", "J9"]):
        mid = 10 + [0, 3, 4, 6, 1][i]
        board[name].append(
            Piece(
                mid,
                int(rng.integers(4)),
                float(rng.uniform(-1.5, 1.5)),
                float(rng.uniform(-1.5, 1.5)),
                float(rng.uniform(-4, 4)),
                cart=True,
                colour=CART_COLOURS[mid],
            )
        )
    return board


def tile(rng, mid=None, rot=None):
    mid = int(rng.choice([4, 5, 6, 7, 8])) if mid is None else mid
    r = int(rng.integers(4)) if rot is None else rot
    ang = float(rng.uniform(-2.5, 2.5))
    # a few millimetres off-centre, as players put them
    d = rng.uniform(0.5, 2.5)
    t = rng.uniform(0, 2 * math.pi)
    return Piece(mid, r, float(d * math.cos(t)), float(d * math.sin(t)), ang)


def moves(rng, board, cond):
    """14 moves: placements, turns, removals, cart moves, a hand crossing, a card revealed."""
    plan = [
        "place",
        "turn",
        "cart",
        "cross",
        "place",
        "remove",
        "cart",
        "place",
        "turn",
        "cart",
        "card",
        "remove",
        "cross",
        "place",
    ]
    if cond.hover:
        plan[4] = "hover"
        plan[13] = "hover"
    if cond.rest:
        plan[3] = "rest"
        plan[12] = "rest"
        plan[7] = "rest_place"
    return plan


def empty_beside(rng, board, avoid=()):
    cand = sorted({n for b in board for n in neighbours4(b) if n not in board and n not in avoid})
    return cand[int(rng.integers(len(cand)))]


def has_cart(board, name):
    return any(p.cart for p in board.get(name, []))


class Game:
    """Frames: (board truth, hands on view). Keeps truth per frame and the move boundaries."""

    def __init__(self, rng, cond):
        self.rng = rng
        self.cond = cond
        self.frames: list[tuple[dict, list[Hand]]] = []
        self.moves: list[dict] = []
        self.skins = list(cond.skins)

    def add(self, board, hands, n=1):
        for _ in range(n):
            self.frames.append((copy.deepcopy(board), copy.deepcopy(hands)))

    def hand(self, x, y, z, held=None):
        toward = math.pi / 2 + self.rng.uniform(-0.6, 0.6)  # arm from the south (players' side)
        if self.rng.random() < 0.3:
            toward = self.rng.choice([0.0, math.pi]) + self.rng.uniform(-0.4, 0.4)
        skin = self.skins[int(self.rng.integers(len(self.skins)))]
        sleeve = SLEEVES[int(self.rng.integers(len(SLEEVES)))]
        return Hand(x, y, z, toward, skin, sleeve, held)

    def reach(self, board, h: Hand, tx, ty, kind, action):
        """Enter from the arm's side, act at (tx, ty), leave. `action(board)` changes truth."""
        ux, uy = math.cos(h.toward), math.sin(h.toward)
        # the palm sits behind the fingertips: put the fingertips over the target
        px, py = tx + ux * 75, ty + uy * 75
        for k in (5, 4, 3, 2, 1):
            h.x, h.y, h.z = px + ux * 90 * k, py + uy * 90 * k, 90.0 + 8 * k
            self.add(board, [h])
        h.x, h.y, h.z = px, py, 45.0
        self.add(board, [h])
        h.z = 32.0
        self.add(board, [h])
        action(board)
        h.x += self.rng.uniform(-3, 3)
        self.add(board, [h])
        h.z = 50.0
        self.add(board, [h])
        for k in (1, 2, 3, 4, 5, 6):
            h.x, h.y, h.z = px + ux * 110 * k, py + uy * 110 * k, 60.0 + 10 * k
            self.add(board, [h])

    def play(self, board, plan):
        rng = self.rng
        self.add(board, [], 12)
        self.moves.append(
            {"kind": "opening", "changed": set(board), "left": 0, "end": len(self.frames)}
        )
        for kind in plan:
            start = len(self.frames)
            changed: set[str] = set()
            loc = {x.name: x for x in layout().locations}
            if kind in ("place", "rest_place"):
                name = empty_beside(rng, board)
                t = tile(rng)
                changed = {name}
                hands_extra = []
                if kind == "rest_place":
                    # the other hand rests still on the mat two squares away
                    far = [
                        n
                        for n in board
                        if n != "reveal"
                        and n not in neighbours4(name)
                        and n != name
                        and abs(loc[n].x_mm - loc[name].x_mm) + abs(loc[n].y_mm - loc[name].y_mm)
                        >= 80
                    ]
                    r = far[int(rng.integers(len(far)))]
                    rest = self.hand(loc[r].x_mm, loc[r].y_mm + 60, 22.0)
                    hands_extra = [rest]
                h = self.hand(loc[name].x_mm, loc[name].y_mm, 40)
                self._reach_with(
                    board, h, loc[name], lambda b, n=name, t=t: b.__setitem__(n, [t]), hands_extra
                )
            elif kind == "turn":
                name = [n for n in board if not has_cart(board, n) and board[n][0].marker_id != 22][
                    int(rng.integers(len(board) - 5))
                ]
                changed = {name}

                def act(b, n=name):
                    p = b[n][0]
                    p.rotation = (p.rotation + int(rng.choice([1, 3]))) % 4
                    p.angle = float(rng.uniform(-2.5, 2.5))

                h = self.hand(loc[name].x_mm, loc[name].y_mm, 40)
                self._reach_with(board, h, loc[name], act)
            elif kind == "remove":
                cands = [n for n in board if not has_cart(board, n) and n != "reveal"]
                name = cands[int(rng.integers(len(cands)))]
                changed = {name}
                h = self.hand(loc[name].x_mm, loc[name].y_mm, 40)
                self._reach_with(board, h, loc[name], lambda b, n=name: b.pop(n))
            elif kind == "cart":
                carts = [n for n in board if has_cart(board, n)]
                src = carts[int(rng.integers(len(carts)))]
                dests = [n for n in neighbours4(src) if n in board and not has_cart(board, n)]
                if not dests:
                    dests = [n for n in board if not has_cart(board, n) and n != "reveal"]
                dst = dests[int(rng.integers(len(dests)))]
                changed = {src, dst}

                def act(b, s=src, d=dst):
                    c = next(p for p in b[s] if p.cart)
                    b[s] = [p for p in b[s] if not p.cart]
                    c.rotation = int(rng.integers(4))
                    c.dx, c.dy = float(rng.uniform(-1.5, 1.5)), float(rng.uniform(-1.5, 1.5))
                    b[d].append(c)

                mx = (loc[src].x_mm + loc[dst].x_mm) / 2
                my = (loc[src].y_mm + loc[dst].y_mm) / 2
                h = self.hand(mx, my, 45)
                self._reach_with(board, h, loc[dst], act)
            elif kind == "card":
                name = "reveal"
                changed = {name}
                card = Piece(
                    27,
                    0,
                    float(rng.uniform(-2, 2)),
                    float(rng.uniform(-2, 2)),
                    float(rng.uniform(-3, 3)),
                    card=True,
                )
                h = self.hand(loc[name].x_mm, loc[name].y_mm, 40)
                self._reach_with(
                    board, h, loc[name], lambda b, c=card: b.__setitem__("reveal", [c])
                )
            elif kind == "cross":
                a, b_ = loc["B3"], loc["K10"]
                h = self.hand(a.x_mm, a.y_mm, 120)
                h.toward = math.pi / 2
                for k in range(8):
                    t_ = k / 7
                    h.x = a.x_mm + (b_.x_mm - a.x_mm) * t_
                    h.y = a.y_mm + (b_.y_mm - a.y_mm) * t_ + 200
                    self.add(board, [h])
            elif kind == "rest":
                # a hand rests still on the mat over a few squares for nine frames, then leaves
                names = [n for n in board if n != "reveal"]
                r = names[int(rng.integers(len(names)))]
                h = self.hand(loc[r].x_mm, loc[r].y_mm + 50, 20.0)
                ux, uy = math.cos(h.toward), math.sin(h.toward)
                h.x, h.y = loc[r].x_mm + ux * 60, loc[r].y_mm + uy * 60
                for k in (4, 3, 2, 1):
                    hh = copy.deepcopy(h)
                    hh.x += ux * 100 * k
                    hh.y += uy * 100 * k
                    hh.z = 60
                    self.add(board, [hh])
                self.add(board, [h], 9)
                for k in (1, 2, 3, 4, 5):
                    hh = copy.deepcopy(h)
                    hh.x += ux * 100 * k
                    hh.y += uy * 100 * k
                    hh.z = 60
                    self.add(board, [hh])
            elif kind == "hover":
                # a tile held still about 3 cm above an empty square, then put on its neighbour
                dst = empty_beside(rng, board)
                over = [n for n in neighbours4(dst) if n not in board]
                over = over[0] if over else next(iter(neighbours4(dst)))
                t = tile(rng)
                changed = {dst}
                h = self.hand(loc[over].x_mm, loc[over].y_mm, 50, held=t)
                ux, uy = math.cos(h.toward), math.sin(h.toward)
                px, py = loc[over].x_mm + ux * 120, loc[over].y_mm + uy * 120
                for k in (5, 4, 3, 2, 1):
                    h.x, h.y, h.z = px + ux * 90 * k, py + uy * 90 * k, 90.0
                    self.add(board, [h])
                h.x, h.y, h.z = px, py, 38.0  # the tile 30 mm above the mat
                for _ in range(8):
                    hh = copy.deepcopy(h)
                    hh.x += rng.uniform(-0.15, 0.15)
                    self.add(board, [hh])
                h.held = None
                h.x = loc[dst].x_mm + ux * 75
                h.y = loc[dst].y_mm + uy * 75
                h.z = 32
                board[dst] = [t]
                self.add(board, [h])
                for k in (1, 2, 3, 4, 5, 6):
                    h.x, h.y, h.z = (
                        loc[dst].x_mm + ux * (75 + 110 * k),
                        loc[dst].y_mm + uy * (75 + 110 * k),
                        60.0 + 10 * k,
                    )
                    self.add(board, [h])
            left = len(self.frames)
            self.add(board, [], QUIET)
            self.moves.append(
                {
                    "kind": kind,
                    "changed": changed,
                    "start": start,
                    "left": left,
                    "end": len(self.frames),
                }
            )

    def _reach_with(self, board, h, target, action, extra=()):
        ux, uy = math.cos(h.toward), math.sin(h.toward)
        tx, ty = target.x_mm, target.y_mm
        px, py = tx + ux * 75, ty + uy * 75
        extra = list(extra)
        for k in (5, 4, 3, 2, 1):
            h.x, h.y, h.z = px + ux * 90 * k, py + uy * 90 * k, 90.0 + 8 * k
            self.add(board, [h, *extra])
        h.x, h.y, h.z = px, py, 40.0
        self.add(board, [h, *extra])
        h.z = 30.0
        self.add(board, [h, *extra])
        action(board)
        h.x += self.rng.uniform(-3, 3)
        self.add(board, [h, *extra])
        h.z = 50.0
        self.add(board, [h, *extra])
        for k in (1, 2, 3, 4, 5, 6):
            h.x, h.y, h.z = px + ux * 110 * k, py + uy * 110 * k, 60.0 + 10 * k
            self.add(board, [h, *extra])
        if extra:  # the resting hand stays a few frames more, still, then leaves too
            self.add(board, extra, 6)
            r = extra[0]
            rx, ry = math.cos(r.toward), math.sin(r.toward)
            for k in (1, 2, 3, 4, 5):
                rr = copy.deepcopy(r)
                rr.x += rx * 110 * k
                rr.y += ry * 110 * k
                rr.z = 60
                self.add(board, [rr])


# --- truth and scoring ---------------------------------------------------------------------
def expected(board, name):
    """(ids and rotations) a camera can see on `name`: a cart hides its tile."""
    ps = board.get(name, [])
    carts = [p for p in ps if p.cart]
    shown = carts if carts else ps
    return tuple(sorted((p.marker_id, p.rotation) for p in shown))


def judge(reading, board):
    exp = expected(board, reading.name)
    if reading.state == LocationState.OCCLUDED:
        return "unknown"
    if reading.state == LocationState.EMPTY:
        return "right" if not exp else "wrong"
    return "right" if reading.ids_and_rotations() == exp else "wrong"


def _printed_mat() -> str:
    """The folder of the mat's printed pages, printed by `railtable markers` when missing."""
    folder = os.path.join(HERE, "mat")
    if not os.path.isdir(folder):
        from controller.cli import main as railtable

        railtable(["markers", "offtherails", "--out", folder])
    return folder


def run(cond: Conditions, seed: int, save: str | None = None, verbose=False):
    rng = np.random.default_rng(seed)
    L, C = layout(), catalogue()
    board = opening(rng)
    game = Game(rng, cond)
    game.play(board, moves(rng, board, cond))
    rend = Renderer(L, C, cond, seed, _printed_mat())
    pipe = VisionPipeline(board_geometry(L, C), stickers(C))
    names = [x.name for x in L.locations]
    views = {}  # frame -> settled view
    calibrated_at = None
    t0 = time.time()
    for i, (b, hands) in enumerate(game.frames):
        frame = rend.frame(b, hands)
        if save and i % 1 == 0:
            cv2.imwrite(os.path.join(save, f"{i:04}.jpg"), frame)
        rep = pipe.process(frame)
        if calibrated_at is None and rep.calibration.value == "calibrated":
            calibrated_at = i
        if rep.settled is not None:
            views[i] = rep.settled
    elapsed = time.time() - t0
    # settled squares right: the last view at the end of each move's quiet period
    counts = Counter()
    reasons = Counter()
    unknown_where = Counter()
    wrong_where = []
    false_changes, missed, latencies = [], [], []
    for mv in game.moves:
        end = mv["end"] - 1
        truth = game.frames[end][0]
        last = None
        for f in sorted(views):
            if f <= end:
                last = views[f]
        if last is None:
            counts["unknown"] += len(names)
            continue
        for r in last.readings:
            j = judge(r, truth)
            counts[j] += 1
            if j == "unknown":
                reasons[r.reason] += 1
                unknown_where[(r.name, r.reason)] += 1
            if j == "wrong":
                wrong_where.append(
                    (
                        mv["kind"],
                        r.name,
                        r.state.value,
                        r.ids_and_rotations(),
                        expected(truth, r.name),
                    )
                )
        # changes: settled views within this move's span
        start = mv.get("start", 0)
        seen_ok = None
        for f in sorted(views):
            if not (start <= f <= end):
                continue
            v = views[f]
            tb = game.frames[f][0]
            for n in v.changed:
                rd = v.at(n)
                if judge(rd, tb) != "right" or (mv["kind"] != "opening" and n not in mv["changed"]):
                    false_changes.append(
                        (mv["kind"], f, n, rd.state.value, rd.ids_and_rotations(), rd.reason)
                    )
            if (
                seen_ok is None
                and mv["changed"]
                and all(judge(v.at(n), tb) == "right" for n in mv["changed"])
            ):
                seen_ok = f
        if mv["kind"] != "opening" and mv["changed"]:
            # right at the end, and reported by a settled view after the hands left
            final_ok = all(judge(last.at(n), truth) == "right" for n in mv["changed"])
            if seen_ok is None or not final_ok:
                missed.append(
                    (
                        mv["kind"],
                        sorted(mv["changed"]),
                        [(last.at(n).state.value, last.at(n).reason) for n in mv["changed"]],
                    )
                )
            else:
                latencies.append(seen_ok - mv["left"] + 1)
    total = counts["right"] + counts["wrong"] + counts["unknown"]
    glare = reasons.get("glare", 0)
    res = {
        "condition": cond.name,
        "frames": len(game.frames),
        "calibrated_at": calibrated_at,
        "right_pct": round(100 * counts["right"] / total, 1),
        "right_pct_no_glare": round(100 * counts["right"] / max(1, total - glare), 1),
        "wrong": counts["wrong"],
        "false": len(false_changes),
        "missed": len(missed),
        "latency_max": max(latencies) if latencies else None,
        "reasons": dict(reasons),
        "s_per_frame": round(elapsed / len(game.frames), 3),
    }
    if verbose:
        res["unknown_where"] = {f"{k[0]}:{k[1]}": v for k, v in unknown_where.most_common(25)}
        res["wrong_where"] = [str(w) for w in wrong_where[:10]]
        res["false_list"] = [str(x) for x in false_changes[:10]]
        res["missed_list"] = [str(x) for x in missed[:10]]
    return res


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--only", default=None, help="substring of a condition's name")
    ap.add_argument("--seed", type=int, default=23)
    ap.add_argument("--save", default=None, help="folder to write the frames into")
    ap.add_argument("-v", action="store_true")
    ap.add_argument("--json", default=None)
    a = ap.parse_args()
    rows = []
    for cond in conditions():
        if a.only and a.only not in cond.name:
            continue
        if a.save:
            os.makedirs(os.path.join(a.save, cond.name.replace(" ", "_")), exist_ok=True)
        r = run(
            cond, a.seed, os.path.join(a.save, cond.name.replace(" ", "_")) if a.save else None, a.v
        )
        rows.append(r)
        print(json.dumps(r), flush=True)
    print()
    print(
        "| condition | settled squares right | (glare excl.) | wrong | false / missed"
        " | latency max | unknown reasons |"
    )
    print("|---|---|---|---|---|---|---|")
    for r in rows:
        print(
            f"| {r['condition']} | {r['right_pct']} % | {r['right_pct_no_glare']} % | {r['wrong']}"
            f" | {r['false']} / {r['missed']} | {r['latency_max']} | {r['reasons']} |"
        )
    if a.json:
        with open(a.json, "w") as f:
            json.dump(rows, f, indent=1)


if __name__ == "__main__":
    main()
