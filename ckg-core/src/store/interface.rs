//! What other files can see of a file ([`Interface`]): read back from the index before an
//! update, and computed from the facts about to be written. Only a difference between the two
//! re-resolves other files; a body-only edit re-resolves none.

use super::write::{WriteTx, encode_lines};
use crate::error::Result;
use crate::facts::{FileRecord, ValueSource, encode_param_uses};

impl WriteTx<'_> {
    /// What other files can see of a stored file: its symbols (with kind, parent and export
    /// flag), its exports and its imports, as canonical lines. Resolution of other files
    /// depends on nothing else of it, so an edit that leaves this unchanged (a body-only
    /// edit) never re-resolves another file.
    pub fn interface(&self, file_id: i64) -> Result<Interface> {
        let e = |e| self.err(e);
        let mut out = Interface::default();
        let mut s = self
            .tx
            .prepare_cached(
                "SELECT s.qname, s.kind, coalesce(p.qname, ''), s.exported, s.bases, s.ty, s.decorators, s.params, s.param_types
                 FROM symbols s LEFT JOIN symbols p ON p.id = s.parent_id
                 WHERE s.file_id = ?1",
            )
            .map_err(e)?;
        let rows = s
            .query_map([file_id], |r| {
                Ok((
                    r.get::<_, String>(0)?,
                    symbol_line(
                        &r.get::<_, String>(1)?,
                        &r.get::<_, String>(2)?,
                        r.get(3)?,
                        r.get::<_, Option<String>>(4)?.as_deref(),
                        r.get::<_, Option<String>>(5)?.as_deref(),
                        r.get::<_, Option<String>>(6)?.as_deref(),
                        r.get::<_, Option<String>>(7)?.as_deref(),
                        r.get::<_, Option<String>>(8)?.as_deref(),
                    ),
                ))
            })
            .map_err(e)?;
        for r in rows {
            let (q, v) = r.map_err(e)?;
            out.symbols.insert(q, v);
        }
        let mut s = self.tx.prepare_cached("SELECT name, target, specifier FROM exports WHERE file_id = ?1").map_err(e)?;
        let rows = s
            .query_map([file_id], |r| {
                Ok(export_line(
                    &r.get::<_, String>(0)?,
                    r.get::<_, Option<String>>(1)?.as_deref(),
                    r.get::<_, Option<String>>(2)?.as_deref(),
                ))
            })
            .map_err(e)?;
        for r in rows {
            out.exports.insert(r.map_err(e)?);
        }
        let mut s = self
            .tx
            .prepare_cached(
                "SELECT i.kind, i.specifier, i.imported, i.local, i.type_only, sc.qname, i.alternative FROM imports i JOIN symbols sc ON sc.id = i.scope_id
                 WHERE i.file_id = ?1",
            )
            .map_err(e)?;
        let rows = s
            .query_map([file_id], |r| {
                Ok(import_line(
                    &r.get::<_, String>(0)?,
                    &r.get::<_, String>(1)?,
                    r.get::<_, Option<String>>(2)?.as_deref(),
                    r.get::<_, Option<String>>(3)?.as_deref(),
                    r.get(4)?,
                    &r.get::<_, String>(5)?,
                    r.get(6)?,
                ))
            })
            .map_err(e)?;
        for r in rows {
            out.imports.insert(r.map_err(e)?);
        }
        Ok(out)
    }
}

/// What other files can see of one file (see [`WriteTx::interface`]).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Interface {
    /// qname -> "kind parent exported".
    pub symbols: std::collections::BTreeMap<String, String>,
    pub exports: std::collections::BTreeSet<String>,
    pub imports: std::collections::BTreeSet<String>,
}

impl Interface {
    /// The interface of facts about to be written (same canonical form as the stored one).
    pub fn of(rec: &FileRecord) -> Interface {
        let f = &rec.facts;
        let mut out = Interface::default();
        for s in &f.symbols {
            let parent = s.parent.map(|p| f.symbols[p as usize].qname.as_str()).unwrap_or("");
            out.symbols.insert(
                s.qname.clone(),
                symbol_line(
                    s.kind.as_str(),
                    parent,
                    s.exported,
                    encode_lines(&s.bases).as_deref(),
                    s.ty.as_ref().map(ValueSource::encode).as_deref(),
                    encode_lines(&s.decorators).as_deref(),
                    encode_param_uses(&s.qname, &s.param_uses).as_deref(),
                    encode_lines(&s.param_types).as_deref(),
                ),
            );
        }
        for e in &f.exports {
            out.exports.insert(export_line(&e.name, e.target.as_deref(), e.specifier.as_deref()));
        }
        for i in &f.imports {
            let scope = &f.symbols[i.scope as usize].qname;
            out.imports.insert(import_line(
                i.kind.as_str(),
                &i.specifier,
                i.imported.as_deref(),
                i.local.as_deref(),
                i.type_only,
                scope,
                i.alternative,
            ));
        }
        out
    }
}

// The canonical interface lines. Both sides of the comparison (what is stored, what is about
// to be written) go through these, so they can only differ when the facts do.

#[allow(clippy::too_many_arguments)] // one argument per field of the line
fn symbol_line(
    kind: &str,
    parent: &str,
    exported: bool,
    bases: Option<&str>,
    ty: Option<&str>,
    decorators: Option<&str>,
    params: Option<&str>,
    param_types: Option<&str>,
) -> String {
    format!("{kind} {parent} {exported} {bases:?} {ty:?} {decorators:?} {params:?} {param_types:?}")
}

fn export_line(name: &str, target: Option<&str>, specifier: Option<&str>) -> String {
    format!("{name} {target:?} {specifier:?}")
}

fn import_line(
    kind: &str,
    specifier: &str,
    imported: Option<&str>,
    local: Option<&str>,
    type_only: bool,
    scope: &str,
    alternative: bool,
) -> String {
    format!("{kind} {specifier} {imported:?} {local:?} {type_only} {scope} {alternative}")
}
