#!/usr/bin/python3
"""Cut real-video training sequences into .pool/clips/ from short videos in Debian's packages.

The synthetic generator (synth.py) renders layered scenes; real video has what it lacks: bodies
that turn and bend, parallax, real motion blur and real compression. No video data set can be
downloaded here, but a few Debian packages (all in main) ship short real recordings as examples
or test media. This script fetches those packages with `apt-get download` (nothing is
installed), decodes each video with the ffmpeg command, drops scene cuts, repeated frames and
still stretches, and keeps runs of SEQ consecutive frames spread over each video, scaled to at
most LONG px on the long side, as JPEG q90.

    /usr/bin/python3 tools/train/make_clips.py          # writes .pool/clips/ (~20 MB)

What it writes:

  .pool/clips/<clip>-<run>/<k>.jpg   SEQ consecutive frames of one run
  .pool/clips/clips.json             every source (package, path, fps, size, licence file) and
                                     every run (folder, first frame, frame count, mean motion)

clips.py samples triplets from these runs for train.py (`--data NAME=real=FRACTION`).
"""
import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile

import numpy as np
from PIL import Image

from frame_runs import STILL_DIFF, drop_repeats, shots

# name, package, path inside the package. Real recordings only: animations, screen captures,
# test charts and sources below 400 px were looked at and left out.
SOURCES = [
    ("dog", "forensics-samples-files",
     "/usr/share/forensics-samples/original-files/movie1/VID_20191220_170832.mp4"),
    ("diver", "pd-extendedview", "/usr/share/doc/pd-extendedview/media/diver.mov"),
    ("city", "python-kivy-examples", "/usr/share/kivy-examples/widgets/cityCC0.mpg"),
    ("cockatoo", "python3-imageio",
     "/usr/lib/python3/dist-packages/imageio/resources/images/cockatoo.mp4"),
    ("ball", "python3-mecavideo", "/usr/share/pymecavideo/data/video/balle-jbart.mp4"),
    ("pedestrians", "opencv-doc", "/usr/share/doc/opencv-doc/examples/data/vtest.avi"),
    ("box", "opencv-doc", "/usr/share/doc/opencv-doc/opencv4/html/box.mp4.gz"),
    ("cup", "opencv-doc", "/usr/share/doc/opencv-doc/opencv4/html/cup.mp4.gz"),
    ("lego", "python3-hug-doc",
     "/usr/share/doc/python3-hug/examples/streaming_movie_server/movie.mp4"),
]

def fetch(packages, cache):
    """apt-get download each package into cache (once) and unpack it; returns {pkg: root}."""
    roots = {}
    for pkg in sorted(set(packages)):
        debs = [f for f in os.listdir(cache) if f.startswith(pkg + "_") and f.endswith(".deb")]
        if not debs:
            got = subprocess.run(["apt-get", "download", pkg], cwd=cache,
                                 stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
            if got.returncode:
                sys.exit(f"make_clips: apt-get download {pkg} failed: {got.stderr.strip()}")
            debs = [f for f in os.listdir(cache) if f.startswith(pkg + "_")]
        root = os.path.join(cache, pkg)
        if not os.path.isdir(root):
            subprocess.run(["dpkg-deb", "-x", os.path.join(cache, debs[0]), root], check=True)
        roots[pkg] = (root, debs[0])
    return roots


def decode(path, long_side):
    """All frames as uint8 [N, H, W, 3], scaled (area) to at most long_side px, even sizes,
    as stored (a rotation tag is not applied: training does not care which way is up)."""
    if path.endswith(".gz"):
        plain = path[:-3]
        if not os.path.exists(plain):
            with open(plain, "wb") as f:
                subprocess.run(["gunzip", "-c", path], stdout=f, check=True)
        path = plain
    probe = subprocess.run(["ffprobe", "-v", "error", "-select_streams", "v:0", "-show_entries",
                            "stream=width,height,r_frame_rate", "-of", "json", path],
                           capture_output=True, check=True, text=True)
    st = json.loads(probe.stdout)["streams"][0]
    num, den = (int(x) for x in st["r_frame_rate"].split("/"))
    w, h = st["width"], st["height"]
    scale = min(1.0, long_side / max(w, h))
    W, H = int(w * scale) // 2 * 2, int(h * scale) // 2 * 2
    raw = subprocess.run(["ffmpeg", "-v", "error", "-noautorotate", "-i", path, "-vf",
                          f"scale={W}:{H}:flags=area", "-f", "rawvideo", "-pix_fmt", "rgb24",
                          "-vsync", "passthrough", "-"], capture_output=True, check=True).stdout
    frames = np.frombuffer(raw, np.uint8).reshape(-1, H, W, 3)
    return frames, num / den, (w, h)


def pick_runs(runs, diff, seq, budget):
    """Up to `budget` runs of `seq` frames, spread evenly over the usable stretches."""
    slots = []
    for a, b in runs:
        for s in range(a, b - seq + 1, seq):
            motion = float(diff[s:s + seq - 1].mean())
            if motion >= STILL_DIFF:
                slots.append((s, motion))
    if len(slots) > budget:
        keep = np.linspace(0, len(slots) - 1, budget).round().astype(int)
        slots = [slots[k] for k in keep]
    return slots


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--out", default=".pool/clips")
    ap.add_argument("--cache", default="", help="where the .deb files go (default: a temp dir)")
    ap.add_argument("--long", type=int, default=640, help="longest side of a kept frame, px")
    ap.add_argument("--seq", type=int, default=8, help="frames per run")
    ap.add_argument("--runs", type=int, default=8, help="most runs kept per video")
    ap.add_argument("--quality", type=int, default=88, help="JPEG quality")
    args = ap.parse_args()
    for tool in ("apt-get", "dpkg-deb", "ffmpeg", "ffprobe"):
        if not shutil.which(tool):
            sys.exit(f"make_clips: needs {tool}")
    cache = args.cache or tempfile.mkdtemp(prefix="framecast-clips-")
    os.makedirs(cache, exist_ok=True)
    roots = fetch([p for _, p, _ in SOURCES], cache)
    building = args.out + ".partial"  # a failed run leaves no half pool under --out
    if os.path.isdir(building):
        shutil.rmtree(building)
    os.makedirs(building)
    manifest = {"long_side": args.long, "seq": args.seq, "sources": [], "runs": []}
    total = 0
    for name, pkg, path in SOURCES:
        root, deb = roots[pkg]
        frames, fps, size = decode(root + path, args.long)
        decoded = len(frames)
        frames = drop_repeats(frames)
        fps *= len(frames) / decoded
        runs, diff = shots(frames)
        slots = pick_runs(runs, diff, args.seq, args.runs)
        manifest["sources"].append({
            "clip": name, "package": pkg, "deb": deb, "path": path, "fps": round(fps, 3),
            "size": list(size), "kept_size": [frames.shape[2], frames.shape[1]],
            "frames": decoded, "repeats_dropped": decoded - len(frames), "shots": len(runs),
            "runs_kept": len(slots),
            "licence": f"Debian main; /usr/share/doc/{pkg}/copyright"})
        for r, (s, motion) in enumerate(slots):
            folder = f"{name}-{r:02d}"
            os.makedirs(os.path.join(building, folder))
            for k in range(args.seq):
                file = os.path.join(building, folder, f"{k}.jpg")
                Image.fromarray(frames[s + k]).save(file, quality=args.quality)
                total += os.path.getsize(file)
            manifest["runs"].append({"folder": folder, "clip": name, "first": s,
                                     "frames": args.seq, "fps": round(fps, 3),
                                     "motion": round(motion, 2)})
        print(f"{name:12s} {len(frames):4d} frames {frames.shape[2]}x{frames.shape[1]} "
              f"{fps:6.2f} fps, {len(runs)} shots, {len(slots)} runs kept", flush=True)
    with open(os.path.join(building, "clips.json"), "w") as f:
        json.dump(manifest, f, indent=1)
    if os.path.isdir(args.out):
        shutil.rmtree(args.out)
    os.rename(building, args.out)
    print(f"{len(manifest['runs'])} runs, {total / 2**20:.1f} MiB in {args.out}")


if __name__ == "__main__":
    main()
