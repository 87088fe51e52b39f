//! `extract_mutate`: real files changed node by node, then through the extraction checks.
//!
//! Byte-level mutations of a source file mostly produce files that fail to tokenize; edits of
//! whole syntax nodes keep most of the file well formed and reach the shapes extraction
//! handles (a class inside its own base list, a call nested in itself, a decorator without a
//! function, a half-deleted import). The input picks a seed and drives up to eight edits, each
//! on the tree of the file as the previous edit left it:
//!
//! - delete a node;
//! - duplicate a node (its text again right after it);
//! - splice a node from another seed of the same language family over a node (of the same
//!   kind when the input says so);
//! - swap two siblings;
//! - truncate the file at a node's start or end;
//! - nest a node inside itself (replace one of its descendants with the node's own text).

use std::cell::RefCell;

use arbitrary::{Result, Unstructured};
use ckg_core::extract::Extractor;
use ckg_core::lang::Lang;

use super::seeds::Seed;

/// Edits stop once a file is this large (nesting doubles it at most each time).
const MAX_LEN: usize = 256 * 1024;
/// Trees with more nodes than this are cut (the rest of the file stays, only untargeted).
const MAX_NODES: usize = 50_000;

thread_local! {
    static PARSER: RefCell<Extractor> = RefCell::new(Extractor::new());
}

/// One node of a syntax tree, as byte offsets.
#[derive(Clone, Copy, Debug)]
struct Span {
    start: usize,
    end: usize,
    kind: u16,
    parent: Option<usize>,
}

/// The `extract_mutate` target.
pub fn fuzz(seeds: &[Seed], data: &[u8]) {
    if let Some((lang, src)) = mutate(seeds, data) {
        super::extract::check(lang, &src);
    }
}

/// The file an input makes of the seeds, with its language.
pub fn mutate(seeds: &[Seed], data: &[u8]) -> Option<(Lang, Vec<u8>)> {
    let mut u = Unstructured::new(data);
    let seed = seeds.get(u.choose_index(seeds.len()).ok()?)?;
    let mut src = seed.src.clone();
    let donors: Vec<&Seed> = seeds.iter().filter(|s| s.lang.is_script() == seed.lang.is_script()).collect();
    let edits = u.int_in_range(1..=8u8).unwrap_or(1);
    for _ in 0..edits {
        if src.len() > MAX_LEN || edit(&mut u, seed.lang, &donors, &mut src).is_err() {
            break;
        }
    }
    Some((seed.lang, src))
}

fn edit(u: &mut Unstructured, lang: Lang, donors: &[&Seed], src: &mut Vec<u8>) -> Result<()> {
    let nodes = spans(lang, src);
    if nodes.is_empty() {
        return Err(arbitrary::Error::NotEnoughData);
    }
    let n = nodes[u.choose_index(nodes.len())?];
    match u.int_in_range(0..=5u8)? {
        0 => replace(src, n.start, n.end, &[]),
        1 => {
            let text = src[n.start..n.end].to_vec();
            replace(src, n.end, n.end, &text);
        }
        2 => {
            let donor = donors[u.choose_index(donors.len())?];
            let theirs = spans(donor.lang, &donor.src);
            let same_kind: Vec<Span> = theirs.iter().copied().filter(|d| d.kind == n.kind).collect();
            let pool = if !same_kind.is_empty() && u.arbitrary::<bool>()? { &same_kind } else { &theirs };
            if pool.is_empty() {
                return Ok(());
            }
            let d = pool[u.choose_index(pool.len())?];
            replace(src, n.start, n.end, &donor.src[d.start..d.end]);
        }
        3 => {
            let siblings: Vec<Span> =
                nodes.iter().copied().filter(|s| s.parent.is_some() && s.parent == n.parent && s.start != n.start).collect();
            if siblings.is_empty() {
                return Ok(());
            }
            let other = siblings[u.choose_index(siblings.len())?];
            let (a, b) = if n.start < other.start { (n, other) } else { (other, n) };
            if a.end > b.start {
                return Ok(());
            }
            let mut out = src[..a.start].to_vec();
            out.extend_from_slice(&src[b.start..b.end]);
            out.extend_from_slice(&src[a.end..b.start]);
            out.extend_from_slice(&src[a.start..a.end]);
            out.extend_from_slice(&src[b.end..]);
            *src = out;
        }
        4 => src.truncate(if u.arbitrary::<bool>()? { n.start } else { n.end }),
        _ => {
            let inside: Vec<Span> =
                nodes.iter().copied().filter(|d| d.start >= n.start && d.end <= n.end && (d.start, d.end) != (n.start, n.end)).collect();
            if inside.is_empty() {
                return Ok(());
            }
            let d = inside[u.choose_index(inside.len())?];
            let text = src[n.start..n.end].to_vec();
            replace(src, d.start, d.end, &text);
        }
    }
    Ok(())
}

fn replace(src: &mut Vec<u8>, start: usize, end: usize, with: &[u8]) {
    src.splice(start..end, with.iter().copied());
}

/// Every node of the file's tree in document order, with its parent (a cursor walk: no
/// recursion).
fn spans(lang: Lang, src: &[u8]) -> Vec<Span> {
    let mut out = Vec::new();
    let Some(tree) = PARSER.with(|p| p.borrow_mut().parse(lang, src)) else { return out };
    let mut cursor = tree.walk();
    let mut parents: Vec<usize> = Vec::new();
    while out.len() < MAX_NODES {
        let node = cursor.node();
        out.push(Span {
            start: node.start_byte(),
            end: node.end_byte().min(src.len()),
            kind: node.kind_id(),
            parent: parents.last().copied(),
        });
        if cursor.goto_first_child() {
            parents.push(out.len() - 1);
            continue;
        }
        while !cursor.goto_next_sibling() {
            if !cursor.goto_parent() {
                return out;
            }
            parents.pop();
        }
    }
    out
}
