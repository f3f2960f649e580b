# atlas-check: --from 2.4 --to 2.15
"""Checkpoint helpers shared by the training and evaluation entry points.

Old runs were written with torch.save(model) and still need torch.load(path) with full
unpickling; everything written since 2024 is a plain state_dict or a safetensors file.
"""
import io
import json
import logging
import os
import pickle
import shutil
from pathlib import Path
from typing import Any, Dict, Optional

import numpy as np
import torch
import yaml
from safetensors.torch import load_file, save_file

log = logging.getLogger(__name__)
CKPT_NAME = "checkpoint.pt"


class CheckpointManager:
    """Keeps the last `keep` checkpoints under `root/step_XXXXXXXX/`."""

    def __init__(self, root: str, keep: int = 3):
        self.root = Path(root)
        self.keep = keep
        self.root.mkdir(parents=True, exist_ok=True)

    def path(self, step: int) -> Path:
        return self.root / f"step_{step:08d}" / CKPT_NAME

    def save(self, step: int, state: Dict[str, Any]) -> Path:
        p = self.path(step)
        p.parent.mkdir(parents=True, exist_ok=True)
        torch.save(state, p)
        self._prune()
        return p

    def load(self, step: int, device: str = "cpu") -> Dict[str, Any]:
        return torch.load(self.path(step), map_location=device)  # expect: call 26-load-weights-only-default

    def latest(self) -> Optional[int]:
        steps = sorted(int(d.name.split("_")[1]) for d in self.root.glob("step_*"))
        return steps[-1] if steps else None

    def _prune(self) -> None:
        dirs = sorted(self.root.glob("step_*"))
        for old in dirs[: max(len(dirs) - self.keep, 0)]:
            shutil.rmtree(old, ignore_errors=True)


def restore_training(manager: CheckpointManager, model, optimizer) -> int:
    step = manager.latest()
    if step is None:
        return 0
    state = manager.load(step)
    model.load_state_dict(state["model"])
    optimizer.load_state_dict(state["optimizer"])
    return step


def load_weights(path: str) -> Dict[str, torch.Tensor]:
    if path.endswith(".safetensors"):
        return load_file(path, device="cpu")
    return torch.load(path, map_location="cpu", weights_only=True)


def export_weights(state: Dict[str, torch.Tensor], path: str) -> None:
    save_file({k: v.contiguous() for k, v in state.items()}, path)


def load_legacy_model(path: str):
    """A whole pickled nn.Module from the 2022 pipeline; only for files we wrote ourselves."""
    return torch.load(path, weights_only=False)


def load_from_bytes(blob: bytes, device: str = "cpu"):
    # Checkpoints fetched from the object store arrive as bytes.
    return torch.load(io.BytesIO(blob), device)  # expect: call 26-load-weights-only-default


def load_on_gpu(path: str, rank: int):
    with open(path, "rb") as f:
        buf = io.BytesIO(f.read())
    return torch.load(buf, map_location={"cuda:0": f"cuda:{rank}"})  # expect: call 26-load-weights-only-default


def load_run_metadata(run_dir: str):
    with open(os.path.join(run_dir, "config.yaml")) as f:
        cfg = yaml.load(f, Loader=yaml.SafeLoader)
    with open(os.path.join(run_dir, "metrics.json")) as f:
        metrics = json.load(f)
    with open(os.path.join(run_dir, "sampler_state.pkl"), "rb") as f:
        sampler_state = pickle.load(f)
    stats = np.load(os.path.join(run_dir, "feature_stats.npz"))
    return cfg, metrics, sampler_state, stats


def restore_scaler(state: Dict[str, Any]):
    # Still the CUDA-specific scaler here; this module is only checked from 2.4 on.
    scaler = torch.cuda.amp.GradScaler()  # expect: name 24-amp-device-specific
    scaler.load_state_dict(state["scaler"])
    return scaler
