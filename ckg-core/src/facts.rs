//! Per-file facts: what extraction produces from one file, with no knowledge of any other file.
//!
//! Facts are the input of resolution. They are stored as they are (`refs`, `imports`,
//! `exports`, `vars` tables) so that a later run can re-resolve a file without parsing it again.

use serde::{Deserialize, Serialize};

use crate::lang::Lang;

/// What a definition is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum SymbolKind {
    Module,
    Function,
    Method,
    Class,
    Interface,
    Type,
    Enum,
    /// A module-level (or namespace-level) variable: TS/JS `let`/`var`, a Python assignment;
    /// also a `const` object literal with methods (which are its members).
    Variable,
    /// An instance attribute: a class field, `self.x` / `this.x`, a constructor parameter
    /// property.
    Property,
    Lambda,
    /// A node outside the repository: a package, a member used from it, or a builtin.
    External,
    /// A module-level TS/JS `const` (not a function or class), a Python module-level
    /// UPPER_CASE name, a TS enum member, an `export default <expression>`.
    Constant,
    /// A Python class attribute (an assignment in a class body).
    Attribute,
    /// A TS `namespace` / `module` block.
    Namespace,
}

impl SymbolKind {
    pub const ALL: [SymbolKind; 14] = [
        SymbolKind::Module,
        SymbolKind::Function,
        SymbolKind::Method,
        SymbolKind::Class,
        SymbolKind::Interface,
        SymbolKind::Type,
        SymbolKind::Enum,
        SymbolKind::Variable,
        SymbolKind::Property,
        SymbolKind::Lambda,
        SymbolKind::External,
        SymbolKind::Constant,
        SymbolKind::Attribute,
        SymbolKind::Namespace,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            SymbolKind::Module => "module",
            SymbolKind::Function => "function",
            SymbolKind::Method => "method",
            SymbolKind::Class => "class",
            SymbolKind::Interface => "interface",
            SymbolKind::Type => "type",
            SymbolKind::Enum => "enum",
            SymbolKind::Variable => "variable",
            SymbolKind::Property => "property",
            SymbolKind::Lambda => "lambda",
            SymbolKind::External => "external",
            SymbolKind::Constant => "constant",
            SymbolKind::Attribute => "attribute",
            SymbolKind::Namespace => "namespace",
        }
    }

    pub fn parse(s: &str) -> Option<SymbolKind> {
        SymbolKind::ALL.into_iter().find(|k| k.as_str() == s)
    }

    /// What a call can run: functions, methods, lambdas, classes (instantiation).
    pub fn is_callable(self) -> bool {
        matches!(self, SymbolKind::Function | SymbolKind::Method | SymbolKind::Lambda | SymbolKind::Class)
    }

    /// Classes and what behaves like one for member lookups (interfaces, enums, type aliases
    /// of object types, whose bases are the types they intersect or unite).
    pub fn is_class_like(self) -> bool {
        matches!(self, SymbolKind::Class | SymbolKind::Interface | SymbolKind::Enum | SymbolKind::Type)
    }

    /// Symbols that hold a value: reading them is a reference, assigning them a write, and
    /// calling through them calls what they hold.
    pub fn is_value(self) -> bool {
        matches!(self, SymbolKind::Variable | SymbolKind::Constant | SymbolKind::Attribute | SymbolKind::Property)
    }
}

/// The mark of a base that a class implements rather than extends: its members are the
/// class's as an interface's are (a call through the interface may run them), but no
/// constructor runs through it.
pub const IMPLEMENTED: &str = "implements ";

/// A definition in a file. `qname` is complete (module prefix included) and unique in the file.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct SymbolFact {
    pub qname: String,
    pub name: String,
    pub kind: SymbolKind,
    /// Index of the enclosing definition in `FileFacts::symbols` (0 is the module itself).
    pub parent: Option<u32>,
    /// 1-based line and column (UTF-8 bytes) of the name (or of the node when anonymous).
    pub line: u32,
    pub col: u32,
    pub end_line: u32,
    /// Declared with `export` (TS/JS) or listed in `__all__` (Python).
    pub exported: bool,
    /// Base classes of a class, as written (`Base`, `mod.Base`), in declaration order; what a
    /// TS/JS class implements after [`IMPLEMENTED`] (`implements Repo`).
    pub bases: Vec<String>,
    /// The declared or obvious type: a function's return (an annotation, or the class of its
    /// only `return Foo(...)`), a property's annotation (`svc: UserService`).
    pub ty: Option<ValueSource>,
    /// Decorators as written (`property`, `app.route`), outermost first.
    pub decorators: Vec<String>,
    /// Python: uses of this function's parameters as callees (`def apply(f): f()`), so the
    /// resolver can bind them to what each call site passes.
    pub param_uses: Vec<ParamUse>,
    /// TS/JS: the declared types of a function's parameters by position, as written paths
    /// (`Props` for `(props: Props)`; empty for a parameter without one), so that an object
    /// literal passed there, or a JSX attribute of a component, names a member of the type.
    pub param_types: Vec<String>,
}

/// A call through a parameter: `f(x)` or `cart.checkout()` inside the function that has the
/// parameter (or inside a function nested in it).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ParamUse {
    /// Position of the parameter among the arguments a call passes (`self`/`cls` of a method
    /// not counted); `None` when it can only be passed by keyword.
    pub index: Option<u32>,
    pub name: String,
    /// The qname of the function whose code makes the call (the function itself or a nested one).
    /// Stored empty when it is the function itself ([`encode_param_uses`]).
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub caller: String,
    /// The rest of the called path after the parameter (`checkout` for `cart.checkout()`).
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub rest: String,
    /// The call is on each element of the parameter (`for c in checks: c()`).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub each: bool,
    /// Not a call: the parameter is passed on to another call, whose callee may call it
    /// (`maybeMap(obj, encoder)`, `map(fn, xs)`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub via: Option<Forward>,
}

/// A call that a parameter is passed on to, as its caller wrote it: the callee's path (a name
/// of the module's scope, or a member of `self` / `this`), and the argument's key there
/// (`"1"`, or a keyword).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Forward {
    pub callee: String,
    pub key: String,
}

/// The stored form of a symbol's parameter uses: [`encode_list`], with the caller left out of
/// the uses the function makes itself (most of them).
pub fn encode_param_uses(qname: &str, uses: &[ParamUse]) -> Option<String> {
    if uses.iter().all(|u| u.caller != qname) {
        return encode_list(uses);
    }
    let own = |u: &ParamUse| ParamUse { caller: if u.caller == qname { String::new() } else { u.caller.clone() }, ..u.clone() };
    encode_list(&uses.iter().map(own).collect::<Vec<_>>())
}

/// The parameter uses [`encode_param_uses`] stored for the symbol `qname`.
pub fn decode_param_uses(qname: &str, s: Option<&str>) -> Vec<ParamUse> {
    let mut uses: Vec<ParamUse> = decode_list(s);
    for u in uses.iter_mut().filter(|u| u.caller.is_empty()) {
        u.caller = qname.to_string();
    }
    uses
}

/// The stored form of a list of facts (a symbol's parameter uses, a call's arguments): one
/// JSON array, `None` when the list is empty.
pub fn encode_list<T: Serialize>(items: &[T]) -> Option<String> {
    (!items.is_empty()).then(|| serde_json::to_string(items).unwrap_or_default())
}

/// The list [`encode_list`] stored (empty for `None`).
pub fn decode_list<T: serde::de::DeserializeOwned>(s: Option<&str>) -> Vec<T> {
    s.and_then(|s| serde_json::from_str(s).ok()).unwrap_or_default()
}

/// What a segment of a written path does after naming a member.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Step {
    /// `a`: the member itself.
    Member,
    /// `a()`: what calling it gives.
    Call,
    /// `a(#1)`: an instance of the declared type of its parameter at that position (a key of an
    /// object literal passed there, a JSX attribute: `Comp(#0).title`).
    Param(u32),
}

/// A path segment's name and its [`Step`].
pub fn split_segment(seg: &str) -> (&str, Step) {
    if let Some(name) = seg.strip_suffix("()") {
        return (name, Step::Call);
    }
    // Only a segment ending in `)` can be `name(#i)`: the others (nearly all) are not searched
    // for `(#`, whose searcher costs ~200 instructions to set up.
    if seg.ends_with(')')
        && let Some((name, rest)) = seg.split_once("(#")
        && let Some(i) = rest.strip_suffix(')').and_then(|i| i.parse().ok())
    {
        return (name, Step::Param(i));
    }
    (seg, Step::Member)
}

/// The syntactic form of a reference site.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum RefKind {
    /// `f()`, `a.b.c()`.
    Call,
    /// `new Foo()`.
    New,
    /// An identifier or member expression passed as an argument.
    Argument,
    /// `<Foo/>`.
    Jsx,
    /// `@dec` (the decorator is called).
    Decorator,
    /// A type annotation.
    Type,
    /// `extends` / Python base classes.
    Inherits,
    /// `implements`.
    Implements,
    /// The object of a member access (`Color.Red`): kept only when it names an enum.
    Member,
    /// An attribute read (`rect.area`): an edge only when it runs a property getter.
    Read,
    /// An assignment that rebinds a member of a module, a class or an object from outside
    /// (`mod.func = fake`, `setattr(Cls, "m", f)`): monkey-patching, a completeness gap.
    Patch,
    /// An assignment to a binding of another scope or file (`counter++` in a function,
    /// `global x; x = 1`, `self.count += 1`): a `writes` edge.
    Write,
    /// The context manager of a Python `with` (`with ctx:`, `with self.lock():`): its
    /// class's `__enter__` and `__exit__` run there.
    With,
    /// A key of a TS/JS object literal or destructuring pattern, or a JSX attribute: the
    /// member of the type its object is checked against (`f({ a: 1 })`, `const { a } = g()`,
    /// `<Comp a="x"/>`), a `references` edge when that type is known.
    Key,
    /// What a Python `for` loop or comprehension iterates over (`for row in table:`): its
    /// class's `__iter__` runs there, and the `__next__` of the iterator that returns.
    Iter,
    /// The context manager of an `async with`: its class's `__aenter__` and `__aexit__`.
    AsyncWith,
    /// What an `async for` iterates over: `__aiter__`, and `__anext__` of what that returns.
    AsyncIter,
    /// What a Python `await` waits on: its class's `__await__` (when it is an instance).
    Await,
    /// The operand of a Python operator whose method runs (`a + b`, `a == b`, `a[k]`, `k in
    /// a`, `-a`): the path names that method (`a.__add__`, `a.__contains__`); an edge only
    /// when it is a method of the repository.
    Operator,
}

impl RefKind {
    /// A site that runs protocol methods of the value it names, not the value itself: `with`
    /// (`__enter__`, `__exit__`), `for` (`__iter__`, `__next__`), their `async` forms, `await`.
    pub fn runs_protocol(self) -> bool {
        matches!(self, RefKind::With | RefKind::Iter | RefKind::AsyncWith | RefKind::AsyncIter | RefKind::Await)
    }

    pub const ALL: [RefKind; 19] = [
        RefKind::Call,
        RefKind::New,
        RefKind::Argument,
        RefKind::Jsx,
        RefKind::Decorator,
        RefKind::Type,
        RefKind::Inherits,
        RefKind::Implements,
        RefKind::Member,
        RefKind::Read,
        RefKind::Patch,
        RefKind::Write,
        RefKind::With,
        RefKind::Key,
        RefKind::Iter,
        RefKind::AsyncWith,
        RefKind::AsyncIter,
        RefKind::Await,
        RefKind::Operator,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            RefKind::Call => "call",
            RefKind::New => "new",
            RefKind::Argument => "argument",
            RefKind::Jsx => "jsx",
            RefKind::Decorator => "decorator",
            RefKind::Type => "type",
            RefKind::Inherits => "inherits",
            RefKind::Implements => "implements",
            RefKind::Member => "member",
            RefKind::Read => "read",
            RefKind::Patch => "patch",
            RefKind::Write => "write",
            RefKind::With => "with",
            RefKind::Key => "key",
            RefKind::Iter => "iter",
            RefKind::AsyncWith => "async_with",
            RefKind::AsyncIter => "async_iter",
            RefKind::Await => "await",
            RefKind::Operator => "operator",
        }
    }

    pub fn parse(s: &str) -> Option<RefKind> {
        RefKind::ALL.into_iter().find(|k| k.as_str() == s)
    }
}

/// The key of a TS/JS argument's `args` entry that names the call it is handed to
/// (`xs.map(f)` -> `map`); not a parameter name.
pub const CALLBACK_KEY: &str = "=callee";

/// The segment of a written path that stands for any entry of a container: a subscript whose
/// key is not a literal (`handlers[name]()` is `handlers.[*]()`).
pub const ANY_ENTRY: &str = "[*]";

/// The methods of a Python mapping that give one of its entries (`d.get(k)`).
pub const MAPPING_LOOKUPS: [&str; 3] = ["get", "pop", "setdefault"];

/// How the first segment of a reference's path is bound inside its own file, decided by
/// extraction from the file's scopes alone.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum LocalBinding {
    /// Not bound in any function or block scope: the resolver looks at module-level
    /// definitions, imports, star imports and builtins.
    Free,
    /// Bound to a definition nested in an enclosing function (its qname).
    Def(String),
    /// A local variable or parameter; `value` says where its value came from, when simple.
    Var(Option<ValueSource>),
    /// `this` / `self` / `cls` inside a class member: the enclosing class's qname.
    SelfOf(String),
    /// `super` inside a class member: the enclosing class's qname.
    SuperOf(String),
}

/// Where a variable's value came from, as written: `x = Foo()`, `x = new Foo()`, `x = a.b`,
/// or a type annotation `x: Foo`.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum ValueSource {
    Call(String),
    New(String),
    Alias(String),
    Annotation(String),
    /// A definition of the same file, by qname (`return inner`, `f = lambda: ...`).
    Def(String),
    /// An instance of the enclosing class, by qname (`return self`).
    SelfOf(String),
    /// A dict or list literal: its values by literal key or index (`{"a": f}`, `[g, h]`).
    Items(Vec<(String, ValueSource)>),
    /// Each element of a container: the loop variable of `for f in [a, b]` / `for f in fs`, a
    /// callback's element parameter (`xs.forEach((x) => …)`). Of a name declared a container of
    /// a class (`xs: List[Item]`, `items: Item[]`, an attribute, a return type), the container:
    /// its elements are `Each(Annotation(Item))`.
    Each(Box<ValueSource>),
    /// A mapping of keys to values of one kind: of a name declared `Dict[str, Item]` /
    /// `Record<string, Item>`, the mapping. An entry of it (`d[k]`) is the inner value
    /// (`Annotation(Item)`); a loop over it binds its keys, which are not followed.
    Mapping(Box<ValueSource>),
}

impl ValueSource {
    /// The type an entry (`xs[0]`, `d[k]`) of a name declared a container of a class holds:
    /// `Item` of `each:type:Item` (`List[Item]`, `Item[]`) and of `mapping:type:Item`
    /// (`Dict[str, Item]`, `Record<string, Item>`).
    pub fn declared_entry(&self) -> Option<&ValueSource> {
        match self {
            ValueSource::Each(inner) | ValueSource::Mapping(inner) if matches!(inner.as_ref(), ValueSource::Annotation(_)) => Some(inner),
            _ => None,
        }
    }

    /// A value that is any one of `values` (`c ? a : b`, `h = a` in one branch and `h = b` in
    /// another): written as the elements of a container the name takes each of, like a loop
    /// variable. Nested alternatives are flattened, repeats dropped; `None` when there are none,
    /// the value itself when there is one.
    pub fn one_of(values: impl IntoIterator<Item = ValueSource>) -> Option<ValueSource> {
        let mut flat: Vec<ValueSource> = Vec::new();
        for v in values {
            let more = match v {
                ValueSource::Each(inner) => match *inner {
                    ValueSource::Items(items) => items.into_iter().map(|(_, v)| v).collect(),
                    other => vec![ValueSource::Each(Box::new(other))],
                },
                v => vec![v],
            };
            for v in more {
                if !flat.contains(&v) {
                    flat.push(v);
                }
            }
        }
        match flat.len() {
            0 => None,
            1 => flat.pop(),
            _ => Some(ValueSource::Each(Box::new(ValueSource::Items(
                flat.into_iter().enumerate().map(|(i, v)| (i.to_string(), v)).collect(),
            )))),
        }
    }

    /// A value that may also be others it is not told about (a parameter's default, a loop
    /// variable over one known element): written as the only known one of several, so that
    /// what goes through it is `inferred`.
    pub fn possibly(self) -> ValueSource {
        match self {
            ValueSource::Each(_) => self,
            v => ValueSource::Each(Box::new(ValueSource::Items(vec![("0".to_string(), v)]))),
        }
    }

    /// Calls `f` on each written path of the value (`Foo` of `new:Foo`, the paths of its items
    /// and elements); qnames (`def:`, `self:`) are not paths.
    pub fn paths_mut(&mut self, f: &mut impl FnMut(&mut String)) {
        match self {
            ValueSource::Call(p) | ValueSource::New(p) | ValueSource::Alias(p) | ValueSource::Annotation(p) => f(p),
            ValueSource::Def(_) | ValueSource::SelfOf(_) => {}
            ValueSource::Items(items) => items.iter_mut().for_each(|(_, v)| v.paths_mut(f)),
            ValueSource::Each(inner) | ValueSource::Mapping(inner) => inner.paths_mut(f),
        }
    }

    /// A compact text form stored in the database: `call:a.b`, `new:Foo`, `alias:x`, `type:T`.
    pub fn encode(&self) -> String {
        let mut out = String::new();
        self.encode_into(&mut out);
        out
    }

    /// Appends [`ValueSource::encode`] to `out` (this runs for most of a build's references).
    pub fn encode_into(&self, out: &mut String) {
        let (tag, text) = match self {
            ValueSource::Call(p) => ("call:", p),
            ValueSource::New(p) => ("new:", p),
            ValueSource::Alias(p) => ("alias:", p),
            ValueSource::Annotation(p) => ("type:", p),
            ValueSource::Def(q) => ("def:", q),
            ValueSource::SelfOf(q) => ("self:", q),
            ValueSource::Items(items) => {
                out.push_str("items:");
                out.push_str(&serde_json::to_string(items).unwrap_or_default());
                return;
            }
            ValueSource::Each(inner) => {
                out.push_str("each:");
                inner.encode_into(out);
                return;
            }
            ValueSource::Mapping(inner) => {
                out.push_str("mapping:");
                inner.encode_into(out);
                return;
            }
        };
        out.push_str(tag);
        out.push_str(text);
    }

    pub fn decode(s: &str) -> Option<ValueSource> {
        let (tag, path) = s.split_once(':')?;
        let path = path.to_string();
        Some(match tag {
            "call" => ValueSource::Call(path),
            "new" => ValueSource::New(path),
            "alias" => ValueSource::Alias(path),
            "type" => ValueSource::Annotation(path),
            "def" => ValueSource::Def(path),
            "self" => ValueSource::SelfOf(path),
            "items" => ValueSource::Items(serde_json::from_str(&path).ok()?),
            "each" => ValueSource::Each(Box::new(ValueSource::decode(&path)?)),
            "mapping" => ValueSource::Mapping(Box::new(ValueSource::decode(&path)?)),
            _ => return None,
        })
    }
}

impl LocalBinding {
    /// The stored form: `def q`, `var`, `var call:a.b`, `self q`, `super q`; `None` for free.
    pub fn encode(&self) -> Option<String> {
        let mut out = String::new();
        self.encode_into(&mut out).then_some(out)
    }

    /// Appends [`LocalBinding::encode`] to `out`; false (and nothing appended) for free.
    pub fn encode_into(&self, out: &mut String) -> bool {
        let (tag, text) = match self {
            LocalBinding::Free => return false,
            LocalBinding::Def(q) => ("def ", q),
            LocalBinding::Var(None) => {
                out.push_str("var");
                return true;
            }
            LocalBinding::Var(Some(v)) => {
                out.push_str("var ");
                v.encode_into(out);
                return true;
            }
            LocalBinding::SelfOf(q) => ("self ", q),
            LocalBinding::SuperOf(q) => ("super ", q),
        };
        out.push_str(tag);
        out.push_str(text);
        true
    }

    pub fn decode(s: Option<&str>) -> LocalBinding {
        let Some(s) = s else { return LocalBinding::Free };
        let (tag, rest) = s.split_once(' ').unwrap_or((s, ""));
        match tag {
            "def" => LocalBinding::Def(rest.to_string()),
            "var" if rest.is_empty() => LocalBinding::Var(None),
            "var" => LocalBinding::Var(ValueSource::decode(rest)),
            "self" => LocalBinding::SelfOf(rest.to_string()),
            "super" => LocalBinding::SuperOf(rest.to_string()),
            _ => LocalBinding::Free,
        }
    }
}

/// A reference site: a use of a name, with its enclosing symbol and position.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct RefFact {
    pub kind: RefKind,
    /// Index of the enclosing symbol in `FileFacts::symbols`.
    pub src: u32,
    /// The written path, segments joined by `.`; a segment ending in `()` is a call result
    /// (`express.Router().get`). Empty when the callee is not a name (`obj[k]()`).
    pub path: String,
    /// The callee as written, when `path` is empty (dynamic sites), truncated.
    pub text: String,
    pub binding: LocalBinding,
    pub line: u32,
    pub col: u32,
    /// The callee is computed (`obj[name]()`, `getattr(o, name)()`,
    /// `importlib.import_module(name).f()`): it could be anything. Other dynamic sites have an
    /// unnamed receiver (`(a ?? b).run()`) and can only reach something with their last name.
    pub computed: bool,
    /// Python calls: the values passed, by position (`0`, `1`) or keyword (`callback`), as far
    /// as they are names, lambdas, calls or literal containers; `*` / `**` for splats.
    /// TS/JS arguments handed to a call that calls them back: [`CALLBACK_KEY`] and the
    /// callee's name.
    pub args: Vec<(String, ValueSource)>,
}

impl RefFact {
    /// True for sites whose target cannot be named statically (`obj[name]()`, `getattr(o, n)()`).
    pub fn is_dynamic(&self) -> bool {
        self.path.is_empty()
    }
}

/// The form of an import statement.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ImportKind {
    /// `import { a as b } from 'm'`, `from m import a as b`, `const { a } = require('m')`.
    Named,
    /// `import d from 'm'`.
    Default,
    /// `import * as ns from 'm'`, `import m` / `import a.b as c`, `const m = require('m')`.
    Namespace,
    /// `import 'm'`, `require('m')` as a statement.
    SideEffect,
    /// `from m import *`.
    Star,
    /// Literal dynamic `import('m')`.
    Dynamic,
}

impl ImportKind {
    pub const ALL: [ImportKind; 6] =
        [ImportKind::Named, ImportKind::Default, ImportKind::Namespace, ImportKind::SideEffect, ImportKind::Star, ImportKind::Dynamic];

    pub fn as_str(self) -> &'static str {
        match self {
            ImportKind::Named => "named",
            ImportKind::Default => "default",
            ImportKind::Namespace => "namespace",
            ImportKind::SideEffect => "side_effect",
            ImportKind::Star => "star",
            ImportKind::Dynamic => "dynamic",
        }
    }

    pub fn parse(s: &str) -> Option<ImportKind> {
        ImportKind::ALL.into_iter().find(|k| k.as_str() == s)
    }
}

/// One binding made by an import statement (a statement importing three names gives three).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ImportFact {
    pub kind: ImportKind,
    /// The module as written: `./util`, `express`, `..pkg.mod`, `os.path`.
    pub specifier: String,
    /// The imported member (`Named`), if any.
    pub imported: Option<String>,
    /// The local name it is bound to, if any (`import a.b.c` binds `a`).
    pub local: Option<String>,
    /// Enclosing symbol (0 = module). Imports inside functions bind in that function.
    pub scope: u32,
    /// Only used in type positions (`import type`, `if TYPE_CHECKING:`).
    pub type_only: bool,
    /// Python: one of several bindings of the name that may be live (`try: import x` /
    /// `except ImportError: ...`): all of them are followed.
    pub alternative: bool,
    pub line: u32,
    pub col: u32,
}

/// A name made visible to importers by a module: `export { a as b }`, `export * from 'm'`,
/// `export default x`, `__all__`. Declarations marked `export` are flagged on the symbol.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ExportFact {
    /// Exported name (`*` for `export * from`).
    pub name: String,
    /// The local name or the imported member it stands for, if different.
    pub target: Option<String>,
    /// Module re-exported from, if any.
    pub specifier: Option<String>,
    pub line: u32,
    pub col: u32,
}

/// A per-file diagnostic: a problem that did not stop the run.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Diagnostic {
    pub kind: DiagnosticKind,
    pub message: String,
    pub line: Option<u32>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum DiagnosticKind {
    SyntaxError,
    InvalidUtf8,
    Binary,
    TooLarge,
    Minified,
    Unreadable,
    Vanished,
    WalkError,
    Timeout,
    /// A symbolic link to a source file, not followed (`--follow` follows links).
    Symlink,
}

impl DiagnosticKind {
    pub const ALL: [DiagnosticKind; 10] = [
        DiagnosticKind::SyntaxError,
        DiagnosticKind::InvalidUtf8,
        DiagnosticKind::Binary,
        DiagnosticKind::TooLarge,
        DiagnosticKind::Minified,
        DiagnosticKind::Unreadable,
        DiagnosticKind::Vanished,
        DiagnosticKind::WalkError,
        DiagnosticKind::Timeout,
        DiagnosticKind::Symlink,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            DiagnosticKind::SyntaxError => "syntax_error",
            DiagnosticKind::InvalidUtf8 => "invalid_utf8",
            DiagnosticKind::Binary => "binary",
            DiagnosticKind::TooLarge => "too_large",
            DiagnosticKind::Minified => "minified",
            DiagnosticKind::Unreadable => "unreadable",
            DiagnosticKind::Vanished => "vanished",
            DiagnosticKind::WalkError => "walk_error",
            DiagnosticKind::Timeout => "timeout",
            DiagnosticKind::Symlink => "symlink",
        }
    }

    pub fn parse(s: &str) -> Option<DiagnosticKind> {
        DiagnosticKind::ALL.into_iter().find(|k| k.as_str() == s)
    }

    /// Diagnostics that mean the file's content was not indexed at all.
    pub fn skips_file(self) -> bool {
        !matches!(self, DiagnosticKind::SyntaxError | DiagnosticKind::InvalidUtf8)
    }
}

/// Everything extraction learns from one file.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct FileFacts {
    /// `symbols[0]` is the module itself.
    pub symbols: Vec<SymbolFact>,
    pub refs: Vec<RefFact>,
    pub imports: Vec<ImportFact>,
    pub exports: Vec<ExportFact>,
    pub diagnostics: Vec<Diagnostic>,
    /// Number of ERROR and MISSING nodes in the syntax tree.
    pub parse_errors: u32,
    pub lines: u32,
}

/// A file as the store knows it: identity, content hash and facts.
#[derive(Clone, Debug)]
pub struct FileRecord {
    /// Path relative to the root, `/`-separated.
    pub path: String,
    pub lang: Lang,
    pub hash: u64,
    pub size: u64,
    pub mtime_ns: i64,
    pub module: String,
    pub facts: FileFacts,
}

#[cfg(test)]
mod tests {
    use super::{LocalBinding, Step, ValueSource, split_segment};

    /// A segment's name and step: called, a parameter's (`(#i)`), or a member, whatever else
    /// it holds in parentheses.
    #[test]
    fn segments_split_into_name_and_step() {
        for (seg, name, step) in [
            ("run()", "run", Step::Call),
            ("run(#2)", "run", Step::Param(2)),
            ("f(#12)", "f", Step::Param(12)),
            ("run", "run", Step::Member),
            ("[create]", "[create]", Step::Member),
            ("f(#x)", "f(#x)", Step::Member),
            ("f(#1)x", "f(#1)x", Step::Member),
            ("f(x)", "f(x)", Step::Member),
            ("a(b)(#3)", "a(b)", Step::Param(3)),
            ("", "", Step::Member),
        ] {
            assert_eq!(split_segment(seg), (name, step), "{seg:?}");
        }
    }

    /// The stored forms of bindings and value sources (indexes on disk hold them): each
    /// variant's text, and each decodes to what was encoded.
    #[test]
    fn bindings_and_value_sources_keep_their_stored_form() {
        let items = ValueSource::Items(vec![("a".into(), ValueSource::Def("m.f".into())), ("0".into(), ValueSource::Alias("g".into()))]);
        let cases = [
            (LocalBinding::Def("m.f.inner".into()), "def m.f.inner"),
            (LocalBinding::Var(None), "var"),
            (LocalBinding::Var(Some(ValueSource::Call("a.b".into()))), "var call:a.b"),
            (LocalBinding::Var(Some(ValueSource::New("Foo".into()))), "var new:Foo"),
            (LocalBinding::Var(Some(ValueSource::Annotation("T".into()))), "var type:T"),
            (LocalBinding::Var(Some(ValueSource::SelfOf("m.C".into()))), "var self:m.C"),
            (
                LocalBinding::Var(Some(ValueSource::Each(Box::new(items.clone())))),
                r#"var each:items:[["a",{"Def":"m.f"}],["0",{"Alias":"g"}]]"#,
            ),
            (LocalBinding::SelfOf("m.C".into()), "self m.C"),
            (LocalBinding::SuperOf("m.C".into()), "super m.C"),
        ];
        for (binding, text) in cases {
            assert_eq!(binding.encode().as_deref(), Some(text));
            assert_eq!(LocalBinding::decode(Some(text)), binding);
        }
        assert_eq!(LocalBinding::Free.encode(), None);
        assert_eq!(LocalBinding::decode(None), LocalBinding::Free);
        assert_eq!(ValueSource::decode(&items.encode()), Some(items));
    }
}
