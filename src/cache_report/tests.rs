//! The report's unit tests: script reading, limits, the first difference, the base request.

use super::*;
use crate::counter::Estimator;
use crate::intent::ToolsOverride;
use crate::turn::{record_loaded, TurnState};
use parts::{first_difference, Parts};

/// Turns 1..=n, `tool_search` loading `enter_plan_mode` on turn 2.
fn one_load(turns: usize) -> CacheScript {
    let mut text = String::from(r#"{"turns": [{}, {"searches": ["select:enter_plan_mode"]}"#);
    text.push_str(&", {}".repeat(turns.saturating_sub(2)));
    text.push_str("]}");
    CacheScript::from_json_str(&text).unwrap()
}

fn base(mode: DeferralMode) -> TurnRequest {
    TurnRequest {
        provider: Provider::Anthropic,
        mode,
        ..TurnRequest::default()
    }
}

#[test]
fn the_base_request_sets_state_and_profile_for_the_whole_session() {
    let r = Registry::embedded();
    let script = one_load(3);
    let plain = r
        .cache_report(&script, &base(DeferralMode::Catalog), &Estimator)
        .unwrap();
    assert!(plain.turns[2].rewritten_tokens > 0, "{:?}", plain.turns);
    // Loaded before the session: promoted from turn 1, so the search joins nothing.
    let loaded = TurnRequest {
        state: record_loaded(&TurnState::default(), &["enter_plan_mode"]).unwrap(),
        ..base(DeferralMode::Catalog)
    };
    let report = r.cache_report(&script, &loaded, &Estimator).unwrap();
    assert_eq!(report.rewrites, 0, "{:?}", report.turns);
    // A profile that turns tools off holds on every turn: nothing to load, nothing rewritten.
    let off = TurnRequest {
        profile: Some(ToolsOverride::from_json_str(r#"{"enabled": false}"#).unwrap()),
        ..base(DeferralMode::Catalog)
    };
    let report = r.cache_report(&script, &off, &Estimator).unwrap();
    assert_eq!(report.rewrites, 0, "{:?}", report.turns);
}

#[test]
fn a_search_that_loads_nothing_says_so() {
    let r = Registry::embedded();
    let script = CacheScript::from_json_str(
        r#"{"turns": [{"searches": ["select:enter_plan_mode", "select:no_such_tool"]}, {}]}"#,
    )
    .unwrap();
    let report = r
        .cache_report(&script, &base(DeferralMode::Catalog), &Estimator)
        .unwrap();
    let events = &report.turns[1].events;
    assert!(
        events
            .contains(&r#"tool_search "select:enter_plan_mode" in the previous turn"#.to_string()),
        "{events:?}"
    );
    assert!(
        events.contains(
            &r#"tool_search "select:no_such_tool" in the previous turn, which loaded nothing"#
                .to_string()
        ),
        "{events:?}"
    );
}

#[test]
fn script_errors_name_the_path() {
    let e = CacheScript::from_json_str(r#"{"turns": [{}, {"searches": [3]}]}"#).unwrap_err();
    assert_eq!(e.path(), Some("$.turns[1].searches[0]"));
    let e = CacheScript::from_json_str(r#"{"turns": [{"bogus": 1}]}"#).unwrap_err();
    assert_eq!(e.path(), Some("$.turns[0].bogus"));
    assert!(CacheScript::from_json_str(r#"{"turns": []}"#).is_ok());
}

#[test]
fn scripts_past_the_limits_are_refused_before_any_turn_runs() {
    let turns = |n: usize| format!("[{}]", vec!["{}"; n].join(","));
    let at = |text: &str| {
        let e = CacheScript::from_json_str(text).unwrap_err();
        (e.code(), e.path().map(String::from))
    };
    let big = 1 + MAX_PART_BYTES;
    assert_eq!(
        at(&format!(r#"{{"systemPromptBytes": {big}, "turns": []}}"#)),
        ("invalid_value", Some("$.systemPromptBytes".into()))
    );
    assert_eq!(
        at(&format!(r#"{{"turns": {}}}"#, turns(MAX_TURNS + 1))),
        ("limit_exceeded", Some("$.turns".into()))
    );
    // 1 MiB a turn is accepted, but not for more than 64 turns.
    let mib = MAX_PART_BYTES;
    assert!(CacheScript::from_json_str(&format!(
        r#"{{"messageBytes": {mib}, "turns": {}}}"#,
        turns(64)
    ))
    .is_ok());
    assert_eq!(
        at(&format!(
            r#"{{"messageBytes": {mib}, "turns": {}}}"#,
            turns(65)
        )),
        ("limit_exceeded", Some("$.messageBytes".into()))
    );
    let searches = vec!["\"x\""; MAX_SEARCHES / 2 + 1].join(",");
    let two =
        format!(r#"{{"turns": [{{"searches": [{searches}]}}, {{"searches": [{searches}]}}]}}"#);
    assert_eq!(
        at(&two),
        ("limit_exceeded", Some("$.turns[1].searches".into()))
    );
}

#[test]
fn appending_messages_is_not_a_rewrite_and_a_promotion_in_catalog_mode_is() {
    let r = Registry::embedded();
    let script = one_load(4);
    let catalog = r
        .cache_report(&script, &base(DeferralMode::Catalog), &Estimator)
        .unwrap();
    let rewritten: Vec<usize> = catalog.turns.iter().map(|t| t.rewritten_tokens).collect();
    assert_eq!(rewritten[0], 0);
    assert_eq!(rewritten[1], 0);
    assert!(
        rewritten[2] > 0,
        "the load joins the array at turn 3: {rewritten:?}"
    );
    assert_eq!(catalog.turns[2].section, Section::Tools);
    assert_eq!(rewritten[3], 0);
    assert_eq!(catalog.rewrites, 1);
    let client = r
        .cache_report(&script, &base(DeferralMode::NativeClient), &Estimator)
        .unwrap();
    assert_eq!(client.rewrites, 0, "{:?}", client.turns);
}

fn parts(tools: &str, catalog: &str, messages_len: usize) -> Parts {
    Parts {
        tools: tools.into(),
        tools_tokens: 0,
        catalog: catalog.into(),
        catalog_tokens: 0,
        messages_len,
        messages_tokens: 0,
    }
}

#[test]
fn first_difference_is_at_a_char_boundary() {
    let (system, messages) = ("\n\nsys", "\n\nhello, more");
    let d = |a: &Parts, b: &Parts| first_difference(a, b, system, messages);
    // Growth of the messages alone is no difference.
    assert_eq!(d(&parts("abc", "", 7), &parts("abc", "", 14)), None);
    assert_eq!(d(&parts("abc", "", 7), &parts("abd", "", 7)), Some(2));
    assert_eq!(d(&parts("aé", "", 7), &parts("aè", "", 7)), Some(1));
    // A catalog appearing: the requests part where the messages began.
    let at = d(&parts("t", "", 7), &parts("t", "\n\ncat", 7));
    assert_eq!(at, Some(1 + system.len() + 2));
}

#[test]
fn an_intent_event_shows_hidden_characters_escaped_and_reads_back() {
    let script = CacheScript::from_json_str(
        r#"{"turns": [{"override": {"enabled": true, "disabled": ["x\u202ey\u200b"]}}]}"#,
    )
    .unwrap();
    let report = Registry::embedded()
        .cache_report(&script, &base(DeferralMode::Catalog), &Estimator)
        .unwrap();
    let event = &report.turns[0].events[0];
    assert!(!event.chars().any(crate::error::hides_text), "{event:?}");
    let json = event.strip_prefix("intent now ").unwrap();
    assert_eq!(json, r#"{"disabled":["x\u202ey\u200b"],"enabled":true}"#);
    assert_eq!(
        ToolsOverride::from_json_str(json).unwrap(),
        script.turns[0].tools_override.clone().unwrap()
    );
}
