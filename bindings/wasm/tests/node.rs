//! The wasm test suite in Node: `wasm-pack test --node -- --test node`.
#![cfg(target_arch = "wasm32")]

mod wasm_suite;
