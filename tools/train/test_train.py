#!/usr/bin/python3
"""Tests of the trainer's model surgery and losses on the CPU: a model grown from another with
--init (a block inserted with --init-rename) starts out computing the same frames as its
source, and classic -> tfact2 folds the t plane into a bias; the distillation loss counts only
where the teacher is better; the weight average (--ema) follows its formula and swaps in and
out without losing the raw weights; --val-pans cuts the pan sets' windows; parse_model reads
every spec form; the trainer runs end to end on a small pool (resume, --init with a
rename, a block0 at scale 8, distillation, --mse on one model; a convex block0), writing
models that load and resume; and data-parallel training (parallel.py) gives each rank its
own share of the data, averages the gradients into those of the whole batch, and under
torchrun trains one model with two processes, written once.

Run: /usr/bin/python3 -m unittest tools/train/test_train.py   (or run this file)
"""
import json
import os
import re
import socket
import subprocess
import sys
import tempfile
import unittest

import torch
import torch.multiprocessing

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(HERE, ".."))
sys.path.insert(0, os.path.join(HERE, "..", "eval"))
from framecast_model import FramecastNet, load_model, read_tensors, save_safetensors  # noqa: E402
from framecast_model.graph import resize  # noqa: E402
from framecast_model.testdata import make_frames, to_tensor  # noqa: E402
from losses import census_loss, charb, distill_loss, grad_loss  # noqa: E402
from parallel import Ranks  # noqa: E402
from train import WeightAverage, data_seed, parse_model, warm_start  # noqa: E402
from validation import pan_triplets  # noqa: E402
from make_pan_set import pan_windows  # noqa: E402
from test_synth import make_pool  # noqa: E402
from test_clips import panned, write_clips  # noqa: E402


def trained_like(net, seed):
    """Random weights at a scale that gives flows of a few pixels (not a zero network)."""
    g = torch.Generator().manual_seed(seed)
    with torch.no_grad():
        for p in net.parameters():
            p.copy_(torch.randn(p.shape, generator=g) * (0.3 / max(1, p[0].numel()) ** 0.5))
    return net


class WarmStartTest(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        f0, f1 = make_frames(72, 40, seed=4)
        self.img0, self.img1 = to_tensor(f0), to_tensor(f1)

    def tearDown(self):
        self.tmp.cleanup()

    def saved(self, net, name):
        path = os.path.join(self.tmp.name, name + ".safetensors")
        save_safetensors(net, path)
        return path

    def assert_same_output(self, source, grown, t=0.5):
        with torch.no_grad():
            a = source(self.img0, self.img1, t)
            b = grown(self.img0, self.img1, t)
        self.assertGreater(a.std().item(), 0.05)
        self.assertLess((a - b).abs().max().item(), 1e-5)

    def test_inserting_a_block_after_block0_keeps_the_output(self):
        source = trained_like(FramecastNet("classic", 8, 12, blocks=[(6, 8, 2)]), 1)
        grown = FramecastNet("classic", 8, 12, blocks=[(6, 10, 4), (6, 8, 2)])
        copied, zeroed = warm_start(grown, self.saved(source, "k2"), {"block1": "block2"})
        self.assertIn("block2.lastconv.weight", copied)  # the old block1, moved
        self.assertIn("block1.lastconv.weight", zeroed)  # the new block: no-op at first
        self.assert_same_output(source, grown)

    def test_a_coarse_start_grown_from_a_model_is_its_run_at_one_eighth(self):
        # block0 moved to scale 8 with a new block at 4 after it starts as the source model
        # with block0 at 1/8 (what the large-motion pass computes when it picks 1/8)
        source = trained_like(FramecastNet("classic", 8, 12, blocks=[(6, 8, 2)]), 2)
        grown = FramecastNet("classic", 8, 12, blocks=[(6, 10, 4), (6, 8, 2)], block0_scale=8)
        warm_start(grown, self.saved(source, "k2"), {"block1": "block2"})
        with torch.no_grad():
            t = torch.tensor([0.5])
            a = source.forward_train(self.img0, self.img1, t, block0_div=8)["pred"]
            b = grown(self.img0, self.img1, 0.5)
        self.assertGreater(a.std().item(), 0.05)
        self.assertLess((a - b).abs().max().item(), 1e-5)

    def test_without_the_rename_the_old_block_does_not_fit(self):
        source = trained_like(FramecastNet("classic", 8, 12, blocks=[(6, 8, 2)]), 1)
        grown = FramecastNet("classic", 8, 12, blocks=[(6, 10, 4), (6, 8, 2)])
        copied, _ = warm_start(grown, self.saved(source, "k2"))
        self.assertNotIn("block2.lastconv.weight", copied)

    def grown_convex(self, seed, **convex):
        """A small bilinear tfact2 model with one refinement block, and the same model with
        the convex upsampling `convex` names, --init from it: (source, grown, the tensors
        copied, those zeroed)."""
        widths = dict(film_hidden=8, refine_width=4, blocks=[(4, 6, 2)])
        source = trained_like(FramecastNet("tfact2", 8, 12, **widths), seed)
        grown = FramecastNet("tfact2", 8, 12, **widths, **convex)
        return (source, grown) + warm_start(grown, self.saved(source, f"bilinear{seed}"))

    def test_convex_upsampling_starts_as_the_bilinear_source(self):
        """A new upmask starts at bilinear_logits with a zero weight: the grown model is its
        source but for the 1e-3 floor the taps bilinear leaves out start at."""
        source, grown, copied, zeroed = self.grown_convex(3, convex_up=True)
        self.assertIn("block1.upmask.bias", copied)
        self.assertIn("block1.upmask.weight", zeroed)
        with torch.no_grad():
            a = source(self.img0, self.img1, 0.4)
            b = grown(self.img0, self.img1, 0.4)
        self.assertGreater(a.std().item(), 0.05)
        self.assertGreater((a - b).abs().max().item(), 1e-6)  # the floor's taps are there
        self.assertLess((a - b).abs().max().item(), 0.02)

    def test_convex_block0_starts_as_two_bilinear_steps_and_reloads(self):
        """A new convex block0 (x2 convex, then bilinear) starts as bilinear x2 and then
        bilinear, to within bilinear_logits' floor. That is not one bilinear step (the two
        differ where the coarse samples' kinks fall between the finer ones), so the frames
        start near the source's, not at them. Its file loads back as a convex block0 that
        gives the same frames, the large-motion pass included (block0 at two scales, one
        upmask)."""
        source, grown, copied, zeroed = self.grown_convex(5, convex_block0=True)
        self.assertIn("block0.upmask.bias", copied)
        self.assertIn("block0.upmask.weight", zeroed)
        self.assertEqual(grown.config().get("convex_block0"), True)
        x = torch.rand(1, 6, 24, 40)
        t = torch.tensor([0.4])
        with torch.no_grad():
            coarse, _ = grown.block0.trunk(x, grown.film, t)
            up = grown.block0.upsampled(x, grown.film, t, 96, 160)
            two_steps = resize(resize(coarse, 24, 40), 96, 160)  # coarse: 12 x 20
            self.assertGreater(coarse.std().item(), 0.01)
            self.assertLess((up - two_steps).abs().max().item(), 0.01 * coarse.abs().max().item())
            a = source(self.img0, self.img1, 0.4, large_motion=True)
            b = grown(self.img0, self.img1, 0.4, large_motion=True)
            self.assertGreater(a.std().item(), 0.05)
            self.assertLess((a - b).abs().mean().item(), 5e-3)
            trained_like(grown.block0.upmask, 6)  # away from bilinear, so the reload shows
            back = load_model(self.saved(grown, "convex0"))
            self.assertEqual(back.block0.convex_up, 2)
            self.assertFalse(back.convex_up)
            self.assertTrue(torch.equal(grown(self.img0, self.img1, 0.4, large_motion=True),
                                        back(self.img0, self.img1, 0.4, large_motion=True)))

    def test_classic_to_tfact2_folds_the_t_plane_into_the_bias(self):
        """tfact2 has no t plane: its first conv's bias takes the plane's weights at t = 0.5,
        exact wherever the 3x3 window is inside the frame (the zero padding of the plane is
        what differs at the border ring)."""
        source = trained_like(FramecastNet("classic", 8, 12), 2)
        grown = FramecastNet("tfact2", 8, 12, film_hidden=8, refine_width=4)
        warm_start(grown, self.saved(source, "classic"))
        x = torch.rand(1, 6, 20, 24)
        with torch.no_grad():
            a = source.block0.conv0[0][0](torch.cat((x, torch.full((1, 1, 20, 24), 0.5)), 1))
            b = grown.block0.conv0[0][0](x)
        inner = (a - b)[..., 1:, 1:]  # stride 2: only the first row and column see padding
        self.assertLess(inner.abs().max().item(), 1e-5)
        self.assertGreater((a - b).abs().max().item(), 1e-3)
        self.assertTrue(torch.equal(grown.refine.c3.weight, torch.zeros_like(grown.refine.c3.weight)))

    def test_a_tfact2_quality_tier_from_a_classic_one_and_a_tfact2_fast_one(self):
        """--init q=QUALITY --init q=FAST: the refinement blocks come from the classic model,
        each first conv's t plane (its 13th input) folded into the bias at t = 0.5, and
        block0, FiLM and the refine head from the tfact2 model, which is read last."""
        quality = trained_like(FramecastNet("classic", 8, 12, blocks=[(6, 8, 2), (4, 6, 1)]), 5)
        fast = trained_like(FramecastNet("tfact2", 8, 12, film_hidden=8, refine_width=4,
                                         blocks=[(4, 6, 2)]), 6)
        grown = FramecastNet("tfact2", 8, 12, film_hidden=8, refine_width=4,
                             blocks=[(6, 8, 2), (4, 6, 1)])
        copied, zeroed = warm_start(grown, [self.saved(quality, "q"), self.saved(fast, "f")])
        self.assertTrue(torch.equal(grown.block0.conv0[0][0].weight, fast.block0.conv0[0][0].weight))
        self.assertTrue(torch.equal(grown.refine.c3.weight, fast.refine.c3.weight))
        self.assertTrue(torch.equal(grown.block2.lastconv.weight, quality.block2.lastconv.weight))
        self.assertIn("block1.film.2.weight", zeroed)  # new: FiLM starts as the identity
        self.assertNotIn("block1.lastconv.weight", zeroed)  # the classic model's, kept
        x = torch.rand(1, 17, 20, 24)
        with torch.no_grad():
            plane = torch.full((1, 1, 20, 24), 0.5)
            a = quality.block1.conv0[0][0](torch.cat((x[:, :12], plane, x[:, 12:]), 1))
            b = grown.block1.conv0[0][0](x)
        self.assertLess((a - b)[..., 1:, 1:].abs().max().item(), 1e-5)
        self.assertGreater((a - b).abs().max().item(), 1e-3)


class LossAndSpecTest(unittest.TestCase):
    def test_distillation_counts_only_where_the_teacher_is_better(self):
        flow = torch.zeros(1, 4, 2, 2)
        teacher = torch.full((1, 4, 2, 2), 20.0)  # 1 after the / 20 normalisation
        err = torch.tensor([[[[0.5, 0.5], [0.1, 0.1]]]])
        teacher_err = torch.full((1, 1, 2, 2), 0.2)  # better on the top row only
        loss = distill_loss(flow, teacher, err, teacher_err).item()
        self.assertAlmostEqual(loss, 0.5, places=4)  # half the pixels at ~1

    def test_weight_average_follows_its_formula_and_swaps_back(self):
        net = trained_like(FramecastNet("classic", 8, 12), 3)
        start = [p.detach().clone() for p in net.parameters()]
        ema = WeightAverage(net, 0.9)
        targets = []
        for k in range(3):  # stand-ins for optimizer steps: new weights, then the update
            with torch.no_grad():
                for p in net.parameters():
                    p.add_(0.01 * (k + 1))
            targets.append([p.detach().clone() for p in net.parameters()])
            ema.update()
        raw = targets[-1]
        for s0, w1, w2, w3, avg in zip(start, *targets, ema.shadow):
            want = ((s0 * 0.9 + 0.1 * w1) * 0.9 + 0.1 * w2) * 0.9 + 0.1 * w3
            self.assertLess((avg - want).abs().max().item(), 1e-6)
        averages = [a.clone() for a in ema.shadow]
        ema.swap()
        self.assertTrue(all(torch.equal(p, a) for p, a in zip(net.parameters(), averages)))
        self.assertTrue(all(torch.equal(s, r) for s, r in zip(ema.shadow, raw)))
        ema.swap()
        self.assertTrue(all(torch.equal(p, r) for p, r in zip(net.parameters(), raw)))

    def test_pan_validation_cuts_the_pan_sets_windows(self):
        big, small = make_frames(120, 90, seed=5)[0], make_frames(40, 30, seed=6)[0]
        triplets = [("a", {"frame0": big}), ("b", {"frame0": small}), ("c", {"frame0": big})]
        pans = pan_triplets(triplets, [8, 16])
        self.assertEqual(sorted(pans), [8, 16])
        for pan in (8, 16):
            self.assertEqual([name for name, _ in pans[pan]], ["a", "c"])  # b: 30 px is too small
            for index, (_, frames) in zip((0, 2), pans[pan]):
                want = pan_windows(big, pan, index, 16)
                for k in range(3):
                    self.assertTrue((frames[f"frame{k}"] == want[k]).all())
                self.assertEqual(frames["frame0"].shape, (74, 104, 3))

    def test_parse_model_specs(self):
        name, cfg, every = parse_model("q=classic:120:240+64:96:2+48:64:1@3")
        self.assertEqual((name, every), ("q", 3))
        self.assertEqual(cfg["blocks"], [(64, 96, 2), (48, 64, 1)])
        self.assertEqual(cfg["block0_scale"], 4)
        _, cfg, _ = parse_model("f=tfact2:60:120:32:16")
        self.assertEqual((cfg["film_hidden"], cfg["refine_width"], cfg["blocks"]), (32, 16, []))
        _, cfg, _ = parse_model("c=classic:120:240/8+96:160:4")
        self.assertEqual((cfg["c2"], cfg["block0_scale"], cfg["blocks"]), (240, 8, [(96, 160, 4)]))


def batch_loss(net, batch):
    """The trainer's frame losses on a batch, each a mean over its samples."""
    pred = net.forward_train(batch["img0"], batch["img1"], batch["t"], large_motion=True)["pred"]
    gt = batch["imgt"]
    return charb(pred - gt) + 0.5 * grad_loss(pred, gt) + 0.1 * census_loss(pred, gt)


def toy_net():
    return trained_like(FramecastNet("classic", 8, 12, blocks=[(6, 8, 2)]), 7)


def toy_batch(n):
    g = torch.Generator().manual_seed(8)
    frames = {k: torch.rand(n, 3, 32, 48, generator=g) for k in ("img0", "imgt", "img1")}
    return {**frames, "t": torch.rand(n, generator=g)}


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def rank_of_a_toy_run(rank, world, port, out):
    """A rank of a gloo group on the CPU: rank 0's clock, the sum of rank + 1 over the ranks,
    and the gradients of its share of toy_batch's samples averaged over the ranks, saved to
    out/RANK.pt."""
    os.environ.update(MASTER_ADDR="127.0.0.1", MASTER_PORT=str(port), WORLD_SIZE=str(world),
                      RANK=str(rank), LOCAL_RANK=str(rank))
    torch.set_num_threads(1)
    ranks = Ranks.from_env(torch.device("cpu"))
    net = toy_net()
    share = {k: v[rank::world] for k, v in toy_batch(2 * world).items()}
    batch_loss(net, share).backward()
    ranks.average_gradients(net.parameters())
    torch.save({"clock": ranks.from_main(10.0 + rank), "total": ranks.total(rank + 1),
                "grads": [p.grad for p in net.parameters()]}, os.path.join(out, f"{rank}.pt"))
    ranks.close()


class DataParallelTest(unittest.TestCase):
    def test_shares_of_the_data_are_disjoint_and_cover_it(self):
        items = list(range(7))
        shares = [Ranks(world=3, rank=r).share(items) for r in range(3)]
        self.assertEqual(sorted(sum(shares, [])), items)
        self.assertEqual(shares[1], [1, 4])
        self.assertEqual(Ranks(world=3, rank=2).share(["a", "b"]), ["a", "b"])  # none: all
        self.assertEqual(Ranks().share(items), items)

    def test_each_rank_draws_its_own_batches(self):
        mix = (("real", 0.35),)
        seeds = {data_seed(18, "r30", mix, rank) for rank in range(8)}
        self.assertEqual(len(seeds), 8)
        self.assertNotIn(data_seed(18, "r30", (), 0), seeds)  # nor the run's other mixes

    def test_two_ranks_agree_on_the_clock_and_average_their_gradients(self):
        """Two ranks, a batch of two samples each: both read rank 0's clock, count over both,
        and after averaging hold the gradient of the four samples together in one process
        (what one step on the whole batch uses)."""
        world = 2
        net = toy_net()
        batch_loss(net, toy_batch(2 * world)).backward()
        whole = [p.grad for p in net.parameters()]
        net = toy_net()
        batch_loss(net, {k: v[0::world] for k, v in toy_batch(2 * world).items()}).backward()
        alone = [p.grad for p in net.parameters()]  # rank 0's own gradient: far from whole
        self.assertGreater(max((a - w).abs().max().item() for a, w in zip(alone, whole)), 1e-3)
        with tempfile.TemporaryDirectory() as out:
            torch.multiprocessing.spawn(rank_of_a_toy_run,
                                        args=(world, free_port(), out), nprocs=world)
            for rank in range(world):
                got = torch.load(os.path.join(out, f"{rank}.pt"))
                self.assertEqual((got["clock"], got["total"]), (10.0, 1 + 2))
                self.assertEqual(len(got["grads"]), len(whole))
                for a, w in zip(got["grads"], whole):
                    self.assertLess((a - w).abs().max().item(), 1e-6 + 1e-4 * w.abs().max().item())


class TrainerRunTest(unittest.TestCase):
    """train.py's main loop on the CPU, as a device call runs it, at toy sizes."""

    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.TemporaryDirectory()
        cls.pool = os.path.join(cls.tmp.name, "pool")
        make_pool(cls.pool)
        cls.clips = os.path.join(cls.tmp.name, "clips")
        write_clips(cls.clips, {f"pan-{r}": panned(80, 72, 8, seed=10 + r) for r in range(3)})
        cls.src = os.path.join(cls.tmp.name, "src.safetensors")
        save_safetensors(trained_like(FramecastNet("classic", 8, 12, blocks=[(6, 8, 2)]), 3),
                         cls.src)

    @classmethod
    def tearDownClass(cls):
        cls.tmp.cleanup()

    def train(self, out, *models, launcher=()):
        cmd = [sys.executable, *launcher, os.path.join(HERE, "train.py"), "--out", out,
               "--pool", self.pool,
               "--val", "", "--device", "cpu", "--max-steps", "3", "--batch", "2", "--size", "64",
               "--bank", "8", "--compile-census", "0", "--log-every", "1", "--reuse", "2",
               "--ema", "0.9", "--large-motion", "1", "--flow-w", "0", "--minutes", "1", *models]
        return subprocess.run(cmd, capture_output=True, text=True, timeout=300)

    def test_a_run_writes_models_that_load_and_resume(self):
        out, distill = os.path.join(self.tmp.name, "run1"), {}
        r = self.train(out, "--model", "q=classic:8:12+6:8:2", "--resume", f"q={self.src}",
                       "--model", "c=classic:8:12/8+6:10:4+6:8:2", "--init", f"c={self.src}",
                       "--init-rename", "c=block1>block2", "--mse", "c=10",
                       "--model", "f=tfact2:8:12", "--distill", "f=q")
        self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
        for name, scales in (("q", [4, 2]), ("c", [8, 4, 2]), ("f", [4])):
            path = os.path.join(out, f"{name}.safetensors")
            self.assertEqual(load_model(path).scales, scales)
            meta = read_tensors(path)[1]
            self.assertEqual(json.loads(meta["steps"]), 3)
            last = json.loads(meta["history"])[-1]
            self.assertEqual(last.get("mse_w"), 10.0 if name == "c" else None)
            with open(os.path.join(out, f"{name}.log.json")) as f:
                row = json.load(f)["log"][-1]
            # the total is the sum of the weighted terms: the MSE term counts for c alone
            rest = row["loss"] - row["loss_rec"] - 0.5 * row["loss_grad"] \
                - 0.1 * row["loss_census"] - 0.05 * row["loss_distill"]
            self.assertAlmostEqual(rest, 10 * row["loss_mse"] if name == "c" else 0.0, delta=2e-4)
            distill[name] = row["loss_distill"]
        self.assertGreater(distill["f"], 0.0)  # f learns q's flow
        again = self.train(os.path.join(self.tmp.name, "run2"), "--model",
                           "c=classic:8:12/8+6:10:4+6:8:2", "--resume", f"c={out}/c.safetensors")
        self.assertEqual(again.returncode, 0, again.stdout + again.stderr)
        meta = read_tensors(os.path.join(self.tmp.name, "run2", "c.safetensors"))[1]
        self.assertEqual(json.loads(meta["steps"]), 6)
        # --init from one file carries its lineage: its runs and totals, then the init
        grown = self.train(os.path.join(self.tmp.name, "run4"), "--model",
                           "c=classic:8:12/8+6:10:4+6:8:2", "--init", f"c={out}/c.safetensors")
        self.assertEqual(grown.returncode, 0, grown.stdout + grown.stderr)
        meta = read_tensors(os.path.join(self.tmp.name, "run4", "c.safetensors"))[1]
        self.assertEqual(json.loads(meta["steps"]), 6)
        history = json.loads(meta["history"])
        self.assertEqual(history[:-2], json.loads(read_tensors(f"{out}/c.safetensors")[1]["history"]))
        self.assertEqual(history[-2]["init_from"], "c.safetensors")
        wrong = self.train(os.path.join(self.tmp.name, "run3"), "--model",
                           "c=classic:8:12+6:10:4+6:8:2", "--resume", f"c={out}/c.safetensors")
        self.assertNotEqual(wrong.returncode, 0)
        self.assertIn("block0_scale=8", wrong.stderr)

    def test_a_convex_block0_trains_and_resumes_only_as_one(self):
        out = os.path.join(self.tmp.name, "cx0")
        spec = ["--model", "f=tfact2:8:12+6:8:2", "--convex-up", "f", "--convex-block0", "f"]
        r = self.train(out, *spec)
        self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
        net = load_model(os.path.join(out, "f.safetensors"))
        self.assertEqual((net.block0.convex_up, net.block1.convex_up), (2, 4))
        again = self.train(out + "b", *spec, "--resume", f"f={out}/f.safetensors")
        self.assertEqual(again.returncode, 0, again.stdout + again.stderr)
        wrong = self.train(out + "c", *spec[:4], "--resume", f"f={out}/f.safetensors")
        self.assertNotEqual(wrong.returncode, 0)
        self.assertIn("convex_block0=True", wrong.stderr)

    def test_wall_minutes_shorten_the_budget_or_refuse_to_start(self):
        cut = self.train(os.path.join(self.tmp.name, "wall1"), "--model", "f=tfact2:8:12",
                         "--minutes", "10", "--wall-minutes", "2")
        self.assertEqual(cut.returncode, 0, cut.stdout + cut.stderr)
        m = re.search(r"training budget cut to (\d+) s: --wall-minutes 2\.0 after", cut.stdout)
        self.assertIsNotNone(m, cut.stdout)
        self.assertLessEqual(int(m.group(1)), 120)  # 2 minutes less the set-up, not 600 s
        late = self.train(os.path.join(self.tmp.name, "wall2"), "--model", "f=tfact2:8:12",
                          "--wall-minutes", "0.0001")
        self.assertNotEqual(late.returncode, 0)
        self.assertIn("no time is left to train", late.stderr)

    def test_two_processes_under_torchrun_train_one_model(self):
        """Both ranks take every step (samples count both), end with the same weights and
        weight average, and rank 0 alone writes the models and the summary."""
        out = os.path.join(self.tmp.name, "ddp")
        # Debian's torch 1.13 on Python 3.11 reads torchrun's default --redirects and --tee
        # ("0") as None and fails at launch; 1 (stdout into a log file, and to the console too)
        # is read right
        torchrun = ["-m", "torch.distributed.run", "--standalone", "--nproc_per_node", "2",
                    "--redirects", "1", "--tee", "1", "--log_dir", os.path.join(out, "torchrun")]
        r = self.train(out, "--model", "q=classic:8:12+6:8:2", "--model", "f=tfact2:8:12",
                       "--distill", "f=q", "--data", "q=real=0.5", "--data", "f=real=0.5",
                       "--clips", self.clips, "--real-size", "64", launcher=torchrun)
        self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
        written = sorted(f for f in os.listdir(out) if f != "torchrun")
        self.assertEqual(written, ["f.log.json", "f.safetensors", "q.log.json", "q.safetensors",
                                   "summary.json"])
        with open(os.path.join(out, "summary.json")) as f:
            summary = json.load(f)
        self.assertEqual((summary["ranks"], summary["steps"]), (2, 3))
        self.assertEqual(summary["samples"], 3 * 2 * 2)  # steps x batch x ranks
        self.assertEqual(summary["generated"], 2 * 2 * 2)  # --reuse 2: new batches at 0 and 2
        for name in ("q", "f"):
            self.assertEqual(summary["models"][name]["rank_weight_deviation"], 0.0)
            meta = read_tensors(os.path.join(out, f"{name}.safetensors"))[1]
            self.assertEqual(json.loads(meta["samples"]), 12)
            self.assertEqual(json.loads(meta["history"])[-1]["ranks"], 2)
        self.assertEqual(r.stdout.count("trained 3 steps, 12 samples"), 1)


if __name__ == "__main__":
    unittest.main()
