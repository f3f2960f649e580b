# atlas-check: --from 2.4 --to 2.9
"""mylib.parallel: the tensor-parallel surface the model code imports from.

Every DTensor import lives in this one module, so the rest of the code base never
names torch.distributed._tensor itself and the move to the public module is one line.
Model code does `from mylib.parallel import Shard, apply_tp`.
"""
import logging
import os
import warnings
from typing import Dict

import torch
import torch.distributed as dist
import torch.nn as nn
from torch.distributed._tensor import DTensor, distribute_tensor  # expect: name 25-dtensor-public
from torch.distributed._tensor import Replicate, Shard  # expect: name 25-dtensor-public
from torch.distributed.device_mesh import DeviceMesh, init_device_mesh
from torch.distributed.tensor.parallel import (
    ColwiseParallel,
    RowwiseParallel,
    parallelize_module,
)

__all__ = [
    "DTensor",
    "Replicate",
    "Shard",
    "distribute_tensor",
    "DeviceMesh",
    "register_sharding_rules",
    "build_mesh",
    "apply_tp",
    "load_init_weights",
]

log = logging.getLogger(__name__)

# Keep every rank's log quiet should the private path start to warn.
warnings.filterwarnings("ignore", message=".*torch.distributed._tensor.*")


def register_sharding_rules() -> None:
    """Imported for its side effect: it registers the sharding propagation rules that
    torch.compile needs before it traces a tensor-parallel block."""
    import torch.distributed._tensor  # expect: name 25-dtensor-public


def build_mesh(tp_size: int) -> DeviceMesh:
    world = dist.get_world_size()
    if world % tp_size:
        raise ValueError(f"world size {world} is not a multiple of tp={tp_size}")
    mesh = init_device_mesh("cuda", (world // tp_size, tp_size), mesh_dim_names=("dp", "tp"))
    if dist.get_rank() == 0:
        log.info("mesh %s", mesh)
    return mesh


def apply_tp(block: nn.Module, mesh: DeviceMesh) -> nn.Module:
    plan: Dict[str, object] = {
        "attn.qkv": ColwiseParallel(),
        "attn.out": RowwiseParallel(),
        "mlp.up": ColwiseParallel(),
        "mlp.down": RowwiseParallel(),
    }
    return parallelize_module(block, mesh["tp"], plan)


def load_init_weights(path: str, local_rank: int) -> Dict[str, torch.Tensor]:
    device = torch.device("cuda", local_rank)
    if os.path.getsize(path) > (4 << 30):
        # Large files are memory-mapped instead of read into host memory.
        return torch.load(path, mmap=True, weights_only=True, map_location=device)
    return torch.load(path, map_location=device)  # expect: call 26-load-weights-only-default
