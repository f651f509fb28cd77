//! The CLI's readable output for people: the `preview`, `budget` and `cache-report` tables
//! (drawn by the one column writer, `columns.rs`) and the `check` report's lines. `--json`
//! prints the core's values instead; these are layouts only, so they live here and not in
//! the core.

use std::collections::{BTreeMap, BTreeSet};

use tool_intent::cache_report::CacheReport;
use tool_intent::provider_check::ProviderCheck;
use tool_intent::registry::EffectiveAnnotations;
use tool_intent::{Budget, Registry, TurnPlan, TurnRequest};

use crate::columns::{Align, Columns, PLAIN, RULED};

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

/// `preview`: the plan and its budget, one row per tool, with what each tool does by its MCP
/// annotations as the registry believes them.
pub(crate) fn preview(registry: &Registry, req: &TurnRequest, p: &TurnPlan, b: &Budget) -> String {
    let mut out = format!(
        "registry: {} tools   intent: {}   source: {}\nprovider: {}   mode: {}   fingerprint: {}\n\n",
        registry.len(),
        req.tools_override.to_canonical_json(),
        req.source.as_deref().unwrap_or("-"),
        p.provider.as_str(),
        p.mode.as_str(),
        p.fingerprint
    );
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
    let (promoted, renamed) = (p.promoted(), p.renamed());
    let mut table = Columns::new(&[
        ("tool", Align::Left, 0),
        ("state", Align::Left, 9),
        ("tokens", Align::Right, 7),
        ("does (MCP annotations)", Align::Left, 0),
    ]);
    for row in &b.rows {
        let state = if promoted.contains(&row.name.as_str()) {
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
        let shown = match renamed.iter().find(|r| r.wire == row.name) {
            Some(r) => format!("{} (MCP name {})", row.name, r.source),
            None => row.name.clone(),
        };
        // The payload's names are registry tools, but `tool_search` in native mode is the
        // provider's own: it does nothing of the registry's.
        let what = annotations
            .get(row.name.as_str())
            .map(does)
            .unwrap_or_default();
        table.row(vec![shown, state.into(), row.tokens.to_string(), what]);
    }
    table.write(&PLAIN, &mut out);
    out.push('\n');
    let approx = if b.counter == "estimate" { "~" } else { "" };
    out.push_str(&format!(
        "array: {}, {approx}{} tokens   catalog: {}, {approx}{} tokens   all resident: {approx}{} tokens ({}; counter {})\n",
        counted(p.array().len(), "tool", "tools"),
        b.resident_tokens,
        counted(p.catalog().len(), "name", "names"),
        b.catalog_tokens,
        b.all_resident_tokens,
        deferral_effect(b, false),
        b.counter
    ));
    // The registry's other tools, so the header's count adds up: what the intent, the
    // source's ceiling or the provider left out this turn (a refusal also has a warning).
    // Rows and the registry both name tools by their wire names (a renamed MCP tool's own
    // name is only shown beside it).
    let offered: BTreeSet<&str> = b.rows.iter().map(|row| row.name.as_str()).collect();
    let left_out: Vec<&str> = infos
        .iter()
        .map(|t| t.name.as_str())
        .filter(|name| !offered.contains(name))
        .collect();
    if !left_out.is_empty() {
        const SHOWN: usize = 12;
        let mut names = left_out[..left_out.len().min(SHOWN)].join(", ");
        if left_out.len() > SHOWN {
            names.push_str(&format!(" and {} more", left_out.len() - SHOWN));
        }
        out.push_str(&format!(
            "not offered this turn: {} of {} ({names})\n",
            left_out.len(),
            counted(infos.len(), "tool", "tools"),
        ));
    }
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

/// `budget`: one row per tool with its tokens where it is and if it were resident, then the
/// totals.
pub(crate) fn budget(b: &Budget) -> String {
    let mut out = format!(
        "counter: {}   provider: {}\n\n",
        b.counter,
        b.provider.as_str()
    );
    let mut table = Columns::new(&[
        ("tool", Align::Left, 0),
        ("placement", Align::Left, 0),
        ("tokens", Align::Right, 7),
        ("if resident", Align::Right, 13),
    ]);
    for r in &b.rows {
        table.row(vec![
            r.name.clone(),
            r.placement.as_str().into(),
            r.tokens.to_string(),
            r.resident_tokens.to_string(),
        ]);
    }
    table.write(&PLAIN, &mut out);
    out.push_str(&format!(
        "\nresident array  {:>7} tokens\ncatalog text    {:>7} tokens\ntotal           {:>7} tokens\nall resident    {:>7} tokens   ({})\n",
        b.resident_tokens,
        b.catalog_tokens,
        b.resident_tokens + b.catalog_tokens,
        b.all_resident_tokens,
        deferral_effect(b, true),
    ));
    out
}

/// "1 tool", "2 tools".
pub(crate) fn counted(n: usize, one: &str, many: &str) -> String {
    format!("{n} {}", if n == 1 { one } else { many })
}

/// What deferral does to the request, said the right way round: deferring a few small tools
/// can cost more than it saves (the catalog and `tool_search` outweigh them).
fn deferral_effect(b: &Budget, with_tokens: bool) -> String {
    let verb = if b.saving_tokens < 0 {
        "costs"
    } else {
        "saves"
    };
    let (tokens, percent) = (b.saving_tokens.unsigned_abs(), b.saving_percent().abs());
    if with_tokens {
        format!("deferral {verb} {tokens} tokens, {percent:.1}%")
    } else {
        format!("deferral {verb} {percent:.0}%")
    }
}

/// `cache-report`: one block per provider and mode, a row per turn, then its totals.
pub(crate) fn cache_report(reports: &[CacheReport]) -> String {
    let mut out = String::new();
    for r in reports {
        out.push_str(&format!(
            "{} / {}{} ({} tokens)\n",
            r.provider.as_str(),
            r.mode.as_str(),
            if r.tool_changes.is_messages() {
                " / tool changes as messages"
            } else {
                ""
            },
            r.counter
        ));
        let mut table = Columns::new(&[
            ("turn", Align::Right, 0),
            ("tools", Align::Right, 0),
            ("request tokens", Align::Right, 0),
            ("first difference", Align::Right, 0),
            ("section", Align::Left, 8),
            ("rewritten tokens", Align::Right, 0),
            ("events", Align::Left, 0),
        ]);
        for t in &r.turns {
            table.row(vec![
                t.turn.to_string(),
                t.array_tools.to_string(),
                t.request_tokens.to_string(),
                t.first_difference
                    .map_or("-".to_string(), |b| format!("byte {b}")),
                t.section.as_str().into(),
                t.rewritten_tokens.to_string(),
                t.events.join("; "),
            ]);
        }
        table.write(&RULED, &mut out);
        out.push_str(&format!(
            "total: {}, {} tokens written again\n\n",
            counted(r.rewrites, "rewrite", "rewrites"),
            r.rewritten_tokens
        ));
    }
    out
}

/// `check`: one line a finding, then the verdict.
pub(crate) fn check(report: &ProviderCheck) -> String {
    let mut out = String::new();
    for f in &report.findings {
        let what = if f.refused { "refused" } else { "changed" };
        let tool = if f.tool.is_empty() {
            "(request)"
        } else {
            &f.tool
        };
        out.push_str(&format!("{what:<8} {:<20} {tool}: {}\n", f.rule, f.message));
    }
    let provider = report.provider.as_str();
    out.push_str(&if report.is_clean() {
        format!("check: the registry is clean for {provider}\n")
    } else {
        let refused = report.findings.iter().filter(|f| f.refused).count();
        format!(
            "check: {} for {provider}: {refused} refused, {} changed\n",
            report.findings.len(),
            report.findings.len() - refused
        )
    });
    out
}
