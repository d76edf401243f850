"""Printable sheets: valid A4 PDF and PNG at true scale, every sticker readable, the CLI command."""

import re
import zlib
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import cv2
import numpy as np
import pytest

import rules
from controller.cli import main
from controller.cli.vision_cmd import write_markers
from controller.vision_bridge import board_geometry, observation, stickers
from rules.physical import (
    Catalogue,
    CatalogueEntry,
    CornerMarker,
    Layout,
    Location,
    LocationKind,
    Piece,
    PlacedPiece,
)
from tests.vision.vision_testkit import STICKERS
from vision.geometry import BoardGeometry, MarkerFamily
from vision.markers import detect, make_corner_detector
from vision.printing import PrintSettings, mat_pages, pdf_bytes, png_bytes, sticker_pages
from vision.readings import LocationReading, LocationState, MarkerReading, SettledView

DPI = 100
SETTINGS = PrintSettings(dpi=DPI)
PX_PER_MM = DPI / 25.4


def test_every_sticker_is_printed_once_at_its_true_size(board: BoardGeometry) -> None:
    pages = sticker_pages(board, STICKERS, "demo", SETTINGS)
    detector = make_corner_detector(board.family)
    found = [m for p in pages for m in detect(detector, p.image)]
    assert sorted(m.marker_id for m in found) == sorted(s.marker_id for s in STICKERS)
    sizes = {s.marker_id: s.size_mm for s in STICKERS}
    for m in found:
        assert m.side_px / PX_PER_MM == pytest.approx(sizes[m.marker_id], abs=0.6)
        assert m.quarter_turns() == 0  # printed upright: the tick marks the top edge


def test_mat_tiles_cover_the_mat_with_corner_markers_in_place(board: BoardGeometry) -> None:
    pages = mat_pages(board, SETTINGS)
    assert len(pages) == 12
    first = pages[0].image
    (corner,) = [m for m in detect(make_corner_detector(board.family), first) if m.marker_id == 0]
    x, y = corner.centre
    c = board.corners[0]
    top = SETTINGS.margin_mm + 8
    assert x / PX_PER_MM == pytest.approx(SETTINGS.margin_mm + c.x_mm, abs=0.5)
    assert y / PX_PER_MM == pytest.approx(top + c.y_mm, abs=0.5)
    assert corner.side_px / PX_PER_MM == pytest.approx(c.size_mm, abs=0.6)


def test_pdf_is_a4_with_one_page_per_image_and_a_valid_xref(board: BoardGeometry) -> None:
    pages = sticker_pages(board, STICKERS, "demo", SETTINGS)[:2]
    data = pdf_bytes(pages)
    assert data.startswith(b"%PDF-1.4") and data.rstrip().endswith(b"%%EOF")
    assert b"/Count 2" in data
    assert data.count(b"/MediaBox [0 0 595.276 841.890]") == 2
    start = int(data.rsplit(b"startxref\n", 1)[1].split()[0])
    assert data[start:].startswith(b"xref")
    for number, offset in enumerate(re.findall(rb"(\d{10}) 00000 n", data[start:]), start=1):
        assert data[int(offset) :].startswith(b"%d 0 obj" % number)
    stream = re.search(rb"/Length (\d+) >>\nstream\n", data)
    assert stream is not None
    raw = zlib.decompress(data[stream.end() : stream.end() + int(stream.group(1))])
    assert raw == pages[0].image.tobytes()


def test_png_records_its_resolution() -> None:
    image = np.arange(12, dtype=np.uint8).reshape(3, 4)
    data = png_bytes(image, 300)
    decoded = cv2.imdecode(np.frombuffer(data, np.uint8), cv2.IMREAD_GRAYSCALE)
    assert decoded is not None and np.array_equal(decoded, image)
    i = data.index(b"pHYs")
    assert data[i + 4 : i + 13] == (11811).to_bytes(4, "big") * 2 + b"\x01"


def small_game() -> tuple[Layout, Catalogue]:
    squares = tuple(
        Location(f"s{i}", LocationKind.SQUARE, 60 + 40 * i, 80, 40, 40) for i in range(3)
    )
    slot = (Location("reveal", LocationKind.SLOT, 250, 80, 63, 88),)
    corners = (
        CornerMarker(0, 20, 20, 24),
        CornerMarker(1, 280, 20, 24),
        CornerMarker(2, 280, 160, 24),
        CornerMarker(3, 20, 160, 24),
    )
    layout = Layout("tiny", 300, 180, squares + slot, corners)
    catalogue = Catalogue(
        "tiny",
        (
            CatalogueEntry(4, Piece("tile", "straight"), "straight track", 30, 2),
            CatalogueEntry(5, Piece("minecart", "red"), "red minecart", 20),
            CatalogueEntry(70, Piece("card", "chasm"), "the Chasm card", 40, 1),
        ),
    )
    return layout, catalogue


def test_bridge_maps_layout_catalogue_and_views() -> None:
    layout, catalogue = small_game()
    board = board_geometry(layout, catalogue)
    assert board.family == MarkerFamily.ARUCO_4X4_100  # id 70 does not fit 4x4_50
    assert [r.name for r in board.locations] == ["s0", "s1", "s2", "reveal"]
    assert [s.label for s in stickers(catalogue)][-1] == "the Chasm card"
    view = SettledView(
        9,
        (
            LocationReading("s0", LocationState.OCCUPIED, (MarkerReading(4, 3, 0.9, 60, 80),)),
            LocationReading("s1", LocationState.OCCLUDED),
            LocationReading("s2", LocationState.OCCUPIED, (MarkerReading(99, 0, 0.9, 140, 80),)),
        ),
        frozenset({"s0"}),
        frozenset({"s1"}),
        False,
    )
    table = observation(view, catalogue)
    assert table.at("s0") == (PlacedPiece(Piece("tile", "straight"), 1),)  # straight: 3 % 2
    assert table.unknown == {"s1"} and table.at("s2") == ()


def test_write_markers_and_the_cli_command(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    layout, catalogue = small_game()
    paths = write_markers(layout, catalogue, tmp_path / "direct", "tiny", DPI)
    assert [p.name for p in paths] == [
        "tiny-print.pdf",
        "tiny-mat-01.png",
        "tiny-mat-02.png",
        "tiny-stickers-01.png",
    ]
    from rules.offtherails import OffTheRailsGame

    mat, printed = layout, catalogue

    class Tiny(OffTheRailsGame):
        name, title, min_players, max_players, options = "tinygame", "Tiny", 1, 2, ()

        def layout(self, options: Mapping[str, Any]) -> Layout:
            return mat

        def catalogue(self) -> Catalogue:
            return printed

    monkeypatch.setitem(rules.GAMES, "tinygame", Tiny())
    assert main(["markers", "tinygame", "--out", str(tmp_path / "cli"), "--dpi", "100"]) == 0
    assert (tmp_path / "cli" / "tinygame-print.pdf").stat().st_size > 1000
    assert main(["markers", "nosuchgame", "--out", str(tmp_path / "x")]) == 2


def test_sticker_caption_shows_the_id_and_at_most_three_label_lines() -> None:
    from vision.geometry import Sticker
    from vision.printing import sticker_caption

    long = Sticker(55, "mission: " + "stockpile jewels from an opponent's surface " * 4, 40.0)
    lines = sticker_caption(long, 53.0)
    assert lines[0] == "id 55" and len(lines) == 4 and lines[-1].endswith("...")
    assert sticker_caption(Sticker(7, "red minecart", 18.0), 26.0) == ["id 7", "red minecart"]


def test_no_seam_cuts_a_corner_marker_of_any_game() -> None:
    from controller.vision_bridge import board_geometry
    from vision.printing import seams

    for name, info in sorted(rules.GAMES.items()):
        for players in range(info.min_players, info.max_players + 1):
            board = board_geometry(info.layout({"players": players}), info.catalogue())
            for landscape in (False, True):
                tile_w, tile_h = (277.0, 182.0) if landscape else (190.0, 269.0)
                for along, length, tile in (
                    ("x", board.width_mm, tile_w),
                    ("y", board.height_mm, tile_h),
                ):
                    cuts = seams(length, tile, [])
                    keep = [
                        (c.x_mm - c.size_mm * 4 / 6 - 2, c.x_mm + c.size_mm * 4 / 6 + 2)
                        if along == "x"
                        else (c.y_mm - c.size_mm * 4 / 6 - 2, c.y_mm + c.size_mm * 4 / 6 + 2)
                        for c in board.corners
                    ]
                    safe = seams(length, tile, keep)
                    assert all(not (lo < cut < hi) for cut in safe[1:] for lo, hi in keep), name
                    ends = [*safe[1:], length]
                    assert all(0 < b - a <= tile for a, b in zip(safe, ends, strict=True))
                    assert len(safe) <= len(cuts) + 1


def test_the_off_the_rails_mat_used_to_be_cut_through_its_bottom_markers() -> None:
    from controller.vision_bridge import board_geometry
    from vision.printing import seams

    info = rules.game_named("offtherails")
    board = board_geometry(info.layout({}), info.catalogue())
    bottom = [(c.y_mm - 22.0, c.y_mm + 22.0) for c in board.corners if c.marker_id in (2, 3)]
    plain = seams(board.height_mm, 269.0, [])
    assert any(lo < cut < hi for cut in plain for lo, hi in bottom)  # what happened
    assert not any(
        lo < cut < hi for cut in seams(board.height_mm, 269.0, bottom) for lo, hi in bottom
    )
