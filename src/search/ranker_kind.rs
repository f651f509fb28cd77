//! The built-in rankers by name. Apart from `rank.rs` because choosing the hybrid ranker
//! checks its table (`hybrid/`), which itself builds on `rank.rs`.

use super::rank::{KeywordRanker, Ranker};
use crate::error::{quoted, Error, Result};
use crate::registry::Registry;

/// The built-in rankers by name, as the CLI (`--ranker`), JS (`{ranker}`) and Python
/// (`ranker=`) choose them.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum RankerKind {
    /// [`KeywordRanker`] (the default).
    #[default]
    Keyword,
    /// `HybridRanker` with its default weight (feature `hybrid`).
    Hybrid,
    /// The registry's `ModelRanker` (feature `model`; attached by `Registry::with_model`).
    Model,
}

/// A ranker chosen by name: a built-in one, or the registry's model (a cheap handle).
#[derive(Clone)]
pub enum ChosenRanker {
    /// [`KeywordRanker`] or the hybrid ranker.
    Builtin(&'static dyn Ranker),
    /// The model the registry was given.
    #[cfg(feature = "model")]
    Model(super::ModelRanker),
}

impl ChosenRanker {
    /// The ranker, for a [`SearchCall`](super::SearchCall).
    pub fn as_ranker(&self) -> &dyn Ranker {
        match self {
            ChosenRanker::Builtin(ranker) => *ranker,
            #[cfg(feature = "model")]
            ChosenRanker::Model(model) => model,
        }
    }
}

impl std::fmt::Debug for ChosenRanker {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ChosenRanker::Builtin(_) => f.write_str("Builtin"),
            #[cfg(feature = "model")]
            ChosenRanker::Model(model) => f.debug_tuple("Model").field(model).finish(),
        }
    }
}

fn model_not_built() -> Error {
    Error::argument(
        "ranker",
        "\"model\" is not in this build: cargo feature model, npm tool-intent-hybrid, pip tool-intent[hybrid]",
    )
}

impl RankerKind {
    /// Parses `keyword`, `hybrid` or `model`.
    pub fn parse(text: &str) -> Result<RankerKind> {
        match text {
            "keyword" => Ok(RankerKind::Keyword),
            "hybrid" => Ok(RankerKind::Hybrid),
            "model" => Ok(RankerKind::Model),
            other => Err(Error::argument(
                "ranker",
                format!("{} is not one of keyword, hybrid, model", quoted(other)),
            )),
        }
    }

    /// Whether this build has the ranker (`hybrid` needs the `hybrid` feature and its table,
    /// `model` the `model` feature); an error on `ranker` saying where to get it if not.
    pub(crate) fn check_build(self) -> Result<()> {
        match self {
            RankerKind::Model if cfg!(feature = "model") => Ok(()),
            RankerKind::Model => Err(model_not_built()),
            other => other.ranker().map(|_| ()),
        }
    }

    /// The ranker of this kind for searches of `registry`: `hybrid` in a build without the
    /// `hybrid` feature, or `model` without the `model` feature or without a model given to
    /// the registry, is an error on `ranker` that says what is missing.
    pub fn ranker_for(self, registry: &Registry) -> Result<ChosenRanker> {
        match self {
            #[cfg(feature = "model")]
            RankerKind::Model => registry
                .model()
                .map(|model| ChosenRanker::Model(model.clone()))
                .ok_or_else(|| {
                    Error::argument(
                        "ranker",
                        "\"model\" needs the model's weights: give the registry all-MiniLM-L6-v2's model.safetensors first (Rust Registry::with_model, JS registry.withModel, Python registry.with_model, CLI --model)",
                    )
                }),
            #[cfg(not(feature = "model"))]
            RankerKind::Model => {
                let _ = registry;
                Err(model_not_built())
            }
            other => other.ranker().map(ChosenRanker::Builtin),
        }
    }

    /// The built-in ranker of this kind; `hybrid` in a build without the `hybrid` feature is
    /// an error that says where to get it, and `model` always is (it needs a registry's
    /// model: [`RankerKind::ranker_for`]).
    pub fn ranker(self) -> Result<&'static dyn Ranker> {
        match self {
            RankerKind::Keyword => Ok(&KeywordRanker),
            #[cfg(feature = "hybrid")]
            RankerKind::Hybrid => {
                static HYBRID: super::HybridRanker = super::HybridRanker {
                    keyword_weight: super::DEFAULT_KEYWORD_WEIGHT,
                };
                // The embedding table is this build's own data: a table that does not parse
                // is a typed error here, before any search, never a quiet keyword ranking.
                super::hybrid::check_table()?;
                Ok(&HYBRID)
            }
            #[cfg(not(feature = "hybrid"))]
            RankerKind::Hybrid => Err(Error::argument(
                "ranker",
                "not in this build: cargo feature hybrid, npm tool-intent-hybrid, pip tool-intent[hybrid]",
            )),
            RankerKind::Model if cfg!(feature = "model") => Err(Error::argument(
                "ranker",
                "\"model\" searches with a registry's model: RankerKind::ranker_for",
            )),
            RankerKind::Model => Err(model_not_built()),
        }
    }
}
