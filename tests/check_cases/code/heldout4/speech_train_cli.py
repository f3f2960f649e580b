# atlas-check: --from 2.3 --to 2.10
"""Command-line trainer for the streaming speech encoder.

Examples:
    python speech_train_cli.py fit --config conf/base.json --scheduler onecycle --lr-verbose
    python speech_train_cli.py fit --config conf/big.json --pipeline-chunks 8
    python speech_train_cli.py fit --config conf/base.json --ckpt-url s3://bucket/run42
"""
import argparse
import json
import os

import torch
import torch.distributed as dist
from torch.optim.lr_scheduler import OneCycleLR, ReduceLROnPlateau

from encoder import SpeechEncoder, split_into_stages
from data import build_loaders


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="speech_train_cli")
    sub = p.add_subparsers(dest="command", required=True)
    fit = sub.add_parser("fit", help="train a model")
    fit.add_argument("--config", required=True)
    fit.add_argument("--lr", type=float, default=1e-3)
    fit.add_argument("--epochs", type=int, default=40)
    fit.add_argument("--scheduler", choices=["onecycle", "plateau"], default="plateau")
    fit.add_argument("--patience", type=int, default=3)
    fit.add_argument("--lr-verbose", action="store_true", help="let the scheduler print every LR change (verbose=True)")
    fit.add_argument("--pipeline-chunks", type=int, default=0, help="GPipe micro-batches via torch.distributed.pipeline.sync.Pipe; 0 disables")
    fit.add_argument("--ckpt-url", default="checkpoints/", help="local path or fsspec URL for distributed checkpoints")
    fit.add_argument("--profile", action="store_true", help="profile one epoch with use_cuda=True")
    return p


def build_scheduler(args, opt, steps_per_epoch: int):
    if args.scheduler == "onecycle":
        return OneCycleLR(opt, max_lr=args.lr, total_steps=args.epochs * steps_per_epoch, pct_start=0.1, verbose=args.lr_verbose)  # expect: param 27-lrscheduler-verbose-removed
    return ReduceLROnPlateau(opt, mode="min", factor=0.5, patience=args.patience, verbose=True)  # expect: param 27-lrscheduler-verbose-removed


def wrap_pipeline(model: torch.nn.Module, chunks: int) -> torch.nn.Module:
    from torch.distributed.pipeline.sync import Pipe  # expect: name api-diff:torch.distributed.pipeline

    stages = split_into_stages(model, torch.cuda.device_count())
    return Pipe(torch.nn.Sequential(*stages), chunks=chunks, checkpoint="except_last")  # reported at its import (one finding per cause)


def checkpoint_writer(url: str):
    if url.startswith(("s3://", "gs://", "abfs://")):
        from torch.distributed.checkpoint.fsspec import FsspecWriter  # expect: name api-diff:torch.distributed.checkpoint.fsspec

        return FsspecWriter(url)  # reported at its import (one finding per cause)
    import torch.distributed.checkpoint as dcp

    return dcp.FileSystemWriter(url)


def log_mel(wave: torch.Tensor, fbank: torch.Tensor) -> torch.Tensor:
    spec = torch.stft(wave, n_fft=400, hop_length=160, window=torch.hann_window(400, device=wave.device), return_complex=True)
    return torch.clamp(fbank @ spec.abs().pow(2), min=1e-10).log10()


def fit(args) -> None:
    with open(args.config) as f:
        cfg = json.load(f)
    if "LOCAL_RANK" in os.environ:
        dist.init_process_group("nccl")
    model = SpeechEncoder(**cfg["model"]).cuda()
    if args.pipeline_chunks:
        model = wrap_pipeline(model, args.pipeline_chunks)
    train_loader, val_loader = build_loaders(cfg["data"])
    opt = torch.optim.AdamW(model.parameters(), lr=args.lr, weight_decay=1e-2)
    sched = build_scheduler(args, opt, len(train_loader))
    writer = checkpoint_writer(args.ckpt_url)
    for epoch in range(args.epochs):
        with torch.autograd.profiler.profile(enabled=args.profile and epoch == 0, use_cuda=True) as prof:
            for wave, fbank, target in train_loader:
                loss = model(log_mel(wave.cuda(), fbank.cuda()), target.cuda())
                loss.backward()
                opt.step()
                opt.zero_grad(set_to_none=True)
                if isinstance(sched, OneCycleLR):
                    sched.step()
        if args.profile and epoch == 0:
            print(prof.key_averages().table(sort_by="cuda_time_total", row_limit=10))
        val = sum(model(log_mel(w.cuda(), fb.cuda()), t.cuda()).item() for w, fb, t in val_loader) / len(val_loader)
        if isinstance(sched, ReduceLROnPlateau):
            sched.step(val)
        torch.distributed.checkpoint.save({"model": model.state_dict()}, storage_writer=writer)


def main() -> None:
    args = build_parser().parse_args()
    if args.command == "fit":
        fit(args)


if __name__ == "__main__":
    main()
