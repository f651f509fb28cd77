//! The static embedding table of tool-intent's hybrid `tool_search` ranker, as bytes (the
//! layout is read by `tool_intent::search` with the `hybrid` feature; README.md says where
//! the table comes from). A crate of its own so that the tool-intent crate a keyword-only
//! user downloads does not carry its 8 MB.
#![no_std]

/// `minilm-static.bin`: 30,522 WordPiece tokens × 256 dimensions, int8, with a u16 weight
/// per token.
pub static TABLE: &[u8] = include_bytes!("../minilm-static.bin");
