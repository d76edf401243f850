"""Every piece of the demo set at every rotation, under varied camera and light, read exactly."""

import random
import statistics
from collections.abc import Callable

import pytest
from vision_testkit import STICKERS

from vision.conditions import Conditions, Light
from vision.drawing import PlacedMarker, freeze
from vision.geometry import BoardGeometry
from vision.hands import Hand
from vision.markers import Image
from vision.pipeline import VisionPipeline
from vision.readings import LocationState, SettledView
from vision.render import TableRenderer, View
from vision.sequence import visible_truth
from vision.synthetic import CARD_IDS, CART_IDS, TILE_IDS, demo_piece

Reader = Callable[[VisionPipeline, Image], SettledView]

CASES = {
    "straight": (dict(), Conditions(blur_sigma=0.6, noise_sigma=1.5)),
    "tilted_turned": (
        dict(tilt=0.15, turn_deg=-6.0),
        Conditions(blur_sigma=1.0, noise_sigma=3.0, light=Light(1.0, 0.2, 0.0, 0.2)),
    ),
    "dim_uneven": (
        dict(tilt=0.05, turn_deg=4.0, shift=(-20.0, 10.0), fill=0.88),
        Conditions(blur_sigma=0.8, noise_sigma=3.0, light=Light(0.65, 0.25, -0.2, 0.4)),
    ),
    "bright_blurry": (
        dict(tilt=-0.08, turn_deg=1.5),
        Conditions(blur_sigma=1.3, noise_sigma=2.0, light=Light(1.12, -0.1, 0.1, 0.0)),
    ),
}


def full_table(board: BoardGeometry, turn: int, case: int) -> dict[str, tuple[PlacedMarker, ...]]:
    """Every tile and cart alone on a square, turned `turn` more than its neighbour; four cards."""
    rng = random.Random(turn * 10 + case)
    squares = [r.name for r in board.locations if not r.name.startswith("slot")]
    spots = rng.sample(squares, len(TILE_IDS) + len(CART_IDS))
    content = {}
    for spot, marker in zip(spots, TILE_IDS + CART_IDS, strict=True):
        piece = demo_piece(marker, (marker + turn) % 4, rng.uniform(-7, 7))
        content[spot] = (piece,)
    for j in range(4):
        card = CARD_IDS[4 * (turn % 2) + j]
        content[f"slot{j + 1}"] = (
            demo_piece(card, (turn // 2 + j + case) % 4, rng.uniform(-4, 4)),
        )
    return content


@pytest.mark.parametrize("case", list(CASES))
def test_every_piece_at_every_rotation_reads_back_exactly(
    board: BoardGeometry, renderer: TableRenderer, read_still: Reader, case: str
) -> None:
    view_args, conditions = CASES[case]
    view = View.overhead(board, **view_args)  # type: ignore[arg-type]
    for turn in range(4):
        content = full_table(board, turn, list(CASES).index(case))
        frame = renderer.render(content, view, conditions, seed=turn)
        seen = read_still(VisionPipeline(board, STICKERS), frame)
        truth = visible_truth(freeze(content))
        got = {r.name: r.ids_and_rotations() for r in seen.readings if r.markers}
        assert got == truth, f"{case} turn {turn}"
        states = {r.state for r in seen.readings}
        assert states == {LocationState.EMPTY, LocationState.OCCUPIED}
        confidences = [m.confidence for r in seen.readings for m in r.markers]
        assert all(0.0 <= c <= 1.0 for c in confidences)
        assert statistics.median(confidences) > 0.4


def test_cart_on_a_tile_is_read_and_the_hidden_tile_is_not_invented(
    board: BoardGeometry, renderer: TableRenderer, read_still: Reader
) -> None:
    content = {"E8": (demo_piece(10, 1), demo_piece(CART_IDS[0], 2))}
    frame = renderer.render(content, View.overhead(board), seed=3)
    seen = read_still(VisionPipeline(board, STICKERS), frame)
    assert seen.at("E8").ids_and_rotations() == ((CART_IDS[0], 2),)


def test_a_resting_hand_makes_squares_occluded_never_empty(
    board: BoardGeometry, renderer: TableRenderer, read_still: Reader
) -> None:
    view = View.overhead(board)
    content = {"F7": (demo_piece(12, 0),)}
    h = renderer.mat_to_image(view)
    x, y, w = h @ [board.location("F7").x_mm + 20, board.location("F7").y_mm, 1.0]
    hand = Hand(x / w, y / w, 55.0, entry=(x / w, 820.0))
    frame = renderer.render(content, view, hands=[hand], seed=1)
    seen = read_still(VisionPipeline(board, STICKERS), frame)
    assert seen.at("F7").state == LocationState.OCCLUDED
    assert seen.at("G7").state == LocationState.OCCLUDED
    assert seen.at("A12").state == LocationState.EMPTY
    assert {"F7", "G7"} <= seen.occluded


@pytest.mark.parametrize("seed", [1, 2])
def test_18mm_markers_read_under_a_soft_lens(
    board: BoardGeometry, renderer: TableRenderer, read_still: Reader, seed: int
) -> None:
    from vision.geometry import Sticker

    stickers = [Sticker(i, f"small {i}", 18.0) for i in range(4, 64)]
    rng = random.Random(seed)
    squares = [r.name for r in board.locations if not r.name.startswith("slot")]
    content = {
        spot: (PlacedMarker(i, rng.randrange(4), 18.0, 27.0, skew_deg=rng.uniform(-6, 6)),)
        for spot, i in zip(rng.sample(squares, 60), range(4, 64), strict=True)
    }
    frame = renderer.render(content, View.overhead(board), Conditions(1.3, 2.5), seed=seed)
    seen = read_still(VisionPipeline(board, stickers), frame)
    got = {r.name: r.ids_and_rotations() for r in seen.readings if r.markers}
    assert got == visible_truth(freeze(content))


def _cast(frame: Image, gains: tuple[float, float, float]) -> Image:
    """The frame as a camera under a coloured light would see it (per-channel BGR gains)."""
    import numpy as np

    out = frame.astype(np.float32) * np.array(gains, np.float32)
    return np.clip(out, 0, 255).astype(np.uint8)


CASTS = {
    "slightly_warm": (0.90, 0.96, 1.0),
    "warm_lamp": (0.80, 0.92, 1.0),
    "cool_shade": (1.0, 0.97, 0.88),
    "daylight_blue": (1.0, 0.95, 0.82),
}


@pytest.mark.parametrize("cast", list(CASTS))
def test_a_colour_cast_reads_the_table_exactly_and_a_hand_stays_occluded(
    board: BoardGeometry, renderer: TableRenderer, read_still: Reader, cast: str
) -> None:
    view = View.overhead(board, tilt=0.05)
    conditions = Conditions(blur_sigma=0.9, noise_sigma=2.5, light=Light(0.9, 0.15, -0.1, 0.2))
    content = full_table(board, 1, 0)
    frame = _cast(renderer.render(content, view, conditions, seed=4), CASTS[cast])
    seen = read_still(VisionPipeline(board, STICKERS), frame)
    truth = visible_truth(freeze(content))
    got = {r.name: r.ids_and_rotations() for r in seen.readings if r.markers}
    assert got == truth
    states = {r.name: r.state for r in seen.readings}
    assert all(states[n] == LocationState.OCCUPIED for n in truth)
    assert all(s == LocationState.EMPTY for n, s in states.items() if n not in truth)
    # a hand resting over an occupied square (its arm over empty ones) is still a hand
    occupied = next(n for n in ("F7", "E8", "G6", "D9") if n in truth)
    rect = board.location(occupied)
    h = renderer.mat_to_image(view)
    x, y, w = h @ [rect.x_mm + 25, rect.y_mm, 1.0]
    hand = Hand(x / w, y / w, 55.0, entry=(x / w, 820.0))
    hidden = _cast(renderer.render(content, view, conditions, [hand], seed=5), CASTS[cast])
    seen = read_still(VisionPipeline(board, STICKERS), hidden)
    assert seen.at(occupied).state == LocationState.OCCLUDED
    assert len(seen.occluded - set(truth)) >= 3, "the arm over empty squares must occlude them"
    assert seen.at("A12").state != LocationState.OCCLUDED
