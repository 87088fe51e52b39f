// Checks a generated TypeScript repository against its truth file with the TypeScript compiler.
//
// usage: node ts_check.js REPO_DIR TRUTH_FILE      (the `typescript` package must be resolvable,
//                                                   e.g. through NODE_PATH)
//
// 1. Type-checks the program (strict). Without @types/express and @types/node next to the repo
//    only syntax errors and errors in the repository's own names count.
// 2. Derives every edge with the type checker: each call, `new`, `extends`, import/re-export and
//    function passed as an argument is bound to its declaration (following import aliases and
//    re-exports); calls of external packages are named from the import they come through
//    (`express.Router`, `express().use`, `path.join`, `fs.existsSync`).
// 3. Checks that the derived edges are exactly the truth file.

const fs = require('fs');
const path = require('path');
const ts = require('typescript');

const [root, truthPath] = process.argv.slice(2).map((p) => path.resolve(p));

function walk(dir, out) {
  for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) walk(p, out);
    else if (e.name.endsWith('.ts')) out.push(p);
  }
  return out;
}

const files = walk(path.join(root, 'src'), []).sort();
const program = ts.createProgram(files, {
  target: ts.ScriptTarget.ES2020,
  module: ts.ModuleKind.CommonJS,
  moduleResolution: ts.ModuleResolutionKind.Node10,
  strict: true,
  esModuleInterop: true,
  skipLibCheck: true,
  noEmit: true,
});
const checker = program.getTypeChecker();
const rel = (sf) => path.relative(root, sf.fileName).split(path.sep).join('/');
const inProject = (sf) => !path.relative(root, sf.fileName).startsWith('..') && !sf.fileName.includes('node_modules');

const problems = [];
const haveTypes = fs.existsSync(path.join(root, 'node_modules', '@types', 'express'));
for (const d of ts.getPreEmitDiagnostics(program)) {
  const msg = ts.flattenDiagnosticMessageText(d.messageText, '\n');
  const where = d.file ? `${rel(d.file)}:${d.file.getLineAndCharacterOfPosition(d.start).line + 1}` : '';
  // without the @types packages, only complain about things other than the external modules
  if (!haveTypes && /'express'|'path'|'node:fs'|implicitly has an 'any' type|Cannot find name 'require'/.test(msg)) continue;
  problems.push(`TS${d.code} ${where} ${msg}`);
}

function chainName(node) {
  const parts = [];
  for (let n = node; n && !ts.isSourceFile(n); n = n.parent) {
    if ((ts.isFunctionDeclaration(n) || ts.isClassDeclaration(n) || ts.isMethodDeclaration(n)) && n.name) {
      parts.unshift(n.name.text);
    }
  }
  return parts.join('.');
}

function declQname(decl) {
  const sf = decl.getSourceFile();
  if (!inProject(sf)) return null;
  return `${rel(sf)}#${chainName(decl)}`;
}

function srcOf(node) {
  const c = chainName(node.parent);
  return c ? `${rel(node.getSourceFile())}#${c}` : rel(node.getSourceFile());
}

function symbolOf(node) {
  let s = checker.getSymbolAtLocation(ts.isPropertyAccessExpression(node) ? node.name : node);
  if (s && s.flags & ts.SymbolFlags.Alias) s = checker.getAliasedSymbol(s);
  return s;
}

function declOf(node) {
  const s = symbolOf(node);
  return s && s.declarations && s.declarations.length ? s.declarations[0] : null;
}

const extPackage = (spec) => spec.replace(/^node:/, '');

// External name of an expression (`express`, `express.Router`, `express().use`), or null.
function externalName(expr) {
  const props = [];
  let e = expr;
  while (ts.isPropertyAccessExpression(e)) {
    props.unshift(e.name.text);
    e = e.expression;
  }
  let base = null;
  if (ts.isIdentifier(e)) {
    const s = checker.getSymbolAtLocation(e);
    const d = s && s.declarations && s.declarations[0];
    if (d && (ts.isImportClause(d) || ts.isNamespaceImport(d) || ts.isImportSpecifier(d))) {
      let imp = d;
      while (!ts.isImportDeclaration(imp)) imp = imp.parent;
      const spec = imp.moduleSpecifier.text;
      if (spec.startsWith('.')) return null;
      base = extPackage(spec);
      if (ts.isImportSpecifier(d)) base += `.${(d.propertyName || d.name).text}`;
    } else if (d && ts.isVariableDeclaration(d) && d.initializer && ts.isCallExpression(d.initializer)) {
      const inner = externalName(d.initializer.expression);
      if (inner) base = `${inner}()`;
    }
  } else if (ts.isCallExpression(e)) {
    const inner = externalName(e.expression);
    if (inner) base = `${inner}()`;
  }
  if (base === null) return null;
  return [base, ...props].join('.');
}

const edges = new Set();
const add = (kind, src, dst) => edges.add(`${kind} ${src} -> ${dst}`);

function where(node) {
  const sf = node.getSourceFile();
  return `${rel(sf)}:${sf.getLineAndCharacterOfPosition(node.getStart()).line + 1}`;
}

function visit(node) {
  if ((ts.isImportDeclaration(node) || ts.isExportDeclaration(node)) && node.moduleSpecifier) {
    const spec = node.moduleSpecifier.text;
    const src = rel(node.getSourceFile());
    if (spec.startsWith('.')) {
      const m = checker.getSymbolAtLocation(node.moduleSpecifier);
      if (!m || !m.valueDeclaration) problems.push(`unresolved import ${spec} at ${where(node)}`);
      else add('imports', src, rel(m.valueDeclaration));
    } else {
      add('imports', src, extPackage(spec));
    }
  } else if (ts.isClassDeclaration(node) && node.heritageClauses) {
    for (const h of node.heritageClauses) {
      for (const t of h.types) {
        const d = declOf(t.expression);
        const q = d && ts.isClassDeclaration(d) ? declQname(d) : null;
        if (!q) problems.push(`unresolved base class at ${where(t)}`);
        else add('inherits', declQname(node), q);
      }
    }
  } else if (ts.isNewExpression(node)) {
    const d = declOf(node.expression);
    const q = d && ts.isClassDeclaration(d) ? declQname(d) : null;
    if (!q) problems.push(`unresolved new at ${where(node)}`);
    else add('instantiates', srcOf(node), q);
  } else if (ts.isCallExpression(node)) {
    const src = srcOf(node);
    const d = declOf(node.expression);
    const q = d && (ts.isFunctionDeclaration(d) || ts.isMethodDeclaration(d)) ? declQname(d) : null;
    if (q) add('calls', src, q);
    else {
      const ext = externalName(node.expression);
      if (ext) add('calls', src, ext);
      else problems.push(`unresolved call ${node.expression.getText()} at ${where(node)}`);
    }
    for (const a of node.arguments) {
      if (ts.isIdentifier(a) || ts.isPropertyAccessExpression(a)) {
        const ad = declOf(a);
        if (ad && ts.isFunctionDeclaration(ad) && declQname(ad)) add('references', src, declQname(ad));
      }
    }
  }
  ts.forEachChild(node, visit);
}

for (const sf of program.getSourceFiles()) {
  if (inProject(sf)) visit(sf);
}

const truth = new Set(fs.readFileSync(truthPath, 'utf8').split('\n').filter((l) => l));
const wrong = [...edges].filter((e) => !truth.has(e)).sort();
const missing = [...truth].filter((e) => !edges.has(e)).sort();
console.log(`${files.length} files, ${edges.size} edges derived, ${truth.size} in the truth, types ${haveTypes ? 'checked' : 'not installed'}`);
for (const p of problems.slice(0, 20)) console.log('PROBLEM:', p);
for (const e of wrong.slice(0, 20)) console.log('NOT IN TRUTH:', e);
for (const e of missing.slice(0, 20)) console.log('NOT DERIVED:', e);
process.exit(problems.length || wrong.length || missing.length ? 1 : 0);
