"""The printed mat (`railtable markers GAME --out DIR`) put together from its A4 pages."""

import glob
import sys

import cv2
import numpy as np


def parts(folder, game):
    out = []
    for path in sorted(glob.glob(f"{folder}/{game}-mat-*.png")):
        im = cv2.imread(path, cv2.IMREAD_GRAYSCALE)
        line = im == 160
        rows = np.where(line.sum(1) > 400)[0]
        cols = np.where(line.sum(0) > 400)[0]
        y0, y1, x0, x1 = rows.min(), rows.max(), cols.min(), cols.max()
        part = im[y0 : y1 + 1, x0 : x1 + 1].copy()
        # the cut line was drawn over the part's border pixels: repeat their inner neighbours
        part[0, :] = part[1, :]
        part[-1, :] = part[-2, :]
        part[:, 0] = part[:, 1]
        part[:, -1] = part[:, -2]
        out.append(part)
    return out


def assemble(folder, game, width_mm, height_mm, dpi=300):
    ps = parts(folder, game)
    s = dpi / 25.4
    W, H = round(width_mm * s), round(height_mm * s)
    mat = np.full((H, W), 255, np.uint8)
    x = y = 0
    row_h = 0
    for p in ps:
        if x >= W - 5:
            x = 0
            y += row_h
            row_h = 0
        h, w = p.shape
        mat[y : y + h, x : x + w] = p[: H - y, : W - x]
        x += w
        row_h = h
    return mat, s


if __name__ == "__main__":
    m, s = assemble(sys.argv[1], sys.argv[2], float(sys.argv[3]), float(sys.argv[4]))
    print(m.shape, s)
    cv2.imwrite(
        "/tmp/mat_small.png", cv2.resize(m, None, fx=0.15, fy=0.15, interpolation=cv2.INTER_AREA)
    )
