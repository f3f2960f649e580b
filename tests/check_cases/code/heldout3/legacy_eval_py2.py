# atlas-check: --from 2.13 --to 2.15
# expect-skip
# Old evaluation script from the 2017 codebase (Python 2.7, torch 0.3). Kept for reference.
import sys
import torch
from torch.autograd import Variable

def evaluate(model, loader, use_cuda=True):
    model.eval()
    correct = 0
    for x, y in loader:
        x = Variable(x, volatile=True)
        if use_cuda:
            x = x.cuda()
        out = model(x)
        correct += (out.max(1)[1].data.cpu() == y).sum()
    print "accuracy: %.4f" % (float(correct) / len(loader.dataset))
    L = torch.cholesky(torch.eye(3))
    print >>sys.stderr, "done", L

if __name__ == '__main__':
    print "usage: legacy_eval_py2.py MODEL"
