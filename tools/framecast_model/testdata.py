"""Deterministic test material shared by tools/make_golden.py and tools/parity_check.py:
synthetic frame pairs, random-weight models whose flows and masks are non-trivial, and the
8-bit conversions the runtime uses."""
import math

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
from PIL import Image

from .graph import FramecastNet, bilinear_logits


def to_tensor(*frames):
    """uint8 HxWx3 RGB arrays -> float [N, 3, H, W] in [0, 1] (v / 255, as the runtime)."""
    return torch.stack([torch.from_numpy(f).permute(2, 0, 1).float() / 255.0 for f in frames])


def to_u8(x):
    """float [3, H, W] -> uint8 HxWx3 array by round-to-nearest, floor(clamp(v, 0, 1) * 255
    + 0.5) in float32, as the C++ runtime does (torch.round would round halves to even)."""
    return torch.floor(x.clamp(0.0, 1.0) * 255.0 + 0.5).to(torch.uint8).permute(1, 2, 0).numpy()


def write_png(path, u8):
    Image.fromarray(np.ascontiguousarray(u8)).save(path)


def read_png(path):
    """8-bit RGB PNG -> uint8 HxWx3; anything else (RGBA, 16-bit, grey) is an error."""
    with Image.open(path) as im:
        if im.mode != "RGB":
            raise ValueError(f"{path}: PNG mode {im.mode}, expected 8-bit RGB")
        return np.array(im)


def make_frames(w, h, seed, static=False):
    """A frame pair (uint8 HxWx3 each) that looks like video: a smooth gradient, waves,
    hard-edged shapes; frame1 is the scene moved by a sub-pixel camera shift plus a small
    textured object moving on its own. static=True adds an unmoving subtitle-like block
    of glyph bars (the static-region guard's case)."""
    rng = np.random.default_rng(seed)
    Y, X = np.mgrid[0:h, 0:w].astype(np.float64)
    base, gx, gy = rng.uniform(0.2, 0.6, 3), rng.uniform(-0.3, 0.3, 3), rng.uniform(-0.3, 0.3, 3)
    waves = [(rng.uniform(0.3, 1.3), rng.uniform(0, math.pi), rng.uniform(0, 2 * math.pi),
              rng.uniform(0.03, 0.08, 3)) for _ in range(3)]
    discs = [(rng.uniform(0, w), rng.uniform(0, h), rng.uniform(3, max(4, min(w, h) / 4)),
              rng.uniform(0, 1, 3)) for _ in range(3)]
    rects = [(*np.sort(rng.uniform(0, w, 2)), *np.sort(rng.uniform(0, h, 2)),
              rng.uniform(0, 1, 3)) for _ in range(2)]

    def scene(x, y):
        img = base + gx * (x / w)[..., None] + gy * (y / h)[..., None]
        for freq, ang, ph, amp in waves:
            img = img + amp * np.sin(freq * (x * math.cos(ang) + y * math.sin(ang)) + ph)[..., None]
        for cx, cy, r, col in discs:
            inside = (x - cx) ** 2 + (y - cy) ** 2 < r * r
            img[inside] = col * (0.85 + 0.15 * np.sin(1.9 * x[inside]))[..., None]
        for x0, x1, y0, y1, col in rects:
            img[(x >= x0) & (x < x1) & (y >= y0) & (y < y1)] = col
        return img

    def paste_object(img, ox, oy):
        # a striped square with a dark rim, moving rigidly
        s = max(3.0, min(w, h) / 6)
        u, v = X - ox, Y - oy
        inside = (np.abs(u) < s) & (np.abs(v) < s)
        rim = inside & ((np.abs(u) > s - 1.2) | (np.abs(v) > s - 1.2))
        img[inside] = (0.5 + 0.4 * np.sign(np.sin(1.3 * (u + v))))[inside][..., None] * obj_col
        img[rim] = 0.05

    cam = rng.uniform(1.5, 3.5, 2) * rng.choice([-1, 1], 2)
    obj_col = rng.uniform(0.3, 1.0, 3)
    o0 = rng.uniform(0.3, 0.7, 2) * (w, h)
    o1 = o0 + rng.uniform(2.0, 4.0, 2) * rng.choice([-1, 1], 2)
    f0, f1 = scene(X, Y), scene(X - cam[0], Y - cam[1])
    paste_object(f0, *o0)
    paste_object(f1, *o1)
    if static:  # light glyph bars on a dark box near the bottom, identical in both frames
        bw, bh = max(8, w // 2), max(5, h // 5)
        x0, y0 = (w - bw) // 2, h - bh - 2
        glyphs = rng.random((bh, bw)) < 0.45
        glyphs[[0, -1], :] = False
        glyphs[:, [0, -1]] = False
        for f in (f0, f1):
            box = f[y0:y0 + bh, x0:x0 + bw]
            box[:] = 0.08
            box[glyphs] = 0.95
    return tuple(np.floor(np.clip(f, 0, 1) * 255 + 0.5).astype(np.uint8) for f in (f0, f1))


def _init(net):
    """Gaussian weights of std gain/sqrt(fan_in) (gain for PReLU slopes ~0.25 keeps the trunk's
    activations at scale), small random biases, per-channel PReLU slopes in [0, 0.5]."""
    for m in net.modules():
        if isinstance(m, (nn.Conv2d, nn.Linear)):
            fan_in = m.weight[0].numel()
        elif isinstance(m, nn.ConvTranspose2d):
            fan_in = m.weight.shape[0] * 4  # stride 2: each output sees 2x2 taps per channel
        elif isinstance(m, nn.PReLU):
            m.weight.uniform_(0.0, 0.5)
            continue
        else:
            continue
        m.weight.normal_(0.0, 1.37 / math.sqrt(fan_in))
        m.bias.normal_(0.0, 0.1)


def _calibrate(net, layer, run, std, mean):
    """Rescale `layer`'s per-output-channel weights so its outputs on the calibration input
    have the given spatial std, and set its bias to `mean`: makes a random net's flows a few
    pixels and its masks unsaturated, whatever the widths."""
    seen = []
    hook = layer.register_forward_hook(lambda m, i, o: seen.append(i[0]))  # returns None
    run()
    hook.remove()
    x = seen[0]
    if isinstance(layer, nn.ConvTranspose2d):
        y = F.conv_transpose2d(x, layer.weight, None, 2, 1)
        layer.weight.mul_((std / y.transpose(0, 1).flatten(1).std(1))[None, :, None, None])
    else:
        y = F.conv2d(x, layer.weight)
        layer.weight.mul_((std / y.transpose(0, 1).flatten(1).std(1))[:, None, None, None])
    layer.bias.copy_(mean)


@torch.no_grad()
def random_net(variant, c1, c2, film_hidden, refine_width, seed, img0, img1, ts,
               flow_px=3.0, blocks=(), convex_up=False, convex_block0=False):
    """A random FramecastNet calibrated on (img0, img1) [1, 3, H, W] at the given ts: flow
    std ~flow_px pixels around a random mean of up to +-flow_px, mask logits of std 1.5,
    each refinement block's residual ~1 px and 0.5 in mask logits, tfact2 refine logits of
    std 0.15 (residuals of ~+-20 LSB). convex_up: the refinement blocks' convex upsampling
    logits vary with std 1.5 around the bilinear ones (a warm start trained a while), as do
    block0's with convex_block0."""
    torch.manual_seed(seed)
    net = FramecastNet(variant, c1, c2, film_hidden, refine_width, blocks,
                       convex_up=convex_up, convex_block0=convex_block0).eval()
    _init(net)
    n = len(ts)
    a, b, t = img0.expand(n, -1, -1, -1), img1.expand(n, -1, -1, -1), torch.tensor(ts)
    mean = torch.cat(((torch.rand(4) * 2 - 1) * flow_px / 8, torch.zeros(1)))
    std = torch.tensor([flow_px / 8] * 4 + [1.5])
    if convex_block0:
        logits = bilinear_logits(net.block0.convex_up)
        _calibrate(net, net.block0.upmask, lambda: net(a, b, t), torch.full_like(logits, 1.5),
                   logits)
    _calibrate(net, net.block0.lastconv, lambda: net(a, b, t), std, mean)
    for block, scale in net.refinement_blocks():  # in order: each sees the flows before it
        if convex_up:
            logits = bilinear_logits(block.convex_up)
            _calibrate(net, block.upmask, lambda: net(a, b, t), torch.full_like(logits, 1.5),
                       logits)
        _calibrate(net, block.lastconv, lambda: net(a, b, t),
                   torch.tensor([1.0 / (2 * scale)] * 4 + [0.5]), torch.zeros(5))
    if variant == "tfact2":
        _calibrate(net, net.refine.c3, lambda: net(a, b, t), torch.full((3,), 0.15),
                   torch.zeros(3))
    return net


@torch.no_grad()
def flow_stats(net, img0, img1, ts):
    """|flow| (both flows) mean and max in pixels, and the range of sigmoid(mask), over the
    pair img0, img1 [1, 3, H, W] at each t of ts."""
    n = len(ts)
    r = net.forward_train(img0.expand(n, -1, -1, -1), img1.expand(n, -1, -1, -1),
                          torch.tensor(ts))
    mag = torch.cat((r["flow"][:, 0:2].norm(dim=1), r["flow"][:, 2:4].norm(dim=1)))
    m = torch.sigmoid(r["mask"])
    return {"flow_mean": mag.mean().item(), "flow_max": mag.max().item(),
            "mask_min": m.min().item(), "mask_max": m.max().item()}
