"""Real-video triplets for training, from runs of consecutive real frames.

A triplet is two frames of one run n frames apart (n = 2 .. max_gap) and one frame between them,
at t = j / n; so a run gives middle frames at t = 1/2, 1/3, 2/3, 1/4, ... and motion from one to
max_gap - 1 frame intervals. Unlike synth.py's frames, the middle frame is only as linear in
time as the filmed motion was, and the ground-truth flow is unknown.

The runs come from one of two places (load_runs):
  - a folder make_clips.py wrote (clips.json and JPEG runs of Debian's example videos);
  - the real-video set (../shared/data/video: manifest.json and H.264 clips), whose training
    clips of the chosen shards are decoded here and cut into runs by frame_runs.py.
"""
import json
import os

import numpy as np
import torch
from PIL import Image

from frame_runs import drop_repeats, moving_runs, read_video


def everything(items):
    return items


def jpeg_runs(clips_dir, share=everything):
    """The runs of a make_clips.py folder, or share(runs) of them: [uint8 [F, H, W, 3]]."""
    with open(os.path.join(clips_dir, "clips.json")) as f:
        manifest = json.load(f)
    return [np.stack([np.asarray(Image.open(os.path.join(clips_dir, run["folder"], f"{k}.jpg"))
                                 .convert("RGB")) for k in range(run["frames"])])
            for run in share(manifest["runs"])]


def video_runs(video_dir, shards, log=print, share=everything):
    """The runs of the real-video set's training clips in `shards`, or of share(clips) of
    them: each clip decoded, its repeated frames dropped and cut at scene cuts and still
    stretches (frame_runs.py)."""
    with open(os.path.join(video_dir, "manifest.json")) as f:
        manifest = json.load(f)
    clips = [c for c in manifest["clips"] if c["split"] == "train" and c.get("shard") in shards]
    if not clips:
        raise ValueError(f"no training clip in shards {sorted(shards)}")
    clips = share(clips)  # before decoding: each rank of a data-parallel run decodes its own
    runs, decoded = [], 0
    for c in clips:
        frames = read_video(os.path.join(video_dir, c["file"]))
        decoded += len(frames)
        frames = drop_repeats(frames)
        runs += [frames[a:b] for a, b in moving_runs(frames)]
    log(f"real video: shards {sorted(shards)}, {len(clips)} clips, {decoded} frames decoded, "
        f"{len(runs)} runs of {sum(len(r) for r in runs)} frames kept")
    return runs


def is_video_set(path):
    return os.path.isfile(os.path.join(path, "manifest.json"))


def load_runs(path, shards=(), log=print, share=everything):
    """Runs from a make_clips.py folder, or from the real-video set's `shards`; share picks
    the runs or clips to read (a data-parallel rank's own)."""
    if is_video_set(path):
        return video_runs(path, set(shards), log, share)
    return jpeg_runs(path, share)


class RealClips:
    def __init__(self, runs, device="cuda", size=320, seed=0, max_gap=7):
        self.dev = torch.device(device)
        self.S = int(size)
        self.max_gap = int(max_gap)
        self.rng = np.random.default_rng(seed)
        # uint8 [F, 3, H, W] on the device; runs at least S x S and 3 frames only
        self.runs = [torch.from_numpy(np.ascontiguousarray(r)).permute(0, 3, 1, 2).contiguous()
                     .to(self.dev) for r in runs if min(r.shape[1:3]) >= self.S and len(r) >= 3]
        if not self.runs:
            raise ValueError(f"no run of 3 or more frames of at least {self.S} px")
        frames = np.array([len(r) for r in self.runs], dtype=np.float64)
        self.run_p = frames / frames.sum()  # every frame is as likely to be drawn

    def sample(self, B):
        """{"img0", "imgt", "img1": float [B, 3, S, S] in 0..1, "t": [B]}, each sample a random
        crop of its own run, turned by a multiple of 90 degrees, mirrored, its colour channels
        reversed and time-reversed at random (RIFE's augmentations)."""
        S, rng = self.S, self.rng
        img0, imgt, img1, ts = [], [], [], []
        for _ in range(B):
            run = self.runs[rng.choice(len(self.runs), p=self.run_p)]
            F, _, H, W = run.shape
            n = int(rng.integers(2, min(self.max_gap, F - 1) + 1))
            i = int(rng.integers(0, F - n))
            j = int(rng.integers(1, n))
            y, x = int(rng.integers(0, H - S + 1)), int(rng.integers(0, W - S + 1))
            crop = run[[i, i + j, i + n], :, y:y + S, x:x + S]
            crop = torch.rot90(crop, int(rng.integers(4)), dims=(2, 3))
            if rng.random() < 0.5:
                crop = crop.flip(-1)
            if rng.random() < 0.5:
                crop = crop.flip(1)
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
