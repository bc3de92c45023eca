#!/usr/bin/python3
"""Write held-out synthetic triplets (frame0, frame1 = truth at t = 0.5, frame2) in the layout
tools/eval reads, from the training generator with its own seed: cases no real validation set
here has, such as static subtitles and logos over fast motion (the static-region guard's case).

    /usr/bin/python3 tools/eval/make_synthetic_set.py --out /tmp/overlays --count 24 \\
        --size 512 --data text=4 --data degrade=0

--data KNOB=VALUE sets one of the generator's data knobs (synth.Synth.DATA_KNOBS); text=4
turns every text slot on (two of them are static overlays).
"""
import argparse
import os
import sys

import torch
from PIL import Image

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "train"))
from synth import Synth  # noqa: E402


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--out", required=True)
    ap.add_argument("--pool", default=".pool")
    ap.add_argument("--count", type=int, default=24)
    ap.add_argument("--size", type=int, default=512)
    ap.add_argument("--seed", type=int, default=20261130)
    ap.add_argument("--data", action="append", default=[], help="KNOB=VALUE (repeatable)")
    a = ap.parse_args()
    try:
        knobs = Synth.parse_knobs(a.data)
    except ValueError as e:
        sys.exit(f"--data: {e}")
    if "size" in knobs:
        sys.exit("--data: give the crop size with --size")
    gen = Synth(a.pool, "cpu", a.size, bank=64, seed=a.seed, **knobs)
    torch.manual_seed(a.seed)
    for i in range(a.count):
        b = gen.sample(1, t=0.5)
        d = os.path.join(a.out, f"synthetic-{i:03d}")
        os.makedirs(d, exist_ok=True)
        for name, key in (("frame0", "img0"), ("frame1", "imgt"), ("frame2", "img1")):
            u8 = (b[key][0] * 255).round().byte().permute(1, 2, 0).numpy()
            Image.fromarray(u8).save(os.path.join(d, name + ".png"))
    print(f"{a.count} triplets of {a.size}x{a.size} in {a.out}")


if __name__ == "__main__":
    main()
