"""Validation of PyTorch models during training (train.py): t = 0.5 on triplet folders and on
camera pans cut from them, with the protocol of tools/eval (prediction rounded to 8 bits, PSNR
over RGB per triplet, averaged; IE the mean absolute difference on 0..255)."""
import math
import os

import numpy as np
import torch
from PIL import Image

from make_pan_set import pan_windows


def load_triplets(root):
    out = []
    if not root or not os.path.isdir(root):
        return out
    for name in sorted(os.listdir(root)):
        d = os.path.join(root, name)
        fr = {}
        for k in ("frame0", "frame1", "frame2"):
            for ext in (".png", ".jpg"):
                if os.path.exists(os.path.join(d, k + ext)):
                    fr[k] = np.asarray(Image.open(os.path.join(d, k + ext)).convert("RGB"))
        if len(fr) == 3:
            out.append((name, fr))
    return out


def pan_triplets(triplets, pans):
    """Camera pans cut from the validation triplets' frame0, the windows that
    tools/eval/make_pan_set.py cuts for the same lengths: {pan: [(name, frames)]}, from the
    sources large enough for the longest pan."""
    longest = max(pans)
    out = {pan: [] for pan in pans}
    for i, (name, fr) in enumerate(triplets):
        if min(fr["frame0"].shape[:2]) <= 2 * longest:
            continue
        for pan in pans:
            frames = pan_windows(fr["frame0"], pan, i, longest)
            out[pan].append((name, dict(zip(("frame0", "frame1", "frame2"), frames))))
    return out


def val_summary(val):
    """A validate() result without its per-triplet numbers, for metadata (empty for None)."""
    return {k: v for k, v in (val or {}).items() if k != "per_triplet"}


@torch.no_grad()
def validate(net, triplets, device, large_motion=False):
    net.eval()
    psnr, ie = [], []
    for _, fr in triplets:
        x = [torch.from_numpy(fr[k].copy()).permute(2, 0, 1)[None].float().div(255).to(device)
             for k in ("frame0", "frame1", "frame2")]
        pred = net(x[0], x[2], 0.5, large_motion=large_motion)
        pred = (pred * 255).round().clamp(0, 255)
        gt = x[1] * 255
        mse = ((pred - gt) ** 2).mean().item()
        psnr.append(10 * math.log10(255 ** 2 / max(mse, 1e-10)))
        ie.append((pred - gt).abs().mean().item())
    net.train()
    if not psnr:
        return None
    return {"psnr": float(np.mean(psnr)), "ie": float(np.mean(ie)), "n": len(psnr),
            "per_triplet": {n: round(p, 3) for (n, _), p in zip(triplets, psnr)}}
