//! Embeds `src/default_registry.json` without its insignificant whitespace (the file stays
//! readable; the wasm package carries about 14 KB less, 0.8 KB gzip), after checking it: the
//! build fails, naming the fault, if the document is not JSON, has a key the loader does not
//! know, or a tool without a provider-safe unique name, a description or an object schema, or
//! if `default_tools`, `deferred_default_tools` or a preset names a tool that is not there.
//! (`Registry::embedded()` has no fallback: the unit test `embedded_registry_loads_and_round_trips`
//! runs the loader itself on the same bytes.) No dependencies: a small JSON reader below.

use std::collections::BTreeMap;
use std::path::PathBuf;

include!("src/registry/document_keys.rs");

fn main() {
    let src = "src/default_registry.json";
    println!("cargo:rerun-if-changed={src}");
    println!("cargo:rerun-if-changed=src/registry/document_keys.rs");
    let text = std::fs::read_to_string(src).expect("src/default_registry.json");
    if let Err(fault) = check(&text) {
        panic!("{src}: {fault}");
    }
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

/// A JSON value, as far as the check needs it.
enum Json {
    Scalar,
    Str(String),
    Array(Vec<Json>),
    Object(BTreeMap<String, Json>),
}

struct Reader<'a> {
    b: &'a [u8],
    i: usize,
}

impl Reader<'_> {
    fn space(&mut self) {
        while self.b.get(self.i).is_some_and(|c| c.is_ascii_whitespace()) {
            self.i += 1;
        }
    }

    fn value(&mut self) -> Result<Json, String> {
        self.space();
        match self.b.get(self.i) {
            Some(b'{') => {
                self.i += 1;
                let mut members = BTreeMap::new();
                loop {
                    self.space();
                    if self.b.get(self.i) == Some(&b'}') && members.is_empty() {
                        self.i += 1;
                        return Ok(Json::Object(members));
                    }
                    let Json::Str(key) = self.value()? else {
                        return Err(format!("byte {}: expected a key", self.i));
                    };
                    self.expect(b':')?;
                    let value = self.value()?;
                    if members.insert(key.clone(), value).is_some() {
                        return Err(format!("key {key:?} given twice"));
                    }
                    self.space();
                    match self.next()? {
                        b',' => continue,
                        b'}' => return Ok(Json::Object(members)),
                        c => return Err(format!("byte {}: unexpected {:?}", self.i, c as char)),
                    }
                }
            }
            Some(b'[') => {
                self.i += 1;
                let mut items = Vec::new();
                loop {
                    self.space();
                    if self.b.get(self.i) == Some(&b']') && items.is_empty() {
                        self.i += 1;
                        return Ok(Json::Array(items));
                    }
                    items.push(self.value()?);
                    self.space();
                    match self.next()? {
                        b',' => continue,
                        b']' => return Ok(Json::Array(items)),
                        c => return Err(format!("byte {}: unexpected {:?}", self.i, c as char)),
                    }
                }
            }
            Some(b'"') => {
                self.i += 1;
                let start = self.i;
                loop {
                    match self.next()? {
                        b'\\' => self.i += 1,
                        b'"' => break,
                        _ => {}
                    }
                }
                let raw =
                    std::str::from_utf8(&self.b[start..self.i - 1]).map_err(|e| e.to_string())?;
                Ok(Json::Str(raw.to_string()))
            }
            Some(_) => {
                let start = self.i;
                while self
                    .b
                    .get(self.i)
                    .is_some_and(|c| c.is_ascii_alphanumeric() || b"+-.".contains(c))
                {
                    self.i += 1;
                }
                let word = &self.b[start..self.i];
                let number = word
                    .first()
                    .is_some_and(|c| c.is_ascii_digit() || *c == b'-');
                if number || [&b"true"[..], b"false", b"null"].contains(&word) {
                    Ok(Json::Scalar)
                } else {
                    Err(format!("byte {start}: not a JSON value"))
                }
            }
            None => Err("the text ends inside a value".to_string()),
        }
    }

    fn next(&mut self) -> Result<u8, String> {
        let c = *self.b.get(self.i).ok_or("the text ends inside a value")?;
        self.i += 1;
        Ok(c)
    }

    fn expect(&mut self, want: u8) -> Result<(), String> {
        self.space();
        match self.next()? {
            c if c == want => Ok(()),
            c => Err(format!(
                "byte {}: expected {:?}, found {:?}",
                self.i, want as char, c as char
            )),
        }
    }
}

fn check(text: &str) -> Result<(), String> {
    let mut reader = Reader {
        b: text.as_bytes(),
        i: 0,
    };
    let doc = reader.value()?;
    reader.space();
    if reader.i != text.len() {
        return Err(format!("byte {}: text after the document", reader.i));
    }
    let Json::Object(doc) = doc else {
        return Err("not an object".into());
    };
    // The loader's own list; the embedded registry has no servers and is no tools/list result.
    let known = |key: &str| {
        TOP_LEVEL_KEYS.contains(&key) && !["mcp_servers", "nextCursor", "_meta"].contains(&key)
    };
    if let Some(key) = doc.keys().find(|k| !known(k)) {
        return Err(format!("unknown key {key:?}"));
    }
    let Some(Json::Array(tools)) = doc.get("tools") else {
        return Err("no \"tools\" array".into());
    };
    let mut names: Vec<&str> = Vec::new();
    for (i, tool) in tools.iter().enumerate() {
        let Json::Object(tool) = tool else {
            return Err(format!("tools[{i}] is not an object"));
        };
        let Some(Json::Str(name)) = tool.get("name") else {
            return Err(format!("tools[{i}] has no name"));
        };
        let safe = !name.is_empty()
            && name.len() <= 64
            && name
                .bytes()
                .all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-');
        if !safe || names.iter().any(|n| n.eq_ignore_ascii_case(name)) {
            return Err(format!(
                "tools[{i}]: name {name:?} is not provider-safe and unique"
            ));
        }
        if !matches!(tool.get("description"), Some(Json::Str(_))) {
            return Err(format!("tool {name:?} has no description"));
        }
        match tool.get("parameters") {
            Some(Json::Object(schema)) if matches!(schema.get("type"), Some(Json::Str(t)) if t == "object") =>
                {}
            _ => return Err(format!("tool {name:?}: parameters is not an object schema")),
        }
        names.push(name);
    }
    let known = |list: &Json, at: &str| -> Result<(), String> {
        let Json::Array(items) = list else {
            return Err(format!("{at} is not a list"));
        };
        for item in items {
            match item {
                // A glob matches whatever is there, an annotation selector (`@read_only`,
                // checked by the loader's unit test) whatever it selects; a plain name must
                // be a tool.
                Json::Str(n)
                    if n.contains('*') || n.starts_with('@') || names.contains(&n.as_str()) => {}
                Json::Str(n) => return Err(format!("{at} names {n:?}, which is not a tool")),
                _ => return Err(format!("{at} holds a value that is not a name")),
            }
        }
        Ok(())
    };
    for key in ["default_tools", "deferred_default_tools"] {
        if let Some(list) = doc.get(key) {
            known(list, key)?;
        }
    }
    if let Some(Json::Object(presets)) = doc.get("toolsets") {
        for (preset, list) in presets {
            known(list, &format!("toolsets.{preset}"))?;
        }
    }
    Ok(())
}
