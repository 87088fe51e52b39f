//! Paging of list answers (AIP-158): `page_size`, an opaque `page_token`, and
//! `next_page_token` in the answer.
//!
//! A token names the generation it was made from, the query it continues (a hash of the
//! query's canonical form) and the offset of the next item. A token from an older generation
//! is rejected ([`Error::PageTokenExpired`]) rather than misread: the list it continues may
//! have changed, and a client that pages across an update must start again.

use crate::graph::{CyclesAnswer, DepsAnswer, EdgesAnswer, SymbolsAnswer, UnusedAnswer};
use crate::impact::ImpactAnswer;
use crate::sql::SqlAnswer;
use crate::{Error, Result};

/// The largest page a client may ask for.
pub const MAX_PAGE_SIZE: usize = 1000;

/// What a client asked for: a page size, the token it got from the previous page, and the
/// canonical form of the query (every parameter but the paging ones), which a token must match.
#[derive(Clone, Debug)]
pub struct PageRequest {
    pub size: usize,
    pub token: Option<String>,
    pub query: String,
}

/// An answer with one list that can be cut into pages.
pub trait Paged {
    fn generation(&self) -> i64;
    /// How many items the list has.
    fn items(&self) -> usize;
    /// Keeps items `start..end` of the list.
    fn keep(&mut self, start: usize, end: usize);
    fn set_next_page_token(&mut self, token: Option<String>);
}

fn query_hash(query: &str) -> u64 {
    xxhash_rust::xxh3::xxh3_64(query.as_bytes())
}

fn encode(generation: i64, offset: usize, query: &str) -> String {
    let raw = format!("1.{generation}.{offset}.{:016x}", query_hash(query));
    raw.bytes().map(|b| format!("{b:02x}")).collect()
}

/// (generation, offset) of a token made for `query`.
fn decode(token: &str, query: &str) -> Result<(i64, usize)> {
    let bad = || Error::PageToken("not a token this server issued".into());
    if token.len() > 256 || !token.len().is_multiple_of(2) {
        return Err(bad());
    }
    let bytes: Vec<u8> =
        (0..token.len()).step_by(2).map(|i| u8::from_str_radix(&token[i..i + 2], 16)).collect::<Result<_, _>>().map_err(|_| bad())?;
    let raw = String::from_utf8(bytes).map_err(|_| bad())?;
    let parts: Vec<&str> = raw.split('.').collect();
    let [version, generation, offset, hash] = parts.as_slice() else { return Err(bad()) };
    if *version != "1" {
        return Err(bad());
    }
    let generation: i64 = generation.parse().map_err(|_| bad())?;
    let offset: usize = offset.parse().map_err(|_| bad())?;
    if *hash != format!("{:016x}", query_hash(query)) {
        return Err(Error::PageToken("the token belongs to another query; repeat the same parameters with it".into()));
    }
    Ok((generation, offset))
}

/// Cuts `answer` to the requested page and sets its `next_page_token`.
pub fn paginate<T: Paged>(answer: &mut T, req: &PageRequest) -> Result<()> {
    if req.size == 0 || req.size > MAX_PAGE_SIZE {
        return Err(Error::Invalid(format!("page_size must be between 1 and {MAX_PAGE_SIZE}, got {}", req.size)));
    }
    let generation = answer.generation();
    let start = match &req.token {
        Some(t) => {
            let (token_generation, offset) = decode(t, &req.query)?;
            if token_generation != generation {
                return Err(Error::PageTokenExpired { token: token_generation, current: generation });
            }
            offset
        }
        None => 0,
    };
    let total = answer.items();
    let start = start.min(total);
    let end = start.saturating_add(req.size).min(total);
    answer.keep(start, end);
    answer.set_next_page_token((end < total).then(|| encode(generation, end, &req.query)));
    Ok(())
}

fn keep_range<T>(v: &mut Vec<T>, start: usize, end: usize) {
    v.truncate(end);
    v.drain(..start);
}

macro_rules! paged {
    ($ty:ty, $list:ident) => {
        impl Paged for $ty {
            fn generation(&self) -> i64 {
                self.generation
            }
            fn items(&self) -> usize {
                self.$list.len()
            }
            fn keep(&mut self, start: usize, end: usize) {
                keep_range(&mut self.$list, start, end);
            }
            fn set_next_page_token(&mut self, token: Option<String>) {
                self.next_page_token = token;
            }
        }
    };
}

paged!(EdgesAnswer, edges);
paged!(ImpactAnswer, files);
paged!(SymbolsAnswer, symbols);
paged!(DepsAnswer, deps);
paged!(UnusedAnswer, symbols);
paged!(SqlAnswer, rows);

impl Paged for CyclesAnswer {
    fn generation(&self) -> i64 {
        self.generation
    }
    fn items(&self) -> usize {
        self.imports.len() + self.calls.len()
    }
    fn keep(&mut self, start: usize, end: usize) {
        let n = self.imports.len();
        keep_range(&mut self.calls, start.saturating_sub(n), end.saturating_sub(n));
        keep_range(&mut self.imports, start.min(n), end.min(n));
    }
    fn set_next_page_token(&mut self, token: Option<String>) {
        self.next_page_token = token;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn unused(n: usize, generation: i64) -> UnusedAnswer {
        let symbols =
            (0..n).map(|i| crate::Node { qname: format!("s{i}"), kind: "function".into(), file: None, line: 1, col: 1 }).collect();
        UnusedAnswer { generation, symbols, next_page_token: None }
    }

    fn req(size: usize, token: Option<String>) -> PageRequest {
        PageRequest { size, token, query: "unused?".into() }
    }

    #[test]
    fn pages_cover_the_list_once_in_order() {
        let mut seen = Vec::new();
        let mut token = None;
        loop {
            let mut a = unused(25, 7);
            paginate(&mut a, &req(10, token)).unwrap();
            seen.extend(a.symbols.iter().map(|s| s.qname.clone()));
            match a.next_page_token {
                Some(t) => token = Some(t),
                None => break,
            }
        }
        let all: Vec<String> = (0..25).map(|i| format!("s{i}")).collect();
        assert_eq!(seen, all);
    }

    #[test]
    fn tokens_of_other_generations_and_queries_are_rejected() {
        let mut a = unused(25, 7);
        paginate(&mut a, &req(10, None)).unwrap();
        let token = a.next_page_token.unwrap();
        let mut newer = unused(25, 8);
        assert!(matches!(paginate(&mut newer, &req(10, Some(token.clone()))), Err(Error::PageTokenExpired { token: 7, current: 8 })));
        let mut other = unused(25, 7);
        let other_query = PageRequest { size: 10, token: Some(token), query: "unused?include_exported=true".into() };
        assert!(matches!(paginate(&mut other, &other_query), Err(Error::PageToken(_))));
        for garbage in ["", "zz", "abc", &"00".repeat(200)] {
            let mut a = unused(3, 7);
            assert!(matches!(paginate(&mut a, &req(10, Some(garbage.into()))), Err(Error::PageToken(_))), "{garbage:?}");
        }
        assert!(paginate(&mut unused(3, 7), &req(0, None)).is_err());
        assert!(paginate(&mut unused(3, 7), &req(MAX_PAGE_SIZE + 1, None)).is_err());
    }

    #[test]
    fn cycles_page_across_both_lists() {
        let mut a = CyclesAnswer {
            generation: 1,
            imports: vec![vec!["a".into()], vec!["b".into()]],
            calls: vec![vec!["c".into()], vec!["d".into()]],
            next_page_token: None,
        };
        a.keep(1, 3);
        assert_eq!(a.imports, vec![vec!["b".to_string()]]);
        assert_eq!(a.calls, vec![vec!["c".to_string()]]);
    }
}
