# atlas-check: --from 2.6 --to 2.13
"""Sharded evaluation of the language model, then the release exports.

Runs under torchrun; the launcher's bootstrap module has already created the process
group. One DTensor import still uses the private path; it is left for the cleanup PR.
"""
import argparse
import os

import torch
import torch.distributed as dist
import torch.nn as nn
from torch.distributed._tensor import DTensor  # expect: name 25-dtensor-public
from torch.distributed.fsdp import fully_shard
from torch.distributed.tensor import Replicate, Shard, distribute_tensor


def shard_model(model: nn.Module, mesh) -> nn.Module:
    for layer in model.layers:
        fully_shard(layer, mesh=mesh)
    fully_shard(model, mesh=mesh)
    return model


def replicate_tables(model: nn.Module, mesh) -> None:
    # The vocab bias table is sharded by row; the position table is replicated.
    model.vocab_bias = nn.Parameter(distribute_tensor(model.vocab_bias.data, mesh, [Shard(0)]))
    model.pos_table = nn.Parameter(distribute_tensor(model.pos_table.data, mesh, [Replicate()]))


def gather_full_state(model: nn.Module) -> dict:
    full = {}
    for name, value in model.state_dict().items():
        full[name] = value.full_tensor() if isinstance(value, DTensor) else value
    return full


def load_reference(path: str, device: torch.device) -> dict:
    # A plain state_dict written by the training job.
    return torch.load(path, map_location=device)


@torch.no_grad()
def evaluate(model: nn.Module, loader, device: torch.device) -> float:
    model.eval()
    total = torch.zeros((), device=device)
    count = torch.zeros((), device=device)
    for batch in loader:
        ids = batch["input_ids"].to(device)
        with torch.amp.autocast("cuda", dtype=torch.bfloat16):
            out = model(ids, labels=batch["labels"].to(device))
        total += out.loss.detach() * ids.size(0)
        count += ids.size(0)
    dist.all_reduce(total)
    dist.all_reduce(count)
    return (total / count).item()


def smoke_test_fp16(model: nn.Module, ids: torch.Tensor) -> torch.Tensor:
    # The old fp16 path, kept for the nightly comparison.
    with torch.cuda.amp.autocast(dtype=torch.float16):  # expect: name 24-amp-device-specific
        return model(ids).logits


def export_release(model: nn.Module, example: torch.Tensor, out_dir: str) -> None:
    ep = torch.export.export(model, (example,))  # expect: call 28-export-strict-false
    torch.export.save(ep, os.path.join(out_dir, "model.pt2"))
    torch.onnx.export(model, (example,), os.path.join(out_dir, "model.onnx"), dynamo=True)
    torch.onnx.export(model, (example,), os.path.join(out_dir, "model_ts_exporter.onnx"), opset_version=17)  # expect: call 29-onnx-dynamo-default
    scripted = torch.jit.script(model)  # expect: call 210-torchscript-deprecated
    scripted.save(os.path.join(out_dir, "model_ts.pt"))


def main() -> None:
    p = argparse.ArgumentParser()
    p.add_argument("--reference", required=True)
    p.add_argument("--out", default="release")
    p.add_argument("--compile", action="store_true")
    args = p.parse_args()
    assert dist.is_initialized(), "run through the launcher"
    device = torch.device("cuda", int(os.environ["LOCAL_RANK"]))
    from model_zoo import build_lm, build_mesh, eval_loader  # project-local

    model = build_lm().to(device)
    model.load_state_dict(load_reference(args.reference, device))
    mesh = build_mesh()
    replicate_tables(shard_model(model, mesh), mesh)
    if args.compile:
        model = torch.compile(model)
    print("eval loss", evaluate(model, eval_loader(), device))
    full = gather_full_state(model)
    if dist.get_rank() == 0:
        cpu_model = build_lm()
        cpu_model.load_state_dict({k: v.cpu() for k, v in full.items()})
        export_release(cpu_model.eval(), torch.randint(0, 32000, (1, 128)), args.out)


if __name__ == "__main__":
    main()
