# atlas-check: --from 2.13 --to 2.15
# expect-skip
# -*- coding: utf-8 -*-
import torch
name = "café"
q = torch.qr(x)
