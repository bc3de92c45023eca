#!/usr/bin/python3
"""The real validation set: triplets of consecutive frames from the validation split of the
real-video set (../shared/data/video), labelled by class and motion size, in eval.py's layout.

    /usr/bin/python3 tools/eval/make_video_val_set.py ../shared/data/video --out /tmp/realval
    /usr/bin/python3 tools/eval/eval.py /tmp/realval ...   # + tables per class and motion

From each `val` clip: its repeated frames dropped and the rest cut at scene cuts and still
stretches (tools/train/frame_runs.py, as training cuts its runs), then --per-clip triplets of
frames k, k + 1, k + 2 spread evenly over the moving runs. groups.json gives each triplet its
clip's class (camera / animation / game) and a motion size: the median over 16 px blocks of
the displacement that best matches frame0's block in frame2 (exhaustive search to +-48 px at
half resolution), in px at full resolution from frame0 to frame2: small < 4, medium < 16,
large from 16.
"""
import argparse
import json
import os
import shutil
import sys

import numpy as np
from PIL import Image

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "train"))
from frame_runs import drop_repeats, moving_runs, read_video  # noqa: E402

BLOCK = 8      # block size at half resolution (16 px at full)
SEARCH = 24    # search radius at half resolution (48 px at full)
MOTION_BINS = ((4.0, "small"), (16.0, "medium"), (float("inf"), "large"))


def half_gray(frame):
    g = frame.astype(np.float32) @ np.array([0.299, 0.587, 0.114], np.float32)
    h, w = g.shape[0] // 2 * 2, g.shape[1] // 2 * 2
    return g[:h, :w].reshape(h // 2, 2, w // 2, 2).mean(axis=(1, 3))


def block_motion(f0, f2):
    """Median block-matching displacement from f0 to f2, px at full resolution."""
    a, b = half_gray(f0), half_gray(f2)
    R = SEARCH
    H, W = (a.shape[0] - 2 * R) // BLOCK * BLOCK, (a.shape[1] - 2 * R) // BLOCK * BLOCK
    if H <= 0 or W <= 0:
        raise ValueError(f"frames of {f0.shape[1]}x{f0.shape[0]} are too small to match blocks")
    ref = a[R:R + H, R:R + W]
    best = np.full((H // BLOCK, W // BLOCK), np.inf, np.float32)
    disp = np.zeros_like(best)
    for dy in range(-R, R + 1):
        for dx in range(-R, R + 1):
            cost = np.abs(b[R + dy:R + dy + H, R + dx:R + dx + W] - ref)
            cost = cost.reshape(H // BLOCK, BLOCK, W // BLOCK, BLOCK).sum(axis=(1, 3))
            # ties go to the shorter displacement: flat blocks count as still
            mag = np.hypot(dy, dx)
            better = (cost < best) | ((cost == best) & (mag < disp))
            best = np.where(better, cost, best)
            disp = np.where(better, mag, disp)
    return 2.0 * float(np.median(disp))


def motion_bin(px):
    return next(name for limit, name in MOTION_BINS if px < limit)


def pick(runs, count):
    """`count` starting frames k (k + 2 inside one run) spread evenly over the runs."""
    starts = [k for a, b in runs for k in range(a, b - 2)]
    if len(starts) <= count:
        return starts
    return [starts[i] for i in np.linspace(0, len(starts) - 1, count).round().astype(int)]


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("video_set", help="the real-video set's folder (manifest.json, clips/)")
    ap.add_argument("--out", required=True)
    ap.add_argument("--per-clip", type=int, default=4)
    ap.add_argument("--split", default="val")
    args = ap.parse_args()
    try:
        with open(os.path.join(args.video_set, "manifest.json")) as f:
            clips = [c for c in json.load(f)["clips"] if c["split"] == args.split]
    except (OSError, ValueError, KeyError) as e:
        sys.exit(f"make_video_val_set: {args.video_set}: not a real-video set ({e})")
    if not clips:
        sys.exit(f"make_video_val_set: no clip of split {args.split!r}")
    building = args.out + ".partial"  # a failed run leaves no half set under --out
    shutil.rmtree(building, ignore_errors=True)
    os.makedirs(building)
    groups = {}
    try:
        for c in clips:
            frames = drop_repeats(read_video(os.path.join(args.video_set, c["file"])))
            starts = pick(moving_runs(frames), args.per_clip)
            for k in starts:
                name = f"{c['id']}-{k:04d}"
                os.makedirs(os.path.join(building, name))
                for i in range(3):
                    Image.fromarray(frames[k + i]).save(
                        os.path.join(building, name, f"frame{i}.png"))
                px = block_motion(frames[k], frames[k + 2])
                groups[name] = {"class": c["cls"], "motion": motion_bin(px),
                                "motion_px": round(px, 1)}
            print(f"{c['id']} ({c['cls']}): {len(starts)} triplets", flush=True)
    except (OSError, ValueError) as e:
        shutil.rmtree(building, ignore_errors=True)
        sys.exit(f"make_video_val_set: {e}")
    with open(os.path.join(building, "groups.json"), "w") as f:
        json.dump(groups, f, indent=1, sort_keys=True)
    shutil.rmtree(args.out, ignore_errors=True)
    os.rename(building, args.out)
    count = {}
    for g in groups.values():
        for key in (g["class"], g["motion"]):
            count[key] = count.get(key, 0) + 1
    print(f"{len(groups)} triplets in {args.out}: {count}")


if __name__ == "__main__":
    main()
