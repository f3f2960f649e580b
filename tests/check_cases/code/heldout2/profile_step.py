# atlas-check: --from 2.13 --to 2.15
"""Profile one training step and dump Chrome traces.

Historically we called the autograd profiler with use_cuda=True; torch.profiler with
activities=[ProfilerActivity.CUDA] is the replacement. See docs/perf.md.
"""
import argparse
import time
from contextlib import nullcontext

import torch
from torch.autograd import profiler as prof
from torch.profiler import ProfilerActivity, profile as tprofile, record_function, schedule

from .model import build_model, fake_batch


def bench(fn, steps: int = 20, use_cuda: bool = False) -> float:
    """Wall-clock time per call; synchronizes when use_cuda is set."""
    for _ in range(3):
        fn()
    if use_cuda:
        torch.cuda.synchronize()
    t0 = time.perf_counter()
    for _ in range(steps):
        fn()
    if use_cuda:
        torch.cuda.synchronize()
    return (time.perf_counter() - t0) / steps


def make_step(model, opt, batch):
    def step():
        with record_function("forward"):
            loss = model(**batch).loss
        with record_function("backward"):
            loss.backward()
        opt.step()
        opt.zero_grad(set_to_none=True)
    return step


def legacy_table(step, use_cuda: bool):
    # kept for the nightly perf dashboard, which parses this table format
    with prof.profile(use_cuda=use_cuda, record_shapes=True) as p:  # expect: param 214-profiler-use-cuda
        step()
    return p.key_averages().table(sort_by="self_cpu_time_total", row_limit=30)


def device_table(step):
    with torch.autograd.profiler.profile(use_device="cuda", profile_memory=True) as p:
        step()
    return p.key_averages(group_by_input_shape=True).table(sort_by="self_device_time_total")


def kineto_trace(step, out: str, cuda: bool):
    activities = [ProfilerActivity.CPU]
    if cuda:
        activities.append(ProfilerActivity.CUDA)
    sched = schedule(wait=1, warmup=1, active=3)
    with torch.profiler.profile(activities=activities, schedule=sched, use_cuda=cuda) as p:  # expect: param 214-profiler-use-cuda
        for _ in range(5):
            step()
            p.step()
    p.export_chrome_trace(out)


def quick_summary(step):
    acts = [ProfilerActivity.CPU] + ([ProfilerActivity.CUDA] if torch.cuda.is_available() else [])
    with tprofile(activities=acts, record_shapes=True) as p:
        step()
    print(p.key_averages().table(row_limit=10))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--trace", default="trace.json")
    ap.add_argument("--no-cuda", action="store_true")
    args = ap.parse_args()
    use_cuda = torch.cuda.is_available() and not args.no_cuda
    device = "cuda" if use_cuda else "cpu"
    model = build_model().to(device)
    opt = torch.optim.AdamW(model.parameters(), lr=1e-4)
    step = make_step(model, opt, fake_batch(device))
    print(f"{bench(step, use_cuda=use_cuda) * 1e3:.2f} ms/step")
    print(legacy_table(step, use_cuda))
    if use_cuda:
        print(device_table(step))
    kineto_trace(step, args.trace, use_cuda)
    ctx = torch.autocast(device) if use_cuda else nullcontext()
    with ctx:
        quick_summary(step)


if __name__ == "__main__":
    main()
