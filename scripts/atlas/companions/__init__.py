"""The packages installed beside torch (issue 41): what the index says of their releases
(``read_index``: ``atlas companions`` writes data/companions.lock.yaml) and which torch each
release works with (``pairing``: the lock, read with data/companions.yaml's cited signals)."""
