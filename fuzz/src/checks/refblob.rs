//! `refblob_decode`: the stored form of a file's references, decoded from any bytes.
//!
//! Properties: `decode` returns (a blob it cannot read is `None`, never a panic or an
//! allocation the input's size does not justify); what it decodes encodes again into a blob
//! that decodes to the same rows; and a blob cut by one byte does not decode.

use ckg_core::facts::RefFact;
use ckg_core::refblob::{decode, encode};
use ckg_core::store::RefSite;

/// The `refblob_decode` target.
pub fn fuzz(data: &[u8]) {
    let Some(decoded) = decode(5, data) else { return };
    let rows: Vec<RefSite> = decoded.sites().collect();
    assert!(rows.len() <= data.len(), "{} rows from {} bytes", rows.len(), data.len());
    assert!(decode(5, &data[..data.len() - 1]).is_none(), "a blob cut by one byte still decodes");
    let ids: Vec<i64> = rows.iter().map(|r| r.src).collect();
    let facts: Vec<RefFact> = rows
        .iter()
        .enumerate()
        .map(|(i, r)| RefFact {
            kind: r.kind,
            src: i as u32,
            path: r.path.clone(),
            text: r.text.clone(),
            binding: r.binding.clone(),
            line: r.line,
            col: r.col,
            computed: r.computed,
            args: r.args.clone(),
        })
        .collect();
    let again = decode(5, &encode(&facts, &ids)).expect("a blob encode wrote decodes");
    assert_eq!(shown(rows), shown(again.sites().collect()), "decode(encode(rows)) differs from rows");
}

/// Each site as the store gives it back: its file, its symbol's id and the fact's other fields.
fn shown(rows: Vec<RefSite>) -> Vec<String> {
    rows.iter().map(|r| format!("{} {} {:?}", r.file, r.src, RefFact { src: 0, ..r.fact.clone() })).collect()
}
