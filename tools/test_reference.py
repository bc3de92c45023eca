#!/usr/bin/python3
"""Unit tests of the PyTorch reference (tools/framecast_model) against naive loops written
from the seed's shaders (shared/seed/rt.js): each resampling, the warp, the refine head,
the guard, FiLM, the padding, the convolutions, and the whole forward of every variant.

Run: /usr/bin/python3 -m unittest tools/test_reference.py   (or run this file)
"""
import json
import math
import os
import struct
import sys
import tempfile
import unittest

import numpy as np
import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from framecast_model import (FramecastNet, load_model, read_tensors, save_model,  # noqa: E402
                             save_safetensors)
from framecast_model import graph, weights  # noqa: E402
from framecast_model.testdata import make_frames, random_net, to_tensor  # noqa: E402

TOL = 1e-5  # float32 vs the float64 loops below, for one layer


# ---- the seed's formulas, literally, in float64 -------------------------------------

def mix(a, b, f):
    return a * (1.0 - f) + b * f


def sigmoid(x):
    return 1.0 / (1.0 + math.exp(-x))


def bilinear(plane, sx, sy):
    """sampleQ / up / rup / warp3 on one plane: bilinear with taps clamped to the border."""
    h, w = plane.shape
    x0, y0 = math.floor(sx), math.floor(sy)
    fx, fy = sx - x0, sy - y0

    def tap(x, y):
        return plane[min(max(y, 0), h - 1), min(max(x, 0), w - 1)]

    return mix(mix(tap(x0, y0), tap(x0 + 1, y0), fx),
               mix(tap(x0, y0 + 1), tap(x0 + 1, y0 + 1), fx), fy)


def resample(x, oh, ow):
    """[C, H, W] -> [C, oh, ow], align_corners=false: src = (dst + 0.5) * in / out - 0.5."""
    c, h, w = x.shape
    out = np.zeros((c, oh, ow))
    for ci in range(c):
        for y in range(oh):
            for xx in range(ow):
                out[ci, y, xx] = bilinear(x[ci], (xx + 0.5) * w / ow - 0.5,
                                          (y + 0.5) * h / oh - 0.5)
    return out


def warp3(img, flow):
    """img [3, H, W], flow [2, H, W] -> img sampled at (x + fx, y + fy)."""
    out = np.zeros_like(img)
    for c in range(img.shape[0]):
        for y in range(img.shape[1]):
            for x in range(img.shape[2]):
                out[c, y, x] = bilinear(img[c], x + flow[0, y, x], y + flow[1, y, x])
    return out


def conv3x3(x, w, b, stride, edge=False):
    """wgslConv (zero padding) or, with edge=True, wgslRefineOut (clamped taps)."""
    c, h, wd = x.shape
    oh, ow = (h - 1) // stride + 1, (wd - 1) // stride + 1
    out = np.zeros((w.shape[0], oh, ow))
    for y in range(oh):
        for xx in range(ow):
            patch = np.zeros((c, 3, 3))
            for ky in range(3):
                for kx in range(3):
                    iy, ix = y * stride + ky - 1, xx * stride + kx - 1
                    if edge:
                        patch[:, ky, kx] = x[:, min(max(iy, 0), h - 1), min(max(ix, 0), wd - 1)]
                    elif 0 <= iy < h and 0 <= ix < wd:
                        patch[:, ky, kx] = x[:, iy, ix]
            out[:, y, xx] = b + (w * patch[None]).sum(axis=(1, 2, 3))
    return out


def prelu(x, a):
    return np.where(x >= 0, x, a[:, None, None] * x)


def deconv(x, w, b):
    """wgslDeconv: ConvTranspose 4x4 stride 2 pad 1, weight [CI, CO, 4, 4]."""
    ci_n, ih, iw = x.shape
    co_n = w.shape[1]
    out = np.zeros((co_n, ih * 2, iw * 2))
    for co in range(co_n):
        for y in range(ih * 2):
            for xx in range(iw * 2):
                acc = b[co]
                for ky in range(4):
                    ty = y + 1 - ky
                    if ty < 0 or ty % 2 or ty // 2 >= ih:
                        continue
                    for kx in range(4):
                        tx = xx + 1 - kx
                        if tx < 0 or tx % 2 or tx // 2 >= iw:
                            continue
                        acc += (x[:, ty // 2, tx // 2] * w[:, co, ky, kx]).sum()
                out[co, y, xx] = acc
    return out


def film_params(sd, t):
    """The seed's filmParams (JS loops)."""
    w0, b0 = sd["film.0.weight"][:, 0], sd["film.0.bias"]
    w2, b2 = sd["film.2.weight"], sd["film.2.bias"]
    h = [max(0.0, w0[j] * t + b0[j]) for j in range(len(b0))]
    return np.array([b2[k] + sum(w2[k, j] * h[j] for j in range(len(h))) for k in range(len(b2))])


def refine_prep(w0, w1, m, flow):
    """wgslRefinePrep: mean over the centre 2x2 of each 4x4 block of the full-res values."""
    full = np.concatenate((w0, w1, m, flow * (0.25 / 20.0)))
    c, h, w = full.shape
    out = np.zeros((c, h // 4, w // 4))
    for y in range(h // 4):
        for x in range(w // 4):
            out[:, y, x] = full[:, 4 * y + 1:4 * y + 3, 4 * x + 1:4 * x + 3].mean(axis=(1, 2))
    return out


def smoothstep(e0, e1, x):
    t = min(max((x - e0) / (e1 - e0), 0.0), 1.0)
    return t * t * (3.0 - 2.0 * t)


def guard(out, a, b):
    """The seed's GUARD on [3, H, W] planes, neighbours clamped."""
    _, h, w = a.shape
    res = out.copy()
    for y in range(h):
        for x in range(w):
            d = 0.0
            for dy in (-1, 0, 1):
                for dx in (-1, 0, 1):
                    yy, xx = min(max(y + dy, 0), h - 1), min(max(x + dx, 0), w - 1)
                    d += np.abs(a[:, yy, xx] - b[:, yy, xx]).max()
            ws = 1.0 - smoothstep(0.03, 0.09, d / 9.0)
            if ws > 0.001:
                res[:, y, x] = mix(out[:, y, x], (a[:, y, x] + b[:, y, x]) * 0.5, ws)
    return res


def naive_forward(net, img0, img1, t, static_guard):
    """The whole runtime graph from the loops above. img*: [3, h, w] RGB float64."""
    sd = {k: v.double().numpy() for k, v in net.state_dict().items()}
    _, h, w = img0.shape
    H, W = -(-h // 16) * 16, -(-w // 16) * 16
    iy, ix = np.minimum(np.arange(H), h - 1), np.minimum(np.arange(W), w - 1)
    x0, x1 = img0[::-1][:, iy][:, :, ix], img1[::-1][:, iy][:, :, ix]  # BGR, edge-padded
    xq = resample(np.concatenate((x0, x1)), H // 4, W // 4)
    if net.variant == "classic":
        xq = np.concatenate((xq, np.full((1, H // 4, W // 4), t)))

    def cp(x, name, stride):
        return prelu(conv3x3(x, sd[name + ".0.weight"], sd[name + ".0.bias"], stride),
                     sd[name + ".1.weight"])

    f = feat0 = cp(cp(xq, "block0.conv0.0", 2), "block0.conv0.1", 2)
    for i in range(8):
        if i == 6 and net.variant != "classic":
            p = film_params(sd, t)
            c2 = f.shape[0]
            f = f * (1.0 + p[:c2, None, None]) + p[c2:, None, None]
        f = cp(f, f"block0.convblock.{i}", 1)
    tmp = deconv(f + feat0, sd["block0.lastconv.weight"], sd["block0.lastconv.bias"])
    up = resample(tmp, H, W)
    flow, m = up[:4] * 8.0, np.vectorize(sigmoid)(up[4:5])
    w0, w1 = warp3(x0, flow[0:2]), warp3(x1, flow[2:4])
    out = w0 * m + w1 * (1.0 - m)
    if net.variant == "tfact2":
        r = refine_prep(w0, w1, m, flow)
        for i in range(3):
            r = prelu(conv3x3(r, sd[f"refine.c{i}.weight"], sd[f"refine.c{i}.bias"], 1),
                      sd[f"refine.a{i}.weight"])
        r = conv3x3(r, sd["refine.c3.weight"], sd["refine.c3.bias"], 1, edge=True)
        out = out + resample(2.0 * np.vectorize(sigmoid)(r) - 1.0, H, W)
    out = np.clip(out, 0.0, 1.0)
    if static_guard:
        out = guard(out, x0, x1)
    return out[::-1, :h, :w]


def close(test, got, want, tol=TOL):
    got, want = (v.detach().double().numpy() if torch.is_tensor(v) else v for v in (got, want))
    err = np.abs(got - want)
    test.assertEqual(got.shape, want.shape)
    where = np.unravel_index(err.argmax(), err.shape)
    test.assertLessEqual(err.max(), tol, f"max error {err.max():.3g} at {where}")


class Layers(unittest.TestCase):
    def setUp(self):
        torch.manual_seed(0)

    def test_quarter_downsample(self):
        x = torch.rand(2, 3, 16, 24)
        got = graph.resize(x, 4, 6)
        for n in range(2):
            close(self, got[n], resample(x[n].double().numpy(), 4, 6))

    def test_upsample_x8_and_x4(self):
        # x8: flow/mask (up), x4: refine residual (rup); the borders hit the clamped taps
        tmp = torch.randn(1, 5, 3, 4) * 2
        for f in (8, 4):
            close(self, graph.resize(tmp, 3 * f, 4 * f)[0],
                  resample(tmp[0].double().numpy(), 3 * f, 4 * f))

    def test_convex_upsample(self):
        # each output is a softmax-weighted sum of the 3x3 neighbours of its source pixel,
        # the frame's edge replicated (RAFT's upsampling, channel (ky*3+kx)*f*f + ay*f + ax)
        f, h, w = 4, 3, 5
        x = torch.randn(2, 5, h, w)
        logits = torch.randn(2, 9 * f * f, h, w) * 2
        got = graph.convex_upsample(x, logits, f)
        xd, ld = x.double().numpy(), logits.double().numpy()
        want = np.zeros((2, 5, h * f, w * f))
        for n in range(2):
            for y in range(h):
                for xx in range(w):
                    for ay in range(f):
                        for ax in range(f):
                            lg = np.array([ld[n, k * f * f + ay * f + ax, y, xx] for k in range(9)])
                            wk = np.exp(lg - lg.max())
                            wk /= wk.sum()
                            acc = 0.0
                            for k in range(9):
                                sy = min(max(y + k // 3 - 1, 0), h - 1)
                                sx = min(max(xx + k % 3 - 1, 0), w - 1)
                                acc = acc + wk[k] * xd[n, :, sy, sx]
                            want[n, :, f * y + ay, f * xx + ax] = acc
        close(self, got, want)

    def test_convex_upsample_starts_as_bilinear(self):
        # bilinear_logits is what a warm start gives a new upmask: bilinear to within the floor
        x = torch.randn(1, 5, 4, 6) * 3
        for f in (2, 4, 8):
            logits = graph.bilinear_logits(f, floor=1e-9)[None, :, None, None].expand(1, -1, 4, 6)
            got = graph.convex_upsample(x, logits, f)
            self.assertLess((got - graph.resize(x, 4 * f, 6 * f)).abs().max().item(), 1e-5)

    def test_warp(self):
        img = torch.rand(1, 3, 9, 13)
        flow = torch.randn(1, 2, 9, 13) * 6  # many taps outside the frame
        flow[0, :, 0, :] = torch.tensor([[-40.0], [25.0]])  # far outside
        flow[0, :, 1, :] = torch.round(flow[0, :, 1, :])  # exactly on pixels
        want = warp3(img[0].double().numpy(), flow[0].double().numpy())
        close(self, graph.warp(img, flow)[0], want)

    def test_refine_prep(self):
        w0, w1, m = torch.rand(1, 3, 16, 24), torch.rand(1, 3, 16, 24), torch.rand(1, 1, 16, 24)
        flow = torch.randn(1, 4, 16, 24) * 5
        want = refine_prep(*(v[0].double().numpy() for v in (w0, w1, m, flow)))
        close(self, graph.refine_input(w0, w1, m, flow)[0], want)

    def test_refine_head(self):
        head = graph.RefineHead(4)
        w0, w1, m = torch.rand(1, 3, 16, 32), torch.rand(1, 3, 16, 32), torch.rand(1, 1, 16, 32)
        flow = torch.randn(1, 4, 16, 32) * 5
        sd = {k: v.double().numpy() for k, v in head.state_dict().items()}
        r = refine_prep(*(v[0].double().numpy() for v in (w0, w1, m, flow)))
        for i in range(3):
            r = prelu(conv3x3(r, sd[f"c{i}.weight"], sd[f"c{i}.bias"], 1), sd[f"a{i}.weight"])
        r = conv3x3(r, sd["c3.weight"], sd["c3.bias"], 1, edge=True)
        want = resample(2.0 * np.vectorize(sigmoid)(r) - 1.0, 16, 32)
        close(self, head(w0, w1, m, flow)[0], want)

    def test_static_guard(self):
        a = torch.rand(1, 3, 10, 15)
        # bands of 3 columns with |a - b| = 0 (w = 1), 0.05, 0.06 (0 < w < 1), 0.0895
        # (0 < w <= 0.001: no blend) and 0.2 (w = 0); noise on the top rows
        b = a + torch.tensor([0.0, 0.05, 0.06, 0.0895, 0.2]).repeat_interleave(3)
        b[..., :4, :] += torch.randn(1, 3, 4, 15) * 0.05
        out = torch.rand(1, 3, 10, 15)
        got = graph.static_region_guard(out, a, b)
        want = guard(*(v[0].double().numpy() for v in (out, a, b)))
        close(self, got[0], want)
        changed = (got != out).any(1)
        self.assertTrue(changed.any() and not changed.all())

    def test_film(self):
        net = FramecastNet("tfact", 4, 8, film_hidden=5)
        sd = {k: v.double().numpy() for k, v in net.state_dict().items()}
        for t in (0.0, 0.3, 1.0):
            close(self, net.film(torch.tensor([[t]]))[0], film_params(sd, t))
        # applied between convblock 5 and 6: x * (1 + scale) + shift
        seen = {}
        net.block0.convblock[5].register_forward_hook(lambda m, i, o: seen.update(out5=o))
        net.block0.convblock[6].register_forward_pre_hook(lambda m, i: seen.update(in6=i[0]))
        net(torch.rand(1, 3, 16, 16), torch.rand(1, 3, 16, 16), 0.3)
        p = torch.from_numpy(film_params(sd, 0.3)).float()
        want = seen["out5"] * (1 + p[:8, None, None]) + p[8:, None, None]
        close(self, seen["in6"][0], want[0])

    def test_pad16(self):
        x = torch.rand(1, 3, 21, 37)
        got = graph.pad16(x)
        iy, ix = np.minimum(np.arange(32), 20), np.minimum(np.arange(48), 36)
        close(self, got[0], x[0].double().numpy()[:, iy][:, :, ix])
        self.assertEqual(graph.pad16(torch.rand(1, 3, 32, 16)).shape, (1, 3, 32, 16))

    def test_conv_stride2_prelu(self):
        cp = graph.conv_prelu(3, 4, 2)
        x = torch.randn(1, 3, 8, 6)
        sd = {k: v.double().numpy() for k, v in cp.state_dict().items()}
        want = prelu(conv3x3(x[0].double().numpy(), sd["0.weight"], sd["0.bias"], 2),
                     sd["1.weight"])
        close(self, cp(x)[0], want)

    def test_deconv(self):
        layer = torch.nn.ConvTranspose2d(3, 5, 4, 2, 1)
        x = torch.randn(1, 3, 3, 4)
        want = deconv(x[0].double().numpy(), layer.weight.double().detach().numpy(),
                      layer.bias.double().detach().numpy())
        close(self, layer(x)[0], want)


class Network(unittest.TestCase):
    def frames(self, w, h, seed):
        return to_tensor(*make_frames(w, h, seed, static=True)).split(1)

    def test_forward_vs_loops(self):
        # 20x13 pads to 32x16: padding, crop and every border path; real flows of pixels
        img0, img1 = self.frames(20, 13, 7)
        for i, variant in enumerate(("classic", "tfact", "tfact2")):
            net = random_net(variant, 6, 8, 5, 4, i, img0, img1, [0.3])
            for t, g in ((0.3, False), (0.7, True)):
                with self.subTest(variant=variant, t=t, guard=g), torch.no_grad():
                    want = naive_forward(net, img0[0].double().numpy(),
                                         img1[0].double().numpy(), t, g)
                    close(self, net(img0, img1, t, static_guard=g)[0], want)

    def test_batch_per_sample_t_and_train_api(self):
        img0, img1 = self.frames(24, 20, 3)
        a, b = torch.cat((img0, img1)), torch.cat((img1, img0))
        for i, variant in enumerate(("classic", "tfact", "tfact2")):
            net = random_net(variant, 6, 8, 5, 4, i, img0, img1, [0.5])
            t = torch.tensor([0.2, 0.9])
            r = net.forward_train(a, b, t)
            self.assertEqual(r["flow"].shape, (2, 4, 20, 24))
            self.assertEqual(r["mask"].shape, (2, 1, 20, 24))
            for n in range(2):
                close(self, r["pred"][n], net(a[n:n + 1], b[n:n + 1], t[n].item())[0])
            net.zero_grad()
            (r["pred"].mean() + r["flow"].abs().mean()).backward()
            for name, p in net.named_parameters():
                self.assertTrue(p.grad is not None and torch.isfinite(p.grad).all(), name)

    def test_large_motion_keeps_the_better_agreeing_scale(self):
        # 64x32 needs no padding at 16 or 32, so each sample's output must equal the run of
        # the scale it chose; a batch of a pair and its reverse, and a long camera pan
        img0, img1 = self.frames(64, 32, 5)
        pan = torch.roll(img0, 12, dims=3)
        a, b = torch.cat((img0, img1, img0)), torch.cat((img1, img0, pan))
        t = torch.tensor([0.5, 0.3, 0.5])
        chosen = set()
        for i, variant in enumerate(("classic", "tfact2")):
            net = random_net(variant, 6, 8, 5, 4, 20 + i, img0, img1, [0.5], blocks=[(4, 6, 2)])
            with torch.no_grad():
                r = net.forward_train(a, b, t, large_motion=True)
                runs = {div: net.forward_train(a, b, t, block0_div=div) for div in (4, 8)}
                x0, x1 = a.flip(1), b.flip(1)
                d = [graph.warp_disagreement(x0, x1, runs[div]["block0_flow"], 32, 64)
                     for div in (4, 8)]
            close(self, r["disagreement"], torch.stack(d, 1))
            self.assertTrue(torch.equal(r["half"], d[1] < d[0]))
            chosen.update(r["half"].tolist())
            for n in range(3):
                with self.subTest(variant=variant, sample=n):
                    div = 8 if r["half"][n] else 4
                    close(self, r["pred"][n], runs[div]["pred"][n])
        self.assertEqual(chosen, {False, True})  # both scales in play

    def test_block0_at_scale_8(self):
        # 72x40 pads to 80x48 and, for block0 at 1/8, to 96x64: the coarse run is cropped back
        img0, img1 = self.frames(72, 40, 6)
        for i, variant in enumerate(("classic", "tfact2")):
            net4 = random_net(variant, 6, 8, 5, 4, 30 + i, img0, img1, [0.5], blocks=[(4, 6, 4)])
            net8 = FramecastNet(variant, 6, 8, 5, 4, blocks=[(4, 6, 4)], block0_scale=8)
            net8.load_state_dict(net4.state_dict())
            with self.subTest(variant=variant), torch.no_grad():
                want = net4.forward_train(img0, img1, torch.tensor([0.4]), block0_div=8)
                got = net8.forward_train(img0, img1, torch.tensor([0.4]), large_motion=True)
                self.assertNotIn("half", got)  # no scale choice: block0 always runs at 1/8
                close(self, got["pred"], want["pred"])
                coarse = net8._block0(graph.pad16(img0.flip(1), 32),
                                      graph.pad16(img1.flip(1), 32), torch.tensor([0.4]), 8)
                close(self, got["block0_flow"], coarse[0][..., :40, :72])
                at4 = net4.forward_train(img0, img1, torch.tensor([0.4]))["pred"]
                self.assertGreater((at4 - got["pred"]).abs().max().item(), 1e-3)
        self.assertEqual(net8.config()["block_scales"], [8, 4])
        with self.assertRaises(ValueError):
            FramecastNet("classic", 6, 8, block0_scale=2)

    def test_tiny_frames(self):
        net = FramecastNet("tfact2", 4, 8, 5, 4)
        self.assertEqual(net(torch.rand(1, 3, 1, 1), torch.rand(1, 3, 1, 1)).shape, (1, 3, 1, 1))


@unittest.skipUnless(torch.cuda.is_available(), "needs CUDA (the training machine)")
class Cuda(unittest.TestCase):
    def test_cuda_fp32_and_bf16_autocast(self):
        torch.backends.cudnn.allow_tf32 = False  # TF32 convs would be ~1e-3 off
        img0, img1 = to_tensor(*make_frames(64, 48, 5, static=True)).split(1)
        a, b = torch.cat((img0, img1)), torch.cat((img1, img0))
        t = torch.tensor([0.25, 0.75])
        for i, variant in enumerate(("classic", "tfact", "tfact2")):
            net = random_net(variant, 8, 16, 16, 8, i, img0, img1, [0.5])
            with torch.no_grad():
                want, want_g = net(a, b, t), net(a, b, t, static_guard=True)
            net.cuda()
            ac, bc, tc = a.cuda(), b.cuda(), t.cuda()
            with torch.no_grad():
                close(self, net(ac, bc, tc, static_guard=True).cpu(), want_g, tol=1e-4)
            with torch.autocast("cuda", dtype=torch.bfloat16):
                r = net.forward_train(ac, bc, tc)
            self.assertEqual(r["flow"].dtype, torch.float32)
            err = (r["pred"].float().cpu() - want).abs().mean().item()
            print(f"{variant}: bf16 autocast vs fp32 mean abs error {err:.4f}")
            self.assertLess(err, 0.02)
            (r["pred"].float().mean() + r["flow"].abs().mean()).backward()
            for name, p in net.named_parameters():
                self.assertTrue(p.grad is not None and torch.isfinite(p.grad).all(), name)


class ModelFiles(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.TemporaryDirectory()
        self.addCleanup(self.dir.cleanup)

    def path(self, name):
        return os.path.join(self.dir.name, name)

    def test_roundtrip_all_formats(self):
        for variant in ("classic", "tfact", "tfact2"):
            torch.manual_seed(1)
            net = FramecastNet(variant, 6, 12, 5, 8)
            save_model(net, self.path(variant), {"name": "x"})
            cases = [(self.path(variant + ".json"), torch.float32)]
            for dt in ("F32", "F16", "BF16"):
                save_safetensors(net, self.path(f"{variant}_{dt}.safetensors"), {"name": "x"}, dt)
                cases.append((self.path(f"{variant}_{dt}.safetensors"), weights.ST_DTYPES[dt]))
            for path, dtype in cases:
                with self.subTest(path=path):
                    back = load_model(path)
                    self.assertEqual(back.config(), net.config())
                    for k, v in net.state_dict().items():
                        self.assertTrue(torch.equal(back.state_dict()[k], v.to(dtype).float()), k)
                    meta = read_tensors(path)[1]
                    self.assertEqual(meta["name"], "x")
                    self.assertEqual(meta["variant"], variant)

    def test_roundtrip_keeps_convex_upsampling(self):
        torch.manual_seed(2)
        net = FramecastNet("tfact2", 4, 8, 5, 4, blocks=[(4, 6, 2)], convex_up=True)
        self.assertEqual(net.block1.upmask.out_channels, 9 * 4 * 4)  # f = 2 * scale
        save_safetensors(net, self.path("convex.safetensors"), dtype="F32")
        back = load_model(self.path("convex.safetensors"))
        self.assertEqual(back.config(), net.config())
        x0, x1 = torch.rand(1, 3, 32, 48), torch.rand(1, 3, 32, 48)
        with torch.no_grad():
            self.assertTrue(torch.equal(back(x0, x1, 0.3), net(x0, x1, 0.3)))

    def test_roundtrip_keeps_block0s_scale(self):
        net = FramecastNet("classic", 4, 8, blocks=[(4, 6, 4), (4, 6, 1)], block0_scale=8)
        save_safetensors(net, self.path("c8.safetensors"))
        back = load_model(self.path("c8.safetensors"))
        self.assertEqual(back.scales, [8, 4, 1])
        self.assertEqual(back.config(), net.config())

    def test_json_layout(self):
        net = FramecastNet("classic", 4, 8)
        save_model(net, self.path("m"), {})
        with open(self.path("m.json")) as f:
            header = json.load(f)
        data = np.fromfile(self.path("m.bin"), dtype="<f4")
        e = header["block0.lastconv.weight"]
        self.assertEqual(e["shape"], [8, 5, 4, 4])
        np.testing.assert_array_equal(data[e["offset"]:e["offset"] + 640],
                                      net.block0.lastconv.weight.detach().numpy().ravel())
        self.assertEqual(header["__metadata__"]["c2"], 8)

    def test_safetensors_layout(self):
        # checks the hand-written writer's bytes without its reader
        tensors = {"a": torch.arange(6, dtype=torch.float32).reshape(2, 3).to(torch.bfloat16),
                   "b": torch.tensor([1.5, -2.0])}
        weights.write_safetensors(tensors, self.path("t.safetensors"), {"k": "v"})
        with open(self.path("t.safetensors"), "rb") as f:
            raw = f.read()
        (n,) = struct.unpack("<Q", raw[:8])
        self.assertEqual(n % 8, 0)
        header = json.loads(raw[8:8 + n])
        self.assertEqual(header["__metadata__"], {"k": "v"})
        self.assertEqual(header["a"], {"dtype": "BF16", "shape": [2, 3], "data_offsets": [0, 12]})
        self.assertEqual(header["b"], {"dtype": "F32", "shape": [2], "data_offsets": [12, 20]})
        body = raw[8 + n:]
        self.assertEqual(len(body), 20)
        # bf16 is the top half of the f32 bit pattern; 2.0 = 0x4000
        self.assertEqual(struct.unpack("<6H", body[:12])[2], 0x4000)
        self.assertEqual(struct.unpack("<2f", body[12:]), (1.5, -2.0))
        if weights.safetensors is not None:  # the library reads what we write
            from safetensors.torch import load_file
            self.assertTrue(torch.equal(load_file(self.path("t.safetensors"))["a"], tensors["a"]))


if __name__ == "__main__":
    unittest.main()
