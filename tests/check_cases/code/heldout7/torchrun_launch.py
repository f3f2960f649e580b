# atlas-check: --from 2.13 --to 2.15
"""Entry point for torchrun jobs: process groups, FSDP2 wrapping and the comm self-check.

Run with: torchrun --nproc-per-node=8 torchrun_launch.py --config configs/7b.yaml
"""
import argparse
import logging
import os
from datetime import timedelta

import torch
import torch.distributed as dist
from torch.distributed.fsdp import MixedPrecisionPolicy, fully_shard

log = logging.getLogger("launch")


def parse_args():
    p = argparse.ArgumentParser()
    p.add_argument("--config", required=True)
    p.add_argument("--backend", default="nccl", help="process group backend, e.g. nccl or gloo")
    p.add_argument("--tp", type=int, default=1)
    p.add_argument("--bind-device", action="store_true")
    return p.parse_args()


def setup_distributed(args):
    local_rank = int(os.environ["LOCAL_RANK"])
    torch.cuda.set_device(local_rank)
    if args.bind_device:
        dist.init_process_group(backend=args.backend, device_id=torch.device("cuda", local_rank))  # expect: call 215-nccl-default
    else:
        dist.init_process_group(backend="NCCL", timeout=timedelta(minutes=30))  # expect: call 215-nccl-default; call 215-nccl-device-binding
    log.info("rank %d joined (init_process_group backend=%s)", dist.get_rank(), args.backend)
    return local_rank


def build_tp_groups(tp):
    world = dist.get_world_size()
    rank = dist.get_rank()
    mine = None
    for start in range(0, world, tp):
        ranks = list(range(start, start + tp))
        group = dist.new_group(ranks)  # expect: call 215-nccl-eager-communicators
        if rank in ranks:
            mine = group
    # one CPU group for the object collectives of the data loader
    cpu_group = dist.new_group(backend="gloo")
    # created on every rank so that the ids line up; used only by the profiler hooks
    _unused = dist.new_group(ranks=[0])  # atlas: ignore[215-nccl-eager-communicators]
    return mine, cpu_group


def nccl_backend_of(group):
    backend = group._get_backend(torch.device("cuda"))
    if isinstance(backend, dist.ProcessGroupNCCL):  # expect: isinstance 215-nccl-backend-class
        return backend
    return None


def report_comm_health(group):
    backend = nccl_backend_of(group)
    if backend is None:
        log.warning("not an NCCL group; skipping split stats")
        return
    log.info("communicator splits so far: %d", backend.comm_split_count())  # expect: method 215-nccl-backend-class


def shard_model(model, bf16=True):
    if bf16:
        policy = MixedPrecisionPolicy(param_dtype=torch.bfloat16)  # expect: call 215-fsdp2-reduce-dtype
    else:
        policy = MixedPrecisionPolicy(param_dtype=torch.float32, reduce_dtype=torch.float32)
    for block in model.layers:
        fully_shard(block, mp_policy=policy)
    fully_shard(model, mp_policy=policy)
    return model


def train_step(model, batch, optimizer):
    loss = model(**batch).loss
    # guard against a diverging batch blowing up the scaler
    loss = loss.clamp(max=1e4)  # expect: method 214-clamp-grad
    loss.backward()
    optimizer.step()
    optimizer.zero_grad(set_to_none=True)
    return loss.detach()


def main():
    args = parse_args()
    setup_distributed(args)
    tp_group, _ = build_tp_groups(args.tp)
    report_comm_health(tp_group)
    dist.destroy_process_group()


if __name__ == "__main__":
    main()
