# expect-skip
# A Python 2 helper that still lives in the repository.
import torch

def main():
    a = torch.randn(3, 3)
    print "qr:", torch.qr(a)

if __name__ == '__main__':
    main()
