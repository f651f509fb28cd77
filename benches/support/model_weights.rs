//! all-MiniLM-L6-v2's weights for the model ranker's tests and benchmarks:
//! `TOOL_INTENT_MODEL`, or `target/retrieval/minilm/model/model.safetensors` (what
//! `scripts/setup.sh`'s `setup_model` downloads). Missing weights fail loudly, never skip.

/// The path of `model.safetensors`.
pub fn path() -> String {
    std::env::var("TOOL_INTENT_MODEL").unwrap_or_else(|_| {
        concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/target/retrieval/minilm/model/model.safetensors"
        )
        .to_string()
    })
}

/// The file's bytes; panics naming the path and how to get the file.
pub fn bytes() -> Vec<u8> {
    let path = path();
    std::fs::read(&path).unwrap_or_else(|e| {
        panic!("{path}: {e}; `source scripts/setup.sh && setup_model` downloads it")
    })
}
