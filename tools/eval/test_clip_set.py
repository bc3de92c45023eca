#!/usr/bin/python3
"""Tests of make_clip_set.py: a clip of N frames gives N - 2 triplets, frames k, k + 1, k + 2 in
order (checked on a lossless clip whose frames are numbered by their brightness).

Run: /usr/bin/python3 -m unittest tools/eval/test_clip_set.py   (or run this file)
"""
import os
import shutil
import subprocess
import sys
import tempfile
import unittest

import numpy as np
from PIL import Image

HERE = os.path.dirname(os.path.abspath(__file__))


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


if __name__ == "__main__":
    unittest.main()
