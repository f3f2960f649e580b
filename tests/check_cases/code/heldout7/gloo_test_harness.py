# atlas-check: --from 2.12 --to 2.15
"""CPU-only multi-process harness for the distributed unit tests.

Every worker joins a gloo group; a few tests also build an NCCL subgroup when the runner has
GPUs. Checkpoints go through torch.distributed.checkpoint.
"""
import os
import tempfile
import unittest
from datetime import timedelta

import torch
import torch.distributed as dist
import torch.distributed.checkpoint as dcp
import torch.multiprocessing as mp


def _init_worker(rank, world_size, port):
    os.environ["MASTER_ADDR"] = "127.0.0.1"
    os.environ["MASTER_PORT"] = str(port)
    dist.init_process_group(
        "gloo", rank=rank, world_size=world_size, timeout=timedelta(seconds=120)
    )


def _run(rank, world_size, port, fn, ckpt_dir):
    _init_worker(rank, world_size, port)
    try:
        fn(rank, world_size, ckpt_dir)
    finally:
        dist.destroy_process_group()


def check_subgroups(rank, world_size, ckpt_dir):
    evens = dist.new_group(ranks=list(range(0, world_size, 2)))
    everyone = dist.new_group()
    cpu_pairs = dist.new_group(ranks=[0, 1], backend="gloo")
    t = torch.ones(4) * rank
    dist.all_reduce(t, group=everyone)
    if rank % 2 == 0:
        dist.all_reduce(t, group=evens)
    if rank < 2:
        dist.barrier(group=cpu_pairs)
    assert t[0].item() >= 0


def check_gpu_subgroup(rank, world_size, ckpt_dir):
    if not torch.cuda.is_available():
        return
    gpu_group = dist.new_group(ranks=list(range(world_size)), backend="nccl")  # expect: call 215-nccl-eager-communicators
    x = torch.full((2,), float(rank), device=f"cuda:{rank % torch.cuda.device_count()}")
    dist.all_reduce(x, group=gpu_group)


def check_checkpoint_roundtrip(rank, world_size, ckpt_dir):
    model = torch.nn.Linear(8, 8)
    state = {"model": model.state_dict(), "step": torch.tensor(rank)}
    dcp.save(state, checkpoint_id=ckpt_dir)  # expect: call 215-dcp-strides
    restored = {"model": torch.nn.Linear(8, 8).state_dict(), "step": torch.tensor(-1)}
    dcp.load(restored, checkpoint_id=ckpt_dir)
    for k, v in restored["model"].items():
        torch.testing.assert_close(v, state["model"][k])


def check_async_checkpoint(rank, world_size, ckpt_dir):
    state = {"w": torch.randn(16, 16)}
    fut = dcp.async_save(state, checkpoint_id=os.path.join(ckpt_dir, "async"))  # expect: call 215-dcp-strides
    fut.result()


def check_bucket_ids(rank, world_size, ckpt_dir):
    # integer ids: no gradient, so the clamp change cannot matter
    ids = torch.randint(0, 1000, (64,))
    ids.clamp_(max=world_size * 100 - 1)
    owners = torch.div(ids, 100, rounding_mode="floor")
    assert int(owners.max()) < world_size
    # a float statistic that is part of the loss in the real trainer
    share = torch.bincount(owners, minlength=world_size).float() / ids.numel()
    weight = share.clamp(min=1e-3)  # expect: method 214-clamp-grad
    assert weight.sum() > 0


class DistributedHarnessTest(unittest.TestCase):
    world_size = 4

    def _spawn(self, fn):
        with tempfile.TemporaryDirectory() as d:
            port = 29500 + os.getpid() % 1000
            mp.spawn(_run, args=(self.world_size, port, fn, d), nprocs=self.world_size, join=True)

    def test_subgroups(self):
        self._spawn(check_subgroups)

    def test_gpu_subgroup(self):
        self._spawn(check_gpu_subgroup)

    def test_checkpoint(self):
        self._spawn(check_checkpoint_roundtrip)

    def test_async_checkpoint(self):
        self._spawn(check_async_checkpoint)

    def test_bucket_ids(self):
        self._spawn(check_bucket_ids)


if __name__ == "__main__":
    unittest.main()
