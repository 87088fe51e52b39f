//! Snapshot tests of extraction: each annotated grammar test file has a `.facts` file next to
//! it with one line per symbol, reference, import, export and variable. Refresh on purpose
//! with `UPDATE_EXPECT=1 cargo test -p ckg-core --test extract_snapshots`, then read the diff.

use std::fmt::Write;
use std::path::Path;

use ckg_core::extract::Extractor;
use ckg_core::facts::FileFacts;
use ckg_core::lang::Lang;

fn render(f: &FileFacts) -> String {
    let mut out = String::new();
    for s in &f.symbols {
        let parent = s.parent.map(|p| f.symbols[p as usize].qname.as_str()).unwrap_or("-");
        let exported = if s.exported { " exported" } else { "" };
        writeln!(out, "symbol {} {} {}:{}-{} parent={parent}{exported}", s.kind.as_str(), s.qname, s.line, s.col, s.end_line).unwrap();
        for u in &s.param_uses {
            let index = u.index.map(|i| i.to_string()).unwrap_or_else(|| "kw".into());
            let each = if u.each { " each" } else { "" };
            match &u.via {
                None => writeln!(out, "  param-call {}#{index}{each} rest={:?} by={}", u.name, u.rest, u.caller).unwrap(),
                Some(v) => writeln!(out, "  param-passed {}#{index} to={}[{}] by={}", u.name, v.callee, v.key, u.caller).unwrap(),
            }
        }
    }
    for r in &f.refs {
        let what = match (r.path.is_empty(), r.computed) {
            (true, true) => format!("computed({})", r.text),
            (true, false) => format!("dynamic({})", r.text),
            _ => r.path.clone(),
        };
        let binding = r.binding.encode().unwrap_or_else(|| "free".into());
        writeln!(out, "ref {} {}:{} {} from={} [{binding}]", r.kind.as_str(), r.line, r.col, what, f.symbols[r.src as usize].qname)
            .unwrap();
        for (slot, v) in &r.args {
            writeln!(out, "  arg {slot} = {}", v.encode()).unwrap();
        }
    }
    for i in &f.imports {
        writeln!(
            out,
            "import {} {:?} imported={} local={} scope={}{}{} {}:{}",
            i.kind.as_str(),
            i.specifier,
            i.imported.as_deref().unwrap_or("-"),
            i.local.as_deref().unwrap_or("-"),
            f.symbols[i.scope as usize].qname,
            if i.type_only { " type-only" } else { "" },
            if i.alternative { " alternative" } else { "" },
            i.line,
            i.col
        )
        .unwrap();
    }
    for e in &f.exports {
        writeln!(
            out,
            "export {} target={} from={} {}:{}",
            e.name,
            e.target.as_deref().unwrap_or("-"),
            e.specifier.as_deref().unwrap_or("-"),
            e.line,
            e.col
        )
        .unwrap();
    }
    for d in &f.diagnostics {
        writeln!(out, "diagnostic {} line={:?}", d.kind.as_str(), d.line).unwrap();
    }
    writeln!(out, "parse_errors {} lines {}", f.parse_errors, f.lines).unwrap();
    out
}

#[test]
fn extraction_matches_snapshots() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..").join("grammars");
    let update = std::env::var_os("UPDATE_EXPECT").is_some();
    let mut mismatches = Vec::new();
    let mut checked = 0;
    for dir in std::fs::read_dir(&root).unwrap() {
        let test_dir = dir.unwrap().path().join("test");
        let Ok(entries) = std::fs::read_dir(&test_dir) else { continue };
        for entry in entries {
            let path = entry.unwrap().path();
            let name = path.file_name().unwrap().to_string_lossy().to_string();
            let Some(lang) = Lang::from_path(&name) else { continue };
            let module = if lang == Lang::Python { name.trim_end_matches(".py").to_string() } else { name.clone() };
            let facts = Extractor::new().extract(lang, &module, &std::fs::read(&path).unwrap());
            let actual = render(&facts);
            let expected_path = path.with_file_name(format!("{name}.facts"));
            if update {
                std::fs::write(&expected_path, &actual).unwrap();
                continue;
            }
            checked += 1;
            let expected = std::fs::read_to_string(&expected_path).unwrap_or_default();
            if expected != actual {
                let diff: Vec<String> = {
                    let e: std::collections::BTreeSet<&str> = expected.lines().collect();
                    let a: std::collections::BTreeSet<&str> = actual.lines().collect();
                    e.difference(&a).map(|l| format!("- {l}")).chain(a.difference(&e).map(|l| format!("+ {l}"))).collect()
                };
                mismatches.push(format!("{}:\n{}", expected_path.display(), diff.join("\n")));
            }
        }
    }
    assert!(update || checked >= 4, "no snapshot files checked");
    assert!(mismatches.is_empty(), "extraction differs from snapshots (UPDATE_EXPECT=1 to refresh):\n{}", mismatches.join("\n"));
}

/// Prints the facts of one file, rendered as the snapshots are: a tool for reading what
/// extraction makes of a case (`CKG_FACTS=path/to/file.py cargo test -p ckg-core --test
/// extract_snapshots -- --ignored --nocapture facts_of_one_file`).
#[test]
#[ignore]
fn facts_of_one_file() {
    let path = std::env::var("CKG_FACTS").expect("CKG_FACTS names the file to extract");
    let lang = Lang::from_path(&path).expect("a Python, TypeScript or JavaScript file");
    let name = Path::new(&path).file_stem().unwrap().to_string_lossy().to_string();
    let facts = Extractor::new().extract(lang, &name, &std::fs::read(&path).unwrap());
    print!("{}", render(&facts));
    for s in facts.symbols.iter().filter(|s| s.ty.is_some()) {
        println!("type {} {:?}", s.qname, s.ty);
    }
}
