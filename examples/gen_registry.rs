//! Writes a generated registry (deterministic from the seed) as JSON to stdout.
//!
//! cargo run --release --example gen_registry -- 1000 [seed]

#[path = "../benches/support/generator.rs"]
mod generator;

fn main() {
    let mut args = std::env::args().skip(1);
    let total: usize = args.next().and_then(|a| a.parse().ok()).unwrap_or(1000);
    let seed: u64 = args.next().and_then(|a| a.parse().ok()).unwrap_or(42);
    let doc = generator::registry_document(total, seed);
    println!("{}", serde_json::to_string(&doc).expect("serialise"));
}
