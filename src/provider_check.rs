//! `tool-intent check`: what each provider would refuse in a registry as it stands, and what
//! the library changes for it, tool by tool (the rules themselves are `crate::provider::rules`).

use crate::error::Error;
use crate::provider::rules::{check_count, OPENAI_MAX_DESCRIPTION};
use crate::provider::{DeferralMode, Provider};
use crate::registry::Registry;
use crate::turn::split::{judgements, split_for};
use crate::turn::{TurnState, View};

/// One thing a provider would refuse in a registry, or change for it.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct Finding {
    /// The tool (empty for a finding about the whole request).
    pub tool: String,
    /// The rule (`gemini_name`, `top_level_combinator`, `invalid_schema`, `array_items`,
    /// `description_length`, `tools_per_request`, `builtin_fallback`,
    /// `builtin_option_dropped`).
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
}

impl Registry {
    /// Everything `provider` would refuse in this registry, and everything the library changes
    /// for it, tool by tool; then whether the default turn (no intent, catalog mode) declares
    /// more tools than the provider takes.
    pub fn check(&self, provider: Provider) -> ProviderCheck {
        let mut findings = Vec::new();
        let judgements = judgements(self, provider);
        for (tool, judged) in self.tools().iter().zip(judgements.iter()) {
            if let Some(r) = &judged.refusal {
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
        let split = crate::turn::expand::expand(self, &Default::default(), Default::default())
            .and_then(|expansion| {
                split_for(
                    &expansion,
                    &TurnState::default(),
                    View::Frozen,
                    provider,
                    DeferralMode::Catalog,
                )
            });
        match split {
            Ok(turn) => {
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
