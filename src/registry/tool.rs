//! What a registry holds: tools, source policies and earlier versions of the defaults.

use std::sync::{Arc, OnceLock};

use serde_json::{Map, Value};

use crate::intent::ToolsOverride;
use crate::provider::ProviderTool;

/// One tool definition.
///
/// The JSON Schema of the arguments is kept as the compact text it was loaded from and parsed
/// on first use ([`Tool::parameters`]): most tools of a large registry are deferred and their
/// schemas are never sent, so loading a registry only validates schemas (size, depth, an
/// object at the root) without building them.
#[derive(Debug, Clone, PartialEq)]
pub struct Tool {
    /// The name the model calls the tool by.
    pub name: String,
    /// What the tool does, for the model.
    pub description: String,
    /// MCP `title`, kept for round trips and display.
    pub title: Option<String>,
    /// MCP `annotations`, kept for round trips.
    pub annotations: Option<Value>,
    /// Explicit deferral override (`"defer": true|false`); `None` follows the registry rule.
    pub defer: Option<bool>,
    /// OpenAI strict mode (`"strict": true`): the schema meets OpenAI's strict rules (checked
    /// at load) and both OpenAI APIs send the function with `strict: true`; every other tool
    /// goes out with `strict: false`.
    pub strict: bool,
    /// Every other field of the input (`outputSchema`, `execution`, `_meta`, ...), kept.
    pub extra: Map<String, Value>,
    /// The name the tool's source knows it by, when it differs from `name` (an MCP
    /// server's own name, which dispatch sends back to the server).
    pub(crate) source: Option<String>,
    pub(crate) schema: Schema,
    /// Run by the provider itself where the registry says (`"builtin"`, `provider_tool.rs`).
    pub(crate) builtin: Option<Box<ProviderTool>>,
}

impl Tool {
    /// A tool with a name, a description and an argument schema (a JSON object).
    pub fn new(name: impl Into<String>, description: impl Into<String>, parameters: Value) -> Tool {
        Tool {
            name: name.into(),
            description: description.into(),
            title: None,
            annotations: None,
            defer: None,
            strict: false,
            extra: Map::new(),
            source: None,
            schema: Schema::from_value(parameters),
            builtin: None,
        }
    }

    /// The provider-executed form the registry gives this tool, if any (`"builtin"`).
    pub fn builtin(&self) -> Option<&ProviderTool> {
        self.builtin.as_deref()
    }

    /// Whether the wire name differs from the source's own name beyond the `mcp__<server>__`
    /// prefix (characters mapped, shortened, or disambiguated).
    pub fn is_renamed(&self) -> bool {
        self.source
            .as_ref()
            .is_some_and(|s| !self.name.ends_with(s.as_str()))
    }

    /// The name to call the tool by at its source: an MCP server's own tool name (which may
    /// hold characters providers refuse), or the registry name.
    pub fn source_name(&self) -> &str {
        self.source.as_deref().unwrap_or(&self.name)
    }

    /// The argument schema's compact JSON text, as loaded (for readers that want a few
    /// members without keeping a parsed copy, such as the search index).
    pub(crate) fn schema_text(&self) -> &str {
        &self.schema.0.text
    }

    /// The JSON Schema of the arguments (parsed on first use, then kept).
    pub fn parameters(&self) -> &Value {
        self.schema.value()
    }
}

/// A tool's argument schema: its compact JSON text, and the parsed value once asked for.
/// Shared between registries (a merged registry reuses the schemas of the one it came from).
#[derive(Debug, Clone)]
pub(crate) struct Schema(Arc<SchemaCell>);

#[derive(Debug)]
struct SchemaCell {
    text: Box<str>,
    value: OnceLock<Value>,
    /// SHA-256 of the canonical text (keys sorted, compact), for the registry fingerprint:
    /// computed once per schema, and schemas are shared by every registry version.
    digest: OnceLock<[u8; 32]>,
}

impl Schema {
    /// A schema from JSON text that the loader has already validated as a JSON object.
    pub(crate) fn from_validated_text(text: &str) -> Schema {
        Schema(Arc::new(SchemaCell {
            text: text.into(),
            value: OnceLock::new(),
            digest: OnceLock::new(),
        }))
    }

    pub(crate) fn from_value(value: Value) -> Schema {
        let cell = SchemaCell {
            text: crate::json_text::text(&value).into_boxed_str(),
            value: OnceLock::new(),
            digest: OnceLock::new(),
        };
        let _ = cell.value.set(value);
        Schema(Arc::new(cell))
    }

    pub(crate) fn value(&self) -> &Value {
        self.0.value.get_or_init(|| self.parse_again())
    }

    /// The schema's text parsed again. The text was validated as a JSON object when the tool
    /// was loaded (values that need a full parse were parsed then, and schemas nest at most
    /// 32 deep), so parsing it again cannot fail:
    /// `json::value::tests::what_the_reader_passes_always_builds` holds the parser to the
    /// reader. An empty object stands in rather than a panic (no panic may kill the wasm
    /// module), here only, for the parsed value and the digest alike.
    fn parse_again(&self) -> Value {
        crate::json::parse_trusted(&self.0.text).unwrap_or_else(|_| Value::Object(Map::new()))
    }
}

impl Schema {
    /// SHA-256 of the schema's canonical JSON (the loaded text may hold whitespace and keys
    /// in any order; a written-back registry holds the canonical form). The parsed value is
    /// not kept unless it already was.
    pub(crate) fn canonical_digest(&self) -> [u8; 32] {
        use sha2::{Digest, Sha256};
        *self.0.digest.get_or_init(|| {
            let canonical = match self.0.value.get() {
                Some(v) => crate::json_text::text(v),
                None => crate::json_text::text(&self.parse_again()),
            };
            Sha256::digest(canonical.as_bytes()).into()
        })
    }
}

impl PartialEq for Schema {
    fn eq(&self, other: &Self) -> bool {
        Arc::ptr_eq(&self.0, &other.0) || self.value() == other.value()
    }
}

/// Per-source policy: the default intent of requests from that source and a ceiling.
#[derive(Debug, Clone, PartialEq)]
pub struct SourcePolicy {
    /// The source (`webui`, `tui`, a channel).
    pub name: String,
    /// Used when both the override and the agent profile say "follow".
    pub default: ToolsOverride,
    /// Name patterns no override can lift (matched ignoring ASCII case).
    pub deny: Vec<String>,
}

/// An earlier version of `default_tools` and toolsets, used to recognise legacy snapshots.
#[derive(Debug, Clone, PartialEq)]
pub struct HistoryVersion {
    /// The version label (`"#0"` when the document gives none).
    pub version: String,
    /// `default_tools` as it was then, if the version says.
    pub default_tools: Option<Vec<String>>,
    /// Presets as they were then.
    pub toolsets: Vec<(String, Vec<String>)>,
}
