//! Reading a `.safetensors` file: an 8-byte little-endian header length, a JSON header
//! (`{"name": {"dtype", "shape", "data_offsets": [begin, end]}, "__metadata__": {...}}`,
//! offsets relative to the end of the header), then the tensors' bytes. Format:
//! <https://github.com/huggingface/safetensors> (README, "Format"). Only `F32` tensors' values
//! are read: the model's weights are stored so (all-MiniLM-L6-v2's `model.safetensors`, which
//! also holds an `I64` `embeddings.position_ids` that nothing uses).

use std::collections::BTreeMap;

use serde_json::Value;
use tool_intent_minilm::Tensor;

use crate::error::{quoted, Error, Result};

/// The largest header accepted (the format's own limit is 100 MB; MiniLM's is 9 KB).
const MAX_HEADER_BYTES: usize = 1 << 20;

/// Every tensor of the file by name (a `BTreeMap`: nothing iterates it in hash order).
pub(super) fn read(bytes: &[u8]) -> Result<BTreeMap<String, Tensor>> {
    let refuse = |message: String| Error::argument("model", message);
    let header_len = bytes
        .get(..8)
        .map(|b| u64::from_le_bytes([b[0], b[1], b[2], b[3], b[4], b[5], b[6], b[7]]))
        .ok_or_else(|| {
            refuse(format!(
                "{} bytes is not a safetensors file (it starts with an 8-byte header length)",
                bytes.len()
            ))
        })?;
    let header_len = usize::try_from(header_len)
        .ok()
        .filter(|&n| n <= MAX_HEADER_BYTES && 8 + n <= bytes.len())
        .ok_or_else(|| {
            refuse(format!(
                "not a safetensors file: a header of {header_len} bytes in a file of {}",
                bytes.len()
            ))
        })?;
    let header = std::str::from_utf8(&bytes[8..8 + header_len])
        .map_err(|_| refuse("the safetensors header is not UTF-8".to_string()))?;
    let header = crate::json::parse("model", header)?;
    let Value::Object(entries) = header else {
        return Err(refuse(
            "the safetensors header is not a JSON object".to_string(),
        ));
    };
    let data = &bytes[8 + header_len..];
    let mut tensors = BTreeMap::new();
    for (name, entry) in entries {
        if name == "__metadata__" {
            continue;
        }
        let dtype = entry
            .get("dtype")
            .and_then(Value::as_str)
            .unwrap_or("")
            .to_string();
        // The bytes per value of each type the format defines (its README's list).
        let width = match dtype.as_str() {
            "F64" | "I64" | "U64" => 8,
            "F32" | "I32" | "U32" => 4,
            "F16" | "BF16" | "I16" | "U16" => 2,
            "I8" | "U8" | "BOOL" | "F8_E4M3" | "F8_E5M2" => 1,
            other => {
                return Err(refuse(format!(
                    "tensor {} has an unknown dtype {}",
                    quoted(&name),
                    quoted(other)
                )))
            }
        };
        let shape = whole_numbers(entry.get("shape"));
        let offsets = whole_numbers(entry.get("data_offsets"));
        let (Some(shape), Some(&[begin, end])) = (shape, offsets.as_deref()) else {
            return Err(refuse(format!(
                "tensor {}: shape and data_offsets must be lists of whole numbers",
                quoted(&name)
            )));
        };
        let count = shape
            .iter()
            .try_fold(1usize, |n, &d| n.checked_mul(d))
            .filter(|&n| end >= begin && n.checked_mul(width) == Some(end - begin))
            .ok_or_else(|| {
                refuse(format!(
                    "tensor {}: shape {} does not match data_offsets [{begin}, {end}]",
                    quoted(&name),
                    tool_intent_minilm::shape_text(&shape)
                ))
            })?;
        let raw = data.get(begin..end).ok_or_else(|| {
            refuse(format!(
                "tensor {}: data_offsets [{begin}, {end}] run past the file's {} data bytes",
                quoted(&name),
                data.len()
            ))
        })?;
        let mut values = Vec::new();
        if dtype == "F32" {
            values.reserve_exact(count);
            values.extend(
                raw.chunks_exact(4)
                    .map(|b| f32::from_le_bytes([b[0], b[1], b[2], b[3]])),
            );
        }
        tensors.insert(
            name,
            Tensor {
                dtype,
                shape,
                values,
            },
        );
    }
    Ok(tensors)
}

/// A header member that is a list of whole numbers (`shape`, `data_offsets`), or `None`.
fn whole_numbers(member: Option<&Value>) -> Option<Vec<usize>> {
    member?
        .as_array()?
        .iter()
        .map(|d| d.as_u64().and_then(|d| usize::try_from(d).ok()))
        .collect()
}

/// A safetensors file of the given header text and data bytes (for tests).
#[cfg(test)]
fn file(header: &[u8], data: &[u8]) -> Vec<u8> {
    let mut out = (header.len() as u64).to_le_bytes().to_vec();
    out.extend(header);
    out.extend(data);
    out
}

/// A safetensors file of the given `F32` tensors (for tests).
#[cfg(test)]
pub(super) fn write(tensors: &[(&str, &[usize], &[f32])]) -> Vec<u8> {
    let mut header = serde_json::Map::new();
    let mut data = Vec::new();
    for (name, shape, values) in tensors {
        let begin = data.len();
        values.iter().for_each(|v| data.extend(v.to_le_bytes()));
        header.insert(
            name.to_string(),
            serde_json::json!({"dtype": "F32", "shape": shape, "data_offsets": [begin, data.len()]}),
        );
    }
    file(Value::Object(header).to_string().as_bytes(), &data)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tensors_round_trip() {
        let bytes = write(&[("a", &[2, 2], &[1.0, -2.0, 3.5, 0.25]), ("b", &[1], &[7.0])]);
        let t = read(&bytes).unwrap();
        assert_eq!(t["a"].shape, [2, 2]);
        assert_eq!(t["a"].values, [1.0, -2.0, 3.5, 0.25]);
        assert_eq!(t["b"].values, [7.0]);
    }

    #[test]
    fn malformed_files_are_refused_with_what_is_wrong() {
        let message = |bytes: &[u8]| read(bytes).unwrap_err().to_string();
        assert!(message(b"abc").contains("not a safetensors file"));
        assert!(message(&u64::MAX.to_le_bytes()).contains("a header of"));
        let mut bytes = write(&[("a", &[3], &[1.0, 2.0, 3.0])]);
        bytes.truncate(bytes.len() - 4);
        assert!(message(&bytes).contains("run past"), "{}", message(&bytes));
        let bad_shape = write(&[("a", &[2, 2], &[1.0, 2.0, 3.0])]);
        assert!(message(&bad_shape).contains("does not match"));
        let f16 = br#"{"a":{"dtype":"F16","shape":[1],"data_offsets":[0,2]}}"#;
        let t = read(&file(f16, &[0, 0])).unwrap();
        assert_eq!((t["a"].dtype.as_str(), t["a"].values.len()), ("F16", 0));
        let odd = br#"{"a":{"dtype":"F12","shape":[1],"data_offsets":[0,2]}}"#;
        assert!(message(&file(odd, &[0, 0])).contains("unknown dtype"));
        for m in [message(b"abc"), message(&bad_shape)] {
            assert!(m.contains("model"), "the argument is named: {m}");
        }
    }

    /// A tensor's name and shape come from the file: shown escaped and short (the fuzz
    /// target model_weights found a newline in a name shown raw).
    #[test]
    fn a_files_names_and_shapes_are_shown_escaped_and_short() {
        let message = |bytes: &[u8]| read(bytes).unwrap_err().to_string();
        let mut bytes = write(&[("a\nb\u{202e}", &[1], &[1.0])]);
        bytes.truncate(bytes.len() - 4);
        let m = message(&bytes);
        assert!(m.contains(r#"tensor "a\nb\u{202e}""#), "{m}");
        let dims = vec![1usize; 5000];
        let long = write(&[("a", &dims, &[1.0, 2.0])]);
        let m = message(&long);
        assert!(m.contains("[1, 1, 1, 1, … (5000 dimensions)]"), "{m}");
        assert!(m.len() < 300, "{} bytes", m.len());
    }
}
