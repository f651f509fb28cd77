//! What each provider refuses, and what the library does about it. The registry stays
//! provider-neutral; these rules apply when a payload is planned for a provider, and each has
//! a behaviour that never sends what the provider refuses and never changes what the model
//! reads without a warning saying so. `tool-intent check` lists them for a whole registry.
//!
//! | rule | providers | source | behaviour |
//! |---|---|---|---|
//! | `name` | all | Anthropic, OpenAI and Bedrock `ToolSpecification`: `^[a-zA-Z0-9_-]{1,64}$` | the registry refuses such names at load (MCP names get wire names) |
//! | `gemini_name` | gemini | Gemini `FunctionDeclaration.name`: starts with a letter or `_`; letters, digits, `_ . : -`; at most 64 | the tool is left out of the Gemini payload, with a warning |
//! | `top_level_combinator` | anthropic | Anthropic Messages refuses `oneOf`/`anyOf`/`allOf` at the top level of `input_schema` (one such MCP tool fails every request; makenotion/notion-mcp-server #341) | the tool is left out of the Anthropic payload, with a warning |
//! | `description_length` | openai-chat, openai-responses | OpenAI: a function description over 1,024 characters is refused (`string_above_max_length`) | shortened to 1,024 characters (UTF-16 units, so code points too) at a word boundary, ending in `…`, with a warning; the full text stays in the registry, in `resolve` and in `tool_search` results |
//! | `tools_per_request` | openai-chat, openai-responses (128), gemini (512) | OpenAI refuses more than 128 tools (`array_above_max_length`); Gemini takes up to 512 function declarations | counted over the `tools` array as sent (native modes: the deferred declarations too); more is an error naming the limit and the count, before anything is sent: which tools are resident is the registry's decision (`deferred_default_tools`, `defer`), and moving some into the catalog by registry size would change what the model sees from one deployment to the next |
//! | `strict` | openai-chat, openai-responses | OpenAI strict mode: root object, `additionalProperties: false` everywhere, every property required | checked at load for tools with `"strict": true` (`registry/strict.rs`); every function carries `strict` |

use std::borrow::Cow;
use std::sync::OnceLock;

use super::{DeferralMode, Provider};
use crate::error::{quoted, Error, Result};
use crate::expand::Expansion;
use crate::registry::{Memo, MemoSlot, Registry, Tool};
use crate::turn::{split, Split, TurnState, View};
use crate::warning::{Warning, WarningCode};

/// OpenAI's longest function description, in characters, counted as UTF-16 units (JS's
/// `length`): the stricter reading of "characters" for text beyond the BMP.
pub const OPENAI_MAX_DESCRIPTION: usize = 1024;

/// How many tools one request may declare, where the provider says.
pub fn max_tools(provider: Provider) -> Option<usize> {
    match provider {
        Provider::OpenAiChat | Provider::OpenAiResponses => Some(128),
        Provider::Gemini => Some(512),
        Provider::Anthropic | Provider::BedrockConverse => None,
    }
}

/// A tool a provider refuses: the rule and why.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Refusal {
    pub(crate) rule: &'static str,
    pub(crate) why: &'static str,
}

/// Why `provider` refuses `tool`, if it does.
pub(crate) fn refusal(tool: &Tool, provider: Provider) -> Option<Refusal> {
    match provider {
        Provider::Gemini if !gemini_name(&tool.name) => Some(Refusal {
            rule: "gemini_name",
            why: "Gemini names start with a letter or an underscore",
        }),
        Provider::Anthropic if top_level_combinator(tool) => Some(Refusal {
            rule: "top_level_combinator",
            why: "Anthropic refuses oneOf, anyOf or allOf at the top level of input_schema",
        }),
        _ => None,
    }
}

fn gemini_name(name: &str) -> bool {
    let b = name.as_bytes();
    !b.is_empty()
        && b.len() <= 64
        && (b[0].is_ascii_alphabetic() || b[0] == b'_')
        && b.iter()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, b'_' | b'.' | b':' | b'-'))
}

fn top_level_combinator(tool: &Tool) -> bool {
    tool.parameters().as_object().is_some_and(|m| {
        ["oneOf", "anyOf", "allOf"]
            .iter()
            .any(|k| m.contains_key(*k))
    })
}

/// Whether the provider gets `tool`'s description shortened (the test `description` makes,
/// without building the shortened text).
fn shortened(tool: &Tool, provider: Provider) -> bool {
    matches!(provider, Provider::OpenAiChat | Provider::OpenAiResponses)
        && tool.description.encode_utf16().count() > OPENAI_MAX_DESCRIPTION
}

/// The description a provider gets: shortened where the provider limits its length.
pub(crate) fn description(tool: &Tool, provider: Provider) -> Cow<'_, str> {
    match provider {
        Provider::OpenAiChat | Provider::OpenAiResponses => {
            shorten(&tool.description, OPENAI_MAX_DESCRIPTION)
        }
        _ => Cow::Borrowed(&tool.description),
    }
}

/// `text` cut to at most `max` UTF-16 units (so at most `max` code points too), at the last
/// space in the final eighth when there is one, ending in `…`. Pure string arithmetic: the
/// same bytes on every target.
pub(crate) fn shorten(text: &str, max: usize) -> Cow<'_, str> {
    if text.encode_utf16().count() <= max {
        return Cow::Borrowed(text);
    }
    let budget = max - 1; // the ellipsis is one unit
    let mut end = 0;
    let mut units = 0;
    for (i, c) in text.char_indices() {
        if units + c.len_utf16() > budget {
            break;
        }
        units += c.len_utf16();
        end = i + c.len_utf8();
    }
    let cut = &text[..end];
    let cut = match cut.rfind(char::is_whitespace) {
        Some(at) if at >= end - end / 8 => cut[..at].trim_end(),
        _ => cut,
    };
    Cow::Owned(format!("{cut}…"))
}

/// What a provider makes of one registry tool.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) struct Judgement {
    /// Why the provider refuses it, if it does.
    pub(crate) refusal: Option<Refusal>,
    /// Whether its description is shortened for the provider.
    pub(crate) shortened: bool,
}

/// Per registry and provider: every tool's judgement (by registry position).
pub(crate) struct ProviderRules([OnceLock<Vec<Judgement>>; Provider::ALL.len()]);

impl Memo for ProviderRules {
    const SLOT: MemoSlot = MemoSlot::ProviderRules;
}

/// Every registry tool's judgement for a provider, made once per registry and provider (the
/// planned turns, `tool_search` and `check` only read it).
pub(crate) fn judgements(registry: &Registry, provider: Provider) -> Cow<'_, [Judgement]> {
    let judge = || -> Vec<Judgement> {
        registry
            .tools()
            .iter()
            .map(|t| Judgement {
                refusal: refusal(t, provider),
                shortened: shortened(t, provider),
            })
            .collect()
    };
    match registry.memo(|_| ProviderRules(Default::default())) {
        Some(rules) => Cow::Borrowed(rules.0[provider.index()].get_or_init(judge)),
        None => Cow::Owned(judge()),
    }
}

/// A turn's split for one provider: the tools it refuses left out (their warnings), and the
/// descriptions it gets shortened (their warnings). `refused(i)` tells the renderer and
/// `tool_search` what to leave out.
pub(crate) struct ProviderSplit<'r> {
    pub(crate) split: Split,
    pub(crate) warnings: Vec<Warning>,
    judgements: Cow<'r, [Judgement]>,
}

impl ProviderSplit<'_> {
    /// Whether the provider refuses the tool at a registry position.
    pub(crate) fn refused(&self, index: usize) -> bool {
        self.judgements
            .get(index)
            .is_some_and(|j| j.refusal.is_some())
    }
}

/// Splits a turn for a provider (see [`ProviderSplit`]).
pub(crate) fn split_for<'r>(
    expansion: &'r Expansion,
    state: &TurnState,
    view: View,
    provider: Provider,
    mode: DeferralMode,
) -> ProviderSplit<'r> {
    let registry = expansion.registry();
    let judgements = judgements(registry, provider);
    let judged = |i: usize| judgements.get(i).copied().unwrap_or_default();
    let origin = format!("provider:{}", provider.as_str());
    let mut warnings = Vec::new();
    for i in expansion.tools() {
        if let (Some(r), Some(tool)) = (judged(i).refusal, registry.tool(i)) {
            warnings.push(Warning::new(
                WarningCode::ProviderRefusedTool,
                origin.clone(),
                format!(
                    "{} is left out of the {} payload: {} (rule {})",
                    quoted(&tool.name),
                    provider.as_str(),
                    r.why,
                    r.rule
                ),
            ));
        }
    }
    let keep = |i: &usize| judged(*i).refusal.is_none();
    let mut split = split(expansion, state, view);
    split.array.retain(keep);
    split.catalog.retain(keep);
    split.promoted.retain(keep);
    // What the provider reads in full: the array, or every declared tool in native modes.
    let declared: Box<dyn Iterator<Item = usize> + '_> = match mode {
        DeferralMode::Catalog => Box::new(split.array.iter().copied()),
        DeferralMode::Native | DeferralMode::NativeClient => {
            Box::new(expansion.tools().filter(keep))
        }
    };
    for tool in declared
        .filter(|&i| judged(i).shortened)
        .filter_map(|i| registry.tool(i))
    {
        warnings.push(Warning::new(
            WarningCode::DescriptionShortened,
            origin.clone(),
            format!(
                "{}'s description of {} characters is shortened to {OPENAI_MAX_DESCRIPTION} for {} (rule description_length; the full text is in the registry and in tool_search results)",
                quoted(&tool.name),
                // UTF-16 units, as the limit counts them (and JS's `length`).
                tool.description.encode_utf16().count(),
                provider.as_str()
            ),
        ));
    }
    ProviderSplit {
        split,
        warnings,
        judgements,
    }
}

/// An error when a payload declares more tools than the provider takes in one request.
/// `resident` of the `declared` tools are sent in full (the rest are `defer_loading`
/// declarations of a native mode): the advice names only what can help.
pub(crate) fn check_count(provider: Provider, declared: usize, resident: usize) -> Result<()> {
    let Some(max) = max_tools(provider).filter(|&max| declared > max) else {
        return Ok(());
    };
    let deferred = declared.saturating_sub(resident);
    let advice = match (resident, deferred) {
        (_, 0) => "defer some (deferred_default_tools or \"defer\": true), narrow the intent, or use a provider without the limit".to_string(),
        (0, _) => format!("all {deferred} are deferred declarations (defer_loading), which count too: use catalog mode (deferred tools are listed by name, not declared), narrow the intent, or use a provider without the limit"),
        _ => format!("{deferred} of them are deferred declarations (defer_loading), which count too: use catalog mode (deferred tools are listed by name, not declared), defer more of the {resident} resident ones, narrow the intent, or use a provider without the limit"),
    };
    Err(Error::argument(
        "provider",
        format!(
            "{} takes at most {max} tools per request and this turn declares {declared} (rule tools_per_request): {advice}",
            provider.as_str()
        ),
    ))
}

/// One thing a provider would refuse in a registry, or change for it.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct Finding {
    /// The tool (empty for a finding about the whole request).
    pub tool: String,
    /// The rule (`gemini_name`, `top_level_combinator`, `description_length`,
    /// `tools_per_request`, `builtin_fallback`, `builtin_option_dropped`).
    pub rule: &'static str,
    /// `true`: the provider would refuse it (the library leaves the tool out, or refuses the
    /// request); `false`: the library changes it for the provider (a shortened description).
    pub refused: bool,
    /// What happens, in words.
    pub message: String,
}

/// What a provider would refuse in a registry as it stands, and what the library changes for
/// it ([`Registry::check`]).
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct ProviderCheck {
    /// The provider checked.
    pub provider: Provider,
    /// Every finding, tools in registry order, then the request-level ones.
    pub findings: Vec<Finding>,
}

impl ProviderCheck {
    /// Whether nothing would be refused or changed.
    pub fn is_clean(&self) -> bool {
        self.findings.is_empty()
    }

    /// A readable report, one line a finding (the CLI's `check` output).
    pub fn to_table(&self) -> String {
        let mut out = String::new();
        for f in &self.findings {
            let what = if f.refused { "refused" } else { "changed" };
            let tool = if f.tool.is_empty() {
                "(request)"
            } else {
                &f.tool
            };
            out.push_str(&format!("{what:<8} {:<20} {tool}: {}\n", f.rule, f.message));
        }
        out.push_str(&if self.is_clean() {
            format!(
                "check: the registry is clean for {}\n",
                self.provider.as_str()
            )
        } else {
            let refused = self.findings.iter().filter(|f| f.refused).count();
            format!(
                "check: {} for {}: {refused} refused, {} changed\n",
                self.findings.len(),
                self.provider.as_str(),
                self.findings.len() - refused
            )
        });
        out
    }
}

impl Registry {
    /// Everything `provider` would refuse in this registry, and everything the library changes
    /// for it, tool by tool; then whether the default turn (no intent, catalog mode) declares
    /// more tools than the provider takes.
    pub fn check(&self, provider: Provider) -> ProviderCheck {
        let mut findings = Vec::new();
        let judgements = judgements(self, provider);
        for (tool, judged) in self.tools().iter().zip(judgements.iter()) {
            if let Some(r) = judged.refusal {
                findings.push(Finding {
                    tool: tool.name.clone(),
                    rule: r.rule,
                    refused: true,
                    message: format!("{}; left out of the {} payload", r.why, provider.as_str()),
                });
            }
            if judged.shortened {
                findings.push(Finding {
                    tool: tool.name.clone(),
                    rule: "description_length",
                    refused: false,
                    message: format!(
                        "description of {} characters, shortened to {OPENAI_MAX_DESCRIPTION}",
                        tool.description.encode_utf16().count()
                    ),
                });
            }
        }
        for tool in self.tools() {
            let Some(b) = tool.builtin() else { continue };
            let finding = |rule, message: String| Finding {
                tool: tool.name.clone(),
                rule,
                refused: false,
                message,
            };
            if !b.runs_on(provider) {
                let why = match provider {
                    _ if !b.offered_by(provider) => "it has no such tool of its own",
                    Provider::OpenAiChat => "OpenAI Chat's web search is a request field for its search models only: list openai-chat in builtin.providers to send web_search_options",
                    Provider::BedrockConverse => "Bedrock Converse's web grounding (systemTool nova_grounding) is for Nova models only: list bedrock-converse in builtin.providers to send it",
                    _ => "the registry leaves this provider out of builtin.providers",
                };
                findings.push(finding(
                    "builtin_fallback",
                    format!(
                        "sent as a function the agent server runs, not as {}'s own tool ({why})",
                        provider.as_str()
                    ),
                ));
                continue;
            }
            let dropped = b.dropped_for(provider);
            if !dropped.is_empty() {
                findings.push(finding(
                    "builtin_option_dropped",
                    format!(
                        "{}'s own tool takes no {}: left out of its form",
                        provider.as_str(),
                        crate::text::join(&dropped, ", ")
                    ),
                ));
            }
        }
        // The per-request count is judged on the default intent's array; an expansion that
        // fails is a finding of its own, not a check that silently skips the count.
        match crate::expand::expand(self, &Default::default(), Default::default()) {
            Ok(expansion) => {
                let turn = split_for(
                    &expansion,
                    &TurnState::default(),
                    View::Frozen,
                    provider,
                    DeferralMode::Catalog,
                );
                let resident = turn.split.array.len();
                if let Err(e) = check_count(provider, resident, resident) {
                    findings.push(Finding {
                        tool: String::new(),
                        rule: "tools_per_request",
                        refused: true,
                        message: match e {
                            Error::InvalidArgument { message, .. } => message,
                            other => other.to_string(),
                        },
                    });
                }
            }
            Err(e) => findings.push(Finding {
                tool: String::new(),
                rule: "tools_per_request",
                refused: true,
                message: format!(
                    "the default intent does not expand, so the tool count cannot be judged: {e}"
                ),
            }),
        }
        ProviderCheck { provider, findings }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn the_tool_count_advice_fits_what_is_declared() {
        use crate::{Registry, TurnRequest};
        let tools: Vec<_> = (0..130)
            .map(|k| json!({"name": format!("t{k}"), "description": "d", "parameters": {"type": "object"}}))
            .collect();
        let message = |deferred: bool, mode: DeferralMode| {
            let doc = if deferred {
                json!({"tools": tools, "default_tools": ["*"], "deferred_default_tools": ["*"]})
            } else {
                json!({"tools": tools})
            };
            let r = Registry::from_value(&doc).unwrap();
            let request = TurnRequest {
                provider: Provider::OpenAiResponses,
                mode,
                ..Default::default()
            };
            let e = r.plan_turn(&request).unwrap_err();
            assert_eq!(e.code(), "invalid_argument");
            e.to_string()
        };
        let all_resident = message(false, DeferralMode::Catalog);
        assert!(all_resident.contains("defer some"), "{all_resident}");
        let all_deferred = message(true, DeferralMode::Native);
        assert!(!all_deferred.contains("defer some"), "{all_deferred}");
        assert!(all_deferred.contains("use catalog mode"), "{all_deferred}");
        // Deferred in catalog mode: the array is small, nothing to refuse.
        let r = Registry::from_value(
            &json!({"tools": tools, "default_tools": ["*"], "deferred_default_tools": ["*"]}),
        )
        .unwrap();
        let request = TurnRequest {
            provider: Provider::OpenAiResponses,
            ..Default::default()
        };
        assert!(r.plan_turn(&request).is_ok());
    }

    #[test]
    fn shortening_is_bounded_and_ends_at_a_word() {
        assert_eq!(shorten("short", 10), "short");
        let long = "word ".repeat(300);
        let cut = shorten(&long, 1024);
        assert!(cut.encode_utf16().count() <= 1024, "{}", cut.len());
        assert!(cut.ends_with("word…"), "{cut}");
        // Astral characters count two UTF-16 units.
        let emoji = "🚀".repeat(600);
        let cut = shorten(&emoji, 1024);
        assert_eq!(cut.encode_utf16().count(), 1023);
        assert_eq!(cut.chars().count(), 512);
        // No whitespace near the end: a hard cut.
        assert_eq!(shorten(&"x".repeat(2000), 100).chars().count(), 100);
    }

    #[test]
    fn the_shortened_flag_agrees_with_the_shortened_text() {
        for n in [1023, 1024, 1025, 2000] {
            let tool = Tool::new("t", "é".repeat(n), json!({"type": "object"}));
            for provider in Provider::ALL {
                let owned = matches!(description(&tool, provider), Cow::Owned(_));
                assert_eq!(shortened(&tool, provider), owned, "{n} {provider:?}");
            }
        }
    }

    #[test]
    fn gemini_names_and_anthropic_combinators() {
        let t = |name: &str, schema| Tool::new(name, "d", schema);
        let plain = json!({"type": "object"});
        assert!(refusal(&t("2fa_login", plain.clone()), Provider::Gemini).is_some());
        assert!(refusal(&t("-x", plain.clone()), Provider::Gemini).is_some());
        assert!(refusal(&t("_x-y", plain.clone()), Provider::Gemini).is_none());
        assert!(refusal(&t("2fa_login", plain.clone()), Provider::Anthropic).is_none());
        let any_of = json!({"type": "object", "anyOf": [{"required": ["a"]}]});
        let r = refusal(&t("a", any_of.clone()), Provider::Anthropic).unwrap();
        assert_eq!(r.rule, "top_level_combinator");
        assert!(refusal(&t("a", any_of), Provider::OpenAiChat).is_none());
    }
}
