# atlas-check: --from 2.13 --to 2.15
#!/usr/bin/env python
# coding: utf-8

# # Gaussian sampling and CPU inference experiments
#
# Exported from `experiments/sampling.ipynb` with `jupyter nbconvert --to script`.

# In[1]:


get_ipython().run_line_magic('load_ext', 'autoreload')
get_ipython().run_line_magic('autoreload', '2')
get_ipython().run_line_magic('matplotlib', 'inline')


# In[2]:


import importlib
import sys

import matplotlib.pyplot as plt
import numpy as np
import torch
from torch.utils import mkldnn as mkldnn_utils

import helpers


# In[3]:


# helpers.py changes a lot while exploring; reload it instead of restarting the kernel
importlib.reload(helpers)


# In[4]:


device = "mps" if torch.backends.mps.is_available() else "cpu"  # expect: name 215-mps-macos15
print(torch.__version__, device, torch.backends.mps.is_built())


# In[5]:


# A random covariance and samples from N(0, C). torch.cholesky is what the paper's code used.
d = 16
A = torch.randn(d, d, dtype=torch.float64)
C = A @ A.T + 1e-3 * torch.eye(d, dtype=torch.float64)
L = torch.cholesky(C)  # expect: name 214-remove-cholesky
samples = torch.randn(10_000, d, dtype=torch.float64) @ L.T
emp = np.cov(samples.numpy(), rowvar=False)
print(np.abs(emp - C.numpy()).max())


# In[6]:


xs = torch.linspace(-3, 3, 601, requires_grad=True)
ys = xs.clamp(-1, 1)  # expect: method 214-clamp-grad
ys.sum().backward()
plt.plot(xs.detach(), xs.grad)
plt.title("d clamp(x) / dx")


# In[7]:


# CPU inference with the oneDNN (mkldnn) layout
lin = torch.nn.Linear(256, 256).eval()
fast = mkldnn_utils.MkldnnLinear(lin, torch.float)
model = mkldnn_utils.to_mkldnn(torch.nn.Sequential(torch.nn.Linear(256, 10)).eval())
x = torch.randn(32, 256)
with torch.no_grad():
    out = fast(x.to_mkldnn()).to_dense()
out.shape


# In[8]:


# After upgrading torch in the notebook with %pip, pick up the new version without restarting
get_ipython().run_line_magic('pip', 'install -q --upgrade torch')
importlib.reload(torch)  # expect: reload 215-import-once
print(torch.__version__)


# In[ ]:




