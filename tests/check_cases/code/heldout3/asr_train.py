# atlas-check: --from 2.13 --to 2.15
"""Conformer-CTC + large-vocabulary LM head for streaming ASR.

Features: 80-bin log-mel, SpecAugment, utterance-level CMVN.
Runs on CUDA, or on Apple Silicon through MPS for local debugging.
"""
import argparse
import json
import logging

import numpy as np
import scipy.signal
import torch
import torch.nn as nn
import torchaudio
from torch.nn import LinearCrossEntropyLoss, LinearCrossEntropyOptions

log = logging.getLogger("asr")

# Loss options per vocabulary size; read by build_lm_head(). "balanced" was the old default.
LCE_PRESETS = {
    "small": {"acc_policy": "compact", "batch_chunk_size": 8192},
    "large": {"acc_policy": "balanced", "batch_chunk_size": 2048},  # expect: keyword 214-acc-policy-balanced
}


def default_device() -> torch.device:
    if torch.cuda.is_available():
        return torch.device("cuda")
    if getattr(torch.backends, "mps", None) is not None and torch.backends.mps.is_built():
        return torch.device("mps")
    return torch.device("cpu")


class LogMel(nn.Module):
    def __init__(self, sr: int = 16000, n_mels: int = 80):
        super().__init__()
        self.mel = torchaudio.transforms.MelSpectrogram(sample_rate=sr, n_fft=400, hop_length=160, n_mels=n_mels)

    def forward(self, wav: torch.Tensor) -> torch.Tensor:
        spec = self.mel(wav)
        spec.clamp_(min=1e-10)  # expect: method 214-clamp-grad
        return spec.log()


def cmvn(feats: torch.Tensor) -> torch.Tensor:
    mean = feats.mean(dim=-1, keepdim=True)
    std = feats.std(dim=-1, keepdim=True)
    return (feats - mean) / (std + 1e-5)


def reference_features(wav: np.ndarray, sr: int = 16000) -> np.ndarray:
    """NumPy/SciPy reference used in the unit tests (no torch involved)."""
    _, _, z = scipy.signal.stft(wav, fs=sr, nperseg=400, noverlap=240)
    power = np.abs(z) ** 2
    return np.log(np.clip(power, 1e-10, None))


class SpecAugment(nn.Module):
    def __init__(self, freq_mask: int = 27, time_mask: int = 100, n_masks: int = 2):
        super().__init__()
        self.f = torchaudio.transforms.FrequencyMasking(freq_mask)
        self.t = torchaudio.transforms.TimeMasking(time_mask)
        self.n = n_masks

    def forward(self, x):
        for _ in range(self.n):
            x = self.t(self.f(x))
        return x


def build_lm_head(d_model: int, vocab: int, preset: str) -> LinearCrossEntropyLoss:
    opts = LinearCrossEntropyOptions(**LCE_PRESETS[preset])
    return LinearCrossEntropyLoss(d_model, vocab, options=opts, ignore_index=-100)


def build_aux_head(d_model: int, vocab: int) -> LinearCrossEntropyLoss:
    opts = LinearCrossEntropyOptions(acc_policy="balanced")  # expect: keyword 214-acc-policy-balanced
    return LinearCrossEntropyLoss(d_model, vocab, options=opts)


class ASRModel(nn.Module):
    def __init__(self, vocab: int, d_model: int = 256, preset: str = "large"):
        super().__init__()
        self.frontend = LogMel()
        self.specaug = SpecAugment()
        self.encoder = torchaudio.models.Conformer(input_dim=80, num_heads=4, ffn_dim=1024, num_layers=12, depthwise_conv_kernel_size=31)
        self.proj = nn.Linear(80, d_model)
        self.ctc_head = nn.Linear(d_model, vocab + 1)
        self.lm_loss = build_lm_head(d_model, vocab, preset)
        self.ctc = nn.CTCLoss(blank=vocab, zero_infinity=True)

    def forward(self, wav, wav_lens, tokens, token_lens):
        feats = cmvn(self.frontend(wav))
        if self.training:
            feats = self.specaug(feats)
        feats = feats.transpose(1, 2)
        frame_lens = wav_lens // 160 + 1
        enc, enc_lens = self.encoder(feats, frame_lens)
        h = self.proj(enc)
        logp = self.ctc_head(h).log_softmax(-1).transpose(0, 1)
        ctc = self.ctc(logp, tokens, enc_lens, token_lens)
        return ctc


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--manifest", required=True)
    ap.add_argument("--vocab", type=int, default=32000)
    ap.add_argument("--preset", choices=sorted(LCE_PRESETS), default="large")
    ap.add_argument("--epochs", type=int, default=50)
    args = ap.parse_args()

    dev = default_device()
    model = ASRModel(args.vocab, preset=args.preset).to(dev)
    opt = torch.optim.AdamW(model.parameters(), lr=1e-3, weight_decay=1e-2)
    with open(args.manifest) as f:
        items = [json.loads(line) for line in f]
    log.info("training on %d utterances on %s", len(items), dev)
    for epoch in range(args.epochs):
        for it in items:
            wav, sr = torchaudio.load(it["audio"])
            wav = torchaudio.functional.resample(wav, sr, 16000).to(dev)
            tokens = torch.tensor(it["tokens"], device=dev).unsqueeze(0)
            loss = model(wav, torch.tensor([wav.shape[-1]], device=dev), tokens, torch.tensor([tokens.shape[-1]], device=dev))
            opt.zero_grad()
            loss.backward()
            opt.step()


if __name__ == "__main__":
    main()
