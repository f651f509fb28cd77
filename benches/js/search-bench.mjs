// What the JS search benchmarks share (hybrid-node.mjs, model-node.mjs, model-chrome.mjs): the
// 20-word query and the intent that turns every generated tool on, the same as the native
// benchmarks' (benches/support/generator.rs: SEARCH_20_WORDS; benches/hybrid.rs, model.rs).
// Not a benchmark itself.
export const QUERY = "find the open github issues assigned to me about the failing deploy pipeline and add a comment with the logs";
export const INTENT = { toolset: "full" };
