//! What the SCIP export reads from a file's source, when it is still what was indexed: the
//! range of a name at a use, where a body ends, signatures, doc comments and docstrings.

use std::path::Path;

use super::{FileRow, SymRow};

/// The source of a file when it still is what was indexed (its xxh3 matches), split in
/// lines; empty otherwise, and everything read from it falls back to the index alone.
pub(super) fn read_source(root: &str, f: &FileRow) -> Option<String> {
    let bytes = std::fs::read(Path::new(root).join(&f.path)).ok()?;
    if format!("{:016x}", xxhash_rust::xxh3::xxh3_64(&bytes)) != f.hash {
        return None;
    }
    String::from_utf8(bytes).ok()
}

pub(super) struct Source<'t> {
    pub(super) lines: Vec<&'t str>,
    pub(super) python: bool,
}

impl<'t> Source<'t> {
    pub(super) fn new(text: Option<&'t str>, python: bool) -> Source<'t> {
        let lines = text.map(|t| t.split('\n').map(|l| l.strip_suffix('\r').unwrap_or(l)).collect()).unwrap_or_default();
        Source { lines, python }
    }

    pub(super) fn line(&self, l: usize) -> Option<&'t str> {
        self.lines.get(l).copied()
    }
}

pub(super) fn is_ident(c: char) -> bool {
    c.is_alphanumeric() || c == '_' || c == '$'
}

/// The identifier that starts at byte `c` of `t` (empty when none does).
pub(super) fn ident_at(t: &str, c: usize) -> &str {
    let Some(rest) = t.get(c..) else { return "" };
    let end = rest.find(|ch: char| !is_ident(ch)).unwrap_or(rest.len());
    &rest[..end]
}

/// The identifiers of the member chain that starts at byte `c` (`a.b?.c`), as byte ranges.
pub(super) fn chain_at(t: &str, mut c: usize) -> Vec<(usize, usize)> {
    let mut out = Vec::new();
    loop {
        let id = ident_at(t, c);
        if id.is_empty() {
            break;
        }
        out.push((c, c + id.len()));
        c += id.len();
        let rest = &t[c..];
        if let Some(r) = rest.strip_prefix("?.").or_else(|| rest.strip_prefix('.')) {
            c += rest.len() - r.len();
        } else {
            break;
        }
    }
    out
}

pub(super) fn range(l: usize, start: usize, end: usize) -> Vec<i32> {
    vec![l as i32, start as i32, end as i32]
}

/// What the source says about one definition.
#[derive(Default)]
pub(super) struct DefShape {
    pub(super) name_range: Vec<i32>,
    pub(super) enclosing: Option<Vec<i32>>,
    pub(super) doc: Option<String>,
    pub(super) signature: Option<String>,
    /// TS/JS: declared with the `function` keyword (a method descriptor in scip-typescript),
    /// not as a variable holding a function (a term).
    pub(super) function_keyword: bool,
    /// TS/JS: `get` or `set` accessor.
    pub(super) accessor: Option<&'static str>,
}

/// Kinds whose definitions span a body (they get an enclosing range and a signature).
pub(super) fn has_body(kind: &str) -> bool {
    matches!(kind, "function" | "method" | "class" | "interface" | "enum" | "type" | "namespace" | "lambda")
}

pub(super) fn def_shape(src: &Source, s: &SymRow) -> DefShape {
    let mut shape = DefShape::default();
    if s.kind == "module" {
        shape.name_range = range(0, 0, 0);
        if let Some(last) = src.lines.last() {
            let end = src.lines.len() - 1;
            shape.enclosing = Some(if end == 0 { range(0, 0, last.len()) } else { vec![0, 0, end as i32, last.len() as i32] });
        }
        if src.python {
            shape.doc = module_docstring(src);
        }
        return shape;
    }
    let (l, c) = (s.line.saturating_sub(1) as usize, s.col.saturating_sub(1) as usize);
    let Some(t) = src.line(l) else {
        shape.name_range = range(l, c, c + s.name.len());
        // Without the source, a TS/JS function is taken as declared with `function` (the
        // common case), so that its symbol does not depend on whether the file changed.
        shape.function_keyword = !src.python && s.kind == "function";
        return shape;
    };
    let len = if t.get(c..).is_some_and(|r| r.starts_with(&s.name)) {
        s.name.len()
    } else {
        match ident_at(t, c).len() {
            0 => s.name.len(),
            n => n,
        }
    };
    shape.name_range = range(l, c, c + len);
    if !src.python {
        let before = t.get(..c).unwrap_or("").trim_end();
        shape.function_keyword = before.ends_with("function") || before.ends_with("function*");
        for acc in ["get", "set"] {
            if let Some(b) = before.strip_suffix(acc)
                && (b.is_empty() || b.ends_with(|ch: char| !is_ident(ch)))
            {
                shape.accessor = Some(acc);
            }
        }
    }
    // Where the declaration starts: its line, or the first of the decorators above it.
    let mut start = l;
    if s.decorated {
        while start > 0 && src.line(start - 1).is_some_and(|p| p.trim_start().starts_with('@')) {
            start -= 1;
        }
    }
    let indent = |t: &str| t.len() - t.trim_start().len();
    if has_body(&s.kind) {
        let end = (s.end_line.saturating_sub(1) as usize).max(l);
        if let (Some(first), Some(last)) = (src.line(start), src.line(end)) {
            let (sc, ec) = (indent(first), last.trim_end().len());
            shape.enclosing = Some(if start == end { range(start, sc, ec) } else { vec![start as i32, sc as i32, end as i32, ec as i32] });
        }
    }
    shape.doc = if src.python {
        if matches!(s.kind.as_str(), "class" | "function" | "method") {
            header_end(src, l).and_then(|h| body_docstring(src, h))
        } else {
            None
        }
    } else {
        jsdoc(src, start)
    };
    shape.signature = signature(src, s, l);
    shape
}

/// A one-line (Python: the header's lines) signature as written.
pub(super) fn signature(src: &Source, s: &SymRow, l: usize) -> Option<String> {
    let first = src.line(l)?;
    let text = if src.python && matches!(s.kind.as_str(), "class" | "function" | "method") {
        let end = header_end(src, l).map(|(h, _)| h).unwrap_or(l);
        let strip = first.len() - first.trim_start().len();
        (l..=end).filter_map(|k| src.line(k)).map(|t| t.get(strip..).unwrap_or(t.trim_start()).trim_end()).collect::<Vec<_>>().join("\n")
    } else {
        let t = first.trim();
        let t = t.strip_suffix('{').unwrap_or(t).trim_end();
        t.strip_suffix(';').unwrap_or(t).to_string()
    };
    let text = match text.char_indices().nth(300) {
        Some((i, _)) => format!("{}…", &text[..i]),
        None => text,
    };
    (!text.is_empty()).then_some(text)
}

/// Python: the line and byte where the `def`/`class` header starting at line `l` ends (its
/// closing `:`), brackets balanced, strings and comments skipped.
pub(super) fn header_end(src: &Source, l: usize) -> Option<(usize, usize)> {
    let mut depth = 0i32;
    for k in l..(l + 100).min(src.lines.len()) {
        let t = src.line(k)?;
        let mut quote: Option<char> = None;
        let mut escaped = false;
        for (i, ch) in t.char_indices() {
            if let Some(q) = quote {
                if escaped {
                    escaped = false;
                } else if ch == '\\' {
                    escaped = true;
                } else if ch == q {
                    quote = None;
                }
                continue;
            }
            match ch {
                '\'' | '"' => quote = Some(ch),
                '#' => break,
                '(' | '[' | '{' => depth += 1,
                ')' | ']' | '}' => depth -= 1,
                ':' if depth <= 0 => {
                    // Annotations (`x: int`) only occur inside the brackets; the first `:` at
                    // depth 0 ends the header (`->` return types come before it).
                    return Some((k, i + 1));
                }
                _ => {}
            }
        }
    }
    None
}

/// Python: the docstring of the body after the header ending at `(line, byte)`.
pub(super) fn body_docstring(src: &Source, (h, after): (usize, usize)) -> Option<String> {
    let rest = src.line(h)?.get(after..)?.trim_start();
    if !rest.is_empty() && !rest.starts_with('#') {
        let col = src.line(h)?.len() - rest.len();
        return string_literal(src, h, col);
    }
    let k = (h + 1..src.lines.len()).find(|&k| {
        let t = src.lines[k].trim();
        !t.is_empty() && !t.starts_with('#')
    })?;
    let t = src.lines[k];
    string_literal(src, k, t.len() - t.trim_start().len())
}

pub(super) fn module_docstring(src: &Source) -> Option<String> {
    let k = (0..src.lines.len()).find(|&k| {
        let t = src.lines[k].trim();
        !t.is_empty() && !t.starts_with('#')
    })?;
    let t = src.lines[k];
    string_literal(src, k, t.len() - t.trim_start().len())
}

/// Python: the string literal at `(line, byte)`, if one starts there, cleaned as
/// `inspect.cleandoc` does.
pub(super) fn string_literal(src: &Source, l: usize, c: usize) -> Option<String> {
    let t = src.line(l)?.get(c..)?;
    let prefix = t.find(['"', '\'']).filter(|&p| p <= 2 && t[..p].chars().all(|ch| "rRuUbBfF".contains(ch)))?;
    let body = &t[prefix..];
    let quote = if body.starts_with("\"\"\"") || body.starts_with("'''") { &body[..3] } else { &body[..1] };
    let open = &body[quote.len()..];
    let content = if let Some(end) = open.find(quote) {
        open[..end].to_string()
    } else if quote.len() == 3 {
        let mut parts = vec![open.to_string()];
        let mut found = false;
        for k in l + 1..(l + 500).min(src.lines.len()) {
            let line = src.lines[k];
            if let Some(end) = line.find(quote) {
                parts.push(line[..end].to_string());
                found = true;
                break;
            }
            parts.push(line.to_string());
        }
        if !found {
            return None;
        }
        parts.join("\n")
    } else {
        return None;
    };
    let doc = cleandoc(&content);
    (!doc.is_empty()).then_some(doc)
}

pub(super) fn cleandoc(s: &str) -> String {
    let lines: Vec<&str> = s.split('\n').collect();
    let indent = lines.iter().skip(1).filter(|l| !l.trim().is_empty()).map(|l| l.len() - l.trim_start().len()).min().unwrap_or(0);
    let mut out: Vec<String> = Vec::with_capacity(lines.len());
    out.push(lines[0].trim().to_string());
    for l in &lines[1..] {
        out.push(l.get(indent..).unwrap_or(l.trim_start()).trim_end().to_string());
    }
    while out.first().is_some_and(|l| l.is_empty()) {
        out.remove(0);
    }
    while out.last().is_some_and(|l| l.is_empty()) {
        out.pop();
    }
    out.join("\n")
}

/// TS/JS: the `/** ... */` comment that ends on the line above `start`, without its tags
/// (`@param`, `@returns`: scip-typescript leaves them out too).
pub(super) fn jsdoc(src: &Source, start: usize) -> Option<String> {
    let k = start.checked_sub(1)?;
    if !src.line(k)?.trim_end().ends_with("*/") {
        return None;
    }
    let j = (k.saturating_sub(300)..=k).rev().find(|&j| src.lines[j].contains("/*"))?;
    let open = src.lines[j].find("/**")?;
    if src.lines[j][open..].starts_with("/**/") {
        return None;
    }
    let mut text = String::new();
    for (n, line) in src.lines[j..=k].iter().enumerate() {
        let mut t = *line;
        if n == 0 {
            t = &t[open + 3..];
        }
        if n == k - j {
            t = t.rfind("*/").map(|e| &t[..e]).unwrap_or(t);
        }
        let t = t.trim();
        let t = t.strip_prefix('*').map(|t| t.strip_prefix(' ').unwrap_or(t)).unwrap_or(t);
        if t.starts_with('@') {
            break;
        }
        text.push_str(t.trim_end());
        text.push('\n');
    }
    let doc = text.trim().to_string();
    (!doc.is_empty()).then_some(doc)
}
