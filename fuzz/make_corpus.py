#!/usr/bin/env python3
"""Writes the seed corpora of fuzz/corpus/<target>/ from the golden models and small clips
made with the ffmpeg CLI. Run from the repository root; the files are committed, so this is
needed only to change them."""
import json
import math
import pathlib
import struct
import subprocess
import tempfile
import zlib

ROOT = pathlib.Path(__file__).resolve().parent.parent
GOLDEN = ROOT / "tests" / "golden"
CORPUS = ROOT / "fuzz" / "corpus"


def write(target, name, data):
    folder = CORPUS / target
    folder.mkdir(parents=True, exist_ok=True)
    (folder / name).write_bytes(data.encode() if isinstance(data, str) else data)


def safetensors_parts(path):
    data = path.read_bytes()
    (n,) = struct.unpack("<Q", data[:8])
    return json.loads(data[8:8 + n]), data[8 + n:]


def safetensors(header, body):
    text = json.dumps(header, separators=(",", ":")).encode()
    return struct.pack("<Q", len(text)) + text + body


def first_tensors(header, body, count):
    """The header's metadata and first `count` tensors, with their bytes, re-packed."""
    kept, out = {"__metadata__": header["__metadata__"]}, b""
    for name in [k for k in header if k != "__metadata__"][:count]:
        entry = dict(header[name])
        begin, end = entry["data_offsets"]
        entry["data_offsets"] = [len(out), len(out) + end - begin]
        out += body[begin:end]
        kept[name] = entry
    return kept, out


def safetensors_seeds():
    for case in ("classic_37x21_f16", "tfact2_50x38_bf16", "k3_classic_37x21_guard"):
        header, body = safetensors_parts(GOLDEN / case / "model.safetensors")
        small, small_body = first_tensors(header, body, 3)
        write("fuzz_safetensors", case + "-3-tensors", safetensors(small, small_body))
        write("fuzz_safetensors", case + "-truncated", safetensors(header, body[:512]))
    # F32 tensors: the F16 case's first tensor widened.
    header, body = safetensors_parts(GOLDEN / "classic_37x21_f16" / "model.safetensors")
    small, small_body = first_tensors(header, body, 1)
    name = [k for k in small if k != "__metadata__"][0]
    values = struct.unpack("<%de" % (len(small_body) // 2), small_body)
    small[name].update(dtype="F32", data_offsets=[0, 4 * len(values)])
    write("fuzz_safetensors", "f32-1-tensor", safetensors(small, struct.pack("<%df" % len(values), *values)))


def json_bin_seeds():
    for case in ("classic_32x32", "k3_tfact2_50x38"):
        manifest = json.loads((GOLDEN / case / "model.json").read_text())
        binary = (GOLDEN / case / "model.bin").read_bytes()
        names = [k for k in manifest if k != "__metadata__"][:3]
        end = max(manifest[k]["offset"] + math.prod(manifest[k]["shape"]) for k in names)
        small = {k: manifest[k] for k in ["__metadata__"] + names}
        write("fuzz_json_bin", case + "-3-tensors", json.dumps(small).encode() + b"\0" + binary[:4 * end])
        write("fuzz_json_bin", case + "-truncated", json.dumps(manifest).encode() + b"\0" + binary[:1024])


def validation_seeds():
    """Every golden model's tensor shapes and metadata."""
    for case in sorted(p for p in GOLDEN.iterdir() if p.is_dir()):
        if (case / "model.json").exists():
            manifest = json.loads((case / "model.json").read_text())
        else:
            manifest, _ = safetensors_parts(case / "model.safetensors")
        shapes = {k: (v if k == "__metadata__" else v["shape"]) for k, v in manifest.items()}
        write("fuzz_model_validation", case.name, json.dumps(shapes, separators=(",", ":")))


def tune_cache_seeds():
    entry = lambda kind, coc, slab, ts, ms: {"kind": kind, "coc": coc, "slab": slab, "tile_stride": ts,
                                            "ms": ms, "device": "llvmpipe (LLVM 15.0.6, 256 bits)"}
    doc = {"magic": "framecast-tune", "version": 1, "entries": {
        "10005:0000 c20 3x3 f32 driver 1 kernels 1": entry("rb", 4, 8, 18, 0.4181),
        "10005:0000 c96 8x5 f16 driver 1 kernels 1": entry("tiled", 8, 4, 1, 2.73),
        "10de:2335 c240 120x68 f16 driver 2267283456 kernels 1": entry("coop", 64, 2, 16, 0.0912)}}
    write("fuzz_tune_cache", "three-entries", json.dumps(doc, indent=2))
    write("fuzz_tune_cache", "stale-version", json.dumps(dict(doc, version=0)))
    write("fuzz_tune_cache", "empty", '{"magic": "framecast-tune", "version": 1, "entries": {}}')


def cli_seeds():
    seeds = {"factor-2": "\0" "2", "factor-2.5": "\0" "2.5", "factor-ntsc": "\0" "60000/1001",
             "fps-59.94": "\1" "59.94", "fps-23.976": "\1" "23.976", "fps-120": "\1" "120",
             "size-1080p": "\2" "1920x1080", "size-odd": "\2" "37x21", "t-three": "\3" "0.25,0.5,0.75",
             "t-one": "\3" "0.5", "names-one": "\4" "mid.png", "names-two": "\x0c" "mid_%02d.png",
             "names-percent": "\x14" "100%%_%3d.png", "segment-2-of-5": "\5" "2/5",
             "frames-range": "\6" "0:88", "frames-to-end": "\6" "88:", "devices-list": "\7" "0,1",
             "devices-all": "\7" "all"}
    for name, data in seeds.items():
        write("fuzz_cli_arguments", name, data)


def video_seeds():
    """Tiny clips: yuv4mpeg (the stdin path) and Matroska with variable frame rate."""
    clips = {"y4m-420-16x16": "-f lavfi -i testsrc2=s=16x16:r=24:d=0.125 -pix_fmt yuv420p -f yuv4mpegpipe",
             "y4m-422p10-16x8": "-f lavfi -i testsrc2=s=16x8:r=30000/1001:d=0.1 -pix_fmt yuv422p10 -strict -1 -f yuv4mpegpipe",
             "y4m-gray-8x8": "-f lavfi -i testsrc2=s=8x8:r=25:d=0.12 -pix_fmt gray -f yuv4mpegpipe",
             "mkv-vfr-16x16": "-f lavfi -i testsrc2=s=16x16:r=24:d=0.25 -vf setpts=N*N/24/TB "
                              "-c:v rawvideo -pix_fmt yuv420p -fps_mode vfr -f matroska"}
    with tempfile.TemporaryDirectory() as tmp:
        for name, args in clips.items():
            out = pathlib.Path(tmp) / name
            subprocess.run(["ffmpeg", "-v", "error", "-y"] + args.split() + [str(out)], check=True)
            write("fuzz_video_source", name, out.read_bytes())


def png_chunk(kind, body):
    return struct.pack(">I", len(body)) + kind + body + struct.pack(">I", zlib.crc32(kind + body))


def interlaced_png(width, height, rgb):
    """An Adam7-interlaced 8-bit RGB PNG (ffmpeg writes none), filter 0 on every row."""
    passes = [(0, 0, 8, 8), (4, 0, 8, 8), (0, 4, 4, 8), (2, 0, 4, 4), (0, 2, 2, 4), (1, 0, 2, 2), (0, 1, 1, 2)]
    raw = b""
    for x0, y0, dx, dy in passes:
        for y in range(y0, height, dy):
            row = b"".join(rgb[3 * (y * width + x):3 * (y * width + x) + 3] for x in range(x0, width, dx))
            raw += b"\0" + row if row else b""
    ihdr = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 1)
    return (b"\x89PNG\r\n\x1a\n" + png_chunk(b"IHDR", ihdr) + png_chunk(b"IDAT", zlib.compress(raw))
            + png_chunk(b"IEND", b""))


def png_with_oversized_splt():
    """A 16x16 grey PNG whose sPLT chunk claims 1.9 GB in an 85-byte file: libpng allocates what
    a parsed chunk claims before it reads it, so the reader must leave such chunks unparsed."""
    ihdr = struct.pack(">IIBBBBB", 16, 16, 16, 0, 0, 0, 0)
    return (b"\x89PNG\r\n\x1a\n" + png_chunk(b"IHDR", ihdr) + struct.pack(">I", 0x73737373)
            + b"sPLT" + bytes(range(40)))


def image_seeds():
    """Small PNGs (8- and 16-bit, grey, grey + alpha, RGBA, palette, interlaced) and JPEGs
    (4:2:0, 4:4:4, grey) from testsrc2 and a real frame, each also cut in half."""
    real = ROOT.parent / "shared" / "data" / "val" / "davis" / "juggle" / "frame0.png"
    testsrc = lambda size: "-f lavfi -i testsrc2=s=%s:d=1 -frames:v 1" % size
    images = {"png-rgb24-16x16": (testsrc("16x16"), "-pix_fmt rgb24", "png"),
              "png-rgb48-24x16": (testsrc("24x16"), "-pix_fmt rgb48be", "png"),
              "png-gray-32x24": (testsrc("32x24"), "-pix_fmt gray", "png"),
              "png-gray16-16x16": (testsrc("16x16"), "-pix_fmt gray16be", "png"),
              "png-ya8-16x16": (testsrc("16x16"), "-pix_fmt ya8", "png"),
              "png-rgba-20x12": (testsrc("20x12"), "-pix_fmt rgba", "png"),
              "png-rgba64-16x16": (testsrc("16x16"), "-pix_fmt rgba64be", "png"),
              "png-pal8-16x16": (testsrc("16x16"), "-pix_fmt pal8", "png"),
              "png-paeth-16x16": (testsrc("16x16"), "-pix_fmt rgb24 -pred paeth", "png"),
              "jpeg-420-32x24": (testsrc("32x24"), "-pix_fmt yuvj420p -q:v 5", "jpg"),
              "jpeg-444-16x16": (testsrc("16x16"), "-pix_fmt yuvj444p -q:v 2", "jpg"),
              "jpeg-gray-16x16": (testsrc("16x16"), "-pix_fmt gray -q:v 5", "jpg")}
    if real.exists():
        images["png-davis-64x48"] = ("-i %s -vf scale=64:48" % real, "-pix_fmt rgb24", "png")
        images["jpeg-davis-64x48"] = ("-i %s -vf scale=64:48" % real, "-pix_fmt yuvj420p -q:v 4", "jpg")
    with tempfile.TemporaryDirectory() as tmp:
        for name, (source, args, ext) in images.items():
            out = pathlib.Path(tmp) / (name + "." + ext)
            subprocess.run(["ffmpeg", "-v", "error", "-y"] + source.split() + args.split() + [str(out)],
                           check=True)
            data = out.read_bytes()
            write("fuzz_image", name, data)
            write("fuzz_image", name + "-truncated", data[:len(data) // 2])
        rgb = subprocess.run(["ffmpeg", "-v", "error"] + testsrc("16x12").split()
                             + ["-pix_fmt", "rgb24", "-f", "rawvideo", "-"], check=True, capture_output=True).stdout
        write("fuzz_image", "png-interlaced-16x12", interlaced_png(16, 12, rgb))
    write("fuzz_image", "png-splt-length-beyond-file", png_with_oversized_splt())


if __name__ == "__main__":
    safetensors_seeds()
    json_bin_seeds()
    validation_seeds()
    tune_cache_seeds()
    cli_seeds()
    video_seeds()
    image_seeds()
