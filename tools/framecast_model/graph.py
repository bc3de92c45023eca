"""PyTorch reference of Framecast's network: exactly the runtime's graph.

The spec is the seed runtime (shared/seed/rt.js) as pinned down by issue 2, item 3.
Every step below names the seed shader it mirrors; the C++ CPU backend must match this
file to 1 LSB (tests/golden, tools/parity_check.py), and the trainer trains this module,
so a change here changes what the runtime computes.

Conventions: inputs and output are RGB float tensors [N, 3, H, W] in [0, 1]; inside,
planes are BGR (the seed's order; the first conv's weights depend on it).
"""
import torch
import torch.nn as nn
import torch.nn.functional as F

VARIANTS = ("classic", "tfact", "tfact2")
FLOW_NORM = 20.0  # the refine head sees flow * (0.25 / FLOW_NORM) (wgslRefinePrep)


def pad16(x, multiple=16):
    """Pad right/bottom by edge replication to the next multiple of 16 (issue 2), or of
    `multiple` where block0 runs at 1/8 (32). x itself when it needs no padding (block0 at 1/4
    reads the grid as it is: no copy per call)."""
    h, w = x.shape[-2:]
    if not (w % multiple or h % multiple):
        return x
    return F.pad(x, (0, -w % multiple, 0, -h % multiple), mode="replicate")


def resize(x, h, w):
    """Bilinear resampling, align_corners=False, taps clamped to the border.

    An explicit size (always an exact power-of-two ratio here, as padded sizes are
    multiples of 16) makes the source coordinate exactly (dst + 0.5) * in / out - 0.5,
    the seed's mapping in sampleQ (x1/4), up (x8) and rup (x4); a scale_factor could be
    recomputed differently across PyTorch versions. PyTorch clamps negative source
    coordinates to 0 where the seed clamps the taps: the two give the same values.
    """
    return F.interpolate(x, size=(h, w), mode="bilinear", align_corners=False)


def bilinear_taps(f):
    """[f, 3]: the weights bilinear upsampling by f (align_corners=False) gives the left,
    centre and right source sample at each of the f output positions within a source pixel."""
    taps = torch.zeros(f, 3)
    for a in range(f):
        o = (a + 0.5) / f - 0.5  # the output position relative to the source pixel's centre
        taps[a, 0 if o < 0 else 2] = abs(o)
        taps[a, 1] = 1.0 - abs(o)
    return taps


def bilinear_logits(f, floor=1e-3):
    """[9 * f * f] logits under which convex_upsample is bilinear upsampling by f to within
    `floor`: log of the tap weights, the taps bilinear leaves out at log(floor) so that they
    can still learn."""
    t = bilinear_taps(f)
    w = t[:, None, :, None] * t[None, :, None, :]  # [ay, ax, ky, kx]
    return w.clamp_min(floor).log().permute(2, 3, 0, 1).reshape(-1)


def convex_upsample(x, logits, f):
    """RAFT's convex upsampling by f: each output value is a convex combination of the 3x3
    source neighbourhood around its source pixel (edges replicated, as bilinear clamps its
    taps), with weights softmax(logits) per output position. x [N, C, h, w]; logits
    [N, 9 * f * f, h, w], channel (ky * 3 + kx) * f * f + ay * f + ax for neighbour (ky, kx)
    and the output at (f * y + ay, f * x + ax)."""
    n, c, h, w = x.shape
    weights = torch.softmax(logits.reshape(n, 9, f, f, h, w), dim=1)
    nb = F.unfold(F.pad(x, (1, 1, 1, 1), mode="replicate"), 3).reshape(n, c, 9, 1, 1, h, w)
    out = (weights[:, None] * nb).sum(2)  # [N, C, f, f, h, w]
    return out.permute(0, 1, 4, 2, 5, 3).reshape(n, c, h * f, w * f)


def warp(img, flow):
    """Backward warp, the seed's warp3: out(x, y) = img(x + fx, y + fy), bilinear with taps
    clamped to the border. grid_sample(border, align_corners=True) is the same function,
    and it is differentiable in both arguments. flow: [N, 2, H, W] (dx, dy) in pixels."""
    _, _, h, w = img.shape
    ys, xs = torch.meshgrid(torch.arange(h, device=img.device, dtype=torch.float32),
                            torch.arange(w, device=img.device, dtype=torch.float32),
                            indexing="ij")
    # pixel -> [-1, 1] for align_corners=True; padded sizes are >= 16, never 1
    gx = (xs + flow[:, 0]) * (2.0 / (w - 1)) - 1.0
    gy = (ys + flow[:, 1]) * (2.0 / (h - 1)) - 1.0
    return F.grid_sample(img, torch.stack((gx, gy), dim=-1), mode="bilinear",
                         padding_mode="border", align_corners=True)


def refine_input(w0, w1, m, flow):
    """The refine head's 11 quarter-resolution input channels (wgslRefinePrep): warped0 BGR,
    warped1 BGR, sigmoid(mask), flow * (0.25 / FLOW_NORM). A x1/4 bilinear resample with
    align_corners=False samples 4x + 1.5, i.e. the mean of the centre 2x2 of each 4x4 block,
    which is what the seed averages."""
    h, w = w0.shape[-2:]
    return resize(torch.cat((w0, w1, m, flow * (0.25 / FLOW_NORM)), 1), h // 4, w // 4)


def smoothstep(e0, e1, x):
    """WGSL smoothstep."""
    t = ((x - e0) / (e1 - e0)).clamp(0.0, 1.0)
    return t * t * (3.0 - 2.0 * t)


def static_region_guard(out, img0, img1):
    """The seed's GUARD (wgslFlowOutTex), applied after the clamp: where the two frames are
    locally identical (subtitles, logos), blend back towards their mean.
    d = 3x3 mean (neighbours clamped to the image) of the per-pixel max over channels of
    |img0 - img1|; w = 1 - smoothstep(0.03, 0.09, d); where w > 0.001: mix(out, mean, w).
    Computed on the padded frames like the runtime; since the padding replicates the edge,
    that equals clamping at the original border."""
    d = (img0 - img1).abs().amax(dim=1, keepdim=True)
    d = F.avg_pool2d(F.pad(d, (1, 1, 1, 1), mode="replicate"), 3, stride=1)
    w = 1.0 - smoothstep(0.03, 0.09, d)
    mixed = out * (1.0 - w) + (img0 + img1) * 0.5 * w
    return torch.where(w > 0.001, mixed, out)


def warp_disagreement(x0, x1, flow, h, w):
    """Per sample, the sum over the real h x w region and the three channels of
    |x0 warped - x1 warped| under the backward flows [N, 4, H, W]: how well a flow explains
    the pair, without the truth."""
    d = (warp(x0, flow[:, 0:2]) - warp(x1, flow[:, 2:4])).abs()[..., :h, :w]
    return d.double().sum(dim=(1, 2, 3))


def conv_prelu(ci, co, stride):
    """conv3x3 (zero padding) + per-channel PReLU; state_dict keys '0.*' and '1.weight'."""
    return nn.Sequential(nn.Conv2d(ci, co, 3, stride, 1), nn.PReLU(co))


def film_mlp(hidden, c2):
    """FiLM(t) -> [scale | shift] of a trunk of width c2 (the seed's filmParams)."""
    return nn.Sequential(nn.Linear(1, hidden), nn.ReLU(), nn.Linear(hidden, 2 * c2))


def apply_film(f, film, t):
    """f * (1 + scale) + shift, per channel, one t per sample."""
    p = film(t.reshape(-1, 1))
    c2 = f.shape[1]
    return f * (1.0 + p[:, :c2, None, None]) + p[:, c2:, None, None]


class Block(nn.Module):
    """One flow block: the tensor names blockK.conv0.*, blockK.convblock.*, blockK.lastconv.*
    (and blockK.film.* for refinement blocks of t-factored models) come from this structure."""

    def __init__(self, ci, c1, c2, film_hidden=0, convex_up=0):
        super().__init__()
        self.conv0 = nn.Sequential(conv_prelu(ci, c1, 2), conv_prelu(c1, c2, 2))
        self.convblock = nn.Sequential(*[conv_prelu(c2, c2, 1) for _ in range(8)])
        self.lastconv = nn.ConvTranspose2d(c2, 5, 4, 2, 1)  # weight [c2, 5, 4, 4]
        if film_hidden:
            self.film = film_mlp(film_hidden, c2)
        if convex_up:  # the weights of a convex upsampling by convex_up (convex_upsample)
            self.upmask = nn.ConvTranspose2d(c2, 9 * convex_up * convex_up, 4, 2, 1)
        self.convex_up = convex_up

    def trunk(self, x, film=None, t=None):
        """conv0, eight convblocks with FiLM(t) before the seventh, the residual, the deconv:
        the coarse [N, 5, h/2, w/2] flow and mask of input x [N, ci, h, w] and, for a block
        with convex upsampling, its [N, 9 f^2, h/2, w/2] logits (else None)."""
        feat0 = self.conv0(x)
        f = self.convblock[:6](feat0)
        if film is not None:
            f = apply_film(f, film, t)
        f = self.convblock[6:](f) + feat0  # residual added after the eighth conv+PReLU
        return self.lastconv(f), self.upmask(f) if self.convex_up else None

    def upsampled(self, x, film, t, h, w):
        """trunk's flow and mask, float32, upsampled to h x w: bilinear, or convex where the
        block has its logits, and bilinear for the rest of the way where the convex factor
        stops short of h x w (block0's, which serves two scales)."""
        coarse, logits = self.trunk(x, film, t)
        if logits is None:
            return resize(coarse.float(), h, w)
        up = convex_upsample(coarse.float(), logits.float(), self.convex_up)
        return up if up.shape[-2:] == (h, w) else resize(up, h, w)


class RefineHead(nn.Module):
    """tfact2's quarter-resolution occlusion repair (wgslRefinePrep, wgslConv, wgslRefineOut)."""

    def __init__(self, r):
        super().__init__()
        self.c0, self.a0 = nn.Conv2d(11, r, 3, 1, 1), nn.PReLU(r)
        self.c1, self.a1 = nn.Conv2d(r, r, 3, 1, 1), nn.PReLU(r)
        self.c2, self.a2 = nn.Conv2d(r, r, 3, 1, 1), nn.PReLU(r)
        self.c3 = nn.Conv2d(r, 3, 3, 1, 0)  # edge-replicate padding, applied in forward

    def forward(self, w0, w1, m, flow):
        """Full-resolution BGR residual in (-1, 1), added to the blend before the clamp."""
        h, w = w0.shape[-2:]
        x = self.a0(self.c0(refine_input(w0, w1, m, flow)))
        x = self.a2(self.c2(self.a1(self.c1(x))))
        x = self.c3(F.pad(x, (1, 1, 1, 1), mode="replicate"))
        return resize(2.0 * torch.sigmoid(x.float()) - 1.0, h, w)


class FramecastNet(nn.Module):
    """Framecast's flow network: block0 (the seed's 1-block student) and optional refinement
    blocks (the quality tier). state_dict keys are the model-file tensor names.

    blocks: one (c1, c2, scale) per refinement block k = 1, 2, ...; scale 4, 2 or 1 is the
    factor its input is resampled down by. block0_scale: block0 runs at 4 (the seed's graph) or
    at 8, where it sees half the motion and a block at 4 refines its flow (RIFE's coarse
    start); at 8 it sees the frames padded to multiples of 32, and its flow is cropped back to
    the grid of the rest, as the large-motion pass's 1/8 run does. Block k sees both frames, both
    frames warped by the current flow, t (classic) or FiLM(t) through its own blockK.film
    (t-factored), the mask logits and the flow / scale, and adds its upsampled output to the
    flow (times 2 * scale) and the mask, like RIFE's IFBlock. convex_up: the refinement blocks
    upsample their output by RAFT's convex upsampling (weights from a second deconv of the
    trunk, blockK.upmask) instead of bilinearly. convex_block0: block0 upsamples its output
    by 2 that way (block0.upmask) and bilinearly from there, since the large-motion pass runs
    it at two scales with one set of weights."""

    def __init__(self, variant: str, c1: int, c2: int, film_hidden: int = 64,
                 refine_width: int = 32, blocks=(), block0_scale: int = 4,
                 convex_up: bool = False, convex_block0: bool = False):
        super().__init__()
        if variant not in VARIANTS:
            raise ValueError(f"unknown variant {variant!r}, expected one of {VARIANTS}")
        self.variant = variant
        tfact = variant != "classic"
        self.block0 = Block(6 if tfact else 7, c1, c2, convex_up=2 if convex_block0 else 0)
        if tfact:  # t enters through FiLM after convblock 5
            self.film = film_mlp(film_hidden, c2)
        if block0_scale not in (4, 8):
            raise ValueError(f"block0: scale {block0_scale} is not 4 or 8")
        self.scales = [block0_scale]
        self.convex_up = convex_up
        for k, (bc1, bc2, scale) in enumerate(blocks, 1):
            if scale not in (1, 2, 4):
                raise ValueError(f"block{k}: scale {scale} is not 4, 2 or 1")
            setattr(self, f"block{k}", Block(17 if tfact else 18, bc1, bc2,
                                             film_hidden if tfact else 0,
                                             2 * scale if convex_up else 0))
            self.scales.append(scale)
        if variant == "tfact2":
            self.refine = RefineHead(refine_width)

    def refinement_blocks(self):
        """(block k, its scale) for k = 1, 2, ..."""
        return [(getattr(self, f"block{k}"), s) for k, s in enumerate(self.scales[1:], 1)]

    def config(self):
        """Variant and widths (0 for a part the variant lacks), as stored in model metadata;
        models with refinement blocks also carry their widths and every block's scale."""
        cfg = {
            "variant": self.variant,
            "c1": self.block0.conv0[0][0].out_channels,
            "c2": self.block0.conv0[1][0].out_channels,
            "film_hidden": self.film[0].out_features if hasattr(self, "film") else 0,
            "refine_width": self.refine.c0.out_channels if hasattr(self, "refine") else 0,
        }
        if len(self.scales) > 1 or self.scales[0] != 4:
            cfg["blocks"] = [[b.conv0[0][0].out_channels, b.conv0[1][0].out_channels, s]
                             for b, s in self.refinement_blocks()]
            cfg["block_scales"] = self.scales
        if self.convex_up:
            cfg["convex_up"] = True
        if self.block0.convex_up:
            cfg["convex_block0"] = True
        return cfg

    def _block0(self, x0, x1, t, div):
        """block0 on the padded BGR frames resampled by 1 / div (4: the seed's graph; 8: the
        large-motion pass, which sees half the motion): its flow (pixels) and mask logits,
        upsampled to the padded grid."""
        n, _, H, W = x0.shape
        hq, wq = H // div, W // div
        xq = resize(torch.cat((x0, x1), 1), hq, wq)
        if self.variant == "classic":
            # the seed writes t after resampling (wgslPrepQuarter), so the plane is exactly t
            xq = torch.cat((xq, t.reshape(n, 1, 1, 1).expand(n, 1, hq, wq)), 1)
        tfact = self.variant != "classic"
        # flow, mask and everything after stay float32 (also under autocast): the flow is
        # in pixels and the warp is sensitive to it
        up = self.block0.upsampled(xq, self.film if tfact else None, t, H, W)
        return up[:, :4] * (2.0 * div), up[:, 4:5]

    def _block0_cropped(self, x0, x1, t, div):
        """_block0 at 1 / div on the frames padded to its multiple (4 * div), cropped back."""
        H, W = x0.shape[-2:]
        flow, mask = self._block0(pad16(x0, 4 * div), pad16(x1, 4 * div), t, div)
        return flow[..., :H, :W], mask[..., :H, :W]

    def _run(self, img0, img1, t, block0_div=None, large_motion=False):
        """A dict: out (padded BGR), flow, mask, the padded planes x0 and x1, block0_flow, and
        with large_motion the per-sample sums of warp_disagreement under block0's flow at 1/4
        and 1/8 ("disagreement", [N, 2]) and the choice ("half", [N]).

        block0_div: block0 sees the frames resampled by 1 / its scale, or, for studies, by
        1 / block0_div (4 or 8). large_motion (models whose block0 runs at 4): the large-motion
        pass (RIFE's --scale 0.5, chosen per sample as tools/eval/flow_scale.py studies it):
        block0 runs at 1/4 and 1/8, and each sample keeps the flow under which its frames agree
        better. The grid stays padded to 16 and only a run at 1/8 sees the frames padded to
        32: more padding hurts the 1/4 run (on 142-row frames it cost 4 dB), and this way the
        pass changes only the frames where it takes 1/8. The sums are float64, so that the
        choice does not hinge on the order of a float32 sum; a tie keeps 1/4."""
        n = img0.shape[0]
        h, w = img0.shape[-2:]
        t = torch.as_tensor(t, dtype=torch.float32, device=img0.device).reshape(-1).expand(n)
        x0, x1 = pad16(img0.flip(1)), pad16(img1.flip(1))  # RGB -> BGR planes
        H, W = x0.shape[-2:]
        div = block0_div or self.scales[0]
        flow, mask = self._block0_cropped(x0, x1, t, div)
        result = {"x0": x0, "x1": x1}
        if large_motion and div == 4:
            flow8, mask8 = self._block0_cropped(x0, x1, t, 8)
            d = torch.stack((warp_disagreement(x0, x1, flow, h, w),
                             warp_disagreement(x0, x1, flow8, h, w)), 1)
            half = d[:, 1] < d[:, 0]
            result.update(disagreement=d, half=half)
            half = half.reshape(n, 1, 1, 1)
            flow, mask = torch.where(half, flow8, flow), torch.where(half, mask8, mask)
        result["block0_flow"] = flow
        tfact = self.variant != "classic"
        for block, s in self.refinement_blocks():
            w0, w1 = warp(x0, flow[:, 0:2]), warp(x1, flow[:, 2:4])
            tplane = [] if tfact else [t.reshape(n, 1, 1, 1).expand(n, 1, H, W)]
            x = torch.cat([x0, x1, w0, w1] + tplane + [mask, flow / s], 1)
            if s > 1:
                x = resize(x, H // s, W // s)
            up = block.upsampled(x, getattr(block, "film", None), t, H, W)
            flow, mask = flow + up[:, :4] * (2.0 * s), mask + up[:, 4:5]
        w0, w1 = warp(x0, flow[:, 0:2]), warp(x1, flow[:, 2:4])
        m = torch.sigmoid(mask)
        out = w0 * m + w1 * (1.0 - m)
        if self.variant == "tfact2":
            out = out + self.refine(w0, w1, m, flow)
        result.update(out=out.clamp(0.0, 1.0), flow=flow, mask=mask)
        return result

    def forward(self, img0, img1, t=0.5, static_guard=False, large_motion=False):
        """Interpolated frame at t (0 = img0, 1 = img1): RGB [N, 3, H, W] in [0, 1].
        t: a float or a tensor [N] (one t per sample)."""
        h, w = img0.shape[-2:]
        r = self._run(img0, img1, t, large_motion=large_motion)
        out = r["out"]
        if static_guard:
            out = static_region_guard(out, r["x0"], r["x1"])
        return out[..., :h, :w].flip(1)

    def forward_train(self, img0, img1, t, block0_div=None, large_motion=False):
        """For losses: pred (= forward without guard), flow [N, 4, H, W] in pixels
        ((dx, dy) for img0, then for img1) and the mask logits [N, 1, H, W]; for studies,
        also block0's flow before the refinement blocks and, with large_motion, the pass's
        disagreement sums and choice (see _run)."""
        h, w = img0.shape[-2:]
        r = self._run(img0, img1, t, block0_div, large_motion)
        crop = {k: r[k][..., :h, :w] for k in ("flow", "mask", "block0_flow")}
        extra = {k: r[k] for k in ("disagreement", "half") if k in r}
        return {"pred": r["out"][..., :h, :w].flip(1), **crop, **extra}
