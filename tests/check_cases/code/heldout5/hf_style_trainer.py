# atlas-check: --from 2.3 --to 2.13
"""A trimmed-down Trainer in the style of transformers.Trainer, for our seq2seq models.
The scaler was moved to torch.amp last quarter; the autocast context was not yet."""
import json
import os
import random
from dataclasses import dataclass, field
from typing import Dict, Optional

import numpy as np
import safetensors.torch
import torch
import torch.cuda.amp as amp
from torch.utils.data import DataLoader

WEIGHTS_NAME = "pytorch_model.bin"
SAFE_WEIGHTS_NAME = "model.safetensors"
OPTIMIZER_NAME = "optimizer.pt"
TRAINER_STATE_NAME = "trainer_state.json"


@dataclass
class TrainingArguments:
    output_dir: str
    learning_rate: float = 5e-5
    per_device_train_batch_size: int = 8
    fp16: bool = False
    bf16: bool = False
    torch_compile: bool = False
    device: str = "cuda"
    extra: Dict[str, str] = field(default_factory=dict)


class Trainer:
    def __init__(self, model, args: TrainingArguments, train_dataset, data_collator=None):
        self.args = args
        self.model = model.to(args.device)
        if args.torch_compile:
            self.model = torch.compile(self.model)
        self.train_dataset = train_dataset
        self.data_collator = data_collator
        self.optimizer = torch.optim.AdamW(self.model.parameters(), lr=args.learning_rate)
        self.use_amp = args.fp16 or args.bf16
        self.amp_dtype = torch.bfloat16 if args.bf16 else torch.float16
        self.scaler = torch.amp.GradScaler("cuda", enabled=args.fp16)
        self.global_step = 0

    def autocast_smart_context_manager(self):
        return amp.autocast(enabled=self.use_amp, dtype=self.amp_dtype)  # expect: name 24-amp-device-specific

    def get_train_dataloader(self) -> DataLoader:
        return DataLoader(self.train_dataset, batch_size=self.args.per_device_train_batch_size,
                          shuffle=True, collate_fn=self.data_collator)

    def training_step(self, inputs: Dict[str, torch.Tensor]) -> float:
        self.model.train()
        inputs = {k: v.to(self.args.device) for k, v in inputs.items()}
        with self.autocast_smart_context_manager():
            loss = self.model(**inputs).loss
        self.scaler.scale(loss).backward()
        self.scaler.step(self.optimizer)
        self.scaler.update()
        self.optimizer.zero_grad(set_to_none=True)
        self.global_step += 1
        return loss.detach().item()

    @torch.no_grad()
    def prediction_step(self, inputs: Dict[str, torch.Tensor]):
        self.model.eval()
        with torch.amp.autocast("cuda", dtype=self.amp_dtype, enabled=self.use_amp):
            return self.model(**{k: v.to(self.args.device) for k, v in inputs.items()}).logits

    def _load_from_checkpoint(self, resume_from_checkpoint: str) -> None:
        safe_file = os.path.join(resume_from_checkpoint, SAFE_WEIGHTS_NAME)
        if os.path.isfile(safe_file):
            state_dict = safetensors.torch.load_file(safe_file, device="cpu")
        else:
            state_dict = torch.load(os.path.join(resume_from_checkpoint, WEIGHTS_NAME), map_location="cpu")  # no finding since issue 42: a state dict goes into load_state_dict
        self.model.load_state_dict(state_dict, strict=False)

    def _load_optimizer_and_scheduler(self, checkpoint: str) -> None:
        opt_state = torch.load(os.path.join(checkpoint, OPTIMIZER_NAME), map_location=self.args.device, weights_only=True)
        self.optimizer.load_state_dict(opt_state)
        self.scaler.load_state_dict(torch.load(os.path.join(checkpoint, "scaler.pt")))  # no finding since issue 42: a state dict goes straight into load_state_dict (this line expected one before)

    def _load_rng_state(self, checkpoint: str) -> None:
        # Holds NumPy's RNG state, which the weights-only unpickler refuses.
        rng = torch.load(os.path.join(checkpoint, "rng_state.pth"), weights_only=False)
        random.setstate(rng["python"])
        np.random.set_state(rng["numpy"])
        torch.random.set_rng_state(rng["cpu"])
        if torch.cuda.is_available():
            torch.cuda.random.set_rng_state_all(rng["cuda"])

    def _load_trainer_state(self, checkpoint: str) -> Optional[dict]:
        path = os.path.join(checkpoint, TRAINER_STATE_NAME)
        if not os.path.isfile(path):
            return None
        with open(path) as f:
            state = json.load(f)
        self.global_step = state["global_step"]
        return state
