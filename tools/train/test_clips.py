#!/usr/bin/python3
"""Tests of the real-video training data on the CPU: frame_runs.py's repeated-frame, cut and
still-stretch detection on frames made here, the real-video set's runs read from H.264 clips
(all of them, or a data-parallel rank's share), clips.py's triplets (the middle frame and t match the frames' positions in their run, through
turns, mirroring, channel order and time reversal; runs too small for the crop are left out),
and train.py's share of real batches (--data NAME=real=FRACTION).

Run: /usr/bin/python3 -m unittest tools/train/test_clips.py   (or run this file)
"""
import json
import os
import shutil
import subprocess
import sys
import tempfile
import unittest

import numpy as np
from PIL import Image

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(HERE, ".."))
from framecast_model.testdata import make_frames  # noqa: E402
from clips import RealClips, jpeg_runs, load_runs  # noqa: E402
from frame_runs import drop_repeats, moving_runs, shots  # noqa: E402
from make_clips import pick_runs  # noqa: E402
from parallel import Ranks  # noqa: E402
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

    def test_moving_runs_leave_out_cuts_and_still_stretches(self):
        a = panned(64, 48, 10, seed=5, step=2)
        still = np.repeat(a[-1:], 6, axis=0)
        b = 255 - panned(64, 48, 7, seed=6, step=2)  # a cut, then another moving shot
        frames = np.concatenate([a, still, b, b[-1:], b[-1:] // 2 + 60])
        self.assertEqual(moving_runs(frames), [(0, 10), (16, 25)])  # a lone repeat stays
        self.assertEqual(moving_runs(np.repeat(a[:1], 9, axis=0)), [])


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
        clips = RealClips(jpeg_runs(self.root), "cpu", size=64, seed=5)
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

    def test_a_rank_reads_its_share_of_the_runs(self):
        runs = jpeg_runs(self.root, Ranks(world=2, rank=1).share)
        self.assertEqual([r.shape[1:3] for r in runs], [(72, 80), (32, 40)])  # pan-1, small

    def test_no_run_large_enough_is_an_error(self):
        with self.assertRaisesRegex(ValueError, "no run"):
            RealClips(jpeg_runs(self.root), "cpu", size=96)


@unittest.skipUnless(shutil.which("ffmpeg"), "needs the ffmpeg command")
class VideoSetTest(unittest.TestCase):
    """The real-video set's layout (manifest.json, clips/*.mp4) read as the trainer reads it."""

    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        root = self.tmp.name
        os.makedirs(os.path.join(root, "clips"))
        shot_a, shot_b = panned(96, 80, 12, seed=30, step=1), 255 - panned(96, 80, 9, seed=31, step=1)
        clips = []
        for cid, shard, frames in (("a", 0, np.concatenate([shot_a, shot_b])),
                                   ("b", 1, panned(96, 80, 10, seed=32)),
                                   ("v", None, panned(96, 80, 10, seed=33))):
            file = f"clips/{cid}.mp4"
            subprocess.run(["ffmpeg", "-v", "error", "-f", "rawvideo", "-pix_fmt", "rgb24",
                            "-s", "96x80", "-r", "25", "-i", "-", "-c:v", "libx264", "-crf", "12",
                            "-pix_fmt", "yuv420p", os.path.join(root, file)],
                           input=frames.tobytes(), check=True)
            clips.append({"id": cid, "file": file, "split": "val" if shard is None else "train",
                          **({} if shard is None else {"shard": shard})})
        with open(os.path.join(root, "manifest.json"), "w") as f:
            json.dump({"clips": clips}, f)
        self.root, self.shot_a = root, shot_a

    def tearDown(self):
        self.tmp.cleanup()

    def test_the_shards_clips_are_cut_into_runs(self):
        runs = load_runs(self.root, shards=[0], log=lambda _: None)
        self.assertEqual([len(r) for r in runs], [12, 9])  # the cut splits clip a
        self.assertEqual(runs[0].shape[1:], (80, 96, 3))
        self.assertLess(np.abs(runs[0][5].astype(int) - self.shot_a[5]).mean(), 4)
        self.assertEqual(len(load_runs(self.root, shards=[0, 1], log=lambda _: None)), 3)
        second = Ranks(world=2, rank=1).share  # clip b, the second of the two training clips
        self.assertEqual(len(load_runs(self.root, [0, 1], lambda _: None, second)), 1)
        with self.assertRaisesRegex(ValueError, "no training clip"):
            load_runs(self.root, shards=[4])


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
