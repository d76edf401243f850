"""Scripted table sequences for tests and the benchmark: hands placing, turning and removing pieces.

A script is a list of frames, each with the true table content, the hands above it and the light,
plus which move it belongs to; rendering it gives the camera's view of a game being played.
"""

from __future__ import annotations

import math
import random
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field, replace
from enum import StrEnum

import cv2
import numpy as np

from vision.conditions import Conditions, Light
from vision.drawing import PlacedMarker, TableContent, freeze
from vision.geometry import BoardGeometry
from vision.hands import Hand, draw_hand
from vision.markers import Image
from vision.render import TableRenderer, View
from vision.synthetic import CARD_IDS, CART_IDS, TILE_IDS, demo_piece

Content = tuple[tuple[str, tuple[PlacedMarker, ...]], ...]


class Phase(StrEnum):
    """Where a frame sits in its move: hands over the table, or the table left alone."""

    HAND = "hand"
    REST = "rest"


class MoveKind(StrEnum):
    """What a move does to the table."""

    PLACE = "place"
    TURN = "turn"
    REMOVE = "remove"
    CART = "cart"
    CARD = "card"
    CROSS = "cross"
    LIGHT = "light"


@dataclass(frozen=True)
class ScriptedFrame:
    """One frame of a script: the truth on the table, hands, light, and its move."""

    index: int
    content: Content
    hands: tuple[Hand, ...]
    light: Light
    move: int
    phase: Phase


@dataclass(frozen=True)
class Move:
    """A move: its kind, the locations whose content it changes, its frames [start, end), and the
    first frame with no hand in view after it (`hands_gone`)."""

    index: int
    kind: MoveKind
    changed: frozenset[str]
    start: int
    end: int
    hands_gone: int


@dataclass
class Script:
    """Frames and moves of a scripted sequence."""

    frames: list[ScriptedFrame] = field(default_factory=list)
    moves: list[Move] = field(default_factory=list)

    def render(
        self, renderer: TableRenderer, view: View, conditions: Conditions, seed: int = 0
    ) -> Iterator[tuple[ScriptedFrame, Image]]:
        for f in self.frames:
            cond = replace(conditions.at_frame(f.index), light=f.light)
            img = renderer.render(
                dict(f.content), view, cond, f.hands, seed=seed * 100_003 + f.index
            )
            yield f, img


class ScriptWriter:
    """Builds a script move by move; hands enter from the frame edge nearest their target."""

    def __init__(
        self,
        renderer: TableRenderer,
        view: View,
        start: TableContent | None = None,
        *,
        hand_frames: int = 8,
        rest_frames: int = 6,
        seed: int = 0,
        looks: Sequence[Hand] = (),
        piece: Callable[[int, int, float], PlacedMarker] = demo_piece,
        avoid: Iterable[str] = (),
        offset_mm: float = 0.0,
    ) -> None:
        """`looks`: hands to draw from (skin tone, sleeve; one per trip, by its own random
        stream); `piece`: how a piece of an id looks; `avoid`: squares random moves leave be;
        `offset_mm`: how far off its square's centre a player puts a tile (at random, up to)."""
        self.renderer = renderer
        self.view = view
        self.board: BoardGeometry = renderer.board
        self.hand_frames = hand_frames
        self.rest_frames = rest_frames
        self.rng = random.Random(seed)
        self.content: dict[str, tuple[PlacedMarker, ...]] = dict(start or {})
        self.light = Light()
        self.script = Script()
        self._h = renderer.mat_to_image(view)
        self.looks = tuple(looks)
        self.piece = piece
        self.avoid = frozenset(avoid)
        self._look_rng = random.Random(seed + 7919)
        self.offset_mm = offset_mm
        self._offset_rng = random.Random(seed + 104_729)

    def rest(self, frames: int | None = None) -> None:
        for _ in range(self.rest_frames if frames is None else frames):
            self._frame((), Phase.REST)

    def change(self, kind: MoveKind, target: str, after: tuple[PlacedMarker, ...]) -> None:
        """A hand reaches `target`, leaves `after` there (hidden under the palm), and goes away."""
        start = len(self.script.frames)
        before = self.content.get(target, ())
        self._hand_trip(target, lambda: self._set(target, after))
        same = freeze({target: before}) == freeze({target: after})
        self._finish(kind, frozenset() if same else frozenset({target}), start)

    def hover(
        self,
        over: str,
        target: str,
        piece: PlacedMarker,
        still: int = 6,
        lifted_mm: float = 0.0,
    ) -> None:
        """A hand brings `piece` and holds it still just above `over` for `still` frames (the
        player hesitating), then puts it on `target` and goes away: only `target` changes.

        With `lifted_mm`, during those still frames the piece hovers that far above `over` with
        no hand in view at all (held by its far edge, the arm out of sight): nothing but its
        size and place on the picture tells that it is not lying on the mat."""
        start = len(self.script.frames)
        a, b = self.board.location(over), self.board.location(target)
        ox, oy = self._to_px(a.x_mm, a.y_mm)
        tx, ty = self._to_px(b.x_mm, b.y_mm)
        entry = self._entry_for(tx, ty)
        look = self._look()
        arm_end = (entry[0] + (entry[0] - tx) * 0.5, entry[1] + (entry[1] - ty) * 0.5)
        r = 48.0
        holding = replace(piece, dx_mm=0.0, dy_mm=0.0)

        def palm_for(px: float, py: float) -> tuple[float, float]:
            # the held piece lies ahead of the palm along the arm: put the palm behind it
            ang = math.atan2(py - arm_end[1], px - arm_end[0])
            back = r * 0.75 + 0.5 * piece.body_mm * 1.2
            return px - math.cos(ang) * back, py - math.sin(ang) * back

        n = self.hand_frames
        for i in range(n + 1):
            ease = math.sin(i / n * math.pi / 2)
            x = entry[0] + (ox - entry[0]) * ease
            y = entry[1] + (oy - entry[1]) * ease
            px, py = palm_for(x, y)
            hand = replace(look, x=px, y=py, radius=r, entry=arm_end, holding=holding)
            self._frame((hand,), Phase.HAND)
        if lifted_mm:
            before = self.content.get(over, ())
            lifted = replace(holding, hover_mm=lifted_mm)
            self._set(over, (*before, lifted))
            for _ in range(still):
                self._frame((), Phase.HAND)
            self._set(over, before)
        else:
            for _ in range(still):
                self._frame((hand,), Phase.HAND)
        for i in range(1, 4):
            x, y = ox + (tx - ox) * i / 3, oy + (ty - oy) * i / 3
            px, py = palm_for(x, y)
            hand = replace(look, x=px, y=py, radius=r, entry=arm_end, holding=holding)
            self._frame((hand,), Phase.HAND)
        self._set(target, (*self.content.get(target, ()), piece))
        for i in range(n + 1):
            t = 1 - i / n
            x = entry[0] + (tx - entry[0]) * t
            y = entry[1] + (ty - entry[1]) * t
            self._frame((replace(look, x=x, y=y, radius=r, entry=arm_end),), Phase.HAND)
        self._frame((), Phase.HAND)
        self._finish(MoveKind.PLACE, frozenset({target}), start)

    def cross(self, target: str, linger: int = 0) -> None:
        """A hand passes over `target` (resting `linger` frames there) and leaves; no change."""
        start = len(self.script.frames)
        self._hand_trip(target, lambda: None, linger)
        self._finish(MoveKind.CROSS, frozenset(), start)

    def relight(self, light: Light) -> None:
        """The room's light changes at once (a lamp, a cloud); nothing on the table changes."""
        start = len(self.script.frames)
        self.light = light
        self._finish(MoveKind.LIGHT, frozenset(), start, hands_gone=start)

    # --- a game's worth of random moves ----------------------------------------------------
    def random_game(self, moves: int) -> Script:
        kinds = [MoveKind.PLACE] * 5 + [MoveKind.TURN] * 3 + [MoveKind.REMOVE] * 2
        kinds += [MoveKind.CART] * 2 + [MoveKind.CARD, MoveKind.CROSS, MoveKind.CROSS]
        kinds += [MoveKind.LIGHT]
        self.rest(self.rest_frames)
        for _ in range(moves):
            self._random_move(self.rng.choice(kinds))
        return self.script

    def _random_move(self, kind: MoveKind) -> None:
        rng = self.rng
        free = [r.name for r in self.board.locations if r.name not in self.avoid]
        squares = [n for n in free if not n.startswith("slot")]
        slots = [n for n in free if n.startswith("slot")]
        empty = [s for s in squares if not self.content.get(s)]
        tiles = [s for s in squares if self.content.get(s)]
        if kind == MoveKind.PLACE and empty:
            piece = self.piece(rng.choice(TILE_IDS), rng.randrange(4), rng.uniform(-6, 6))
            if self.offset_mm:
                o, r = self.offset_mm, self._offset_rng
                piece = replace(piece, dx_mm=r.uniform(-o, o), dy_mm=r.uniform(-o, o))
            self.change(kind, rng.choice(empty), (piece,))
        elif kind == MoveKind.TURN and tiles:
            target = rng.choice(tiles)
            pieces = self.content[target]
            top = pieces[-1]
            turned = replace(top, rotation=(top.rotation + rng.choice((1, 2, 3))) % 4)
            self.change(kind, target, (*pieces[:-1], turned))
        elif kind == MoveKind.REMOVE and tiles:
            self.change(kind, rng.choice(tiles), ())
        elif kind == MoveKind.CART and tiles:
            target = rng.choice([t for t in tiles if len(self.content[t]) == 1] or tiles)
            cart = self.piece(rng.choice(CART_IDS), rng.randrange(4), 0.0)
            self.change(kind, target, (self.content[target][0], cart))
        elif kind == MoveKind.CARD:
            card = self.piece(rng.choice(CARD_IDS), rng.randrange(4), rng.uniform(-4, 4))
            self.change(kind, rng.choice(slots), (card,))
        elif kind == MoveKind.LIGHT:
            self.relight(
                Light(
                    rng.uniform(0.8, 1.1),
                    rng.uniform(-0.2, 0.2),
                    rng.uniform(-0.2, 0.2),
                    rng.uniform(0.0, 0.3),
                )
            )
        else:
            self.cross(rng.choice(squares))

    # --- internals --------------------------------------------------------------------------
    def _set(self, target: str, after: tuple[PlacedMarker, ...]) -> None:
        if after:
            self.content[target] = after
        else:
            self.content.pop(target, None)

    def _finish(
        self, kind: MoveKind, changed: frozenset[str], start: int, hands_gone: int | None = None
    ) -> None:
        gone = hands_gone if hands_gone is not None else self._hands_left_mat(start)
        self.rest()
        end = len(self.script.frames)
        self.script.moves.append(Move(len(self.script.moves), kind, changed, start, end, gone))

    def _hands_left_mat(self, start: int) -> int:
        """First frame from which no hand or arm lies over the mat any more."""
        frames = self.script.frames
        quad = np.array(self.view.quad, dtype=np.int32)
        mat = np.zeros((self.view.height, self.view.width), np.uint8)
        cv2.fillConvexPoly(mat, quad, 255)
        gone = len(frames)
        for i in range(len(frames) - 1, start - 1, -1):
            if not frames[i].hands:
                gone = i
                continue
            mask = np.zeros_like(mat)
            for hand in frames[i].hands:
                draw_hand(mask, replace(hand, bgr=(255, 255, 255)))
            if cv2.countNonZero(cv2.bitwise_and(mask, mat)):
                break
            gone = i
        return gone

    def _hand_trip(self, target: str, act: Callable[[], None], linger: int = 0) -> None:
        loc = self.board.location(target)
        tx, ty = self._to_px(loc.x_mm, loc.y_mm)
        entry = self._entry_for(tx, ty)
        n = self.hand_frames
        wobble = self.rng.uniform(0, 2 * math.pi)
        look = self._look()
        for i in range(2 * n + 1):
            # out and back along the arm, easing at the target so the palm lingers over it
            t = 1 - abs(i - n) / n
            ease = math.sin(t * math.pi / 2)
            x = entry[0] + (tx - entry[0]) * ease + 6 * math.sin(wobble + i)
            y = entry[1] + (ty - entry[1]) * ease + 6 * math.cos(wobble + 1.3 * i)
            if i == n:
                act()
            arm_end = (entry[0] + (entry[0] - tx) * 0.5, entry[1] + (entry[1] - ty) * 0.5)
            for _ in range(1 + (linger if i == n else 0)):
                self._frame((replace(look, x=x, y=y, radius=48.0, entry=arm_end),), Phase.HAND)
        # one frame with the arm just leaving the frame edge, then gone
        self._frame((), Phase.HAND)

    def _look(self) -> Hand:
        """The next hand's look (a bare hand of the default skin without `looks`)."""
        if not self.looks:
            return Hand(0.0, 0.0)
        return self._look_rng.choice(self.looks)

    def _entry_for(self, x: float, y: float) -> tuple[float, float]:
        w, h = self.view.width, self.view.height
        options = [(x, h + 90.0), (-90.0, y), (w + 90.0, y)]  # players sit at three sides
        return min(options, key=lambda p: math.hypot(p[0] - x, p[1] - y))

    def _to_px(self, x_mm: float, y_mm: float) -> tuple[float, float]:
        v = self._h @ np.array([x_mm, y_mm, 1.0])
        return float(v[0] / v[2]), float(v[1] / v[2])

    def _frame(self, hands: tuple[Hand, ...], phase: Phase) -> None:
        self.script.frames.append(
            ScriptedFrame(
                len(self.script.frames),
                freeze(self.content),
                hands,
                self.light,
                len(self.script.moves),
                phase,
            )
        )


def opening_table(
    board: BoardGeometry, seed: int, pieces: int = 40, offset_mm: float = 0.0
) -> Mapping[str, tuple[PlacedMarker, ...]]:
    """A table part-way through a game: `pieces` tiles at random squares and rotations, each
    up to `offset_mm` off its square's centre."""
    rng = random.Random(seed)
    squares = [r.name for r in board.locations if not r.name.startswith("slot")]
    chosen = rng.sample(squares, pieces)
    out = {
        s: (demo_piece(rng.choice(TILE_IDS), rng.randrange(4), rng.uniform(-5, 5)),) for s in chosen
    }
    if offset_mm:
        off = random.Random(seed + 104_729)
        out = {
            s: (
                replace(
                    p,
                    dx_mm=off.uniform(-offset_mm, offset_mm),
                    dy_mm=off.uniform(-offset_mm, offset_mm),
                ),
            )
            for s, (p,) in out.items()
        }
    return out


def visible_truth(content: Content) -> dict[str, tuple[tuple[int, int], ...]]:
    """Per location, the (id, quarter turns) a camera can see: a marker under a later piece's body
    (a minecart standing on a tile) is hidden and left out."""
    out: dict[str, tuple[tuple[int, int], ...]] = {}
    for name, all_pieces in content:
        pieces = tuple(p for p in all_pieces if not p.hover_mm)  # held above: not on the mat
        seen = []
        for i, p in enumerate(pieces):
            if not any(_covers(q, p) for q in pieces[i + 1 :]):
                seen.append((p.marker_id, p.rotation % 4))
        if seen:
            out[name] = tuple(sorted(seen))
    return out


def _covers(top: PlacedMarker, under: PlacedMarker) -> bool:
    """Whether `top`'s body hides more than a tenth of `under`'s marker (squares, skew ignored)."""

    def span(c: float, half: float) -> tuple[float, float]:
        return c - half, c + half

    ax0, ax1 = span(top.dx_mm, top.body_mm / 2)
    ay0, ay1 = span(top.dy_mm, top.body_mm / 2)
    bx0, bx1 = span(under.dx_mm, under.size_mm / 2)
    by0, by1 = span(under.dy_mm, under.size_mm / 2)
    w = max(0.0, min(ax1, bx1) - max(ax0, bx0))
    h = max(0.0, min(ay1, by1) - max(ay0, by0))
    return w * h > 0.1 * under.size_mm**2
