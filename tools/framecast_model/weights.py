"""Model files: the seed's NAME.json + NAME.bin, and .safetensors (F32, F16, BF16).

NAME.json maps each tensor name to {"shape": [...], "offset": n} (n counted in float32
elements into NAME.bin, little-endian f32), plus "__metadata__" (a free-form object the
graph ignores). Tensor names are FramecastNet's state_dict keys.
"""
import json
import struct

import numpy as np
import torch

from .graph import FramecastNet

try:  # on the GPU machine; Debian 12 packages no python3-safetensors
    import safetensors
    import safetensors.torch
except ImportError:
    safetensors = None

ST_DTYPES = {"F32": torch.float32, "F16": torch.float16, "BF16": torch.bfloat16}
_INT_VIEW = {4: ("<i4", torch.int32), 2: ("<i2", torch.int16)}  # raw bytes of a dtype


def _tensors(net):
    return {k: v.detach().float().cpu().contiguous() for k, v in net.state_dict().items()}


def _metadata(net, metadata):
    # the net's own variant and widths win over what the caller passed
    return {**(metadata or {}), **net.config()}


def save_model(net, stem, metadata=None):
    """Write stem.json + stem.bin (the seed's format)."""
    stem = str(stem)
    header, chunks, offset = {}, [], 0
    for name, t in _tensors(net).items():
        header[name] = {"shape": list(t.shape), "offset": offset}
        chunks.append(t.numpy().astype("<f4").tobytes())
        offset += t.numel()
    header["__metadata__"] = _metadata(net, metadata)
    with open(stem + ".json", "w") as f:
        json.dump(header, f, indent=1)
        f.write("\n")
    with open(stem + ".bin", "wb") as f:
        f.write(b"".join(chunks))


def save_safetensors(net, path, metadata=None, dtype="F32"):
    """Write a .safetensors file; metadata values become strings (JSON for non-strings)."""
    meta = {k: v if isinstance(v, str) else json.dumps(v)
            for k, v in _metadata(net, metadata).items()}
    tensors = {k: v.to(ST_DTYPES[dtype]) for k, v in _tensors(net).items()}
    if safetensors is not None:
        safetensors.torch.save_file(tensors, str(path), metadata=meta)
    else:
        write_safetensors(tensors, path, meta)


def write_safetensors(tensors, path, meta):
    """The format by hand, for machines without the library: u64 LE header length, the JSON
    header {name: {dtype, shape, data_offsets}, "__metadata__": {str: str}} padded with
    spaces to 8 bytes (as the library does), then the tensors' raw little-endian bytes."""
    names = {v: k for k, v in ST_DTYPES.items()}
    header, chunks, offset = {"__metadata__": meta}, [], 0
    for name, t in tensors.items():
        np_int, torch_int = _INT_VIEW[t.element_size()]
        data = t.reshape(-1).view(torch_int).numpy().astype(np_int).tobytes()
        header[name] = {"dtype": names[t.dtype], "shape": list(t.shape),
                        "data_offsets": [offset, offset + len(data)]}
        chunks.append(data)
        offset += len(data)
    blob = json.dumps(header, separators=(",", ":")).encode()
    blob += b" " * (-len(blob) % 8)
    with open(path, "wb") as f:
        f.write(struct.pack("<Q", len(blob)) + blob + b"".join(chunks))


def _read_safetensors(path):
    if safetensors is not None:
        with safetensors.safe_open(path, framework="pt") as f:
            return {k: f.get_tensor(k).float() for k in f.keys()}, f.metadata() or {}
    with open(path, "rb") as f:
        (n,) = struct.unpack("<Q", f.read(8))
        header = json.loads(f.read(n))
        data = f.read()
    meta = header.pop("__metadata__", {})
    tensors = {}
    for name, e in header.items():
        dtype = ST_DTYPES[e["dtype"]]
        np_int, torch_int = _INT_VIEW[torch.tensor([], dtype=dtype).element_size()]
        a, b = e["data_offsets"]
        raw = torch.from_numpy(np.frombuffer(data[a:b], dtype=np_int).copy())
        tensors[name] = raw.view(dtype).float().reshape(e["shape"])
    return tensors, meta


def read_tensors(path):
    """(float32 tensors by name, metadata) of a .safetensors file or of NAME.json/NAME.bin
    (path: NAME.json or NAME). Safetensors metadata values are strings."""
    path = str(path)
    if path.endswith(".safetensors"):
        return _read_safetensors(path)
    stem = path[:-len(".json")] if path.endswith(".json") else path
    with open(stem + ".json") as f:
        header = json.load(f)
    meta = header.pop("__metadata__", {})
    data = np.fromfile(stem + ".bin", dtype="<f4")
    tensors = {}
    for name, e in header.items():
        n = int(np.prod(e["shape"]))
        chunk = data[e["offset"]:e["offset"] + n].astype(np.float32)
        tensors[name] = torch.from_numpy(chunk).reshape(e["shape"])
    return tensors, meta


def block_scales(meta, count):
    """Every block's input scale: metadata "block_scales" (a list, or its JSON text where
    safetensors stores strings), else 4, 2, 1, 1, ... as in the runtime."""
    scales = meta.get("block_scales")
    if isinstance(scales, str):
        scales = json.loads(scales)
    return list(scales) if scales else [max(1, 4 >> k) for k in range(count)]


def load_model(path):
    """A FramecastNet from either format; variant and widths come from the tensors
    (classic: no film.*; tfact: film.*; tfact2: film.* and refine.*; blockK.* for K >= 1
    are refinement blocks; blockK.upmask.*: convex upsampling), as in the runtime."""
    tensors, meta = read_tensors(path)

    def width(name):
        return tensors[name].shape[0] if name in tensors else 0

    film, refine = "film.0.weight" in tensors, "refine.c0.weight" in tensors
    variant = ("tfact2" if refine else "tfact") if film else "classic"
    count = 1
    while f"block{count}.conv0.0.0.weight" in tensors:
        count += 1
    scales = block_scales(meta, count)
    blocks = [(width(f"block{k}.conv0.0.0.weight"), width(f"block{k}.conv0.1.0.weight"),
               scales[k]) for k in range(1, count)]
    net = FramecastNet(variant, width("block0.conv0.0.0.weight"),
                       width("block0.conv0.1.0.weight"), width("film.0.weight"),
                       width("refine.c0.weight"), blocks, block0_scale=scales[0],
                       convex_up="block1.upmask.weight" in tensors,
                       convex_block0="block0.upmask.weight" in tensors)
    net.load_state_dict(tensors, strict=True)  # names and shapes must all match
    return net.eval()
