"""Synthetic interpolation triplets with exact ground truth, generated on the GPU (or CPU).

    gen = Synth(".pool", device="cuda", size=256)
    b = gen.sample(48)   # dict: img0, imgt, img1 [B,3,S,S] in [0,1]; t [B]; flow [B,4,S,S]

A sample is a layered scene rendered three times, at tau = 0, t and 1, from the SAME scene
description, so the frame at t is exact for any t in (0, 1):

  * layers: a background and 1-4 foreground layers textured with crops of the pool photos
    (random crop, rescale, flips, 90-degree turns, per-layer colour jitter); foreground layers
    carry irregular alpha masks (noisy blobs or noisy superellipses, edge width 0.3-1.5 px),
    so they occlude and disocclude each other and the background;
  * motion: every layer maps screen -> layer coordinates through a 3x3 projective matrix
    M(tau) = K(tau) T(-c - d(tau)) whose parameters (translation d, rotation, zoom, and for
    the camera/background also perspective) are linear in tau;
  * text: a moving text layer (ticker or free motion) and up to two static overlays (outlined
    text, boxed subtitles, logos / watermarks) from bitmaps rendered with DejaVu/Liberation
    fonts by make_pool.py; static overlays do not move (the static-guard case);
  * photometric: brightness change linear in tau between the frames (the frame at t gets
    exactly the interpolated gain), shared Gaussian blur, independent noise, independent
    JPEG-like 8x8 DCT quantisation, 8-bit rounding;
  * motion statistics: the background and each layer draw a displacement |d(1) - d(0)| from
    a mixture: small (log-uniform 0.05-2 px, 30%), or max_motion * u^2 (70%); 12% of scenes
    have a static camera, 3% are entirely static; random time reversal;
  * non-rigid motion (knob `nonrigid`): a layer's coordinates also move by tau * A * w(u),
    a smooth random field w over the layer's own coordinates u, so objects bend and stretch
    while they move (limbs, cloth, water) instead of moving as rigid planes;
  * jointed parts (knob `parts`): a limb-like layer hinged to a foreground layer, swinging
    about its joint while the body moves (arms, legs, tails, doors): articulated motion, where
    neighbouring pixels move in different directions;
  * motion blur (knob `motion_blur`): a frame is the mean of renders over an exposure
    interval around its tau, as a camera's shutter integrates, for the frame at t as well;
  * repeated structure (knob `periodic`): a share of the textures are tilings of one small
    cell cut from a photo (facades with rows of windows, tiles, fences, bricks), where a
    match one period away looks as good as the true one: the flow must come from context.

Ground-truth backward flows at t (dx0, dy0, dx1, dy1: the pixel p of the frame at t shows the
content found at p + (dx0, dy0) in frame 0 and p + (dx1, dy1) in frame 1) come from the same
matrices (M(0)^-1 M(t) p - p), composited with the layers' alpha like the colours. With
non-rigid motion the frame-0 flow stays exact (the deformation is zero at tau = 0) and the
frame-1 flow undoes the deformation to first order. With motion blur the flows are those of
the exposure centres.
"""
import math
import os

import numpy as np
import torch
import torch.nn.functional as F
from PIL import Image

N_FG = 4      # foreground layer slots
N_PART = 2    # jointed part slots, one on each of the first two foreground layers
N_TEXT = 3    # moving text, static overlay, static overlay

# JPEG's standard quantisation tables (ITU T.81, K.1 and K.2)
_QY = [16, 11, 10, 16, 24, 40, 51, 61, 12, 12, 14, 19, 26, 58, 60, 55, 14, 13, 16, 24, 40, 57,
       69, 56, 14, 17, 22, 29, 51, 87, 80, 62, 18, 22, 37, 56, 68, 109, 103, 77, 24, 35, 55, 64,
       81, 104, 113, 92, 49, 64, 78, 87, 103, 121, 120, 101, 72, 92, 95, 98, 112, 100, 103, 99]
_QC = [17, 18, 24, 47, 99, 99, 99, 99, 18, 21, 26, 66, 99, 99, 99, 99, 24, 26, 56, 99, 99, 99,
       99, 99, 47, 66, 99, 99, 99, 99, 99, 99] + [99] * 32


def _dct_matrix():
    d = np.zeros((8, 8))
    for k in range(8):
        for n in range(8):
            d[k, n] = (math.sqrt(1 / 8) if k == 0 else math.sqrt(2 / 8)) * math.cos(
                math.pi * (2 * n + 1) * k / 16)
    return torch.tensor(d, dtype=torch.float32)


class Synth:
    # The data mix's knobs, for ablations (train.py --data): DATA_KNOBS[name] = default.
    DATA_KNOBS = {"small_frac": 0.3,      # share of sub-pixel / small (0.05-2 px) motions
                  "max_motion": None,     # largest displacement in px (None: size / 4)
                  "text": 1.0,            # scales the probabilities of the three text slots
                  "degrade": 1.0,         # scales blur / noise / JPEG / brightness-change shares
                  "tex_max_scale": 1.3,   # largest texture upscale (lower: sharper textures)
                  "nonrigid": 0.0,        # share of layers that also deform (0: rigid layers)
                  "motion_blur": 0.0,     # share of scenes filmed with an open shutter
                  "parts": 0.0,           # share of the first two foreground layers with a limb
                  "mask_leaks": 1.0,      # 0: objects end at their edges (see _alpha)
                  "periodic": 0.0,        # share of textures tiled from one cell (_tiling)
                  "size": 256}            # crop size in px (train.py: --size unless given)

    @classmethod
    def parse_knobs(cls, items):
        """["KNOB=VALUE", ...] -> {knob: float}; ValueError names an unknown knob."""
        knobs = {}
        for item in items:
            knob, value = item.split("=")
            if knob not in cls.DATA_KNOBS:
                raise ValueError(f"unknown knob {knob!r} (known: {', '.join(cls.DATA_KNOBS)})")
            knobs[knob] = float(value)
        return knobs

    def __init__(self, pool_dir, device="cuda", size=256, bank=1024, bank_res=None,
                 photo_prob=0.65, max_motion=None, seed=0, refresh_every=8, refresh_count=None,
                 small_frac=0.3, text=1.0, degrade=1.0, tex_max_scale=1.3, nonrigid=0.0,
                 motion_blur=0.0, parts=0.0, mask_leaks=1.0, periodic=0.0):
        self.dev = torch.device(device)
        self.S = size = int(size)
        self.R = bank_res or int(size * 1.5)
        self.K = bank
        self.photo_prob = photo_prob
        self.max_motion = max_motion if max_motion is not None else size / 4
        self.small_frac, self.text, self.degrade = small_frac, text, degrade
        self.tex_max_scale = tex_max_scale
        self.nonrigid, self.motion_blur, self.parts = nonrigid, motion_blur, parts
        self.mask_leaks = mask_leaks > 0
        self.periodic = periodic
        # renders per frame when blurring: the exposure interval's samples (at most 2 px
        # apart, see _exposures, so streaks up to 12 px)
        self.n_sub = 7 if motion_blur > 0 else 1
        self.g = torch.Generator(device=self.dev)
        self.g.manual_seed(seed)
        self.cpu_rng = np.random.default_rng(seed)
        self.refresh_every = refresh_every
        self.refresh_count = refresh_count or max(1, bank // 64)
        self.calls = 0

        import json
        man = json.load(open(os.path.join(pool_dir, "manifest.json")))
        self.pool, photo = [], []
        for e in man["images"]:
            if not e.get("kept"):
                continue
            im = np.asarray(Image.open(os.path.join(pool_dir, e["file"])).convert("RGB"))
            self.pool.append(torch.from_numpy(im.copy()).permute(2, 0, 1).to(self.dev))
            photo.append(e["kind"] == "photo")
        photo = np.array(photo)
        w = np.where(photo, photo_prob / photo.sum(), (1 - photo_prob) / (~photo).sum())
        self.pool_p = w / w.sum()

        sp = np.load(os.path.join(pool_dir, "text_sprites.npz"))
        self.sprites = torch.from_numpy(sp["sprites"]).to(self.dev)  # uint8 [N,2,48,384]
        self.sprite_kind = torch.from_numpy(sp["kind"].astype(np.int64)).to(self.dev)

        self.bank = torch.empty(self.K, 3, self.R, self.R, dtype=torch.float16, device=self.dev)
        for k in range(self.K):
            self.bank[k] = self._make_texture()

        ys, xs = torch.meshgrid(torch.arange(size, dtype=torch.float32, device=self.dev),
                                torch.arange(size, dtype=torch.float32, device=self.dev),
                                indexing="ij")
        c = (size - 1) / 2
        self.pix = torch.stack((xs - c, ys - c, torch.ones_like(xs)), -1)  # [S,S,3] centred
        self.dct = _dct_matrix().to(self.dev)
        self.qy = torch.tensor(_QY, dtype=torch.float32, device=self.dev).view(8, 8)
        self.qc = torch.tensor(_QC, dtype=torch.float32, device=self.dev).view(8, 8)

    # ------------------------------------------------------------------ texture bank
    def _make_texture(self):
        rng = self.cpu_rng
        img = self.pool[rng.choice(len(self.pool), p=self.pool_p)]
        H, W = img.shape[1:]
        R = self.R
        if self.periodic > 0 and rng.random() < self.periodic:  # (no draw at 0: same data)
            return self._jitter(self._tiling(img))
        # texture px per pool px: log-uniform; below 1 = downscale (sharper, smaller detail)
        lo = max(R / min(H, W), 0.3)
        hi = max(lo, self.tex_max_scale)
        sc = math.exp(rng.uniform(math.log(lo), math.log(hi)))
        aspect = math.exp(rng.uniform(-0.15, 0.15))
        ch = min(H, round(R / sc * aspect))
        cw = min(W, round(R / sc / aspect))
        y0 = rng.integers(0, H - ch + 1)
        x0 = rng.integers(0, W - cw + 1)
        patch = img[:, y0:y0 + ch, x0:x0 + cw].float().div_(255)[None]
        patch = F.interpolate(patch, size=(R, R), mode="bilinear", align_corners=False,
                              antialias=bool(ch > R or cw > R))[0]
        if rng.random() < 0.5:
            patch = patch.flip(2)
        if rng.random() < 0.2:
            patch = patch.flip(1)
        if rng.random() < 0.2:
            patch = patch.transpose(1, 2)
        return self._jitter(patch)

    def _jitter(self, patch):
        """Colour jitter, baked into the texture (the bank turns over continuously); each use
        adds only a per-channel gain."""
        rng = self.cpu_rng
        gamma = math.exp(rng.normal(0, 0.15))
        bright = math.exp(rng.normal(0, 0.15))
        sat = math.exp(rng.normal(0, 0.2))
        x = patch.clamp_(1e-4, 1) ** gamma * bright
        luma = 0.299 * x[0:1] + 0.587 * x[1:2] + 0.114 * x[2:3]
        patch = luma + (x - luma) * sat
        return patch.clamp_(0, 1).half()

    def _tiling(self, img):
        """An R x R texture that repeats one cell: a crop of the photo img [3,H,W] (uint8)
        shrunk to 5-48 px a side, in rows that may be offset by half a cell (bricks), with
        joints of a darker or lighter colour (mortar, window frames) on half of them, and each
        cell's brightness varied a little, as real windows and tiles are not identical."""
        rng, R = self.cpu_rng, self.R
        ch, cw = (int(math.exp(rng.uniform(math.log(5), math.log(48)))) for _ in range(2))
        k = rng.uniform(1, 4)  # photo px per cell px: below 1 it would be blurred detail
        H, W = img.shape[1:]
        sh, sw = min(H, round(ch * k)), min(W, round(cw * k))
        y0, x0 = rng.integers(0, H - sh + 1), rng.integers(0, W - sw + 1)
        cell = img[:, y0:y0 + sh, x0:x0 + sw].float().div_(255)[None]
        cell = F.interpolate(cell, size=(ch, cw), mode="bilinear", align_corners=False,
                             antialias=True)[0]
        if rng.random() < 0.5:
            joint = max(1, round(min(ch, cw) * rng.uniform(0.08, 0.25)))
            shade = cell.mean((1, 2), keepdim=True) * rng.uniform(0.3, 1.6)
            cell[:, :joint] = shade
            cell[:, :, :joint] = shade
        rows, cols = R // ch + 2, R // cw + 2
        tiled = cell.repeat(1, rows, cols)
        if rng.random() < 0.3:  # bricks: every other row shifted by half a cell
            shifted = tiled.view(3, rows, ch, cols * cw).clone()
            shifted[:, 1::2] = shifted[:, 1::2].roll(cw // 2, dims=-1)
            tiled = shifted.view(3, rows * ch, cols * cw)
        gains = torch.exp(torch.from_numpy(rng.normal(0, 0.06, (rows, cols))).float()).to(self.dev)
        tiled = tiled * gains.repeat_interleave(ch, 0).repeat_interleave(cw, 1)
        oy, ox = rng.integers(0, ch), rng.integers(0, cw)
        return tiled[:, oy:oy + R, ox:ox + R].clamp_(0, 1)

    def refresh(self, n=None):
        n = n or self.refresh_count
        for k in self.cpu_rng.choice(self.K, size=n, replace=False):
            self.bank[k] = self._make_texture()

    # ------------------------------------------------------------------ randomness
    def _u(self, *shape, lo=0.0, hi=1.0):
        return torch.rand(*shape, generator=self.g, device=self.dev) * (hi - lo) + lo

    def _n(self, *shape, std=1.0):
        return torch.randn(*shape, generator=self.g, device=self.dev) * std

    def _bern(self, p, *shape):
        return self._u(*shape) < p

    def _magnitude(self, *shape):
        """Displacement magnitude between frame 0 and frame 1, in pixels."""
        small = torch.exp(self._u(*shape, lo=math.log(0.05), hi=math.log(2.0)))
        large = self.max_motion * self._u(*shape) ** 2
        return torch.where(self._bern(self.small_frac, *shape), small, large)

    # ------------------------------------------------------------------ geometry
    @staticmethod
    def _matrix(theta, zoom, g, h, tx, ty):
        """K(theta, zoom, perspective g,h) @ T(tx, ty); all [...]; returns [..., 3, 3]."""
        c, s = torch.cos(theta) * zoom, torch.sin(theta) * zoom
        one, zero = torch.ones_like(c), torch.zeros_like(c)
        K = torch.stack((torch.stack((c, -s, zero), -1), torch.stack((s, c, zero), -1),
                         torch.stack((g, h, one), -1)), -2)
        T = torch.stack((torch.stack((one, zero, tx), -1), torch.stack((zero, one, ty), -1),
                         torch.stack((zero, zero, one), -1)), -2)
        return K @ T

    def _apply(self, M):
        """Projective map of the centred pixel grid: M [..., 3, 3] -> [..., S, S, 2]."""
        v = torch.einsum("...ij,yxj->...yxi", M, self.pix)
        return v[..., :2] / v[..., 2:3].clamp_min(1e-3)

    @staticmethod
    def _project(M, pts):
        """Projective map of points: M [B,L,3,3], pts [B,L,S,S,2] -> [B,L,S,S,2]."""
        v = torch.einsum("blij,blyxj->blyxi", M, F.pad(pts, (0, 1), value=1.0))
        return v[..., :2] / v[..., 2:3].clamp_min(1e-3)

    # ------------------------------------------------------------------ the sample
    @torch.no_grad()
    def sample(self, B, t=None, degrade=True, flow=True):
        self.calls += 1
        if self.refresh_every and self.calls % self.refresh_every == 0:
            self.refresh()
        S, dev = self.S, self.dev
        L = 1 + N_FG
        if t is None:
            t = self._u(B, lo=0.05, hi=0.95)
        t = torch.as_tensor(t, dtype=torch.float32, device=dev).reshape(-1).expand(B).clone()
        taus = torch.stack((torch.zeros_like(t), t, torch.ones_like(t)), 1)  # [B,3]

        # ---- per-scene motion regime
        static_scene = self._bern(0.03, B)
        static_cam = self._bern(0.12, B) | static_scene
        scene_scale = torch.where(self._bern(0.5, B), self._u(B, lo=0.3, hi=1.0),
                                  torch.ones(B, device=dev))

        # ---- photo layers (0 = background/camera, 1..4 = foreground)
        mag = self._magnitude(B, L) * scene_scale[:, None]
        mag[:, 0] = torch.where(static_cam, torch.zeros_like(mag[:, 0]), mag[:, 0] * 0.75)
        mag = torch.where(static_scene[:, None], torch.zeros_like(mag), mag)
        ang = self._u(B, L, hi=2 * math.pi)
        D = torch.stack((mag * torch.cos(ang), mag * torch.sin(ang)), -1)  # [B,L,2]
        moving = (~static_scene)[:, None].float()
        cam = torch.zeros(B, L, device=dev)
        cam[:, 0] = (~static_cam).float()
        fg = 1.0 - cam.clone()
        fg[:, 0] = 0
        # rotation / zoom / perspective changes between frame 0 and frame 1
        dth = (self._n(B, L, std=0.02).clamp(-0.06, 0.06) * cam
               + self._n(B, L, std=0.05).clamp(-0.2, 0.2) * fg) * moving
        dzm = (self._n(B, L, std=0.025).clamp(-0.08, 0.08) * cam
               + self._n(B, L, std=0.05).clamp(-0.15, 0.15) * fg) * moving
        half = S / 2
        p0 = self._u(B, L, 2, lo=-0.05, hi=0.05) / half * cam[..., None]
        dp = self._u(B, L, 2, lo=-0.03, hi=0.03) / half * cam[..., None] * moving[..., None]
        th0 = self._u(B, L, lo=-math.pi, hi=math.pi)  # foreground objects: any orientation
        th0[:, 0] = self._n(B, std=0.05)  # the camera: nearly upright
        zm0 = self._n(B, L, std=0.1)
        # centres: background at the screen centre, foreground objects anywhere
        c = self._u(B, L, 2, lo=-0.45 * S, hi=0.45 * S)
        c[:, 0] = 0
        d0 = self._u(B, L, 2, lo=-0.5, hi=0.5) - D * self._u(B, L, 1)  # frame-0 offset
        deform = self._deformation(B, L, mag, static_scene) if self.nonrigid > 0 else None
        limbs = self._limbs(B, scene_scale, static_scene) if self.parts > 0 else None

        # render times: each frame's tau, or with motion blur n_sub taus over its exposure
        J = self.n_sub
        rtaus = taus
        if J > 1:
            fastest = mag.amax(1)
            if deform is not None:
                fastest = fastest + deform[1].amax(1)
            if limbs is not None:
                fastest = fastest + limbs["tip_speed"]
            rtaus = self._exposures(taus, fastest, static_scene)
        NT = rtaus.shape[1]  # [B, 3 * J]: frame k's exposure centre is k * J + J // 2
        c0, ct, c1 = J // 2, J + J // 2, 2 * J + J // 2
        mats = []
        for k in range(NT):
            tau = rtaus[:, k][:, None]
            d = d0 + D * tau[..., None]
            pp = p0 + dp * tau[..., None]
            mats.append(self._matrix(th0 + dth * tau, torch.exp(zm0 + dzm * tau),
                                     pp[..., 0], pp[..., 1], -c[..., 0] - d[..., 0],
                                     -c[..., 1] - d[..., 1]))
        M = torch.stack(mats, 2)  # [B,L,NT,3,3] (tau axis 2)
        V = self._apply(M)  # [B,L,NT,S,S,2] layer coordinates (screen px units)
        if deform is not None:  # zero at tau = 0, the full field A * w(u) at tau = 1
            V = V + rtaus[:, None, :, None, None, None] * self._displacement(deform, V)

        col = self._textures(V)  # [B,L,C,tau,S,S]
        gain = torch.exp(self._n(B, L, 3, 1, 1, 1, std=0.07))
        col = (col * gain).clamp_(0, 1)

        # masks for the foreground layers (background alpha = 1)
        nfg = torch.multinomial(torch.tensor([0.3, 0.3, 0.25, 0.15], device=dev), B,
                                replacement=True, generator=self.g) + 1  # 1..4
        present = (torch.arange(N_FG, device=dev)[None] < nfg[:, None]).float()  # [B,4]
        rad = torch.exp(self._u(B, N_FG, 2, lo=math.log(0.06 * S), hi=math.log(0.35 * S)))
        alpha = self._shape_alpha(V[:, 1:], rad, self.mask_leaks) * present[..., None, None, None, None]
        # time-varying opacity is NOT used: a layer is opaque wherever its mask says

        # ---- composite photo layers, and the flows at t
        want_flow = flow
        flows = self._layer_flows(M, V, deform, c0, ct, c1) if want_flow else None  # [B,L,4,S,S]
        img, flow = self._composite(col[:, 0], flows[:, 0] if want_flow else None, col[:, 1:], alpha,
                                    flows[:, 1:] if want_flow else None, ct)

        if limbs is not None:  # over the layers (a limb may pass in front of another object)
            img, flow = self._composite_limbs(img, flow, M, limbs, rtaus, c0, ct, c1)

        # ---- text: moving text (slot 0), static overlays (slots 1, 2)
        img, flow = self._text(img, flow, rtaus, ct, B, scene_scale, static_scene)
        if J > 1:  # the shutter integrates each frame's exposure interval
            img = img.view(B, 3, 3, J, S, S).mean(3)

        # ---- photometric: brightness change linear in tau, shared blur, noise, JPEG
        img = img.permute(0, 2, 1, 3, 4)  # [B,tau,3,S,S]
        if degrade:
            img = self._photometric(img, taus)
        img = (img.clamp(0, 1) * 255).round() / 255

        # random time reversal
        rev = self._bern(0.5, B)
        r = rev[:, None, None, None]
        img0 = torch.where(r, img[:, 2], img[:, 0])
        img1 = torch.where(r, img[:, 0], img[:, 2])
        t = torch.where(rev, 1 - t, t)
        out = {"img0": img0.contiguous(), "imgt": img[:, 1].contiguous(),
               "img1": img1.contiguous(), "t": t}
        if flow is not None:
            out["flow"] = torch.where(r, flow[:, [2, 3, 0, 1]], flow).contiguous()
        return out

    # ------------------------------------------------------------------ non-rigid motion
    def _deformation(self, B, L, mag, static_scene):
        """A smooth random displacement field per layer: (field [B*L,2,m,m] of unit scale,
        amplitude A [B,L] in px, extent [B,L] in layer px covered by the field's [-1, 1])."""
        S = self.S
        on = self._bern(self.nonrigid, B, L) & ~static_scene[:, None]
        extent = self._u(B, L, lo=0.15 * S, hi=0.6 * S)
        # a share of the layer's own motion plus a little, and at most a fifth of the field's
        # extent, so the map never folds over
        amp = self._u(B, L) * (0.35 * mag + 1.5)
        amp = torch.minimum(amp, 0.2 * extent) * on
        amp[:, 0] *= 0.5  # the background / camera layer bends less (water, foliage)
        field = self._smooth_noise(B * L, 2, octaves=((3, 1.0), (6, 0.4)))
        return field, amp, extent

    def _displacement(self, deform, pts):
        """A * w(pts) for layer coordinates pts [B,L,...,2] -> [B,L,...,2] px."""
        field, amp, extent = deform
        B, L = pts.shape[:2]
        g = (pts / extent.view(B, L, *([1] * (pts.dim() - 2)))).reshape(B * L, -1, pts.shape[-2], 2)
        w = F.grid_sample(field, g, mode="bilinear", padding_mode="reflection",
                          align_corners=True)  # [B*L,2,X,Y]
        w = w.view(B, L, 2, *pts.shape[2:-1]).movedim(2, -1)
        return w * amp.view(B, L, *([1] * (pts.dim() - 2)))

    def _layer_flows(self, M, V, deform, c0, ct, c1):
        """Backward flows (frame 0, frame 1) of every layer at the frame at t: where the
        layer point that pixel p of the frame at t shows sits in frame 0 and in frame 1,
        minus p: [B,L,4,S,S], the frame-0 flow (dx, dy), then the frame-1 flow."""
        vt = V[:, :, ct]  # layer coordinates seen by the pixels of the frame at t
        v1 = vt
        if deform is not None:  # undo frame 1's deformation (A * w) to first order
            v1 = vt - self._displacement(deform, vt)
        pix = self.pix[..., :2]
        flows = torch.cat((self._project(_inv3(M[:, :, c0]), vt) - pix,
                           self._project(_inv3(M[:, :, c1]), v1) - pix), -1)
        return flows.permute(0, 1, 4, 2, 3)

    # ------------------------------------------------------------------ layers
    def _textures(self, V):
        """Colours [B,n,3,NT,S,S] of layers at layer coordinates V [B,n,NT,S,S,2]: a texture
        of the bank each, sigma texture px per layer px."""
        B, n, NT, S = V.shape[:4]
        sigma = torch.exp(self._u(B, n, lo=math.log(0.8), hi=math.log(1.25)))
        idx = torch.randint(0, self.K, (B * n,), generator=self.g, device=self.dev)
        g = (V * (sigma[..., None, None, None, None] / ((self.R - 1) / 2))).reshape(B * n, NT * S, S, 2)
        return F.grid_sample(self.bank[idx].float(), g, mode="bilinear", padding_mode="reflection",
                             align_corners=True).view(B, n, 3, NT, S, S)

    def _shape_alpha(self, V, radii, leaks):
        """Opacity [B,n,1,NT,S,S] of n shapes (a random mask field each) of radii [B,n,2] px
        centred at the origin of their coordinates V [B,n,NT,S,S,2], with random soft edges."""
        B, n, NT, S = V.shape[:4]
        field = self._mask_fields(B * n)  # [B*n,1,m,m]
        gm = (V / radii[:, :, None, None, None, :]).reshape(B * n, NT * S, S, 2)
        edge = torch.exp(self._u(B, n, lo=math.log(0.3), hi=math.log(1.5)))
        return self._alpha(field, gm, radii, edge, leaks).view(B, n, 1, NT, S, S)

    @staticmethod
    def _composite(img, flow, col, alpha, flows, ct):
        """Layers col [B,n,3,NT,S,S] with alpha [B,n,1,NT,S,S] over img [B,3,NT,S,S], in order;
        their flows [B,n,4,S,S] over flow [B,4,S,S] with the alpha of the frame at t."""
        for l in range(col.shape[1]):
            a = alpha[:, l]
            img = img + a * (col[:, l] - img)
            if flow is not None:
                flow = flow + a[:, :, ct] * (flows[:, l] - flow)
        return img, flow

    # ------------------------------------------------------------------ jointed parts
    def _limbs(self, B, scene_scale, static_scene):
        """Limbs hinged to foreground layers 1..N_PART, in their parents' coordinates (px): the
        joint, the rest direction psi, the swing dth between frame 0 and frame 1, the half
        length and half width. Drawn before rendering, so motion blur knows the tip speed."""
        S = self.S
        n = (B, N_PART)
        on = self._bern(self.parts, *n) & ~static_scene[:, None]
        phi = self._u(*n, hi=2 * math.pi)
        joint = torch.stack((torch.cos(phi), torch.sin(phi)), -1) * self._u(*n, 1, lo=0.02 * S, hi=0.08 * S)
        length = self._u(*n, lo=0.12 * S, hi=0.35 * S)
        width = length * self._u(*n, lo=0.15, hi=0.35)
        swing = self._u(*n, lo=0.1, hi=0.8) * torch.where(self._bern(0.5, *n), 1.0, -1.0)
        swing = swing * scene_scale[:, None] * on
        tip = (joint.norm(dim=-1) + length) * swing.abs()
        return {"on": on, "joint": joint, "psi": phi + self._n(*n, std=0.5), "swing": swing,
                "half": torch.stack((length / 2, width / 2), -1), "tip_speed": tip.amax(1)}

    def _composite_limbs(self, img, flow, M, limbs, rtaus, c0, ct, c1):
        """Render the limbs over img [B,3,NT,S,S] and their flows over flow [B,4,S,S].
        A limb's map from screen to its own coordinates (x along the limb, origin at its
        middle) is T(-half length) R(-(psi + swing tau)) T(-joint) after its parent's M(tau)."""
        B, NT, dev = img.shape[0], rtaus.shape[1], self.dev
        angle = -(limbs["psi"][..., None] + limbs["swing"][..., None] * rtaus[:, None, :])
        joint = limbs["joint"][:, :, None, :].expand(B, N_PART, NT, 2)
        one = torch.ones_like(angle)
        hinge = self._matrix(angle, one, 0 * one, 0 * one, -joint[..., 0], -joint[..., 1])
        centre = torch.eye(3, device=dev).repeat(B, N_PART, NT, 1, 1)
        centre[..., 0, 2] = -limbs["half"][..., 0, None]
        Mp = centre @ hinge @ M[:, 1:1 + N_PART]  # [B,NP,NT,3,3]
        V = self._apply(Mp)  # [B,NP,NT,S,S,2]
        col = self._textures(V)
        alpha = self._shape_alpha(V, limbs["half"], leaks=False) * limbs["on"][..., None, None, None, None]
        flows = self._layer_flows(Mp, V, None, c0, ct, c1) if flow is not None else None
        return self._composite(img, flow, col, alpha, flows, ct)

    # ------------------------------------------------------------------ motion blur
    def _exposures(self, taus, fastest, static_scene):
        """Render times [B, 3 * n_sub]: n_sub taus spread evenly over each frame's exposure
        (a share of the frame interval), centred on the frame's tau. The exposure is capped
        so that neighbouring renders of the fastest point ([B] px per frame interval) are at
        most 2 px apart: a smooth streak, not copies."""
        B, J = taus.shape[0], self.n_sub
        cap = 2.0 * (J - 1) / fastest.clamp_min(1e-3)
        open_ = self._bern(self.motion_blur, B) & ~static_scene
        expo = torch.where(open_, torch.minimum(self._u(B, lo=0.3, hi=1.0), cap),
                           torch.zeros(B, device=self.dev))
        off = (torch.arange(J, device=self.dev) - J // 2) / (J - 1)  # exactly 0 at the centre
        return (taus[:, :, None] + expo[:, None, None] * off).reshape(B, 3 * J)

    def _mask_fields(self, n, m=64):
        """Blob fields on [-1,1]^2: positive inside, negative at the border."""
        dev = self.dev
        lin = torch.linspace(-1, 1, m, device=dev)
        yy, xx = torch.meshgrid(lin, lin, indexing="ij")
        # superellipse exponent: 2 = ellipse, large = rectangle-like (man-made objects)
        pexp = torch.where(self._bern(0.3, n), self._u(n, lo=4, hi=10), self._u(n, lo=1.5, hi=2.5))
        r = (xx.abs()[None] ** pexp[:, None, None] + yy.abs()[None] ** pexp[:, None, None])
        r = r ** (2 / pexp[:, None, None])
        amp = torch.where(pexp > 3, self._u(n, hi=0.15), self._u(n, lo=0.1, hi=0.45))
        noise = self._smooth_noise(n, 1, m=m) / 1.3
        return (1.0 - 1.5 * r[:, None]) + amp[:, None, None, None] * noise

    @staticmethod
    def _alpha(field, coords, radii, edge, leaks):
        """Opacity [n,1,X,Y] of shapes whose mask field [n,1,m,m] (1 - 1.5 r^2 plus noise,
        see _mask_fields) is sampled at coords [n,X,Y,2] in its [-1, 1] square; radii [...,2]
        px, edge [...] px: the soft edge's width. With leaks the shape leaks beyond its square
        as the shipped models' data did: the border value repeats, so ~12% of the shapes grow a
        thin ray to the frame's edge, and small shapes with soft edges (~11% at 256 px) a
        faint halo. Without, the shape ends at its square and its edge is at most ~1/8 of its
        mean radius wide, so the opacity there is below 2%."""
        f = F.grid_sample(field, coords, mode="bilinear", padding_mode="border", align_corners=True)
        # the field falls by ~2.4 per radius near the outline
        k = (radii.mean(-1) / (2.4 * edge)).reshape(-1, 1, 1, 1)
        if leaks:
            return torch.sigmoid(f * k)
        inside = (coords.abs() <= 1).all(-1)[:, None]
        return torch.sigmoid(f * k.clamp_min(8.0)) * inside

    def _smooth_noise(self, n, channels, m=64, octaves=((4, 1.0), (8, 0.5), (16, 0.25))):
        """Sum of bicubically upsampled Gaussian noise grids [n, channels, m, m]; octaves are
        (cells across, weight)."""
        noise = torch.zeros(n, channels, m, m, device=self.dev)
        for cells, w in octaves:
            z = self._n(n, channels, cells, cells)
            noise += w * F.interpolate(z, size=(m, m), mode="bicubic", align_corners=True)
        return noise

    def _text(self, img, flow, rtaus, ct, B, scene_scale, static_scene):
        """Composite the text slots over img [B,3,NT,S,S] rendered at rtaus [B,NT]; the flow
        is that of the frame at t (render ct)."""
        S, dev = self.S, self.dev
        T = N_TEXT
        n_sp = self.sprites.shape[0]
        sid = torch.randint(0, n_sp, (B, T), generator=self.g, device=dev)
        kind = self.sprite_kind[sid]
        on = torch.stack([self._bern(min(1.0, p * self.text), B) for p in (0.25, 0.35, 0.15)], 1)
        # screen px per sprite px (sprites are 48 px high; relative to a 256 px crop)
        scale = torch.exp(self._u(B, T, lo=math.log(0.35), hi=math.log(1.2))) * (S / 256)
        # position: subtitles low in the frame, logos in a corner, the rest anywhere
        cx = self._u(B, T, lo=-0.45 * S, hi=0.45 * S)
        cy = self._u(B, T, lo=-0.45 * S, hi=0.45 * S)
        sub = (kind == 1) | ((kind == 0) & self._bern(0.5, B, T))
        cy = torch.where(sub, self._u(B, T, lo=0.25 * S, hi=0.45 * S), cy)
        logo = kind == 2
        cx = torch.where(logo, torch.sign(cx) * self._u(B, T, lo=0.25 * S, hi=0.42 * S), cx)
        cy = torch.where(logo, torch.sign(cy) * self._u(B, T, lo=0.3 * S, hi=0.42 * S), cy)
        # motion of the moving-text slot: ticker (horizontal) or free
        mag = self._magnitude(B) * scene_scale
        ang = torch.where(self._bern(0.5, B), self._bern(0.5, B).float() * math.pi,
                          self._u(B, hi=2 * math.pi))
        D = torch.zeros(B, T, 2, device=dev)
        D[:, 0, 0] = mag * torch.cos(ang)
        D[:, 0, 1] = mag * torch.sin(ang)
        D = torch.where(static_scene[:, None, None], torch.zeros_like(D), D)
        d0 = -D * self._u(B, T, 1)
        # colours: fill bright (white / yellow / random), outline / box / logo body dark
        fill = torch.where(self._bern(0.5, B, T, 1), torch.ones(B, T, 3, device=dev),
                           torch.where(self._bern(0.4, B, T, 1),
                                       torch.tensor([1.0, 0.9, 0.1], device=dev).expand(B, T, 3),
                                       self._u(B, T, 3)))
        outl = torch.where(self._bern(0.6, B, T, 1), self._u(B, T, 1, hi=0.15).expand(B, T, 3),
                           self._u(B, T, 3))
        op_fill = torch.where(self._bern(0.2, B, T), self._u(B, T, lo=0.4, hi=0.9),
                              torch.ones(B, T, device=dev))
        op_outl = torch.where(kind == 1, self._u(B, T, lo=0.4, hi=1.0), op_fill)

        spr = self.sprites[sid.view(-1)].float() / 255  # [B*T,2,48,384]
        NT = rtaus.shape[1]
        pos = d0[:, :, None] + D[:, :, None] * rtaus[:, None, :, None]  # [B,T,NT,2]
        ctr = torch.stack((cx, cy), -1)[:, :, None] + pos  # [B,T,NT,2]
        v = self.pix[..., :2] - ctr[:, :, :, None, None]  # [B,T,NT,S,S,2]
        hw = torch.tensor([(384 - 1) / 2, (48 - 1) / 2], device=dev)
        g = (v / (scale[:, :, None, None, None, None] * hw)).reshape(B * T, NT * S, S, 2)
        a = F.grid_sample(spr, g, mode="bilinear", padding_mode="zeros",
                          align_corners=True).view(B, T, 2, NT, S, S)
        on = on.float()
        t = rtaus[:, ct]
        tflow = torch.cat((-D * t[:, None, None], D * (1 - t[:, None, None])), -1)  # [B,T,4]
        for k in range(T):
            ao = a[:, k, 1:2] * (op_outl[:, k] * on[:, k])[:, None, None, None, None]
            ag = a[:, k, 0:1] * (op_fill[:, k] * on[:, k])[:, None, None, None, None]
            img = img + ao * (outl[:, k, :, None, None, None] - img)
            img = img + ag * (fill[:, k, :, None, None, None] - img)
            at = torch.maximum(ao, ag)[:, :, ct]  # [B,1,S,S]
            if flow is not None:
                flow = flow + at * (tflow[:, k, :, None, None] - flow)
        return img, flow

    def _photometric(self, img, taus):
        """img [B,tau,3,S,S] -> degraded; gains exact at every tau."""
        B, S, dev = img.shape[0], self.S, self.dev
        # brightness change between frames: gain exp(beta * tau), per channel a little
        d = self.degrade
        beta = torch.where(self._bern(min(1.0, 0.3 * d), B, 1), self._n(B, 1, std=0.1),
                           torch.zeros(B, 1, device=dev))
        cbeta = torch.where(self._bern(min(1.0, 0.1 * d), B, 3), self._n(B, 3, std=0.04),
                            torch.zeros(B, 3, device=dev))
        gain = torch.exp((beta + cbeta)[:, None, :] * taus[:, :, None])  # [B,tau,3]
        img = img * gain[..., None, None]
        # shared Gaussian blur (defocus) for all three frames of the first quarter of the
        # batch; noise on half; JPEG-like compression on 30% (samples are iid, so a fixed
        # slice is a random subset, and no host-device sync is needed)
        nb, nn_, nj = (min(B, round(f * d * B)) for f in (0.25, 0.5, 0.3))
        img = img.clone()
        if nb:
            sig = self._u(nb, lo=0.3, hi=1.2)
            r = 3
            x = torch.arange(-r, r + 1, dtype=torch.float32, device=dev)
            k = torch.exp(-x[None] ** 2 / (2 * sig[:, None] ** 2))
            k = k / k.sum(1, keepdim=True)  # [nb,7]
            kk = k.repeat_interleave(9, 0)  # [nb*9,7]
            y = F.pad(img[:nb].reshape(1, nb * 9, S, S), (r, r, r, r), mode="reflect")
            y = F.conv2d(y, kk[:, None, None, :], groups=nb * 9)
            y = F.conv2d(y, kk[:, None, :, None], groups=nb * 9)
            img[:nb] = y.view(nb, 3, 3, S, S)
        if nn_:  # independent sensor noise, from the end of the batch
            ns = self._u(nn_, hi=0.02)
            img[B - nn_:] += self._n(nn_, 3, 3, S, S) * ns[:, None, None, None, None]
        if nj and S % 8 == 0:  # independent JPEG-like compression of every frame
            o = min(round(0.2 * B), B - nj)  # overlaps both the blurred and the noisy part
            q = self._u(nj, lo=30, hi=92)
            img[o:o + nj] = self._jpeg(img[o:o + nj].clamp(0, 1), q)
        return img

    def _jpeg(self, img, quality):
        """8x8 DCT quantisation on YCbCr (no chroma subsampling). img [B,tau,3,S,S]."""
        B, S = img.shape[0], self.S
        q = quality
        scale = torch.where(q < 50, 50 / q, 2 - q / 50)  # libjpeg's quality scaling
        qy = (self.qy * scale[:, None, None]).clamp(1, 255) / 255
        qc = (self.qc * scale[:, None, None]).clamp(1, 255) / 255
        r, g, b = img[:, :, 0], img[:, :, 1], img[:, :, 2]
        y = 0.299 * r + 0.587 * g + 0.114 * b
        cb = -0.168736 * r - 0.331264 * g + 0.5 * b
        cr = 0.5 * r - 0.418688 * g - 0.081312 * b
        ycc = torch.stack((y - 0.5, cb, cr), 2)  # [B,tau,3,S,S]
        n = S // 8
        blk = ycc.reshape(B, 3, 3, n, 8, n, 8).permute(0, 1, 2, 3, 5, 4, 6)  # [...,8,8]
        D = self.dct
        coef = D @ blk @ D.T
        Q = torch.stack((qy, qc, qc), 1)[:, None, :, None, None]  # [B,1,3,1,1,8,8]
        coef = torch.round(coef / Q) * Q
        blk = D.T @ coef @ D
        ycc = blk.permute(0, 1, 2, 3, 5, 4, 6).reshape(B, 3, 3, S, S)
        y, cb, cr = ycc[:, :, 0] + 0.5, ycc[:, :, 1], ycc[:, :, 2]
        r = y + 1.402 * cr
        g = y - 0.344136 * cb - 0.714136 * cr
        b = y + 1.772 * cb
        return torch.stack((r, g, b), 2)


def _inv3(m):
    """Inverse of [..., 3, 3] matrices by the adjugate (no host sync, unlike linalg.solve)."""
    a, b, c = m[..., 0, 0], m[..., 0, 1], m[..., 0, 2]
    d, e, f = m[..., 1, 0], m[..., 1, 1], m[..., 1, 2]
    g, h, i = m[..., 2, 0], m[..., 2, 1], m[..., 2, 2]
    A, B_, C = e * i - f * h, -(d * i - f * g), d * h - e * g
    det = a * A + b * B_ + c * C
    adj = torch.stack((torch.stack((A, -(b * i - c * h), b * f - c * e), -1),
                       torch.stack((B_, a * i - c * g, -(a * f - c * d)), -1),
                       torch.stack((C, -(a * h - b * g), a * e - b * d), -1)), -2)
    return adj / det[..., None, None]


if __name__ == "__main__":  # self-check and a preview sheet
    import argparse
    import sys
    import time
    sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
    from framecast_model.graph import warp as backwarp  # the runtime's warp
    ap = argparse.ArgumentParser()
    ap.add_argument("--pool", default=".pool")
    ap.add_argument("--device", default="cuda" if torch.cuda.is_available() else "cpu")
    ap.add_argument("--size", type=int, default=256)
    ap.add_argument("--batch", type=int, default=8)
    ap.add_argument("--bank", type=int, default=64)
    ap.add_argument("--iters", type=int, default=3)
    ap.add_argument("--preview", default="")
    ap.add_argument("--nonrigid", type=float, default=0.0)
    ap.add_argument("--motion-blur", type=float, default=0.0)
    ap.add_argument("--parts", type=float, default=0.0)
    ap.add_argument("--mask-leaks", type=float, default=1.0)
    a = ap.parse_args()
    t0 = time.time()
    gen = Synth(a.pool, a.device, a.size, bank=a.bank, nonrigid=a.nonrigid,
                motion_blur=a.motion_blur, parts=a.parts, mask_leaks=a.mask_leaks)
    print(f"init {time.time() - t0:.1f}s: {len(gen.pool)} photos, bank {gen.K}x{gen.R}")
    b = gen.sample(a.batch)
    if a.device.startswith("cuda"):
        torch.cuda.synchronize()
    t0 = time.time()
    for _ in range(a.iters):
        b = gen.sample(a.batch)
    if a.device.startswith("cuda"):
        torch.cuda.synchronize()
    dt = (time.time() - t0) / a.iters
    print(f"{a.batch / dt:.0f} samples/s ({dt * 1000:.1f} ms per batch of {a.batch})")
    # flow check on an undegraded batch: warping with the true flow must explain the frame
    c = gen.sample(a.batch, degrade=False)
    e0 = (backwarp(c["img0"], c["flow"][:, :2]) - c["imgt"]).abs().mean(1)
    e1 = (backwarp(c["img1"], c["flow"][:, 2:]) - c["imgt"]).abs().mean(1)
    base = (c["img0"] - c["imgt"]).abs().mean(1)
    print(f"mean |warp(img0, flow0) - imgt| = {e0.mean():.4f} (median px {e0.median():.4f}), "
          f"img1: {e1.mean():.4f}; without flow {base.mean():.4f}; "
          f"flow |max| {c['flow'].abs().amax():.1f} px")
    if a.preview:
        rows = []
        for i in range(min(a.batch, 8)):
            f = c["flow"][i, :2]
            fm = (f.norm(dim=0, keepdim=True) / 32).clamp(0, 1).expand(3, -1, -1)
            rows.append(torch.cat((b["img0"][i], b["imgt"][i], b["img1"][i], c["img0"][i],
                                   c["imgt"][i], fm, e0[i:i + 1].expand(3, -1, -1) * 4), 2))
        sheet = (torch.cat(rows, 1).clamp(0, 1) * 255).byte().permute(1, 2, 0).cpu().numpy()
        Image.fromarray(sheet).save(a.preview)
