//! Type tests that narrow a local: `isinstance(x, Foo)` (Python) and `x instanceof Foo`
//! (TypeScript/JavaScript). Where the test is known to have passed, the local holds an
//! instance of the class tested: a binding of the local seen only there
//! ([`Binding::within`](super::scopes::Binding)).
//!
//! Where a test is known to have passed: the consequence of an `if`/`elif` (or of a ternary)
//! whose condition is the test, or a conjunction of it with others (`and` / `&&`); the right
//! operand of such a conjunction; the `else` of a negated test; the rest of the block after
//! `assert isinstance(x, Foo)`, and after an `if` on the negated test whose body always leaves
//! it (`if not isinstance(x, Foo): raise …`, `if (!(x instanceof Foo)) return;`). The locals of
//! a function are narrowed (a name the file binds in the scope that holds it), and attributes
//! (`isinstance(self.type, Foo)`, `this.conn instanceof Pool`: [`NarrowedPath`], up to the
//! first write of the attribute there); not module names. `isinstance(x, (A, B))` makes the
//! local one of `A` and `B`.

use tree_sitter::Node;

use super::File;
use super::captures::preorder::named_children;
use super::scopes::{Binding, Local, Locals, lookup_bindings, lookup_bindings_mut};
use super::syntax::{path_of, text};
use crate::facts::{RefKind, ValueSource};
use crate::field::{Field, Kind};

/// A type test: what it tests, where the test is, and the type it tests for.
struct Test<'t> {
    subject: Subject,
    node: Node<'t>,
    value: ValueSource,
}

/// What a type test is on.
enum Subject {
    /// A plain name (`x`).
    Local(String),
    /// An attribute (`self.type`, `this.conn`, `opts.parser`).
    Path(String),
}

/// An attribute narrowed by a type test (`isinstance(self.type, Foo)`): where, and to what.
pub(super) struct NarrowedPath {
    /// The attribute as written (`self.type`).
    pub(super) path: String,
    /// Where it is narrowed: from `start` up to (not including) `end`.
    pub(super) start: usize,
    pub(super) end: usize,
    /// What it holds there (`type:Range`).
    pub(super) value: ValueSource,
}

impl NarrowedPath {
    /// `path` (which goes through the attribute) from the attribute on, its first name bound
    /// to the narrowed value: `type.describe` of `self.type.describe`.
    pub(super) fn rest_of(&self, path: &str) -> String {
        let last = self.path.rsplit('.').next().unwrap_or(&self.path);
        format!("{last}{}", &path[self.path.len()..])
    }
}

/// How many enclosing expressions a test is looked through to find where it holds
/// (parentheses, negations, conjunctions).
const MAX_TEST_DEPTH: usize = 16;

impl<'t> File<'t, '_> {
    /// Adds, for every type test, the narrowing of what it tests where the test is known to
    /// have passed: a binding of a local, or a [`NarrowedPath`] of an attribute.
    pub(super) fn narrow_by_type_tests(&self, locals: &mut Locals) {
        let mut writes: Option<Vec<(String, usize)>> = None;
        for (test, &point) in self.type_tests() {
            let tested = test.node.end_byte();
            for (start, end) in self.where_passed(test.node) {
                match &test.subject {
                    Subject::Path(path) => {
                        // Up to the first write of the attribute (`self.conn = None`) or of a
                        // path it starts with, and the first binding of its first name
                        // (`node = node.parent`), since the test; not at all when one comes
                        // before the narrowed code.
                        let writes = writes.get_or_insert_with(|| self.attribute_writes());
                        let root = crate::dotted::root(path);
                        let written = writes
                            .iter()
                            .filter(|(p, _)| path.starts_with(p.as_str()) && (p.len() == path.len() || path.as_bytes()[p.len()] == b'.'))
                            .map(|(_, at)| *at);
                        let rebound = lookup_bindings(root, point, &self.nesting, locals).into_iter().flatten().map(|b| b.effective);
                        let cut = written.chain(rebound).filter(|at| tested <= *at && *at < end).min();
                        match cut {
                            Some(at) if at <= start => continue,
                            cut => {
                                let end = cut.unwrap_or(end);
                                locals.narrow_path(NarrowedPath { path: path.clone(), start, end, value: test.value.clone() })
                            }
                        }
                    }
                    Subject::Local(name) => {
                        // The scope that binds the name where the narrowed code is.
                        let Some(bindings) = lookup_bindings_mut(name, point, &self.nesting, locals) else { continue };
                        // A binding on the way from the test to the narrowed code (`(x := f())`
                        // later in the conjunction; not one in another branch, such as the body
                        // of a negated test whose `else` is narrowed): the test says nothing.
                        let on_the_way = |b: &Binding| {
                            b.within.is_none()
                                && tested <= b.effective
                                && b.effective <= start
                                && b.branch.is_none_or(|(s, e)| s <= tested && start < e)
                        };
                        if bindings.iter().any(on_the_way) {
                            continue;
                        }
                        let at = bindings.partition_point(|b| b.effective <= start);
                        let Some(before) = bindings[..at].iter().rev().find(|b| b.seen_at(start)) else { continue };
                        let site = before.site;
                        let local = Local::Var(Some(test.value.clone()));
                        bindings.insert(at, Binding { effective: start, site, local, branch: None, within: Some((start, end)) });
                    }
                }
            }
        }
    }

    /// The attributes the file writes (`self.conn = …`, `opts.parser = …`), and where the
    /// write takes effect: after the statement (its right-hand side still reads the value before).
    fn attribute_writes(&self) -> Vec<(String, usize)> {
        let caps = &self.caps;
        caps.refs
            .iter()
            .filter(|(kind, name, _)| {
                matches!(kind, RefKind::Write | RefKind::Patch) && matches!(name.kind_name(), "attribute" | "member_expression")
            })
            .filter_map(|(_, name, _)| {
                let (path, _) = path_of(*name, self.src)?;
                let statement = self.parents.of(*name).filter(|p| {
                    matches!(
                        p.kind_name(),
                        "assignment" | "augmented_assignment" | "assignment_expression" | "augmented_assignment_expression"
                    )
                });
                Some((path, statement.map_or(name.start_byte(), |s| s.end_byte())))
            })
            .collect()
    }

    /// The type tests of the file on plain names and attributes, with the innermost interval
    /// of each.
    fn type_tests(&self) -> Vec<(Test<'t>, &Option<usize>)> {
        let (caps, src) = (&self.caps, self.src);
        let mut tests = Vec::new();
        for ((kind, name, role), point) in caps.refs.iter().zip(&self.points.refs) {
            let test = match (self.is_py, kind) {
                (true, RefKind::Call) if role.kind_name() == "call" && &*text(*name, src) == "isinstance" => isinstance(*role, src),
                (false, RefKind::Read)
                    if matches!(name.kind_name(), "identifier" | "member_expression") && followed_by_instanceof(*name, src) =>
                {
                    self.parents.of(*name).and_then(|b| instanceof(b, *name, src))
                }
                _ => None,
            };
            if let Some(test) = test {
                tests.push((test, &point.2));
            }
        }
        tests
    }

    /// The extents where `test` is known to have passed.
    fn where_passed(&self, test: Node<'t>) -> Vec<(usize, usize)> {
        let mut extents = Vec::new();
        let mut child = test;
        let mut negated = false;
        for _ in 0..MAX_TEST_DEPTH {
            let Some(parent) = self.parents.of(child) else { break };
            let is_condition = parent.field("condition").is_some_and(|c| c.id() == child.id());
            match parent.kind_name() {
                "parenthesized_expression" => {}
                "not_operator" => negated = !negated,
                "unary_expression" if parent.field("operator").is_some_and(|o| o.kind_name() == "!") => negated = !negated,
                "boolean_operator" | "binary_expression" => {
                    let op = parent.field("operator").map(|o| o.kind_name());
                    let left = parent.field("left").is_some_and(|l| l.id() == child.id());
                    let right = parent.field("right");
                    match op {
                        // `isinstance(x, Foo) and x.run()`: the rest of the conjunction runs
                        // only when the test passed, and so does the code the whole of it guards.
                        Some("and" | "&&") if !negated => {
                            if left && let Some(r) = right {
                                extents.push(extent(r));
                            }
                        }
                        // `not isinstance(x, Foo) or x.run()`; the whole of it false (a guard
                        // that leaves, an `else`) means the test passed.
                        Some("or" | "||") if negated => {
                            if left && let Some(r) = right {
                                extents.push(extent(r));
                            }
                        }
                        _ => break,
                    }
                }
                "if_statement" | "elif_clause" if is_condition => {
                    let consequence = parent.field("consequence");
                    if !negated {
                        extents.extend(consequence.map(extent));
                    } else if let Some(alternative) = parent.field("alternative").filter(|a| a.kind_name() == "else_clause") {
                        extents.push(extent(alternative));
                    } else if parent.kind_name() == "if_statement"
                        && parent.field("alternative").is_none()
                        && consequence.is_some_and(always_leaves)
                    {
                        extents.extend(self.rest_of_block(parent));
                    }
                    break;
                }
                // `x.run() if isinstance(x, Foo) else None` (the condition is the second child).
                "conditional_expression" if parent.named_child(1).is_some_and(|c| c.id() == child.id()) => {
                    let branch = if negated { parent.named_child(2) } else { parent.named_child(0) };
                    extents.extend(branch.map(extent));
                    break;
                }
                "ternary_expression" if is_condition => {
                    extents.extend(parent.field(if negated { "alternative" } else { "consequence" }).map(extent));
                    break;
                }
                "assert_statement" if !negated && parent.named_child(0).is_some_and(|c| c.id() == child.id()) => {
                    extents.extend(self.rest_of_block(parent));
                    break;
                }
                _ => break,
            }
            child = parent;
        }
        extents
    }

    /// The code after `statement` in the block that holds it.
    fn rest_of_block(&self, statement: Node<'t>) -> Option<(usize, usize)> {
        let block = self.parents.of(statement)?;
        (statement.end_byte() < block.end_byte()).then(|| (statement.end_byte(), block.end_byte()))
    }
}

/// The bytes a node spans.
fn extent(node: Node) -> (usize, usize) {
    (node.start_byte(), node.end_byte())
}

/// A body that never falls through to what follows it: its last statement returns, raises,
/// throws, continues or breaks.
fn always_leaves(body: Node) -> bool {
    let last = match body.kind_name() {
        "block" | "statement_block" => named_children(body).into_iter().rfind(|n| n.kind_name() != "comment"),
        _ => Some(body),
    };
    last.is_some_and(|s| {
        matches!(s.kind_name(), "return_statement" | "raise_statement" | "throw_statement" | "continue_statement" | "break_statement")
    })
}

/// `isinstance(x, Foo)` / `isinstance(x, (Foo, Bar))` on a plain name or an attribute path.
fn isinstance<'t>(call: Node<'t>, src: &[u8]) -> Option<Test<'t>> {
    let args = named_children(call.field("arguments")?);
    let [subject, classes] = args.as_slice() else { return None };
    let subject = subject_of(*subject, src, true)?;
    let classes = *classes;
    let value = match classes.kind_name() {
        "tuple" | "parenthesized_expression" => {
            let types: Vec<ValueSource> = named_children(classes).into_iter().map(|c| class_value(c, src)).collect::<Option<_>>()?;
            ValueSource::one_of(types)?
        }
        _ => class_value(classes, src)?,
    };
    Some(Test { subject, node: call, value })
}

/// `x instanceof Foo` on a plain name or an attribute path (`name` is `x`, `binary` its
/// parent).
fn instanceof<'t>(binary: Node<'t>, name: Node<'t>, src: &[u8]) -> Option<Test<'t>> {
    if binary.kind_name() != "binary_expression"
        || binary.field("operator")?.kind_name() != "instanceof"
        || binary.field("left")?.id() != name.id()
    {
        return None;
    }
    let value = class_value(binary.field("right")?, src)?;
    Some(Test { subject: subject_of(name, src, false)?, node: binary, value })
}

/// What a test is on: a plain name, not the instance (Python's `self` and `cls`, which are
/// bound as such, and never narrowed; `this` is no identifier), or an attribute path of plain
/// names (`self.type`; not `a[0].b` nor `f().b`).
fn subject_of(node: Node, src: &[u8], is_py: bool) -> Option<Subject> {
    match node.kind_name() {
        "identifier" => {
            let name = text(node, src);
            let instance = is_py && matches!(&*name, "self" | "cls");
            (!instance).then(|| Subject::Local(name.into_owned()))
        }
        "attribute" | "member_expression" => {
            let (path, _) = path_of(node, src)?;
            let plain = path.split('.').all(|s| !s.is_empty() && s.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'$'));
            plain.then_some(Subject::Path(path))
        }
        _ => None,
    }
}

/// A class as a type test names it: `Foo`, `mod.Foo`.
fn class_value(node: Node, src: &[u8]) -> Option<ValueSource> {
    match node.kind_name() {
        "identifier" | "attribute" | "member_expression" => path_of(node, src).map(|(p, _)| ValueSource::Annotation(p)),
        _ => None,
    }
}

/// Whether the source after `name` is the keyword `instanceof` (a test read without asking
/// for the node's parent, which most reads never need).
fn followed_by_instanceof(name: Node, src: &[u8]) -> bool {
    let rest = &src[name.end_byte().min(src.len())..];
    let start = rest.iter().position(|b| !b.is_ascii_whitespace()).unwrap_or(rest.len());
    let rest = &rest[start..];
    rest.starts_with(b"instanceof") && rest.get(10).is_none_or(|b| !(b.is_ascii_alphanumeric() || *b == b'_' || *b == b'$'))
}
