# atlas-check: --from 2.14 --to 2.15
import torch
import torch.distributed as dist
from torch.distributed import config
from torch.distributed.pipelining import ScheduleGPipe


def configure(per_edge: bool):
    config.pipeline_per_direction_p2p = per_edge  # expect: string 215-pipeline-per-edge-p2p
    legacy = getattr(config, "pipeline_per_direction_p2p", None)  # expect: string 215-pipeline-per-edge-p2p
    return legacy


def backend_info(pg):
    impl = dist.get_backend_impl(pg)
    if isinstance(impl, dist.ProcessGroupNCCL):  # expect: isinstance 215-nccl-backend-class
        print("splits:", impl.comm_split_count())  # expect: method 215-nccl-backend-class
    return dist.get_backend(pg) == "nccl"


def init_legacy(rank, world):
    dist.init_process_group(backend="nccl-legacy", rank=rank, world_size=world)  # expect: string 215-nccl-default


def schedule(stage, n_micro):
    return ScheduleGPipe(stage, n_microbatches=n_micro)
