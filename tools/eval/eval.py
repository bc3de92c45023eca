#!/usr/bin/python3
"""Evaluate Framecast's REAL runtime (`framecast pair`) on triplet folders, next to baselines.

    /usr/bin/python3 tools/eval/eval.py --framecast build/framecast \
        --model assets/models/framecast-default.safetensors \
        --model assets/models/framecast-slim.safetensors \
        ../shared/data/val/davis [more triplet folders] [-o results.md]

A triplet folder holds <name>/frame0.png, frame1.png (the ground-truth middle), frame2.png
(.jpg also accepted). Every method predicts the middle frame at t = 0.5 from frame0 and frame2:

  repeat frame0     the first frame as it is
  average           (frame0 + frame2) / 2, rounded half up to 8 bits
  minterpolate      FFmpeg: frame0, frame2, frame2 as a 1 fps image sequence through
                    minterpolate=fps=2:mi_mode=mci:mc_mode=aobmc:me_mode=bidir:vsbmc=1 (the
                    filter's own pixel format negotiation, RGB out); the second output frame
                    is the middle (the filter needs a frame beyond the pair to emit anything)
  MODEL FILE        `framecast pair frame0 frame2 -o mid.png -t 0.5 --model FILE --backend B`
  torch MODEL FILE  --torch-model: the PyTorch reference (tools/framecast_model) in float32 with
                    the large-motion pass, as `pair` runs by default, rounded to 8 bits as the
                    runtime rounds: for model files of an architecture the runtimes do not run yet

Metrics (the protocol of shared/data/README.md), computed per triplet on 8-bit RGB and
averaged over the triplets:
  PSNR   10 log10(255^2 / MSE) over all RGB values
  SSIM   Gaussian window 11, sigma 1.5 (normalised), K1 0.01, K2 0.03, L 255, on each RGB
         channel over the 'valid' region (no padding), the three channel means averaged
  IE     Middlebury interpolation error: mean absolute difference over all RGB values

Output: a Markdown table (stdout, and -o FILE), plus per-triplet rows with --per-triplet.
Needs numpy and PIL (Debian's /usr/bin/python3), `ffmpeg` on PATH for minterpolate and torch
for --torch-model.
"""
import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time

import numpy as np
from PIL import Image

MINTERPOLATE = "minterpolate=fps=2:mi_mode=mci:mc_mode=aobmc:me_mode=bidir:vsbmc=1"


def read_rgb(path):
    return np.asarray(Image.open(path).convert("RGB"))


def find_frame(d, stem):
    for ext in (".png", ".jpg", ".jpeg"):
        p = os.path.join(d, stem + ext)
        if os.path.exists(p):
            return p
    return None


def triplets(root):
    out = []
    for name in sorted(os.listdir(root)):
        d = os.path.join(root, name)
        f = [find_frame(d, f"frame{i}") for i in range(3)]
        if os.path.isdir(d) and all(f):
            out.append((name, f))
    return out


# ------------------------------------------------------------------ metrics
def psnr(pred, gt):
    mse = np.mean((pred.astype(np.float64) - gt.astype(np.float64)) ** 2)
    return float("inf") if mse == 0 else 10 * np.log10(255.0 ** 2 / mse)


def ie(pred, gt):
    return float(np.mean(np.abs(pred.astype(np.float64) - gt.astype(np.float64))))


def _gauss(size=11, sigma=1.5):
    x = np.arange(size) - (size - 1) / 2
    g = np.exp(-x ** 2 / (2 * sigma ** 2))
    return g / g.sum()


def _filt_valid(img, g):
    """Separable 'valid' correlation of a 2-D float64 image with the 1-D kernel g."""
    k = len(g)
    h, w = img.shape
    tmp = sum(g[i] * img[:, i:w - k + 1 + i] for i in range(k))
    return sum(g[i] * tmp[i:h - k + 1 + i, :] for i in range(k))


def ssim(pred, gt):
    g = _gauss()
    c1, c2 = (0.01 * 255) ** 2, (0.03 * 255) ** 2
    vals = []
    for c in range(3):
        x = pred[..., c].astype(np.float64)
        y = gt[..., c].astype(np.float64)
        mx, my = _filt_valid(x, g), _filt_valid(y, g)
        sxx = _filt_valid(x * x, g) - mx * mx
        syy = _filt_valid(y * y, g) - my * my
        sxy = _filt_valid(x * y, g) - mx * my
        m = ((2 * mx * my + c1) * (2 * sxy + c2)) / ((mx * mx + my * my + c1) * (sxx + syy + c2))
        vals.append(m.mean())
    return float(np.mean(vals))


# ------------------------------------------------------------------ methods
def m_repeat(f0, f2, _tmp):
    return read_rgb(f0)


def m_average(f0, f2, _tmp):
    a = read_rgb(f0).astype(np.uint16) + read_rgb(f2).astype(np.uint16)
    return ((a + 1) // 2).astype(np.uint8)  # half up


def m_minterpolate(f0, f2, tmp):
    d = tempfile.mkdtemp(dir=tmp)
    img0, img2 = Image.open(f0).convert("RGB"), Image.open(f2).convert("RGB")
    img0.save(os.path.join(d, "in0.png"))
    for i in (1, 2):  # frame2 twice: the filter emits nothing for the last input frame
        img2.save(os.path.join(d, f"in{i}.png"))
    cmd = ["ffmpeg", "-nostdin", "-hide_banner", "-loglevel", "error", "-framerate", "1",
           "-i", os.path.join(d, "in%d.png"), "-vf", MINTERPOLATE, "-pix_fmt", "rgb24",
           os.path.join(d, "out%d.png")]
    subprocess.run(cmd, check=True)
    out = read_rgb(os.path.join(d, "out2.png"))  # out1 = frame0, out2 = t 0.5, out3 = frame2
    shutil.rmtree(d)
    return out


def m_framecast(binary, model, backend, extra):
    def run(f0, f2, tmp):
        out = os.path.join(tmp, "mid.png")
        if os.path.exists(out):
            os.remove(out)
        cmd = [binary, "pair", f0, f2, "-o", out, "-t", "0.5", "--model", model,
               "--backend", backend] + extra
        r = subprocess.run(cmd, capture_output=True, text=True)
        if r.returncode != 0:
            raise RuntimeError(f"{' '.join(cmd)} failed ({r.returncode}): {r.stderr.strip()}")
        return read_rgb(out)
    return run


def m_torch(path):
    import torch  # only here: the other methods need no torch
    sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
    from framecast_model import load_model
    from framecast_model.testdata import to_tensor, to_u8
    net = load_model(path)
    device = "cuda" if torch.cuda.is_available() else "cpu"
    net.to(device)

    @torch.no_grad()
    def run(f0, f2, _tmp):
        x0, x2 = (to_tensor(read_rgb(f)).to(device) for f in (f0, f2))
        return to_u8(net(x0, x2, 0.5, large_motion=True)[0].cpu())
    return run


# ------------------------------------------------------------------ main
def group_table(root, trips, per):
    """PSNR per group when the set labels its triplets (groups.json: {triplet: {"class": ...,
    "motion": ...}}, as make_video_val_set.py writes): one column per class and motion size."""
    path = os.path.join(root, "groups.json")
    if not os.path.exists(path):
        return []
    with open(path) as f:
        labels = json.load(f)
    names = [name for name, _ in trips]
    keys = sorted({(field, labels[n][field]) for n in names for field in ("class", "motion")})
    head = [f"{value} ({sum(labels[n][field] == value for n in names)})" for field, value in keys]
    lines = ["| method (PSNR) | " + " | ".join(head) + " |", "|---|" + "---|" * len(keys)]
    for label, rows in per:
        cells = [np.mean([r[1] for n, r in zip(names, rows) if labels[n][field] == value])
                 for field, value in keys]
        lines.append(f"| {label} | " + " | ".join(f"{c:.2f}" for c in cells) + " |")
    return lines + [""]


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("sets", nargs="+", help="triplet folders (<set>/<name>/frame{0,1,2}.png)")
    ap.add_argument("--framecast", default="", help="path of the framecast binary")
    ap.add_argument("--model", action="append", default=[], help="model file (repeatable)")
    ap.add_argument("--backend", default="cpu")
    ap.add_argument("--torch-model", action="append", default=[],
                    help="model file run by the PyTorch reference (repeatable)")
    ap.add_argument("--framecast-arg", action="append", default=[],
                    help="extra argument for `framecast pair` (repeatable), e.g. --static-guard")
    ap.add_argument("--baselines", default="repeat,average,minterpolate",
                    help="comma-separated subset of repeat,average,minterpolate ('' for none)")
    ap.add_argument("--per-triplet", action="store_true")
    ap.add_argument("--save-dir", default="", help="keep every prediction here as PNG")
    ap.add_argument("-o", "--output", default="", help="also write the Markdown here")
    a = ap.parse_args()

    methods = []
    base = {"repeat": ("repeat frame0", m_repeat), "average": ("average of the two frames",
                                                                m_average),
            "minterpolate": ("FFmpeg minterpolate (mci, aobmc, bidir, vsbmc)", m_minterpolate)}
    for b in [x for x in a.baselines.split(",") if x]:
        if b == "minterpolate" and not shutil.which("ffmpeg"):
            print("ffmpeg not on PATH: minterpolate skipped", file=sys.stderr)
            continue
        methods.append(base[b])
    for m in a.model:
        if not a.framecast:
            sys.exit("--model needs --framecast BINARY")
        label = f"framecast {os.path.basename(m)} ({a.backend}"
        label += (" " + " ".join(a.framecast_arg) if a.framecast_arg else "") + ")"
        methods.append((label, m_framecast(a.framecast, m, a.backend, a.framecast_arg)))
    for m in a.torch_model:
        methods.append((f"torch {os.path.basename(m)} (f32)", m_torch(m)))

    lines = []
    tmp = tempfile.mkdtemp(prefix="fc-eval-")
    try:
        for root in a.sets:
            trips = triplets(root)
            if not trips:
                print(f"{root}: no triplets", file=sys.stderr)
                continue
            set_name = os.path.basename(os.path.normpath(root))
            lines += [f"### {set_name} ({len(trips)} triplets, t = 0.5)", "",
                      "| method | PSNR (dB) | SSIM | IE | s per triplet |", "|---|---|---|---|---|"]
            per = []
            for label, fn in methods:
                rows = []
                t0 = time.time()
                for name, (f0, f1, f2) in trips:
                    pred = fn(f0, f2, tmp)
                    gt = read_rgb(f1)
                    if pred.shape != gt.shape:
                        raise RuntimeError(f"{label} {name}: shape {pred.shape} vs {gt.shape}")
                    rows.append((name, psnr(pred, gt), ssim(pred, gt), ie(pred, gt)))
                    if a.save_dir:
                        d = os.path.join(a.save_dir, set_name, name)
                        os.makedirs(d, exist_ok=True)
                        safe = "".join(c if c.isalnum() or c in "-_." else "_" for c in label)
                        Image.fromarray(pred).save(os.path.join(d, safe + ".png"))
                dt = (time.time() - t0) / len(trips)
                mp, ms, mi = (np.mean([r[k] for r in rows]) for k in (1, 2, 3))
                lines.append(f"| {label} | {mp:.2f} | {ms:.4f} | {mi:.2f} | {dt:.2f} |")
                print(lines[-1], file=sys.stderr, flush=True)
                per.append((label, rows))
            lines.append("")
            lines += group_table(root, trips, per)
            if a.per_triplet:
                lines += ["| triplet | " + " | ".join(l for l, _ in per) + " |",
                          "|---|" + "---|" * len(per)]
                for i, (name, _) in enumerate(trips):
                    lines.append(f"| {name} | " + " | ".join(
                        f"{rows[i][1]:.2f} / {rows[i][3]:.2f}" for _, rows in per) + " |")
                lines += ["", "(per triplet: PSNR / IE)", ""]
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    md = "\n".join(lines)
    print(md)
    if a.output:
        with open(a.output, "w") as f:
            f.write(md + "\n")


if __name__ == "__main__":
    main()
