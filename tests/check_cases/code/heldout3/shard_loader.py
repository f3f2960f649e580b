# atlas-check: --from 2.13 --to 2.15
"""WebDataset-style shard loader with deterministic per-worker seeding.

Each worker opens its own subset of tar shards; GPU decode events are shared with the
main process through torch.multiprocessing, so the collate step can wait on them.
"""
import io
import os
import random
import tarfile
from multiprocessing.reduction import ForkingPickler

import numpy as np
import torch
import torch.multiprocessing.reductions as mpr
from PIL import Image
from torch.utils.data import DataLoader, IterableDataset, get_worker_info

use_cuda = torch.cuda.is_available()

# CUDA events produced in workers are pickled with torch's own reducer.
ForkingPickler.register(torch.cuda.Event, mpr.reduce_event)  # expect: name api-diff:torch.multiprocessing.reductions.reduce_event


def worker_init_fn(worker_id: int) -> None:
    info = get_worker_info()
    seed = (info.seed if info is not None else torch.initial_seed()) % 2**32
    random.seed(seed)
    np.random.seed(seed)
    os.environ["OMP_NUM_THREADS"] = "1"
    torch.set_num_threads(1)


class TarShards(IterableDataset):
    def __init__(self, shard_dir: str, image_size: int = 224, train: bool = True):
        self.shards = sorted(os.path.join(shard_dir, f) for f in os.listdir(shard_dir) if f.endswith(".tar"))
        self.image_size = image_size
        self.train = train
        self.backend = "pil"  # decoder backend, not a torch setting

    def _my_shards(self):
        info = get_worker_info()
        if info is None:
            return self.shards
        return self.shards[info.id::info.num_workers]

    def _decode(self, raw: bytes) -> torch.Tensor:
        img = Image.open(io.BytesIO(raw)).convert("RGB").resize((self.image_size, self.image_size))
        x = torch.from_numpy(np.asarray(img, dtype=np.float32) / 255.0).permute(2, 0, 1)
        if self.train and random.random() < 0.5:
            x = x.flip(-1)
        return x

    def __iter__(self):
        shards = list(self._my_shards())
        if self.train:
            random.shuffle(shards)
        for path in shards:
            with tarfile.open(path) as tar:
                members = {}
                for m in tar:
                    key, ext = os.path.splitext(m.name)
                    members.setdefault(key, {})[ext] = tar.extractfile(m).read()
                for key, parts in members.items():
                    if ".jpg" in parts and ".cls" in parts:
                        yield self._decode(parts[".jpg"]), int(parts[".cls"])


def collate(batch):
    xs, ys = zip(*batch)
    return torch.stack(xs), torch.tensor(ys)


def make_loader(shard_dir: str, batch_size: int = 256, workers: int = 8, train: bool = True) -> DataLoader:
    return DataLoader(
        TarShards(shard_dir, train=train),
        batch_size=batch_size,
        num_workers=workers,
        worker_init_fn=worker_init_fn,
        collate_fn=collate,
        pin_memory=use_cuda,
        persistent_workers=workers > 0,
        prefetch_factor=4 if workers > 0 else None,
        multiprocessing_context="forkserver",
    )


def load_class_index(path: str) -> dict:
    return torch.load(path, weights_only=True)
