#!/usr/bin/python3
"""Copy training clips of the real-video set into a folder that travels with a device call.

    /usr/bin/python3 tools/train/pack_video.py ../shared/data/video --shards 0 --max-mib 20 \
        --out .video

A device call carries at most 64 MiB of tree: the repository, the photo pool and one shard do
not fit together. This takes the clips of --shards in the manifest's order, skipping the first
--skip of each shard (with --min-side, only clips whose shorter side can give train.py's
--real-size crops), taking one clip of each shard in turn (so that several shards share the
budget evenly) until --max-mib is reached, and writes them with a manifest that lists only
those clips (train.py --clips .video --shards ... then reads exactly them). It prints the ids
taken, for MODELS.md.
"""
import argparse
import itertools
import json
import os
import shutil
import sys


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("video_set")
    ap.add_argument("--shards", required=True, type=lambda s: {int(k) for k in s.split(",")})
    ap.add_argument("--skip", type=int, default=0,
                    help="leave out the first N clips of each shard (of those --min-side keeps)")
    ap.add_argument("--min-side", type=int, default=0,
                    help="only clips whose width and height are at least this many pixels")
    ap.add_argument("--max-mib", type=float, default=20.0)
    ap.add_argument("--out", required=True)
    args = ap.parse_args()
    with open(os.path.join(args.video_set, "manifest.json")) as f:
        manifest = json.load(f)
    per_shard = [[c for c in manifest["clips"]
                  if c["split"] == "train" and c.get("shard") == s
                  and min(c["width"], c["height"]) >= args.min_side][args.skip:]
                 for s in sorted(args.shards)]
    clips = [c for turn in itertools.zip_longest(*per_shard) for c in turn if c is not None]
    taken, total = [], 0
    for c in clips:
        if total + c["bytes"] > args.max_mib * 2**20:
            break
        taken.append(c)
        total += c["bytes"]
    if not taken:
        sys.exit("pack_video: no clip fits")
    shutil.rmtree(args.out, ignore_errors=True)
    os.makedirs(os.path.join(args.out, "clips"))
    for c in taken:
        shutil.copy(os.path.join(args.video_set, c["file"]), os.path.join(args.out, c["file"]))
    with open(os.path.join(args.out, "manifest.json"), "w") as f:
        json.dump({"clips": taken}, f, indent=1)
    print(f"{len(taken)} of {len(clips)} clips ({total / 2**20:.1f} MiB, "
          f"{sum(c['frames'] for c in taken)} frames) into {args.out}, skip {args.skip}, "
          f"min side {args.min_side}: "
          + " ".join(c["id"] for c in taken))


if __name__ == "__main__":
    main()
