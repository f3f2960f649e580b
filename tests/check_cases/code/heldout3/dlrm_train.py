# atlas-check: --from 2.13 --to 2.15
"""Two-tower DLRM-style recommender: sparse embedding tables + dense MLP.

Embedding tables are row-sharded over an "emb" process group and updated with
SparseAdam; the dense towers are wrapped with FSDP2 (fully_shard). Launch with
torchrun --nproc-per-node=8 dlrm_train.py --config configs/ctr.yaml
"""
import argparse
import os
import time

import torch
import torch.distributed as dist
import torch.distributed.checkpoint as dcp
import torch.nn as nn
import yaml
from torch.distributed import ProcessGroupNCCL
from torch.distributed.fsdp import MixedPrecisionPolicy, fully_shard

# Keep the old NCCL implementation until the embedding all-to-all is re-tuned (ticket REC-412).
os.environ.setdefault("TORCH_DIST_USE_NCCL2", "0")  # expect: env 215-nccl-default


class ShardedEmbeddingBag(nn.Module):
    """A row-wise shard of one embedding table (num_rows / world_size rows per rank)."""

    def __init__(self, num_rows: int, dim: int, group):
        super().__init__()
        self.group = group
        self.world = dist.get_world_size(group)
        self.rank = dist.get_rank(group)
        self.rows_per_rank = (num_rows + self.world - 1) // self.world
        self.bag = nn.EmbeddingBag(self.rows_per_rank, dim, mode="sum", sparse=True)

    def forward(self, ids: torch.Tensor, offsets: torch.Tensor) -> torch.Tensor:
        owner = ids // self.rows_per_rank
        local = ids % self.rows_per_rank
        mask = owner == self.rank
        out = self.bag(torch.where(mask, local, torch.zeros_like(local)), offsets, per_sample_weights=mask.float())
        dist.all_reduce(out, group=self.group)
        return out


class Tower(nn.Module):
    def __init__(self, dims):
        super().__init__()
        layers = []
        for a, b in zip(dims[:-1], dims[1:]):
            layers += [nn.Linear(a, b), nn.ReLU()]
        self.net = nn.Sequential(*layers[:-1])

    def forward(self, x):
        return self.net(x)


class TwoTower(nn.Module):
    def __init__(self, cfg, emb_group):
        super().__init__()
        self.tables = nn.ModuleList(ShardedEmbeddingBag(t["rows"], cfg["emb_dim"], emb_group) for t in cfg["tables"])
        n_sparse = len(cfg["tables"]) * cfg["emb_dim"]
        self.user = Tower([n_sparse + cfg["dense_features"], 512, 256, 128])
        self.item = Tower([n_sparse, 512, 256, 128])

    def forward(self, dense, ids, offsets):
        sparse = torch.cat([t(i, o) for t, i, o in zip(self.tables, ids, offsets)], dim=1)
        u = self.user(torch.cat([dense, sparse], dim=1))
        v = self.item(sparse)
        return (u * v).sum(-1)


def setup():
    local_rank = int(os.environ["LOCAL_RANK"])
    torch.cuda.set_device(local_rank)
    dist.init_process_group(backend="cuda:nccl,cpu:gloo")  # expect: call 215-nccl-default; call 215-nccl-device-binding
    world = dist.get_world_size()
    emb_group = dist.new_group(ranks=list(range(world)))  # expect: call 215-nccl-eager-communicators
    ckpt_group = dist.new_group(ranks=list(range(world)), backend="gloo")
    return local_rank, emb_group, ckpt_group


def log_backend(group):
    impl = dist.get_backend_impl(group)
    if isinstance(impl, ProcessGroupNCCL):  # expect: isinstance 215-nccl-backend-class
        print(f"[rank {dist.get_rank()}] NCCL comm splits so far: {impl.comm_split_count()}")  # expect: method 215-nccl-backend-class
    else:
        print(f"[rank {dist.get_rank()}] backend = {dist.get_backend(group)}")


def wrap_dense(model: TwoTower):
    mp_towers = MixedPrecisionPolicy(param_dtype=torch.bfloat16)  # expect: call 215-fsdp2-reduce-dtype
    mp_root = MixedPrecisionPolicy(param_dtype=torch.bfloat16, reduce_dtype=torch.float32)
    fully_shard(model.user, mp_policy=mp_towers)
    fully_shard(model.item, mp_policy=mp_towers)
    return model, mp_root


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--config", required=True)
    ap.add_argument("--ckpt-dir", default="/mnt/ckpt/dlrm")
    ap.add_argument("--steps", type=int, default=100_000)
    args = ap.parse_args()
    with open(args.config) as f:
        cfg = yaml.safe_load(f)

    local_rank, emb_group, ckpt_group = setup()
    log_backend(emb_group)
    model = TwoTower(cfg, emb_group).cuda()
    model, _ = wrap_dense(model)

    sparse_params = [p for n, p in model.named_parameters() if "tables" in n]
    dense_params = [p for n, p in model.named_parameters() if "tables" not in n]
    sparse_opt = torch.optim.SparseAdam(sparse_params, lr=cfg.get("emb_lr", 0.01))
    dense_opt = torch.optim.AdamW(dense_params, lr=cfg.get("lr", 1e-3))
    loss_fn = nn.BCEWithLogitsLoss()

    pending = None
    for step in range(args.steps):
        dense, ids, offsets, label = next_batch(cfg, local_rank)
        loss = loss_fn(model(dense, ids, offsets), label)
        sparse_opt.zero_grad()
        dense_opt.zero_grad()
        loss.backward()
        sparse_opt.step()
        dense_opt.step()
        if step % 5000 == 0:
            if pending is not None:
                pending.result()
            state = {"model": model.state_dict(), "step": step}
            pending = dcp.async_save(state, checkpoint_id=f"{args.ckpt_dir}/{step}", process_group=ckpt_group)  # expect: call 215-dcp-strides
            print(f"step {step} loss {loss.item():.4f} t={time.time():.0f}")
    dist.destroy_process_group()


def next_batch(cfg, local_rank):
    b = cfg["batch_size"]
    dense = torch.randn(b, cfg["dense_features"], device="cuda")
    ids = [torch.randint(0, t["rows"], (b * 4,), device="cuda") for t in cfg["tables"]]
    offsets = [torch.arange(0, b * 4, 4, device="cuda") for _ in cfg["tables"]]
    label = torch.randint(0, 2, (b,), device="cuda").float()
    return dense, ids, offsets, label


if __name__ == "__main__":
    main()
