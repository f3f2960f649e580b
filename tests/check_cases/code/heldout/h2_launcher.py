# atlas-check: --from 2.14 --to 2.15
"""Multi-node launcher used by our SLURM jobs."""
import datetime
import os
import subprocess
import sys

import torch
import torch.distributed as dist


def init_distributed(args):
    backend = "nccl" if torch.cuda.is_available() else "gloo"
    dev = torch.device("cuda", int(os.environ.get("LOCAL_RANK", 0)))
    dist.init_process_group(  # expect: call 215-nccl-default
        backend=backend,
        timeout=datetime.timedelta(minutes=30),
        device_id=dev,
    )
    return dist.get_rank(), dist.get_world_size()


def init_mixed():
    # CPU collectives on gloo, GPU ones on the old NCCL while we validate the new one
    dist.init_process_group("cuda:nccl-legacy,cpu:gloo")  # expect: string 215-nccl-default


def init_default():
    dist.init_process_group()  # expect: call 215-nccl-default; call 215-nccl-device-binding


def relaunch_with_old_backend(cmd):
    env = dict(os.environ, TORCH_DIST_USE_NCCL2="0")  # expect: env 215-nccl-default
    env2 = {**os.environ, "TORCH_DIST_USE_NCCL2": "0"}  # expect: env 215-nccl-default
    subprocess.run(["bash", "-c", "TORCH_DIST_USE_NCCL2=0 torchrun --nproc-per-node=8 " + cmd], env=env, check=True)  # expect: env 215-nccl-default
    return env2


def tp_groups(world, tp):
    groups = []
    for start in range(0, world, tp):
        groups.append(dist.new_group(list(range(start, start + tp)), backend="nccl"))  # expect: call 215-nccl-eager-communicators
    return groups


if __name__ == "__main__":
    print("TORCH_DIST_USE_NCCL2 is documented in the runbook", file=sys.stderr)
    init_distributed(sys.argv)
