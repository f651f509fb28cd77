//! The model ranker's handle (feature `model`): all-MiniLM-L6-v2's weights and the cache of
//! tool embeddings, shared by clones. The type sits here, below `registry` (a registry holds
//! one: `Registry::with_model`) and `search` (whose `model/` reads the weights, embeds and
//! ranks: `search/model/mod.rs` has the methods and the module docs), so that neither of those
//! two depends on the other through it.

use std::collections::BTreeMap;
use std::sync::{Arc, Mutex, PoisonError};

use tool_intent_minilm::Encoder;

/// all-MiniLM-L6-v2's attention heads (its `config.json`: 12 of 32 dimensions).
pub(crate) const HEADS: usize = 12;

/// Tool texts with their embeddings.
pub(crate) type Embeddings = Vec<(String, Arc<[f32]>)>;

/// [`ModelRanker`]'s default keyword weight, chosen by MRR@10 on BFCL's non-live categories.
pub const DEFAULT_MODEL_KEYWORD_WEIGHT: f64 = 0.8;

/// Keyword scores fused with all-MiniLM-L6-v2's cosine (`search/model/mod.rs`'s docs say how).
/// Clones share the weights and the cache of tool embeddings.
#[derive(Clone)]
pub struct ModelRanker {
    pub(crate) encoder: Arc<Encoder>,
    pub(crate) keyword_weight: f64,
    /// The ids of `[CLS]` and `[SEP]`.
    pub(crate) cls: u32,
    pub(crate) sep: u32,
    /// Tool text → its unit embedding.
    pub(crate) cache: Arc<Mutex<BTreeMap<String, Arc<[f32]>>>>,
    /// With [`ModelRanker::keeping_unshared`]: the embeddings this ranker computed itself
    /// (not those [`ModelRanker::remember`] was given) that no caller has shared yet, in the
    /// order it computed them. `None` for a ranker whose process shares nothing, which then
    /// keeps no second list.
    pub(crate) unshared: Option<Arc<Mutex<Embeddings>>>,
}

impl std::fmt::Debug for ModelRanker {
    // Not the weights (23 million values).
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ModelRanker")
            .field("dims", &self.encoder.dims())
            .field("keyword_weight", &self.keyword_weight)
            .field("cached_tools", &self.cached_tools())
            .finish()
    }
}

impl ModelRanker {
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

    /// How many distinct tool texts have been embedded and kept.
    pub fn cached_tools(&self) -> usize {
        self.cache
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .len()
    }

    /// Every tool text embedded or remembered so far with its embedding, in text order.
    pub fn embeddings(&self) -> Vec<(String, Arc<[f32]>)> {
        self.cache
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .iter()
            .map(|(t, v)| (t.clone(), Arc::clone(v)))
            .collect()
    }

    /// This ranker, keeping each embedding it computes from now on until a caller marks it
    /// shared ([`ModelRanker::unshared_embeddings`], [`ModelRanker::mark_shared`]): for a
    /// process that shares its embeddings through a store. Its clones share the list.
    pub fn keeping_unshared(mut self) -> ModelRanker {
        self.unshared = Some(Arc::default());
        self
    }

    /// The embeddings this ranker computed itself since a caller last marked them shared
    /// ([`ModelRanker::mark_shared`]), in the order it computed them: what a process hands to
    /// a store its other processes read. Embeddings read back with
    /// [`ModelRanker::remember`] are not among them, so a process sends only what it added.
    /// Empty unless the ranker is [`ModelRanker::keeping_unshared`].
    pub fn unshared_embeddings(&self) -> Vec<(String, Arc<[f32]>)> {
        self.unshared.as_ref().map_or_else(Vec::new, |unshared| {
            unshared
                .lock()
                .unwrap_or_else(PoisonError::into_inner)
                .clone()
        })
    }

    /// Marks the first `count` of [`ModelRanker::unshared_embeddings`] shared (call it once
    /// the store has them, so a failed write leaves them to the next try).
    pub fn mark_shared(&self, count: usize) {
        if let Some(unshared) = &self.unshared {
            let mut unshared = unshared.lock().unwrap_or_else(PoisonError::into_inner);
            let count = count.min(unshared.len());
            unshared.drain(..count);
        }
    }

    /// Keeps `vector` as the embedding of the tool text `text`, as if this ranker had
    /// computed it: read back from a store that another process with the same weights wrote.
    /// A vector of another length than the model's, or not of unit length (a row damaged or
    /// written with other weights), is `invalid_argument` on `embedding`.
    pub fn remember(&self, text: &str, vector: &[f32]) -> crate::Result<()> {
        let dims = self.encoder.dims();
        if vector.len() != dims {
            return Err(crate::Error::argument(
                "embedding",
                format!(
                    "{} values; the model's embeddings have {dims}",
                    vector.len()
                ),
            ));
        }
        let norm: f64 = vector.iter().map(|&v| f64::from(v) * f64::from(v)).sum();
        if !(norm - 1.0).abs().lt(&1e-3) {
            return Err(crate::Error::argument(
                "embedding",
                format!(
                    "its length is {:.4}, not 1 (embeddings are unit vectors)",
                    norm.sqrt()
                ),
            ));
        }
        self.cache
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .entry(text.to_string())
            .or_insert_with(|| Arc::from(vector));
        Ok(())
    }
}
