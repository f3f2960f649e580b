# atlas-check: --from 2.13 --to 2.15
#!/usr/bin/env python
# coding: utf-8

# # Эксперимент: QR-разложение весов
# Экспорт из Jupyter.

# In[1]:


import torch, numpy as np
get_ipython().run_line_magic('matplotlib', 'inline')


# In[2]:


W = torch.randn(256, 256)
print("результат:", torch.qr(W)[0].shape)  # expect: name 214-remove-qr


# In[3]:


A = np.random.randn(5, 5)
Q, R = np.linalg.qr(A)
C = np.clip(A, 0, 1)
W2 = W.clamp(-1, 1); print("готово")  # expect: method 214-clamp-grad


# In[4]:


L = torch.cholesky(W @ W.T + torch.eye(256)); L2 = (  # expect: name 214-remove-cholesky
    torch.cholesky(W @ W.T))  # expect: name 214-remove-cholesky
