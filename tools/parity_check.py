#!/usr/bin/python3
"""Parity of `framecast pair` (CPU backend) with the PyTorch reference (issue 5).

Exports a fresh random model of the variant (seeded, with flows of a few pixels) as
.json/.bin and as .safetensors, writes two frames of a size that is not a multiple of 16,
runs the C++ CLI three times (json; safetensors with --large-motion off; json with
--static-guard; the others with the large-motion pass, the CLI's default) at two t, and
compares every output value with the reference's, quantized the same way. Exits 1 naming
the variant, model, t, max error and its location if any value is more than 1 LSB off;
prints one summary line otherwise. --convex adds refinement blocks at scales 4, 2 and 1 that
upsample by convex upsampling.

Usage: /usr/bin/python3 tools/parity_check.py --framecast build/framecast --variant classic
"""
import argparse
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np
import torch

sys.path.insert(0, str(Path(__file__).resolve().parent))
from framecast_model import VARIANTS, load_model, save_model, save_safetensors  # noqa: E402
from framecast_model.testdata import (make_frames, random_net, read_png, to_tensor,  # noqa: E402
                                      to_u8, write_png)

WIDTHS = {"classic": (10, 24, 0, 0), "tfact": (10, 24, 16, 0), "tfact2": (10, 24, 16, 8)}
CONVEX_BLOCKS = [(8, 12, 4), (6, 10, 2), (6, 8, 1)]  # (c1, c2, scale): upsampling by 8, 4, 2
SIZE = (70, 45)  # W, H: pads to 80x48
TS = [0.3, 0.7]
# (model file, static guard, large-motion pass)
RUNS = [("model.json", False, True), ("model.safetensors", False, False),
        ("model.json", True, True)]


def run_framecast(exe, d, model, guard, large_motion, tag):
    """Run `framecast pair` and return its outputs as uint8 HxWx3 arrays (exits on failure)."""
    pattern = d / f"out_{tag}_%d.png"
    cmd = [str(exe), "pair", str(d / "frame0.png"), str(d / "frame1.png"), "-o", str(pattern),
           "-t", ",".join(map(str, TS)), "--model", str(d / model), "--backend", "cpu",
           "--precision", "f32"]
    if not large_motion:
        cmd += ["--large-motion", "off"]
    if guard:
        cmd.append("--static-guard")
    try:
        r = subprocess.run(cmd, capture_output=True, text=True, timeout=600)
    except (OSError, subprocess.TimeoutExpired) as e:
        sys.exit(f"parity FAILED: {' '.join(cmd)}: {e}")
    if r.returncode != 0:
        sys.exit(f"parity FAILED: {' '.join(cmd)} exited {r.returncode}: {r.stderr.strip()}")
    try:
        return [read_png(str(pattern) % i) for i in range(1, len(TS) + 1)]
    except (OSError, ValueError) as e:
        sys.exit(f"parity FAILED: {' '.join(cmd)}: {e}")


def check(args, d):
    f0, f1 = make_frames(*SIZE, seed=args.seed, static=True)
    write_png(d / "frame0.png", f0)
    write_png(d / "frame1.png", f1)
    img0, img1 = to_tensor(f0), to_tensor(f1)
    net = random_net(args.variant, *WIDTHS[args.variant], args.seed, img0, img1, TS,
                     blocks=CONVEX_BLOCKS if args.convex else (), convex_up=args.convex)
    meta = {"name": "parity_check", "seed": args.seed}
    save_model(net, d / "model", meta)
    save_safetensors(net, d / "model.safetensors", meta)
    worst = 0
    for i, (model, guard, large_motion) in enumerate(RUNS):
        ref = load_model(d / model)
        got = run_framecast(args.framecast, d, model, guard, large_motion, i)
        for t, out in zip(TS, got):
            with torch.no_grad():
                want = to_u8(ref(img0, img1, t, static_guard=guard, large_motion=large_motion)[0])
            where = (f"variant {args.variant}{' convex' if args.convex else ''}, {model}, t={t}, "
                     f"static guard {'on' if guard else 'off'}, "
                     f"large-motion pass {'on' if large_motion else 'off'}")
            if out.shape != want.shape:
                sys.exit(f"parity FAILED: {where}: output {out.shape}, expected {want.shape}")
            err = np.abs(out.astype(np.int32) - want.astype(np.int32))
            worst = max(worst, int(err.max()))
            if err.max() > 1:
                y, x, c = np.unravel_index(err.argmax(), err.shape)
                sys.exit(f"parity FAILED: {where}: max error {err.max()} LSB at x={x} y={y} "
                         f"channel {'RGB'[c]} (framecast {out[y, x, c]}, reference "
                         f"{want[y, x, c]}); {(err > 1).sum()} values off by more than 1 LSB")
    c1, c2, fh, rw = WIDTHS[args.variant]
    blocks = f", convex blocks {CONVEX_BLOCKS}" if args.convex else ""
    print(f"parity ok: {args.variant} (c1={c1} c2={c2} film={fh} refine={rw}{blocks}) "
          f"{SIZE[0]}x{SIZE[1]} t={TS}, json + safetensors, guard off/on, "
          f"large-motion pass on/off: "
          f"max error {worst} LSB")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--framecast", required=True, type=Path, help="path of the framecast binary")
    ap.add_argument("--variant", required=True, choices=VARIANTS)
    ap.add_argument("--seed", type=int, default=0, help="model and frames seed")
    ap.add_argument("--convex", action="store_true",
                    help="add refinement blocks that upsample by convex upsampling")
    ap.add_argument("--keep", type=Path, help="work in this folder and keep the files")
    args = ap.parse_args()
    if args.keep:
        args.keep.mkdir(parents=True, exist_ok=True)
        check(args, args.keep)
    else:
        with tempfile.TemporaryDirectory() as d:
            check(args, Path(d))


if __name__ == "__main__":
    main()
