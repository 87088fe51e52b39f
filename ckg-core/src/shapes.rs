//! The syntactic shapes of one file's calls and functions, for rules that read code the way a
//! framework does: what is passed to `app.use(…)` (a path, a name, an inline function, the
//! result of another call), how many parameters a function has and what they are called, what
//! it returns, which members of its parameters it uses (`res.json`, `req.body`), and what it
//! is decorated with.
//!
//! Shapes are not stored: the index keeps what every query needs, and shapes are read from a
//! file when a rule asks about it (roles, constraint checks). Like extraction, this reads one
//! file and nothing else, and walks the tree without recursion.

use std::collections::HashMap;

use serde::Serialize;
use tree_sitter::{Node, Tree};

use crate::extract::syntax::text;
use crate::field::Field;
use crate::lang::Lang;

/// A 1-based line and column (UTF-8 bytes).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
pub struct Pos {
    pub line: u32,
    pub col: u32,
}

impl Pos {
    fn of(node: Node) -> Pos {
        let p = node.start_position();
        Pos { line: p.row as u32 + 1, col: p.column as u32 + 1 }
    }
}

/// The calls and functions of one file.
#[derive(Clone, Debug, Default, Serialize)]
pub struct Shapes {
    pub calls: Vec<CallShape>,
    pub functions: Vec<FunctionShape>,
}

/// One call (or `new`) expression.
#[derive(Clone, Debug, Serialize)]
pub struct CallShape {
    /// The callee as written when it is a name path (`app.use`, `express.static`,
    /// `bp.route`); empty for any other callee (`f()()`, `obj[k]()`).
    pub callee: String,
    /// The callee's last name: where the graph's `calls` edge of this call has its site.
    pub name_pos: Pos,
    pub start: Pos,
    pub args: Vec<Arg>,
    /// The name the call's result is bound to (`const app = express()`, `bp = Blueprint(…)`).
    pub bound_to: Option<(String, Pos)>,
    /// The function whose code the call is in (an index into [`Shapes::functions`]).
    pub in_function: Option<usize>,
}

/// One argument of a call.
#[derive(Clone, Debug, Serialize)]
pub struct Arg {
    /// The keyword of a Python keyword argument (`methods=[…]`).
    pub keyword: Option<String>,
    pub value: Value,
    pub pos: Pos,
}

/// What an argument, a returned expression or a decorator is, as far as the syntax tells.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Value {
    /// A string literal (its content, without quotes).
    Str { text: String },
    /// A name or a member path (`authMiddleware`, `handlers.create`, `Foo.as_view`); `pos`
    /// is its last name.
    Path { path: String, pos: Pos },
    /// An inline function (an index into [`Shapes::functions`]).
    Function { index: usize },
    /// The result of a call (an index into [`Shapes::calls`]).
    Call { index: usize },
    /// A list or tuple of values (`methods=["GET", "POST"]`).
    List { items: Vec<Value> },
    /// Anything else (numbers, objects, operators).
    Other,
}

/// What kind of definition a function shape is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum FunctionKind {
    Function,
    Method,
    Arrow,
    Lambda,
    Class,
}

/// A function, method, arrow function, lambda or class.
#[derive(Clone, Debug, Serialize)]
pub struct FunctionShape {
    pub kind: FunctionKind,
    /// Its name: declared (`def f`, `function f`, `class C`), or the variable or property it is
    /// assigned to (`const f = (req, res) => …`).
    pub name: Option<String>,
    pub name_pos: Option<Pos>,
    /// Where it starts: the `def` / `function` / `class` keyword (after decorators), or an
    /// arrow function's parameters.
    pub start: Pos,
    pub end_line: u32,
    pub params: Vec<Param>,
    pub decorators: Vec<Decorator>,
    /// What its `return` statements (or an arrow's expression body) give.
    pub returns: Vec<Value>,
    /// Member uses of its own parameters in its body (`res.json`, `req.body`), nested
    /// functions included unless they rebind the name.
    pub param_uses: Vec<ParamUse>,
    /// The function it is nested in.
    pub parent: Option<usize>,
    /// For a class: its bases as written.
    pub bases: Vec<String>,
}

/// One parameter.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Param {
    pub name: String,
    /// Where its name is.
    pub pos: Pos,
    /// The type annotation as written.
    pub annotation: Option<String>,
    /// `*args` / `...rest` (1), `**kwargs` (2).
    pub splat: u8,
    pub has_default: bool,
}

/// A decorator of a function or class.
#[derive(Clone, Debug, Serialize)]
pub struct Decorator {
    /// The decorator's name path (`app.route`, `bp.before_app_request`, `login_required`);
    /// for `@x.route(…)` the callee's path.
    pub path: String,
    /// Its last name (where a `calls` edge of a decorator call has its site).
    pub pos: Pos,
    /// The call, when the decorator is called (`@bp.route("/x")`).
    pub call: Option<usize>,
}

/// A member use of a parameter: `res.json(…)` is (1, `json`).
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct ParamUse {
    pub param: usize,
    pub member: String,
    pub pos: Pos,
    /// The member used on it in turn (`user` in `res.locals.user`).
    pub next: Option<String>,
    /// True when the use is assigned to (`req.user = u`, `res.locals.user = u`).
    pub write: bool,
}

impl Shapes {
    /// The call whose callee's last name is at `pos`.
    pub fn call_named_at(&self, pos: Pos) -> Option<usize> {
        self.calls.iter().position(|c| c.name_pos == pos)
    }

    /// The function or class whose name is at `pos`, or which starts on `line`.
    pub fn function_at(&self, pos: Pos) -> Option<usize> {
        self.functions
            .iter()
            .position(|f| f.name_pos == Some(pos))
            .or_else(|| self.functions.iter().position(|f| f.start.line == pos.line && f.name_pos.is_none()))
    }
}

const FUNCTION_KINDS: &[&str] = &[
    "function_definition",
    "function_declaration",
    "generator_function_declaration",
    "function_expression",
    "function",
    "generator_function",
    "arrow_function",
    "method_definition",
    "lambda",
    "class_definition",
    "class_declaration",
    "class",
];

fn function_kind(node: Node) -> Option<FunctionKind> {
    Some(match node.kind() {
        "function_definition" => {
            if node
                .parent()
                .and_then(|p| if p.kind() == "decorated_definition" { p.parent() } else { Some(p) })
                .is_some_and(|b| b.kind() == "block" && b.parent().is_some_and(|c| c.kind() == "class_definition"))
            {
                FunctionKind::Method
            } else {
                FunctionKind::Function
            }
        }
        "function_declaration" | "generator_function_declaration" | "function_expression" | "function" | "generator_function" => {
            FunctionKind::Function
        }
        "arrow_function" => FunctionKind::Arrow,
        "method_definition" => FunctionKind::Method,
        "lambda" => FunctionKind::Lambda,
        "class_definition" | "class_declaration" | "class" => FunctionKind::Class,
        _ => return None,
    })
}

fn is_call(node: Node) -> bool {
    matches!(node.kind(), "call" | "call_expression" | "new_expression")
}

/// The name a chain of member accesses and calls starts from (`res` in `res.status(404)`).
fn chain_root(mut node: Node) -> Option<Node> {
    for _ in 0..64 {
        node = match node.kind() {
            "call" | "call_expression" => node.field("function")?,
            "member_expression" | "attribute" => node.field("object")?,
            "identifier" => return Some(node),
            _ => return None,
        };
    }
    None
}

/// The expression under parentheses and type assertions (`(req as Authed)` is `req`).
fn unwrap_casts(mut node: Node) -> Node {
    for _ in 0..16 {
        match node.kind() {
            "parenthesized_expression" | "as_expression" | "non_null_expression" | "satisfies_expression" | "type_assertion" => {
                match node.named_child(0) {
                    Some(inner) => node = inner,
                    None => break,
                }
            }
            _ => break,
        }
    }
    node
}

/// True when `node` is what an assignment assigns to.
fn assigned(node: Node) -> bool {
    node.parent().is_some_and(|p| {
        matches!(p.kind(), "assignment_expression" | "assignment" | "augmented_assignment" | "augmented_assignment_expression")
            && p.field("left") == Some(node)
    })
}

/// Reads the shapes of a parsed file.
pub fn shapes(lang: Lang, tree: &Tree, src: &[u8]) -> Shapes {
    let _ = lang;
    // Pass 1: number calls and functions in document order, each with the function it is in
    // (a stack of the functions open along the walk).
    let mut call_nodes: Vec<Node> = Vec::new();
    let mut fn_nodes: Vec<Node> = Vec::new();
    let mut call_in: Vec<Option<usize>> = Vec::new();
    let mut fn_in: Vec<Option<usize>> = Vec::new();
    let mut open: Vec<(usize, usize)> = Vec::new();
    let mut cursor = tree.walk();
    loop {
        let node = cursor.node();
        if is_call(node) {
            call_nodes.push(node);
            call_in.push(open.last().map(|o| o.1));
        } else if FUNCTION_KINDS.contains(&node.kind()) {
            fn_in.push(open.last().map(|o| o.1));
            fn_nodes.push(node);
            open.push((node.id(), fn_nodes.len() - 1));
        }
        if cursor.goto_first_child() {
            continue;
        }
        loop {
            if open.last().is_some_and(|o| o.0 == cursor.node().id()) {
                open.pop();
            }
            if cursor.goto_next_sibling() {
                break;
            }
            if !cursor.goto_parent() {
                let call_of: HashMap<usize, usize> = call_nodes.iter().enumerate().map(|(i, n)| (n.id(), i)).collect();
                let fn_of: HashMap<usize, usize> = fn_nodes.iter().enumerate().map(|(i, n)| (n.id(), i)).collect();
                return Builder { src, call_of, fn_of, call_in, fn_in }.build(&call_nodes, &fn_nodes);
            }
        }
    }
}

struct Builder<'s> {
    src: &'s [u8],
    call_of: HashMap<usize, usize>,
    fn_of: HashMap<usize, usize>,
    /// The function each call / function is in.
    call_in: Vec<Option<usize>>,
    fn_in: Vec<Option<usize>>,
}

impl Builder<'_> {
    fn build(&self, call_nodes: &[Node], fn_nodes: &[Node]) -> Shapes {
        let mut functions: Vec<FunctionShape> = fn_nodes.iter().enumerate().map(|(i, n)| self.function(*n, self.fn_in[i])).collect();
        let calls = call_nodes.iter().enumerate().map(|(i, n)| self.call(*n, self.call_in[i])).collect();
        self.param_uses(fn_nodes, &mut functions);
        Shapes { calls, functions }
    }

    fn text(&self, node: Node) -> String {
        text(node, self.src).into_owned()
    }

    fn call(&self, node: Node, in_function: Option<usize>) -> CallShape {
        let callee = node.field("function").or_else(|| node.field("constructor"));
        let (path, name_pos) = match callee.and_then(|c| self.path(c)) {
            Some((p, pos)) => (p, pos),
            None => (String::new(), callee.map(Pos::of).unwrap_or(Pos::of(node))),
        };
        let mut args = Vec::new();
        if let Some(list) = node.field("arguments") {
            let mut c = list.walk();
            for a in list.named_children(&mut c) {
                if a.kind() == "comment" {
                    continue;
                }
                if a.kind() == "keyword_argument" {
                    let (Some(k), Some(v)) = (a.field("name"), a.field("value")) else { continue };
                    args.push(Arg { keyword: Some(self.text(k)), value: self.value(v), pos: Pos::of(v) });
                } else {
                    args.push(Arg { keyword: None, value: self.value(a), pos: Pos::of(a) });
                }
            }
        }
        CallShape { callee: path, name_pos, start: Pos::of(node), args, bound_to: self.bound_name(node), in_function }
    }

    /// `x = <node>` / `const x = <node>` / `x: T = <node>` (through `await` and parentheses).
    fn bound_name(&self, node: Node) -> Option<(String, Pos)> {
        let mut value = node;
        let mut parent = node.parent()?;
        while matches!(parent.kind(), "await_expression" | "await" | "parenthesized_expression" | "as_expression" | "non_null_expression") {
            value = parent;
            parent = parent.parent()?;
        }
        let target = match parent.kind() {
            "variable_declarator" if parent.field("value") == Some(value) => parent.field("name")?,
            "assignment" if parent.field("right") == Some(value) => parent.field("left")?,
            "assignment_expression" if parent.field("right") == Some(value) => parent.field("left")?,
            "public_field_definition" | "field_definition" if parent.field("value") == Some(value) => {
                parent.field("name").or_else(|| parent.field("property"))?
            }
            "pair" if parent.field("value") == Some(value) => parent.field("key")?,
            _ => return None,
        };
        let (path, _) = self.path(target)?;
        Some((path, Pos::of(target)))
    }

    /// A name path (`a`, `a.b.c`, `this.x`) and the position of its last name.
    fn path(&self, node: Node) -> Option<(String, Pos)> {
        match node.kind() {
            "identifier" | "property_identifier" | "type_identifier" | "this" | "super" | "shorthand_property_identifier" => {
                Some((self.text(node), Pos::of(node)))
            }
            "member_expression" | "attribute" => {
                let object = node.field("object")?;
                let last = node.field("property").or_else(|| node.field("attribute"))?;
                let (head, _) = self.path(object)?;
                Some((format!("{head}.{}", self.text(last)), Pos::of(last)))
            }
            "parenthesized_expression" | "non_null_expression" => self.path(node.named_child(0)?),
            _ => None,
        }
    }

    fn value(&self, node: Node) -> Value {
        if let Some(&index) = self.fn_of.get(&node.id()) {
            return Value::Function { index };
        }
        if let Some(&index) = self.call_of.get(&node.id()) {
            return Value::Call { index };
        }
        match node.kind() {
            "string" => {
                let mut c = node.walk();
                let content: String = node
                    .named_children(&mut c)
                    .filter(|n| matches!(n.kind(), "string_fragment" | "string_content" | "escape_sequence"))
                    .map(|n| self.text(n))
                    .collect();
                Value::Str { text: content }
            }
            "template_string" => Value::Str { text: self.text(node).trim_matches('`').to_string() },
            "list" | "tuple" | "array" | "set" => {
                let mut c = node.walk();
                Value::List { items: node.named_children(&mut c).filter(|n| n.kind() != "comment").map(|n| self.value(n)).collect() }
            }
            "await_expression"
            | "await"
            | "parenthesized_expression"
            | "as_expression"
            | "non_null_expression"
            | "satisfies_expression" => node.named_child(0).map(|n| self.value(n)).unwrap_or(Value::Other),
            _ => match self.path(node) {
                Some((path, pos)) => Value::Path { path, pos },
                None => Value::Other,
            },
        }
    }

    fn function(&self, node: Node, parent: Option<usize>) -> FunctionShape {
        let kind = function_kind(node).unwrap_or(FunctionKind::Function);
        let declared = node.field("name").map(|n| (self.text(n), Pos::of(n)));
        let (name, name_pos) = match declared.or_else(|| self.bound_name(node)) {
            Some((n, p)) => (Some(n.rsplit('.').next().unwrap_or(&n).to_string()), Some(p)),
            None => (None, None),
        };
        let params = node.field("parameters").or_else(|| node.field("parameter")).map(|p| self.params(p));
        let decorators = self.decorators(node);
        let mut bases = Vec::new();
        if let Some(sup) = node.field("superclasses") {
            let mut c = sup.walk();
            bases.extend(sup.named_children(&mut c).filter(|n| n.kind() != "keyword_argument").map(|n| self.text(n)));
        }
        let mut c = node.walk();
        for h in node.named_children(&mut c).filter(|n| n.kind() == "class_heritage") {
            bases.push(self.text(h).trim_start_matches("extends").trim().to_string());
        }
        // Arrow functions start at their parameters; anything else at its keyword (`async`
        // and `export` included in the node are skipped by starting at the keyword line).
        let start = Pos::of(node);
        FunctionShape {
            kind,
            name,
            name_pos,
            start,
            end_line: node.end_position().row as u32 + 1,
            params: params.unwrap_or_default(),
            decorators,
            returns: self.returns(node),
            param_uses: Vec::new(),
            parent,
            bases,
        }
    }

    fn params(&self, list: Node) -> Vec<Param> {
        if list.kind() == "identifier" {
            // `req => …`
            return vec![Param { name: self.text(list), pos: Pos::of(list), annotation: None, splat: 0, has_default: false }];
        }
        let mut out = Vec::new();
        let mut c = list.walk();
        for p in list.named_children(&mut c) {
            let annotation = p.field("type").map(|t| self.text(t).trim_start_matches(':').trim().to_string());
            let has_default = p.field("value").is_some();
            let (name_node, splat) = match p.kind() {
                "identifier" => (p, 0),
                "typed_parameter" => match p.named_child(0) {
                    Some(n) if n.kind() == "list_splat_pattern" => (n, 1),
                    Some(n) if n.kind() == "dictionary_splat_pattern" => (n, 2),
                    Some(n) => (n, 0),
                    None => continue,
                },
                "default_parameter" | "typed_default_parameter" => match p.field("name") {
                    Some(n) => (n, 0),
                    None => continue,
                },
                "list_splat_pattern" => (p, 1),
                "dictionary_splat_pattern" => (p, 2),
                "required_parameter" | "optional_parameter" => {
                    let Some(pattern) = p.field("pattern") else { continue };
                    (pattern, u8::from(pattern.kind() == "rest_pattern"))
                }
                "comment" | "keyword_separator" | "positional_separator" => continue,
                _ => (p, 0),
            };
            // `*args`, `**kwargs`, `...rest`: the name without its marker.
            let name_node = if splat > 0 { name_node.named_child(0).unwrap_or(name_node) } else { name_node };
            let name = self.text(name_node).trim_start_matches(['*', '.']).to_string();
            out.push(Param { name, pos: Pos::of(name_node), annotation, splat, has_default });
        }
        out
    }

    fn decorators(&self, node: Node) -> Vec<Decorator> {
        let mut out = Vec::new();
        // Python: the decorators are siblings in a `decorated_definition`; TS: children or
        // preceding siblings named `decorator`.
        let holder = node.parent().filter(|p| p.kind() == "decorated_definition");
        let mut list: Vec<Node> = Vec::new();
        if let Some(h) = holder {
            let mut c = h.walk();
            list.extend(h.named_children(&mut c).filter(|n| n.kind() == "decorator"));
        }
        let mut c = node.walk();
        list.extend(node.named_children(&mut c).filter(|n| n.kind() == "decorator"));
        for d in list {
            let Some(expr) = d.named_child(0) else { continue };
            let (call, target) = match self.call_of.get(&expr.id()) {
                Some(&i) => (Some(i), expr.field("function").unwrap_or(expr)),
                None => (None, expr),
            };
            if let Some((path, pos)) = self.path(target) {
                out.push(Decorator { path, pos, call });
            }
        }
        out
    }

    /// Returned expressions: `return x` in the function's own body (not nested functions'),
    /// or an arrow function's expression body.
    fn returns(&self, node: Node) -> Vec<Value> {
        let Some(body) = node.field("body") else { return Vec::new() };
        if node.kind() == "arrow_function" && body.kind() != "statement_block" {
            return vec![self.value(body)];
        }
        if node.kind() == "lambda" {
            return vec![self.value(body)];
        }
        let mut out = Vec::new();
        let mut stack = vec![body];
        while let Some(n) = stack.pop() {
            if n.kind() == "return_statement" {
                if let Some(v) = n.named_child(0) {
                    out.push(self.value(v));
                }
                continue;
            }
            let mut c = n.walk();
            for child in n.named_children(&mut c) {
                if !self.fn_of.contains_key(&child.id()) {
                    stack.push(child);
                }
            }
        }
        out.reverse();
        out
    }

    /// For each member use `p.m` in a function's body, the nearest enclosing function with a
    /// parameter named `p` gets the use: a nested function that declares `p` again hides it.
    fn param_uses(&self, fn_nodes: &[Node], functions: &mut [FunctionShape]) {
        for (i, node) in fn_nodes.iter().enumerate() {
            let params: Vec<String> = functions[i].params.iter().map(|p| p.name.clone()).collect();
            if params.is_empty() || params.len() > 64 {
                continue;
            }
            let Some(body) = node.field("body") else { continue };
            let mut uses = Vec::new();
            // (node, the parameters hidden there, as bits)
            let mut stack: Vec<(Node, u64)> = vec![(body, 0)];
            while let Some((n, hidden)) = stack.pop() {
                let hidden = match self.fn_of.get(&n.id()) {
                    Some(&j) => {
                        let mine = params.iter().enumerate().filter(|(_, p)| functions[j].params.iter().any(|q| &q.name == *p));
                        mine.fold(hidden, |h, (k, _)| h | (1 << k))
                    }
                    None => hidden,
                };
                if matches!(n.kind(), "member_expression" | "attribute") {
                    let object = n.field("object");
                    let member = n.field("property").or_else(|| n.field("attribute"));
                    // `res.json` directly, or a member after a call on it (`res.status(404).json`).
                    let root = object.map(unwrap_casts).and_then(|o| if is_call(o) { chain_root(o) } else { Some(o) });
                    if let (Some(o), Some(m)) = (root.filter(|o| o.kind() == "identifier"), member) {
                        let name = text(o, self.src);
                        if let Some(k) = params.iter().position(|p| *p == name)
                            && hidden & (1 << k) == 0
                        {
                            // `res.locals.user`: the member after, and whether the chain is assigned.
                            let outer = n
                                .parent()
                                .filter(|p| matches!(p.kind(), "member_expression" | "attribute") && p.field("object") == Some(n));
                            let next = outer.and_then(|p| p.field("property").or_else(|| p.field("attribute")));
                            let write = assigned(outer.unwrap_or(n));
                            uses.push(ParamUse {
                                param: k,
                                member: self.text(m),
                                pos: Pos::of(m),
                                next: next.map(|x| self.text(x)),
                                write,
                            });
                        }
                    }
                }
                let mut c = n.walk();
                for child in n.named_children(&mut c) {
                    stack.push((child, hidden));
                }
            }
            uses.sort_by_key(|u| u.pos);
            functions[i].param_uses = uses;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::extract::Extractor;

    fn shapes_of(lang: Lang, src: &str) -> Shapes {
        let tree = Extractor::new().parse(lang, src.as_bytes()).expect("parses");
        shapes(lang, &tree, src.as_bytes())
    }

    #[test]
    fn express_registrations() {
        let s = shapes_of(
            Lang::TypeScript,
            "const app = express();\n\
             app.use('/api', router, (req, res, next) => { res.json({}); next(); });\n\
             app.use(cors({ origin: '*' }));\n\
             function onError(err: Error, req: Request, res: Response, next: NextFunction) { res.status(500).send('x'); }\n",
        );
        let create = &s.calls[0];
        assert_eq!(create.callee, "express");
        assert_eq!(create.bound_to.as_ref().map(|b| b.0.as_str()), Some("app"));
        let use1 = &s.calls[1];
        assert_eq!(use1.callee, "app.use");
        assert_eq!(use1.name_pos, Pos { line: 2, col: 5 });
        assert_eq!(use1.args[0].value, Value::Str { text: "/api".into() });
        assert!(matches!(&use1.args[1].value, Value::Path { path, .. } if path == "router"));
        let Value::Function { index } = use1.args[2].value else { panic!("inline function") };
        let f = &s.functions[index];
        assert_eq!(f.params.iter().map(|p| p.name.as_str()).collect::<Vec<_>>(), ["req", "res", "next"]);
        assert_eq!(f.param_uses.iter().map(|u| (u.param, u.member.as_str())).collect::<Vec<_>>(), [(1, "json")]);
        let Value::Call { index } = s.calls[s.call_named_at(Pos { line: 3, col: 5 }).unwrap()].args[0].value else { panic!() };
        assert_eq!(s.calls[index].callee, "cors");
        let on_error = &s.functions[s.function_at(Pos { line: 4, col: 10 }).unwrap()];
        assert_eq!(on_error.params.len(), 4);
        assert_eq!(on_error.params[0].annotation.as_deref(), Some("Error"));
        // `res.status(500).send(…)`: both members are uses of `res`.
        assert_eq!(on_error.param_uses.iter().map(|u| u.member.as_str()).collect::<Vec<_>>(), ["status", "send"]);
    }

    #[test]
    fn flask_decorators_and_factories() {
        let s = shapes_of(
            Lang::Python,
            "def create_app(config=None):\n    app = Flask(__name__)\n    db.init_app(app)\n    return app\n\n\
             @bp.route('/books/<int:id>', methods=['GET', 'PUT'])\n@login_required\ndef book(id):\n    return jsonify(request.args)\n\n\
             class Admin:\n    def before_request(self):\n        pass\n",
        );
        let factory = &s.functions[0];
        assert_eq!(factory.name.as_deref(), Some("create_app"));
        assert_eq!(factory.returns, [Value::Path { path: "app".into(), pos: Pos { line: 4, col: 12 } }]);
        let book = s.functions.iter().find(|f| f.name.as_deref() == Some("book")).unwrap();
        assert_eq!(book.start.line, 8);
        assert_eq!(book.decorators.iter().map(|d| d.path.as_str()).collect::<Vec<_>>(), ["bp.route", "login_required"]);
        let route = &s.calls[book.decorators[0].call.unwrap()];
        assert_eq!(route.args[1].keyword.as_deref(), Some("methods"));
        assert_eq!(route.args[1].value, Value::List { items: vec![Value::Str { text: "GET".into() }, Value::Str { text: "PUT".into() }] });
        let method = s.functions.iter().find(|f| f.name.as_deref() == Some("before_request")).unwrap();
        assert_eq!(method.kind, FunctionKind::Method);
        assert_eq!(method.params[0].name, "self");
    }
}
