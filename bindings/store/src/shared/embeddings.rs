//! The model ranker's tool embeddings shared through the store (feature `model`): a process
//! reads what others computed with the same weights and shares what it computes.

use tool_intent::Result;

use super::SharedRegistry;

/// What [`SharedRegistry::with_model`] read from the store (serialized as `{loaded, refused}`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
pub struct SharedEmbeddings {
    /// Tool embeddings read back and kept by the ranker.
    pub loaded: usize,
    /// Rows refused (another length, or not unit vectors: damaged, or written with other
    /// weights under these weights' fingerprint); the ranker embeds those tools itself.
    pub refused: usize,
}

impl SharedRegistry {
    /// Gives every version the model ranker of these `weights` (a `model.safetensors` of
    /// all-MiniLM-L6-v2), with the tool embeddings other processes with the same weights
    /// shared through the store: this process's first model `tool_search` embeds only the
    /// tools none of them embedded. The embeddings this process computes are shared at its
    /// turn boundaries ([`SharedRegistry::share_embeddings`]).
    pub fn with_model(&mut self, weights: &[u8]) -> Result<SharedEmbeddings> {
        let ranker =
            tool_intent::search::ModelRanker::from_safetensors(weights)?.keeping_unshared();
        let id = tool_intent::fingerprint(weights);
        let mut counts = SharedEmbeddings {
            loaded: 0,
            refused: 0,
        };
        for (text, bytes) in self.store.embeddings(&id)? {
            // A length that is not whole f32s is damage: refused before the ranker sees it,
            // or the bytes left over would be dropped and the rest kept.
            let remembered = bytes.len() % 4 == 0 && {
                let vector: Vec<f32> = bytes
                    .chunks_exact(4)
                    .map(|b| f32::from_le_bytes([b[0], b[1], b[2], b[3]]))
                    .collect();
                ranker.remember(&text, &vector).is_ok()
            };
            if remembered {
                counts.loaded += 1;
            } else {
                counts.refused += 1;
            }
        }
        self.current = self.current.clone().with_model(ranker.clone());
        self.loaded.clear();
        self.planning.clear();
        self.model = Some((ranker, id));
        Ok(counts)
    }

    /// Shares the tool embeddings this process computed since it last did (none without
    /// [`SharedRegistry::with_model`]); how many rows it sent. Called at each turn boundary.
    /// Only what this process computed is sent, not what it read from the store; rows the
    /// store did not take (an error) are sent at the next call.
    pub fn share_embeddings(&mut self) -> Result<usize> {
        let Some((ranker, id)) = self.model.as_ref() else {
            return Ok(0);
        };
        let rows: Vec<(String, Vec<u8>)> = ranker
            .unshared_embeddings()
            .into_iter()
            .map(|(text, v)| (text, v.iter().flat_map(|f| f.to_le_bytes()).collect()))
            .collect();
        if rows.is_empty() {
            return Ok(0);
        }
        self.store.add_embeddings(id, &rows)?;
        ranker.mark_shared(rows.len());
        Ok(rows.len())
    }
}
