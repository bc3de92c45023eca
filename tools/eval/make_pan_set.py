#!/usr/bin/python3
"""Write camera-pan triplets from real frames, one set per pan length, in the layout
tools/eval reads: frame0, frame1 (the truth at t = 0.5) and frame2 are three windows of one
photograph, each moved by half the pan from the one before. The motion is a pure translation,
the simplest large motion there is, so a set shows the pan length from which a model's flow
stops working, apart from everything else that makes real motion hard.

    /usr/bin/python3 tools/eval/make_pan_set.py ../shared/data/val/davis --out /tmp/pans
    /usr/bin/python3 tools/eval/eval.py /tmp/pans/pan-* --framecast build/framecast \\
        --model assets/models/framecast-fast.safetensors --baselines average,minterpolate

Each source is the frame0 of a triplet in the given folders. The pan's direction turns by
75 degrees from one source to the next, so the sets hold pans in every direction. The window
is the photograph less the longest pan, so every set has the same frame size for a source.
"""
import argparse
import math
import os
import sys

import numpy as np
from PIL import Image

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from eval import read_rgb, triplets  # noqa: E402


def pan_windows(img, pan, index, longest):
    """The three frames of a pan of `pan` px cut from img [H, W, 3]: windows of the image less
    `longest` px a side, each moved by half the pan from the one before (whole pixels, so the
    middle one is exact too), in the direction of source number `index`."""
    h, w = img.shape[:2]
    angle = math.radians(75 * index)
    hx, hy = (round(pan / 2 * c) for c in (math.cos(angle), math.sin(angle)))
    frames = []
    for k in range(3):  # frame1's window in the middle of the margin
        x, y = longest // 2 + (k - 1) * hx, longest // 2 + (k - 1) * hy
        frames.append(np.ascontiguousarray(img[y:y + h - longest, x:x + w - longest]))
    return frames


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("sets", nargs="+", help="triplet folders whose frame0 images are the sources")
    ap.add_argument("--out", required=True)
    ap.add_argument("--pans", default="16,32,48,64,96,128",
                    help="pan lengths from frame0 to frame2 in pixels (comma-separated)")
    a = ap.parse_args()
    pans = sorted(int(p) for p in a.pans.split(","))
    if not pans or pans[0] <= 0:
        sys.exit("--pans: positive lengths")
    longest = pans[-1]
    sources = [(name, f0) for root in a.sets for name, (f0, _, _) in triplets(root)]
    if not sources:
        sys.exit("no triplets in " + ", ".join(a.sets))
    used = 0
    for i, (name, path) in enumerate(sources):
        img = read_rgb(path)
        h, w = img.shape[:2]
        if min(h, w) <= 2 * longest:
            print(f"{path}: {w}x{h} is too small for a pan of {longest} px, left out",
                  file=sys.stderr)
            continue
        used += 1
        for pan in pans:
            d = os.path.join(a.out, f"pan-{pan:03d}", name)
            os.makedirs(d, exist_ok=True)
            for k, window in enumerate(pan_windows(img, pan, i, longest)):
                Image.fromarray(window).save(os.path.join(d, f"frame{k}.png"))
    print(f"{used} sources x {len(pans)} pans in {a.out}")


if __name__ == "__main__":
    main()
