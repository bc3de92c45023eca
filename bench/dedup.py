#!/usr/bin/env python3
"""What `framecast interpolate --dedup` gives on real clips (README's "Repeated frames").

  bench/dedup.py ../shared/data/video --split val --cls camera [--ids ID,ID] [--framecast build/framecast]

For each clip of the real-video set: every other frame is replaced by a repeat of the one
before it (as animation on twos, or a half-rate capture shown at full rate) and re-encoded
like the set (H.264 CRF 22); `interpolate --factor 1` runs with and without --dedup, and the
replaced frames are compared with the originals (luma PSNR, 8-bit). Without --dedup they are
the repeats; with it, frames interpolated between their neighbours. Also prints how many
frames --dedup drops from the clip as it is. Needs ffmpeg and numpy; runs on the CPU.
"""
import argparse
import json
import os
import subprocess
import tempfile

import numpy as np


def luma(path, width, height):
    raw = subprocess.run(["ffmpeg", "-v", "error", "-i", path, "-f", "rawvideo", "-pix_fmt", "gray", "-"],
                         capture_output=True, check=True).stdout
    n = len(raw) // (width * height)
    return np.frombuffer(raw, np.uint8)[: n * width * height].reshape(n, height, width).astype(np.float64)


def psnr(a, b):
    return 10 * np.log10(255.0**2 / max(float(np.mean((a - b) ** 2)), 1e-10))


def interpolate(framecast, src, out, dedup):
    """Runs `interpolate --factor 1` into `out`; its final report."""
    r = subprocess.run([framecast, "interpolate", "-i", src, "-o", out, "--factor", "1", "--backend", "cpu",
                        "--model", "fast", "--progress", "json"] + (["--dedup"] if dedup else []),
                       capture_output=True, text=True)
    if r.returncode != 0:
        raise SystemExit(f"{src}: framecast failed: {r.stderr.strip()}")
    return json.loads(r.stderr.strip().splitlines()[-1])


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("root", help="the real-video set (manifest.json, clips/)")
    ap.add_argument("--split", default="val")
    ap.add_argument("--cls", default="camera", help="clip class: camera, animation or game")
    ap.add_argument("--ids", default="", help="only these clips (comma-separated ids)")
    ap.add_argument("--framecast", default="build/framecast")
    args = ap.parse_args()
    clips = json.load(open(os.path.join(args.root, "manifest.json")))["clips"]
    ids = set(filter(None, args.ids.split(",")))
    chosen = [c for c in clips if c["split"] == args.split and c["cls"] == args.cls and (not ids or c["id"] in ids)]
    totals = {"repeat": [], "dedup": []}
    frames = dropped_as_is = 0
    with tempfile.TemporaryDirectory() as tmp:
        for c in chosen:
            src = os.path.join(args.root, c["file"])
            w, h = c["width"], c["height"]
            twos = os.path.join(tmp, "twos.mkv")
            subprocess.run(["ffmpeg", "-v", "error", "-y", "-i", src, "-vf", f"framestep=2,fps={c['fps']}",
                            "-c:v", "libx264", "-crf", "22", "-pix_fmt", "yuv420p", twos], check=True)
            original = luma(src, w, h)
            scores = {}
            for name in totals:
                out = os.path.join(tmp, name + ".y4m")
                interpolate(args.framecast, twos, out, name == "dedup")
                made = luma(out, w, h)
                # the odd frames were replaced; the last has no later frame to interpolate towards
                n = min(len(made), len(original)) - 1
                replaced = [psnr(made[i], original[i]) for i in range(1, n, 2)]
                scores[name] = float(np.mean(replaced))
                totals[name] += replaced
            as_is = interpolate(args.framecast, src, os.path.join(tmp, "as_is.y4m"), True)
            frames += len(original)
            dropped_as_is += as_is["repeats_dropped"]
            print(f"{c['id']} {w}x{h} {c['fps']} fps: replaced frames {scores['repeat']:.2f} dB as repeats, "
                  f"{scores['dedup']:.2f} with --dedup; as it is, --dedup drops {as_is['repeats_dropped']} "
                  f"of {len(original)}", flush=True)
    print(f"{len(chosen)} clips, {len(totals['repeat'])} replaced frames: repeats {np.mean(totals['repeat']):.2f} dB, "
          f"--dedup {np.mean(totals['dedup']):.2f} dB; the clips as they are: {dropped_as_is} of {frames} "
          f"frames dropped")


if __name__ == "__main__":
    main()
