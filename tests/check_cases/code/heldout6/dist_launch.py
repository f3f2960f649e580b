# atlas-check: --from 2.14 --to 2.15
"""Distributed bootstrap for every job in the monorepo (torchrun or SLURM).

Call setup() first thing in main(); it returns the groups the parallelism helpers expect.
"""
import importlib
import logging
import os
import sys
from dataclasses import dataclass
from datetime import timedelta
from typing import List, Optional

import torch
import torch.distributed as dist
import torch.distributed.checkpoint as dcp
from torch.distributed import ProcessGroupGloo, ProcessGroupNCCL

log = logging.getLogger(__name__)


@dataclass
class Groups:
    world: Optional[dist.ProcessGroup]
    data_parallel: Optional[dist.ProcessGroup]
    cpu: Optional[dist.ProcessGroup]


def _env_int(name: str, default: int) -> int:
    return int(os.environ.get(name, default))


def init_default(timeout_min: int = 30) -> int:
    local_rank = _env_int("LOCAL_RANK", 0)
    if torch.cuda.is_available():
        torch.cuda.set_device(local_rank)
        dist.init_process_group(backend="NCCL", timeout=timedelta(minutes=timeout_min))  # expect: call 215-nccl-default; call 215-nccl-device-binding
    else:
        dist.init_process_group(backend="gloo", timeout=timedelta(minutes=timeout_min))
    return local_rank


def init_bound(local_rank: int):
    device = torch.device("cuda", local_rank)
    dist.init_process_group("nccl", device_id=device)  # expect: call 215-nccl-default


def init_from_env():
    # torchrun sets everything; the backend comes from the launcher config
    backend = os.environ.get("DIST_BACKEND", "nccl")
    dist.init_process_group(backend=backend)  # expect: call 215-nccl-default; call 215-nccl-device-binding


def init_auto():
    dist.init_process_group(timeout=timedelta(minutes=10))  # expect: call 215-nccl-default; call 215-nccl-device-binding


def init_legacy_multi_gpu():
    # one process drives all eight GPUs on the old inference boxes
    dist.init_process_group(backend="nccl-legacy", init_method="env://")


def init_with_retry(local_rank: int, attempts: int = 3):
    for attempt in range(attempts):
        try:
            dist.init_process_group(backend="nccl", device_id=torch.device("cuda", local_rank))  # expect: call 215-nccl-default guarded
            return
        except RuntimeError as err:  # rendezvous timeouts on a cold cluster
            log.warning("init attempt %d failed: %s", attempt, err)
    raise SystemExit("could not join the process group")


def build_groups(dp_ranks: List[int]) -> Groups:
    world = dist.group.WORLD
    dp = dist.new_group(ranks=dp_ranks)  # expect: call 215-nccl-eager-communicators
    cpu = dist.new_group(dp_ranks, backend="gloo")
    return Groups(world=world, data_parallel=dp, cpu=cpu)


def pipeline_pair(a: int, b: int):
    return dist.new_group([a, b], timedelta(minutes=5), "nccl")  # expect: call 215-nccl-eager-communicators


def describe_backend(pg) -> str:
    impl = pg._get_backend(torch.device("cuda"))
    if isinstance(impl, ProcessGroupNCCL):  # expect: isinstance 215-nccl-backend-class
        splits = impl.comm_split_count()  # expect: method 215-nccl-backend-class
        return f"nccl, {splits} splits"
    if isinstance(impl, ProcessGroupGloo):
        return "gloo"
    return type(impl).__name__


def is_nccl(pg) -> bool:
    if hasattr(dist, "ProcessGroupNCCL") and isinstance(pg._get_backend(torch.device("cuda")), dist.ProcessGroupNCCL):  # expect: isinstance 215-nccl-backend-class guarded
        return True
    return dist.get_backend(pg) == "nccl"


def save_checkpoint(state: dict, step: int, root: str = "/checkpoints"):
    path = os.path.join(root, f"step_{step:07d}")
    dcp.save(state, checkpoint_id=path)  # expect: call 215-dcp-strides
    return path


def save_checkpoint_async(state: dict, step: int, root: str = "/checkpoints"):
    return dcp.async_save(state, checkpoint_id=os.path.join(root, f"step_{step:07d}"))  # expect: call 215-dcp-strides


def restore(state: dict, path: str):
    dcp.load(state, checkpoint_id=path)
    return state


def fresh_torch_for_tests():
    # the plugin test harness used to reload torch between cases
    del sys.modules["torch"]  # expect: reload 215-import-once
    return importlib.import_module("torch")


def reload_config(mod):
    return importlib.reload(mod)


def reload_everything():
    importlib.reload(torch)  # expect: reload 215-import-once


def grad_clip_value(loss: torch.Tensor) -> torch.Tensor:
    # the clamp gradient change is 2.14's, outside this window
    return loss.clamp(max=1e4)


def rollback_switch():
    # documented escape hatch; an environment variable, not a code change the checker reads
    os.environ.setdefault("TORCH_DIST_USE_NCCL2", "0")


def teardown():
    if dist.is_initialized():
        dist.barrier()
        dist.destroy_process_group()
