# atlas-check: --from 2.14 --to 2.15
"""GPU-side decode pipeline.

Worker processes decode JPEG shards on their own GPU and hand finished batches to the
trainer through a torch.multiprocessing queue, together with a CUDA event that marks
the batch as ready. Sharing the events across processes needs a pickler reduction for
torch.cuda.Event, registered in ``_register_reductions``.
"""
import importlib
import os
import sys
from multiprocessing.reduction import ForkingPickler

import torch
import torch.distributed.checkpoint as dcp
import torch.multiprocessing as mp
import torch.multiprocessing.reductions as mp_reductions
from torch.utils.data import IterableDataset

PLUGIN_PREFIX = "decode_plugins."


def _register_reductions() -> None:
    ForkingPickler.register(torch.cuda.Event, mp_reductions.reduce_event)  # expect: name api-diff:torch.multiprocessing.reductions.reduce_event
    ForkingPickler.register(torch.Tensor, mp_reductions.reduce_tensor)


def _worker_torch():
    """Workers are forked from a parent that has already initialised CUDA. Drop the cached
    module so that the worker's own import sees its CUDA_VISIBLE_DEVICES."""
    os.environ["CUDA_VISIBLE_DEVICES"] = os.environ.get("DECODE_GPU", "0")
    del sys.modules["torch"]  # expect: reload 215-import-once
    import torch as worker_torch

    return worker_torch


def reload_plugin(name: str):
    """Hot-reload a decode plugin after its source changed (used by the dev server)."""
    module = sys.modules.get(PLUGIN_PREFIX + name)
    if module is None:
        return importlib.import_module(PLUGIN_PREFIX + name)
    return importlib.reload(module)


class DecodeStream(IterableDataset):
    def __init__(self, shards, batch_size=256, mean=(0.485, 0.456, 0.406), std=(0.229, 0.224, 0.225)):
        self.shards = list(shards)
        self.batch_size = batch_size
        self.mean = torch.tensor(mean).view(1, 3, 1, 1)
        self.std = torch.tensor(std).view(1, 3, 1, 1)
        self._shard, self._offset = 0, 0

    def __iter__(self):
        from torchvision.io import decode_jpeg

        for self._shard in range(self._shard, len(self.shards)):
            records = self.shards[self._shard].read()
            while self._offset < len(records):
                chunk = records[self._offset:self._offset + self.batch_size]
                images = decode_jpeg([r.data for r in chunk], device="cuda")
                batch = torch.stack([torch.nn.functional.interpolate(im[None].float(), size=(224, 224))[0] for im in images])
                batch = (batch / 255.0 - self.mean.cuda()) / self.std.cuda()
                ready = torch.cuda.Event(interprocess=True)
                ready.record()
                self._offset += len(chunk)
                yield batch, torch.tensor([r.label for r in chunk]), ready
            self._offset = 0

    def state_dict(self):
        return {"shard": self._shard, "offset": self._offset}

    def load_state_dict(self, state):
        self._shard, self._offset = state["shard"], state["offset"]


def worker_main(shards, queue: mp.Queue):
    wtorch = _worker_torch()
    _register_reductions()
    wtorch.cuda.init()
    for batch, labels, ready in DecodeStream(shards):
        queue.put((batch, labels, ready))
    queue.put(None)


def save_loader_state(stream: DecodeStream, step: int, root: str):
    return dcp.async_save({"loader": stream.state_dict()}, checkpoint_id=os.path.join(root, f"loader_{step:07d}"))  # expect: call 215-dcp-strides


def restore_loader_state(stream: DecodeStream, path: str) -> None:
    state = {"loader": stream.state_dict()}
    dcp.load(state, checkpoint_id=path)
    stream.load_state_dict(state["loader"])
