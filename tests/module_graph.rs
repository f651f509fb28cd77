//! The module graph of `src/` has no cycle, read two ways, follows the layer list of
//! `src/lib.rs`, and every source file says its one job.
//!
//! Modules: each file's module is its top-level module (`src/registry/load.rs` belongs to
//! `registry`); an edge A → B is any `crate::B` path in A's files. Files: an edge F → G is a
//! path in F (`crate::a::b`, `super::x`, `self::x`, a `mod.rs` naming its child) that resolves
//! to file G, except a child's use of its own parent `mod.rs` (the module it lives in). Imports
//! and inline paths count; comments and doc comments are ignored. The crate root and the
//! bindings (`lib.rs`, `wasm/`, `bin/`) sit on top and are not part of either graph.

#![cfg(not(target_arch = "wasm32"))]

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            rust_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

/// (module → modules it uses), from the sources.
fn graph() -> BTreeMap<String, BTreeSet<String>> {
    let src = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = Vec::new();
    rust_files(&src, &mut files);
    let mut graph: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for file in files {
        let rel = file.strip_prefix(&src).unwrap();
        let first = rel
            .components()
            .next()
            .unwrap()
            .as_os_str()
            .to_string_lossy()
            .to_string();
        let module = first.trim_end_matches(".rs").to_string();
        if ["lib", "wasm", "bin"].contains(&module.as_str()) {
            continue;
        }
        let text = std::fs::read_to_string(&file).unwrap();
        let deps = graph.entry(module.clone()).or_default();
        for line in text.lines() {
            let code = line.split("//").next().unwrap_or("");
            // `use crate::a::{..}`, `crate::a::f()`, and grouped `use crate::{a, b::c}`.
            let mut rest = code;
            while let Some(i) = rest.find("crate::") {
                rest = &rest[i + "crate::".len()..];
                let names: Vec<String> = if let Some(group) = rest.strip_prefix('{') {
                    let end = group.find('}').unwrap_or(group.len());
                    group[..end]
                        .split(',')
                        .map(|p| p.trim().split("::").next().unwrap_or("").to_string())
                        .collect()
                } else {
                    vec![rest
                        .split(|c: char| !(c.is_alphanumeric() || c == '_'))
                        .next()
                        .unwrap_or("")
                        .to_string()]
                };
                for name in names {
                    let is_module = !name.is_empty()
                        && name.chars().next().is_some_and(|c| c.is_ascii_lowercase());
                    if is_module && name != module {
                        deps.insert(name);
                    }
                }
            }
        }
    }
    // Keep edges to modules only (a lowercase re-export such as `crate::plan_turn` is a
    // function at the root, which sits on top).
    let modules: BTreeSet<String> = graph.keys().cloned().collect();
    for deps in graph.values_mut() {
        deps.retain(|d| modules.contains(d));
    }
    graph
}

/// A cycle through `start`, if there is one.
fn cycle_from(
    graph: &BTreeMap<String, BTreeSet<String>>,
    node: &str,
    path: &mut Vec<String>,
    done: &mut BTreeSet<String>,
) -> Option<Vec<String>> {
    if let Some(i) = path.iter().position(|n| n == node) {
        let mut cycle = path[i..].to_vec();
        cycle.push(node.to_string());
        return Some(cycle);
    }
    if done.contains(node) {
        return None;
    }
    path.push(node.to_string());
    for next in graph.get(node).into_iter().flatten() {
        if let Some(c) = cycle_from(graph, next, path, done) {
            return Some(c);
        }
    }
    path.pop();
    done.insert(node.to_string());
    None
}

#[test]
fn module_graph_has_no_cycle() {
    let graph = graph();
    assert!(graph.len() >= 15, "modules found: {:?}", graph.keys());
    assert!(
        graph["turn"].contains("search") && !graph["search"].contains("turn"),
        "edges are read: {graph:?}"
    );
    let mut done = BTreeSet::new();
    for node in graph.keys() {
        if let Some(cycle) = cycle_from(&graph, node, &mut Vec::new(), &mut done) {
            panic!("module cycle: {}", cycle.join(" -> "));
        }
    }
}

/// A file's module path (`registry/load.rs` → `[registry, load]`, `registry/mod.rs` →
/// `[registry]`).
fn module_path(rel: &Path) -> Vec<String> {
    let mut parts: Vec<String> = rel
        .iter()
        .map(|c| c.to_string_lossy().trim_end_matches(".rs").to_string())
        .collect();
    if parts.last().is_some_and(|p| p == "mod") {
        parts.pop();
    }
    parts
}

/// The file a module path names: the longest prefix with a file of its own.
fn file_of(src: &Path, path: &[String]) -> Option<String> {
    (1..=path.len()).rev().find_map(|n| {
        let dir = path[..n].join("/");
        [format!("{dir}.rs"), format!("{dir}/mod.rs")]
            .into_iter()
            .find(|f| src.join(f).is_file())
    })
}

/// The top-level items of a `{a, b::{c, d}, e}` group (nested groups kept whole).
fn group_items(group: &str) -> Vec<String> {
    let (mut items, mut depth, mut current) = (Vec::new(), 0usize, String::new());
    for c in group.chars() {
        match c {
            '{' => {
                depth += 1;
                current.push(c);
            }
            '}' if depth == 0 => break,
            '}' => {
                depth -= 1;
                current.push(c);
            }
            ',' if depth == 0 => items.push(std::mem::take(&mut current)),
            _ => current.push(c),
        }
    }
    items.push(current);
    items
        .into_iter()
        .map(|i| i.trim().to_string())
        .filter(|i| !i.is_empty())
        .collect()
}

/// The segments of a path written after a prefix: `a::b::c(` → `[a, b, c]`, a group → the
/// first segment of each item.
fn segments_after(rest: &str) -> Vec<Vec<String>> {
    let ident = |s: &str| -> Vec<String> {
        let mut out = Vec::new();
        let mut rest = s;
        loop {
            let name: String = rest
                .chars()
                .take_while(|c| c.is_alphanumeric() || *c == '_')
                .collect();
            if name.is_empty() {
                break;
            }
            rest = &rest[name.len()..];
            out.push(name);
            match rest.strip_prefix("::") {
                Some(r) if !r.starts_with('{') => rest = r,
                _ => break,
            }
        }
        out
    };
    match rest.strip_prefix('{') {
        Some(group) => group_items(group).iter().map(|i| ident(i)).collect(),
        None => vec![ident(rest)],
    }
}

/// How a line uses a path.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Use {
    Code,
    Reexport,
    Test,
}

/// (file → files it uses), from the sources of a crate (`src` of this one, or of a binding
/// crate under `bindings/`).
fn file_graph(crate_dir: &str) -> BTreeMap<String, BTreeSet<String>> {
    file_graph_with_parents(crate_dir).0
}

/// The file graph, and each child's uses of its own parent `mod.rs` (child → parent), which
/// the graph leaves out.
#[allow(clippy::type_complexity)]
fn file_graph_with_parents(
    crate_dir: &str,
) -> (
    BTreeMap<String, BTreeSet<String>>,
    BTreeMap<String, BTreeSet<String>>,
) {
    let mut uses_parent: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    let src = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join(crate_dir)
        .join("src");
    let mut files = Vec::new();
    rust_files(&src, &mut files);
    let mut graph: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for file in files {
        let rel = file.strip_prefix(&src).unwrap().to_path_buf();
        let name = rel.to_string_lossy().to_string();
        let top = module_path(&rel).first().cloned().unwrap_or_default();
        if ["lib", "wasm", "bin"].contains(&top.as_str()) || name == "lib.rs" {
            continue;
        }
        let me = module_path(&rel);
        let is_mod = rel.ends_with("mod.rs");
        // `super` of `registry/load.rs` is `registry`; of `registry/mod.rs`, the root.
        let parent: Vec<String> = me[..me.len().saturating_sub(1)].to_vec();
        let text = std::fs::read_to_string(&file).unwrap();
        let children: Vec<String> = text
            .lines()
            .filter_map(|l| {
                let l = l.trim();
                let l = l
                    .strip_prefix("pub(crate) ")
                    .or(l.strip_prefix("pub "))
                    .unwrap_or(l);
                l.strip_prefix("mod ")?.strip_suffix(';').map(String::from)
            })
            .collect();
        // (path, kind): kind says whether the line re-exports (`pub use` in a `mod.rs`: the
        // module's public face, not a use) or sits in the file's tests (which may use the
        // module's public face too).
        let mut targets: Vec<(Vec<String>, Use)> = Vec::new();
        let mut in_tests = false;
        for line in text.lines() {
            let code = line.split("//").next().unwrap_or("");
            in_tests |= code.trim_start().starts_with("mod tests");
            let trimmed = code.trim_start();
            let kind = if in_tests {
                Use::Test
            } else if is_mod
                && (trimmed.starts_with("pub use ") || trimmed.starts_with("pub(crate) use "))
            {
                Use::Reexport
            } else {
                Use::Code
            };
            let prefixes: [(&str, Vec<String>); 3] = [
                ("crate::", Vec::new()),
                ("super::", parent.clone()),
                ("self::", if is_mod { me.clone() } else { parent.clone() }),
            ];
            for (prefix, base) in prefixes {
                let mut rest = code;
                while let Some(i) = rest.find(prefix) {
                    // `super::` inside `crate::a::super::` is not a prefix of its own.
                    let before = &rest[..i];
                    rest = &rest[i + prefix.len()..];
                    if before.ends_with("::")
                        || before.ends_with(|c: char| c.is_alphanumeric() || c == '_')
                    {
                        continue;
                    }
                    for seg in segments_after(rest) {
                        targets.push((base.iter().cloned().chain(seg).collect(), kind));
                    }
                }
            }
            // A `mod.rs` naming a child without a prefix (`use load::x;`, `load::f()`).
            if is_mod {
                for child in &children {
                    let token = format!("{child}::");
                    let mut rest = code;
                    while let Some(i) = rest.find(&token) {
                        let before = &rest[..i];
                        rest = &rest[i + token.len()..];
                        if before.ends_with("::")
                            || before.ends_with(|c: char| c.is_alphanumeric() || c == '_')
                        {
                            continue;
                        }
                        targets.push((me.iter().cloned().chain([child.clone()]).collect(), kind));
                    }
                }
            }
        }
        let deps = graph.entry(name.clone()).or_default();
        for (target, kind) in targets {
            let Some(to) = file_of(&src, &target) else {
                continue;
            };
            let to_path = module_path(Path::new(&to));
            // A child's use of the module it lives in (its parent `mod.rs`) is not an edge.
            let ancestor =
                to.ends_with("mod.rs") && me.starts_with(&to_path) && to_path.len() < me.len();
            let top_of = to_path.first().map(String::as_str).unwrap_or("");
            if ancestor {
                if kind != Use::Test {
                    uses_parent.entry(name.clone()).or_default().insert(to);
                }
            } else if is_mod && kind == Use::Reexport && to_path.starts_with(&me) {
                continue;
            } else if to != name && !["lib", "wasm", "bin"].contains(&top_of) && to != "lib.rs" {
                deps.insert(to);
            }
        }
    }
    (graph, uses_parent)
}

fn assert_acyclic(graph: &BTreeMap<String, BTreeSet<String>>) {
    let mut done = BTreeSet::new();
    for node in graph.keys() {
        if let Some(cycle) = cycle_from(graph, node, &mut Vec::new(), &mut done) {
            panic!("file cycle: {}", cycle.join(" -> "));
        }
    }
}

#[test]
fn file_graph_has_no_cycle() {
    let graph = file_graph(".");
    assert!(graph.len() >= 50, "files found: {:?}", graph.keys());
    // Edges are read, across modules, between siblings and from a mod.rs to its children.
    assert!(
        graph["registry/mcp.rs"].contains("registry/load.rs"),
        "{:?}",
        graph["registry/mcp.rs"]
    );
    assert!(
        graph["turn/mod.rs"].contains("turn/expand.rs"),
        "{:?}",
        graph["turn/mod.rs"]
    );
    assert!(
        graph["search/mod.rs"].contains("search/abstain.rs"),
        "{:?}",
        graph["search/mod.rs"]
    );
    assert_acyclic(&graph);
}

/// A child may use the module it lives in (`use super::Turn`), and a `mod.rs` may use its
/// children, but not both ways between the same two files: a two-way tie is a cycle the file
/// graph would otherwise not see.
#[test]
fn no_parent_and_child_use_each_other() {
    let (graph, uses_parent) = file_graph_with_parents(".");
    assert!(
        uses_parent
            .get("turn/change_message.rs")
            .is_some_and(|p| p.contains("turn/mod.rs")),
        "uses of a parent are read: {uses_parent:?}"
    );
    let mut ties = Vec::new();
    for (child, parents) in &uses_parent {
        for parent in parents {
            if graph.get(parent).is_some_and(|deps| deps.contains(child)) {
                ties.push(format!("{parent} <-> {child}"));
            }
        }
    }
    assert!(
        ties.is_empty(),
        "parents and children that use each other: {ties:#?}"
    );
}

/// The workspace's crates, each with whether it names the core (`tool-intent`) as a
/// dependency, read from its `Cargo.toml`; and the crates the core names.
fn workspace_crates() -> (Vec<(String, bool)>, String) {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let manifest = std::fs::read_to_string(root.join("Cargo.toml")).unwrap();
    let members_line = manifest
        .lines()
        .find(|l| l.starts_with("members = ["))
        .expect("a one-line members list");
    let members: Vec<String> = members_line
        .split('"')
        .skip(1)
        .step_by(2)
        .map(String::from)
        .collect();
    assert!(members.len() >= 6, "{members:?}");
    let crates = members
        .into_iter()
        .map(|dir| {
            let text = std::fs::read_to_string(root.join(&dir).join("Cargo.toml")).unwrap();
            let uses_core = text.lines().any(|l| l.starts_with("tool-intent = "));
            (dir, uses_core)
        })
        .collect();
    let dependencies = manifest
        .split("\n[dependencies]\n")
        .nth(1)
        .and_then(|rest| rest.split("\n[").next())
        .expect("the core's [dependencies]")
        .to_string();
    (crates, dependencies)
}

/// `crates/` holds only crates the core depends on, `bindings/` and `python/` only crates that
/// depend on the core: a crate's folder says which way it points.
#[test]
fn crates_below_the_core_and_bindings_above_it_have_folders_of_their_own() {
    let (crates, core_dependencies) = workspace_crates();
    for (dir, uses_core) in &crates {
        let path = format!("path = \"{dir}\"");
        if dir.starts_with("crates/") {
            assert!(!uses_core, "{dir} is under crates/ but depends on the core");
            assert!(
                core_dependencies.contains(&path),
                "{dir} is under crates/ but the core does not depend on it"
            );
        } else {
            assert!(
                dir.starts_with("bindings/") || dir == "python",
                "{dir}: a crate that depends on the core belongs under bindings/"
            );
            assert!(
                uses_core,
                "{dir} is a binding but does not depend on the core"
            );
        }
    }
}

/// The migration crate's files too: the stores use the trait's file, never the other way.
#[test]
fn migrate_file_graph_has_no_cycle() {
    let graph = file_graph("bindings/migrate");
    assert!(graph.len() >= 5, "files found: {:?}", graph.keys());
    assert!(
        graph["sqlite.rs"].contains("store.rs"),
        "{:?}",
        graph["sqlite.rs"]
    );
    assert!(
        graph["database.rs"].contains("sqlite.rs"),
        "{:?}",
        graph["database.rs"]
    );
    assert_acyclic(&graph);
}

#[test]
fn leaves_depend_on_nothing_above_them() {
    let graph = graph();
    for leaf in ["glob", "json_text", "limits", "sort", "text", "warning"] {
        assert!(graph[leaf].is_empty(), "{leaf} uses {:?}", graph[leaf]);
    }
    // The error type writes the keys of its JSON paths as JSON strings, and joins names.
    assert_eq!(
        graph["error"],
        BTreeSet::from(["json_text".to_string(), "text".to_string()])
    );
    assert_eq!(graph["json"], BTreeSet::from(["error".to_string()]));
}

/// Each file says its one job in its first line (a module doc), rather than being held under a
/// line count: a file is split by meaning. (`registry/document_keys.rs` is `include!`d by
/// `build.rs` too, so it holds a plain comment.)
#[test]
fn every_source_file_says_its_job() {
    let src = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = Vec::new();
    rust_files(&src, &mut files);
    assert!(files.len() > 50, "{} files", files.len());
    for f in files {
        let text = std::fs::read_to_string(&f).unwrap();
        let first = text.lines().next().unwrap_or("");
        let included = f.ends_with("registry/document_keys.rs");
        let doc = if included { "// " } else { "//! " };
        assert!(
            first.starts_with(doc) && first.len() > doc.len() + 10,
            "{} does not open with a module doc saying its job: {first:?}",
            f.display()
        );
    }
}

/// `docs/layout.md` is where a newcomer looks a file up: every source file of the core and of
/// the bindings is named there (`mod.rs` and `tests.rs` by their folder), so a file added
/// without a word in the guide fails here rather than going missing from it.
#[test]
fn every_source_file_is_named_in_the_layout_guide() {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let guide = std::fs::read_to_string(root.join("docs/layout.md")).unwrap();
    let mut files = Vec::new();
    for dir in [
        "src",
        "bindings/cli/src",
        "bindings/migrate/src",
        "bindings/store/src",
        "bindings/wasm/src",
        "python/src",
    ] {
        rust_files(&root.join(dir), &mut files);
    }
    assert!(files.len() > 100, "{} files", files.len());
    let mut missing = Vec::new();
    for f in &files {
        let name = f.file_name().unwrap().to_str().unwrap();
        if name == "mod.rs" || name == "tests.rs" || name == "lib.rs" || name == "main.rs" {
            continue;
        }
        if !guide.contains(name) {
            missing.push(f.strip_prefix(&root).unwrap().display().to_string());
        }
    }
    assert!(
        missing.is_empty(),
        "docs/layout.md does not name {missing:?}"
    );
}

/// The layers `src/lib.rs` lists, in order: each `[`module`]` with the index of its bullet.
fn listed_layers() -> BTreeMap<String, usize> {
    let lib = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/src/lib.rs")).unwrap();
    let mut layers = BTreeMap::new();
    let mut bullet = None;
    for line in lib.lines() {
        if let Some(rest) = line.strip_prefix("//! - ") {
            bullet = Some(bullet.map_or(0, |b| b + 1));
            collect_layer_names(rest, bullet.unwrap_or(0), &mut layers);
        } else if let (Some(rest), Some(b)) = (line.strip_prefix("//!   "), bullet) {
            collect_layer_names(rest, b, &mut layers);
        } else if !line.starts_with("//!   ") && bullet.is_some() && line.starts_with("//! ") {
            break;
        }
    }
    layers
}

fn collect_layer_names(text: &str, bullet: usize, layers: &mut BTreeMap<String, usize>) {
    let mut rest = text;
    while let Some(i) = rest.find("[`") {
        rest = &rest[i + 2..];
        let name: String = rest
            .chars()
            .take_while(|c| c.is_ascii_lowercase() || *c == '_')
            .collect();
        if !name.is_empty() && rest[name.len()..].starts_with("`]") {
            layers.entry(name).or_insert(bullet);
        }
    }
}

/// `src/lib.rs` says dependencies point down its list: every import between two listed
/// modules goes to one listed before or beside it.
#[test]
fn the_layer_list_of_the_crate_root_matches_the_imports() {
    let layers = listed_layers();
    for m in ["error", "provider", "registry", "search", "turn", "session"] {
        assert!(
            layers.contains_key(m),
            "{m} is not in src/lib.rs's list: {layers:?}"
        );
    }
    let graph = graph();
    for module in graph.keys() {
        let private = ["digest", "json_text", "model_ranker", "sort", "text"];
        assert!(
            layers.contains_key(module) || private.contains(&module.as_str()),
            "{module} is neither in src/lib.rs's list nor a private helper"
        );
    }
    for (module, deps) in &graph {
        let Some(&at) = layers.get(module) else {
            continue;
        };
        for dep in deps {
            if let Some(&dep_at) = layers.get(dep) {
                assert!(
                    dep_at <= at,
                    "{module} uses {dep}, which src/lib.rs lists after it"
                );
            }
        }
    }
}

/// The names `src/lib.rs` re-exports at the crate root (`pub use a::{B, c};`), and any
/// re-export that renames (`x as y`).
fn root_reexports() -> (Vec<String>, Vec<String>) {
    let lib = std::fs::read_to_string(PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("src/lib.rs"))
        .unwrap();
    let (mut names, mut renamed) = (Vec::new(), Vec::new());
    let mut rest = lib.as_str();
    while let Some(i) = rest.find("pub use ") {
        rest = &rest[i + "pub use ".len()..];
        let end = rest.find(';').unwrap();
        let item = &rest[..end];
        let list = match (item.find('{'), item.rfind('}')) {
            (Some(a), Some(b)) => item[a + 1..b].to_string(),
            _ => item.rsplit("::").next().unwrap().to_string(),
        };
        for name in list.split(',').map(str::trim).filter(|n| !n.is_empty()) {
            if name.contains(" as ") {
                renamed.push(name.to_string());
            }
            names.push(name.rsplit(' ').next().unwrap().to_string());
        }
        rest = &rest[end..];
    }
    (names, renamed)
}

#[test]
fn the_crate_root_stays_small_and_renames_nothing() {
    let (names, renamed) = root_reexports();
    assert!(
        names.contains(&"Registry".to_string()),
        "re-exports are read: {names:?}"
    );
    assert!(
        names.len() <= 30,
        "{} items at the crate root (at most 30): {names:?}",
        names.len()
    );
    assert!(renamed.is_empty(), "renamed re-exports: {renamed:?}");
    // Every public module is named for its job and holds the rest under its own names.
    let lib = std::fs::read_to_string(PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("src/lib.rs"))
        .unwrap();
    for module in [
        "counter", "provider", "registry", "search", "session", "turn",
    ] {
        assert!(
            lib.contains(&format!("pub mod {module};")),
            "{module} is not public"
        );
    }
}
