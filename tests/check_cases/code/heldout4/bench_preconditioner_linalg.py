# atlas-check: --from 2.4 --to 2.15
"""Micro-benchmarks for the decompositions used by the Shampoo-style preconditioner.

    python bench_preconditioner_linalg.py --sizes 256 1024 4096 --cuda --profile

Prints a table of median wall time per op and size; with --profile it also writes a
Chrome trace (bench_trace.json) and prints the autograd profiler's top ops.
"""
import argparse
import statistics
import time

import scipy.linalg
import torch
from torch.autograd import profiler as autograd_profiler
from torch.profiler import ProfilerActivity
from torch.profiler import profile as kineto_profile


def spd(n: int, device: torch.device) -> torch.Tensor:
    a = torch.randn(n, n, device=device, dtype=torch.float32)
    return a @ a.mT + n * torch.eye(n, device=device)


def _solve_with_cholesky(a: torch.Tensor) -> torch.Tensor:
    rhs = torch.ones(a.shape[0], 1, device=a.device, dtype=a.dtype)
    return torch.cholesky_solve(rhs, torch.linalg.cholesky(a))


OPS = {
    "linalg.cholesky": torch.linalg.cholesky,
    "linalg.cholesky_ex": torch.linalg.cholesky_ex,
    "linalg.qr": torch.linalg.qr,
    "qr (legacy)": torch.qr,  # expect: name 214-remove-qr
    "cholesky_solve": _solve_with_cholesky,
    "linalg.eigh": torch.linalg.eigh,
}


CPP_SRC = """
#include <torch/extension.h>
torch::Tensor tri_solve(torch::Tensor L, torch::Tensor b) {
  return std::get<0>(at::triangular_solve(b, L, /*upper=*/false));
}
"""


def build_extension(verbose: bool = False):
    """The hand-written triangular solve that the preconditioner used before linalg.solve_triangular."""
    from torch.utils.cpp_extension import library_paths, load_inline

    ldflags = [f"-L{path}" for path in library_paths(cuda=True)]  # expect: param api-diff:torch.utils.cpp_extension.library_paths
    return load_inline(name="tri_solve_ext", cpp_sources=[CPP_SRC], functions=["tri_solve"], extra_ldflags=ldflags, verbose=verbose)


def bench(fn, a: torch.Tensor, repeats: int) -> float:
    for _ in range(3):
        fn(a)
    times = []
    for _ in range(repeats):
        if a.is_cuda:
            torch.cuda.synchronize()
        t0 = time.perf_counter()
        fn(a)
        if a.is_cuda:
            torch.cuda.synchronize()
        times.append(time.perf_counter() - t0)
    return statistics.median(times)


def main():
    p = argparse.ArgumentParser(description="linalg micro-benchmarks")
    p.add_argument("--sizes", type=int, nargs="+", default=[256, 1024])
    p.add_argument("--repeats", type=int, default=20)
    p.add_argument("--cuda", action="store_true", help="run on the GPU and record CUDA kernel times (use_cuda in the legacy profiler)")
    p.add_argument("--profile", action="store_true")
    p.add_argument("--scipy", action="store_true", help="also time scipy.linalg.qr / cholesky on the CPU")
    p.add_argument("--ext", action="store_true", help="also time the old C++ triangular-solve extension")
    args = p.parse_args()

    device = torch.device("cuda" if args.cuda else "cpu")
    print(f"{'op':<20}" + "".join(f"{n:>12}" for n in args.sizes))
    rows = {name: [] for name in OPS}
    for n in args.sizes:
        a = spd(n, device)
        print(f"# n={n}: L[0,0]={torch.cholesky(a)[0, 0].item():.4f}")  # expect: name 214-remove-cholesky
        for name, fn in OPS.items():
            rows[name].append(bench(fn, a, args.repeats))
        if args.ext:
            ext = build_extension()
            L = torch.linalg.cholesky(a)
            rows.setdefault("ext tri_solve", []).append(bench(lambda m: ext.tri_solve(L, m), a, args.repeats))
        if args.scipy:
            a_np = a.cpu().numpy()
            t0 = time.perf_counter()
            scipy.linalg.qr(a_np, mode="economic")
            scipy.linalg.cholesky(a_np, lower=True)
            print(f"# scipy qr+cholesky n={n}: {time.perf_counter() - t0:.4f}s")
    for name, values in rows.items():
        print(f"{name:<20}" + "".join(f"{v * 1e3:>10.2f}ms" for v in values))

    if args.profile:
        a = spd(args.sizes[-1], device)
        with autograd_profiler.profile(use_cuda=args.cuda, record_shapes=True) as prof:  # expect: param 214-profiler-use-cuda
            for fn in OPS.values():
                fn(a)
        print(prof.key_averages().table(sort_by="self_cpu_time_total", row_limit=15))
        acts = [ProfilerActivity.CPU] + ([ProfilerActivity.CUDA] if args.cuda else [])
        with kineto_profile(activities=acts, record_shapes=True) as kprof:
            torch.linalg.eigh(a)
        kprof.export_chrome_trace("bench_trace.json")
        with torch.autograd.profiler_legacy.profile(use_cuda=args.cuda) as legacy:
            torch.linalg.qr(a)
        print(legacy.key_averages().table(row_limit=5))


if __name__ == "__main__":
    main()
