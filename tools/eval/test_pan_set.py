#!/usr/bin/python3
"""Tests of make_pan_set.py: every triplet is three windows of the source, moved by half the
pan each, in the direction of its source's turn; sources too small for the longest pan are
left out.

Run: /usr/bin/python3 -m unittest tools/eval/test_pan_set.py   (or run this file)
"""
import math
import os
import subprocess
import sys
import tempfile
import unittest

import numpy as np
from PIL import Image

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, ".."))
from framecast_model.testdata import make_frames  # noqa: E402


class PanSetTest(unittest.TestCase):
    def test_windows_move_by_half_the_pan(self):
        with tempfile.TemporaryDirectory() as tmp:
            sources = {"a": make_frames(200, 150, seed=1)[0], "b": make_frames(180, 160, seed=2)[0],
                       "small": make_frames(60, 40, seed=3)[0]}
            for name, img in sources.items():
                os.makedirs(os.path.join(tmp, "set", name))
                for k in range(3):
                    Image.fromarray(img).save(os.path.join(tmp, "set", name, f"frame{k}.png"))
            out = os.path.join(tmp, "pans")
            run = subprocess.run([sys.executable, os.path.join(HERE, "make_pan_set.py"),
                                  os.path.join(tmp, "set"), "--out", out, "--pans", "10,24"],
                                 capture_output=True, text=True, check=True)
            self.assertIn("small", run.stderr)  # 60x40 has no room for a 24 px pan
            self.assertEqual(sorted(os.listdir(out)), ["pan-010", "pan-024"])
            for i, name in enumerate(["a", "b"]):  # the sources in triplets() order
                src = sources[name]
                h, w = src.shape[0] - 24, src.shape[1] - 24
                for pan in (10, 24):
                    d = os.path.join(out, f"pan-{pan:03d}", name)
                    frames = [np.asarray(Image.open(os.path.join(d, f"frame{k}.png")))
                              for k in range(3)]
                    angle = math.radians(75 * i)
                    hx, hy = round(pan / 2 * math.cos(angle)), round(pan / 2 * math.sin(angle))
                    for k, frame in enumerate(frames):
                        x, y = 12 + (k - 1) * hx, 12 + (k - 1) * hy
                        self.assertEqual(frame.shape, (h, w, 3))
                        self.assertTrue(np.array_equal(frame, src[y:y + h, x:x + w]), (name, pan, k))
                    self.assertGreater(np.abs(frames[0].astype(int) - frames[2]).mean(), 1.0)
            self.assertFalse(os.path.exists(os.path.join(out, "pan-010", "small")))


if __name__ == "__main__":
    unittest.main()
