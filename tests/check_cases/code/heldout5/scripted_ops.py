# atlas-check: --from 2.9 --to 2.15
"""Scripted helper ops for the speech front end, and the script that packages them.

The C++ runtime on the devices loads TorchScript, so these stay scripted for now; see
the tracking issue about replacing torch.jit.script with torch.export. The ONNX path
was already moved to the new exporter in 2.9 and is not revisited here.
"""
import argparse
import math
import os
from typing import List, Optional, Tuple

import torch
import torch.nn as nn
import torch.nn.functional as F


@torch.jit.script  # expect: call 210-torchscript-deprecated
def frame_signal(wave: torch.Tensor, frame: int, hop: int) -> torch.Tensor:
    n = 1 + (wave.size(-1) - frame) // hop
    return wave.unfold(-1, frame, hop)[..., :n, :]


@torch.jit.script  # expect: call 210-torchscript-deprecated
def log_mel(power: torch.Tensor, fbank: torch.Tensor, floor: float = 1e-10) -> torch.Tensor:
    mel = torch.matmul(power, fbank)
    return torch.log(mel + floor)


def mel_filterbank(n_fft: int, n_mels: int, sample_rate: int) -> torch.Tensor:
    def hz_to_mel(f: float) -> float:
        return 2595.0 * math.log10(1.0 + f / 700.0)

    mels = torch.linspace(hz_to_mel(0.0), hz_to_mel(sample_rate / 2), n_mels + 2)
    hz = 700.0 * (10 ** (mels / 2595.0) - 1.0)
    bins = torch.floor((n_fft + 1) * hz / sample_rate).long()
    fb = torch.zeros(n_fft // 2 + 1, n_mels)
    for m in range(1, n_mels + 1):
        lo, mid, hi = bins[m - 1].item(), bins[m].item(), bins[m + 1].item()
        for k in range(lo, mid):
            fb[k, m - 1] = (k - lo) / max(mid - lo, 1)
        for k in range(mid, hi):
            fb[k, m - 1] = (hi - k) / max(hi - mid, 1)
    return fb


class FrontEnd(nn.Module):
    def __init__(self, n_fft: int = 400, hop: int = 160, n_mels: int = 80, sample_rate: int = 16000):
        super().__init__()
        self.n_fft = n_fft
        self.hop = hop
        self.register_buffer("window", torch.hann_window(n_fft))
        self.register_buffer("fbank", mel_filterbank(n_fft, n_mels, sample_rate))

    def forward(self, wave: torch.Tensor, lengths: Optional[torch.Tensor] = None) -> Tuple[torch.Tensor, torch.Tensor]:
        frames = frame_signal(wave, self.n_fft, self.hop) * self.window
        power = torch.fft.rfft(frames, dim=-1).abs().pow(2)
        feats = log_mel(power, self.fbank)
        if lengths is None:
            lengths = torch.full((wave.size(0),), feats.size(1), dtype=torch.long)
        else:
            lengths = 1 + (lengths - self.n_fft) // self.hop
        if not torch.jit.is_scripting():
            self._debug_stats(feats)
        return feats, lengths

    @torch.jit.ignore
    def _debug_stats(self, feats: torch.Tensor) -> None:
        if os.environ.get("FRONTEND_DEBUG"):
            print("feats", tuple(feats.shape), float(feats.mean()))

    @torch.jit.unused
    def plot(self, feats: torch.Tensor) -> List[str]:
        return [f"{v:.2f}" for v in feats[0, :, 0].tolist()]


def package(out_dir: str, ckpt: Optional[str]) -> None:
    front = FrontEnd().eval()
    if ckpt:
        front.load_state_dict(torch.load(ckpt, map_location="cpu"))
    example = torch.randn(1, 16000)
    scripted = torch.jit.script(front)  # expect: call 210-torchscript-deprecated
    scripted.save(os.path.join(out_dir, "frontend_scripted.pt"))
    traced = torch.jit.trace(front, (example,), check_trace=True)  # expect: call 210-torchscript-deprecated
    torch.jit.save(traced, os.path.join(out_dir, "frontend_traced.pt"))
    reloaded = torch.jit.load(os.path.join(out_dir, "frontend_scripted.pt"))
    torch.testing.assert_close(reloaded(example)[0], front(example)[0])
    torch.onnx.export(front, (example,), os.path.join(out_dir, "frontend.onnx"), input_names=["wave"])


if __name__ == "__main__":
    p = argparse.ArgumentParser(description="package the front end (torch.jit.trace + torch.jit.script)")
    p.add_argument("--out", default="dist")
    p.add_argument("--ckpt")
    a = p.parse_args()
    os.makedirs(a.out, exist_ok=True)
    package(a.out, a.ckpt)
