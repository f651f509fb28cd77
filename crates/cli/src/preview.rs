//! The `preview` command's table: the plan and its budget, one row per tool.

use tool_intent::{Budget, Registry, TurnPlan, TurnRequest};

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
    out.push_str(&format!(
        "  {:<width$}  {:<9}  {:>7}\n",
        "tool", "state", "tokens"
    ));
    out.push_str(&format!("  {:-<width$}  {:-<9}  {:->7}\n", "", "", ""));
    for row in &b.rows {
        let state = if p.promoted().contains(&row.name.as_str()) {
            "promoted"
        } else {
            row.placement.as_str()
        };
        let shown = match p.renamed().iter().find(|r| r.wire == row.name) {
            Some(r) => format!("{} (MCP name {})", row.name, r.source),
            None => row.name.clone(),
        };
        out.push_str(&format!(
            "  {:<width$}  {:<9}  {:>7}\n",
            shown, state, row.tokens
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
