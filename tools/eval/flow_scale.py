#!/usr/bin/python3
"""A study of block0 at half scale for large motion (RIFE's --scale), chosen per pair by how
well the frames agree once warped. Its "block0 rule" is now the runtime's large-motion pass
(RuntimeOptions::large_motion, --large-motion); the study stays to compare it with the rule on
the final flow and with the oracle.

    /usr/bin/python3 tools/eval/flow_scale.py --model assets/models/framecast-quality.safetensors \\
        ../shared/data/val/davis /tmp/pans/pan-064 /tmp/pans/pan-096

For each triplet folder (t = 0.5, PSNR as eval.py measures it, on the PyTorch model in f32)
it prints the mean PSNR of:
  full      block0 on the frames resampled by 1/4, as the runtime runs it
  half      block0 on the frames resampled by 1/8 (the flow it sees is half as long)
  block0    per triplet, the scale whose block0 flow warps the two frames into the closer
            agreement (mean |warp(frame0) - warp(frame2)|): the cheap rule, one extra block0
            at a quarter of the pixels
  final     the same rule on the final flow, after the refinement blocks (two whole runs)
  oracle    per triplet, the better of full and half (the truth decides; a bound)
"""
import argparse
import os
import sys

import numpy as np
import torch

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(HERE, ".."))
from eval import psnr, read_rgb, triplets  # noqa: E402
from framecast_model import load_model  # noqa: E402
from framecast_model.graph import warp_disagreement  # noqa: E402


def tensor(path):
    return torch.from_numpy(read_rgb(path).copy()).permute(2, 0, 1)[None].float() / 255


def disagreement(img0, img1, flow):
    """The runtime's large-motion measure of backward flows [1, 4, H, W] on the whole frame."""
    h, w = img0.shape[-2:]
    return warp_disagreement(img0, img1, flow, h, w).item()


def as_rgb8(pred):
    """The model's frame [1, 3, H, W] as the 8-bit RGB image eval.py measures."""
    return (pred.clamp(0, 1)[0].permute(1, 2, 0) * 255).round().byte().numpy()


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("sets", nargs="+")
    ap.add_argument("--model", required=True)
    a = ap.parse_args()
    net = load_model(a.model).eval()
    print("| set | full | half | block0 rule | final rule | oracle | half chosen (block0 rule) |")
    print("|---|---|---|---|---|---|---|")
    for root in a.sets:
        rows = []
        for _, (p0, p1, p2) in triplets(root):
            f0, f2, gt = tensor(p0), tensor(p2), read_rgb(p1)
            runs = {}
            with torch.no_grad():
                for div in (4, 8):
                    o = net.forward_train(f0, f2, torch.tensor([0.5]), block0_div=div)
                    runs[div] = (psnr(as_rgb8(o["pred"]), gt),
                                 disagreement(f0, f2, o["block0_flow"]),
                                 disagreement(f0, f2, o["flow"]))
            (p4, b4, c4), (p8, b8, c8) = runs[4], runs[8]
            rows.append((p4, p8, p8 if b8 < b4 else p4, p8 if c8 < c4 else p4, max(p4, p8),
                         b8 < b4))
        r = np.array(rows, dtype=float)
        print(f"| {os.path.basename(os.path.normpath(root))} | " +
              " | ".join(f"{v:.2f}" for v in r[:, :5].mean(0)) +
              f" | {int(r[:, 5].sum())} of {len(r)} |", flush=True)


if __name__ == "__main__":
    main()
