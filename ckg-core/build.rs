//! Compiles `src/extract/captures/preorder.c`, which lists a tree's nodes from tree-sitter's
//! own subtrees, `src/lang/expanded.c`, which copies a grammar with its parse table expanded,
//! `src/lang/lexer.c`, a lexer step with a short path for ASCII, and `src/lang/lex_table.c`, a
//! grammar's lexer read from tables: against the headers of
//! the tree-sitter this crate links (its `src` folder, beside the `include` folder its build
//! script announces), so that both agree on their layout.

use std::path::PathBuf;

fn main() {
    let include = PathBuf::from(std::env::var("DEP_TREE_SITTER_INCLUDE").expect("tree-sitter's build script names its include folder"));
    let src = include.parent().expect("tree-sitter's include folder has a parent").join("src");
    println!("cargo:rerun-if-changed=src/extract/captures/preorder.c");
    println!("cargo:rerun-if-changed=src/lang/expanded.c");
    println!("cargo:rerun-if-changed=src/lang/lexer.c");
    println!("cargo:rerun-if-changed=src/lang/lex_table.c");
    println!("cargo:rerun-if-changed=src/lang/ascii_step.h");
    cc::Build::new()
        .file("src/extract/captures/preorder.c")
        .file("src/lang/expanded.c")
        .file("src/lang/lexer.c")
        .file("src/lang/lex_table.c")
        .include(&include)
        .include(&src)
        .flag_if_supported("-std=c11")
        .define("_POSIX_C_SOURCE", "200112L")
        .define("_DEFAULT_SOURCE", None)
        .warnings(true)
        .compile("ckg_preorder");
}
