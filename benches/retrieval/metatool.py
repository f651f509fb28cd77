#!/usr/bin/env python3
"""The second retrieval dataset: MetaTool's ToolE (Huang et al., "MetaTool Benchmark for Large
Language Models: Deciding Whether to Use Tools and Which to Use", ICLR 2024; MIT licence).

199 real tools (ChatGPT plugins, each a name and a one-sentence description) and about 20,000
natural-language requests, each labelled with the one tool it needs. The requests were written
to paraphrase what a tool does, not to repeat its words, which is where a keyword ranking
struggles. Nothing here was tuned on it: the hybrid ranker's weights come from BFCL's
non-live categories (bfcl.py).

The data lives in a public repository and is never committed here. Get it with

  git clone --depth 1 https://github.com/HowieHwong/MetaTool /tmp/MetaTool

and pass its dataset/ folder:

  metatool.py build /tmp/MetaTool/dataset OUT_DIR

which writes OUT_DIR/pool.json (an MCP tools/list result: name, description, an empty object
schema) and OUT_DIR/queries.json (bfcl.py's format), so `bfcl.py bm25|embed|static OUT_DIR`
and the `retrieval` example read them unchanged. Rows are dataset/data/all_clean_data.csv
(Query, Tool); a request listed under several tools counts each as relevant; requests are
cut to 2,000 bytes, tool_search's limit.
"""
import csv
import json
import sys
from pathlib import Path

MAX_QUERY_BYTES = 2000


def load(dataset_dir):
    descriptions = json.loads(Path(dataset_dir, "plugin_des.json").read_text(encoding="utf-8"))
    relevant = {}
    with open(Path(dataset_dir, "data", "all_clean_data.csv"), encoding="utf-8", newline="") as f:
        for row in csv.DictReader(f):
            query = row["Query"].strip().encode("utf-8")[:MAX_QUERY_BYTES].decode("utf-8", "ignore")
            tool = row["Tool"].strip()
            if not query or tool not in descriptions:
                continue
            names = relevant.setdefault(query, [])
            if tool not in names:
                names.append(tool)
    tools = [
        {"name": name, "description": text, "inputSchema": {"type": "object"}}
        for name, text in descriptions.items()
    ]
    queries = [
        {"id": f"metatool_{i}", "query": q, "relevant": names}
        for i, (q, names) in enumerate(relevant.items())
    ]
    return tools, queries


def main():
    if len(sys.argv) != 4 or sys.argv[1] != "build":
        sys.exit(__doc__)
    dataset_dir, out = sys.argv[2], Path(sys.argv[3])
    if not Path(dataset_dir, "plugin_des.json").is_file():
        sys.exit(f"metatool.py: {dataset_dir} has no plugin_des.json; pass MetaTool's dataset/ folder")
    tools, queries = load(dataset_dir)
    out.mkdir(parents=True, exist_ok=True)
    (out / "pool.json").write_text(json.dumps({"tools": tools}))
    (out / "queries.json").write_text(json.dumps(queries))
    print(f"{len(tools)} tools, {len(queries)} queries -> {out}", file=sys.stderr)


if __name__ == "__main__":
    main()
