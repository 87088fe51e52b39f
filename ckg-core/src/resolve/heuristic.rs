//! The heuristic tier: a member call on a value of unknown type binds to the one repository
//! method of the site's language family with that name, unless the name is a method of a
//! builtin type.

use super::{Resolver, record};
use crate::facts::{LocalBinding, RefKind, SymbolKind};
use crate::store::{RefSite, ResolveInput};

/// Methods by language family (`true`: TS/JS) and name: a Python value has no TypeScript
/// method. Sized for every method up front, each name with room for one (most have one): on
/// django (28,658 methods, 18,753 names) building it took 15–21 ms before, 6–8 ms so.
pub(super) fn methods_by_name(input: &ResolveInput) -> super::Map<(bool, &str), Vec<i64>> {
    let script: super::Map<i64, bool> = input.files.iter().map(|f| (f.id, f.lang.is_script())).collect();
    let count = input.symbols.iter().filter(|s| s.kind == SymbolKind::Method).count();
    let mut methods: super::Map<(bool, &str), Vec<i64>> = super::Map::with_capacity_and_hasher(count, Default::default());
    for s in input.symbols.iter().filter(|s| s.kind == SymbolKind::Method) {
        let family = s.file.and_then(|f| script.get(&f).copied()).unwrap_or(true);
        methods.entry((family, crate::store::last_name(&s.qname))).or_insert_with(|| Vec::with_capacity(1)).push(s.id);
    }
    methods
}

impl Resolver<'_> {
    /// The heuristic tier: a member call on a value of unknown type whose method name only one
    /// repository method of the site's language family (TS/JS, Python) has (and that is not a
    /// method of a builtin type).
    pub(super) fn heuristic_method(&self, r: &RefSite) -> Option<i64> {
        if r.kind != RefKind::Call || !r.path.contains('.') || matches!(r.binding, LocalBinding::SelfOf(_) | LocalBinding::SuperOf(_)) {
            return None;
        }
        let name = crate::store::last_name(&r.path);
        if name.starts_with("__") || self.common_methods.contains(name) {
            return None;
        }
        record("name:", name);
        match self.methods.get(&(self.file_lang(r.file).is_script(), name)).map(Vec::as_slice) {
            Some(&[only]) => Some(only),
            _ => None,
        }
    }
}
