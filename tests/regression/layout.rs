//! The house kept in order, read from the repository's files at test time: no import cycle of
//! three or more files in `src/`, no file in `src/` longer than 800 lines before its tests, a
//! README of at most 200 lines, and no BENCHMARKS.md heading naming an issue.
//!
//! The import graph is file-level: a `use crate::a::b::Item` (or `super::`, `self::`, a child
//! module's name, `diabolo::`) and an inline `crate::x::y` or `super::x` path point at the file
//! that defines the item, found by following the `pub use` re-exports of `mod.rs` and `lib.rs`;
//! the re-export lines themselves are no edges. Comments and everything from the first
//! `#[cfg(test)] mod NAME {` of a file on are skipped. The strongly connected components of that
//! graph with three files or more are the cycles reported. (A faithful port of the Python script
//! the rule was written with: the same text rules, the same edges, the same cycles.)

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::fs;
use std::path::{Path, PathBuf};

fn repository() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// The longest a file of `src/` may be before its first `#[cfg(test)]` line.
const MAX_LINES_BEFORE_TESTS: usize = 800;
/// Files allowed past that length, relative to the repository: the Runge-Kutta tableaus (tables
/// of coefficients, not logic).
const LONG_FILES_ALLOWED: &[&str] = &["src/simulation/ode/tableau.rs"];
/// The longest README.md may be.
const MAX_README_LINES: usize = 200;

/// A fresh folder for a synthetic tree.
fn scratch(name: &str) -> PathBuf {
    let d = Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!("layout-{name}"));
    let _ = fs::remove_dir_all(&d);
    fs::create_dir_all(&d).unwrap();
    d
}

/// Writes `files` (path relative to `root`, content) under `root`.
fn write_tree(root: &Path, files: &[(&str, &str)]) {
    for (path, text) in files {
        let path = root.join(path);
        fs::create_dir_all(path.parent().unwrap()).unwrap();
        fs::write(path, text).unwrap();
    }
}

/// Every `.rs` file under `dir`, sorted.
fn rust_files(dir: &Path) -> Vec<PathBuf> {
    let mut found = Vec::new();
    let mut pending = vec![dir.to_path_buf()];
    while let Some(d) = pending.pop() {
        for entry in fs::read_dir(&d).unwrap_or_else(|e| panic!("{}: {e}", d.display())) {
            let path = entry.unwrap().path();
            if path.is_dir() {
                pending.push(path);
            } else if path.extension().is_some_and(|e| e == "rs") {
                found.push(path);
            }
        }
    }
    found.sort();
    found
}

/// `path` relative to `base`, with `/` separators.
fn relative(path: &Path, base: &Path) -> String {
    let rel = path.strip_prefix(base).unwrap_or(path);
    rel.components()
        .map(|c| c.as_os_str().to_string_lossy())
        .collect::<Vec<_>>()
        .join("/")
}

// ---------------------------------------------------------------------------------------------
// The import graph.

/// A module path: `["simulation", "hybrid"]` for `src/simulation/hybrid/mod.rs`, empty for the
/// crate root.
type Module = Vec<String>;

/// The files of a crate, by module path.
type Modules = BTreeMap<Module, PathBuf>;

/// Re-exports: (module, name) -> the module the name resolves to.
type ReExports = HashMap<(Module, String), Module>;

/// A regex word character (`\w`).
fn is_word(c: char) -> bool {
    c.is_alphanumeric() || c == '_'
}

/// A regex word boundary (`\b`) before `s[i]`, `s[i]` a word character.
fn boundary_before(s: &[char], i: usize) -> bool {
    i == 0 || !is_word(s[i - 1])
}

/// Whether `word` stands in `s` from `s[i]` on.
fn starts_with(s: &[char], i: usize, word: &str) -> bool {
    (i..).zip(word.chars()).all(|(j, c)| s.get(j) == Some(&c))
}

/// The index of the first non-whitespace character at or after `i`.
fn skip_space(s: &[char], mut i: usize) -> usize {
    while i < s.len() && s[i].is_whitespace() {
        i += 1;
    }
    i
}

/// The source without comments: `//` to the end of the line first, then `/* ... */` (the
/// shortest span; an unclosed `/*` stays).
fn strip_comments(text: &str) -> String {
    let s: Vec<char> = text.chars().collect();
    let mut lines = Vec::with_capacity(s.len());
    let mut i = 0;
    while i < s.len() {
        if starts_with(&s, i, "//") {
            while i < s.len() && s[i] != '\n' {
                i += 1;
            }
        } else {
            lines.push(s[i]);
            i += 1;
        }
    }
    let s = lines;
    let mut out = String::with_capacity(s.len());
    let mut i = 0;
    while i < s.len() {
        if starts_with(&s, i, "/*") {
            if let Some(end) =
                (i + 2..s.len().saturating_sub(1)).find(|&j| starts_with(&s, j, "*/"))
            {
                i = end + 2;
                continue;
            }
        }
        out.push(s[i]);
        i += 1;
    }
    out
}

/// Where the first `#[cfg(test)] mod NAME {` starts.
fn first_test_module(s: &[char]) -> Option<usize> {
    (0..s.len()).find(|&i| {
        if !starts_with(s, i, "#[cfg(test)]") {
            return false;
        }
        let j = skip_space(s, i + "#[cfg(test)]".len());
        if !starts_with(s, j, "mod") {
            return false;
        }
        let k = skip_space(s, j + 3);
        if k == j + 3 || k >= s.len() || !is_word(s[k]) {
            return false;
        }
        let mut k = k;
        while k < s.len() && is_word(s[k]) {
            k += 1;
        }
        let k = skip_space(s, k);
        s.get(k) == Some(&'{')
    })
}

/// A `use` declaration found in the text: the span of the whole declaration and of its tree.
struct UseMatch {
    start: usize,
    end: usize,
    tree: String,
}

/// The `use` declarations of `s`, leftmost first and not overlapping: `pub use` (any `pub(...)`)
/// when `public`, any `use` otherwise. Each is `use`, whitespace, a tree with no `;`, and `;`.
fn use_declarations(s: &[char], public: bool) -> Vec<UseMatch> {
    let mut found = Vec::new();
    let mut i = 0;
    while i < s.len() {
        match use_declaration_at(s, i, public) {
            Some(m) => {
                i = m.end;
                found.push(m);
            }
            None => i += 1,
        }
    }
    found
}

fn use_declaration_at(s: &[char], start: usize, public: bool) -> Option<UseMatch> {
    let mut i = start;
    if public {
        if !starts_with(s, i, "pub") || !boundary_before(s, i) {
            return None;
        }
        i += 3;
        if s.get(i) == Some(&'(') {
            i += (i..s.len()).find(|&j| s[j] == ')')? - i + 1;
        }
        let j = skip_space(s, i);
        if j == i {
            return None;
        }
        i = j;
    } else if !boundary_before(s, i) {
        return None;
    }
    if !starts_with(s, i, "use") {
        return None;
    }
    i += 3;
    let spaces = skip_space(s, i) - i;
    if spaces == 0 {
        return None;
    }
    let mut tree_start = i + spaces;
    let semicolon = (tree_start..s.len()).find(|&j| s[j] == ';')?;
    if semicolon == tree_start {
        // The tree takes one of the spaces back, or there is no match.
        if spaces < 2 {
            return None;
        }
        tree_start -= 1;
    }
    Some(UseMatch {
        start,
        end: semicolon + 1,
        tree: s[tree_start..semicolon].iter().collect(),
    })
}

/// The inline paths of `s` that start with `crate` or `super`: `crate::a::b`, `super::super::x`.
fn inline_paths(s: &[char]) -> Vec<String> {
    let mut found = Vec::new();
    let mut i = 0;
    while i < s.len() {
        if (starts_with(s, i, "crate") || starts_with(s, i, "super")) && boundary_before(s, i) {
            let mut j = i + 5;
            while starts_with(s, j, "::") && s.get(j + 2).is_some_and(|&c| is_word(c)) {
                j += 2;
                while j < s.len() && is_word(s[j]) {
                    j += 1;
                }
            }
            if j > i + 5 {
                found.push(s[i..j].iter().collect());
                i = j;
                continue;
            }
        }
        i += 1;
    }
    found
}

/// The paths a use tree names: `a::{b, c::{d as e}}` -> `a::b`, `a::c::d`.
fn expand(tree: &str) -> Vec<String> {
    let tree = tree.trim();
    let Some(open) = tree.find('{') else {
        return vec![tree.split(" as ").next().unwrap().trim().to_string()];
    };
    let prefix = tree[..open].trim_end_matches(':').trim();
    let close = tree
        .rfind('}')
        .unwrap_or_else(|| tree.char_indices().last().unwrap().0);
    let inner = if close > open {
        &tree[open + 1..close]
    } else {
        ""
    };
    let mut parts = Vec::new();
    let (mut depth, mut current) = (0i32, String::new());
    for c in inner.chars() {
        match c {
            '{' => depth += 1,
            '}' => depth -= 1,
            _ => {}
        }
        if c == ',' && depth == 0 {
            parts.push(std::mem::take(&mut current));
        } else {
            current.push(c);
        }
    }
    parts.push(current);
    let mut out = Vec::new();
    for part in parts.iter().filter(|p| !p.trim().is_empty()) {
        for path in expand(part) {
            out.push(if prefix.is_empty() {
                path
            } else {
                format!("{prefix}::{path}")
            });
        }
    }
    out
}

/// The files of the crate rooted at `src`, by module path (`main.rs` is not part of the library).
fn modules(src: &Path) -> Modules {
    let mut modules = Modules::new();
    for path in rust_files(src) {
        let rel = relative(&path, src);
        let mut module: Module = rel
            .strip_suffix(".rs")
            .unwrap_or(&rel)
            .split('/')
            .map(String::from)
            .collect();
        if module.last().is_some_and(|m| m == "mod") {
            module.pop();
        }
        if module == ["lib"] || module == ["main"] {
            module.clear();
        }
        modules.insert(module, path);
    }
    modules.insert(Vec::new(), src.join("lib.rs"));
    modules
}

/// The module `path` (a `use` path or an inline path written in `current`) points at; with
/// `re_exports`, the module that defines its item, else the longest module prefix.
fn resolve(
    path: &str,
    current: &Module,
    modules: &Modules,
    re_exports: Option<&ReExports>,
) -> Option<Module> {
    let mut segments: Vec<String> = path
        .split("::")
        .filter(|s| !s.is_empty())
        .map(String::from)
        .collect();
    let first = segments.first()?.clone();
    let base: Module = match first.as_str() {
        "crate" | "diabolo" => {
            segments.remove(0);
            Vec::new()
        }
        "super" => {
            let mut base = current.clone();
            while segments.first().is_some_and(|s| s == "super") {
                base.pop();
                segments.remove(0);
            }
            base
        }
        "self" => {
            segments.remove(0);
            current.clone()
        }
        _ => {
            let mut child = current.clone();
            child.push(first);
            if !modules.contains_key(&child) {
                return None;
            }
            current.clone()
        }
    };
    let full: Module = base.into_iter().chain(segments).collect();
    match re_exports {
        Some(re_exports) => follow(&full, modules, re_exports, 0),
        None => (0..=full.len())
            .rev()
            .map(|n| full[..n].to_vec())
            .find(|m| modules.contains_key(m)),
    }
}

/// The module that defines `full` (a module path and item segments), through re-exports.
fn follow(
    full: &[String],
    modules: &Modules,
    re_exports: &ReExports,
    depth: usize,
) -> Option<Module> {
    for n in (0..=full.len()).rev() {
        let module = full[..n].to_vec();
        if !modules.contains_key(&module) {
            continue;
        }
        if n < full.len() && depth < 64 {
            if let Some(target) = re_exports.get(&(module.clone(), full[n].clone())) {
                if *target == module {
                    return Some(module);
                }
                let next: Vec<String> = target.iter().chain(&full[n + 1..]).cloned().collect();
                return follow(&next, modules, re_exports, depth + 1);
            }
        }
        return Some(module);
    }
    None
}

/// The file-level import graph of the crate rooted at `src`: each module's file -> the modules
/// whose files define what it uses.
fn import_graph(src: &Path) -> (Modules, BTreeMap<Module, BTreeSet<Module>>) {
    let modules = modules(src);
    let texts: BTreeMap<Module, Vec<char>> = modules
        .iter()
        .map(|(module, path)| {
            let text =
                fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
            (module.clone(), strip_comments(&text).chars().collect())
        })
        .collect();

    let mut re_exports = ReExports::new();
    for (module, text) in &texts {
        for declaration in use_declarations(text, true) {
            for path in expand(&declaration.tree) {
                let last = path.rsplit("::").next().unwrap();
                let item = last.split(" as ").next().unwrap().trim();
                let alias = match path.rsplit_once(" as ") {
                    Some((_, alias)) => alias.trim(),
                    None => item,
                };
                if let Some(target) = resolve(&path, module, &modules, None) {
                    if target != *module {
                        re_exports.insert((module.clone(), alias.to_string()), target);
                    }
                }
            }
        }
    }

    let mut edges = BTreeMap::new();
    for (module, text) in &texts {
        let text = &text[..first_test_module(text).unwrap_or(text.len())];
        // The re-exports are no edges: cut them out.
        let mut rest = Vec::with_capacity(text.len());
        let mut from = 0;
        for declaration in use_declarations(text, true) {
            rest.extend_from_slice(&text[from..declaration.start]);
            from = declaration.end;
        }
        rest.extend_from_slice(&text[from..]);
        let mut targets = BTreeSet::new();
        for declaration in use_declarations(&rest, false) {
            for path in expand(&declaration.tree) {
                targets.extend(resolve(&path, module, &modules, Some(&re_exports)));
            }
        }
        for path in inline_paths(&rest) {
            targets.extend(resolve(&path, module, &modules, Some(&re_exports)));
        }
        targets.remove(module);
        edges.insert(module.clone(), targets);
    }
    (modules, edges)
}

/// The strongly connected components of `edges` (Tarjan).
fn strongly_connected(edges: &BTreeMap<Module, BTreeSet<Module>>) -> Vec<Vec<Module>> {
    struct Tarjan<'a> {
        edges: &'a BTreeMap<Module, BTreeSet<Module>>,
        index: HashMap<&'a Module, usize>,
        low: HashMap<&'a Module, usize>,
        stack: Vec<&'a Module>,
        on_stack: BTreeSet<&'a Module>,
        components: Vec<Vec<Module>>,
    }
    impl<'a> Tarjan<'a> {
        fn visit(&mut self, v: &'a Module) {
            let n = self.index.len();
            self.index.insert(v, n);
            self.low.insert(v, n);
            self.stack.push(v);
            self.on_stack.insert(v);
            let edges = self.edges;
            for w in edges.get(v).into_iter().flatten() {
                if !self.index.contains_key(w) {
                    self.visit(w);
                    self.low.insert(v, self.low[v].min(self.low[w]));
                } else if self.on_stack.contains(w) {
                    self.low.insert(v, self.low[v].min(self.index[w]));
                }
            }
            if self.low[v] == self.index[v] {
                let mut component = Vec::new();
                loop {
                    let w = self.stack.pop().unwrap();
                    self.on_stack.remove(w);
                    component.push(w.clone());
                    if w == v {
                        break;
                    }
                }
                self.components.push(component);
            }
        }
    }
    let mut tarjan = Tarjan {
        edges,
        index: HashMap::new(),
        low: HashMap::new(),
        stack: Vec::new(),
        on_stack: BTreeSet::new(),
        components: Vec::new(),
    };
    for v in edges.keys() {
        if !tarjan.index.contains_key(v) {
            tarjan.visit(v);
        }
    }
    tarjan.components
}

/// The import cycles of three or more files in the crate rooted at `src`: each its files
/// (relative to `src`'s parent), sorted; the cycles largest first.
fn import_cycles(src: &Path) -> Vec<Vec<String>> {
    let (modules, edges) = import_graph(src);
    let base = src.parent().unwrap();
    let mut cycles: Vec<Vec<String>> = strongly_connected(&edges)
        .into_iter()
        .filter(|c| c.len() >= 3)
        .map(|c| {
            let mut files: Vec<String> = c.iter().map(|m| relative(&modules[m], base)).collect();
            files.sort();
            files
        })
        .collect();
    cycles.sort_by(|a, b| b.len().cmp(&a.len()).then(a.cmp(b)));
    cycles
}

/// The failure message for `cycles`, or `None` when there are none.
fn cycles_message(cycles: &[Vec<String>]) -> Option<String> {
    if cycles.is_empty() {
        return None;
    }
    let mut message = format!(
        "{} import cycle(s) of three or more files in src/ (each file uses another of its cycle, \
         directly or through the others; break each by moving what they share to one file or by \
         reversing an import):",
        cycles.len()
    );
    for cycle in cycles {
        message.push_str(&format!("\n  {} files: {}", cycle.len(), cycle.join(", ")));
    }
    Some(message)
}

#[test]
fn no_import_cycle_of_three_or_more_files_in_src() {
    let cycles = import_cycles(&repository().join("src"));
    if let Some(message) = cycles_message(&cycles) {
        panic!("{message}");
    }
}

#[test]
fn the_cycle_finder_finds_a_cycle_of_three_files_through_use_super_self_and_inline_paths() {
    let root = scratch("cycle-of-three");
    write_tree(
        &root,
        &[
            ("src/lib.rs", "pub mod a;\npub mod b;\npub mod c;\nmod d;\n"),
            // a -> b through `use crate::...`.
            ("src/a.rs", "use crate::b::Beta;\npub struct Alpha;\n"),
            // b -> c through an inline path.
            ("src/b.rs", "pub struct Beta(pub crate::c::Gamma);\n"),
            // c -> a through `use super::{...}` with a renaming.
            (
                "src/c.rs",
                "use super::{a::Alpha as A, d};\npub struct Gamma;\n",
            ),
            // d is used by c but uses nothing: not in the cycle.
            ("src/d.rs", "pub fn delta() {}\n"),
        ],
    );
    assert_eq!(
        import_cycles(&root.join("src")),
        vec![vec!["src/a.rs", "src/b.rs", "src/c.rs"]]
    );
    let message = cycles_message(&import_cycles(&root.join("src"))).unwrap();
    assert!(
        message.contains("1 import cycle(s)")
            && message.contains("3 files: src/a.rs, src/b.rs, src/c.rs"),
        "{message}"
    );

    // The same through a folder module: `self::` and a child module's name.
    let root = scratch("cycle-in-folder");
    write_tree(
        &root,
        &[
            ("src/lib.rs", "pub mod m;\n"),
            (
                "src/m/mod.rs",
                "mod x;\nmod y;\nuse self::x::X;\npub struct M;\n",
            ),
            ("src/m/x.rs", "use super::y::{Y};\npub struct X;\n"),
            ("src/m/y.rs", "use crate::m::{\n    M,\n};\npub struct Y;\n"),
        ],
    );
    assert_eq!(
        import_cycles(&root.join("src")),
        vec![vec!["src/m/mod.rs", "src/m/x.rs", "src/m/y.rs"]]
    );
}

#[test]
fn the_cycle_finder_follows_re_exports_to_the_defining_file_and_ignores_the_re_export_lines() {
    // `crate::model::Beta` is re-exported by model/mod.rs from model/b.rs: a's use of it is an
    // edge to b.rs, not to mod.rs; mod.rs's `pub use` lines are no edges. So a -> b -> a is a
    // cycle of two files (allowed), and mod.rs is in no cycle although it re-exports both.
    let root = scratch("re-exports");
    write_tree(
        &root,
        &[
            ("src/lib.rs", "pub mod model;\npub use model::Alpha;\n"),
            (
                "src/model/mod.rs",
                "mod a;\nmod b;\npub use a::Alpha;\npub use self::b::{Beta, beta as make_beta};\n",
            ),
            (
                "src/model/a.rs",
                "use crate::model::Beta;\npub struct Alpha(Beta);\n",
            ),
            (
                "src/model/b.rs",
                "use crate::model::Alpha;\npub struct Beta;\npub fn beta() {}\n",
            ),
        ],
    );
    let (modules, edges) = import_graph(&root.join("src"));
    let name = |m: &Module| relative(&modules[m], &root);
    let edges: BTreeMap<String, Vec<String>> = edges
        .iter()
        .map(|(from, to)| (name(from), to.iter().map(name).collect()))
        .collect();
    let expected: BTreeMap<String, Vec<String>> = [
        ("src/lib.rs", vec![]),
        ("src/model/mod.rs", vec![]),
        ("src/model/a.rs", vec!["src/model/b.rs"]),
        ("src/model/b.rs", vec!["src/model/a.rs"]),
    ]
    .into_iter()
    .map(|(from, to): (&str, Vec<&str>)| {
        (from.to_string(), to.into_iter().map(String::from).collect())
    })
    .collect();
    assert_eq!(edges, expected);
    assert_eq!(import_cycles(&root.join("src")), Vec::<Vec<String>>::new());
}

#[test]
fn a_tree_without_cycles_of_three_files_passes_whatever_its_tests_and_comments_import() {
    // a -> b -> c and c's tests import a; a comment in b names a; c and d use each other (two
    // files): no cycle of three.
    let root = scratch("compliant");
    write_tree(
        &root,
        &[
            ("src/lib.rs", "pub mod a;\npub mod b;\npub mod c;\npub mod d;\n"),
            ("src/main.rs", "use diabolo::c::Gamma;\nfn main() {}\n"),
            ("src/a.rs", "use crate::b::Beta;\npub struct Alpha(Beta);\n"),
            (
                "src/b.rs",
                "use crate::c::Gamma; // crate::a::Alpha\n/* use crate::a::Alpha; */\npub struct Beta(Gamma);\n",
            ),
            (
                "src/c.rs",
                "use crate::d::Delta;\npub struct Gamma;\n\n#[cfg(test)]\nmod tests {\n    use crate::a::Alpha;\n}\n",
            ),
            ("src/d.rs", "pub struct Delta(super::c::Gamma);\n"),
        ],
    );
    assert_eq!(import_cycles(&root.join("src")), Vec::<Vec<String>>::new());
    assert_eq!(cycles_message(&[]), None);
}

// ---------------------------------------------------------------------------------------------
// File lengths.

/// The lines of `text` before its first `#[cfg(test)]` line (all its lines without one).
fn lines_before_tests(text: &str) -> usize {
    text.lines()
        .position(|line| line.trim_start().starts_with("#[cfg(test)]"))
        .unwrap_or_else(|| text.lines().count())
}

/// The files under `src` (relative to its parent) longer than `limit` lines before their tests,
/// with that count, except `allowed`.
fn long_files(src: &Path, limit: usize, allowed: &[&str]) -> Vec<(String, usize)> {
    let base = src.parent().unwrap();
    rust_files(src)
        .into_iter()
        .map(|path| {
            let text =
                fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
            (relative(&path, base), lines_before_tests(&text))
        })
        .filter(|(file, lines)| *lines > limit && !allowed.contains(&file.as_str()))
        .collect()
}

fn long_files_message(long: &[(String, usize)], limit: usize) -> Option<String> {
    if long.is_empty() {
        return None;
    }
    let mut message = format!(
        "{} file(s) in src/ longer than {limit} lines before their first #[cfg(test)] line \
         (split each by subject):",
        long.len()
    );
    for (file, lines) in long {
        message.push_str(&format!("\n  {file}: {lines} lines"));
    }
    Some(message)
}

#[test]
fn no_file_in_src_is_longer_than_800_lines_before_its_tests() {
    let long = long_files(
        &repository().join("src"),
        MAX_LINES_BEFORE_TESTS,
        LONG_FILES_ALLOWED,
    );
    if let Some(message) = long_files_message(&long, MAX_LINES_BEFORE_TESTS) {
        panic!("{message}");
    }
}

#[test]
fn the_length_check_counts_the_lines_before_the_tests_and_spares_the_tableaus() {
    let root = scratch("lengths");
    let lines = |n: usize| "fn f() {}\n".repeat(n);
    let long_with_tests = format!(
        "{}#[cfg(test)]\nmod tests {{\n{}}}\n",
        lines(800),
        lines(500)
    );
    let too_long = format!("{}#[cfg(test)]\nmod tests {{}}\n", lines(801));
    write_tree(
        &root,
        &[
            ("src/lib.rs", lines(10).as_str()),
            ("src/short.rs", long_with_tests.as_str()),
            ("src/deep/too_long.rs", too_long.as_str()),
            ("src/no_tests.rs", lines(900).as_str()),
            ("src/simulation/ode/tableau.rs", lines(2000).as_str()),
        ],
    );
    let long = long_files(&root.join("src"), 800, LONG_FILES_ALLOWED);
    assert_eq!(
        long,
        vec![
            ("src/deep/too_long.rs".to_string(), 801),
            ("src/no_tests.rs".to_string(), 900)
        ]
    );
    let message = long_files_message(&long, 800).unwrap();
    assert!(
        message.contains("2 file(s)")
            && message.contains("\n  src/deep/too_long.rs: 801 lines")
            && message.contains("\n  src/no_tests.rs: 900 lines"),
        "{message}"
    );

    let root = scratch("lengths-compliant");
    write_tree(
        &root,
        &[
            ("src/lib.rs", long_with_tests.as_str()),
            ("src/simulation/ode/tableau.rs", lines(2000).as_str()),
        ],
    );
    assert_eq!(
        long_files(&root.join("src"), 800, LONG_FILES_ALLOWED),
        vec![]
    );
    assert_eq!(long_files_message(&[], 800), None);
}

// ---------------------------------------------------------------------------------------------
// The Markdown documents.

fn readme_message(text: &str) -> Option<String> {
    let lines = text.lines().count();
    (lines > MAX_README_LINES).then(|| {
        format!(
            "README.md has {lines} lines, more than {MAX_README_LINES}: move the details to docs/ \
             and link them"
        )
    })
}

/// The headings of a Markdown text (outside fenced code) that name an issue ("(issue 17)",
/// "Issue 17 at its close"), with their line numbers.
fn headings_naming_an_issue(text: &str) -> Vec<(usize, String)> {
    let mut fenced = false;
    let mut found = Vec::new();
    for (n, line) in text.lines().enumerate() {
        let trimmed = line.trim_start();
        if trimmed.starts_with("```") || trimmed.starts_with("~~~") {
            fenced = !fenced;
            continue;
        }
        if fenced || !trimmed.starts_with('#') {
            continue;
        }
        let lower = trimmed.to_lowercase();
        let names_issue = lower.match_indices("issue").any(|(i, _)| {
            let before_ok = !lower[..i].chars().next_back().is_some_and(is_word);
            let after = lower[i + "issue".len()..].trim_start_matches(['s', ' ', '#']);
            before_ok && after.starts_with(|c: char| c.is_ascii_digit())
        });
        if names_issue {
            found.push((n + 1, line.to_string()));
        }
    }
    found
}

fn benchmarks_message(found: &[(usize, String)]) -> Option<String> {
    if found.is_empty() {
        return None;
    }
    let mut message = format!(
        "{} heading(s) of BENCHMARKS.md name an issue (name the subject instead; the issue \
         belongs in the text or the history):",
        found.len()
    );
    for (line, heading) in found {
        message.push_str(&format!("\n  line {line}: {heading}"));
    }
    Some(message)
}

#[test]
fn readme_is_at_most_200_lines() {
    let text = fs::read_to_string(repository().join("README.md")).unwrap();
    if let Some(message) = readme_message(&text) {
        panic!("{message}");
    }
}

#[test]
fn no_benchmarks_heading_names_an_issue() {
    let text = fs::read_to_string(repository().join("BENCHMARKS.md")).unwrap();
    if let Some(message) = benchmarks_message(&headings_naming_an_issue(&text)) {
        panic!("{message}");
    }
}

#[test]
fn the_document_checks_count_readme_lines_and_find_issue_numbers_in_headings_only() {
    assert_eq!(readme_message(&"line\n".repeat(200)), None);
    assert_eq!(
        readme_message(&"line\n".repeat(201)).as_deref(),
        Some("README.md has 201 lines, more than 200: move the details to docs/ and link them")
    );

    let benchmarks = "# Benchmarks\n\nMeasured for issue 17.\n\n## Contacts (issue 31)\n\
                      ### Issue 17 at its close\n## Tissue 3 paper\n## Issues #12 and 13\n\
                      ```sh\n# issue 5\n```\n## The run loop, redesigned\n";
    let found = headings_naming_an_issue(benchmarks);
    assert_eq!(
        found,
        vec![
            (5, "## Contacts (issue 31)".to_string()),
            (6, "### Issue 17 at its close".to_string()),
            (8, "## Issues #12 and 13".to_string()),
        ]
    );
    let message = benchmarks_message(&found).unwrap();
    assert!(
        message.contains("3 heading(s)") && message.contains("\n  line 5: ## Contacts (issue 31)"),
        "{message}"
    );
    assert_eq!(
        headings_naming_an_issue("# Benchmarks\n\nIssue 17 made it faster.\n## Contacts\n"),
        vec![]
    );
    assert_eq!(benchmarks_message(&[]), None);
}
