//! JSON with comments and trailing commas (tsconfig.json, jsconfig.json, pyrightconfig.json).

/// Parses JSONC: `//` and `/* */` comments and trailing commas are taken out first.
pub(crate) fn parse(src: &str) -> Option<serde_json::Value> {
    serde_json::from_str(&strip(src)).ok()
}

/// Strips `//` and `/* */` comments and trailing commas outside strings. Only ASCII is taken
/// out, so every other byte, of a string or not, is copied as it is.
fn strip(src: &str) -> String {
    let b = src.as_bytes();
    let mut out: Vec<u8> = Vec::with_capacity(b.len());
    let mut i = 0;
    let mut in_str = false;
    while i < b.len() {
        let c = b[i];
        if in_str {
            out.push(c);
            if c == b'\\' && i + 1 < b.len() {
                out.push(b[i + 1]);
                i += 2;
                continue;
            }
            if c == b'"' {
                in_str = false;
            }
            i += 1;
            continue;
        }
        match c {
            b'"' => {
                in_str = true;
                out.push(c);
                i += 1;
            }
            b'/' if b.get(i + 1) == Some(&b'/') => {
                while i < b.len() && b[i] != b'\n' {
                    i += 1;
                }
            }
            b'/' if b.get(i + 1) == Some(&b'*') => {
                i += 2;
                while i + 1 < b.len() && !(b[i] == b'*' && b[i + 1] == b'/') {
                    i += 1;
                }
                i = (i + 2).min(b.len());
            }
            b',' => {
                let rest = src[i + 1..].trim_start();
                if !(rest.starts_with('}') || rest.starts_with(']')) {
                    out.push(c);
                }
                i += 1;
            }
            _ => {
                out.push(c);
                i += 1;
            }
        }
    }
    // Only whole ASCII runs were left out: what is left is UTF-8.
    String::from_utf8(out).unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn comments_and_trailing_commas_go_and_every_other_character_stays() {
        let src =
            "{\n  // a comment with é\n  \"paths\": {\"@m\": [\"src/modèles/*\", \"a//b\", \"c/*d*/\",],}, /* x */ \"n\": \"\\\"q\\\"\"\n}";
        let v = parse(src).expect("parses");
        assert_eq!(v["paths"]["@m"], serde_json::json!(["src/modèles/*", "a//b", "c/*d*/"]));
        assert_eq!(v["n"], "\"q\"");
        assert!(parse("{\"a\": 1 /* unterminated").is_none());
    }
}
