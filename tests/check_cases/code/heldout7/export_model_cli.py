# atlas-check: --from 2.7 --to 2.11
"""Export a trained classifier for serving: ONNX, TorchScript, torch.export and int8.

    python export_model_cli.py --ckpt runs/best.pt --format onnx --out model.onnx
"""
import argparse
import json
import os

import torch
import torch.nn as nn

FORMATS = ("onnx", "onnx-dynamo", "torchscript", "trace", "exported", "int8", "qat")


class ExportReport:
    """Collects what was written; its export() only dumps the JSON report."""

    def __init__(self, path):
        self.path = path
        self.items = []

    def add(self, fmt, out):
        self.items.append({"format": fmt, "file": out, "bytes": os.path.getsize(out)})

    def export(self):
        with open(self.path, "w") as fh:
            json.dump(self.items, fh, indent=2)


def load_model(ckpt, num_classes):
    from torchvision.models import resnet50

    model = resnet50(num_classes=num_classes)
    state = torch.load(ckpt, map_location="cpu", weights_only=True)
    model.load_state_dict(state["model"])
    return model.eval()


def to_onnx(model, example, out, opset):
    torch.onnx.export(  # expect: call 29-onnx-dynamo-default
        model,
        (example,),
        out,
        input_names=["images"],
        output_names=["logits"],
        opset_version=opset,
        dynamic_axes={"images": {0: "batch"}, "logits": {0: "batch"}},
    )


def to_onnx_dynamo(model, example, out, opset):
    batch = torch.export.Dim("batch", min=1, max=256)
    torch.onnx.export(model, (example,), out, dynamo=True, opset_version=opset, dynamic_shapes=({0: batch},))


def to_torchscript(model, example, out, trace=False):
    if trace:
        module = torch.jit.trace(model, example)  # expect: call 210-torchscript-deprecated
    else:
        module = torch.jit.script(model)  # expect: call 210-torchscript-deprecated
    module = torch.jit.freeze(module)
    torch.jit.save(module, out)


def to_exported(model, example, out):
    ep = torch.export.export(model, (example,))  # expect: call 28-export-strict-false
    torch.export.save(ep, out)
    return ep


def to_exported_strict(model, example, out):
    ep = torch.export.export(model, (example,), strict=True)
    torch.export.save(ep, out)


def to_int8(model, out):
    qmodel = torch.ao.quantization.quantize_dynamic(model, {nn.Linear}, dtype=torch.qint8)  # expect: name 28-ao-quantization-deprecated
    torch.save(qmodel.state_dict(), out)


def to_qat_graph(model, example):
    if hasattr(torch.export, "export_for_training"):
        return torch.export.export_for_training(model, (example,), strict=False)  # expect: name 211-export-for-training-removed guarded
    return torch.export.export(model, (example,), strict=False)


def to_qat_graph_legacy(model, example):
    # kept for the 2.6 branch of the serving repo
    return torch.export.export_for_training(model, (example,))  # expect: call 28-export-strict-false; name 211-export-for-training-removed


def main():
    p = argparse.ArgumentParser(description="export via torch.onnx.export or torch.jit.trace")
    p.add_argument("--ckpt", required=True)
    p.add_argument("--format", choices=FORMATS, default="onnx")
    p.add_argument("--out", required=True)
    p.add_argument("--num-classes", type=int, default=1000)
    p.add_argument("--opset", type=int, default=17)
    args = p.parse_args()

    model = load_model(args.ckpt, args.num_classes)
    example = torch.randn(1, 3, 224, 224)
    report = ExportReport(args.out + ".json")
    if args.format == "onnx":
        to_onnx(model, example, args.out, args.opset)
    elif args.format == "onnx-dynamo":
        to_onnx_dynamo(model, example, args.out, args.opset)
    elif args.format in ("torchscript", "trace"):
        to_torchscript(model, example, args.out, trace=args.format == "trace")
    elif args.format == "exported":
        to_exported(model, example, args.out)
    elif args.format == "int8":
        to_int8(model, args.out)
    else:
        torch.export.save(to_qat_graph(model, example), args.out)
    report.add(args.format, args.out)
    report.export()


if __name__ == "__main__":
    main()
