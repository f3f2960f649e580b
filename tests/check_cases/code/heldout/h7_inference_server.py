# atlas-check: --from 2.14 --to 2.15
import importlib
import logging
import sys

import torch
from torch import distributed as dist

log = logging.getLogger(__name__)


def pick_device():
    if torch.cuda.is_available():
        return torch.device("cuda")
    mps_ok = torch.backends.mps.is_available()  # expect: name 215-mps-macos15
    return torch.device("mps" if mps_ok else "cpu")


def hot_reload(plugin_name):
    mod = importlib.import_module(plugin_name)
    return importlib.reload(mod)


def reset_torch_for_tests():
    sys.modules.pop("torch", None)  # expect: reload 215-import-once
    import torch as t2
    return t2


def load_weights(path):
    return torch.load(path, map_location="cpu", weights_only=True)


def check_backend():
    pg = dist.distributed_c10d._get_default_group()
    backend = pg._get_backend(torch.device("cuda"))
    if type(backend).__name__ == "ProcessGroupNCCL":  # expect: isinstance 215-nccl-backend-class
        log.info("old NCCL backend")
    return isinstance(backend, dist.ProcessGroupGloo)
