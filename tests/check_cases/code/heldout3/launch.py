# atlas-check: --from 2.13 --to 2.15
"""launch.py: one entry point for single-node, multi-node and CPU-only jobs.

    torchrun --nnodes=4 --nproc-per-node=8 launch.py --backend nccl train.yaml
    python launch.py --backend gloo --cpu smoke.yaml
"""
import argparse
import datetime
import logging
import os

import torch
import torch.distributed as dist
import yaml

log = logging.getLogger("launch")

BACKENDS = ["nccl", "nccl2", "gloo", "mpi", "xccl"]


def parse_args(argv=None):
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("config")
    p.add_argument("--backend", default="nccl", choices=BACKENDS, help="torch.distributed backend")
    p.add_argument("--legacy-nccl", action="store_true", help="export TORCH_DIST_USE_NCCL2=0 before the process group is created")
    p.add_argument("--bind-device", action="store_true", help="pass device_id to init_process_group")
    p.add_argument("--cpu", action="store_true")
    p.add_argument("--timeout-min", type=int, default=30)
    p.add_argument("--pp-stages", type=int, default=1)
    return p.parse_args(argv)


def apply_dist_config(cfg: dict) -> None:
    """Copy keys of the `distributed:` section of the YAML onto torch.distributed.config."""
    import torch.distributed.config as dcfg
    for k, v in cfg.items():
        setattr(dcfg, k, v)


DEFAULT_DIST_CONFIG = {
    "pipeline_per_direction_p2p": True,  # expect: string 215-pipeline-per-edge-p2p
    "compile_on_one_rank": False,
}


def init_distributed(args) -> torch.device:
    timeout = datetime.timedelta(minutes=args.timeout_min)
    if args.cpu:
        dist.init_process_group("gloo", timeout=timeout)
        return torch.device("cpu")
    if args.legacy_nccl:
        os.environ["TORCH_DIST_USE_NCCL2"] = "0"  # expect: env 215-nccl-default
    local_rank = int(os.environ.get("LOCAL_RANK", 0))
    device = torch.device("cuda", local_rank)
    if args.bind_device:
        dist.init_process_group(backend=args.backend, timeout=timeout, device_id=device)  # expect: call 215-nccl-default
    else:
        torch.cuda.set_device(device)
        dist.init_process_group(backend=args.backend, timeout=timeout)  # expect: call 215-nccl-default; call 215-nccl-device-binding
    log.info("rank %d/%d on %s, backend=%s", dist.get_rank(), dist.get_world_size(), device, dist.get_backend())
    return device


def stage_groups(args):
    world = dist.get_world_size()
    per_stage = world // args.pp_stages
    groups = []
    for s in range(args.pp_stages):
        ranks = list(range(s * per_stage, (s + 1) * per_stage))
        groups.append(dist.new_group(ranks, backend=args.backend))  # expect: call 215-nccl-eager-communicators
    return groups


def main(argv=None):
    args = parse_args(argv)
    with open(args.config) as f:
        cfg = yaml.safe_load(f)
    apply_dist_config({**DEFAULT_DIST_CONFIG, **cfg.get("distributed", {})})
    device = init_distributed(args)
    groups = stage_groups(args) if args.pp_stages > 1 else []
    from trainer import Trainer  # project package
    Trainer(cfg, device=device, stage_groups=groups).fit()
    dist.destroy_process_group()


if __name__ == "__main__":
    main()
