#!/usr/bin/python3
"""Cut validation triplets out of video clips: frames k, k + 1 and k + 2 of each clip as
frame0, frame1 (the truth) and frame2, for every k, in eval.py's folder layout.

    /usr/bin/python3 tools/eval/make_clip_set.py ../shared/data/clips/*.y4m --out /tmp/xiph
    /usr/bin/python3 tools/eval/eval.py /tmp/xiph ...

Real motion at twice the clip's frame interval, a check beside DAVIS-val for models trained
on real video (MODELS.md): none of these clips is in the training runs of make_clips.py.
"""
import argparse
import os
import shutil
import subprocess
import sys
import tempfile


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("clips", nargs="+", help="video files ffmpeg reads")
    ap.add_argument("--out", required=True)
    args = ap.parse_args()
    if not shutil.which("ffmpeg"):
        sys.exit("make_clip_set: needs the ffmpeg command")
    building = args.out + ".partial"  # a failed run leaves no half set under --out
    shutil.rmtree(building, ignore_errors=True)
    for clip in args.clips:
        name = os.path.basename(clip).split("_")[0].split(".")[0]
        with tempfile.TemporaryDirectory() as tmp:
            got = subprocess.run(["ffmpeg", "-v", "error", "-i", clip,
                                  os.path.join(tmp, "%04d.png")], capture_output=True, text=True)
            if got.returncode:
                shutil.rmtree(building, ignore_errors=True)
                sys.exit(f"make_clip_set: cannot read {clip}: {got.stderr.strip()}")
            frames = sorted(os.listdir(tmp))
            for k in range(len(frames) - 2):
                folder = os.path.join(building, f"{name}-{k:03d}")
                os.makedirs(folder, exist_ok=True)
                for i in range(3):
                    shutil.copy(os.path.join(tmp, frames[k + i]),
                                os.path.join(folder, f"frame{i}.png"))
        print(f"{clip}: {len(frames) - 2} triplets")
    shutil.rmtree(args.out, ignore_errors=True)
    os.rename(building, args.out)


if __name__ == "__main__":
    main()
