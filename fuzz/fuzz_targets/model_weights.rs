//! Model weights as any bytes, two ways. As a `model.safetensors` file given to
//! `ModelRanker::from_safetensors` (Rust, `withModel` in the hybrid npm package, Python's
//! `with_model`): reading never panics, and a refusal is an error at `model`, shown safely.
//! And as the shapes and values of a small BERT's tensors given to the encoder
//! (`tool_intent_minilm::Encoder::from_tensors`, which the safetensors reader feeds): weights
//! of any width, head count, depth or vocabulary, with one tensor's shape, type or presence
//! spoiled, are read or refused, never a panic; weights read embed any ids (past the
//! vocabulary too) into a vector of their width. A panic here ends a wasm module.
#![no_main]

use std::collections::BTreeMap;

use libfuzzer_sys::fuzz_target;
use tool_intent::search::ModelRanker;
use tool_intent_fuzz::error_shown_safely;
use tool_intent_minilm::{Encoder, Tensor};

fuzz_target!(|data: &[u8]| {
    match ModelRanker::from_safetensors(data) {
        Ok(_) => {}
        Err(e) => {
            error_shown_safely(&e);
            assert_eq!(e.input(), Some("model"), "{e}");
        }
    }
    // The first nine bytes choose the shapes and the spoiling; the rest are the values (cycled)
    // and the ids.
    let Some((choice, rest)) = data.split_first_chunk::<9>() else {
        return;
    };
    let dims = if choice[0] == 255 {
        0
    } else {
        8 * (1 + usize::from(choice[0] % 3))
    };
    let heads = usize::from(choice[1] % 5);
    let intermediate = 8 * usize::from(choice[2] % 3);
    let (vocabulary, positions, token_types) = (
        usize::from(choice[3] % 6),
        usize::from(choice[4] % 10),
        usize::from(choice[5] % 3),
    );
    let layers = usize::from(choice[6] % 3);
    // Values cycle through the rest of the input (NaN and infinities included).
    let values: Vec<f32> = rest
        .chunks_exact(4)
        .map(|b| f32::from_le_bytes([b[0], b[1], b[2], b[3]]))
        .collect();
    let mut next = 0usize;
    let mut tensors: Vec<(String, Vec<usize>)> = vec![
        (
            "embeddings.word_embeddings.weight".into(),
            vec![vocabulary, dims],
        ),
        (
            "embeddings.position_embeddings.weight".into(),
            vec![positions, dims],
        ),
        (
            "embeddings.token_type_embeddings.weight".into(),
            vec![token_types, dims],
        ),
        ("embeddings.LayerNorm.weight".into(), vec![dims]),
        ("embeddings.LayerNorm.bias".into(), vec![dims]),
    ];
    for layer in 0..layers {
        let p = format!("bert.encoder.layer.{layer}.");
        for (name, inputs, outputs) in [
            ("attention.self.query", dims, dims),
            ("attention.self.key", dims, dims),
            ("attention.self.value", dims, dims),
            ("attention.output.dense", dims, dims),
            ("intermediate.dense", dims, intermediate),
            ("output.dense", intermediate, dims),
        ] {
            tensors.push((format!("{p}{name}.weight"), vec![outputs, inputs]));
            tensors.push((format!("{p}{name}.bias"), vec![outputs]));
        }
        for norm in ["attention.output.LayerNorm", "output.LayerNorm"] {
            tensors.push((format!("{p}{norm}.weight"), vec![dims]));
            tensors.push((format!("{p}{norm}.bias"), vec![dims]));
        }
    }
    // One tensor spoiled: a dimension one longer, one fewer dimension, another type, or gone.
    let spoiled = usize::from(choice[7]) % (tensors.len() + 1);
    let mut map = BTreeMap::new();
    for (i, (name, mut dims_of)) in tensors.into_iter().enumerate() {
        let mut dtype = "F32";
        if i == spoiled {
            match choice[8] % 4 {
                0 => dims_of[0] += 1,
                1 => {
                    dims_of.pop();
                }
                2 => dtype = "I64",
                _ => continue,
            }
        }
        let count: usize = dims_of.iter().product();
        let tensor_values = if dtype == "F32" {
            (0..count)
                .map(|_| {
                    next += 1;
                    values
                        .get(next % values.len().max(1))
                        .copied()
                        .unwrap_or(0.01)
                })
                .collect()
        } else {
            Vec::new()
        };
        map.insert(
            name,
            Tensor {
                dtype: dtype.into(),
                shape: dims_of,
                values: tensor_values,
            },
        );
    }
    let Ok(encoder) = Encoder::from_tensors(map, heads) else {
        return;
    };
    let ids: Vec<u32> = rest.iter().map(|&b| u32::from(b) % 9).collect();
    for ids in [&ids[..], &ids[..ids.len().min(2)], &[]] {
        assert_eq!(encoder.embed(ids).len(), encoder.dims());
    }
});
