//! The `preview` command's table: the plan and its budget, one row per tool, with what each
//! tool does by its MCP annotations as the registry believes them.

use std::collections::BTreeMap;

use tool_intent::registry::EffectiveAnnotations;
use tool_intent::{Budget, Registry, TurnPlan, TurnRequest};

/// What a tool does, in a few words: `read-only`, `writes` or `destructive`, then `closed`
/// for a closed-world tool, and `(untrusted)` when its server's claims were not read.
fn does(a: &EffectiveAnnotations) -> String {
    let mut out = String::from(if a.read_only {
        "read-only"
    } else if a.destructive {
        "destructive"
    } else {
        "writes"
    });
    if !a.open_world {
        out.push_str(", closed");
    }
    if !a.trusted {
        out.push_str(" (untrusted)");
    }
    out
}

pub(super) fn preview_table(
    registry: &Registry,
    req: &TurnRequest,
    p: &TurnPlan,
    b: &Budget,
) -> String {
    let mut out = String::new();
    out.push_str(&format!(
        "registry: {} tools   intent: {}   source: {}\n",
        registry.len(),
        req.tools_override.to_canonical_json(),
        req.source.as_deref().unwrap_or("-")
    ));
    out.push_str(&format!(
        "provider: {}   mode: {}   fingerprint: {}\n\n",
        p.provider.as_str(),
        p.mode.as_str(),
        p.fingerprint
    ));
    let width = b
        .rows
        .iter()
        .map(|r| {
            r.name.len()
                + p.renamed()
                    .iter()
                    .find(|n| n.wire == r.name)
                    .map_or(0, |n| n.source.len() + " (MCP name )".len())
        })
        .max()
        .unwrap_or(4)
        .max(4);
    let infos = registry.tool_infos();
    let builtin: BTreeMap<&str, &[tool_intent::Provider]> = infos
        .iter()
        .filter(|t| !t.builtin_providers.is_empty())
        .map(|t| (t.name.as_str(), t.builtin_providers.as_slice()))
        .collect();
    let annotations: BTreeMap<&str, EffectiveAnnotations> = infos
        .iter()
        .map(|t| (t.name.as_str(), t.effective_annotations))
        .collect();
    out.push_str(&format!(
        "  {:<width$}  {:<9}  {:>7}  {}\n",
        "tool", "state", "tokens", "does (MCP annotations)"
    ));
    out.push_str(&format!(
        "  {:-<width$}  {:-<9}  {:->7}  {:-<22}\n",
        "", "", "", ""
    ));
    for row in &b.rows {
        let state = if p.promoted().contains(&row.name.as_str()) {
            "promoted"
        } else if builtin
            .get(row.name.as_str())
            .is_some_and(|ps| ps.contains(&p.provider))
        {
            // Run by the provider itself: its own tool (or request field) is what goes out.
            "built-in"
        } else {
            row.placement.as_str()
        };
        let shown = match p.renamed().iter().find(|r| r.wire == row.name) {
            Some(r) => format!("{} (MCP name {})", row.name, r.source),
            None => row.name.clone(),
        };
        // The payload's names are registry tools, but `tool_search` in native mode is the
        // provider's own: it does nothing of the registry's.
        let what = annotations
            .get(row.name.as_str())
            .map(does)
            .unwrap_or_default();
        out.push_str(&format!(
            "  {:<width$}  {:<9}  {:>7}  {}\n",
            shown, state, row.tokens, what
        ));
    }
    out.push('\n');
    let approx = if b.counter == "estimate" { "~" } else { "" };
    out.push_str(&format!(
        "array: {} tools, {}{} tokens   catalog: {} names, {}{} tokens   all resident: {}{} tokens (deferral saves {:.0}%; counter {})\n",
        p.array().len(),
        approx,
        b.resident_tokens,
        p.catalog().len(),
        approx,
        b.catalog_tokens,
        approx,
        b.all_resident_tokens,
        b.saving_percent(),
        b.counter
    ));
    for w in &p.warnings {
        out.push_str(&format!(
            "warning [{}] ({}): {}\n",
            w.code.as_str(),
            w.origin,
            w.message
        ));
    }
    out
}
