//! A cache-report script is input (the demo page, JS's `cacheReport` and `tool-intent
//! cache-report` take one from their user): reading one never panics, a script read replays
//! to a report or an error, never a panic, on a provider, mode and way of telling tool changes
//! chosen by the input's length; the report has a row per turn and counts the turns that
//! rewrote; errors and events show the script's text escaped.
//! Only scripts whose stand-ins (system prompt and messages) total at most 256 KiB replay, so
//! an input that asks for the limits' 64 MiB spends the fuzzer's time on reading and planning,
//! not on counting filler.
//! Seeds (`fuzz/seeds/cache_script/`): `tests/data/cache-session.json` without the servers
//! its searches load from (a search that loads nothing), and a script that adds, searches and
//! removes a server.
#![no_main]

use libfuzzer_sys::fuzz_target;
use tool_intent::cache_report::CacheScript;
use tool_intent::counter::Estimator;
use tool_intent::provider::ToolChanges;
use tool_intent::{DeferralMode, Provider, Registry, TurnRequest};
use tool_intent_fuzz::{error_shown_safely, nothing_hidden};

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else { return };
    let script = match CacheScript::from_json_str(text) {
        Ok(script) => script,
        Err(e) => return error_shown_safely(&e),
    };
    let stand_ins = script.system_prompt_bytes + script.message_bytes * script.turns.len();
    if stand_ins > 256 << 10 {
        return;
    }
    let k = text.len();
    let base = TurnRequest {
        provider: Provider::ALL[k % 5],
        mode: DeferralMode::ALL[k / 5 % 3],
        tool_changes: ToolChanges::ALL[k / 15 % 3],
        ..Default::default()
    };
    match Registry::embedded().cache_report(&script, &base, &Estimator) {
        Ok(report) => {
            assert_eq!(report.turns.len(), script.turns.len());
            let rewrote = report.turns.iter().filter(|t| t.rewritten_tokens > 0).count();
            assert_eq!(report.rewrites, rewrote);
            assert_eq!(report.rewritten_tokens, report.turns.iter().map(|t| t.rewritten_tokens).sum::<usize>());
            for turn in &report.turns {
                for event in &turn.events {
                    nothing_hidden(event);
                }
            }
        }
        Err(e) => error_shown_safely(&e),
    }
});
