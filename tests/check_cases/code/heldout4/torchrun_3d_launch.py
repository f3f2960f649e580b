# atlas-check: --from 2.14 --to 2.15
"""Entry point started by torchrun for the 3D-parallel pretraining job.

    torchrun --nnodes 4 --nproc-per-node 8 --rdzv-backend c10d --rdzv-endpoint $HEAD:29500 \
        torchrun_3d_launch.py --config configs/7b.yaml --tp 8 --pp 4

Sets up the default process group, the tensor-parallel groups and a CPU group, and the
torch.distributed config knobs that the pipeline schedule reads. See docs/ops/nccl.md for
why this job opted into the rewritten NCCL backend (the ProcessGroupNCCL replacement) early.
"""
import argparse
import logging
import os
from datetime import timedelta

import torch
import torch.distributed as dist
import torch.distributed.config as dist_config
import yaml
from torch.distributed import ProcessGroupNCCL

log = logging.getLogger("launch")

# Opt into the rewritten NCCL backend that 2.14 ships as a preview.
os.environ.setdefault("TORCH_DIST_USE_NCCL2", "1")  # expect: env 215-nccl-default
os.environ.setdefault("NCCL_DEBUG", "WARN")
os.environ.setdefault("TORCH_NCCL_ASYNC_ERROR_HANDLING", "3")

# Applied to torch.distributed.config before the process group exists.
PP_OVERRIDES = {
    "pipeline_per_direction_p2p": True,  # expect: string 215-pipeline-per-edge-p2p
}


def parse_args():
    p = argparse.ArgumentParser(description="3D-parallel launcher")
    p.add_argument("--config", required=True)
    p.add_argument("--backend", default="nccl", help="backend of the default group (nccl or gloo)")
    p.add_argument("--tp", type=int, default=8)
    p.add_argument("--pp", type=int, default=4)
    p.add_argument("--timeout-min", type=int, default=30)
    p.add_argument("--split-p2p", action="store_true", help="separate p2p communicators for each pipeline direction")
    return p.parse_args()


def apply_dist_config(args):
    for key, value in PP_OVERRIDES.items():
        setattr(dist_config, key, value)
    if args.split_p2p:
        dist_config.pipeline_per_direction_p2p = True  # expect: name 215-pipeline-per-edge-p2p
    log.info("p2p split: %s", getattr(dist_config, "pipeline_per_direction_p2p", None))  # expect: string 215-pipeline-per-edge-p2p


def build_groups(rank: int, world_size: int, tp: int):
    tp_group = None
    for start in range(0, world_size, tp):
        ranks = list(range(start, start + tp))
        group = dist.new_group(ranks=ranks)  # expect: call 215-nccl-eager-communicators
        if rank in ranks:
            tp_group = group
    # Barriers and object collectives run on gloo so they never touch the GPUs.
    cpu_group = dist.new_group(backend="gloo")
    return tp_group, cpu_group


def describe_backend(group) -> None:
    impl = group._get_backend(torch.device("cuda"))
    if isinstance(impl, ProcessGroupNCCL):  # expect: isinstance 215-nccl-backend-class
        splits = impl.comm_split_count()  # expect: method 215-nccl-backend-class
        log.info("tp group on ProcessGroupNCCL, comm_split_count=%d", splits)
    else:
        log.info("tp group on %s", type(impl).__name__)


def main():
    args = parse_args()
    with open(args.config) as f:
        cfg = yaml.safe_load(f)
    local_rank = int(os.environ["LOCAL_RANK"])
    logging.basicConfig(level=logging.INFO, format=f"[rank{os.environ.get('RANK', '?')}] %(message)s")

    apply_dist_config(args)
    dist.init_process_group(backend=args.backend, timeout=timedelta(minutes=args.timeout_min))  # expect: call 215-nccl-default; call 215-nccl-device-binding
    rank, world_size = dist.get_rank(), dist.get_world_size()
    if world_size % (args.tp * args.pp):
        raise SystemExit(f"world size {world_size} is not divisible by tp*pp={args.tp * args.pp}")

    tp_group, cpu_group = build_groups(rank, world_size, args.tp)
    describe_backend(tp_group)

    device = torch.device("cuda", local_rank)
    probe = torch.ones(1, device=device)
    dist.all_reduce(probe, group=tp_group)
    assert int(probe.item()) == args.tp, "tensor-parallel group is mis-sized"
    dist.barrier(group=cpu_group)

    from trainer import run  # project-local; imports the model code lazily
    run(cfg, tp_group=tp_group, cpu_group=cpu_group, device=device)
    dist.destroy_process_group()


if __name__ == "__main__":
    main()
