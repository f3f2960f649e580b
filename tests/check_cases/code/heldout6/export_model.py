# atlas-check: --from 2.7 --to 2.9
"""Export a trained classifier to ExportedProgram, ONNX and an int8 variant.

    python -m tools.export_model --ckpt runs/best.pt --out dist/

The serving team consumes dist/model.onnx; the .pt2 file is for the edge runtime.
"""
import argparse
import logging
from pathlib import Path

import onnx
import onnxruntime as ort
import torch
import torch.nn as nn
from torch.export import Dim
from torch.ao.quantization import get_default_qconfig_mapping  # expect: name 28-ao-quantization-deprecated
from torch.ao.quantization.quantize_fx import convert_fx, prepare_fx  # expect: name 28-ao-quantization-deprecated

from classifier.model import build_model

log = logging.getLogger("export")


def load_model(ckpt: str) -> nn.Module:
    model = build_model(num_classes=1000)
    # the weights_only flip happened before this window
    model.load_state_dict(torch.load(ckpt, map_location="cpu"))
    return model.eval()


def export_program(model, example, dynamic: bool):
    if dynamic:
        batch = Dim("batch", min=1, max=64)
        return torch.export.export(model, (example,), dynamic_shapes=({0: batch},))  # expect: call 28-export-strict-false
    return torch.export.export(model, (example,), strict=True)


def export_for_finetune(model, example):
    if hasattr(torch.export, "export_for_training"):
        return torch.export.export_for_training(model, (example,))  # expect: call 28-export-strict-false guarded
    else:
        return torch.export.export(model, (example,), strict=False)


def export_training_graph(model, example):
    # used by the QAT notebook
    return torch.export.export_for_training(model, (example,), strict=True)


def export_onnx(model, example, out: Path):
    path = out / "model.onnx"
    try:
        torch.onnx.export(model, (example,), str(path), dynamo=True, opset_version=18)
    except Exception as err:  # the new exporter still trips on our custom pooling op
        log.warning("dynamo export failed (%s); retrying", err)
        torch.onnx.export(model, (example,), str(path), opset_version=17, input_names=["pixels"])  # expect: call 29-onnx-dynamo-default
    onnx.checker.check_model(onnx.load(str(path)))
    return path


def export_onnx_legacy(model, example, out: Path):
    path = out / "model_ts.onnx"
    torch.onnx.export(model, (example,), str(path), dynamo=False, opset_version=17)
    return path


def export_onnx_quick(model, example, out: Path):
    torch.onnx.export(model, (example,), str(out / "quick.onnx"))  # atlas: ignore


def quantize_fx(model, example):
    qmap = get_default_qconfig_mapping("x86")  # reported at its import (one finding per cause)
    prepared = prepare_fx(model, qmap, (example,))  # reported at its import (one finding per cause)
    for _ in range(8):
        prepared(torch.randn_like(example))
    return convert_fx(prepared)  # reported at its import (one finding per cause)


def quantize_dynamic_int8(model):
    try:
        from torchao.quantization import Int8DynamicActivationInt8WeightConfig, quantize_
    except ImportError:
        from torch.ao.quantization import quantize_dynamic  # expect: name 28-ao-quantization-deprecated guarded

        return quantize_dynamic(model, {nn.Linear}, dtype=torch.qint8)  # reported at its import (one finding per cause)
    quantize_(model, Int8DynamicActivationInt8WeightConfig())
    return model


def check_onnx(path: Path, example) -> float:
    session = ort.InferenceSession(str(path), providers=["CPUExecutionProvider"])
    (got,) = session.run(None, {session.get_inputs()[0].name: example.numpy()})
    ref = example.new_tensor(got)  # new_tensor's device change belongs to 2.7, outside this window
    return float((ref - torch.from_numpy(got)).abs().max())


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--ckpt", required=True)
    ap.add_argument("--out", type=Path, default=Path("dist"))
    ap.add_argument("--dynamic", action="store_true")
    args = ap.parse_args()
    args.out.mkdir(parents=True, exist_ok=True)

    model = load_model(args.ckpt)
    example = torch.randn(1, 3, 224, 224)
    ep = export_program(model, example, args.dynamic)
    torch.export.save(ep, str(args.out / "model.pt2"))
    onnx_path = export_onnx(model, example, args.out)
    log.info("onnx max abs diff %.2e", check_onnx(onnx_path, example))
    int8 = quantize_dynamic_int8(load_model(args.ckpt))
    torch.save(int8.state_dict(), args.out / "model_int8.pt")
    log.info("note: torch.export.export(...) traces with strict=False by default now")


if __name__ == "__main__":
    main()
