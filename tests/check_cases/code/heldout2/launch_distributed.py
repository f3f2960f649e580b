# atlas-check: --from 2.14 --to 2.15
"""Process-group setup for torchrun jobs (data, tensor and pipeline parallel).

torchrun sets RANK, LOCAL_RANK, WORLD_SIZE, MASTER_ADDR and MASTER_PORT. If the new NCCL
implementation misbehaves, run with --legacy-nccl, which exports TORCH_DIST_USE_NCCL2=0
before the group is created (or use backend="nccl-legacy" in the YAML config).
"""
import argparse
import datetime
import logging
import os

import torch
import torch.distributed as dist
from torch.distributed import config as dist_config

log = logging.getLogger("launch")

TIMEOUT = datetime.timedelta(minutes=30)


def parse_args(argv=None):
    p = argparse.ArgumentParser()
    p.add_argument("--backend", default="nccl", choices=["nccl", "gloo", "nccl-legacy"])
    p.add_argument("--tp", type=int, default=8)
    p.add_argument("--pp", type=int, default=1)
    p.add_argument("--legacy-nccl", action="store_true")
    p.add_argument("--per-direction-p2p", action="store_true")
    return p.parse_args(argv)


def env_int(name: str, default: int) -> int:
    return int(os.environ.get(name, default))


def init_distributed(args):
    local_rank = env_int("LOCAL_RANK", 0)
    if args.legacy_nccl:
        os.environ["TORCH_DIST_USE_NCCL2"] = "0"  # expect: env 215-nccl-default
    os.environ.setdefault("NCCL_DEBUG", "WARN")
    os.environ.setdefault("TORCH_NCCL_ASYNC_ERROR_HANDLING", "1")

    dist.init_process_group(backend=args.backend, timeout=TIMEOUT)  # expect: call 215-nccl-default; call 215-nccl-device-binding
    torch.cuda.set_device(local_rank)
    log.info("rank %d/%d on cuda:%d", dist.get_rank(), dist.get_world_size(), local_rank)
    return local_rank


def init_hybrid(local_rank: int):
    """CPU collectives on gloo, GPU collectives on NCCL, bound to this rank's device."""
    dist.init_process_group(  # expect: call 215-nccl-default
        "cuda:nccl,cpu:gloo",
        timeout=TIMEOUT,
        device_id=torch.device("cuda", local_rank),
    )


def init_for_ci():
    # CPU-only runners in CI
    dist.init_process_group(backend="gloo", timeout=TIMEOUT)


def init_fallback_old_nccl():
    dist.init_process_group(backend="nccl-legacy", timeout=TIMEOUT)  # expect: keyword 215-nccl-default


def build_groups(tp: int, pp: int):
    world = dist.get_world_size()
    rank = dist.get_rank()
    tp_group = dp_group = None
    for start in range(0, world, tp):
        ranks = list(range(start, start + tp))
        g = dist.new_group(ranks=ranks, timeout=TIMEOUT)  # expect: call 215-nccl-eager-communicators
        if rank in ranks:
            tp_group = g
    for i in range(tp):
        ranks = list(range(i, world, tp))
        g = dist.new_group(ranks, backend="gloo")
        if rank in ranks:
            dp_group = g
    return tp_group, dp_group


def describe_backend(group=None):
    impl = dist.get_backend_impl(group)
    if isinstance(impl, dist.ProcessGroupNCCL):  # expect: isinstance 215-nccl-backend-class
        log.info("NCCL communicator splits so far: %d", impl.comm_split_count())  # expect: method 215-nccl-backend-class
    log.info("backend name: %s", dist.get_backend(group))


def configure_pipeline(args):
    if args.per_direction_p2p:
        dist_config.pipeline_per_direction_p2p = True  # expect: name 215-pipeline-per-edge-p2p


def main(argv=None):
    args = parse_args(argv)
    local_rank = init_distributed(args)
    configure_pipeline(args)
    tp_group, dp_group = build_groups(args.tp, args.pp)
    describe_backend(tp_group)
    x = torch.ones(1, device=f"cuda:{local_rank}")
    dist.all_reduce(x, group=dp_group)
    dist.barrier()
    dist.destroy_process_group()


if __name__ == "__main__":
    main()
