//! Resolution: binds the stored reference facts of files to definitions across files.
//!
//! **Invariant:** resolution reads only stored facts (never source files) and is where all
//! cross-file knowledge lives. It is a pure function from [`ResolveInput`] to edges, so the
//! same facts always give the same edges, whatever order files were parsed in.
//!
//! A reference's first name is looked up in this order: the binding extraction found in the
//! file's own scopes ([`LocalBinding`](crate::facts::LocalBinding)); imports in enclosing
//! function scopes, then at module level; module-level definitions and variables; Python star
//! imports; builtins. The rest of its path is then walked through members (module members and
//! re-exports, class members, external members). Each edge gets one evidence tier:
//!
//! - `exact`: bound through scopes and imports to one definition (or a builtin/external);
//! - `inferred`: bound through simple flow: `self`/`this`, `x = Foo()`, annotations;
//! - `heuristic`: a method call on a value of unknown type (`x.send_invoice()`) whose method
//!   name is defined by exactly one method in the repository and is not a method of a builtin
//!   type (`append`, `map`): probably that method, labelled so;
//! - `unresolved`: kept with its written name.
//!
//! Nothing binds a bare name globally: the heuristic tier applies to member calls only.
//!
//! By concern: `names.rs` binds a free name and an import (module members, re-exports, star
//! imports); `paths.rs` walks the rest of a written path through members; `values.rs` follows
//! values and types (`x = Foo()`, annotations, return types); `classes.rs` has base classes and
//! the MRO; `edges.rs` turns each reference site into edges, with parameter flow;
//! `heuristic.rs` is the heuristic tier; `answer.rs` answers one position for `def`.

mod answer;
mod builtins;
mod classes;
mod config;
mod edges;
mod heuristic;
mod modules;
mod names;
mod paths;
mod values;

use std::cell::RefCell;
use std::collections::{HashMap, HashSet};
use std::sync::Arc;

use crate::facts::{SymbolKind, ValueSource};
use crate::lang::Lang;
use crate::store::{EdgeRow, ImportRow, RefSite, ResolveInput, SymbolRow};

pub use answer::{Answer, Found, Hop};
pub use modules::{ModuleTarget, module_keys, python_packages};

pub const EXACT: &str = "exact";
pub const INFERRED: &str = "inferred";
pub const HEURISTIC: &str = "heuristic";
pub const UNRESOLVED: &str = "unresolved";

/// How far member and re-export chains are followed (guards against import cycles).
const MAX_HOPS: usize = 12;

thread_local! {
    /// The keys looked up while resolving the current file (one file per thread at a time),
    /// but for those of answers kept for later, which are in [`REUSED`].
    static LOOKUPS: RefCell<Vec<u32>> = const { RefCell::new(Vec::new()) };
    /// The keys of the answers kept for later that the current file reused, one entry per
    /// reuse (shared with the answer, not copied: a file reuses some answers hundreds of times).
    static REUSED: RefCell<Vec<Arc<[u32]>>> = const { RefCell::new(Vec::new()) };
    /// Property getters run while walking the path of the current reference.
    static GETTERS: RefCell<Vec<i64>> = const { RefCell::new(Vec::new()) };
    /// The class of the instance whose member the last step of the current reference's path
    /// looked up (`C` for `self.m()` in a method of `C`, or `p.m()` with `p: C`): a call
    /// there may run an override of a subclass.
    static DISPATCH: std::cell::Cell<Option<i64>> = const { std::cell::Cell::new(None) };
    /// Whether the current reference's path starts at an instance whose class is an upper
    /// bound (`self`, an annotated name), not an exact class.
    static UPPER_BOUND: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
    /// Value symbols the path of the current reference passes through, with the evidence
    /// at that step (`CONFIG` in `CONFIG.load()`, `repo` in `self.repo.find()`).
    static VALUES: RefCell<Vec<(i64, &'static str)>> = const { RefCell::new(Vec::new()) };
    /// The first class, enum or namespace the path of the current reference goes into, with
    /// its evidence and the index of its segment (`Settings` in `Settings.DEBUG`).
    static CONTAINER: std::cell::Cell<Option<(i64, &'static str, usize)>> = const { std::cell::Cell::new(None) };
    /// Where the path of the current reference stopped at its last segment: the receiver
    /// whose member of that name no class defines, with the evidence up to it (`Instance(C)`
    /// for `self.start`).
    static MISSED: std::cell::Cell<Option<(Missed, &'static str)>> = const { std::cell::Cell::new(None) };
    /// Import and re-export sites followed while answering one position (see [`Resolver::answer`]).
    static HOPS: RefCell<Vec<Hop>> = const { RefCell::new(Vec::new()) };
    /// Set while [`Resolver::answer`] runs (indexing records no hops).
    static RECORD_HOPS: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
    /// The deepest [`NESTING`] reached since it was last reset (see [`Resolver::linearization`]).
    static NESTING_PEAK: std::cell::Cell<usize> = const { std::cell::Cell::new(0) };
    /// The buffer [`Resolver::joined_qname`] joins a qname in.
    static QNAME: RefCell<String> = const { RefCell::new(String::new()) };
    /// How deeply path resolutions are nested on this thread (see [`paths::Nested`]).
    static NESTING: std::cell::Cell<usize> = const { std::cell::Cell::new(0) };
}

/// The stored form of a lookup key: qnames (`q:`), module paths (`path:`, `py:`), other
/// files' exports and imports (`exports:`, `imports:`), hashed to 32 bits (the upper half of
/// their 64-bit hash).
pub fn lookup_key(key: &str) -> u32 {
    short_hash(key.as_bytes())
}

/// The upper 32 bits of the 64-bit hash of `bytes`.
fn short_hash(bytes: &[u8]) -> u32 {
    (xxhash_rust::xxh3::xxh3_64(bytes) >> 32) as u32
}

/// Whether a name is a Python builtin that does not call what it is passed (`len`,
/// `isinstance`; not `map`, `filter`, `sorted`…).
pub(crate) fn is_plain_python_builtin(name: &str) -> bool {
    builtins::PYTHON.contains(&name) && !builtins::CALLBACKS.iter().any(|(n, _)| n.strip_prefix("<builtin>.") == Some(name))
}

/// Records that the file being resolved depends on the key `kind` + `name` (`q:` and a qname):
/// the key is [`lookup_key`] of the two joined, without allocating for the usual short keys
/// (this runs for every lookup resolution makes).
pub(crate) fn record(kind: &str, name: &str) {
    let mut buf = [0u8; 256];
    let len = kind.len() + name.len();
    let key = if len <= buf.len() {
        buf[..kind.len()].copy_from_slice(kind.as_bytes());
        buf[kind.len()..len].copy_from_slice(name.as_bytes());
        short_hash(&buf[..len])
    } else {
        lookup_key(&format!("{kind}{name}"))
    };
    LOOKUPS.with(|l| l.borrow_mut().push(key));
}

/// Forgets the keys recorded so far: a file's resolution, or an answer, starts.
fn start_recording() {
    LOOKUPS.with(|l| l.borrow_mut().clear());
    REUSED.with(|r| r.borrow_mut().clear());
}

/// Where the keys recorded from now on start (see [`Kept::since`]): in [`LOOKUPS`] and in
/// [`REUSED`].
type Mark = (usize, usize);

fn recorded_mark() -> Mark {
    (LOOKUPS.with(|l| l.borrow().len()), REUSED.with(|r| r.borrow().len()))
}

/// The keys recorded since `mark`, ascending, each once. The answers reused more than once
/// since then are counted once (by address: each is held in [`REUSED`] meanwhile).
fn recorded_since(mark: Mark) -> Vec<u32> {
    let mut keys = LOOKUPS.with(|l| l.borrow()[mark.0..].to_vec());
    REUSED.with(|r| {
        let mut reused: Vec<&Arc<[u32]>> = Vec::new();
        let r = r.borrow();
        reused.extend(&r[mark.1..]);
        reused.sort_unstable_by_key(|k| k.as_ptr());
        reused.dedup_by_key(|k| k.as_ptr());
        for k in reused {
            keys.extend_from_slice(k);
        }
    });
    sorted_distinct(keys)
}

/// Runs `compute` and gives the deepest path nesting ([`NESTING`]) it reached, at least the
/// nesting it started at: how far an answer kept for later may be from where it was computed
/// (the MROs), or whether it resolved a path at all (modules' members).
fn deepest_nesting_of<T>(compute: impl FnOnce() -> T) -> (T, usize) {
    let nesting = NESTING.with(|n| n.get());
    let peak = NESTING_PEAK.with(|p| p.replace(nesting));
    let value = compute();
    let reached = NESTING_PEAK.with(|p| {
        let reached = p.get();
        p.set(reached.max(peak));
        reached
    });
    (value, reached)
}

/// An answer the resolver keeps for later, with the lookup keys its computation recorded: each
/// file that reuses it depends on them as if it had computed the answer itself.
struct Kept<V> {
    value: V,
    /// Ascending, each once (a barrel module's member reads the same module paths and exports
    /// again for each star re-export it goes through).
    keys: Arc<[u32]>,
}

impl<V> Kept<V> {
    /// `value`, computed since `mark` ([`recorded_mark`]).
    fn since(mark: Mark, value: V) -> Arc<Kept<V>> {
        Arc::new(Kept { value, keys: recorded_since(mark).into() })
    }

    /// The value, its keys recorded again for the file being resolved now.
    fn reuse(&self) -> &V {
        REUSED.with(|r| r.borrow_mut().push(self.keys.clone()));
        &self.value
    }
}

/// The receiver a path stopped at ([`MISSED`]): an instance of a class, `super()` of a class,
/// or the class itself.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Missed {
    Instance(i64),
    Super(i64),
    Class(i64),
}

/// What a name or path denotes during resolution.
#[derive(Clone, Debug, PartialEq, Eq)]
enum Target {
    Sym(i64),
    Module(i64),
    /// A Python namespace package (a folder of modules with no `__init__.py`).
    Package(String),
    External(String),
    /// An instance of a class in the repository (from `Foo()`, `new Foo()`, an annotation).
    Instance(i64),
    /// `super` inside a class: members are looked up after the class in its MRO.
    Super(i64),
    /// A dict or list literal, with where it was written (file, enclosing symbol).
    Items(i64, i64, Vec<(String, ValueSource)>),
    /// A local or module variable whose value is not known.
    Opaque,
}

/// The resolver's hash maps: keyed by ids and qnames built in this process, so a fast
/// non-cryptographic hasher (building them is most of a one-file update's resolution). Also
/// for the query layer's walks.
pub type Map<K, V> = HashMap<K, V, foldhash::fast::RandomState>;
pub type Set<K> = HashSet<K, foldhash::fast::RandomState>;

/// The indexes resolution needs over the loaded facts.
pub struct Resolver<'a> {
    input: &'a ResolveInput,
    files: Map<i64, usize>,
    modules: modules::ModuleIndex<'a>,
    by_qname: Map<&'a str, usize>,
    by_id: IdIndex,
    module_sym: Map<i64, i64>,
    imports: Map<i64, Vec<&'a ImportRow>>,
    exports: Map<i64, Vec<usize>>,
    builtins_py: Set<&'static str>,
    builtins_script: Set<&'static str>,
    /// Every repository method by name (the heuristic tier binds a name only one has;
    /// overrides are found among them).
    /// Methods by language family (`true`: TS/JS) and name ([`heuristic::methods_by_name`]).
    methods: Map<(bool, &'a str), Vec<i64>>,
    common_methods: Set<&'static str>,
    /// Value symbols' functions of their own ([`Resolver::function_members`]).
    function_members: std::sync::OnceLock<Map<i64, Vec<i64>>>,
    /// The interfaces (and type aliases) with members of their own ([`Resolver::has_members`]).
    types_with_members: std::sync::OnceLock<Set<i64>>,
    /// Classes' MROs as computed with nothing else being looked up ([`Resolver::linearization`]).
    mros: std::sync::RwLock<Map<i64, std::sync::Arc<Kept<classes::Linearized>>>>,
    /// Modules' members as looked up with nothing else being looked up, by (module file,
    /// hops so far) and name ([`Resolver::module_member`]).
    members: std::sync::RwLock<MemberMemo>,
}

type MemberMemo = Map<(i64, usize), Map<Box<str>, std::sync::Arc<Kept<Option<Target>>>>>;

/// Symbols' positions by id. Ids are row ids, dense in practice: then a vector indexed by id
/// (built and read without hashing), else a map.
enum IdIndex {
    Dense(Vec<u32>),
    Sparse(Map<i64, usize>),
}

impl IdIndex {
    const NONE: u32 = u32::MAX;

    fn new(symbols: &[SymbolRow]) -> IdIndex {
        let Some((min, max)) = symbols.iter().map(|s| (s.id, s.id)).reduce(|(lo, hi), (id, _)| (lo.min(id), hi.max(id))) else {
            return IdIndex::Dense(Vec::new());
        };
        let dense = min >= 0 && max < (4 * symbols.len() as i64).max(1 << 16) && symbols.len() < Self::NONE as usize;
        if !dense {
            return IdIndex::Sparse(symbols.iter().enumerate().map(|(i, s)| (s.id, i)).collect());
        }
        let mut at = vec![Self::NONE; max as usize + 1];
        for (i, s) in symbols.iter().enumerate() {
            at[s.id as usize] = i as u32;
        }
        IdIndex::Dense(at)
    }

    fn get(&self, id: i64) -> Option<usize> {
        match self {
            IdIndex::Dense(at) => {
                let i = *at.get(usize::try_from(id).ok()?)?;
                (i != Self::NONE).then_some(i as usize)
            }
            IdIndex::Sparse(map) => map.get(&id).copied(),
        }
    }
}

self_cell::self_cell!(
    /// Stored names with the resolver's indexes built over them once: for a long-lived
    /// caller that binds many names against one generation (the service's `def`), which
    /// would otherwise rebuild the indexes for each.
    pub struct BoundNames {
        owner: ResolveInput,
        #[covariant]
        dependent: Resolver,
    }
);

impl BoundNames {
    /// Builds the resolver's indexes over `names`.
    pub fn bind(names: ResolveInput) -> BoundNames {
        BoundNames::new(names, |input| Resolver::new(input))
    }

    pub fn resolver(&self) -> &Resolver<'_> {
        self.borrow_dependent()
    }
}

impl<'a> Resolver<'a> {
    pub fn new(input: &'a ResolveInput) -> Resolver<'a> {
        // Built side by side: on a one-file update this is most of resolution's time.
        let ((by_qname, by_id), (methods, (files, module_sym, imports, exports, modules))) = rayon::join(
            || {
                rayon::join(
                    || input.symbols.iter().enumerate().map(|(i, s)| (s.qname.as_str(), i)).collect(),
                    || IdIndex::new(&input.symbols),
                )
            },
            || rayon::join(|| heuristic::methods_by_name(input), || Resolver::file_maps(input)),
        );
        Resolver {
            input,
            files,
            modules,
            by_qname,
            by_id,
            module_sym,
            imports,
            exports,
            builtins_py: builtins::PYTHON.iter().copied().collect(),
            builtins_script: builtins::SCRIPT.iter().copied().collect(),
            methods,
            common_methods: builtins::COMMON_METHODS.iter().copied().collect(),
            function_members: std::sync::OnceLock::new(),
            types_with_members: std::sync::OnceLock::new(),
            mros: std::sync::RwLock::default(),
            members: std::sync::RwLock::default(),
        }
    }

    /// The per-file maps: files by id, each file's module symbol, imports and exports, and the
    /// module index.
    #[allow(clippy::type_complexity)]
    fn file_maps(
        input: &'a ResolveInput,
    ) -> (Map<i64, usize>, Map<i64, i64>, Map<i64, Vec<&'a ImportRow>>, Map<i64, Vec<usize>>, modules::ModuleIndex<'a>) {
        let files = input.files.iter().enumerate().map(|(i, f)| (f.id, i)).collect();
        let module_sym = input.symbols.iter().filter(|s| s.kind == SymbolKind::Module).filter_map(|s| s.file.map(|f| (f, s.id))).collect();
        let mut imports: Map<i64, Vec<&ImportRow>> = Map::default();
        for i in &input.imports {
            imports.entry(i.file).or_default().push(i);
        }
        let mut exports: Map<i64, Vec<usize>> = Map::default();
        for (k, e) in input.exports.iter().enumerate() {
            exports.entry(e.file).or_default().push(k);
        }
        (files, module_sym, imports, exports, modules::ModuleIndex::new(&input.files, &input.configs))
    }

    fn sym(&self, id: i64) -> Option<&'a SymbolRow> {
        self.by_id.get(id).map(|i| &self.input.symbols[i])
    }

    /// Whether a TS/JS value symbol is an object literal with functions of its own (only
    /// script files have them; Python's values are not looked at, which keeps the one-time
    /// index of [`Resolver::function_members`] off Python's paths).
    fn script_object(&self, sym: &SymbolRow) -> bool {
        sym.file.is_some_and(|f| self.file_lang(f).is_script()) && !self.function_members(sym.id).is_empty()
    }

    /// The functions a value symbol has as members of its own (an object literal's methods:
    /// `const api = { get() {}, post: function () {} }`). Computed once, when first asked.
    fn function_members(&self, id: i64) -> &[i64] {
        let members = self.function_members.get_or_init(|| {
            let mut by_parent: Map<i64, Vec<i64>> = Map::default();
            for s in self.input.symbols.iter().filter(|s| matches!(s.kind, SymbolKind::Function | SymbolKind::Method)) {
                if let Some(p) = s.parent.filter(|&p| self.sym(p).is_some_and(|p| p.kind.is_value())) {
                    by_parent.entry(p).or_default().push(s.id);
                }
            }
            by_parent
        });
        members.get(&id).map(Vec::as_slice).unwrap_or_default()
    }

    /// Whether an interface declares members (`interface Repo { save(): void }`), unlike one of
    /// a call signature only (`interface Make { (x): y }`). Computed once, when first asked.
    fn has_members(&self, id: i64) -> bool {
        if let Some(s) = self.sym(id) {
            record("members:", &s.qname);
        }
        let typed = self.types_with_members.get_or_init(|| {
            let is_type = |p: i64| self.sym(p).is_some_and(|p| matches!(p.kind, SymbolKind::Interface | SymbolKind::Type));
            self.input.symbols.iter().filter_map(|s| s.parent).filter(|&p| is_type(p)).collect()
        });
        typed.contains(&id)
    }

    fn qname(&self, q: &str) -> Option<&'a SymbolRow> {
        record("q:", q);
        self.by_qname.get(q).map(|&i| &self.input.symbols[i])
    }

    fn file_lang(&self, file: i64) -> Lang {
        self.files.get(&file).map(|&i| self.input.files[i].lang).unwrap_or(Lang::TypeScript)
    }

    fn file_path(&self, file: i64) -> &'a str {
        self.files.get(&file).map(|&i| self.input.files[i].path.as_str()).unwrap_or("")
    }

    fn exports_of(&self, file: i64) -> &[usize] {
        record("exports:", self.file_path(file));
        self.exports.get(&file).map(Vec::as_slice).unwrap_or(&[])
    }

    fn imports_of(&self, file: i64) -> &[&'a ImportRow] {
        record("imports:", self.file_path(file));
        self.imports.get(&file).map(Vec::as_slice).unwrap_or(&[])
    }

    fn module_qname(&self, file: i64) -> Option<&'a str> {
        self.files.get(&file).map(|&i| self.input.files[i].module.as_str())
    }

    /// The symbol `{prefix}{sep}{name}`, joined in a buffer of this thread's (qnames are looked
    /// up for every member of every path resolution walks).
    fn joined_qname(&self, prefix: &str, sep: char, name: &str) -> Option<&'a SymbolRow> {
        QNAME.with(|q| {
            let mut q = q.borrow_mut();
            q.clear();
            q.push_str(prefix);
            q.push(sep);
            q.push_str(name);
            self.qname(&q)
        })
    }

    /// A direct member of a symbol (`mod#name` for a TS module, `mod.name`).
    fn member_of(&self, parent: &SymbolRow, name: &str) -> Option<&'a SymbolRow> {
        let script_module = parent.kind == SymbolKind::Module && parent.file.is_some_and(|f| self.file_lang(f).is_script());
        self.joined_qname(&parent.qname, if script_module { '#' } else { '.' }, name)
    }
}

/// The weaker of two evidence tiers.
fn weaker(a: &'static str, b: &'static str) -> &'static str {
    let rank = |e: &str| match e {
        EXACT => 3,
        INFERRED => 2,
        HEURISTIC => 1,
        _ => 0,
    };
    if rank(a) <= rank(b) { a } else { b }
}

/// One resolved file: its edges, sorted by site, and the keys its resolution looked up.
pub struct FileResolution {
    pub file: i64,
    pub edges: Vec<EdgeRow>,
    /// The keys its resolution looked up ([`lookup_key`]), ascending, each once.
    pub keys: Vec<u32>,
}

/// The files to resolve (all when `only` is `None`), ascending: the order edges are stored in.
pub fn files_to_resolve(input: &ResolveInput, only: Option<&HashSet<i64>>) -> Vec<i64> {
    let mut files: Vec<i64> = input.files.iter().map(|f| f.id).filter(|id| only.is_none_or(|o| o.contains(id))).collect();
    files.sort_unstable();
    files
}

/// How many files one batch of [`resolve_into`] hands to its sink: few, so that the sink (the
/// writer of a full index's edges, its critical path after the parse) starts while most files
/// are still to resolve. With 256, pytest's 282 files were one batch: the writer waited for
/// nearly all of resolution, then wrote every edge alone on one core (resolve stage of
/// `ckg index --json`, 9 alternating runs: pytest 124 -> 100 ms, ra-core 85 -> 65 ms; django,
/// in twelve batches before, unchanged).
const BATCH: usize = 16;

/// How many resolved files may wait for the sink, in the channel: helpers that run ahead of
/// it stop there rather than hold every file's edges. Room for the files resolved while a full
/// index's sink builds the fact tables' indexes before its first batch (django: ~75 ms): with
/// room for 512, the helper stopped there and the second core idled. With room for every file,
/// `resolve` of `ckg index --json`: django 335-363 -> 309-318 ms, gen-py-1m 529 -> 462 ms,
/// peaks 202 -> 211 MiB and 249 -> 256 MiB; with 4096, `benches/full_ab.py` (5 rounds): django
/// 1.71 -> 1.68 s, gen-py-1m (4,989 files) 2.78 -> 2.68 s.
const WAITING: usize = 4096;

/// Resolves `files` (ascending) in parallel and hands their resolution to `sink` on the calling
/// thread, in batches of consecutive files, while the next files are resolved (a full index
/// writes its edges meanwhile). Each file's edges are sorted by site, so the batches in order
/// are the sorted edges of all files, whatever the thread scheduling. Stops at the sink's first
/// error.
///
/// Helper threads (one fewer than the pool's) take the files one at a time, in order; the
/// calling thread puts what they send back in file order, hands each full batch to the sink,
/// and resolves a file itself whenever the next one in order is not ready. Two cores then run
/// two threads: the sink, the critical path of a full index (writing django's edges takes
/// longer than resolving them on one core), is not time-shared with two resolving threads, as
/// it was when the whole pool resolved each batch in turn (`par_iter`, the cores ~85 % busy).
///
/// The sink is first given an empty batch, while the helpers' thread has the resolver made
/// (on the pool): a full index builds the fact tables' indexes then.
pub fn resolve_into<E>(input: &ResolveInput, files: &[i64], mut sink: impl FnMut(Vec<FileResolution>) -> Result<(), E>) -> Result<(), E> {
    // Each batch's files in order are its edges in order (below).
    debug_assert!(files.is_sorted());
    // Made by the helpers' thread while the sink takes its empty batch (or here, when that
    // thread has not begun to).
    let made = std::sync::OnceLock::new();
    let resolver = || made.get_or_init(|| Resolver::new(input));
    let refs_by_file: Map<i64, &crate::store::FileRefs> = input.refs.iter().map(|r| (r.file, r)).collect();
    let next = std::sync::atomic::AtomicUsize::new(0);
    // The next file to resolve, taken by one thread only.
    let take = || {
        let at = next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        files.get(at).map(|&file| (at, file))
    };
    let resolve = |(at, file): (usize, i64)| {
        let sites: Vec<RefSite> = refs_by_file.get(&file).map(|r| r.sites().collect()).unwrap_or_default();
        let (edges, keys) = resolver().resolve_file(file, &sites);
        Resolved { at, resolution: FileResolution { file, edges, keys } }
    };
    let helpers = if files.len() > 1 { rayon::current_num_threads().saturating_sub(1) } else { 0 };
    // Bounded ([`WAITING`]): with more helpers than a sink keeps up with, they wait rather than
    // hold every file's edges (the sink ends the phase either way). The calling thread never
    // sends, and takes all there is before it waits, so a helper blocked here is always let go.
    let (sender, receiver) = std::sync::mpsc::sync_channel::<Resolved>(WAITING);
    std::thread::scope(|scope| {
        // Dropped on the sink's error: the helpers stop at their next file.
        let receiver = receiver;
        let (take, resolve, resolver) = (&take, &resolve, &resolver);
        // On the pool's threads, whose heaps already hold the resolver's maps (made there).
        scope.spawn(move || {
            resolver();
            rayon::scope(|pool| {
                for _ in 0..helpers {
                    let sender = sender.clone();
                    pool.spawn(move |_| {
                        while let Some(job) = take() {
                            if sender.send(resolve(job)).is_err() {
                                return;
                            }
                        }
                    });
                }
            });
        });
        sink(Vec::new())?;
        let mut in_order = InOrder::new(files.len());
        // Each file's edges stay in the vector they were resolved into (copied into one per
        // batch, the copies and the pages they faulted in were ~1 % of django's full index).
        let mut batch = Vec::with_capacity(BATCH);
        loop {
            for resolved in receiver.try_iter() {
                in_order.insert(resolved);
            }
            while let Some(Resolved { resolution, .. }) = in_order.pop_next() {
                batch.push(resolution);
                if batch.len() == BATCH || in_order.done() {
                    sink(std::mem::replace(&mut batch, Vec::with_capacity(BATCH)))?;
                }
            }
            if in_order.done() {
                break;
            }
            // The next file in order is still being resolved: resolve another one here, or,
            // when none is left to take, wait for the helpers.
            match take() {
                Some(job) => in_order.insert(resolve(job)),
                None => match receiver.recv() {
                    Ok(resolved) => in_order.insert(resolved),
                    Err(_) => break, // a helper panicked: the scope raises it
                },
            }
        }
        Ok(())
    })
}

/// The files [`resolve_into`]'s threads have resolved, given back in file order.
struct InOrder {
    /// Resolved, not yet given back: those after a file still being resolved.
    waiting: std::collections::BTreeMap<usize, Resolved>,
    /// The position of the next file to give back.
    next: usize,
    total: usize,
}

impl InOrder {
    fn new(total: usize) -> InOrder {
        InOrder { waiting: Default::default(), next: 0, total }
    }

    fn insert(&mut self, resolved: Resolved) {
        self.waiting.insert(resolved.at, resolved);
    }

    /// The next file in order, once it is resolved.
    fn pop_next(&mut self) -> Option<Resolved> {
        let resolved = self.waiting.remove(&self.next)?;
        self.next += 1;
        Some(resolved)
    }

    /// Whether every file has been given back.
    fn done(&self) -> bool {
        self.next == self.total
    }
}

/// One file's resolution, as a thread of [`resolve_into`] sends it.
struct Resolved {
    /// The file's position in the files to resolve.
    at: usize,
    resolution: FileResolution,
}

impl Resolver<'_> {
    /// Resolves one file: its edges, sorted by site, and the keys its resolution looked up.
    fn resolve_file(&self, file: i64, refs: &[RefSite]) -> (Vec<EdgeRow>, Vec<u32>) {
        start_recording();
        // By site (`file_edges` sorts them so): each file's edges are stored as one ascending
        // range of ids. Sorted on the thread that resolved them: every edge of a file has its
        // site in that file, so the files in order are their edges in order.
        let mut edges = self.file_edges(file, refs);
        debug_assert!(edges.iter().all(|e| e.file == file));
        // Edges whose source is not this file's own are found by their own index (the store
        // has no index of every edge's source: a source's edges are in its file's range).
        for e in &mut edges {
            e.remote_src = self.sym(e.src).and_then(|s| s.file) != Some(file);
        }
        debug_assert!(edges.is_sorted_by_key(|e| (e.line, e.col)));
        let keys = recorded_since((0, 0));
        // The answers reused are let go; the buffers keep their room for the next file.
        start_recording();
        (edges, keys)
    }
}

/// The keys in ascending order, each once. A file's keys can be thousands, most of them distinct
/// on TypeScript: they are sorted a byte at a time (least significant first), in four passes
/// that each count then place them.
fn sorted_distinct(mut sorted: Vec<u32>) -> Vec<u32> {
    if sorted.len() <= 64 {
        sorted.sort_unstable();
    } else {
        let mut placed = vec![0u32; sorted.len()];
        for shift in [0, 8, 16, 24] {
            let byte = |k: u32| (k >> shift) as usize & 0xff;
            let mut starts = [0usize; 256];
            for &k in &sorted {
                starts[byte(k)] += 1;
            }
            let mut at = 0;
            for start in &mut starts {
                (*start, at) = (at, at + *start);
            }
            for &k in &sorted {
                placed[starts[byte(k)]] = k;
                starts[byte(k)] += 1;
            }
            std::mem::swap(&mut sorted, &mut placed);
        }
    }
    sorted.dedup();
    sorted
}
/// Resolves the given files (all when `only` is `None`), in file order.
pub fn resolve(input: &ResolveInput, only: Option<&HashSet<i64>>) -> Vec<FileResolution> {
    let mut all = Vec::new();
    let files = files_to_resolve(input, only);
    let Ok(()) = resolve_into::<std::convert::Infallible>(input, &files, |batch| {
        all.extend(batch);
        Ok(())
    });
    all
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rows(ids: &[i64]) -> Vec<SymbolRow> {
        ids.iter().map(|&id| SymbolRow::function(id, &format!("m.s{id}"), 1)).collect()
    }

    /// Keys come out ascending and each once, however many there are (the byte passes from
    /// 65 on) and however they repeat, the extremes of the range among them.
    #[test]
    fn keys_are_sorted_and_distinct() {
        let mut state = 0x2545_f491_4f6c_dd1d_u64;
        let mut next = || {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            state
        };
        for n in [0usize, 1, 2, 64, 65, 300, 10_000] {
            let keys: Vec<u32> = (0..n)
                .map(|i| match i % 4 {
                    0 => (next() >> 56) as u32,
                    1 if i % 8 == 1 => u32::MAX,
                    _ => (next() >> 32) as u32,
                })
                .collect();
            let mut expected = keys.clone();
            expected.sort_unstable();
            expected.dedup();
            assert_eq!(sorted_distinct(keys), expected, "{n} keys");
        }
    }

    /// The sink gets an empty batch, then every file once, in file order, in batches of
    /// [`BATCH`] files (the last one shorter), whatever thread resolved each; and a sink's
    /// error ends the run with it.
    #[test]
    fn files_reach_the_sink_in_order_and_an_error_stops_them() {
        let input = ResolveInput {
            files: (1..=1000)
                .map(|id| crate::store::FileRow { id, path: format!("m{id}.py"), lang: Lang::Python, module: format!("m{id}") })
                .collect(),
            ..ResolveInput::default()
        };
        let files: Vec<i64> = (1..=1000).collect();
        let mut batches = Vec::new();
        let Ok(()) = resolve_into::<std::convert::Infallible>(&input, &files, |batch| {
            batches.push(batch.iter().map(|f| f.file).collect::<Vec<i64>>());
            Ok(())
        });
        let mut sizes = vec![0];
        sizes.extend(vec![BATCH; 1000 / BATCH]);
        sizes.extend(Some(1000 % BATCH).filter(|&n| n > 0));
        assert_eq!(batches.iter().map(Vec::len).collect::<Vec<_>>(), sizes);
        assert_eq!(batches.concat(), files);
        let mut calls = 0;
        let failed = resolve_into(&input, &files, |_| {
            calls += 1;
            if calls == 2 { Err("full disk") } else { Ok(()) }
        });
        assert_eq!((failed, calls), (Err("full disk"), 2));
    }

    /// An answer to a query (`ckg def`, the service) starts from no recorded keys: a thread
    /// that answers many does not keep the keys of all of them.
    #[test]
    fn answers_do_not_pile_up_lookup_keys() {
        let input = ResolveInput {
            files: vec![crate::store::FileRow { id: 1, path: "m.py".into(), lang: Lang::Python, module: "m".into() }],
            symbols: rows(&[1]),
            ..ResolveInput::default()
        };
        let resolver = Resolver::new(&input);
        let fact = crate::extract::PositionFact::Use {
            src: "m.s1".into(),
            path: "pkg.helper.run".into(),
            binding: crate::facts::LocalBinding::Free,
        };
        let recorded = || LOOKUPS.with(|l| l.borrow().len()) + REUSED.with(|r| r.borrow().len());
        resolver.answer(1, &fact, &[]);
        let once = recorded();
        assert!(once > 0, "an answer records the keys it looks up");
        for _ in 0..50 {
            resolver.answer(1, &fact, &[]);
        }
        assert_eq!(recorded(), once);
    }

    /// The dense index answers as a map from id to position would, on dense, unsorted,
    /// repeated and far-apart ids (the last position of a repeated id, like a map's insert).
    #[test]
    fn symbols_by_id_answer_as_a_map_would() {
        for ids in [vec![], vec![5, 1, 3, 2], vec![1, 2, 2, 7], vec![1, 1 << 40, 3], vec![-4, 2]] {
            let symbols = rows(&ids);
            let index = IdIndex::new(&symbols);
            let map: std::collections::HashMap<i64, usize> = symbols.iter().enumerate().map(|(i, s)| (s.id, i)).collect();
            let dense = matches!(index, IdIndex::Dense(_));
            assert_eq!(dense, !ids.iter().any(|&id| !(0..1 << 40).contains(&id)), "{ids:?}");
            for id in [-4, -1, 0, 1, 2, 3, 4, 5, 6, 7, 8, 1 << 40, i64::MAX, i64::MIN] {
                assert_eq!(index.get(id), map.get(&id).copied(), "{ids:?} at {id}");
            }
        }
    }
}
