"""The trainer's losses (train.py): Charbonnier on the frame and its gradients, a soft ternary
census distance, the distillation of a teacher's flow where its frame is the better one, and
torch.compile for the census term where it works."""
import time

import torch


def charb(x, eps=1e-3):
    return torch.sqrt(x * x + eps * eps).mean()


def grad_loss(p, g):
    return (charb((p[..., :, 1:] - p[..., :, :-1]) - (g[..., :, 1:] - g[..., :, :-1]))
            + charb((p[..., 1:, :] - p[..., :-1, :]) - (g[..., 1:, :] - g[..., :-1, :])))


def _census_transform(gray, dy, dx, r):
    """Soft ternary census of one neighbour offset, on the interior with full 7x7 patches."""
    h, w = gray.shape[-2:]
    d = gray[..., r + dy:h - r + dy, r + dx:w - r + dx] - gray[..., r:h - r, r:w - r]
    return d / torch.sqrt(0.81 + d * d)


def census_loss(p, g, radius=3):
    """Soft ternary census distance over 7x7 patches (border without a full patch left out).
    One shifted difference at a time: no [B, 49, H, W] tensors, and torch.compile fuses it
    into a single kernel (it was ~40% of a training step as a 49-channel conv)."""
    def gray(x):
        return (0.299 * x[:, 0:1] + 0.587 * x[:, 1:2] + 0.114 * x[:, 2:3]) * 255

    gp, gg = gray(p), gray(g)
    acc = 0.0
    for dy in range(-radius, radius + 1):
        for dx in range(-radius, radius + 1):
            d = (_census_transform(gp, dy, dx, radius) - _census_transform(gg, dy, dx, radius)) ** 2
            acc = acc + d / (0.1 + d)
    return acc.mean() / (2 * radius + 1) ** 2


def pixel_error(pred, gt):
    """|pred - gt| averaged over the channels: [N, 1, H, W]."""
    return (pred - gt).abs().mean(1, keepdim=True)


def distill_loss(flow, teacher_flow, err, teacher_err):
    """Charbonnier(flow - teacher flow) / 20 (px), only where the teacher's frame is closer to
    the truth than the student's: the teacher's mistakes are not taught."""
    better = (teacher_err < err).float()
    d = (flow - teacher_flow) / 20.0
    return (torch.sqrt(d * d + 1e-6) * better).mean()


def compiled_or_eager(fn, device, shapes):
    """fn compiled by torch.compile if a first call (forward and backward) on each training
    shape works, else fn itself: a compiler problem costs speed, never the run. Compiling
    every shape here keeps it out of the training budget."""
    t = time.time()
    try:
        c = torch.compile(fn, dynamic=False)
        for shape in shapes:
            x = torch.rand(shape, device=device, requires_grad=True)
            c(x, torch.rand_like(x)).backward()
        print(f"census loss compiled ({time.time() - t:.1f}s)", flush=True)
        return c
    except Exception as e:  # noqa: BLE001 -- any compiler failure means: run eagerly
        print(f"census loss not compiled, running eagerly: {type(e).__name__}: {e}", flush=True)
        return fn
