"""Helpers of run.sh on the GPU machine (its python3 has numpy, OpenCV and PyTorch):
test frames, output comparison, random 240-channel models, the benchmark table."""
import json
import sys


def frames(stem, w, h, deep):
    import cv2
    import numpy as np
    yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)

    def frame(s):
        base = (0.5 + 0.25 * np.sin((xx - s) / 37.0) * np.cos((yy - s / 3) / 23.0)
                + 0.15 * np.sin((xx + yy - 2 * s) / 9.0))
        disc = ((xx - w * 0.4 - 2 * s) ** 2 + (yy - h * 0.5) ** 2) < (h * 0.12) ** 2
        rgb = np.stack([base, 0.8 * base + 0.1, 1.0 - base], -1)
        rgb[disc] = [0.9, 0.2, 0.1]
        rgb = np.clip(rgb, 0, 1)
        m = 65535 if deep else 255
        out = (rgb * m + 0.5).astype(np.uint16 if deep else np.uint8)[..., ::-1]  # BGR for cv2
        return np.ascontiguousarray(out)

    cv2.imwrite(stem + "0.png", frame(0.0))
    cv2.imwrite(stem + "1.png", frame(6.0))


def compare(a, b):
    import cv2
    import numpy as np
    xa, ya = cv2.imread(a, cv2.IMREAD_UNCHANGED), cv2.imread(b, cv2.IMREAD_UNCHANGED)
    if xa is None or ya is None:
        print(f"{a} vs {b}: missing output")
        return
    lsb = 257.0 if xa.dtype == np.uint16 else 1.0
    d = np.abs(xa.astype(np.int64) - ya.astype(np.int64))
    print(f"{a} vs {b}: max {d.max()} mean {d.mean():.4f} (8-bit LSB: max {d.max() / lsb:.2f}, "
          f"mean {d.mean() / lsb:.4f}), {100.0 * (d > 0).mean():.3f}% differ")


def random_model(variant, path):
    """A 120/240-channel model of the variant with random weights, for timings."""
    import torch
    sys.path.insert(0, "tools")
    from framecast_model.graph import FramecastNet
    from framecast_model.weights import save_safetensors
    torch.manual_seed(1)
    save_safetensors(FramecastNet(variant, 120, 240, 64, 32).eval(), path)


def merge(out, files):
    """One JSON object {name: bench report} from the per-run files (the device returns few files)."""
    merged = {}
    for f in files:
        try:
            merged[f.split("/")[-1][:-5]] = json.load(open(f))
        except (OSError, ValueError) as e:
            print(f"skipping {f}: {e}")
    json.dump(merged, open(out, "w"), indent=1)


def table(path, prefix):
    for f, reports in json.load(open(path)).items():
        if not f.startswith(prefix):
            continue
        for r in reports:
            stages = r.get("stages_ms", {})
            trunk = sum(v for k, v in stages.items() if k.startswith("trunk"))
            print(f"{f}: {r['size']:>9} mids/pair {r['mids_per_pair']} {r['timing']} "
                  f"{r['ms_per_mid']:.3f} ms/mid ({r['mids_per_s']:.1f}/s), wall "
                  f"{r['wall_ms_per_pair'] / r['mids_per_pair']:.3f} ms/mid, trunk(last mid) "
                  f"{trunk:.3f} ms | {r['runtime']}")


if __name__ == "__main__":
    cmd = sys.argv[1]
    if cmd == "frames":
        frames(sys.argv[2], int(sys.argv[3]), int(sys.argv[4]), sys.argv[5] == "16")
    elif cmd == "compare":
        compare(sys.argv[2], sys.argv[3])
    elif cmd in ("tfact2", "classic"):
        random_model(cmd, sys.argv[2])
    elif cmd == "merge":
        merge(sys.argv[2], sys.argv[3:])
    elif cmd == "table":
        table(sys.argv[2], sys.argv[3])
