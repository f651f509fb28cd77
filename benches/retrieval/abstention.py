#!/usr/bin/env python3
"""Can a search tell "no tool fits" from its scores? The measurement behind issue 36's third
point (abstain on <= 2% of requests whose tool is in the pool, on >= 80% with it removed).

  abstention.py OUT_DIR [MODEL_DIR]

OUT_DIR holds pool.json and queries.json as `bfcl.py build` / `metatool.py build` write them.
For every request, each scorer's best score over the pool is taken twice: with the request's
relevant tools in the pool ("in") and with them removed ("out": the best of the others, what a
search would show when the right tool is missing). A global threshold abstains below it, so
what matters is how well "in" scores stand above "out" scores across requests:

- `auc`: the chance that a random request's "in" score is above a random request's "out"
  score (1.0 separates perfectly, 0.5 is a coin);
- `abstain_out@2%`: the share of "out" requests abstained on by the threshold that abstains on
  exactly 2% of "in" requests of this same set (calibrated on the set it is measured on: an
  upper bound for any threshold chosen elsewhere).

Scorers: BM25 (rank-bm25 Okapi, as `bfcl.py bm25`; raw and as a share of the query's summed
idf), and with MODEL_DIR all-MiniLM-L6-v2 itself (`minilm.py`, cosine; tool text as `bfcl.py
embed`). Prints one JSON object.
"""
import json
import re
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).parent))
from bfcl import WORD, bm25_tokens  # noqa: E402


def separation(best_in, best_out):
    best_in, best_out = np.asarray(best_in), np.asarray(best_out)
    # AUC by ranks (Mann-Whitney U), ties counted half.
    both = np.concatenate([best_in, best_out])
    order = both.argsort(kind="stable")
    ranks = np.empty(len(both))
    sorted_values = both[order]
    i = 0
    while i < len(both):
        j = i
        while j + 1 < len(both) and sorted_values[j + 1] == sorted_values[i]:
            j += 1
        ranks[order[i:j + 1]] = (i + j) / 2 + 1
        i = j + 1
    n_in, n_out = len(best_in), len(best_out)
    auc = (ranks[:n_in].sum() - n_in * (n_in + 1) / 2) / (n_in * n_out)
    threshold = np.quantile(best_in, 0.02)
    return {
        "auc": round(float(auc), 3),
        "abstain_in": round(float(np.mean(best_in < threshold)), 3),
        "abstain_out@2%": round(float(np.mean(best_out < threshold)), 3),
    }


def in_and_out(scores, tools, queries):
    """Per query, the best score with its relevant tools and without them."""
    best_in, best_out = [], []
    names = [t["name"] for t in tools]
    for row, q in zip(scores, queries):
        rel = set(q["relevant"])
        keep = np.array([n not in rel for n in names])
        best_in.append(float(row.max()))
        best_out.append(float(row[keep].max()))
    return best_in, best_out


def main():
    out_dir = sys.argv[1]
    model_dir = sys.argv[2] if len(sys.argv) > 2 else None
    tools = json.loads(Path(out_dir, "pool.json").read_text())["tools"]
    queries = json.loads(Path(out_dir, "queries.json").read_text())
    if not tools or not queries:
        sys.exit(f"abstention.py: {out_dir} has no tools or no queries")
    from rank_bm25 import BM25Okapi

    index = BM25Okapi([bm25_tokens(t) for t in tools])
    raw, share = [], []
    for q in queries:
        words = WORD.findall(q["query"].lower())
        s = np.asarray(index.get_scores(words))
        raw.append(s)
        most = sum(index.idf.get(w, 0.0) for w in words)
        share.append(s / most if most > 0 else s * 0)
    result = {
        "set": Path(out_dir).name,
        "queries": len(queries),
        "bm25": separation(*in_and_out(raw, tools, queries)),
        "bm25_share_of_query_idf": separation(*in_and_out(share, tools, queries)),
    }
    if model_dir:
        from minilm import Model

        model = Model(model_dir)

        def tool_text(t):
            params = " ".join((t.get("inputSchema") or {}).get("properties", {}).keys())
            return f"{re.sub(r'[_.]', ' ', t['name'])}: {t.get('description', '')} ({params})"

        tool_vectors = model.encode([tool_text(t) for t in tools])
        query_vectors = model.encode([q["query"] for q in queries])
        result["minilm_cosine"] = separation(*in_and_out(query_vectors @ tool_vectors.T, tools, queries))
    print(json.dumps(result))


if __name__ == "__main__":
    main()
