"""Multiply-add count of Framecast's graph, for the model cards (GFLOP = 2 x multiply-adds).

    python3 tools/train/flops.py classic 120 240            # 1920x1080 (padded to 1920x1088)

Counts the convolutions and the deconvolution (the warp, resampling and blend are a few
operations per pixel and are left out, as in GPU-MACHINE.md's 72.7 GFLOP for the default).
For tfact/tfact2 the trunk (conv0a, conv0b, convblocks 0-5) runs once per frame pair and the
head (FiLM, convblocks 6-7, deconv, refine) once per mid; both numbers are returned.
"""
import sys


def deconv_channels(convex_up=0):
    """A block's deconv outputs: flow and mask (5), and with convex upsampling by convex_up the
    9 convex_up^2 weights of its upmask."""
    return 5 + 9 * convex_up * convex_up


def block_macs(cin, c1, c2, w, h, convex_up=0):
    """Multiply-adds of one flow block whose input is w x h (conv0a, conv0b, 8 convblocks,
    deconv, and with convex upsampling by convex_up the deconv of its 9 convex_up^2 weights);
    its trunk runs at w/4 x h/4."""
    p2, p4 = (w // 2) * (h // 2), (w // 4) * (h // 4)
    return (p2 * c1 * cin * 9 + p4 * c2 * c1 * 9 + 8 * p4 * c2 * c2 * 9
            + p2 * deconv_channels(convex_up) * c2 * 4)


def gflop(variant, c1, c2, refine_width=32, width=1920, height=1080, blocks=(), block0_scale=4,
          convex_up=False, convex_block0=False):
    W, H = -(-width // 16) * 16, -(-height // 16) * 16
    q = (W // 4) * (H // 4)
    # block0 at 1 / block0_scale sees the frames padded to 4 * block0_scale
    m = 4 * block0_scale
    Wb, Hb = -(-width // m) * m, -(-height // m) * m
    p8 = (Wb // (2 * block0_scale)) * (Hb // (2 * block0_scale))
    p16 = (Wb // (4 * block0_scale)) * (Hb // (4 * block0_scale))
    cin = 7 if variant == "classic" else 6
    conv0a = p8 * c1 * cin * 9
    conv0b = p16 * c2 * c1 * 9
    trunk_conv = p16 * c2 * c2 * 9
    # 4x4 stride 2: 2x2 taps reach each output pixel; a convex block0 upsamples by 2
    deconv = p8 * deconv_channels(2 if convex_block0 else 0) * c2 * 4
    refine = 0
    if variant == "tfact2":
        r = refine_width
        refine = q * 9 * (11 * r + 2 * r * r + 3 * r)
    # refinement blocks (c1, c2, scale) see warped frames, so they run per mid
    extra = sum(block_macs(17 if variant != "classic" else 18, bc1, bc2, W // s, H // s,
                           2 * s if convex_up else 0)
                for bc1, bc2, s in blocks)
    pair = conv0a + conv0b + 6 * trunk_conv
    mid = 2 * trunk_conv + deconv + refine + extra
    total = pair + mid
    if variant == "classic":
        return {"per_mid": 2 * total / 1e9, "per_pair": 0.0, "per_further_mid": 2 * total / 1e9}
    return {"per_mid": 2 * total / 1e9, "per_pair": 2 * pair / 1e9,
            "per_further_mid": 2 * mid / 1e9}


def params(variant, c1, c2, film_hidden=64, refine_width=32, blocks=()):
    cin = 7 if variant == "classic" else 6
    n = (cin * 9 + 1 + 1) * c1 + (c1 * 9 + 1 + 1) * c2 + 8 * (c2 * 9 + 1 + 1) * c2
    n += c2 * 5 * 16 + 5
    if variant != "classic":
        n += 2 * film_hidden + (film_hidden + 1) * 2 * c2
    if variant == "tfact2":
        r = refine_width
        n += (11 * 9 + 2) * r + 2 * (r * 9 + 2) * r + r * 9 * 3 + 3
    for bc1, bc2, _ in blocks:
        cin = 17 if variant != "classic" else 18
        n += (cin * 9 + 2) * bc1 + (bc1 * 9 + 2) * bc2 + 8 * (bc2 * 9 + 2) * bc2 + bc2 * 80 + 5
        if variant != "classic":
            n += 2 * film_hidden + (film_hidden + 1) * 2 * bc2
    return n


if __name__ == "__main__":
    v, c1, c2 = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
    print(gflop(v, c1, c2), params(v, c1, c2))
