# atlas-check: --from 2.13 --to 2.15
# expect-skip
# Evaluation script from the 2017 baseline (Python 2.7, torch 0.3); kept for reference only.
import sys
import torch

def evaluate(model, loader):
    correct = 0
    for x, y in loader:
        out = model(torch.autograd.Variable(x, volatile=True))
        correct += (out.data.max(1)[1] == y).sum()
    print "accuracy: %.4f" % (float(correct) / len(loader.dataset))

def whiten(C):
    L = torch.cholesky(C)
    return torch.inverse(L)

if __name__ == "__main__":
    try:
        model = torch.load(sys.argv[1])
    except IOError, e:
        print >>sys.stderr, "cannot load", e
        sys.exit(1)
