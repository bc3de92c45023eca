#!/usr/bin/python3
"""Tests of the real-video training data on the CPU: make_clips.py's repeated-frame and cut
detection on frames made here, clips.py's triplets (the middle frame and t match the frames'
positions in their run, through mirroring and time reversal; runs too small for the crop are
left out), and train.py's share of real batches (--data NAME=real=FRACTION).

Run: /usr/bin/python3 -m unittest tools/train/test_clips.py   (or run this file)
"""
import json
import os
import sys
import tempfile
import unittest

import numpy as np
from PIL import Image

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(HERE, ".."))
from framecast_model.testdata import make_frames  # noqa: E402
from clips import RealClips  # noqa: E402
from make_clips import drop_repeats, pick_runs, shots  # noqa: E402
from train import DataGroup, parse_data  # noqa: E402

LEVEL_STEP = 18  # frame k of a test run is a texture brightened by k * LEVEL_STEP


def panned(w, h, frames, seed, step=3):
    """A camera pan over one textured scene: frame k is the scene moved by k * step px."""
    scene = make_frames(w + step * frames, h, seed)[0]
    return np.stack([scene[:, step * k:step * k + w] for k in range(frames)])


def write_clips(root, runs):
    """runs: {folder: uint8 [F, H, W, 3]} -> a clips folder as make_clips.py writes it."""
    manifest = {"runs": []}
    for folder, frames in runs.items():
        os.makedirs(os.path.join(root, folder))
        for k, f in enumerate(frames):
            Image.fromarray(f).save(os.path.join(root, folder, f"{k}.jpg"), quality=95)
        manifest["runs"].append({"folder": folder, "frames": len(frames)})
    with open(os.path.join(root, "clips.json"), "w") as f:
        json.dump(manifest, f)


class MakeClipsTest(unittest.TestCase):
    def test_repeated_frames_are_dropped(self):
        """A source at 2/3 of the container's rate repeats every third frame; dropping the
        repeats gives the source's frames in order, each once."""
        src = panned(64, 48, 8, seed=1)
        shown = src[[0, 1, 1, 2, 3, 3, 4, 5, 5, 6, 7, 7]]
        kept = drop_repeats(shown)
        self.assertEqual(len(kept), 8)
        np.testing.assert_array_equal(kept, src)

    def test_a_cut_starts_a_new_shot(self):
        a = panned(64, 48, 10, seed=2, step=1)
        b = 255 - panned(64, 48, 10, seed=3, step=1)  # another shot, in other colours
        runs, diff = shots(np.concatenate([a, b]))
        self.assertEqual(runs, [(0, 10), (10, 20)])
        self.assertEqual(len(diff), 19)

    def test_runs_avoid_cuts_and_still_stretches(self):
        moving = panned(64, 48, 12, seed=4)
        still = np.repeat(moving[:1], 8, axis=0)
        frames = np.concatenate([moving, still])
        runs, diff = shots(frames)
        slots = pick_runs(runs, diff, seq=4, budget=10)
        self.assertTrue(slots)
        for s, motion in slots:
            self.assertLessEqual(s + 4, 12)  # only the moving part
            self.assertGreater(motion, 1.0)
        self.assertEqual(len(pick_runs(runs, diff, seq=4, budget=2)), 2)


class RealClipsTest(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.root = self.tmp.name
        levels = np.arange(8)[:, None, None, None] * LEVEL_STEP
        runs = {}
        for r in range(3):
            frames = panned(80, 72, 8, seed=10 + r).astype(np.int32) // 2 + levels
            runs[f"pan-{r}"] = np.clip(frames, 0, 255).astype(np.uint8)
        runs["small"] = panned(40, 32, 8, seed=20)  # below the crop size: left out
        write_clips(self.root, runs)

    def tearDown(self):
        self.tmp.cleanup()

    def test_triplets_match_the_positions_of_their_frames(self):
        clips = RealClips(self.root, "cpu", size=64, seed=5)
        self.assertEqual(len(clips.runs), 3)
        b = clips.sample(64)
        for key in ("img0", "imgt", "img1"):
            self.assertEqual(tuple(b[key].shape), (64, 3, 64, 64))
            self.assertGreaterEqual(b[key].min().item(), 0.0)
            self.assertLessEqual(b[key].max().item(), 1.0)
        # each frame's position in its run, read back from its brightness
        pos = {k: ((b[k].mean((1, 2, 3)) * 255 - 64) / LEVEL_STEP).numpy()
               for k in ("img0", "imgt", "img1")}
        span = pos["img1"] - pos["img0"]
        self.assertTrue(np.all(np.abs(np.round(span)) >= 2))
        t_seen = (pos["imgt"] - pos["img0"]) / span
        np.testing.assert_allclose(t_seen, b["t"].numpy(), atol=0.08)
        self.assertTrue(np.any(span < 0) and np.any(span > 0))  # time reversal happens
        self.assertGreater(len(set(np.round(b["t"].numpy(), 3))), 4)

    def test_no_run_large_enough_is_an_error(self):
        with self.assertRaisesRegex(ValueError, "no run"):
            RealClips(self.root, "cpu", size=96)


class RealShareTest(unittest.TestCase):
    def test_parse_data_takes_the_real_share(self):
        self.assertEqual(parse_data("q=real=0.25,size=384"), ("q", {"real": 0.25, "size": 384.0}))
        with self.assertRaises(SystemExit):
            parse_data("q=real=1.5")
        with self.assertRaises(SystemExit):
            parse_data("q=reel=0.5")

    def test_the_share_of_real_batches(self):
        class Source:
            def __init__(self, name):
                self.name = name

            def sample(self, B, flow=False):
                return self.name

        group = DataGroup(Source("synthetic"), Source("real"), real_frac=0.3, seed=1)
        drawn = [group.sample(4, flow=False) for _ in range(1000)]
        self.assertEqual(group.real_batches, drawn.count("real"))
        self.assertTrue(250 < drawn.count("real") < 350)
        only_synthetic = DataGroup(Source("synthetic"))
        self.assertEqual({only_synthetic.sample(4, flow=True) for _ in range(50)}, {"synthetic"})


if __name__ == "__main__":
    unittest.main()
