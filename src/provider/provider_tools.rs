//! Tools a provider runs itself: a registry tool marked `"builtin": {"kind": "web_search", …}`
//! goes out as each listed provider's own server tool, with the registry's options mapped to
//! that provider's fields, and as the ordinary function (run by the agent server) to every
//! other provider. The intent is unchanged: `web_search: true` still switches the overlay.
//!
//! The forms, from the pinned SDKs' types (`@anthropic-ai/sdk` 1.16.0, `openai` 7.59.0,
//! `@google/genai` 3.3.0, `@aws-sdk/client-bedrock-runtime` 3.1164.0; `tests/js/sdk-types`
//! type-checks every one):
//! - Anthropic `WebSearchTool20260318 {type: "web_search_20260318", name: "web_search",
//!   allowed_domains?, blocked_domains?, max_uses?, user_location?: {type: "approximate",
//!   city?, region?, country?, timezone?}}` (earlier versions `web_search_20250305`,
//!   `web_search_20260209`, by `anthropic_version`); allowed and blocked domains "cannot be
//!   used alongside" each other;
//! - OpenAI Responses `WebSearchTool {type: "web_search", filters?: {allowed_domains?},
//!   search_context_size?, user_location?: {type: "approximate", …}}`: no blocked domains, no
//!   use limit;
//! - OpenAI Chat: no entry in `tools`: the request's top-level `web_search_options
//!   {search_context_size?, user_location?: {type: "approximate", approximate: {…}}}`, on
//!   search models only — so it is sent only when the registry lists `openai-chat`;
//! - Gemini `Tool {googleSearch: {excludeDomains?}}` beside the `functionDeclarations`
//!   tool; with both, the request needs `toolConfig: {includeServerSideToolInvocations:
//!   true}`, returned beside the payload;
//! - Bedrock Converse `Tool.SystemToolMember {systemTool: {name: "nova_grounding"}}`, Nova
//!   models only — sent only when the registry lists `bedrock-converse`; it takes no options.
//!
//! Options a provider cannot honour: dropping a domain list would widen what the search may
//! reach, so a listed provider that cannot send one is an error naming the option and the
//! provider (the registry can leave that provider out: it then gets the function); any other
//! option is dropped for that provider with a `builtin_option_dropped` warning. The table
//! `OPTION_SUPPORT` is the one source of these rules (and of the table in `docs/providers.md`,
//! which a test compares).

use serde_json::{Map, Value};

use super::Provider;
use crate::error::{quoted, Error, JsonPath, Result};
use crate::warning::{Warning, WarningCode};

/// What a registry says of a provider-executed tool.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ProviderTool {
    /// The kind's rules (`kind()` is its name).
    kind: &'static Kind,
    /// Only results from these domains.
    pub allowed_domains: Option<Vec<String>>,
    /// Never results from these domains.
    pub blocked_domains: Option<Vec<String>>,
    /// At most this many searches per request.
    pub max_uses: Option<u64>,
    /// `{city?, region?, country?, timezone?}` (strings), to localise results.
    pub user_location: Option<Map<String, Value>>,
    /// `low`, `medium` or `high`.
    pub search_context_size: Option<String>,
    /// The Anthropic server tool's `type`.
    pub anthropic_version: String,
    /// The providers that get the built-in form (the rest get the function).
    pub providers: Vec<Provider>,
}

/// Whether a provider's built-in form carries an option: `Send`, `Drop` (a warning) or
/// `Refuse` (an error while the provider is listed: dropping it widens access).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Support {
    Send,
    Drop,
    Refuse,
}

/// Every option a built-in may take, in document order.
pub(crate) const OPTIONS: [&str; 5] = [
    "allowed_domains",
    "blocked_domains",
    "max_uses",
    "user_location",
    "search_context_size",
];

/// What the library knows of one kind of built-in: which providers have it, which options
/// it takes and how each provider carries them (option × provider, in `OPTIONS` and
/// `Provider::ALL` order: anthropic, openai-chat, openai-responses, bedrock-converse, gemini;
/// `None`: not an option of this kind), the providers that get it by default (those whose
/// built-in works with any of their models) and Anthropic's versions (newest last, the
/// default).
#[derive(Debug, PartialEq, Eq)]
pub(crate) struct Kind {
    pub(crate) name: &'static str,
    offered_by: [bool; 5],
    support: [Option<[Support; 5]>; 5],
    default_providers: &'static [Provider],
    pub(crate) anthropic_versions: &'static [&'static str],
}

/// The kinds the library maps.
pub(crate) const KINDS: [Kind; 2] = {
    use Support::{Drop as D, Refuse as R, Send as S};
    [
        Kind {
            name: "web_search",
            offered_by: [true; 5],
            support: [
                Some([S, R, S, R, R]), // allowed_domains
                Some([S, R, R, R, S]), // blocked_domains
                Some([S, D, D, D, D]), // max_uses
                Some([S, S, S, D, D]), // user_location
                Some([D, S, S, D, D]), // search_context_size
            ],
            default_providers: &[
                Provider::Anthropic,
                Provider::OpenAiResponses,
                Provider::Gemini,
            ],
            anthropic_versions: &[
                "web_search_20250305",
                "web_search_20260209",
                "web_search_20260318",
            ],
        },
        // Anthropic `WebFetchTool20260318 {type, name: "web_fetch", allowed_domains?,
        // blocked_domains?, max_uses?, …}`; Gemini `Tool {urlContext: {}}` (no options).
        // OpenAI and Bedrock have none.
        Kind {
            name: "web_fetch",
            offered_by: [true, false, false, false, true],
            support: [
                Some([S, R, R, R, R]), // allowed_domains
                Some([S, R, R, R, R]), // blocked_domains
                Some([S, D, D, D, D]), // max_uses
                None,
                None,
            ],
            default_providers: &[Provider::Anthropic, Provider::Gemini],
            anthropic_versions: &[
                "web_fetch_20250910",
                "web_fetch_20260209",
                "web_fetch_20260309",
                "web_fetch_20260318",
            ],
        },
    ]
};

impl Kind {
    fn support(&self, option: usize, provider: Provider) -> Option<Support> {
        self.support[option].map(|row| row[provider.index()])
    }
}

impl ProviderTool {
    /// The option × provider tables as Markdown, one per kind (`docs/providers.md` holds
    /// them; a test compares): `sent`, `dropped (warning)`, `refused (error)`, or `—` where the
    /// provider has no such built-in.
    pub fn options_table() -> String {
        let mut out = String::new();
        for kind in &KINDS {
            out.push_str(&format!("`{}`:\n\n| option |", kind.name));
            for p in Provider::ALL {
                out.push_str(&format!(" {} |", p.as_str()));
            }
            out.push_str("\n|---|");
            out.push_str(&"---|".repeat(Provider::ALL.len()));
            out.push('\n');
            for (k, option) in OPTIONS.iter().enumerate() {
                if kind.support[k].is_none() {
                    continue;
                }
                out.push_str(&format!("| `{option}` |"));
                for p in Provider::ALL {
                    out.push_str(match kind.support(k, p) {
                        _ if !kind.offered_by[p.index()] => " — |",
                        Some(Support::Send) => " sent |",
                        Some(Support::Drop) => " dropped (warning) |",
                        _ => " refused (error) |",
                    });
                }
                out.push('\n');
            }
            out.push('\n');
        }
        out
    }

    /// The kind: `web_search` or `web_fetch`.
    pub fn kind(&self) -> &'static str {
        self.kind.name
    }

    /// The rules of this tool's kind.
    pub(crate) fn rules(&self) -> &'static Kind {
        self.kind
    }

    /// Whether a provider has a built-in of this kind at all.
    pub(crate) fn offered_by(&self, provider: Provider) -> bool {
        self.rules().offered_by[provider.index()]
    }

    /// Whether a provider gets the built-in form.
    pub fn runs_on(&self, provider: Provider) -> bool {
        self.providers.contains(&provider)
    }

    fn has(&self, option: &str) -> bool {
        match option {
            "allowed_domains" => self.allowed_domains.is_some(),
            "blocked_domains" => self.blocked_domains.is_some(),
            "max_uses" => self.max_uses.is_some(),
            "user_location" => self.user_location.is_some(),
            _ => self.search_context_size.is_some(),
        }
    }

    /// The options a provider drops (for its warning).
    pub(crate) fn dropped_for(&self, provider: Provider) -> Vec<&'static str> {
        let kind = self.rules();
        OPTIONS
            .iter()
            .enumerate()
            .filter(|(k, o)| self.has(o) && kind.support(*k, provider) == Some(Support::Drop))
            .map(|(_, o)| *o)
            .collect()
    }

    /// Reads `"builtin"` of the tool at `path`; warnings for options a listed provider drops.
    pub(crate) fn parse(
        value: &Value,
        path: &JsonPath,
        tool: &str,
        warnings: &mut Vec<Warning>,
    ) -> Result<ProviderTool> {
        let obj = value.as_object().ok_or_else(|| {
            Error::expected(
                "document",
                path,
                "an object {\"kind\": \"web_search\", …}",
                value,
            )
        })?;
        const KEYS: [&str; 8] = [
            "kind",
            "allowed_domains",
            "blocked_domains",
            "max_uses",
            "user_location",
            "search_context_size",
            "anthropic_version",
            "providers",
        ];
        if let Some(key) = obj.keys().find(|k| !KEYS.contains(&k.as_str())) {
            return Err(Error::registry(
                &path.key(key),
                format!(
                    "unknown builtin key {} (expected one of: {})",
                    quoted(key),
                    crate::text::join(&KEYS, ", ")
                ),
            ));
        }
        let Some(given) = obj.get("kind") else {
            return Err(Error::value("document", path, "builtin has no \"kind\""));
        };
        let Some(rules) = given
            .as_str()
            .and_then(|k| KINDS.iter().find(|r| r.name == k))
        else {
            let names: Vec<&str> = KINDS.iter().map(|k| k.name).collect();
            return Err(Error::expected(
                "document",
                &path.key("kind"),
                &format!("one of: {}", crate::text::join(&names, ", ")),
                given,
            ));
        };
        let kind = rules.name.to_string();
        for (k, option) in OPTIONS.iter().enumerate() {
            if rules.support[k].is_none() && obj.get(*option).is_some_and(|v| !v.is_null()) {
                return Err(Error::registry(
                    &path.key(option),
                    format!("a built-in {} takes no {option}", quoted(&kind)),
                ));
            }
        }
        if tool != kind {
            // Anthropic's type fixes the name (`name: 'web_search'`), and every provider's
            // server tool answers under its kind.
            return Err(Error::registry(
                &path.key("kind"),
                format!(
                    "a built-in {} must be the tool named {} (providers call their own tool so), not {}",
                    quoted(&kind),
                    quoted(&kind),
                    quoted(tool)
                ),
            ));
        }
        let domains = |key: &str| -> Result<Option<Vec<String>>> {
            match obj.get(key) {
                None | Some(Value::Null) => Ok(None),
                Some(Value::Array(items)) if !items.is_empty() => items
                    .iter()
                    .enumerate()
                    .map(|(i, d)| match d {
                        Value::String(s) if !s.is_empty() => Ok(s.clone()),
                        other => Err(Error::expected(
                            "document",
                            &path.key(key).index(i),
                            "a domain name",
                            other,
                        )),
                    })
                    .collect::<Result<Vec<_>>>()
                    .map(Some),
                Some(other) => Err(Error::expected(
                    "document",
                    &path.key(key),
                    "a non-empty array of domain names",
                    other,
                )),
            }
        };
        let allowed_domains = domains("allowed_domains")?;
        let blocked_domains = domains("blocked_domains")?;
        if allowed_domains.is_some() && blocked_domains.is_some() {
            // Anthropic: "Cannot be used alongside `blocked_domains`"; an allow-list already
            // excludes every other domain.
            return Err(Error::registry(
                &path.key("blocked_domains"),
                "allowed_domains and blocked_domains cannot be given together (an allow-list already excludes every other domain)",
            ));
        }
        let max_uses = match obj.get("max_uses") {
            None | Some(Value::Null) => None,
            Some(v) => match v.as_u64().filter(|n| *n >= 1) {
                Some(n) => Some(n),
                None => {
                    return Err(Error::expected(
                        "document",
                        &path.key("max_uses"),
                        "a whole number of at least 1",
                        v,
                    ))
                }
            },
        };
        let user_location = match obj.get("user_location") {
            None | Some(Value::Null) => None,
            Some(Value::Object(o)) => {
                for (k, v) in o {
                    if !["city", "region", "country", "timezone"].contains(&k.as_str()) {
                        return Err(Error::registry(
                            &path.key("user_location").key(k),
                            format!("unknown user_location key {} (expected city, region, country, timezone)", quoted(k)),
                        ));
                    }
                    if !v.is_string() {
                        return Err(Error::expected(
                            "document",
                            &path.key("user_location").key(k),
                            "a string",
                            v,
                        ));
                    }
                }
                Some(o.clone())
            }
            Some(other) => {
                return Err(Error::expected(
                    "document",
                    &path.key("user_location"),
                    "an object {city?, region?, country?, timezone?}",
                    other,
                ))
            }
        };
        // An optional option that must be one of a few words.
        let one_of = |key: &str, allowed: &[&str], expected: &str| -> Result<Option<String>> {
            match obj.get(key) {
                None | Some(Value::Null) => Ok(None),
                Some(Value::String(s)) if allowed.contains(&s.as_str()) => Ok(Some(s.clone())),
                Some(other) => Err(Error::expected("document", &path.key(key), expected, other)),
            }
        };
        let search_context_size = one_of(
            "search_context_size",
            &["low", "medium", "high"],
            "low, medium or high",
        )?;
        let anthropic_version = match one_of(
            "anthropic_version",
            rules.anthropic_versions,
            &format!(
                "one of: {}",
                crate::text::join(rules.anthropic_versions, ", ")
            ),
        )? {
            Some(version) => version,
            None => rules.anthropic_versions[rules.anthropic_versions.len() - 1].to_string(),
        };
        let providers = match obj.get("providers") {
            None | Some(Value::Null) => rules.default_providers.to_vec(),
            Some(Value::Array(items)) => {
                let mut out = Vec::new();
                for (i, p) in items.iter().enumerate() {
                    let at = path.key("providers").index(i);
                    let parsed = p
                        .as_str()
                        .ok_or_else(|| Error::expected("document", &at, "a provider name", p))
                        .and_then(|s| {
                            Provider::parse(s).map_err(|e| Error::registry(&at, e.to_string()))
                        })?;
                    if !rules.offered_by[parsed.index()] {
                        return Err(Error::registry(
                            &at,
                            format!(
                                "{} has no built-in {} of its own (leave it out: it gets the function)",
                                parsed.as_str(),
                                quoted(&kind)
                            ),
                        ));
                    }
                    if !out.contains(&parsed) {
                        out.push(parsed);
                    }
                }
                // Provider order, whatever the document's: one registry, one set (a filter
                // of the five, not a sort: the only stable sort of the crate cost the wasm
                // module a sort routine).
                Provider::ALL
                    .into_iter()
                    .filter(|p| out.contains(p))
                    .collect()
            }
            Some(other) => {
                return Err(Error::expected(
                    "document",
                    &path.key("providers"),
                    "an array of provider names",
                    other,
                ))
            }
        };
        let tool_def = ProviderTool {
            kind: rules,
            allowed_domains,
            blocked_domains,
            max_uses,
            user_location,
            search_context_size,
            anthropic_version,
            providers,
        };
        for &provider in &tool_def.providers {
            for (k, option) in OPTIONS.iter().enumerate() {
                if tool_def.has(option) && rules.support(k, provider) == Some(Support::Refuse) {
                    return Err(Error::registry(
                        &path.key(option),
                        format!(
                            "{}'s own {} cannot honour {option}, and sending it without would widen what it may reach: leave {} out of builtin.providers (it then gets the function {} the agent server runs)",
                            provider.as_str(),
                            quoted(&kind),
                            provider.as_str(),
                            quoted(tool)
                        ),
                    ));
                }
            }
            let dropped = tool_def.dropped_for(provider);
            if !dropped.is_empty() {
                warnings.push(Warning::new(
                    WarningCode::BuiltinOptionDropped,
                    "registry",
                    format!(
                        "{}'s built-in {} takes no {}: left out of its form",
                        provider.as_str(),
                        quoted(tool),
                        crate::text::join(&dropped, ", ")
                    ),
                ));
            }
        }
        Ok(tool_def)
    }

    /// The `"builtin"` object as written back (the defaults written too: one canonical form).
    pub(crate) fn to_value(&self) -> Value {
        let mut o = Map::new();
        o.insert("kind".into(), Value::from(self.kind()));
        let strings =
            |l: &[String]| Value::Array(l.iter().map(|s| Value::from(s.as_str())).collect());
        if let Some(d) = &self.allowed_domains {
            o.insert("allowed_domains".into(), strings(d));
        }
        if let Some(d) = &self.blocked_domains {
            o.insert("blocked_domains".into(), strings(d));
        }
        if let Some(n) = self.max_uses {
            o.insert("max_uses".into(), Value::from(n));
        }
        if let Some(l) = &self.user_location {
            o.insert("user_location".into(), Value::Object(l.clone()));
        }
        if let Some(s) = &self.search_context_size {
            o.insert("search_context_size".into(), Value::from(s.as_str()));
        }
        o.insert(
            "anthropic_version".into(),
            Value::from(self.anthropic_version.as_str()),
        );
        o.insert(
            "providers".into(),
            Value::Array(
                self.providers
                    .iter()
                    .map(|p| Value::from(p.as_str()))
                    .collect(),
            ),
        );
        Value::Object(o)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn parse(v: Value) -> Result<(ProviderTool, Vec<Warning>)> {
        let mut w = Vec::new();
        ProviderTool::parse(&v, &JsonPath::root().key("builtin"), "web_search", &mut w)
            .map(|t| (t, w))
    }

    #[test]
    fn defaults_and_round_trip() {
        let (t, w) = parse(json!({"kind": "web_search"})).unwrap();
        assert_eq!(t.providers, KINDS[0].default_providers);
        assert_eq!(t.anthropic_version, "web_search_20260318");
        assert!(w.is_empty());
        let (again, _) = parse(t.to_value()).unwrap();
        assert_eq!(again, t);
    }

    #[test]
    fn a_domain_list_a_listed_provider_cannot_send_is_an_error() {
        let e = parse(json!({"kind": "web_search", "allowed_domains": ["a.com"], "providers": ["anthropic", "gemini"]})).unwrap_err();
        assert_eq!(e.path(), Some("$.builtin.allowed_domains"));
        assert!(e.to_string().contains("gemini"), "{e}");
        let (t, _) = parse(json!({"kind": "web_search", "allowed_domains": ["a.com"], "providers": ["anthropic", "openai-responses"]})).unwrap();
        assert!(t.runs_on(Provider::OpenAiResponses) && !t.runs_on(Provider::Gemini));
        let e = parse(
            json!({"kind": "web_search", "allowed_domains": ["a"], "blocked_domains": ["b"]}),
        )
        .unwrap_err();
        assert_eq!(e.path(), Some("$.builtin.blocked_domains"));
    }

    #[test]
    fn other_options_are_dropped_with_a_warning_naming_them() {
        let (_, w) =
            parse(json!({"kind": "web_search", "max_uses": 3, "search_context_size": "low"}))
                .unwrap();
        let messages: Vec<&str> = w.iter().map(|w| w.message.as_str()).collect();
        assert_eq!(w.len(), 3, "{messages:?}");
        assert!(
            messages[0].starts_with("anthropic") && messages[0].contains("search_context_size")
        );
        assert!(messages[1].starts_with("openai-responses") && messages[1].contains("max_uses"));
        assert!(
            messages[2].starts_with("gemini")
                && messages[2].contains("max_uses, search_context_size")
        );
        for bad in [
            json!({"kind": "web_fetch"}),
            json!({"kind": "web_search", "max_uses": 0}),
            json!({"kind": "web_search", "providers": ["x"]}),
            json!({"kind": "web_search", "extra": 1}),
        ] {
            assert!(parse(bad.clone()).is_err(), "{bad}");
        }
    }
}
