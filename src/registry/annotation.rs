//! Selecting tools by what they do: MCP tool annotations and the trust that decides whether
//! they are believed.
//!
//! MCP specification, Tools, "Tool annotations", and the schema's `ToolAnnotations`
//! (<https://modelcontextprotocol.io/specification/2026-07-28/server/tools>, unchanged since
//! 2025-03-26): `readOnlyHint` (default false), `destructiveHint` (default true, meaningful
//! only when not read-only), `idempotentHint` (default false, likewise) and `openWorldHint`
//! (default true). The specification says clients must consider annotations untrusted unless
//! they come from trusted servers, so a tool of a server the registry does not name in `trusted_servers` is
//! taken as the defaults say — not read-only, destructive, open-world — whatever it claims: a
//! hostile server cannot put a destructive tool into a read-only preset. The registry's own
//! tools (not from a merged server) are trusted: their annotations are the operator's.
//!
//! In a registry's pattern lists (`default_tools`, `deferred_default_tools`, `toolsets`,
//! `overlays`, a source's `deny`) an entry that starts with `@` selects by effective
//! annotation: `@read_only`, `@destructive`, `@idempotent`, `@open_world`, or the opposite
//! with `@!` (`@!open_world` is closed-world). No tool name can start with `@`
//! (`^[a-zA-Z0-9_-]{1,64}$`), so a selector never shadows a name. Selectors are expanded live,
//! like globs: a tool that joins a trusted server enters the presets its annotations select.

use serde::Serialize;
use serde_json::Value;

/// A tool's MCP annotations as the registry believes them (what `@` selectors read).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct EffectiveAnnotations {
    /// It changes nothing.
    pub read_only: bool,
    /// It may destroy or overwrite (never when read-only).
    pub destructive: bool,
    /// Repeating a call has no further effect (always when read-only).
    pub idempotent: bool,
    /// It reaches entities outside a closed domain (the web, other people's systems).
    pub open_world: bool,
    /// The tool's own annotations were read: the registry's own tool, or a server that
    /// `trusted_servers` names. Otherwise the four above are the specification's defaults.
    pub trusted: bool,
}

pub(crate) type Effective = EffectiveAnnotations;

impl EffectiveAnnotations {
    /// What the specification's defaults say of a tool that is not believed.
    pub(crate) const UNTRUSTED: Effective = Effective {
        read_only: false,
        destructive: true,
        idempotent: false,
        open_world: true,
        trusted: false,
    };

    /// The effective annotations of a tool's `annotations` value, believed when `trusted`.
    /// A hint that is not a boolean is taken as absent.
    pub(crate) fn of(annotations: Option<&Value>, trusted: bool) -> Effective {
        if !trusted {
            return Effective::UNTRUSTED;
        }
        let hint = |key: &str| {
            annotations
                .and_then(|a| a.get(key))
                .and_then(Value::as_bool)
        };
        let read_only = hint("readOnlyHint").unwrap_or(false);
        Effective {
            read_only,
            // A read-only tool changes nothing: it is neither destructive nor can repeating it
            // do harm (the two hints are "meaningful only when readOnlyHint is false").
            destructive: !read_only && hint("destructiveHint").unwrap_or(true),
            idempotent: read_only || hint("idempotentHint").unwrap_or(false),
            open_world: hint("openWorldHint").unwrap_or(true),
            trusted: true,
        }
    }

    fn has(&self, hint: Hint) -> bool {
        match hint {
            Hint::ReadOnly => self.read_only,
            Hint::Destructive => self.destructive,
            Hint::Idempotent => self.idempotent,
            Hint::OpenWorld => self.open_world,
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Hint {
    ReadOnly,
    Destructive,
    Idempotent,
    OpenWorld,
}

/// `@hint` or `@!hint`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Selector {
    hint: Hint,
    negated: bool,
}

/// The selectors a pattern list may hold, for messages.
pub(crate) const SELECTORS: &str =
    "@read_only, @destructive, @idempotent, @open_world, or one of them negated as @!read_only";

impl Selector {
    /// Whether a pattern is a selector (valid or not): it starts with `@`.
    pub(crate) fn is_selector(pattern: &str) -> bool {
        pattern.starts_with('@')
    }

    /// The selector a pattern spells, `None` for an unknown one.
    pub(crate) fn parse(pattern: &str) -> Option<Selector> {
        let rest = pattern.strip_prefix('@')?;
        let (negated, name) = match rest.strip_prefix('!') {
            Some(name) => (true, name),
            None => (false, rest),
        };
        let hint = match name {
            "read_only" => Hint::ReadOnly,
            "destructive" => Hint::Destructive,
            "idempotent" => Hint::Idempotent,
            "open_world" => Hint::OpenWorld,
            _ => return None,
        };
        Some(Selector { hint, negated })
    }

    pub(crate) fn selects(&self, effective: &Effective) -> bool {
        effective.has(self.hint) != self.negated
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn the_specifications_defaults_and_trust() {
        let e = Effective::of(None, true);
        assert_eq!(
            e,
            Effective {
                trusted: true,
                ..Effective::UNTRUSTED
            }
        );
        let claims = json!({"readOnlyHint": true, "openWorldHint": false});
        let believed = Effective::of(Some(&claims), true);
        assert!(believed.read_only && !believed.destructive && believed.idempotent);
        assert!(!believed.open_world);
        assert_eq!(Effective::of(Some(&claims), false), Effective::UNTRUSTED);
        let safe_write = json!({"destructiveHint": false, "idempotentHint": true});
        let e = Effective::of(Some(&safe_write), true);
        assert!(!e.read_only && !e.destructive && e.idempotent && e.open_world);
        // A hint that is not a boolean says nothing.
        let odd = json!({"readOnlyHint": "yes"});
        assert!(!Effective::of(Some(&odd), true).read_only);
    }

    #[test]
    fn selectors_parse_and_select() {
        let ro = Selector::parse("@read_only").unwrap();
        let closed = Selector::parse("@!open_world").unwrap();
        let claims = json!({"readOnlyHint": true, "openWorldHint": false});
        let e = Effective::of(Some(&claims), true);
        assert!(ro.selects(&e) && closed.selects(&e));
        assert!(!ro.selects(&Effective::UNTRUSTED));
        assert!(Selector::parse("@destructive")
            .unwrap()
            .selects(&Effective::UNTRUSTED));
        for bad in ["@", "@!", "@readOnly", "read_only", "@!!read_only"] {
            assert_eq!(Selector::parse(bad), None, "{bad}");
        }
        assert!(Selector::is_selector("@nope") && !Selector::is_selector("mcp__a__*"));
    }
}
