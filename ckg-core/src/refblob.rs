//! The stored form of a file's reference facts: one compact blob per file.
//!
//! References are the largest part of the facts (a third of a Python index when they were one
//! row each) and are only ever read whole — per file, or all of them for a full resolution —
//! never queried by column. So each file's references are one blob: a table of the distinct
//! strings of the file (paths, bindings, call arguments repeat a lot within a file: `self.x`,
//! `self pkg.mod.Class`), then one record of LEB128 varints per reference.
//!
//! Layout (version 1): `u8 version`, `n_strings`, then each string as `len, bytes`; `n_refs`,
//! then each reference as `kind, src, path, text+1, binding+1, line, col, computed, args+1`
//! (string fields are indexes into the table; `+1` fields are 0 when absent).

use std::borrow::Cow;

use crate::facts::{LocalBinding, RefFact, RefKind, decode_list, encode_list};
use crate::store::FileRefs;

const VERSION: u8 = 1;

/// Encodes the references of one file; `ids` maps a fact's `src` (a symbol index in the
/// file) to the symbol's id in the store.
pub fn encode(refs: &[RefFact], ids: &[i64]) -> Vec<u8> {
    // Room for a string a reference: grown from empty, the map was rehashed as it grew
    // (pytest: 1,168 times, for 28.9k distinct strings in all its blobs).
    let mut strings = Strings {
        table: Vec::with_capacity(refs.len() * 16),
        index: crate::resolve::Map::with_capacity_and_hasher(refs.len(), Default::default()),
    };
    let mut records = Vec::with_capacity(refs.len() * 12);
    // A binding's stored form, written here for each reference and copied only when new.
    let mut binding = String::new();
    for r in refs {
        let kind = RefKind::ALL.iter().position(|k| *k == r.kind).unwrap_or(0) as u8;
        records.push(kind);
        put(&mut records, ids[r.src as usize] as u64);
        put(&mut records, strings.borrowed(&r.path));
        put(&mut records, if r.text.is_empty() { 0 } else { strings.borrowed(&r.text) + 1 });
        binding.clear();
        put(&mut records, if r.binding.encode_into(&mut binding) { strings.copied(&binding) + 1 } else { 0 });
        put(&mut records, u64::from(r.line));
        put(&mut records, u64::from(r.col));
        records.push(u8::from(r.computed));
        put(&mut records, encode_list(&r.args).map(|a| strings.owned(a) + 1).unwrap_or(0));
    }
    let mut out = Vec::with_capacity(records.len() + strings.table.len() + 16);
    out.push(VERSION);
    put(&mut out, strings.index.len() as u64);
    out.extend_from_slice(&strings.table);
    put(&mut out, refs.len() as u64);
    out.extend_from_slice(&records);
    out
}

/// A blob's string table, written as strings are first seen; a string seen again is only
/// looked up (borrowed from the facts where it can be, so most lookups allocate nothing).
struct Strings<'r> {
    table: Vec<u8>,
    index: crate::resolve::Map<Cow<'r, str>, u64>,
}

impl<'r> Strings<'r> {
    /// The index of a string of the facts.
    fn borrowed(&mut self, s: &'r str) -> u64 {
        match self.index.get(s) {
            Some(&i) => i,
            None => self.add(Cow::Borrowed(s)),
        }
    }

    /// The index of a string made for the blob, copied if it is new.
    fn copied(&mut self, s: &str) -> u64 {
        match self.index.get(s) {
            Some(&i) => i,
            None => self.add(Cow::Owned(s.to_string())),
        }
    }

    /// The index of a string made for the blob, kept if it is new.
    fn owned(&mut self, s: String) -> u64 {
        match self.index.get(s.as_str()) {
            Some(&i) => i,
            None => self.add(Cow::Owned(s)),
        }
    }

    fn add(&mut self, s: Cow<'r, str>) -> u64 {
        let i = self.index.len() as u64;
        put_str(&mut self.table, &s);
        self.index.insert(s, i);
        i
    }
}

/// Decodes the blob of file `file`; `None` when it is not a blob this version wrote. The
/// facts' `src` index the symbol ids in the order the blob first names them.
pub fn decode(file: i64, data: &[u8]) -> Option<FileRefs> {
    let mut r = Reader { data, pos: 0 };
    if r.byte()? != VERSION {
        return None;
    }
    let strings: Vec<&str> = r.records(|r, _| r.str())?;
    let string = |i: u64| strings.get(i as usize).copied();
    let optional = |i: u64| if i == 0 { Some(None) } else { string(i - 1).map(Some) };
    let count = r.varint()? as usize;
    let mut refs = Vec::with_capacity(count.min(data.len()));
    let mut ids: Vec<i64> = Vec::new();
    // Each symbol's index in `ids`.
    let mut index_of: crate::resolve::Map<i64, u32> = crate::resolve::Map::default();
    for _ in 0..count {
        let kind = *RefKind::ALL.get(r.byte()? as usize)?;
        let id = r.varint()? as i64;
        let src = *index_of.entry(id).or_insert_with(|| {
            ids.push(id);
            (ids.len() - 1) as u32
        });
        let path = string(r.varint()?)?.to_string();
        let text = optional(r.varint()?)?.unwrap_or_default().to_string();
        let binding = LocalBinding::decode(optional(r.varint()?)?);
        let line = u32::try_from(r.varint()?).ok()?;
        let col = u32::try_from(r.varint()?).ok()?;
        let computed = r.byte()? != 0;
        let args = decode_list(optional(r.varint()?)?);
        refs.push(RefFact { kind, src, path, text, binding, line, col, computed, args });
    }
    (r.pos == data.len()).then_some(FileRefs { file, ids, refs })
}

/// Appends `v` as a LEB128 varint.
pub(crate) fn put(out: &mut Vec<u8>, mut v: u64) {
    loop {
        let b = (v & 0x7f) as u8;
        v >>= 7;
        if v == 0 {
            out.push(b);
            return;
        }
        out.push(b | 0x80);
    }
}

/// Appends a string as its length and bytes.
pub(crate) fn put_str(out: &mut Vec<u8>, s: &str) {
    put(out, s.len() as u64);
    out.extend_from_slice(s.as_bytes());
}

/// Reads what [`put`] wrote (and single bytes); `None` past the end.
pub(crate) struct Reader<'a> {
    pub(crate) data: &'a [u8],
    pub(crate) pos: usize,
}

impl<'a> Reader<'a> {
    pub(crate) fn byte(&mut self) -> Option<u8> {
        let b = *self.data.get(self.pos)?;
        self.pos += 1;
        Some(b)
    }

    /// A string written as its length and bytes ([`put_str`]).
    pub(crate) fn str(&mut self) -> Option<&'a str> {
        let len = self.varint()? as usize;
        self.text(len)
    }

    /// The next `len` bytes, as UTF-8.
    pub(crate) fn text(&mut self, len: usize) -> Option<&'a str> {
        let bytes = self.data.get(self.pos..self.pos.checked_add(len)?)?;
        self.pos += len;
        std::str::from_utf8(bytes).ok()
    }

    /// A count, then that many records; each is read knowing the ones before it.
    pub(crate) fn records<T>(&mut self, mut read: impl FnMut(&mut Self, &[T]) -> Option<T>) -> Option<Vec<T>> {
        let n = self.varint()? as usize;
        let mut out = Vec::with_capacity(n.min(self.data.len()));
        for _ in 0..n {
            let record = read(self, &out)?;
            out.push(record);
        }
        Some(out)
    }

    pub(crate) fn varint(&mut self) -> Option<u64> {
        let mut v = 0u64;
        for shift in (0..64).step_by(7) {
            let b = self.byte()?;
            v |= u64::from(b & 0x7f) << shift;
            if b & 0x80 == 0 {
                return Some(v);
            }
        }
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::facts::ValueSource;

    fn fact(kind: RefKind, path: &str, binding: LocalBinding, line: u32) -> RefFact {
        RefFact { kind, src: 1, path: path.into(), text: String::new(), binding, line, col: 300, computed: false, args: Vec::new() }
    }

    #[test]
    fn round_trips_every_field() {
        let mut refs = vec![
            fact(RefKind::Call, "self.run", LocalBinding::SelfOf("pkg.mod.C".into()), 3),
            fact(RefKind::Read, "self.run", LocalBinding::SelfOf("pkg.mod.C".into()), 100_000),
            fact(RefKind::Patch, "tools.helper", LocalBinding::Free, 7),
        ];
        refs[0].args = vec![("0".into(), ValueSource::Alias("double".into())), ("key".into(), ValueSource::Call("Foo".into()))];
        refs[2].path = String::new();
        refs[2].text = "handlers[name]".into();
        refs[2].computed = true;
        refs[2].src = 0;
        // Back in a symbol named before, not by the site just before it.
        refs.push(fact(RefKind::Write, "x", LocalBinding::Free, 8));
        let blob = encode(&refs, &[5, 1_000_000_007]);
        let decoded = decode(9, &blob).expect("decodes");
        let rows: Vec<_> = decoded.sites().collect();
        assert_eq!(rows.len(), 4);
        for (r, f) in rows.iter().zip(&refs) {
            assert_eq!((r.file, r.kind, &r.path, &r.text, &r.binding), (9, f.kind, &f.path, &f.text, &f.binding));
            assert_eq!((r.line, r.col, r.computed, &r.args), (f.line, f.col, f.computed, &f.args));
        }
        assert_eq!(rows.iter().map(|r| r.src).collect::<Vec<_>>(), [1_000_000_007, 1_000_000_007, 5, 1_000_000_007]);
        assert_eq!(decoded.ids, [1_000_000_007, 5], "each symbol once, in the order the blob names them");
    }

    #[test]
    fn rejects_truncated_or_foreign_blobs() {
        let blob = encode(&[fact(RefKind::Call, "f", LocalBinding::Var(None), 1)], &[0, 1]);
        for cut in 0..blob.len() {
            assert!(decode(1, &blob[..cut]).is_none(), "a blob cut at {cut} must not decode");
        }
        let mut foreign = blob.clone();
        foreign[0] = 99;
        assert!(decode(1, &foreign).is_none());
    }
}
