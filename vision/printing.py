"""Printable sheets at true scale on A4: the mat in tiles with its corner markers, piece stickers.

Pages are raster images at `dpi`, written as PNG (with the resolution recorded, so viewers print
them at size) and gathered in one PDF whose pages are exactly A4; print at 100 % ("actual size").
The PDF and PNG writers are small and hand-written (zlib from the standard library), so printing
needs nothing beyond OpenCV and numpy.
"""

from __future__ import annotations

import struct
import textwrap
import zlib
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

import cv2
import numpy as np

from vision.drawing import draw_marker, draw_mat
from vision.geometry import BoardGeometry, Sticker
from vision.markers import Image

A4_MM = (210.0, 297.0)
MM_PER_INCH = 25.4
POINTS_PER_MM = 72.0 / MM_PER_INCH


@dataclass(frozen=True)
class PrintSettings:
    """Resolution and the paper margin most printers cannot print on."""

    dpi: int = 300
    margin_mm: float = 10.0

    @property
    def px_per_mm(self) -> float:
        return self.dpi / MM_PER_INCH


@dataclass(frozen=True)
class Page:
    """One A4 page: a short file-name stem and its grey image (portrait or landscape)."""

    name: str
    image: Image

    @property
    def landscape(self) -> bool:
        return bool(self.image.shape[1] > self.image.shape[0])


def _blank(settings: PrintSettings, landscape: bool) -> Image:
    w, h = A4_MM[::-1] if landscape else A4_MM
    s = settings.px_per_mm
    return np.full((round(h * s), round(w * s)), 255, np.uint8)


def _text(img: Image, text: str, x_mm: float, y_mm: float, size_mm: float, s: float) -> None:
    scale = size_mm * s / 22.0
    thick = max(1, round(size_mm * s / 14))
    org = (round(x_mm * s), round(y_mm * s))
    cv2.putText(img, text, org, cv2.FONT_HERSHEY_SIMPLEX, scale, 0, thick, cv2.LINE_AA)


def _scale_bar(img: Image, x_mm: float, y_mm: float, s: float) -> None:
    """A 50 mm bar with centimetre ticks: measure it to check the print is at true scale."""
    x0, x1, y = round(x_mm * s), round((x_mm + 50) * s), round(y_mm * s)
    cv2.line(img, (x0, y), (x1, y), 0, max(1, round(0.3 * s)))
    for cm in range(6):
        x = round((x_mm + 10 * cm) * s)
        cv2.line(img, (x, y - round(1.5 * s)), (x, y), 0, max(1, round(0.3 * s)))
    _text(img, "50 mm", x_mm + 52, y_mm + 1, 2.5, s)


def seams(length_mm: float, tile_mm: float, keep_whole: list[tuple[float, float]]) -> list[float]:
    """Where to cut a mat `length_mm` long into tiles at most `tile_mm` long, never through an
    interval of `keep_whole` (a corner marker with its quiet zone: taped across a seam it may not
    read). Returns the tiles' start positions, beginning with 0."""
    starts = [0.0]
    while length_mm - starts[-1] > tile_mm:
        cut = starts[-1] + tile_mm
        for lo, hi in sorted(keep_whole, reverse=True):
            if lo < cut < hi:
                cut = lo  # end the tile before the marker: the next one holds it whole
        if cut <= starts[-1] + 1.0:
            raise ValueError(f"a tile of {tile_mm:g} mm cannot hold what must not be cut")
        starts.append(cut)
    return starts


def mat_pages(board: BoardGeometry, settings: PrintSettings = PrintSettings()) -> list[Page]:
    """The mat cut into A4 tiles (whichever orientation needs fewer pages), each with a cut line
    around its part, its place in the grid of tiles, and a scale bar. No seam crosses a corner
    marker or its quiet zone."""
    m = settings.margin_mm
    cells = board.family.bits + 2
    whole_x, whole_y = [], []
    for corner in board.corners:
        half = corner.size_mm * (cells + 2) / cells / 2 + 2.0
        whole_x.append((corner.x_mm - half, corner.x_mm + half))
        whole_y.append((corner.y_mm - half, corner.y_mm + half))
    best = None
    for landscape in (False, True):
        pw, ph = A4_MM[::-1] if landscape else A4_MM
        cw, ch = pw - 2 * m, ph - 2 * m - 8  # 8 mm more at the top for the caption
        xs = seams(board.width_mm, cw, whole_x)
        ys = seams(board.height_mm, ch, whole_y)
        if best is None or len(xs) * len(ys) < best[0]:
            best = (len(xs) * len(ys), landscape, xs, ys)
    assert best is not None
    _, landscape, xs, ys = best
    cols, rows = len(xs), len(ys)
    s = settings.px_per_mm
    pages = []
    for r in range(rows):
        for c in range(cols):
            ox, oy = xs[c], ys[r]
            w = (xs[c + 1] if c + 1 < cols else board.width_mm) - ox
            h = (ys[r + 1] if r + 1 < rows else board.height_mm) - oy
            page = _blank(settings, landscape)
            part = draw_mat(board, s, origin_mm=(ox, oy), size_mm=(w, h), background=255)
            top = m + 8
            y0, x0 = round(top * s), round(m * s)
            page[y0 : y0 + part.shape[0], x0 : x0 + part.shape[1]] = cv2.cvtColor(
                part, cv2.COLOR_BGR2GRAY
            )
            cv2.rectangle(page, (x0, y0), (x0 + part.shape[1] - 1, y0 + part.shape[0] - 1), 160, 1)
            n = r * cols + c + 1
            caption = (
                f"{board.name} mat - tile row {r + 1}/{rows}, column {c + 1}/{cols} "
                f"(page {n} of {rows * cols}) - cut on the line, butt tiles edge to edge"
            )
            _text(page, caption, m, m + 3, 2.6, s)
            _scale_bar(page, m, top + h + 6, s)
            pages.append(Page(f"mat-{n:02}", page))
    return pages


def sticker_pages(
    board: BoardGeometry,
    stickers: Sequence[Sticker],
    title: str,
    settings: PrintSettings = PrintSettings(),
) -> list[Page]:
    """Every sticker (each `copies` times) with a one-cell white quiet zone, a cut square, a tick
    marking its top edge, and its label and id underneath; largest first, packed in rows."""
    s = settings.px_per_mm
    m = settings.margin_mm
    width, height = A4_MM
    gap, label_h = 4.0, 13.0
    cells = board.family.bits + 2
    order = sorted(
        (st for st in stickers for _ in range(st.copies)), key=lambda t: (-t.size_mm, t.marker_id)
    )
    pages: list[Page] = []
    page = None
    x = y = row_h = 0.0
    for st in order:
        side = st.size_mm * (cells + 2) / cells  # with the quiet zone
        cell_w = max(side, 26.0)
        if page is not None and x + cell_w > width - m:  # next row
            x, y, row_h = m, y + row_h + gap, 0.0
        if page is None or y + side + label_h > height - m - 8:
            if page is not None:
                pages.append(Page(f"stickers-{len(pages) + 1:02}", page))
            page = _blank(settings, False)
            _text(page, f"{title} stickers - print at 100 %", m, m + 3, 3.0, s)
            _scale_bar(page, m, height - m - 3, s)
            x, y, row_h = m, m + 10, 0.0
        cx, cy = x + cell_w / 2, y + side / 2
        _draw_sticker(page, board, st, cx, cy, side, s)
        for i, line in enumerate(sticker_caption(st, cell_w)):
            _text(page, line, x, y + side + 3 + 3 * i, 2.0, s)
        x += cell_w + gap
        row_h = max(row_h, side + label_h)
    if page is not None:
        pages.append(Page(f"stickers-{len(pages) + 1:02}", page))
    return pages


def sticker_caption(sticker: Sticker, width_mm: float) -> list[str]:
    """The id, then the label wrapped to the sticker's width in at most three lines."""
    per_line = max(10, int(width_mm / 1.45))  # 2 mm Hershey glyphs are about 1.45 mm wide
    lines = textwrap.wrap(sticker.label, per_line) or [""]
    if len(lines) > 3:
        lines = [*lines[:2], textwrap.shorten(" ".join(lines[2:]), per_line, placeholder="...")]
    return [f"id {sticker.marker_id}", *lines]


def _draw_sticker(
    page: Image, board: BoardGeometry, st: Sticker, cx: float, cy: float, side: float, s: float
) -> None:
    h = side / 2
    x0, y0 = round((cx - h) * s), round((cy - h) * s)
    x1, y1 = round((cx + h) * s), round((cy + h) * s)
    region = np.full((y1 - y0, x1 - x0, 3), 255, np.uint8)
    draw_marker(region, st.marker_id, st.size_mm, h, h, 0, 0.0, s, board.family)
    page[y0:y1, x0:x1] = cv2.cvtColor(region, cv2.COLOR_BGR2GRAY)
    cv2.rectangle(page, (x0, y0), (x1 - 1, y1 - 1), 170, 1)
    tick = round(1.5 * s)
    mid = (x0 + x1) // 2
    cv2.line(page, (mid, y0 - tick), (mid, y0), 0, max(1, round(0.3 * s)))


# --- writers ---------------------------------------------------------------------------------
def png_bytes(gray: Image, dpi: int) -> bytes:
    """An 8-bit grey PNG with its resolution (pHYs), so it prints at true scale."""
    h, w = gray.shape

    def chunk(kind: bytes, data: bytes) -> bytes:
        body = kind + data
        return struct.pack(">I", len(data)) + body + struct.pack(">I", zlib.crc32(body))

    rows = np.hstack([np.zeros((h, 1), np.uint8), np.ascontiguousarray(gray, np.uint8)])
    ppm = round(dpi / 0.0254)
    return (
        b"\x89PNG\r\n\x1a\n"
        + chunk(b"IHDR", struct.pack(">IIBBBBB", w, h, 8, 0, 0, 0, 0))
        + chunk(b"pHYs", struct.pack(">IIB", ppm, ppm, 1))
        + chunk(b"IDAT", zlib.compress(rows.tobytes(), 6))
        + chunk(b"IEND", b"")
    )


def pdf_bytes(pages: Iterable[Page]) -> bytes:
    """A PDF with one A4 page per image, each image filling its page (grey, Flate-compressed)."""
    objects: list[bytes] = []
    kids: list[int] = []
    for page in pages:
        h, w = page.image.shape
        pw, ph = (A4_MM[1], A4_MM[0]) if page.landscape else A4_MM
        pw_pt, ph_pt = pw * POINTS_PER_MM, ph * POINTS_PER_MM
        data = zlib.compress(np.ascontiguousarray(page.image, np.uint8).tobytes(), 6)
        image_id = len(objects) + 3
        objects.append(
            b"<< /Type /XObject /Subtype /Image /Width %d /Height %d /ColorSpace /DeviceGray "
            b"/BitsPerComponent 8 /Filter /FlateDecode /Length %d >>\nstream\n"
            % (w, h, len(data))
            + data
            + b"\nendstream"
        )
        draw = b"q %.3f 0 0 %.3f 0 0 cm /Im0 Do Q" % (pw_pt, ph_pt)
        objects.append(b"<< /Length %d >>\nstream\n" % len(draw) + draw + b"\nendstream")
        content_id = len(objects) + 2
        objects.append(
            b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 %.3f %.3f] "
            b"/Resources << /XObject << /Im0 %d 0 R >> >> /Contents %d 0 R >>"
            % (pw_pt, ph_pt, image_id, content_id)
        )
        kids.append(len(objects) + 2)
    head = [
        b"<< /Type /Catalog /Pages 2 0 R >>",
        b"<< /Type /Pages /Kids [%s] /Count %d >>"
        % (b" ".join(b"%d 0 R" % k for k in kids), len(kids)),
    ]
    out = bytearray(b"%PDF-1.4\n%\xe2\xe3\xcf\xd3\n")
    offsets = []
    for number, body in enumerate(head + objects, start=1):
        offsets.append(len(out))
        out += b"%d 0 obj\n" % number + body + b"\nendobj\n"
    xref = len(out)
    out += b"xref\n0 %d\n0000000000 65535 f \n" % (len(offsets) + 1)
    out += b"".join(b"%010d 00000 n \n" % o for o in offsets)
    out += b"trailer\n<< /Size %d /Root 1 0 R >>\nstartxref\n%d\n%%%%EOF\n" % (
        len(offsets) + 1,
        xref,
    )
    return bytes(out)


def write_print_set(
    board: BoardGeometry,
    stickers: Sequence[Sticker],
    out_dir: Path,
    title: str,
    settings: PrintSettings = PrintSettings(),
) -> list[Path]:
    """Write `<title>-print.pdf` and one PNG per page into `out_dir`; returns the paths."""
    out_dir.mkdir(parents=True, exist_ok=True)
    pages = mat_pages(board, settings) + sticker_pages(board, stickers, title, settings)
    written = []
    for page in pages:
        path = out_dir / f"{title}-{page.name}.png"
        path.write_bytes(png_bytes(page.image, settings.dpi))
        written.append(path)
    pdf = out_dir / f"{title}-print.pdf"
    pdf.write_bytes(pdf_bytes(pages))
    return [pdf, *written]
