# atlas-check: --from 2.10 --to 2.15
"""Shared helpers: process-group cache, metric reduction, hub backbones and export.

The process group itself is created by the launcher (see launch/torchrun.py); this module
only builds subgroups on top of it.
"""
import functools
import logging

import torch
import torch.distributed as dist

logger = logging.getLogger(__name__)

_GROUPS = {}


def get_group(ranks=None, backend=None):
    key = (tuple(ranks) if ranks is not None else None, backend)
    if key not in _GROUPS:
        if backend is None:
            _GROUPS[key] = dist.new_group(ranks)  # expect: call 215-nccl-eager-communicators
        else:
            _GROUPS[key] = dist.new_group(ranks, backend=backend)  # expect: call 215-nccl-eager-communicators
    return _GROUPS[key]


@functools.lru_cache(maxsize=None)
def get_cpu_group():
    return dist.new_group(backend="gloo")


def reduce_mean(value, group=None):
    if not (dist.is_available() and dist.is_initialized()):
        return value
    value = value.clone()
    dist.all_reduce(value, op=dist.ReduceOp.SUM, group=group)
    count = torch.tensor([dist.get_world_size(group)], dtype=torch.long, device=value.device).clamp(min=1)
    return value / count


def reduce_accuracy(correct, total):
    correct = reduce_mean(correct.float())
    total = total.long()
    return correct / total.clamp(min=1)


def smoothed_ratio(num, den, eps=1e-6):
    return (num / den).clamp(0.0, 1.0 - eps)  # expect: method 214-clamp-grad


def save_sharded(state, path):
    try:
        import torch.distributed.checkpoint as dcp

        dcp.save(state, checkpoint_id=path)  # expect: call 215-dcp-strides guarded
    except ModuleNotFoundError:
        # minimal installs without the distributed extras
        torch.save(state, path)


def load_backbone(name, pretrained=True):
    if name.startswith("dinov2"):
        return torch.hub.load("facebookresearch/dinov2", name, pretrained=pretrained)  # expect: call 211-hub-trust-repo
    if name.startswith("internal/"):
        return torch.hub.load("/opt/models/hubconf", name[len("internal/"):], source="local", trust_repo=True)
    raise ValueError(f"unknown backbone {name!r}; see torch.hub.list() for the public ones")


def list_backbones(repo="facebookresearch/dinov2"):
    entries = torch.hub.list(repo)  # expect: call 211-hub-trust-repo
    docs = {e: torch.hub.help(repo, e) for e in entries}  # expect: call 211-hub-trust-repo
    return docs


def fetch_weights(url):
    return torch.hub.load_state_dict_from_url(url, map_location="cpu", weights_only=True)


def export_for_qat(model, example_inputs):
    try:
        return torch.export.export_for_training(model, example_inputs)  # expect: name 211-export-for-training-removed guarded
    except AttributeError:
        # removed in 2.11; export() returns the same graph
        return torch.export.export(model, example_inputs)


def export_eval_graph(model, example_inputs):
    # strict=False is already the default in every release of this window
    return torch.export.export(model, example_inputs)


def script_postprocess(module):
    # TorchScript still ships the postprocessing for the C++ server
    return torch.jit.script(module)  # expect: call 210-torchscript-deprecated
