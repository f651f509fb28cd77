#!/usr/bin/env python3
"""Tool-retrieval benchmark on the Berkeley Function Calling Leaderboard data.

Builds the pool and the queries described in README.md ("Search quality"):

- pool: every distinct function of the single-turn categories simple_python, multiple,
  parallel and parallel_multiple, names with characters outside [A-Za-z0-9_-] replaced by
  "_" and type names mapped to JSON Schema's as BFCL's harness maps them for providers
  (`json_schema_types`), written as one MCP `tools/list` result (so that, merged as a
  server, every tool is deferred);
- queries: each entry's user message; relevant: the function names of its ground truth in
  possible_answer/.

Then ranks each query with the BM25 baseline (the PyPI package rank-bm25, Okapi BM25 over
name words + description + parameter names: an implementation independent of ours) and
prints Recall@1, Recall@5 and MRR@10. Our own figures come from `cargo run --example
retrieval` on the files written here; scripts/retrieval-bench.sh runs both.

Usage:
  bfcl.py build DATA_DIR OUT_DIR [CATEGORY,...]
                                     write OUT_DIR/pool.json and OUT_DIR/queries.json
                                     (default categories: the four above; the README also
                                     reports live_simple,live_multiple as a held-out check)
  bfcl.py bm25 OUT_DIR               print the baseline's figures (JSON) for those files
  bfcl.py embed OUT_DIR MODEL_DIR    the same for all-MiniLM-L6-v2 alone (cosine of mean-pooled
                                     embeddings; minilm.py says where the model comes from)
  bfcl.py fixture DATA_DIR OUT_FILE  write the test fixture (OUT_FILE and retrieval-pool.json
                                     beside it; see tests/data/bfcl/README.md)

DATA_DIR is the unpacked wheel's bfcl_eval/data folder:
  pip download bfcl-eval --no-deps -d /tmp/bfcl && cd /tmp/bfcl && unzip -q bfcl_eval-*.whl
"""

import json
import re
import sys
import time
from pathlib import Path

CATEGORIES = ["simple_python", "multiple", "parallel", "parallel_multiple"]
MAX_QUERY_BYTES = 2000


def sanitize(name):
    return re.sub(r"[^A-Za-z0-9_-]", "_", name)


# BFCL's own table (bfcl_eval/constants/type_mappings.py, GORILLA_TO_OPENAPI; a name it lacks
# becomes "string"): its harness maps the data's Python and Java type names ("dict", "float",
# "tuple", "any", "HashMap", ...) to JSON Schema's before it sends a function to a provider
# (model_handler/utils.py, convert_to_tool), because providers refuse the names as they are.
# Mapped here the same way, in every subschema; nothing else changes (the harness also appends
# " This is a float type value." to descriptions, which would change what is searched).
GORILLA_TO_OPENAPI = {
    "integer": "integer", "number": "number", "float": "number", "string": "string",
    "boolean": "boolean", "bool": "boolean", "array": "array", "list": "array",
    "dict": "object", "object": "object", "tuple": "array", "any": "string", "byte": "integer",
    "short": "integer", "long": "integer", "double": "number", "char": "string",
    "ArrayList": "array", "Array": "array", "HashMap": "object", "Hashtable": "object",
    "Queue": "array", "Stack": "array", "Any": "string", "String": "string", "Bigint": "integer",
}
SCHEMA_KEYS = {"items", "additionalProperties", "not", "contains", "propertyNames", "if", "then", "else"}
SCHEMA_MAP_KEYS = {"properties", "patternProperties", "$defs", "definitions"}
SCHEMA_LIST_KEYS = {"anyOf", "oneOf", "allOf", "prefixItems"}


def json_schema_types(schema):
    """The schema with BFCL's type names mapped to JSON Schema's (above), keys in order."""
    if not isinstance(schema, dict):
        return schema
    out = {}
    for key, value in schema.items():
        if key == "type" and isinstance(value, str):
            value = GORILLA_TO_OPENAPI.get(value, "string")
        elif key in SCHEMA_KEYS:
            value = json_schema_types(value)
        elif key in SCHEMA_MAP_KEYS and isinstance(value, dict):
            value = {name: json_schema_types(v) for name, v in value.items()}
        elif key in SCHEMA_LIST_KEYS and isinstance(value, list):
            value = [json_schema_types(v) for v in value]
        out[key] = value
    return out


def read_jsonl(path):
    with open(path, encoding="utf-8") as f:
        return [json.loads(line) for line in f if line.strip()]


def category_file(data_dir, folder, category):
    # The file names carry the dataset version (BFCL_v4_multiple.json); take whichever is there.
    matches = sorted(Path(data_dir, folder).glob(f"BFCL_v*_{category}.json"))
    if not matches:
        sys.exit(f"no BFCL_v*_{category}.json in {Path(data_dir, folder)}")
    return matches[-1]


def load(data_dir, categories=CATEGORIES):
    """Returns (tools, queries) in data order; tools deduplicated by sanitized name."""
    tools, seen, queries = [], set(), []
    for category in categories:
        entries = read_jsonl(category_file(data_dir, "", category))
        answers = {a["id"]: a for a in read_jsonl(category_file(data_dir, "possible_answer", category))}
        for entry in entries:
            for fn in entry["function"]:
                name = sanitize(fn["name"])
                if name in seen:
                    continue
                seen.add(name)
                tools.append({
                    "name": name,
                    "description": fn.get("description", ""),
                    "inputSchema": json_schema_types(fn.get("parameters", {"type": "object"})),
                })
            turn = entry["question"][0]
            text = "\n".join(m["content"] for m in turn if m.get("role") == "user")
            # tool_search takes queries of at most 2,000 bytes (a few live queries are
            # longer); both rankings get the same cut text.
            text = text.encode("utf-8")[:MAX_QUERY_BYTES].decode("utf-8", "ignore")
            relevant = []
            for call in answers[entry["id"]]["ground_truth"]:
                for fname in call:
                    if sanitize(fname) not in relevant:
                        relevant.append(sanitize(fname))
            queries.append({"id": entry["id"], "query": text, "relevant": relevant})
    return tools, queries


WORD = re.compile(r"[a-z0-9]+")


def bm25_tokens(tool):
    """Name words + description + parameter names, lower-cased words."""
    name_words = re.sub(r"([a-z0-9])([A-Z])", r"\1 \2", tool["name"]).lower()
    params = " ".join(tool["inputSchema"].get("properties", {}).keys())
    params = re.sub(r"([a-z0-9])([A-Z])", r"\1 \2", params).lower()
    text = f"{name_words} {tool['description'].lower()} {params}".replace("_", " ")
    return WORD.findall(text)


def metrics(rankings, queries):
    """Recall@k: the share of a query's relevant tools in its top k, averaged over queries
    (a query with two relevant tools scores 0.5 at k=1 when the first hit is one of them,
    so Recall@1 counts a hit against min(k, relevant)); MRR@10: 1/rank of the first
    relevant tool within the top 10."""
    r1 = r5 = mrr = 0.0
    for ranked, q in zip(rankings, queries):
        rel = set(q["relevant"])
        r1 += len(rel & set(ranked[:1])) / min(1, len(rel))
        r5 += len(rel & set(ranked[:5])) / min(5, len(rel))
        for i, name in enumerate(ranked[:10]):
            if name in rel:
                mrr += 1 / (i + 1)
                break
    n = len(queries)
    return {"queries": n, "recall@1": r1 / n, "recall@5": r5 / n, "mrr@10": mrr / n}


def bm25(out_dir):
    from rank_bm25 import BM25Okapi
    import importlib.metadata

    tools = json.loads(Path(out_dir, "pool.json").read_text())["tools"]
    queries = json.loads(Path(out_dir, "queries.json").read_text())
    started = time.perf_counter()
    index = BM25Okapi([bm25_tokens(t) for t in tools])
    built = time.perf_counter() - started
    names = [t["name"] for t in tools]
    rankings = []
    started = time.perf_counter()
    for q in queries:
        scores = index.get_scores(WORD.findall(q["query"].lower()))
        order = sorted(range(len(names)), key=lambda i: (-scores[i], i))
        rankings.append([names[i] for i in order[:10]])
    elapsed = time.perf_counter() - started
    result = metrics(rankings, queries)
    result.update({
        "ranking": f"BM25 (rank-bm25 {importlib.metadata.version('rank-bm25')}, Okapi)",
        "tools": len(tools),
        "index_ms": built * 1000,
        "query_us": elapsed / len(queries) * 1e6,
    })
    return result


def embed(out_dir, model_dir):
    """The embedding model alone: each tool as "name words: description (parameters)"."""
    import numpy as np
    from minilm import Model

    tools = json.loads(Path(out_dir, "pool.json").read_text())["tools"]
    queries = json.loads(Path(out_dir, "queries.json").read_text())
    model = Model(model_dir)

    def tool_text(t):
        params = " ".join((t.get("inputSchema") or {}).get("properties", {}).keys())
        return f"{re.sub(r'[_.]', ' ', t['name'])}: {t.get('description', '')} ({params})"

    start = time.perf_counter()
    tool_vectors = model.encode([tool_text(t) for t in tools])
    indexed = time.perf_counter()
    query_vectors = model.encode([q["query"] for q in queries])
    done = time.perf_counter()
    rankings = [[tools[j]["name"] for j in np.argsort(-s, kind="stable")[:10]] for s in query_vectors @ tool_vectors.T]
    result = metrics(rankings, queries)
    result["index_seconds"] = round(indexed - start, 2)
    result["query_ms"] = round((done - indexed) * 1000 / max(1, len(queries)), 2)
    return result


def fixture(data_dir, out_file):
    """The test fixture: the whole pool and every third of each ten queries (300 of 1,000,
    all four categories), with the baseline's figures on exactly that fixture."""
    import importlib.metadata
    import tempfile

    tools, queries = load(data_dir)
    chosen = [q for i, q in enumerate(queries) if i % 10 in (0, 3, 6)]
    with tempfile.TemporaryDirectory() as tmp:
        Path(tmp, "pool.json").write_text(json.dumps({"tools": tools}))
        Path(tmp, "queries.json").write_text(json.dumps(chosen))
        baseline = bm25(tmp)
    version = importlib.metadata.version("bfcl-eval") if has_dist("bfcl-eval") else wheel_version(data_dir)
    doc = {
        "source": f"Berkeley Function Calling Leaderboard, PyPI package bfcl-eval {version}, "
        "folder bfcl_eval/data (categories simple_python, multiple, parallel, parallel_multiple)",
        "licence": "Apache-2.0",
        "derived_by": "benches/retrieval/bfcl.py fixture (queries whose index mod 10 is 0, 3 or 6)",
        "bm25": {k: round(baseline[k], 4) for k in ("recall@1", "recall@5", "mrr@10")},
        "bm25_ranking": baseline["ranking"],
        "pool": "retrieval-pool.json (an MCP tools/list result, merged as one server)",
        "queries": chosen,
    }
    # The pool as its own file: every runner (Rust, Node, Python) merges its exact text, as
    # a server's tools/list arrives (a JS parse-and-stringify would turn 2.0 into 2).
    pool = Path(out_file).with_name("retrieval-pool.json")
    pool.write_text(json.dumps({"tools": tools}, separators=(",", ":")) + "\n")
    Path(out_file).write_text(json.dumps(doc, separators=(",", ":")) + "\n")
    print(f"{len(tools)} tools -> {pool}, {len(chosen)} queries, BM25 {doc['bm25']} -> {out_file}", file=sys.stderr)


def has_dist(name):
    import importlib.metadata
    try:
        importlib.metadata.version(name)
        return True
    except importlib.metadata.PackageNotFoundError:
        return False


def wheel_version(data_dir):
    """The version of the unpacked wheel DATA_DIR belongs to (its .dist-info folder)."""
    for info in Path(data_dir).resolve().parents[1].glob("bfcl_eval-*.dist-info"):
        return info.name[len("bfcl_eval-"):-len(".dist-info")]
    return "unknown version"


def main():
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    cmd = sys.argv[1]
    if cmd == "build":
        categories = sys.argv[4].split(",") if len(sys.argv) > 4 else CATEGORIES
        tools, queries = load(sys.argv[2], categories)
        out = Path(sys.argv[3])
        out.mkdir(parents=True, exist_ok=True)
        (out / "pool.json").write_text(json.dumps({"tools": tools}))
        (out / "queries.json").write_text(json.dumps(queries))
        print(f"{len(tools)} tools, {len(queries)} queries -> {out}", file=sys.stderr)
    elif cmd == "bm25":
        print(json.dumps(bm25(sys.argv[2])))
    elif cmd == "embed":
        sys.path.insert(0, str(Path(__file__).parent))
        print(json.dumps(embed(sys.argv[2], sys.argv[3])))
    elif cmd == "fixture":
        fixture(sys.argv[2], sys.argv[3])
    else:
        sys.exit(__doc__)


if __name__ == "__main__":
    main()
