# atlas-check: --from 2.14 --to 2.15
#!/usr/bin/env python
"""Fine-tune a causal LM with the HuggingFace Trainer.

    torchrun --nproc_per_node 8 finetune_hf.py --model meta-llama/Llama-3.1-8B --data ./sft.jsonl

Selective activation checkpointing keeps matmul outputs and recomputes pointwise ops.
"""
import argparse
import functools

import torch
from datasets import load_dataset
from torch.utils.checkpoint import (
    CheckpointPolicy,
    checkpoint,
    create_selective_checkpoint_contexts,
)
from transformers import (
    AutoModelForCausalLM,
    AutoTokenizer,
    DataCollatorForLanguageModeling,
    Trainer,
    TrainingArguments,
)

_SAVE = {torch.ops.aten.mm.default, torch.ops.aten.bmm.default, torch.ops.aten.addmm.default}


def _policy(ctx, op, *args, **kwargs):
    if op in _SAVE:
        return CheckpointPolicy.MUST_SAVE
    return CheckpointPolicy.PREFER_RECOMPUTE


def sac_context():
    return create_selective_checkpoint_contexts(_policy)  # expect: call 215-sac-ordered-effects


class SACBlock(torch.nn.Module):
    """Wrap a decoder layer with selective activation checkpointing."""

    def __init__(self, layer):
        super().__init__()
        self.layer = layer

    def forward(self, *args, **kwargs):
        return checkpoint(self.layer, *args, use_reentrant=False, context_fn=sac_context, **kwargs)


class ClampedLossTrainer(Trainer):
    def compute_loss(self, model, inputs, return_outputs=False, **kwargs):
        outputs = model(**inputs)
        # soft-cap the logits like Gemma does before the loss
        logits = outputs.logits.float().clamp(-30.0, 30.0)
        loss = torch.nn.functional.cross_entropy(
            logits[:, :-1].reshape(-1, logits.size(-1)), inputs["labels"][:, 1:].reshape(-1),
            ignore_index=-100,
        )
        return (loss, outputs) if return_outputs else loss


def pick_dtype():
    if torch.cuda.is_available() and torch.cuda.is_bf16_supported():
        return torch.bfloat16
    return torch.float32


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--model", required=True)
    p.add_argument("--data", required=True)
    p.add_argument("--out", default="./out")
    p.add_argument("--sac", action="store_true")
    p.add_argument("--resume", default=None)
    args = p.parse_args()

    tok = AutoTokenizer.from_pretrained(args.model)
    tok.pad_token = tok.pad_token or tok.eos_token
    model = AutoModelForCausalLM.from_pretrained(args.model, torch_dtype=pick_dtype())
    if args.sac:
        model.model.layers = torch.nn.ModuleList(SACBlock(l) for l in model.model.layers)
    else:
        model.gradient_checkpointing_enable(gradient_checkpointing_kwargs={"use_reentrant": False})

    ds = load_dataset("json", data_files=args.data)["train"]
    ds = ds.map(functools.partial(tok, truncation=True, max_length=4096), input_columns="text",
                remove_columns=ds.column_names)

    targs = TrainingArguments(
        output_dir=args.out,
        per_device_train_batch_size=2,
        gradient_accumulation_steps=8,
        learning_rate=2e-5,
        bf16=True,
        ddp_backend="nccl",
        save_strategy="steps",
        save_steps=500,
        save_safetensors=True,
        report_to="none",
    )
    trainer = ClampedLossTrainer(
        model=model, args=targs, train_dataset=ds,
        data_collator=DataCollatorForLanguageModeling(tok, mlm=False),
    )
    if args.resume:
        extra = torch.load(f"{args.resume}/extra_state.pt", weights_only=True)
        print("resuming from step", extra["step"])
    trainer.train(resume_from_checkpoint=args.resume)


if __name__ == "__main__":
    main()
