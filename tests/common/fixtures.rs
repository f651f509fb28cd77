//! The one loader of the MCP fixtures in `tests/data/mcp` (real servers' `tools/list`
//! output, see its README). Tests include it through `tests/common`; the benches and the
//! estimator calibration include this file by path.

use std::path::PathBuf;

/// The MCP fixtures as (server name, JSON text), sorted by file name.
pub fn mcp_texts() -> Vec<(String, String)> {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/data/mcp");
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .expect("tests/data/mcp")
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "json"))
        .collect();
    files.sort();
    files
        .into_iter()
        .map(|p| {
            let name = p.file_stem().unwrap().to_string_lossy().to_string();
            (name, std::fs::read_to_string(&p).unwrap())
        })
        .collect()
}
