#!/usr/bin/python3
"""Tests of eval.py's --torch-model: the PyTorch reference's prediction, rounded to 8 bits,
scored with the protocol of the runtime's rows.

Run: /usr/bin/python3 -m unittest tools/eval/test_eval.py   (or run this file)
"""
import math
import os
import subprocess
import sys
import tempfile
import unittest

import numpy as np
import torch
from PIL import Image

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, ".."))
from framecast_model import FramecastNet, save_safetensors  # noqa: E402
from framecast_model.testdata import make_frames, to_tensor  # noqa: E402


class TorchModelTest(unittest.TestCase):
    def test_rows_score_the_reference_prediction(self):
        with tempfile.TemporaryDirectory() as tmp:
            torch.manual_seed(3)
            net = FramecastNet("tfact2", 8, 12, 5, 4, blocks=[(4, 6, 2)], convex_up=True)
            model = os.path.join(tmp, "convex.safetensors")
            save_safetensors(net, model)
            want = []
            for i in range(2):
                f0, f2 = make_frames(48, 32, seed=10 + i)
                mid = (0.3 * f0 + 0.7 * f2.astype(np.float32)).astype(np.uint8)  # not the average
                d = os.path.join(tmp, "set", f"t{i}")
                os.makedirs(d)
                for k, img in enumerate((f0, mid, f2)):
                    Image.fromarray(img).save(os.path.join(d, f"frame{k}.png"))
                with torch.no_grad():
                    pred = net.eval()(*to_tensor(f0, f2).split(1), 0.5, large_motion=True)
                pred = (pred * 255).round().clamp(0, 255)
                mse = ((pred[0].permute(1, 2, 0).numpy() - mid) ** 2).mean()
                want.append(10 * math.log10(255 ** 2 / mse))
            run = subprocess.run([sys.executable, os.path.join(HERE, "eval.py"),
                                  os.path.join(tmp, "set"), "--baselines", "average",
                                  "--torch-model", model, "--per-triplet"],
                                 capture_output=True, text=True, check=True)
            rows = {line.split(" | ")[0].strip("| "): line for line in run.stdout.splitlines()}
            self.assertIn("torch convex.safetensors (f32)", rows)
            got = float(rows["torch convex.safetensors (f32)"].split(" | ")[1])
            self.assertAlmostEqual(got, float(np.mean(want)), delta=0.006)
            per = [float(rows[f"t{i}"].split(" | ")[2].split(" / ")[0]) for i in range(2)]
            self.assertAlmostEqual(per[0], want[0], delta=0.006)
            self.assertAlmostEqual(per[1], want[1], delta=0.006)
            self.assertNotAlmostEqual(per[0], per[1], delta=0.01)


if __name__ == "__main__":
    unittest.main()
