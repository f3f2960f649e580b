# atlas-check: --from 2.13 --to 2.15
# expect-skip
"""Evaluation script from the 2019 retrieval paper, kept to reproduce Table 3.

Python 2.7 only; it has never been ported. Run it inside the legacy container:
    docker run --rm -v $PWD:/w legacy-py27 python /w/eval_retrieval_py2.py --split test
"""
import os
import sys
import cPickle as pickle
from optparse import OptionParser

import numpy as np
import torch


def whiten(features):
    cov = torch.mm(features.t(), features) / features.size(0)
    L = torch.cholesky(cov + 1e-4 * torch.eye(cov.size(0)))
    return torch.trtrs(features.t(), L, upper=False)[0].t()


def recall_at_k(sim, labels, k):
    hits = 0
    for i in xrange(sim.size(0)):
        _, idx = torch.topk(sim[i], k + 1)
        top = [j for j in idx.tolist() if j != i][:k]
        if any(labels[j] == labels[i] for j in top):
            hits += 1
    return hits / float(sim.size(0))


def main():
    parser = OptionParser()
    parser.add_option("--split", default="test")
    parser.add_option("--features", default="features/%s.pkl")
    opts, _ = parser.parse_args()

    path = opts.features % opts.split
    if not os.path.exists(path):
        print >>sys.stderr, "missing features file: %s" % path
        sys.exit(1)
    with open(path, "rb") as f:
        data = pickle.load(f)

    feats = whiten(torch.from_numpy(data["features"]).float())
    feats = feats / feats.norm(dim=1, keepdim=True).clamp(min=1e-12)
    sim = torch.mm(feats, feats.t())
    try:
        for k in (1, 5, 10):
            print "R@%d: %.4f" % (k, recall_at_k(sim, data["labels"], k))
    except Exception, e:
        print "evaluation failed:", e
        raise


if __name__ == "__main__":
    main()
