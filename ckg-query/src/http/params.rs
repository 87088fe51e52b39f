//! Query-string parameters: declared once per endpoint ([`Param`]), checked strictly (unknown
//! names, repeats, types, ranges, enumerations, invalid UTF-8 and NUL are 400s), and turned
//! into the OpenAPI document's parameter list from the same declarations.

use std::collections::BTreeMap;
use std::path::Path;

use super::problem::Problem;
use crate::PageRequest;

/// The longest parameter value accepted.
pub const MAX_VALUE_LEN: usize = 4096;

#[derive(Clone, Copy, Debug)]
pub enum Kind {
    Str,
    Int { min: i64, max: i64 },
    Bool,
    Enum(&'static [&'static str]),
}

/// One declared parameter.
#[derive(Clone, Copy, Debug)]
pub struct Param {
    pub name: &'static str,
    pub kind: Kind,
    pub required: bool,
    /// May be given more than once.
    pub repeated: bool,
    /// A repeated parameter's value is also a comma-separated list (a comma written `%2C` is
    /// part of a value, but in an enumeration, whose values hold none).
    pub split: bool,
    pub default: Option<&'static str>,
    pub doc: &'static str,
}

impl Param {
    pub const fn req(name: &'static str, doc: &'static str) -> Param {
        Param { name, kind: Kind::Str, required: true, repeated: false, split: false, default: None, doc }
    }

    pub const fn opt(name: &'static str, kind: Kind, default: Option<&'static str>, doc: &'static str) -> Param {
        Param { name, kind, required: false, repeated: false, split: false, default, doc }
    }

    pub const fn int(name: &'static str, min: i64, max: i64, default: &'static str, doc: &'static str) -> Param {
        Param { name, kind: Kind::Int { min, max }, required: false, repeated: false, split: false, default: Some(default), doc }
    }

    pub const fn req_int(name: &'static str, min: i64, max: i64, doc: &'static str) -> Param {
        Param { name, kind: Kind::Int { min, max }, required: true, repeated: false, split: false, default: None, doc }
    }

    /// Given more than once, or as a comma-separated list.
    pub const fn repeated(name: &'static str, kind: Kind, doc: &'static str) -> Param {
        Param { name, kind, required: false, repeated: true, split: true, default: None, doc }
    }

    /// Given more than once, each value whole: globs, whose braces hold commas (`{src,lib}/**`).
    pub const fn repeated_whole(name: &'static str, kind: Kind, doc: &'static str) -> Param {
        Param { name, kind, required: false, repeated: true, split: false, default: None, doc }
    }
}

/// The parameters of a paged list.
pub const PAGE: [Param; 2] = [
    Param::int("page_size", 1, crate::MAX_PAGE_SIZE as i64, "100", "Items per page."),
    Param::opt("page_token", Kind::Str, None, "The next_page_token of the previous page (same parameters otherwise)."),
];

/// Checked parameters of one request.
#[derive(Debug)]
pub struct Params {
    values: BTreeMap<&'static str, Vec<String>>,
    /// The request's parameters but the paging ones, sorted: what a page token must match.
    canonical: String,
}

fn hex(b: u8) -> Option<u8> {
    match b {
        b'0'..=b'9' => Some(b - b'0'),
        b'a'..=b'f' => Some(b - b'a' + 10),
        b'A'..=b'F' => Some(b - b'A' + 10),
        _ => None,
    }
}

/// Decodes `application/x-www-form-urlencoded` text; invalid escapes, invalid UTF-8 and NUL
/// are errors, never replaced.
fn decode(raw: &str) -> Result<String, String> {
    let bytes = raw.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            b'+' => out.push(b' '),
            b'%' => {
                let (Some(h), Some(l)) = (bytes.get(i + 1).and_then(|&b| hex(b)), bytes.get(i + 2).and_then(|&b| hex(b))) else {
                    return Err("a '%' not followed by two hex digits".into());
                };
                out.push(h * 16 + l);
                i += 2;
            }
            b => out.push(b),
        }
        i += 1;
    }
    let s = String::from_utf8(out).map_err(|_| "invalid UTF-8".to_string())?;
    if s.contains('\0') {
        return Err("a NUL character".into());
    }
    Ok(s)
}

impl Params {
    /// Parses and checks a raw query string against the declared parameters.
    pub fn parse(raw: Option<&str>, spec: &[Param]) -> Result<Params, Problem> {
        let mut values: BTreeMap<&'static str, Vec<String>> = BTreeMap::new();
        let mut canonical: Vec<(String, String)> = Vec::new();
        for pair in raw.unwrap_or("").split('&').filter(|p| !p.is_empty()) {
            let (k, v) = pair.split_once('=').unwrap_or((pair, ""));
            let key = decode(k).map_err(|e| Problem::new("invalid_parameter", format!("a parameter name contains {e}")))?;
            let value = decode(v).map_err(|e| Problem::new("invalid_parameter", format!("parameter {key:?} contains {e}")))?;
            let Some(param) = spec.iter().find(|p| p.name == key) else {
                let known: Vec<&str> = spec.iter().map(|p| p.name).collect();
                let known = if known.is_empty() { "none".to_string() } else { known.join(", ") };
                return Err(Problem::new("unknown_parameter", format!("unknown parameter {key:?} (this endpoint takes: {known})")));
            };
            if value.len() > MAX_VALUE_LEN {
                return Err(Problem::new("invalid_parameter", format!("parameter {key:?} is longer than {MAX_VALUE_LEN} bytes")));
            }
            // A list: an enumeration's values hold no comma, so a comma however written
            // (clients send `%2C`) separates them; other values are split before decoding, so
            // that a `%2C` is a comma inside one (a file name).
            let parts: Vec<String> = match (param.split, param.kind) {
                (false, _) => vec![value.clone()],
                (true, Kind::Enum(_)) => value.split(',').map(str::to_string).collect(),
                (true, _) => v
                    .split(',')
                    .map(|part| decode(part).map_err(|e| Problem::new("invalid_parameter", format!("parameter {key:?} contains {e}"))))
                    .collect::<Result<_, _>>()?,
            };
            let slot = values.entry(param.name).or_default();
            if !param.repeated && !slot.is_empty() {
                return Err(Problem::new("invalid_parameter", format!("parameter {key:?} is given more than once")));
            }
            for part in parts {
                check(param, &part)?;
                slot.push(part);
            }
            if !matches!(param.name, "page_size" | "page_token") {
                canonical.push((key, value));
            }
        }
        for p in spec {
            if !values.contains_key(p.name) {
                if p.required {
                    return Err(Problem::new("missing_parameter", format!("parameter {:?} is required: {}", p.name, p.doc)));
                }
                if let Some(d) = p.default {
                    values.insert(p.name, vec![d.to_string()]);
                }
            }
        }
        canonical.sort();
        let canonical = canonical.into_iter().map(|(k, v)| format!("{k}={v}")).collect::<Vec<_>>().join("&");
        Ok(Params { values, canonical })
    }

    /// A parameter's value (after defaults); `None` when absent and without a default.
    pub fn get(&self, name: &str) -> Option<&str> {
        self.values.get(name).and_then(|v| v.first()).map(String::as_str)
    }

    /// A required or defaulted parameter (declared so; a missing one was rejected by `parse`).
    pub fn str(&self, name: &str) -> &str {
        self.get(name).unwrap_or_default()
    }

    /// An integer parameter, checked against its range by `parse`.
    pub fn int(&self, name: &str) -> i64 {
        self.get(name).and_then(|v| v.parse().ok()).unwrap_or_default()
    }

    pub fn bool(&self, name: &str) -> bool {
        matches!(self.get(name), Some("true" | "1"))
    }

    /// Every value of a repeated parameter.
    pub fn all(&self, name: &str) -> Vec<String> {
        self.values.get(name).cloned().unwrap_or_default()
    }

    /// The paging request of a list endpoint (`what` names the endpoint in the token).
    pub fn page(&self, what: &str) -> PageRequest {
        PageRequest {
            size: self.int("page_size").max(1) as usize,
            token: self.get("page_token").map(str::to_string),
            query: format!("{what}?{}", self.canonical),
        }
    }
}

fn check(p: &Param, v: &str) -> Result<(), Problem> {
    let bad = |why: String| Err(Problem::new("invalid_parameter", format!("parameter {:?}: {why}", p.name)));
    match p.kind {
        Kind::Str if v.is_empty() => bad("must not be empty".into()),
        Kind::Str => Ok(()),
        Kind::Int { min, max } => match v.parse::<i64>() {
            Ok(n) if (min..=max).contains(&n) => Ok(()),
            Ok(n) => bad(format!("{n} is out of range ({min}..={max})")),
            Err(_) => bad(format!("{v:?} is not an integer")),
        },
        Kind::Bool if matches!(v, "true" | "false" | "1" | "0") => Ok(()),
        Kind::Bool => bad(format!("{v:?} is not true or false")),
        Kind::Enum(allowed) if allowed.contains(&v) => Ok(()),
        Kind::Enum(allowed) => bad(format!("{v:?} is not one of {}", allowed.join(", "))),
    }
}

/// A file path given by a client, as the index names it ([`crate::paths::confine`]).
pub fn confine(root: &Path, value: &str) -> Result<String, Problem> {
    crate::paths::confine(root, value).map_err(outside_root)
}

/// A target given by a client ([`crate::paths::confine_target`]).
pub fn confine_target(root: &Path, value: &str) -> Result<String, Problem> {
    crate::paths::confine_target(root, value).map_err(outside_root)
}

fn outside_root(e: crate::paths::OutsideRoot) -> Problem {
    Problem::new("path_outside_root", e.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    const SPEC: &[Param] = &[
        Param::req("target", "what"),
        Param::int("depth", 1, 64, "3", "how deep"),
        Param::opt("flag", Kind::Bool, Some("false"), "a flag"),
        Param::repeated("kind", Kind::Enum(&["calls", "imports"]), "kinds"),
        PAGE[0],
        PAGE[1],
    ];

    fn code(raw: &str) -> String {
        Params::parse(Some(raw), SPEC).unwrap_err().code
    }

    #[test]
    fn values_defaults_and_lists() {
        let p = Params::parse(Some("target=a%20b+c&kind=calls,imports&kind=calls&page_size=5"), SPEC).unwrap();
        assert_eq!(p.str("target"), "a b c");
        assert_eq!(p.int("depth"), 3);
        assert!(!p.bool("flag"));
        assert_eq!(p.all("kind"), vec!["calls", "imports", "calls"]);
        let page = p.page("x");
        assert_eq!(page.size, 5);
        assert_eq!(page.query, "x?kind=calls&kind=calls,imports&target=a b c");
    }

    #[test]
    fn an_escaped_comma_is_part_of_a_value_and_globs_are_not_split() {
        const FILES: &[Param] = &[Param::repeated("file", Kind::Str, "files"), Param::repeated_whole("entry", Kind::Str, "globs")];
        let p = Params::parse(Some("file=a.ts,b%2Cc.ts&file=d.ts&entry={src,lib}/**&entry=tests/**"), FILES).unwrap();
        assert_eq!(p.all("file"), vec!["a.ts", "b,c.ts", "d.ts"]);
        assert_eq!(p.all("entry"), vec!["{src,lib}/**", "tests/**"]);
        // An enumeration's list, as client libraries encode it.
        let p = Params::parse(Some("target=x&kind=calls%2Cimports"), SPEC).unwrap();
        assert_eq!(p.all("kind"), vec!["calls", "imports"]);
        assert_eq!(Params::parse(Some("file=a,%zz"), FILES).unwrap_err().code, "invalid_parameter");
    }

    #[test]
    fn bad_input_is_a_client_error() {
        assert_eq!(code("depth=2"), "missing_parameter");
        assert_eq!(code("target=x&nope=1"), "unknown_parameter");
        assert_eq!(code("target=x&target=y"), "invalid_parameter");
        assert_eq!(code("target=x&depth=0"), "invalid_parameter");
        assert_eq!(code("target=x&depth=99999999999999999999"), "invalid_parameter");
        assert_eq!(code("target=x&depth=abc"), "invalid_parameter");
        assert_eq!(code("target=x&flag=maybe"), "invalid_parameter");
        assert_eq!(code("target=x&kind=nope"), "invalid_parameter");
        assert_eq!(code("target=%ff%fe"), "invalid_parameter");
        assert_eq!(code("target=a%00b"), "invalid_parameter");
        assert_eq!(code("target=%zz"), "invalid_parameter");
        assert_eq!(code("target=%4"), "invalid_parameter");
        assert_eq!(code("target="), "invalid_parameter");
        assert_eq!(code(&format!("target={}", "a".repeat(MAX_VALUE_LEN + 1))), "invalid_parameter");
    }

    #[test]
    fn a_path_outside_the_root_is_a_problem_of_its_own() {
        let root = Path::new("/srv/repo");
        assert_eq!(confine(root, "../x").unwrap_err().code, "path_outside_root");
        assert_eq!(confine_target(root, "/etc/passwd").unwrap_err().code, "path_outside_root");
        assert_eq!(confine_target(root, "pkg.mod.f").unwrap(), "pkg.mod.f");
    }
}
