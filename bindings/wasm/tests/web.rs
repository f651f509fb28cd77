//! The wasm test suite in a real browser:
//! `CHROMEDRIVER=/usr/bin/chromedriver wasm-pack test --headless --chrome -- --test web`.
#![cfg(target_arch = "wasm32")]

wasm_bindgen_test::wasm_bindgen_test_configure!(run_in_browser);

mod wasm_suite;
