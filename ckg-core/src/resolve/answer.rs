//! Answering one position (`def`): what extraction found there
//! ([`PositionFact`](crate::extract::PositionFact)) resolved with the resolution the index
//! uses, with the import and re-export sites followed.

use super::{EXACT, HOPS, RECORD_HOPS, Resolver, Target, UNRESOLVED};
use crate::facts::ImportKind;
use crate::store::ImportRow;

/// Records a site followed while answering a position.
pub(super) fn hop(h: Hop) {
    if RECORD_HOPS.with(|r| r.get()) {
        HOPS.with(|hops| hops.borrow_mut().push(h));
    }
}

/// A site followed to reach a definition: an import binding or a re-export.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Hop {
    pub file: i64,
    pub line: u32,
    pub col: u32,
}

/// What a position of a file resolves to (`def`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Found {
    /// A repository definition, a module, or an interned external node, by id.
    Symbol(i64),
    /// An external (or builtin) by qname, interned or not.
    External(String),
    /// A Python namespace package (a folder without `__init__.py`).
    Package(String),
}

/// The answer for a position: what it denotes, the evidence, and the import and re-export
/// sites followed on the way (in order).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Answer {
    pub found: Found,
    pub evidence: &'static str,
    pub hops: Vec<Hop>,
}

impl Resolver<'_> {
    /// Resolves what extraction found at a position of `file` (a use, an imported name, an
    /// imported module), with the resolution the index itself uses. Definitions and locals
    /// need no resolution and give `None`.
    pub fn answer(&self, file: i64, fact: &crate::extract::PositionFact, imports: &[crate::facts::ImportFact]) -> Option<Answer> {
        use crate::extract::PositionFact as P;
        // What an answer looks up is not kept (only a file's resolution stores it).
        super::start_recording();
        HOPS.with(|h| h.borrow_mut().clear());
        RECORD_HOPS.with(|r| r.set(true));
        let resolved = match fact {
            P::Use { src, path, binding } => {
                let src =
                    self.by_qname.get(src.as_str()).map(|&i| self.input.symbols[i].id).or_else(|| self.module_sym.get(&file).copied())?;
                self.path_target(file, src, path, binding, 1)
            }
            P::Import(i) => {
                let f = imports.get(*i)?;
                hop(Hop { file, line: f.line, col: f.col });
                let row = ImportRow {
                    file,
                    kind: f.kind,
                    specifier: f.specifier.clone(),
                    imported: f.imported.clone(),
                    local: f.local.clone(),
                    scope: 0,
                    type_only: f.type_only,
                    alternative: f.alternative,
                    line: f.line,
                    col: f.col,
                };
                let kind = if f.kind == ImportKind::Star { ImportKind::Namespace } else { f.kind };
                self.import_target(&ImportRow { kind, ..row }, 0).map(|t| (t, EXACT))
            }
            P::Module(spec) => self.module_target(self.modules.resolve(file, self.file_lang(file), spec)).map(|t| (t, EXACT)),
            P::Definition(_) | P::Local { .. } => None,
        };
        RECORD_HOPS.with(|r| r.set(false));
        let hops = HOPS.with(|h| std::mem::take(&mut *h.borrow_mut()));
        let (target, evidence) = resolved.filter(|(_, e)| *e != UNRESOLVED)?;
        let found = match target {
            Target::Sym(id) | Target::Instance(id) => Found::Symbol(id),
            Target::Module(f) => Found::Symbol(*self.module_sym.get(&f)?),
            Target::External(e) => Found::External(e),
            Target::Package(p) => Found::Package(p),
            Target::Super(_) | Target::Items(..) | Target::Opaque => return None,
        };
        Some(Answer { found, evidence, hops })
    }
}
