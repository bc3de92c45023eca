"""Real-video triplets for training, from the runs make_clips.py cuts into .pool/clips/.

A triplet is two frames of one run n frames apart (n = 2 .. the run's length - 1) and one frame
between them, at t = j / n; so one run gives middle frames at t = 1/2, 1/3, 2/3, 1/4, ... and
motion from one to seven frame intervals. Unlike synth.py's frames, the middle frame is only as
linear in time as the filmed motion was, and the ground-truth flow is unknown.
"""
import json
import os

import numpy as np
import torch
from PIL import Image


class RealClips:
    def __init__(self, clips_dir, device="cuda", size=320, seed=0):
        self.dev = torch.device(device)
        self.S = int(size)
        self.rng = np.random.default_rng(seed)
        manifest = json.load(open(os.path.join(clips_dir, "clips.json")))
        self.runs = []  # uint8 [F, 3, H, W] on the device, runs at least S x S only
        for run in manifest["runs"]:
            frames = [np.asarray(Image.open(os.path.join(clips_dir, run["folder"], f"{k}.jpg"))
                                 .convert("RGB")) for k in range(run["frames"])]
            h, w = frames[0].shape[:2]
            if min(h, w) >= self.S and len(frames) >= 3:
                self.runs.append(torch.from_numpy(np.stack(frames)).permute(0, 3, 1, 2)
                                 .contiguous().to(self.dev))
        if not self.runs:
            raise ValueError(f"{clips_dir}: no run of 3 or more frames of at least {self.S} px")

    def sample(self, B):
        """{"img0", "imgt", "img1": float [B, 3, S, S] in 0..1, "t": [B]}, each sample a random
        crop of its own run, mirrored and time-reversed at random."""
        S, rng = self.S, self.rng
        img0, imgt, img1, ts = [], [], [], []
        for _ in range(B):
            run = self.runs[rng.integers(len(self.runs))]
            F, _, H, W = run.shape
            n = int(rng.integers(2, F))
            i = int(rng.integers(0, F - n))
            j = int(rng.integers(1, n))
            y, x = int(rng.integers(0, H - S + 1)), int(rng.integers(0, W - S + 1))
            crop = run[[i, i + j, i + n], :, y:y + S, x:x + S]
            if rng.random() < 0.5:
                crop = crop.flip(-1)
            t = j / n
            if rng.random() < 0.5:
                crop, t = crop.flip(0), 1 - t
            img0.append(crop[0])
            imgt.append(crop[1])
            img1.append(crop[2])
            ts.append(t)

        def stack(frames):
            return torch.stack(frames).float() / 255

        return {"img0": stack(img0), "imgt": stack(imgt), "img1": stack(img1),
                "t": torch.tensor(ts, dtype=torch.float32, device=self.dev)}
