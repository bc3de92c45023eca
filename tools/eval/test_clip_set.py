#!/usr/bin/python3
"""Tests of make_clip_set.py: a clip of N frames gives N - 2 triplets, frames k, k + 1, k + 2 in
order (checked on a lossless clip whose frames are numbered by their brightness); and of
make_video_val_set.py: the motion size of a known shift, and a set cut from a video set's val
clips only, labelled, without triplets across a cut.

Run: /usr/bin/python3 -m unittest tools/eval/test_clip_set.py   (or run this file)
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
from make_video_val_set import block_motion, motion_bin  # noqa: E402


def panned(w, h, frames, seed, step):
    """A camera pan over one textured scene: frame k is the scene moved by k * step px."""
    scene = make_frames(w + step * frames, h, seed)[0]
    return np.stack([scene[:, step * k:step * k + w] for k in range(frames)])


@unittest.skipUnless(shutil.which("ffmpeg"), "needs the ffmpeg command")
class ClipSetTest(unittest.TestCase):
    def test_triplets_are_consecutive_frames(self):
        with tempfile.TemporaryDirectory() as tmp:
            for k in range(6):
                level = np.full((32, 48, 3), 30 * k + 10, np.uint8)
                level[:, :8] = 200  # not a flat frame
                Image.fromarray(level).save(os.path.join(tmp, f"in{k}.png"))
            clip = os.path.join(tmp, "ramp_48x32.y4m")
            subprocess.run(["ffmpeg", "-v", "error", "-i", os.path.join(tmp, "in%d.png"),
                            "-pix_fmt", "yuv444p", clip], check=True)
            out = os.path.join(tmp, "set")
            subprocess.run([sys.executable, os.path.join(HERE, "make_clip_set.py"), clip,
                            "--out", out], check=True, capture_output=True)
            self.assertEqual(sorted(os.listdir(out)), [f"ramp-{k:03d}" for k in range(4)])
            for k in range(4):
                for i in range(3):
                    img = np.asarray(Image.open(os.path.join(out, f"ramp-{k:03d}",
                                                             f"frame{i}.png")).convert("RGB"))
                    self.assertAlmostEqual(float(img[:, 8:].mean()), 30 * (k + i) + 10,
                                           delta=2)

    def test_an_unreadable_clip_leaves_no_set(self):
        with tempfile.TemporaryDirectory() as tmp:
            bad = os.path.join(tmp, "bad.y4m")
            with open(bad, "wb") as f:
                f.write(b"YUV4MPEG2 truncated")
            out = os.path.join(tmp, "set")
            got = subprocess.run([sys.executable, os.path.join(HERE, "make_clip_set.py"), bad,
                                  "--out", out], capture_output=True, text=True)
            self.assertNotEqual(got.returncode, 0)
            self.assertIn("cannot read", got.stderr)
            self.assertIn(bad, got.stderr)
            self.assertFalse(os.path.exists(out))
            self.assertFalse(os.path.exists(out + ".partial"))


class VideoValSetTest(unittest.TestCase):
    def test_motion_size_of_a_pan(self):
        frames = panned(160, 128, 3, seed=7, step=5)
        self.assertAlmostEqual(block_motion(frames[0], frames[2]), 10.0, delta=2.1)
        self.assertEqual(motion_bin(10.0), "medium")
        self.assertEqual(block_motion(frames[0], frames[0]), 0.0)

    @unittest.skipUnless(shutil.which("ffmpeg"), "needs the ffmpeg command")
    def test_val_clips_become_labelled_triplets(self):
        with tempfile.TemporaryDirectory() as tmp:
            os.makedirs(os.path.join(tmp, "clips"))
            clips = []
            for cid, split, cls, frames in (
                    ("cut", "val", "animation", np.concatenate(
                        [panned(128, 112, 6, 8, 1), 255 - panned(128, 112, 6, 9, 1)])),
                    ("train", "train", "camera", panned(128, 112, 6, 10, 1))):
                file = f"clips/{cid}.mp4"
                subprocess.run(["ffmpeg", "-v", "error", "-f", "rawvideo", "-pix_fmt", "rgb24",
                                "-s", "128x112", "-r", "25", "-i", "-", "-c:v", "libx264",
                                "-crf", "10", "-pix_fmt", "yuv444p", os.path.join(tmp, file)],
                               input=frames.tobytes(), check=True)
                clips.append({"id": cid, "file": file, "split": split, "cls": cls})
            with open(os.path.join(tmp, "manifest.json"), "w") as f:
                json.dump({"clips": clips}, f)
            out = os.path.join(tmp, "set")
            subprocess.run([sys.executable, os.path.join(HERE, "make_video_val_set.py"), tmp,
                            "--out", out, "--per-clip", "20"], check=True, capture_output=True)
            with open(os.path.join(out, "groups.json")) as f:
                groups = json.load(f)
            # 4 triplets in each 6-frame shot, none across the cut, none of the train clip
            self.assertEqual(sorted(groups), [f"cut-{k:04d}" for k in (0, 1, 2, 3, 6, 7, 8, 9)])
            self.assertEqual({g["class"] for g in groups.values()}, {"animation"})
            self.assertEqual({g["motion"] for g in groups.values()}, {"small"})
            self.assertEqual(len(os.listdir(out)), 9)


if __name__ == "__main__":
    unittest.main()
