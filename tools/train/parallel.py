"""Data-parallel training: train.py under torchrun, one process (rank) per GPU.

Each rank trains on its own batches; the gradients are averaged over the ranks before clipping,
so every rank takes the same optimiser step and holds the same weights (and weight average)
throughout, and rank 0 alone validates and writes. torchrun sets WORLD_SIZE, RANK and
LOCAL_RANK; without them, or with WORLD_SIZE=1, every method here returns at once and train.py
runs as a single process always has.

Explicit all-reduces rather than DistributedDataParallel: the trainer calls forward_train (not
forward, which DDP wraps), trains several models on one batch, some of them on every k-th step
only, and students read their teachers' outputs. The price: one flat all-reduce per model after
its backward (22 MB for the shipped models), not overlapped with the backward as DDP's buckets
are; over NVLink that should be small next to a step (not yet measured).
"""
import os

import torch
import torch.distributed as dist


def flat(tensors):
    return torch.cat([t.detach().reshape(-1) for t in tensors])


def unflatten_into(buffer, tensors):
    for t, part in zip(tensors, buffer.split([t.numel() for t in tensors])):
        t.copy_(part.view_as(t))


class Ranks:
    def __init__(self, world=1, rank=0, local_rank=0):
        self.world, self.rank, self.local_rank = world, rank, local_rank
        self.main = rank == 0
        self.control = None
        self.device = None

    @classmethod
    def from_env(cls, device):
        """The ranks torchrun started, their process group joined (NCCL on CUDA, gloo on the
        CPU), plus a gloo group for the clock and counters: kept on the CPU, they cost no GPU
        synchronisation. device: the one asked for; .device: this rank's (on CUDA, the GPU of
        its local rank)."""
        ranks = cls(int(os.environ.get("WORLD_SIZE", 1)), int(os.environ.get("RANK", 0)),
                    int(os.environ.get("LOCAL_RANK", 0)))
        ranks.device = device
        if ranks.world > 1:
            if device.type == "cuda":
                ranks.device = torch.device("cuda", ranks.local_rank)
                torch.cuda.set_device(ranks.device)
            dist.init_process_group("nccl" if device.type == "cuda" else "gloo")
            ranks.control = dist.new_group(backend="gloo")
        return ranks

    def share(self, items):
        """This rank's items (every world-th, from its rank on): disjoint shares of the data.
        A rank that would get none gets all of them: some overlap beats a rank without data."""
        return items[self.rank::self.world] or items

    def from_main(self, value):
        """Rank 0's float on every rank: the wall clock that sets the schedule and the stop,
        on which the ranks must agree (or their weights drift apart, or some stop while others
        wait for them)."""
        if self.world == 1:
            return value
        t = torch.tensor([value], dtype=torch.float64)
        dist.broadcast(t, 0, group=self.control)
        return t.item()

    def total(self, count):
        """An integer summed over the ranks."""
        if self.world == 1:
            return count
        t = torch.tensor([count], dtype=torch.int64)
        dist.all_reduce(t, group=self.control)
        return int(t.item())

    def average(self, tensors):
        """Each tensor's mean over the ranks (tensors of one shape, device and dtype)."""
        if self.world == 1:
            return tensors
        stacked = torch.stack([t.detach() for t in tensors])
        dist.all_reduce(stacked)
        return list((stacked / self.world).unbind())

    def average_gradients(self, params):
        """Replace each gradient by its mean over the ranks: with losses that are means over
        the batch, the gradient of the batch of all ranks together. Which parameters have a
        gradient depends on the model's structure alone, so it is the same set on every rank."""
        if self.world == 1:
            return
        grads = [p.grad for p in params if p.grad is not None]
        buffer = flat(grads)
        dist.all_reduce(buffer)
        unflatten_into(buffer.div_(self.world), grads)

    def broadcast(self, tensors):
        """Rank 0's values into tensors on every rank (the starting weights)."""
        if self.world == 1:
            return
        buffer = flat(tensors)
        dist.broadcast(buffer, 0)
        with torch.no_grad():
            unflatten_into(buffer, tensors)

    def deviation(self, tensors):
        """The largest absolute difference of tensors from rank 0's, over every rank: 0 when
        the ranks hold the same weights, as they should."""
        if self.world == 1:
            return 0.0
        mine = flat(tensors)
        reference = mine.clone()
        dist.broadcast(reference, 0)
        worst = (mine - reference).abs().max()
        dist.all_reduce(worst, op=dist.ReduceOp.MAX)
        return worst.item()

    def close(self):
        if self.world > 1:
            dist.destroy_process_group()
