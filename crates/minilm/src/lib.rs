//! all-MiniLM-L6-v2's forward pass (a 6-layer BERT encoder, 384 dimensions, 12 heads), then
//! sentence-transformers' mean pooling and L2 normalisation: a text's sentence embedding.
//! It follows Hugging Face's `BertModel` (post-norm layers, exact erf GELU, LayerNorm
//! ε 1e-12, token type 0) and the model's `sentence_bert_config.json` (at most 256 tokens);
//! tool-intent's `benches/retrieval/minilm.py` is the numpy reference it is checked against
//! (tool-intent's `tests/model.rs`).
//!
//! **The same bits on every target.** Every sum runs in one fixed order: a linear layer's
//! output `j` is `((x₀w₀ⱼ + x₁w₁ⱼ) + x₂w₂ⱼ) + …` then the bias, whatever the target
//! vectorises, because the vector lanes hold different outputs, never parts of one sum.
//! Multiplications and additions stay separate (Rust never fuses them into FMA), `exp` and
//! `erf` are `libm`'s pure-Rust ones, and `sqrt` is correctly rounded everywhere. So native,
//! wasm and Python builds give the same embedding, and the search's hits replay exactly.
//!
//! **Speed.** A linear layer is computed 8 outputs × 4 tokens at a time, with the weights
//! packed so those 8 outputs' weights are contiguous: 32 running sums that the compiler keeps
//! in vector registers, and each weight read from memory once per text rather than once per
//! token. For wasm32 LLVM left that loop scalar (the module held `f32.mul`, no `f32x4.mul`),
//! so wasm gets the same loop written in `simd128` operations (lane for lane the same sums).

// One `unsafe` block: calling the AVX2 build of the product after checking the CPU has AVX2.
#![deny(unsafe_code)]
#![warn(missing_docs)]

use std::collections::BTreeMap;

/// A refusal of the weights: what is missing or has the wrong shape, by tensor name.
pub type Error = String;

/// Outputs computed together by [`Linear::apply`] (a layer's width must be a multiple).
const LANES: usize = 8;
/// Tokens computed together by the portable [`Linear::apply`] and by wasm's (SSE2's 16
/// registers hold 4 × 8 sums; in wasm, 2, 6 and 8 tokens per pass were all slower in Node).
const TOKENS: usize = 4;
/// The most tokens a text is cut to, `[CLS]` and `[SEP]` included (sentence-transformers'
/// `max_seq_length` for all-MiniLM-L6-v2).
pub const MAX_TOKENS: usize = 256;

/// A dense layer `y = x Wᵀ + b`, the weights packed [`LANES`] outputs at a time: for output
/// group `g`, input `k`, lane `l`: `packed[(g · inputs + k) · LANES + l] = W[g · LANES + l][k]`.
struct Linear {
    inputs: usize,
    outputs: usize,
    packed: Vec<f32>,
    bias: Vec<f32>,
}

struct LayerNorm {
    gain: Vec<f32>,
    bias: Vec<f32>,
}

struct Layer {
    query: Linear,
    key: Linear,
    value: Linear,
    attention_out: Linear,
    attention_norm: LayerNorm,
    intermediate: Linear,
    output: Linear,
    output_norm: LayerNorm,
}

/// One tensor of a checkpoint: its type, shape and (for `F32`) its values, row-major.
#[derive(Debug, Clone, PartialEq)]
pub struct Tensor {
    /// The safetensors type name (`F32`, `I64`, ...).
    pub dtype: String,
    /// The dimensions.
    pub shape: Vec<usize>,
    /// The values when `dtype` is `F32`, else empty.
    pub values: Vec<f32>,
}

/// The encoder's weights.
pub struct Encoder {
    dims: usize,
    heads: usize,
    /// Token id → `dims` values.
    words: Vec<f32>,
    /// Position → `dims` values (at least [`MAX_TOKENS`] rows, or fewer texts are cut to).
    positions: Vec<f32>,
    max_tokens: usize,
    /// Token type 0's row (every text is one segment).
    token_type: Vec<f32>,
    embedding_norm: LayerNorm,
    layers: Vec<Layer>,
}

/// Takes tensors out of the file by name, refusing a missing one or a wrong shape by name.
struct Tensors(BTreeMap<String, Tensor>);

impl Tensors {
    fn take(&mut self, name: &str, shape: &[Option<usize>]) -> Result<Tensor, Error> {
        let tensor = self
            .0
            .remove(name)
            .ok_or_else(|| format!("tensor {name} is missing: not a BERT model's weights"))?;
        if tensor.dtype != "F32" {
            return Err(format!(
                "tensor {name} is {}; the encoder reads F32 weights",
                tensor.dtype
            ));
        }
        let fits = tensor.shape.len() == shape.len()
            && tensor
                .shape
                .iter()
                .zip(shape)
                .all(|(&d, want)| want.is_none_or(|w| w == d));
        if !fits {
            return Err(format!(
                "tensor {name} has shape {}; expected {}",
                shape_text(&tensor.shape),
                describe(shape)
            ));
        }
        Ok(tensor)
    }

    fn linear(
        &mut self,
        name: &str,
        inputs: usize,
        outputs: Option<usize>,
    ) -> Result<Linear, Error> {
        let weight = self.take(&format!("{name}.weight"), &[outputs, Some(inputs)])?;
        let outputs = weight.shape[0];
        // A layer of no inputs or no outputs is no BERT's (and its rows cannot be split).
        if inputs == 0 || outputs == 0 {
            return Err(format!(
                "tensor {name}.weight has shape {}; a layer has inputs and outputs",
                shape_text(&weight.shape)
            ));
        }
        if outputs % LANES != 0 {
            return Err(format!(
                "tensor {name}.weight has {outputs} outputs; a multiple of {LANES} is read"
            ));
        }
        let bias = self.take(&format!("{name}.bias"), &[Some(outputs)])?.values;
        let mut packed = vec![0.0f32; outputs * inputs];
        for (o, row) in weight.values.chunks_exact(inputs).enumerate() {
            let (group, lane) = (o / LANES, o % LANES);
            for (k, &w) in row.iter().enumerate() {
                packed[(group * inputs + k) * LANES + lane] = w;
            }
        }
        Ok(Linear {
            inputs,
            outputs,
            packed,
            bias,
        })
    }

    fn norm(&mut self, name: &str, dims: usize) -> Result<LayerNorm, Error> {
        Ok(LayerNorm {
            gain: self.take(&format!("{name}.weight"), &[Some(dims)])?.values,
            bias: self.take(&format!("{name}.bias"), &[Some(dims)])?.values,
        })
    }
}

/// A tensor's shape as messages show it: `[384, 1536]`, or its first dimensions and their
/// count when a file gives many (a message stays short whatever the file holds).
pub fn shape_text(shape: &[usize]) -> String {
    const SHOWN: usize = 4;
    let first: Vec<String> = shape.iter().take(SHOWN).map(usize::to_string).collect();
    if shape.len() > SHOWN {
        format!("[{}, … ({} dimensions)]", first.join(", "), shape.len())
    } else {
        format!("[{}]", first.join(", "))
    }
}

fn describe(shape: &[Option<usize>]) -> String {
    let dims: Vec<String> = shape
        .iter()
        .map(|d| d.map_or("any".to_string(), |d| d.to_string()))
        .collect();
    format!("[{}]", dims.join(", "))
}

impl Encoder {
    /// The encoder of a BERT checkpoint's tensors (Hugging Face names, an optional `bert.`
    /// prefix removed), with `heads` attention heads.
    pub fn from_tensors(tensors: BTreeMap<String, Tensor>, heads: usize) -> Result<Encoder, Error> {
        let tensors = tensors
            .into_iter()
            .map(|(name, t)| {
                (
                    name.strip_prefix("bert.")
                        .map(str::to_string)
                        .unwrap_or(name),
                    t,
                )
            })
            .collect();
        let mut t = Tensors(tensors);
        let words = t.take("embeddings.word_embeddings.weight", &[None, None])?;
        // An id past the vocabulary is read as id 0, so there must be one.
        if words.shape[0] == 0 {
            return Err("tensor embeddings.word_embeddings.weight has no rows".to_string());
        }
        let dims = words.shape[1];
        if dims == 0 || heads == 0 || dims % heads != 0 || dims % LANES != 0 {
            return Err(format!(
                "{dims} dimensions do not split into {heads} heads of {LANES}-multiples"
            ));
        }
        let positions = t.take("embeddings.position_embeddings.weight", &[None, Some(dims)])?;
        let token_types = t.take(
            "embeddings.token_type_embeddings.weight",
            &[None, Some(dims)],
        )?;
        let token_type = token_types
            .values
            .get(..dims)
            .map(<[f32]>::to_vec)
            .ok_or_else(|| "embeddings.token_type_embeddings.weight has no rows".to_string())?;
        let embedding_norm = t.norm("embeddings.LayerNorm", dims)?;
        let mut layers = Vec::new();
        while t.0.contains_key(&format!(
            "encoder.layer.{}.attention.self.query.weight",
            layers.len()
        )) {
            let p = format!("encoder.layer.{}.", layers.len());
            let query = t.linear(&format!("{p}attention.self.query"), dims, Some(dims))?;
            let key = t.linear(&format!("{p}attention.self.key"), dims, Some(dims))?;
            let value = t.linear(&format!("{p}attention.self.value"), dims, Some(dims))?;
            let attention_out =
                t.linear(&format!("{p}attention.output.dense"), dims, Some(dims))?;
            let attention_norm = t.norm(&format!("{p}attention.output.LayerNorm"), dims)?;
            let intermediate = t.linear(&format!("{p}intermediate.dense"), dims, None)?;
            let output = t.linear(
                &format!("{p}output.dense"),
                intermediate.outputs,
                Some(dims),
            )?;
            let output_norm = t.norm(&format!("{p}output.LayerNorm"), dims)?;
            layers.push(Layer {
                query,
                key,
                value,
                attention_out,
                attention_norm,
                intermediate,
                output,
                output_norm,
            });
        }
        if layers.is_empty() {
            return Err("tensor encoder.layer.0.attention.self.query.weight is missing: not a BERT model's weights".to_string());
        }
        let max_tokens = (positions.values.len() / dims).min(MAX_TOKENS);
        if max_tokens < 3 {
            return Err("fewer than 3 position embeddings".to_string());
        }
        Ok(Encoder {
            dims,
            heads,
            words: words.values,
            positions: positions.values,
            max_tokens,
            token_type,
            embedding_norm,
            layers,
        })
    }

    /// The embedding's dimensions (384).
    pub fn dims(&self) -> usize {
        self.dims
    }

    /// How many word pieces a text keeps between `[CLS]` and `[SEP]`.
    pub fn max_pieces(&self) -> usize {
        self.max_tokens - 2
    }

    /// The number of token ids the vocabulary may use (rows of the word embeddings).
    pub fn vocabulary_size(&self) -> usize {
        self.words.len() / self.dims
    }

    /// The unit sentence embedding of `ids` (`[CLS]` … `[SEP]`, at most `max_tokens`; an id
    /// past the vocabulary counts as id 0, which the caller rules out).
    pub fn embed(&self, ids: &[u32]) -> Vec<f32> {
        let dims = self.dims;
        let count = ids.len().min(self.max_tokens);
        let mut x = vec![0.0f32; count * dims];
        for (i, (row, &id)) in x.chunks_exact_mut(dims).zip(ids).enumerate() {
            let word = self
                .words
                .get(id as usize * dims..(id as usize + 1) * dims)
                .unwrap_or(&self.words[..dims]);
            let position = &self.positions[i * dims..(i + 1) * dims];
            for (((v, &w), &p), &t) in row.iter_mut().zip(word).zip(position).zip(&self.token_type)
            {
                *v = (w + p) + t;
            }
        }
        self.embedding_norm.apply(&mut x, dims);
        let mut scratch = Scratch::default();
        for layer in &self.layers {
            layer.apply(&mut x, count, self.heads, dims, &mut scratch);
        }
        // Mean pooling over the tokens (no padding: one text at a time), then unit length.
        let mut sum = vec![0.0f32; dims];
        for row in x.chunks_exact(dims) {
            for (s, &v) in sum.iter_mut().zip(row) {
                *s += v;
            }
        }
        let n = count as f32;
        sum.iter_mut().for_each(|s| *s /= n);
        let mut norm = 0.0f32;
        for &s in &sum {
            norm += s * s;
        }
        let norm = norm.sqrt().max(1e-12);
        sum.iter_mut().for_each(|s| *s /= norm);
        sum
    }
}

#[derive(Default)]
struct Scratch {
    query: Vec<f32>,
    key: Vec<f32>,
    value: Vec<f32>,
    attended: Vec<f32>,
    projected: Vec<f32>,
    hidden: Vec<f32>,
    tiles: Vec<f32>,
    scores: Vec<f32>,
}

impl Layer {
    fn apply(&self, x: &mut [f32], count: usize, heads: usize, dims: usize, s: &mut Scratch) {
        self.query.apply(x, count, &mut s.tiles, &mut s.query);
        self.key.apply(x, count, &mut s.tiles, &mut s.key);
        self.value.apply(x, count, &mut s.tiles, &mut s.value);
        let head_dims = dims / heads;
        let scale = 1.0 / (head_dims as f32).sqrt();
        s.attended.clear();
        s.attended.resize(count * dims, 0.0);
        s.scores.resize(count, 0.0);
        for h in 0..heads {
            let part = h * head_dims..(h + 1) * head_dims;
            for i in 0..count {
                let q = &s.query[i * dims..][part.clone()];
                let mut most = f32::NEG_INFINITY;
                for (j, score) in s.scores.iter_mut().enumerate() {
                    let k = &s.key[j * dims..][part.clone()];
                    let mut dot = 0.0f32;
                    for (&a, &b) in q.iter().zip(k) {
                        dot += a * b;
                    }
                    *score = dot * scale;
                    most = most.max(*score);
                }
                let mut total = 0.0f32;
                for score in s.scores.iter_mut() {
                    *score = libm::expf(*score - most);
                    total += *score;
                }
                let out = &mut s.attended[i * dims..][part.clone()];
                for (j, &score) in s.scores.iter().enumerate() {
                    let p = score / total;
                    let v = &s.value[j * dims..][part.clone()];
                    for (o, &v) in out.iter_mut().zip(v) {
                        *o += p * v;
                    }
                }
            }
        }
        self.attention_out
            .apply(&s.attended, count, &mut s.tiles, &mut s.projected);
        add(x, &s.projected);
        self.attention_norm.apply(x, dims);
        self.intermediate
            .apply(x, count, &mut s.tiles, &mut s.hidden);
        for v in s.hidden.iter_mut() {
            *v = 0.5 * *v * (1.0 + libm::erff(*v * std::f32::consts::FRAC_1_SQRT_2));
        }
        self.output
            .apply(&s.hidden, count, &mut s.tiles, &mut s.projected);
        add(x, &s.projected);
        self.output_norm.apply(x, dims);
    }
}

fn add(x: &mut [f32], y: &[f32]) {
    for (a, &b) in x.iter_mut().zip(y) {
        *a += b;
    }
}

impl LayerNorm {
    /// Each `dims`-row: `(v − mean) / √(variance + 1e-12) · gain + bias`.
    fn apply(&self, x: &mut [f32], dims: usize) {
        let n = dims as f32;
        for row in x.chunks_exact_mut(dims) {
            let mut sum = 0.0f32;
            for &v in row.iter() {
                sum += v;
            }
            let mean = sum / n;
            let mut squares = 0.0f32;
            for &v in row.iter() {
                squares += (v - mean) * (v - mean);
            }
            let scale = 1.0 / (squares / n + 1e-12).sqrt();
            for ((v, &g), &b) in row.iter_mut().zip(&self.gain).zip(&self.bias) {
                *v = (*v - mean) * scale * g + b;
            }
        }
    }
}

impl Linear {
    /// `y = x Wᵀ + b` for `count` rows of `x`; `tiles` is scratch. On x86-64 with AVX2 the same
    /// sums run 8 tokens at a time in 256-bit registers (without FMA: AVX2 does not enable it,
    /// and Rust never fuses a multiply and an add on its own), so the bits are the portable
    /// code's: only the number of tokens per pass differs, never the order of a sum.
    fn apply(&self, x: &[f32], count: usize, tiles: &mut Vec<f32>, y: &mut Vec<f32>) {
        #[cfg(all(target_arch = "x86_64", not(target_feature = "avx2")))]
        if std::is_x86_feature_detected!("avx2") {
            // SAFETY: `apply_avx2` only needs AVX2, which the CPU was just found to have.
            #[allow(unsafe_code)]
            unsafe {
                return self.apply_avx2(x, count, tiles, y);
            }
        }
        #[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
        return self.apply_simd128(x, count, tiles, y);
        #[cfg(not(all(target_arch = "wasm32", target_feature = "simd128")))]
        self.apply_tiled::<TOKENS>(x, count, tiles, y)
    }

    /// [`Linear::apply_tiled`] ([`TOKENS`] per pass) in wasm's 128-bit vectors, written out
    /// because LLVM leaves that loop scalar for wasm32 (a warm query in Node: 64 → 32 ms).
    /// Each of the 8 vectors holds 4 outputs of one token, and a product and a sum stay two
    /// instructions (`f32x4.mul`, `f32x4.add`; no relaxed SIMD), so every lane computes the
    /// scalar code's sum in the scalar code's order.
    #[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
    fn apply_simd128(&self, x: &[f32], count: usize, tiles: &mut Vec<f32>, y: &mut Vec<f32>) {
        use core::arch::wasm32::{f32x4, f32x4_add, f32x4_extract_lane, f32x4_mul, f32x4_splat};
        self.each_tile::<TOKENS>(x, count, tiles, y, |weights, tile| {
            let mut sums = [f32x4_splat(0.0); 2 * TOKENS];
            for (w, xs) in weights.chunks_exact(LANES).zip(tile.chunks_exact(TOKENS)) {
                let low = f32x4(w[0], w[1], w[2], w[3]);
                let high = f32x4(w[4], w[5], w[6], w[7]);
                for (pair, &x) in sums.chunks_exact_mut(2).zip(xs) {
                    let x = f32x4_splat(x);
                    pair[0] = f32x4_add(pair[0], f32x4_mul(x, low));
                    pair[1] = f32x4_add(pair[1], f32x4_mul(x, high));
                }
            }
            let mut lanes = [[0.0f32; LANES]; TOKENS];
            for (token, pair) in lanes.iter_mut().zip(sums.chunks_exact(2)) {
                *token = [
                    f32x4_extract_lane::<0>(pair[0]),
                    f32x4_extract_lane::<1>(pair[0]),
                    f32x4_extract_lane::<2>(pair[0]),
                    f32x4_extract_lane::<3>(pair[0]),
                    f32x4_extract_lane::<0>(pair[1]),
                    f32x4_extract_lane::<1>(pair[1]),
                    f32x4_extract_lane::<2>(pair[1]),
                    f32x4_extract_lane::<3>(pair[1]),
                ];
            }
            lanes
        })
    }

    /// [`Linear::apply_tiled`] compiled for AVX2, 8 tokens per pass.
    #[cfg(all(target_arch = "x86_64", not(target_feature = "avx2")))]
    #[target_feature(enable = "avx2")]
    #[allow(unsafe_code)]
    unsafe fn apply_avx2(&self, x: &[f32], count: usize, tiles: &mut Vec<f32>, y: &mut Vec<f32>) {
        self.apply_tiled::<8>(x, count, tiles, y)
    }

    /// The product, `T` tokens per pass: the rows are interleaved `T` at a time
    /// (`tiles[(t · inputs + k) · T + i] = x[t · T + i][k]`), and each pass keeps `T` ×
    /// [`LANES`] running sums, each over the inputs in order.
    #[inline(always)]
    #[cfg_attr(
        all(target_arch = "wasm32", target_feature = "simd128"),
        allow(
            dead_code,
            reason = "wasm with simd128 runs apply_simd128; the tests run both"
        )
    )]
    fn apply_tiled<const T: usize>(
        &self,
        x: &[f32],
        count: usize,
        tiles: &mut Vec<f32>,
        y: &mut Vec<f32>,
    ) {
        self.each_tile::<T>(x, count, tiles, y, |weights, tile| {
            let mut sums = [[0.0f32; LANES]; T];
            for (w, xs) in weights.chunks_exact(LANES).zip(tile.chunks_exact(T)) {
                for (sum, &x) in sums.iter_mut().zip(xs) {
                    for (s, &w) in sum.iter_mut().zip(w) {
                        *s += x * w;
                    }
                }
            }
            sums
        })
    }

    /// The loops both products share: the rows interleaved `T` at a time ([`interleave`]),
    /// then for each group of [`LANES`] outputs and each tile of `T` tokens, `product(the
    /// group's packed weights, the tile)` gives the `T` × [`LANES`] sums, written to `y` with
    /// the bias added (the padding rows of the last tile dropped).
    #[inline(always)]
    fn each_tile<const T: usize>(
        &self,
        x: &[f32],
        count: usize,
        tiles: &mut Vec<f32>,
        y: &mut Vec<f32>,
        product: impl Fn(&[f32], &[f32]) -> [[f32; LANES]; T],
    ) {
        let (inputs, outputs) = (self.inputs, self.outputs);
        interleave::<T>(x, inputs, count, tiles);
        y.clear();
        y.resize(count * outputs, 0.0);
        for (group, weights) in self.packed.chunks_exact(inputs * LANES).enumerate() {
            let bias = &self.bias[group * LANES..][..LANES];
            for (t, tile) in tiles.chunks_exact(inputs * T).enumerate() {
                let sums = product(weights, tile);
                for (i, sum) in sums.iter().enumerate().take(count - t * T) {
                    let out = &mut y[(t * T + i) * outputs + group * LANES..][..LANES];
                    for ((o, &s), &b) in out.iter_mut().zip(sum).zip(bias) {
                        *o = s + b;
                    }
                }
            }
        }
    }
}

/// Interleaves `count` rows of `inputs` values `T` at a time:
/// `tiles[(t · inputs + k) · T + i] = x[t · T + i][k]`, the last tile padded with zeros.
#[inline(always)]
fn interleave<const T: usize>(x: &[f32], inputs: usize, count: usize, tiles: &mut Vec<f32>) {
    let tile_count = count.div_ceil(T);
    tiles.clear();
    tiles.resize(tile_count * inputs * T, 0.0);
    for (i, row) in x.chunks_exact(inputs).take(count).enumerate() {
        let tile = &mut tiles[(i / T) * inputs * T..][..inputs * T];
        for (k, &v) in row.iter().enumerate() {
            tile[k * T + i % T] = v;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The tensors of a one-layer BERT of `dims` dimensions, an intermediate layer of
    /// `intermediate` outputs and a vocabulary of 5, every weight 0.01.
    fn tiny_bert(dims: usize, intermediate: usize) -> BTreeMap<String, Tensor> {
        let tensor = |shape: &[usize]| Tensor {
            dtype: "F32".into(),
            shape: shape.to_vec(),
            values: vec![0.01; shape.iter().product()],
        };
        let mut t = BTreeMap::new();
        t.insert(
            "embeddings.word_embeddings.weight".into(),
            tensor(&[5, dims]),
        );
        t.insert(
            "embeddings.position_embeddings.weight".into(),
            tensor(&[8, dims]),
        );
        t.insert(
            "embeddings.token_type_embeddings.weight".into(),
            tensor(&[2, dims]),
        );
        let p = "encoder.layer.0.";
        let mut linear = |name: String, inputs: usize, outputs: usize| {
            t.insert(format!("{name}.weight"), tensor(&[outputs, inputs]));
            t.insert(format!("{name}.bias"), tensor(&[outputs]));
        };
        for name in ["query", "key", "value"] {
            linear(format!("{p}attention.self.{name}"), dims, dims);
        }
        linear(format!("{p}attention.output.dense"), dims, dims);
        linear(format!("{p}intermediate.dense"), dims, intermediate);
        linear(format!("{p}output.dense"), intermediate, dims);
        for norm in [
            "embeddings.LayerNorm".to_string(),
            format!("{p}attention.output.LayerNorm"),
            format!("{p}output.LayerNorm"),
        ] {
            t.insert(format!("{norm}.weight"), tensor(&[dims]));
            t.insert(format!("{norm}.bias"), tensor(&[dims]));
        }
        t
    }

    #[test]
    fn weights_of_no_width_or_no_words_are_refused_not_a_panic() {
        let encoder = Encoder::from_tensors(tiny_bert(16, 32), 2).unwrap();
        assert_eq!((encoder.dims(), encoder.vocabulary_size()), (16, 5));
        assert_eq!(encoder.embed(&[0, 1, 2]).len(), 16);
        // No dimensions: every division by them would panic (a panic kills a wasm module).
        let refused = |tensors| match Encoder::from_tensors(tensors, 2) {
            Ok(_) => panic!("weights of no width were read"),
            Err(e) => e,
        };
        let e = refused(tiny_bert(0, 32));
        assert!(e.contains("0 dimensions"), "{e}");
        // An intermediate layer of no outputs: the next layer has no inputs.
        let e = refused(tiny_bert(16, 0));
        assert!(
            e.contains("intermediate.dense.weight has shape [0, 16]"),
            "{e}"
        );
        // No words (the fuzz target model_weights found it): an id past the vocabulary is
        // read as word 0, which was not there.
        let mut no_words = tiny_bert(16, 32);
        let words = no_words
            .get_mut("embeddings.word_embeddings.weight")
            .unwrap();
        (words.shape, words.values) = (vec![0, 16], Vec::new());
        let e = refused(no_words);
        assert!(e.contains("word_embeddings.weight has no rows"), "{e}");
    }

    #[test]
    fn a_linear_layer_is_the_plain_product_in_input_order() {
        // 11 rows (full and partial tiles of 4 and of 8), 37 inputs, 16 outputs (two groups).
        let (inputs, outputs, rows) = (37, 16, 11);
        let w: Vec<f32> = (0..outputs * inputs)
            .map(|i| (i as f32 * 0.37).sin())
            .collect();
        let b: Vec<f32> = (0..outputs).map(|i| i as f32 * 0.01).collect();
        let x: Vec<f32> = (0..rows * inputs)
            .map(|i| (i as f32 * 0.11).cos())
            .collect();
        let mut tensors = BTreeMap::new();
        tensors.insert(
            "l.weight".to_string(),
            Tensor {
                dtype: "F32".into(),
                shape: vec![outputs, inputs],
                values: w.clone(),
            },
        );
        tensors.insert(
            "l.bias".to_string(),
            Tensor {
                dtype: "F32".into(),
                shape: vec![outputs],
                values: b.clone(),
            },
        );
        let layer = Tensors(tensors).linear("l", inputs, Some(outputs)).unwrap();
        // Whatever this CPU dispatches to, and both tile sizes on every CPU.
        let mut tiles = Vec::new();
        let (mut y, mut y4, mut y8) = (Vec::new(), Vec::new(), Vec::new());
        layer.apply(&x, rows, &mut tiles, &mut y);
        layer.apply_tiled::<4>(&x, rows, &mut tiles, &mut y4);
        layer.apply_tiled::<8>(&x, rows, &mut tiles, &mut y8);
        assert_eq!(y4, y, "4 tokens per pass");
        assert_eq!(y8, y, "8 tokens per pass");
        for r in 0..rows {
            for o in 0..outputs {
                let mut s = 0.0f32;
                for k in 0..inputs {
                    s += x[r * inputs + k] * w[o * inputs + k];
                }
                assert_eq!(
                    y[r * outputs + o].to_bits(),
                    (s + b[o]).to_bits(),
                    "row {r} output {o}"
                );
            }
        }
    }
}
