"""Train Framecast models on synthetic triplets (synth.py), within a wall-clock budget.

    PYTHONPATH=tools python3 tools/train/train.py --out OUT --minutes 7.5 \
        --model default=classic:120:240 --model slim=classic:60:120 [--resume default=FILE]

One process trains one or more models on the SAME generated batches (the generator's cost is
shared; a small model rides along almost for free). For each model NAME it writes to --out:

  NAME.safetensors   weights as F16 with __metadata__ (variant, widths, run id, cumulative
                     samples/steps/seconds, last losses, DAVIS-val numbers, date, history).
                     Written every --ckpt-minutes and at the end. It is both the exported model
                     and the resume checkpoint: --resume NAME=FILE loads the weights, and the
                     run continues with a fresh AdamW and a short warm-up.
  NAME.log.json      the loss log (every --log-every steps) and the validation results.

Schedule: cosine from --lr to --min-lr over the wall-clock budget (the number of steps a run
gets is not known in advance), linear warm-up over --warmup steps. bf16 autocast on CUDA,
gradient clipping, AdamW (no weight decay on biases and PReLU slopes).

Loss: Charbonnier(pred, gt) + grad_w * Charbonnier(grad pred - grad gt) + census_w * soft
ternary census distance (7x7), + flow_w * Charbonnier(flow - true flow) / 20 during the first
--flow-until fraction of the budget (weak supervision of the two backward flows), and with
--mse NAME=W, + W * mean squared error for that model (it pulls large errors towards the
mean, as PSNR rewards, where the Charbonnier term pulls every error alike).

--distill STUDENT=TEACHER adds distill_w * Charbonnier(student flow - teacher flow) / 20 where
the teacher's frame is closer to the truth than the student's (per pixel): the teacher is
another model of the run (trained on the same batches, listed before the student) or a model
file (frozen). This is how the fast 1-block model learns from the quality model's flow.

--init NAME=FILE starts a NEW model from another one's weights (e.g. a quality model, or a tfact2
model, from the trained default; --init-rename moves the file's blocks to make room for a new
block between them): tensors of the same name and shape are copied, each block's first
conv keeps the other channels where the t plane is gone (classic -> tfact*, the plane folded
into the bias at t = 0.5), and the parts the source lacks start as the identity (refinement
blocks' deconv, FiLM's last layer and tfact2's refine output conv at zero; a new convex
upsampling's weight deconv at zero with its bias at bilinear_logits, i.e. bilinear), so the new
model starts where the source model is (with convex upsampling, to within bilinear_logits'
floor; a convex block0 starts as bilinear x2 and then bilinear, near one bilinear step but not
at it). Repeated, it takes each file's matching tensors in
turn (e.g. a tfact2 quality tier from the fast model's block0 and refine head and a classic
quality model's refinement blocks: --init q=QUALITY --init q=FAST).

--ema DECAY keeps an exponential moving average of each model's weights (updated after every
step; it starts at the run's first weights) and exports it instead of the raw weights: the
average sits in the middle of the region the last few thousand steps wandered over, where a
single step's weights land anywhere in it. Both are validated at the end; the raw weights'
numbers go into the metadata as davis_val_raw.

--data NAME=real=FRACTION draws that share of NAME's batches from real video instead
(clips.py: triplets cut from the runs of --clips, made by make_clips.py, or from the --shards
of the real-video set when --clips names it) at --real-size px; the other batches are
synthetic (real=1: no synthetic batch at all). Real batches carry no ground-truth flow.

--val-pans 64,96 also validates on camera pans of those lengths cut from the validation
frames (tools/eval/make_pan_set.py's windows): large motion, where the models break first.

Data-parallel (under torchrun, tools/train/run_ddp.sh; parallel.py): one process per GPU, each
on its own share of the real clips and its own synthetic batches (seeded by its rank), the
gradients averaged over the processes. --batch is per process, and samples count those of
every process. Rank 0's clock decides the schedule and the stop for all; rank 0 alone prints,
validates and writes, and the summary gives the largest difference of any rank's weights from
rank 0's (0: the ranks agree). Without torchrun, or with one process, nothing changes.

Validation: t = 0.5 on the triplets of --val (frame0, frame1 = truth, frame2), the model's
forward in float32 (edge-replicate padding to /16 is inside the model), prediction rounded to
8 bits; PSNR over RGB per triplet, averaged; IE = mean absolute difference (0..255).
"""
import argparse
import contextlib
import datetime
import json
import math
import os
import re
import sys
import time
import zlib

import numpy as np
import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "eval"))
from framecast_model import FramecastNet, load_model, save_safetensors  # noqa: E402
from framecast_model.graph import bilinear_logits  # noqa: E402
from framecast_model.weights import read_tensors  # noqa: E402
from synth import Synth  # noqa: E402
from clips import RealClips, is_video_set, load_runs  # noqa: E402
from parallel import Ranks  # noqa: E402
from losses import (census_loss, charb, compiled_or_eager, distill_loss,  # noqa: E402
                    grad_loss, pixel_error)
from validation import load_triplets, pan_triplets, val_summary, validate  # noqa: E402
import flops  # noqa: E402


# ---------------------------------------------------------------------- models
class WeightAverage:
    """An exponential moving average of a module's parameters (--ema)."""

    def __init__(self, net, decay):
        self.params = list(net.parameters())
        self.shadow = [p.detach().clone() for p in self.params]
        self.decay = decay

    @torch.no_grad()
    def update(self):
        torch._foreach_mul_(self.shadow, self.decay)
        torch._foreach_add_(self.shadow, [p.detach() for p in self.params], alpha=1 - self.decay)

    @torch.no_grad()
    def swap(self):
        """Exchange the module's weights with the average (call again to swap back)."""
        for p, s in zip(self.params, self.shadow):
            p.data, s.data = s.data, p.data


def renamed(name, renames):
    """name with its block prefix replaced per renames {old: new} (e.g. block1 -> block2)."""
    prefix, dot, rest = name.partition(".")
    return renames.get(prefix, prefix) + dot + rest


def t_plane(block):
    """Where a classic block takes t as a constant input plane: block0's 7th input, a
    refinement block's 13th (after both frames and both warped frames)."""
    return 6 if block == "block0" else 12


def warm_start(net, paths, renames=None):
    """Copy matching tensors of the model files at paths (one path or several, a later file's
    tensors winning) into net and zero the layers that make the parts no file has a no-op
    (see the module docstring). renames {old: new} moves the files' blocks first, so a new
    block can go between them (block1 -> block2 puts a new block1 after block0). Returns
    (copied, zeroed) names."""
    state = net.state_dict()
    copied = []
    for path in [paths] if isinstance(paths, str) else paths:
        src, _ = read_tensors(path)
        src = {renamed(k, renames or {}): v for k, v in src.items()}
        for name in sorted(state, key=lambda n: n.endswith(".weight")):  # biases first: below
            dst = state[name]
            w = src.get(name)
            if w is None:
                continue
            first = re.fullmatch(r"(block\d+)\.conv0\.0\.0\.weight", name)
            if first and w.shape[1] == dst.shape[1] + 1:
                # a classic block's t plane; FiLM carries t now. Fold the plane at t = 0.5
                # into the bias, so the new model starts as the source at t = 0.5 (away from
                # the borders, where the plane's zero padding differs)
                i = t_plane(first.group(1))
                state[first.group(1) + ".conv0.0.0.bias"] += 0.5 * w[:, i].sum((1, 2))
                w = torch.cat((w[:, :i], w[:, i + 1:]), 1)
            if w.shape == dst.shape:
                dst.copy_(w)
                if name not in copied:
                    copied.append(name)
    for n in [n for n in state if n not in copied and re.fullmatch(r"block\d+\.upmask\.bias", n)]:
        # bilinear where the file upsampled bilinearly; the weight below starts at zero
        state[n].copy_(bilinear_logits(net.get_submodule(n.split(".")[0]).convex_up))
        copied.append(n)
    zero = [n for n in state if n not in copied and (
        re.fullmatch(r"block([1-9]\d*\.lastconv|\d+\.upmask)\.(weight|bias)", n)
        or re.fullmatch(r"(block\d+\.)?film\.2\.(weight|bias)", n)
        or re.fullmatch(r"refine\.c3\.(weight|bias)", n))]
    for n in zero:
        state[n].zero_()
    return copied, zero


def parse_model(spec):
    """NAME=VARIANT:C1:C2[:FILM_HIDDEN:REFINE_WIDTH][/8][+C1:C2:SCALE...][@EVERY]
    (/8: block0 at scale 8 instead of 4; +...: one refinement block each, the quality tier;
    EVERY: train on every k-th batch)"""
    name, rest = spec.split("=", 1)
    every = 1
    if "@" in rest:
        rest, every = rest.split("@")
        every = int(every)
    rest, *extra = rest.split("+")
    rest, _, block0_scale = rest.partition("/")
    f = rest.split(":")
    cfg = {"variant": f[0], "c1": int(f[1]), "c2": int(f[2]),
           "film_hidden": int(f[3]) if len(f) > 3 else 64,
           "refine_width": int(f[4]) if len(f) > 4 else 32,
           "blocks": [tuple(int(v) for v in b.split(":")) for b in extra],
           "block0_scale": int(block0_scale or 4)}
    return name, cfg, every


class Trainee:
    def __init__(self, name, cfg, args, device, ranks, resume=None, init=None, renames=None):
        self.name, self.cfg, self.args = name, cfg, args
        self.ranks = ranks
        self.history, self.prev = [], {"samples": 0, "steps": 0, "train_seconds": 0.0}
        if resume:
            net = load_model(resume)
            _, meta = read_tensors(resume)
            for k in self.prev:
                if k in meta:
                    self.prev[k] = json.loads(meta[k])
            if "history" in meta:
                self.history = json.loads(meta["history"])
            got = net.config()
            got["blocks"] = [tuple(b) for b in got.get("blocks", [])]
            got["block0_scale"] = net.scales[0]
            got["convex_up"] = net.convex_up
            got["convex_block0"] = bool(net.block0.convex_up)
            for k in ("variant", "c1", "c2", "blocks", "block0_scale", "convex_up",
                      "convex_block0"):
                if got[k] != cfg[k]:
                    sys.exit(f"{name}: resume file has {k}={got[k]}, asked for {cfg[k]}")
            print(f"[{name}] resumed from {resume}: {self.prev}", flush=True)
        else:
            net = FramecastNet(cfg["variant"], cfg["c1"], cfg["c2"], cfg["film_hidden"],
                               cfg["refine_width"], cfg["blocks"], cfg["block0_scale"],
                               cfg["convex_up"], cfg["convex_block0"])
            if init:
                with torch.no_grad():
                    copied, zeroed = warm_start(net, init, renames)
                state = net.state_dict()
                fresh = [n for n in state if n not in copied and n not in zeroed]
                print(f"[{name}] initialised from {', '.join(init)}: {len(copied)} of "
                      f"{len(state)} tensors copied, zeroed {zeroed}, left at their random "
                      f"start {fresh}", flush=True)
                # The weights' lineage: the history of the file(s) they came from, and with
                # one file its totals, so that a shipped model says every run it went through.
                for path in init:
                    meta = read_tensors(path)[1]
                    self.history += json.loads(meta.get("history", "[]"))
                    if len(init) == 1:
                        self.prev = {k: json.loads(meta[k]) if k in meta else v
                                     for k, v in self.prev.items()}
                self.history.append({"init_from": ", ".join(os.path.basename(p) for p in init),
                                     "tensors_copied": len(copied)})
        self.resumed = bool(resume)
        self.net = net.to(device).train()
        ranks.broadcast(list(self.net.parameters()))  # the ranks start from the same weights
        if args.channels_last and device.type == "cuda":
            self.net = self.net.to(memory_format=torch.channels_last)
        decay = [p for n, p in self.net.named_parameters() if p.ndim > 1]
        no_decay = [p for n, p in self.net.named_parameters() if p.ndim <= 1]
        kw = {"fused": True} if device.type == "cuda" else {}
        self.opt = torch.optim.AdamW([{"params": decay, "weight_decay": args.wd},
                                      {"params": no_decay, "weight_decay": 0.0}],
                                     lr=args.lr, betas=(0.9, 0.999), **kw)
        self.nparams = sum(p.numel() for p in self.net.parameters())
        self.ema = WeightAverage(self.net, args.ema) if args.ema > 0 else None
        self.log, self.acc, self.nacc = [], {}, 0
        self.steps = 0
        self.val = self.val_raw = None
        self.val_pans = {}  # {pan px: validate()} with --val-pans
        self.mse_w = 0.0  # --mse
        self.data = {}

    @contextlib.contextmanager
    def exported(self):
        """The weights the model file gets (--ema: the average) in the module meanwhile."""
        if self.ema:
            self.ema.swap()
        try:
            yield
        finally:
            if self.ema:
                self.ema.swap()

    def metadata(self, args, samples, train_s, last):
        # this model's own (it may skip batches), over every rank
        samples = self.steps * args.batch * self.ranks.world
        size = int(self.data.get("size", args.size))
        motion = self.data.get("max_motion", args.max_motion) or size / 4  # synth's default
        hist = self.history + [{"run": args.run_id, "steps": self.steps, "samples": samples,
                                "train_seconds": round(train_s, 1), "lr": args.lr,
                                "resumed": self.resumed, "last_losses": last,
                                **({"ranks": self.ranks.world} if self.ranks.world > 1 else {}),
                                **({"mse_w": self.mse_w} if self.mse_w else {}),
                                "davis_val": val_summary(self.val)}]
        return {
            "run_id": args.run_id,
            "samples": self.prev["samples"] + samples,
            "steps": self.prev["steps"] + self.steps,
            "train_seconds": round(self.prev["train_seconds"] + train_s, 1),
            "losses": last,
            "davis_val_pytorch": val_summary(self.val),
            **({"pans_pytorch": {str(p): round(v["psnr"], 3) for p, v in self.val_pans.items() if v}}
               if self.val_pans else {}),
            **({"ema": args.ema, "davis_val_raw": val_summary(self.val_raw)} if self.ema else {}),
            "data": "tools/train/synth.py on .pool (tools/train/make_pool.py), "
                    f"{size}x{size}, motion up to {motion:g} px, t~U(0.05,0.95)"
                    + (f"; {self.data['real']:g} of the batches real video (tools/train/"
                       f"clips.py on {os.path.basename(os.path.normpath(args.clips))}"
                       + (f" shards {args.shards}" if is_video_set(args.clips) else "")
                       + f", {args.real_size}x{args.real_size}, gaps up to {args.real_gap})"
                       if self.data.get("real") else "")
                    + (f", data mix {self.data}" if self.data else "")
                    + (", large-motion pass on" if args.large_motion else ""),
            "date": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
            "history": hist,
            "params": self.nparams,
            "gflop_1080p_mid": round(flops.gflop(self.cfg["variant"], self.cfg["c1"],
                                                 self.cfg["c2"], self.cfg["refine_width"],
                                                 blocks=self.cfg["blocks"],
                                                 block0_scale=self.cfg["block0_scale"],
                                                 convex_up=self.cfg["convex_up"],
                                                 convex_block0=self.cfg["convex_block0"]
                                                 )["per_mid"], 2),
        }

    def save(self, args, samples, train_s):
        last = self.log[-1] if self.log else {}
        last = {k: v for k, v in last.items() if k.startswith("loss") or k == "l_"}
        path = os.path.join(args.out, f"{self.name}.safetensors")
        with self.exported():  # save_safetensors makes every tensor contiguous on the CPU
            save_safetensors(self.net, path + ".tmp", self.metadata(args, samples, train_s, last),
                             dtype="F16")
        os.replace(path + ".tmp", path)
        with open(os.path.join(args.out, f"{self.name}.log.json"), "w") as f:
            json.dump({"name": self.name, "config": self.cfg, "data": self.data,
                       "params": self.nparams,
                       "run_id": args.run_id, "resumed_from": self.prev,
                       "args": vars(args), "log": self.log, "val": self.val,
                       "val_raw": self.val_raw, "val_pans": self.val_pans}, f, indent=1)


class DataGroup:
    """A data mix and the models that train on its batches: the synthetic generator, and
    real-video clips for a share `real_frac` of the batches."""

    def __init__(self, gen, real=None, real_frac=0.0, seed=0):
        self.gen, self.models, self.batch = gen, [], None
        self.real, self.real_frac = real, real_frac
        self.rng = np.random.default_rng(seed)
        self.real_batches = 0

    def sample(self, B, flow):
        if self.real is not None and (self.gen is None or self.rng.random() < self.real_frac):
            self.real_batches += 1
            return self.real.sample(B)
        return self.gen.sample(B, flow=flow)


def distill_teacher(student, teacher, groups, device):
    """--distill's teacher of a student: the name of a model trained before it on the same
    batches, or a frozen model loaded from a file."""
    for g in groups:
        names = [m.name for m in g.models]
        if student in names:
            if teacher in names and names.index(teacher) < names.index(student):
                return teacher
            break
    else:
        sys.exit(f"--distill: no model named {student!r}")
    if os.path.isfile(teacher):
        net = load_model(teacher).to(device).eval()
        for p in net.parameters():
            p.requires_grad_(False)
        print(f"[{student}] distils the frozen {teacher}", flush=True)
        return net
    sys.exit(f"--distill {student}={teacher}: the teacher must be a model listed before the "
             "student with the same data mix, or a model file")


def parse_data(spec):
    """NAME=KNOB=VALUE[,KNOB=VALUE...] -> (NAME, {knob: float}); the knobs are synth.py's and
    `real` (the share of real-video batches)."""
    name, rest = spec.split("=", 1)
    items = rest.split(",")
    real = [i for i in items if i.startswith("real=")]
    try:
        knobs = Synth.parse_knobs([i for i in items if i not in real])
        for item in real:
            knobs["real"] = float(item.split("=", 1)[1])
            if not 0 <= knobs["real"] <= 1:
                raise ValueError(f"real={knobs['real']:g} is not a share between 0 and 1")
        return name, knobs
    except ValueError as e:
        sys.exit(f"--data {name}: {e}")


def data_seed(seed, run_id, mix, rank):
    """The seed of a data mix's generators: each run, mix and data-parallel rank its own
    batches."""
    return seed * 7919 + zlib.crc32((run_id + repr(mix)).encode()) % 100000 + 100003 * rank


def lr_at(args, step, frac):
    warm = min(1.0, (step + 1) / max(1, args.warmup))
    cos = 0.5 * (1 + math.cos(math.pi * min(1.0, frac)))
    return (args.min_lr + (args.lr - args.min_lr) * cos) * warm


def parse_args():
    ap = argparse.ArgumentParser(description="Framecast trainer")
    ap.add_argument("--model", action="append", default=[],
                    help="NAME=VARIANT:C1:C2[:FILM_HIDDEN:REFINE_WIDTH] (repeatable)")
    ap.add_argument("--resume", action="append", default=[], help="NAME=FILE.safetensors")
    ap.add_argument("--data", action="append", default=[],
                    help="NAME=KNOB=VALUE[,KNOB=VALUE...]: that model's own data mix, for "
                         "ablations (knobs: " + ", ".join(Synth.DATA_KNOBS) + ")")
    ap.add_argument("--distill", action="append", default=[],
                    help="STUDENT=TEACHER: learn the teacher's flow where the teacher's frame is "
                         "better (TEACHER: a model of this run listed before STUDENT, or a file)")
    ap.add_argument("--distill-w", type=float, default=0.05)
    ap.add_argument("--init", action="append", default=[],
                    help="NAME=FILE: a new model warm-started from another model's weights "
                         "(repeated: from several, a later file's tensors winning)")
    ap.add_argument("--convex-up", action="append", default=[], metavar="NAME",
                    help="NAME's refinement blocks upsample their flow and mask by RAFT's "
                         "convex upsampling (a second deconv gives the weights) instead of "
                         "bilinearly; --init starts it as bilinear")
    ap.add_argument("--convex-block0", action="append", default=[], metavar="NAME",
                    help="NAME's block0 upsamples its flow and mask by 2 by convex upsampling "
                         "and bilinearly from there; --init starts it as two bilinear steps")
    ap.add_argument("--init-rename", action="append", default=[],
                    help="NAME=OLD>NEW[,OLD>NEW...]: move the --init file's blocks first, e.g. "
                         "block1>block2,block2>block3 to put a new block1 after block0")
    ap.add_argument("--compile-census", type=int, default=1,
                    help="fuse the census loss with torch.compile on CUDA (PyTorch 2)")
    ap.add_argument("--profile-steps", type=int, default=0,
                    help="profile this many steps after 20 warm-up steps, print the top kernels")
    ap.add_argument("--out", default=os.environ.get("OUT", "out"))
    ap.add_argument("--pool", default=".pool")
    ap.add_argument("--val", default=".pool/val/davis")
    ap.add_argument("--clips", default=".pool/clips",
                    help="real video: a make_clips.py folder, or the real-video set's folder "
                         "(manifest.json, clips/) whose --shards are decoded")
    ap.add_argument("--shards", default="0",
                    type=lambda s: sorted({int(k) for k in s.split(",")}),
                    help="the real-video set's training shards to read, e.g. 0,1")
    ap.add_argument("--real-gap", type=int, default=7,
                    help="real triplets span 2 .. this many frame intervals (t = j / n)")
    ap.add_argument("--real-size", type=int, default=320,
                    help="crop size of real-video batches (--data NAME=real=FRACTION)")
    ap.add_argument("--val-pans", default="",
                    help="also validate on camera pans of these lengths in px, e.g. 64,96")
    ap.add_argument("--run-id", default="")
    ap.add_argument("--minutes", type=float, default=8.0, help="training wall-clock budget")
    ap.add_argument("--wall-minutes", type=float, default=0.0,
                    help="end training this many minutes after the process started (set-up and "
                         "compiling included) if that comes first: a device call's limit less "
                         "what follows training, so that a slow start shortens the schedule "
                         "instead of the call ending mid-run (0: no such limit)")
    ap.add_argument("--max-steps", type=int, default=0)
    ap.add_argument("--batch", type=int, default=48)
    ap.add_argument("--size", type=int, default=256)
    ap.add_argument("--lr", type=float, default=4e-4)
    ap.add_argument("--min-lr", type=float, default=1e-5)
    ap.add_argument("--warmup", type=int, default=300)
    ap.add_argument("--wd", type=float, default=1e-4)
    ap.add_argument("--clip", type=float, default=1.0)
    ap.add_argument("--ema", type=float, default=0.0,
                    help="export a moving average of the weights with this decay (0: off)")
    ap.add_argument("--grad-w", type=float, default=0.5)
    ap.add_argument("--census-w", type=float, default=0.1)
    ap.add_argument("--mse", action="append", default=[],
                    help="NAME=W: add W x mean squared error to NAME's loss")
    ap.add_argument("--flow-w", type=float, default=0.02)
    ap.add_argument("--flow-until", type=float, default=0.3)
    ap.add_argument("--amp", choices=["bf16", "none"], default="bf16")
    ap.add_argument("--channels-last", type=int, default=1)
    ap.add_argument("--bank", type=int, default=1024)
    ap.add_argument("--max-motion", type=float, default=None)
    ap.add_argument("--large-motion", type=int, default=0,
                    help="1: train and validate with the large-motion pass (block0 also at 1/8, "
                         "the better-agreeing flow kept per sample), as the runtime runs it")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--reuse", type=int, default=1,
                    help="use each generated batch this many times (later uses mirrored "
                         "left-right and time-reversed): halves the generator's share at 2")
    ap.add_argument("--device", default="cuda" if torch.cuda.is_available() else "cpu")
    ap.add_argument("--log-every", type=int, default=100)
    ap.add_argument("--ckpt-minutes", type=float, default=2.0)
    ap.add_argument("--val-start", type=int, default=0, help="validate resumed models first")
    args = ap.parse_args()
    if not args.model:
        args.model = ["default=classic:120:240"]
    args.run_id = args.run_id or datetime.datetime.now().strftime("run-%Y%m%d-%H%M%S")
    return args


def training_budget(args, started_s):
    """Seconds of training: --minutes, cut so that training ends --wall-minutes after the start
    (`started_s` ago) where that comes first."""
    budget = args.minutes * 60
    if args.wall_minutes > 0:
        left = args.wall_minutes * 60 - started_s
        if left <= 0:
            sys.exit(f"train.py: --wall-minutes {args.wall_minutes}: set-up took {started_s:.0f} s, "
                     "no time is left to train")
        if left < budget:
            print(f"training budget cut to {left:.0f} s: --wall-minutes {args.wall_minutes} "
                  f"after {started_s:.0f} s of set-up", flush=True)
            budget = left
    return budget


def main():
    args = parse_args()
    os.makedirs(args.out, exist_ok=True)
    t_start = time.time()
    ranks = Ranks.from_env(torch.device(args.device))
    device = ranks.device
    if ranks.world > 1:
        if not ranks.main:  # one log: rank 0 speaks for all (errors still reach stderr)
            sys.stdout = open(os.devnull, "w")
        print(f"data-parallel: {ranks.world} processes, each on its own batches", flush=True)
    torch.manual_seed(args.seed)
    if device.type == "cuda":
        torch.backends.cudnn.benchmark = True
        torch.backends.cuda.matmul.allow_tf32 = True
        torch.backends.cudnn.allow_tf32 = True
        print(torch.cuda.get_device_name(), torch.__version__, flush=True)

    resumes = dict(r.split("=", 1) for r in args.resume)
    inits = {}
    for r in args.init:
        name, path = r.split("=", 1)
        inits.setdefault(name, []).append(path)
    renames = {name: dict(pair.split(">") for pair in spec.split(","))
               for name, spec in (r.split("=", 1) for r in args.init_rename)}
    mse = {name: float(w) for name, w in (r.split("=", 1) for r in args.mse)}
    models = []
    for spec in args.model:
        name, cfg, every = parse_model(spec)
        cfg["convex_up"] = name in args.convex_up
        cfg["convex_block0"] = name in args.convex_block0
        models.append(Trainee(name, cfg, args, device, ranks, resumes.get(name),
                              inits.get(name), renames.get(name)))
        models[-1].every = every
        models[-1].mse_w = mse.pop(name, 0.0)
        print(f"[{name}] {cfg} params {models[-1].nparams:,}", flush=True)

    if mse:
        sys.exit(f"--mse names no model: {sorted(mse)}")
    # One generator per distinct data mix; models with the same mix share its batches.
    datas = dict(parse_data(d) for d in args.data)
    if set(datas) - {m.name for m in models}:
        sys.exit(f"--data names no model: {sorted(set(datas) - {m.name for m in models})}")
    groups, runs = {}, None
    for m in models:
        m.data = datas.get(m.name, {})
        key = tuple(sorted(m.data.items()))
        if key not in groups:
            knobs = {"max_motion": args.max_motion, "size": args.size, **m.data}
            real_frac = knobs.pop("real", 0.0)
            if knobs["size"] % 16:
                sys.exit(f"--data {m.name}: size {knobs['size']} is not a multiple of 16")
            seed = data_seed(args.seed, args.run_id, key, ranks.rank)
            real = None
            if real_frac:
                if args.real_size % 16:
                    sys.exit(f"--real-size {args.real_size} is not a multiple of 16")
                try:
                    if runs is None:  # decoded once, shared by every data mix
                        runs = load_runs(args.clips, args.shards, share=ranks.share)
                    real = RealClips(runs, device, args.real_size, seed, args.real_gap)
                except (OSError, ValueError) as e:
                    sys.exit(f"--data {m.name}: no real video in {args.clips} "
                             f"(make_clips.py writes it, or name the real-video set): {e}")
            gen = (Synth(args.pool, device, bank=args.bank, seed=seed, **knobs)
                   if real_frac < 1 else None)  # all-real batches need no photo pool
            groups[key] = DataGroup(gen, real, real_frac, seed)
        groups[key].models.append(m)
    groups = list(groups.values())
    teachers = {}
    for spec in args.distill:
        student, teacher = spec.split("=", 1)
        teachers[student] = distill_teacher(student, teacher, groups, device)
    live_teachers = {t for t in teachers.values() if isinstance(t, str)}
    triplets = load_triplets(args.val) if ranks.main else []  # rank 0 alone validates
    pans = pan_triplets(triplets, [int(p) for p in args.val_pans.split(",")]) if args.val_pans else {}
    gen = next((g.gen for g in groups if g.gen is not None), None)
    print((f"pool {len(gen.pool)} images, bank {gen.K}x{gen.R}, " if gen else "no synthetic batches, ")
          + f"{len(groups)} data mix(es), {len(triplets)} val triplets, "
          f"setup {time.time() - t_start:.1f}s", flush=True)
    if args.val_start:
        for m in models:
            if m.resumed:
                v = validate(m.net, triplets, device, args.large_motion)
                print(f"[{m.name}] DAVIS-val at start: {v and (round(v['psnr'], 3), round(v['ie'], 3))}",
                      flush=True)

    census_fn = census_loss
    if args.compile_census and device.type == "cuda" and hasattr(torch, "compile"):
        sizes = ({g.gen.S for g in groups if g.gen is not None}
                 | {g.real.S for g in groups if g.real is not None})
        census_fn = compiled_or_eager(census_loss, device,
                                      [(args.batch, 3, s, s) for s in sorted(sizes)])
    amp = (torch.autocast("cuda", dtype=torch.bfloat16)
           if args.amp == "bf16" and device.type == "cuda" else torch.autocast("cpu", enabled=False))
    budget = ranks.from_main(training_budget(args, time.time() - t_start) if ranks.main else 0.0)
    t0 = time.time()
    last_ckpt = t0
    step, samples, gen_s, gen_n, generated = 0, 0, 0.0, 0, 0
    sync = (torch.cuda.synchronize if device.type == "cuda" else (lambda: None))
    prof = None
    while True:
        if args.profile_steps and step == 20:
            sync()
            prof_t0 = time.time()
            prof = torch.profiler.profile(activities=[torch.profiler.ProfilerActivity.CPU]
                                          + ([torch.profiler.ProfilerActivity.CUDA]
                                             if device.type == "cuda" else []))
            prof.__enter__()
        if prof is not None and step == 20 + args.profile_steps:
            sync()
            prof.__exit__(None, None, None)
            wall_ms = (time.time() - prof_t0) * 1e3
            # self times: each kernel once, not again under every op that launched it
            cuda = device.type == "cuda"
            key = "self_cuda_time_total" if cuda else "self_cpu_time_total"
            events = prof.key_averages()
            print(events.table(sort_by=key, row_limit=30), flush=True)
            if cuda:  # far below the wall time: the GPU waits for the host (launches, data)
                # PyTorch 2.4 renamed the CUDA totals to device totals
                total = ("self_device_time_total" if hasattr(events[0], "self_device_time_total")
                         else "self_cuda_time_total")
                busy_ms = sum(getattr(e, total) for e in events) / 1e3
                print(f"profiled {args.profile_steps} steps: {wall_ms:.0f} ms wall (profiler "
                      f"included), GPU kernels {busy_ms:.0f} ms", flush=True)
            prof = None
        el = ranks.from_main(time.time() - t0)
        if el >= budget or (args.max_steps and step >= args.max_steps):
            break
        frac = el / budget
        fw = args.flow_w * max(0.0, 1 - frac / args.flow_until) if args.flow_until > 0 else 0.0
        use = step % args.reuse
        timed = use == 0 and step % (args.log_every * args.reuse) == args.reuse
        if timed:
            sync()
            tg = time.time()
        for g in groups:
            if use == 0:
                g.batch = g.sample(args.batch, flow=fw > 0)
                generated += args.batch * ranks.world
            else:  # mirror left-right and reverse time: a different sample of the same scene
                b = g.batch
                g.batch = {"img0": b["img1"].flip(-1), "img1": b["img0"].flip(-1),
                           "imgt": b["imgt"].flip(-1), "t": 1 - b["t"]}
        if timed:
            sync()
            gen_s += (time.time() - tg) / len(groups)
            gen_n += 1
        if use:
            fw = 0.0
        for g in groups:
            b = g.batch
            img0, img1, gt, t = b["img0"], b["img1"], b["imgt"], b["t"]
            if args.channels_last and device.type == "cuda":
                img0 = img0.contiguous(memory_format=torch.channels_last)
                img1 = img1.contiguous(memory_format=torch.channels_last)
            outputs = {}  # this batch's detached (flow, per-pixel error) of live teachers
            for m in g.models:
                if step % m.every:
                    continue
                lr = lr_at(args, m.steps, frac)
                for gp in m.opt.param_groups:
                    gp["lr"] = lr
                with amp:
                    o = m.net.forward_train(img0, img1, t, large_motion=args.large_motion)
                pred = o["pred"].float()
                l_rec = charb(pred - gt)
                l_grad = grad_loss(pred, gt)
                l_cen = census_fn(pred, gt) if args.census_w > 0 else torch.zeros((), device=device)
                l_mse = (pred - gt).square().mean()
                loss = l_rec + args.grad_w * l_grad + args.census_w * l_cen + m.mse_w * l_mse
                if fw > 0 and "flow" in b:
                    l_flow = charb((o["flow"].float() - b["flow"]) / 20.0)
                    loss = loss + fw * l_flow
                else:
                    l_flow = torch.zeros((), device=device)
                if m.name in live_teachers:
                    outputs[m.name] = (o["flow"].detach().float(), pixel_error(pred.detach(), gt))
                teacher = teachers.get(m.name)
                l_dist = torch.zeros((), device=device)
                if teacher is not None:
                    if isinstance(teacher, str):
                        tout = outputs.get(teacher)  # None when the teacher skipped this batch
                    else:
                        with torch.no_grad(), amp:
                            to = teacher.forward_train(img0, img1, t,
                                                       large_motion=args.large_motion)
                        tout = (to["flow"].float(), pixel_error(to["pred"].float(), gt))
                    if tout is not None:
                        l_dist = distill_loss(o["flow"].float(), tout[0],
                                              pixel_error(pred.detach(), gt), tout[1])
                        loss = loss + args.distill_w * l_dist
                m.opt.zero_grad(set_to_none=True)
                loss.backward()
                ranks.average_gradients(m.net.parameters())
                gn = torch.nn.utils.clip_grad_norm_(m.net.parameters(), args.clip)
                m.opt.step()
                if m.ema:
                    m.ema.update()
                m.steps += 1
                for k, v in (("loss", loss), ("loss_rec", l_rec), ("loss_grad", l_grad),
                             ("loss_census", l_cen), ("loss_mse", l_mse), ("loss_flow", l_flow),
                             ("loss_distill", l_dist), ("grad_norm", gn)):
                    m.acc[k] = m.acc.get(k, 0.0) + v.detach()
                m.nacc += 1
        step += 1
        samples += args.batch * ranks.world
        if step % args.log_every == 0:
            el = time.time() - t0
            for m in models:
                if not m.nacc:
                    continue
                # every rank's losses: those of the whole batch (and a non-finite one stops all)
                means = ranks.average(list(m.acc.values()))
                row = {k: round(float(v) / m.nacc, 5) for k, v in zip(m.acc, means)}
                if not math.isfinite(row["loss"]):
                    sys.exit(f"[{m.name}] loss is {row['loss']} at step {step}")
                row.update(step=m.steps, samples=samples, minutes=round(el / 60, 3),
                           lr=lr_at(args, m.steps, el / budget), flow_w=round(fw, 4),
                           samples_per_s=round(samples / el, 1), generated=generated,
                           gen_ms=round(1000 * gen_s / max(1, gen_n), 2))
                m.log.append(row)
                m.acc, m.nacc = {}, 0
                print(f"[{m.name}] step {m.steps} {el / 60:.2f} min loss {row['loss']:.4f} "
                      f"rec {row['loss_rec']:.4f} grad {row['loss_grad']:.4f} "
                      f"cen {row['loss_census']:.4f} mse {row['loss_mse']:.5f} "
                      f"flow {row['loss_flow']:.4f} "
                      f"distill {row['loss_distill']:.4f} "
                      f"lr {row['lr']:.2e} {row['samples_per_s']:.0f} samples/s "
                      f"gen {row['gen_ms']} ms", flush=True)
        if ranks.main and time.time() - last_ckpt > args.ckpt_minutes * 60:
            for m in models:
                m.save(args, samples, time.time() - t0)
            last_ckpt = time.time()
    train_s = time.time() - t0
    real_batches = [ranks.total(g.real_batches) for g in groups]
    deviation = {m.name: ranks.deviation(list(m.net.parameters())
                                         + (m.ema.shadow if m.ema else []))
                 for m in models}
    if not ranks.main:
        ranks.close()
        return
    print(f"trained {step} steps, {samples} samples in {train_s:.1f}s "
          f"({samples / max(train_s, 1e-9):.0f} samples/s)", flush=True)
    summary = {"run_id": args.run_id, "steps": step, "samples": samples, "generated": generated,
               "real_batches": real_batches, "train_seconds": round(train_s, 1),
               **({"ranks": ranks.world} if ranks.world > 1 else {}), "models": {}}
    for m in models:
        tv = time.time()
        if m.ema:
            m.val_raw = validate(m.net, triplets, device, args.large_motion)
        with m.exported():
            m.val = validate(m.net, triplets, device, args.large_motion)
            m.val_pans = {pan: validate(m.net, trips, device, args.large_motion)
                          for pan, trips in pans.items()}
        for what, v in (("raw weights", m.val_raw), ("average" if m.ema else "", m.val)):
            if v:
                print(f"[{m.name}] DAVIS-val (PyTorch model, t=0.5{', ' if what else ''}{what}): "
                      f"PSNR {v['psnr']:.3f} dB, IE {v['ie']:.3f} ({time.time() - tv:.1f}s)",
                      flush=True)
        for pan, v in m.val_pans.items():
            if v:
                print(f"[{m.name}] pan of {pan} px ({v['n']} triplets): PSNR {v['psnr']:.3f} dB, "
                      f"IE {v['ie']:.3f}", flush=True)
        m.save(args, samples, train_s)
        summary["models"][m.name] = {"config": m.cfg, "params": m.nparams, "every": m.every,
                                     "steps_this_run": m.steps,
                                     "cumulative": m.metadata(args, samples, train_s,
                                                              m.log[-1] if m.log else {}),
                                     "val": m.val, "val_raw": m.val_raw,
                                     "val_pans": m.val_pans}
        if ranks.world > 1:
            summary["models"][m.name]["rank_weight_deviation"] = deviation[m.name]
            if deviation[m.name]:
                print(f"[{m.name}] WARNING: the ranks' weights differ by up to "
                      f"{deviation[m.name]:.3g}; the files hold rank 0's", flush=True)
    summary["wall_seconds"] = round(time.time() - t_start, 1)
    with open(os.path.join(args.out, "summary.json"), "w") as f:
        json.dump(summary, f, indent=1)
    print(f"done in {summary['wall_seconds']}s", flush=True)
    ranks.close()


if __name__ == "__main__":
    main()
