//! Embeds `src/default_registry.json` without its insignificant whitespace (the file stays
//! readable; the wasm package carries about 14 KB less, 0.8 KB gzip).

use std::path::PathBuf;

fn main() {
    let src = "src/default_registry.json";
    println!("cargo:rerun-if-changed={src}");
    let text = std::fs::read_to_string(src).expect("src/default_registry.json");
    let mut out = String::with_capacity(text.len());
    let (mut in_string, mut escaped) = (false, false);
    for c in text.chars() {
        if in_string {
            out.push(c);
            if escaped {
                escaped = false;
            } else if c == '\\' {
                escaped = true;
            } else if c == '"' {
                in_string = false;
            }
        } else if c == '"' {
            in_string = true;
            out.push(c);
        } else if !c.is_ascii_whitespace() {
            out.push(c);
        }
    }
    let dir = PathBuf::from(std::env::var("OUT_DIR").expect("OUT_DIR"));
    std::fs::write(dir.join("default_registry.min.json"), out)
        .expect("write the minified registry");
}
