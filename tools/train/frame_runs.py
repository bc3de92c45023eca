"""Runs of consecutive real frames that are good for training: a video decoded, frames that
repeat the one before dropped, cut at scene cuts, with still stretches left out.

make_clips.py (Debian's example videos, cut into JPEG runs) and clips.py (the real-video set of
../shared/data/video, decoded where training runs) both find their runs here.
"""
import json
import shutil
import subprocess

import numpy as np

CUT_RATIO = 4.0     # a frame difference this many times the video's median starts a new shot
REPEAT_DIFF = 0.05  # mean |difference| (0..255) below which a frame repeats the one before
STILL_DIFF = 0.8    # runs whose mean difference is below this teach nothing about motion
STILL_SPAN = 4      # this many still neighbour pairs in a row end a run


def neighbour_diff(frames):
    """Mean |difference| (0..255) of each frame and the next: [N - 1]."""
    return np.array([np.abs(frames[k + 1].astype(np.int16) - frames[k]).mean()
                     for k in range(len(frames) - 1)], dtype=np.float64)


def drop_repeats(frames):
    """Frames that repeat the one before (a slower source shown at the container's rate, as
    in diver.mov, every third frame, or animation drawn on twos) are dropped, which restores
    the source's even timing."""
    keep = np.concatenate(([True], neighbour_diff(frames) >= REPEAT_DIFF))
    return frames[keep]


def shots(frames):
    """Maximal runs of frames with no cut between neighbours, and the mean |difference| of each
    neighbour pair."""
    diff = neighbour_diff(frames)
    median = float(np.median(diff)) if len(diff) else 0.0
    breaks = diff > CUT_RATIO * max(median, 1.0)
    runs, start = [], 0
    for i, b in enumerate(breaks):
        if b:
            runs.append((start, i + 1))
            start = i + 1
    runs.append((start, len(frames)))
    return runs, diff


def moving_runs(frames, min_frames=3):
    """[(first, end)] of frames (after drop_repeats) in one shot each, without stretches of
    STILL_SPAN or more still neighbour pairs, at least min_frames long and moving on average."""
    runs, diff = shots(frames)
    out = []
    for a, b in runs:
        start, k = a, a
        while k < b - 1:  # diff[k] compares frames k and k + 1
            if diff[k] >= STILL_DIFF:
                k += 1
                continue
            end = k
            while end < b - 1 and diff[end] < STILL_DIFF:
                end += 1
            if end - k >= STILL_SPAN:  # frames k..end are one still picture
                out.append((start, k + 1))
                start = end
            k = end
        out.append((start, b))
    return [(s, e) for s, e in out
            if e - s >= min_frames and diff[s:e - 1].mean() >= STILL_DIFF]


def read_video(path):
    """All frames of a video file as uint8 RGB [N, H, W, 3], as stored (no scaling), in
    decoding order. OpenCV where it is installed (the GPU machine), else the ffmpeg command."""
    try:
        import cv2
    except ImportError:
        cv2 = None
    if cv2 is not None:
        cap = cv2.VideoCapture(path)
        frames = []
        while True:
            ok, bgr = cap.read()
            if not ok:
                break
            frames.append(bgr[:, :, ::-1])
        cap.release()
        if not frames:
            raise OSError(f"{path}: OpenCV decoded no frame")
        return np.stack(frames)
    if not shutil.which("ffmpeg"):
        raise OSError("reading video needs OpenCV (cv2) or the ffmpeg command")
    probe = subprocess.run(["ffprobe", "-v", "error", "-select_streams", "v:0", "-show_entries",
                            "stream=width,height", "-of", "json", path],
                           capture_output=True, text=True)
    if probe.returncode:
        raise OSError(f"{path}: {probe.stderr.strip()}")
    st = json.loads(probe.stdout)["streams"][0]
    raw = subprocess.run(["ffmpeg", "-v", "error", "-noautorotate", "-i", path, "-f", "rawvideo",
                          "-pix_fmt", "rgb24", "-fps_mode", "passthrough", "-"],
                         capture_output=True)
    if raw.returncode:
        raise OSError(f"{path}: {raw.stderr.decode(errors='replace').strip()}")
    return np.frombuffer(raw.stdout, np.uint8).reshape(-1, st["height"], st["width"], 3)
