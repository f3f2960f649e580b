# atlas-check: --from 2.13 --to 2.15
"""Micro-benchmark harness: time a set of ops with torch.profiler and the autograd profiler.

    python bench_ops.py --ops matmul,layernorm --cuda --trace-dir traces/
"""
import argparse
import json
import time

import torch
import torch.autograd.profiler as autograd_profiler
from torch.profiler import ProfilerActivity, profile, record_function, schedule

# FunctionEvent.metadata_json carries the user annotations in the chrome trace
_META = torch.autograd.profiler.FunctionEvent.metadata_json  # expect: name api-diff:torch.autograd.profiler.FunctionEvent.metadata_json

OPS = {
    "matmul": lambda x: x @ x.T,
    "layernorm": lambda x: torch.nn.functional.layer_norm(x, x.shape[-1:]),
    "softmax": lambda x: x.softmax(-1),
    "gelu": lambda x: torch.nn.functional.gelu(x),
}


def run(fn, x, iters: int, use_cuda: bool = False) -> float:
    """Wall-clock timing; use_cuda only decides whether to synchronize."""
    for _ in range(3):
        fn(x)
    if use_cuda:
        torch.cuda.synchronize()
    t0 = time.perf_counter()
    for _ in range(iters):
        fn(x)
    if use_cuda:
        torch.cuda.synchronize()
    return (time.perf_counter() - t0) / iters


def autograd_table(fn, x, cuda: bool) -> str:
    with autograd_profiler.profile(use_cuda=cuda, record_shapes=True) as prof:  # expect: param 214-profiler-use-cuda
        with record_function("op"):
            fn(x)
    return prof.key_averages(group_by_input_shape=True).table(sort_by="self_cpu_time_total", row_limit=10)


def legacy_table(fn, x) -> str:
    with torch.autograd.profiler_legacy.profile(use_cuda=True) as prof:
        fn(x)
    return prof.key_averages().table(sort_by="cpu_time_total", row_limit=10)


def kineto_trace(fn, x, trace_path: str, cuda: bool) -> None:
    acts = [ProfilerActivity.CPU] + ([ProfilerActivity.CUDA] if cuda else [])
    sched = schedule(wait=1, warmup=1, active=3, repeat=1)
    with profile(activities=acts, schedule=sched, record_shapes=True, use_cuda=cuda) as p:  # expect: param 214-profiler-use-cuda
        for _ in range(5):
            fn(x)
            p.step()
    p.export_chrome_trace(trace_path)


def memory_table(fn, x) -> str:
    prof_kwargs = dict(use_cuda=torch.cuda.is_available(), profile_memory=True)  # expect: param 214-profiler-use-cuda
    with torch.autograd.profiler.profile(**prof_kwargs) as prof:
        fn(x)
    return prof.key_averages().table(sort_by="self_cpu_memory_usage", row_limit=10)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--ops", default="matmul,softmax")
    ap.add_argument("--size", type=int, default=4096)
    ap.add_argument("--iters", type=int, default=50)
    ap.add_argument("--cuda", action="store_true")
    ap.add_argument("--trace-dir", default=None)
    args = ap.parse_args()

    device = "cuda" if args.cuda else "cpu"
    x = torch.randn(args.size, args.size, device=device)
    results = {}
    for name in args.ops.split(","):
        fn = OPS[name]
        results[name] = run(fn, x, args.iters, use_cuda=args.cuda)
        print(autograd_table(fn, x, args.cuda))
        if args.trace_dir:
            kineto_trace(fn, x, f"{args.trace_dir}/{name}.json", args.cuda)
    print(json.dumps({k: f"{v * 1e3:.3f} ms" for k, v in results.items()}, indent=2))


if __name__ == "__main__":
    main()
