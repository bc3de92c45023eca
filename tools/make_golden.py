#!/usr/bin/python3
"""Write the golden cases of the CPU backend's tests into tests/golden/<case>/.

Each case: a random-weight model (model.json + model.bin, or model.safetensors in F16 or
BF16 so the C++ safetensors reader is covered), frame0.png and frame1.png (8-bit RGB),
case.json = {"variant", "t": [...], "static_guard", "outputs": ["out_1.png", ...], "model"},
plus, for cases of the large-motion pass, "large_motion": true and "half_chosen" (per t, the
reference's choice of block0 at 1/8)
and the outputs computed by tools/framecast_model (the reference of the runtime's graph)
from the model as written (so F16/BF16 rounding is in the expectation), one forward per t,
quantized by floor(clamp(v, 0, 1) * 255 + 0.5) (round half up, not half to even).
The C++ tests allow 1 LSB. Deterministic: fixed seeds, one thread; rerunning rewrites
identical files.

Usage: /usr/bin/python3 tools/make_golden.py [--out tests/golden]
"""
import argparse
import json
import shutil
import sys
from pathlib import Path

import torch

sys.path.insert(0, str(Path(__file__).resolve().parent))
from framecast_model import load_model, save_model, save_safetensors  # noqa: E402
from framecast_model.testdata import (flow_stats, make_frames, random_net, to_tensor,  # noqa: E402
                                      to_u8, write_png)

# name: variant, c1, c2, film_hidden, refine_width, (W, H), ts, static_guard, model format,
# refinement blocks (c1, c2, scale) for the quality tier, whether they upsample by convex
# upsampling (blockK.upmask), and whether block0 does by 2 (block0.upmask). Small and unusual
# widths (C1 not a multiple of 4), sizes that are and are not multiples of 16 (and 32), t at
# both ends and inside, the guard on scenes with a static block; K = 2 and 3 blocks of every
# variant; convex upsampling by 8, 4 and 2, and block0's by 2 alone and under refinement
# blocks; the large-motion pass choosing 1/8 and 1/4.
CASES = [
    ("classic_32x32", "classic", 8, 12, 0, 0, (32, 32), [0.5], False, "json"),
    ("classic_50x38_guard", "classic", 6, 16, 0, 0, (50, 38), [0.25, 0.8], True, "json"),
    ("classic_37x21_f16", "classic", 12, 20, 0, 0, (37, 21), [0.0, 1.0], False, "F16"),
    ("tfact_48x32", "tfact", 12, 20, 5, 0, (48, 32), [0.0, 0.5, 1.0], False, "json"),
    ("tfact_37x21", "tfact", 6, 12, 16, 0, (37, 21), [0.25, 0.8], False, "json"),
    ("tfact2_64x48_guard", "tfact2", 8, 16, 16, 8, (64, 48), [0.25, 0.5, 0.8], True, "json"),
    ("tfact2_50x38_bf16", "tfact2", 12, 20, 5, 12, (50, 38), [0.0, 0.5, 1.0], False, "BF16"),
    ("tfact2_37x21", "tfact2", 6, 12, 5, 8, (37, 21), [0.8, 0.25], False, "json"),
    ("k2_classic_50x38", "classic", 8, 12, 0, 0, (50, 38), [0.3, 0.7], False, "json",
     [(6, 12, 2)]),
    ("k3_classic_37x21_guard", "classic", 6, 12, 0, 0, (37, 21), [0.5], True, "F16",
     [(8, 12, 2), (6, 8, 1)]),
    ("k2_tfact_48x32", "tfact", 8, 12, 5, 0, (48, 32), [0.0, 0.6], False, "json",
     [(6, 8, 1)]),
    ("k3_tfact2_50x38", "tfact2", 8, 12, 6, 8, (50, 38), [0.25, 1.0], False, "json",
     [(8, 12, 4), (6, 8, 2)]),
    ("cx_k3_classic_50x38", "classic", 8, 12, 0, 0, (50, 38), [0.3, 0.7], False, "F16",
     [(6, 8, 4), (6, 8, 1)], True),
    ("cx_k2_tfact2_37x21_guard", "tfact2", 6, 12, 5, 8, (37, 21), [0.25, 0.8], True, "json",
     [(6, 8, 2)], True),
    ("cx0_tfact2_50x38", "tfact2", 8, 12, 5, 8, (50, 38), [0.3, 0.75], False, "json", (), False,
     True),
]

# With the large-motion pass: (seed, case as above). The seeds are picked so that the
# reference chooses block0 at 1/8 for some t of each case and 1/4 for others (the choice of
# random weights is arbitrary, but deterministic); make_golden prints the choices.
LARGE_MOTION_CASES = [
    (30, ("lm_classic_50x38", "classic", 8, 12, 0, 0, (50, 38), [0.3, 0.7], False, "json")),
    (31, ("lm_tfact2_64x48_guard", "tfact2", 8, 16, 16, 8, (64, 48), [0.25, 0.5], True,
          "json")),
    (49, ("lm_k3_classic_37x21", "classic", 6, 12, 0, 0, (37, 21), [0.5, 0.9], False, "F16",
          [(8, 12, 2), (6, 8, 1)])),
    (39, ("lm_k2_tfact_70x40", "tfact", 8, 12, 5, 0, (70, 40), [0.0, 0.6], False, "json",
          [(6, 8, 1)])),
    (58, ("lm_cx0_k2_tfact2_64x48", "tfact2", 8, 16, 16, 8, (64, 48), [0.25, 0.6], False,
          "json", [(6, 8, 2)], True, True)),
]

# The large-motion pass's two sums must differ by this much (relative) in the reference, so
# that a backend's float rounding cannot turn its choice.
CHOICE_MARGIN = 1e-3


def write_case(root, seed, name, variant, c1, c2, fh, rw, size, ts, guard, fmt, blocks=(),
               convex_up=False, convex_block0=False, large_motion=False):
    d = root / name
    d.mkdir(parents=True)
    f0, f1 = make_frames(*size, seed=1000 + seed, static=guard)
    write_png(d / "frame0.png", f0)
    write_png(d / "frame1.png", f1)
    img0, img1 = to_tensor(f0), to_tensor(f1)
    net = random_net(variant, c1, c2, fh, rw, seed, img0, img1, ts, blocks=blocks,
                     convex_up=convex_up, convex_block0=convex_block0)
    meta = {"name": f"golden/{name}", "note": "random weights, for tests only"}
    if fmt == "json":
        save_model(net, d / "model", meta)
        model = "model.json"
    else:
        save_safetensors(net, d / "model.safetensors", meta, dtype=fmt)
        model = "model.safetensors"
    net = load_model(d / model)  # the expectation comes from the weights as stored
    outputs, chosen = [], []
    with torch.no_grad():
        for i, t in enumerate(ts, 1):
            out = net(img0, img1, t, static_guard=guard, large_motion=large_motion)
            write_png(d / f"out_{i}.png", to_u8(out[0]))
            outputs.append(f"out_{i}.png")
            if large_motion:
                chosen.append(half_chosen(name, net, img0, img1, t))
    case = {"variant": variant, "t": ts, "static_guard": guard, "outputs": outputs,
            "model": model}
    if large_motion:
        case.update(large_motion=True, half_chosen=chosen)
    (d / "case.json").write_text(json.dumps(case, indent=1) + "\n")
    s = flow_stats(net, img0, img1, ts)
    convex = (" convex" if convex_up else "") + (" convex block0" if convex_block0 else "")
    print(f"{name:24s} {variant:7s} blocks={list(blocks)}{convex} c1={c1:<2d} c2={c2:<2d} film={fh:<2d} refine={rw:<2d} "
          f"{size[0]}x{size[1]} t={ts} guard={guard} {fmt}: |flow| mean {s['flow_mean']:.2f} "
          f"max {s['flow_max']:.2f} px, sigmoid(mask) {s['mask_min']:.2f}..{s['mask_max']:.2f}"
          + (f", 1/8 chosen {chosen}" if large_motion else ""))


def half_chosen(name, net, img0, img1, t):
    """The reference's choice of the large-motion pass at t; fails on a near tie."""
    r = net.forward_train(img0, img1, torch.tensor([t]), large_motion=True)
    d4, d8 = r["disagreement"][0].tolist()
    if abs(d8 - d4) <= CHOICE_MARGIN * max(d4, d8):
        sys.exit(f"{name}, t={t}: the sums {d4:.6g} (1/4) and {d8:.6g} (1/8) nearly tie; "
                 "change the case")
    return bool(r["half"][0])


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--out", type=Path,
                    default=Path(__file__).resolve().parent.parent / "tests" / "golden")
    args = ap.parse_args()
    torch.set_num_threads(1)
    args.out.mkdir(parents=True, exist_ok=True)
    for old in args.out.iterdir():  # stale cases; files beside them (README) stay
        if old.is_dir():
            shutil.rmtree(old)
    for seed, case in enumerate(CASES):
        write_case(args.out, seed, *case)
    for seed, case in LARGE_MOTION_CASES:
        write_case(args.out, seed, *case, large_motion=True)


if __name__ == "__main__":
    main()
