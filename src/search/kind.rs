//! The built-in rankers by name. Apart from `rank.rs` because choosing the hybrid ranker
//! checks its table (`hybrid/`), which itself builds on `rank.rs`.

use super::rank::{KeywordRanker, Ranker};

/// The built-in rankers by name, as the CLI (`--ranker`), JS (`{ranker}`) and Python
/// (`ranker=`) choose them.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum RankerKind {
    /// [`KeywordRanker`] (the default).
    #[default]
    Keyword,
    /// `HybridRanker` with its default weight (feature `hybrid`).
    Hybrid,
}

impl RankerKind {
    /// Parses `keyword` or `hybrid`.
    pub fn parse(text: &str) -> crate::error::Result<RankerKind> {
        match text {
            "keyword" => Ok(RankerKind::Keyword),
            "hybrid" => Ok(RankerKind::Hybrid),
            other => Err(crate::error::Error::argument(
                "ranker",
                format!("\"{other}\" is not one of keyword, hybrid"),
            )),
        }
    }

    /// The ranker of this kind; `hybrid` in a build without the `hybrid` feature is an error
    /// that says where to get it.
    pub fn ranker(self) -> crate::error::Result<&'static dyn Ranker> {
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
            RankerKind::Hybrid => Err(crate::error::Error::argument(
                "ranker",
                "not in this build: cargo feature hybrid, npm tool-intent-hybrid, pip tool-intent[hybrid]",
            )),
        }
    }
}
