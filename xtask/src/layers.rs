//! `cargo xtask layers`: the modules of each library crate form layers. A module that imports
//! another (a `use`, or a path in code, that names an item the other defines) stands above it,
//! and no chain of imports leads back: every cycle found fails the check unless it is one of
//! [`ALLOWED`], which docs/architecture.md names with its reason.
//!
//! The imports are read with syn from the crate's own sources, test modules left out. A path
//! that reaches an item through re-exports (`crate::Server`, a `pub use` in lib.rs) counts as an
//! import of the module that defines the item; the crate root's own re-exports are its face,
//! not imports. Paths inside macro calls are token streams to syn and are not read.

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use syn::visit::Visit;

pub(crate) const USAGE: &str = "usage: cargo xtask layers [CRATE...]

Reads the module imports of each library crate under crates/ (or only those named) and fails
when modules import each other in a cycle that docs/architecture.md does not name. Each cycle
is printed with the names that tie it, module -> module.";

/// The cycles docs/architecture.md names, each with its reason: the crate, and the modules of
/// the cycle (their paths from the crate root). A cycle that grows, or a new one, fails; so
/// does an entry whose cycle is gone, so that the list only shrinks.
const ALLOWED: &[(&str, &[&str], &str)] = &[
    (
        "presa-server",
        &[
            "context",
            "definitions",
            "extension",
            "middleware",
            "prompt",
            "resource",
            "scopes",
            "server",
            "tasks",
            "tool",
        ],
        "a handler is called with a Context, the Context holds the Server, and the Server holds \
         the handlers (with their scopes, and the extensions' method handlers), the middleware \
         that sees each request's Context and the tasks that run handlers later",
    ),
    (
        "presa-core",
        &[
            "types::content",
            "types::mrtr",
            "types::resources",
            "types::sampling",
            "types::tools",
        ],
        "the types mirror the MCP schema, whose definitions refer to each other (content embeds \
         resources, sampling carries tools and content, input responses carry sampling results)",
    ),
    (
        "presa-schema",
        &["apply", "node"],
        "validation recurses: a node applies its keywords, whose subschemas are nodes",
    ),
    (
        "presa-schema",
        &["compile", "graph", "keywords", "resolve", "vocabulary"],
        "compilation recurses: a keyword compiles its subschemas, resolving references as it goes",
    ),
];

/// A module's path from the crate root: `[]` is the root.
type ModPath = Vec<String>;

/// One module: its file, and the names it defines, imports and glob-imports.
struct Module {
    file: PathBuf,
    items: Vec<syn::Item>,
    /// Items defined here, child modules included.
    defines: BTreeSet<String>,
    /// `use` names: the name in this module, to the absolute path it stands for.
    imports: HashMap<String, ModPath>,
    /// `use path::*`: the absolute paths of the modules glob-imported.
    globs: Vec<ModPath>,
    /// What a glob import of this module brings: the names defined or imported here with a
    /// visibility other than private, and the modules it glob-imports so.
    visible: BTreeSet<String>,
    visible_globs: Vec<ModPath>,
}

/// A crate's modules by path.
struct Crate {
    modules: BTreeMap<ModPath, Module>,
}

pub(crate) fn run(args: &[String]) -> ExitCode {
    let root = crate::workspace_root().join("crates");
    let mut names: Vec<String> = match std::fs::read_dir(&root) {
        Ok(entries) => entries
            .filter_map(Result::ok)
            .filter(|e| e.path().join("src/lib.rs").is_file())
            .filter_map(|e| e.file_name().into_string().ok())
            .collect(),
        Err(e) => {
            eprintln!("layers: cannot read {}: {e}", root.display());
            return ExitCode::FAILURE;
        }
    };
    names.sort();
    if !args.is_empty() {
        if let Some(unknown) = args.iter().find(|a| !names.contains(a)) {
            eprintln!("layers: no library crate `{unknown}` under crates/\n\n{USAGE}");
            return ExitCode::from(2);
        }
        names.retain(|n| args.contains(n));
    }
    let mut failed = false;
    for name in &names {
        let krate = match Crate::read(&root.join(name).join("src/lib.rs")) {
            Ok(krate) => krate,
            Err(e) => {
                eprintln!("layers: {name}: {e}");
                failed = true;
                continue;
            }
        };
        let edges = krate.edges();
        let cycles = cycles(&lifted(&edges));
        let allowed: Vec<(BTreeSet<String>, &str)> = ALLOWED
            .iter()
            .filter(|(c, _, _)| *c == name)
            .map(|(_, modules, why)| (modules.iter().map(|m| (*m).to_owned()).collect(), *why))
            .collect();
        let mut unexplained = 0;
        for cycle in &cycles {
            let shown: BTreeSet<String> = cycle.iter().map(display).collect();
            if let Some((_, why)) = allowed.iter().find(|(modules, _)| *modules == shown) {
                println!("layers: {name}: the named cycle {shown:?}: {why}");
                continue;
            }
            unexplained += 1;
            eprintln!("layers: {name}: modules that import each other in a cycle: {shown:?}");
            for ((from, to), names) in &edges {
                let Some((a, b)) = lift(from, to) else {
                    continue;
                };
                if cycle.contains(&a) && cycle.contains(&b) {
                    let names: Vec<&str> = names.iter().map(String::as_str).collect();
                    eprintln!(
                        "  {} -> {}: {}",
                        krate.describe(from),
                        krate.describe(to),
                        names.join(", ")
                    );
                }
            }
        }
        for (stale, _) in allowed.iter().filter(|(modules, _)| {
            !cycles
                .iter()
                .any(|c| c.iter().map(display).collect::<BTreeSet<_>>() == *modules)
        }) {
            eprintln!(
                "layers: {name}: the allowed cycle {stale:?} is gone; remove it from ALLOWED and \
                 docs/architecture.md"
            );
            unexplained += 1;
        }
        if unexplained == 0 {
            println!(
                "layers: {name}: {} modules, {} imports between them, no cycle but the named ones",
                krate.modules.len(),
                edges.len()
            );
        } else {
            failed = true;
        }
    }
    if failed {
        ExitCode::FAILURE
    } else {
        ExitCode::SUCCESS
    }
}

fn display(path: &ModPath) -> String {
    if path.is_empty() {
        "crate".to_owned()
    } else {
        path.join("::")
    }
}

impl Crate {
    fn read(lib: &Path) -> Result<Self, String> {
        let mut krate = Crate {
            modules: BTreeMap::new(),
        };
        let items = parse(lib)?;
        let dir = lib.parent().unwrap_or(lib).to_path_buf();
        krate.add(Vec::new(), lib.to_path_buf(), items, &dir)?;
        Ok(krate)
    }

    /// Adds a module and, recursively, its children; `dir` is where its `mod x;` files are.
    fn add(
        &mut self,
        path: ModPath,
        file: PathBuf,
        items: Vec<syn::Item>,
        dir: &Path,
    ) -> Result<(), String> {
        let mut module = Module {
            file,
            items: Vec::new(),
            defines: BTreeSet::new(),
            imports: HashMap::new(),
            globs: Vec::new(),
            visible: BTreeSet::new(),
            visible_globs: Vec::new(),
        };
        for item in items {
            if is_test_only(item_attrs(&item)) {
                continue;
            }
            if let syn::Item::Mod(m) = &item {
                let name = m.ident.to_string();
                let mut child = path.clone();
                child.push(name.clone());
                module.defines.insert(name.clone());
                match &m.content {
                    Some((_, inner)) => {
                        self.add(child, module.file.clone(), inner.clone(), &dir.join(&name))?;
                    }
                    None => {
                        let (child_file, child_dir) = match path_attr(&m.attrs) {
                            Some(explicit) => (dir.join(&explicit), dir.join(&name)),
                            None if dir.join(format!("{name}.rs")).is_file() => {
                                (dir.join(format!("{name}.rs")), dir.join(&name))
                            }
                            None => (dir.join(&name).join("mod.rs"), dir.join(&name)),
                        };
                        let inner = parse(&child_file)?;
                        self.add(child, child_file, inner, &child_dir)?;
                    }
                }
                continue;
            }
            if let syn::Item::Use(u) = &item {
                let globs = module.globs.len();
                collect_use(&path, &u.tree, Vec::new(), &mut module);
                if is_pub(&u.vis) {
                    // what this `use` added is what a glob of this module brings too
                    let mut added = Vec::new();
                    collect_names(&u.tree, &mut added);
                    module.visible.extend(added);
                    let new_globs = module.globs[globs..].to_vec();
                    module.visible_globs.extend(new_globs);
                }
            } else if let Some(name) = item_name(&item) {
                if item_vis(&item).is_some_and(is_pub) {
                    module.visible.insert(name.clone());
                }
                module.defines.insert(name);
            }
            module.items.push(item);
        }
        self.modules.insert(path, module);
        Ok(())
    }

    /// The module that defines what an absolute path names (following re-exports), or `None`
    /// when it leaves the crate.
    fn resolve(&self, path: &[String], depth: usize) -> Option<ModPath> {
        if depth > 32 {
            return None;
        }
        let mut at: ModPath = Vec::new();
        for (i, segment) in path.iter().enumerate() {
            let mut child = at.clone();
            child.push(segment.clone());
            if self.modules.contains_key(&child) {
                at = child;
                continue;
            }
            let module = self.modules.get(&at)?;
            if module.defines.contains(segment) {
                return Some(at);
            }
            if let Some(target) = module.imports.get(segment) {
                let mut whole = target.clone();
                whole.extend_from_slice(&path[i + 1..]);
                return self.resolve(&whole, depth + 1);
            }
            for glob in &module.globs {
                let mut whole = glob.clone();
                whole.extend_from_slice(&path[i..]);
                if let Some(found) = self.resolve_defined(&whole, depth + 1) {
                    return Some(found);
                }
            }
            return Some(at);
        }
        Some(at)
    }

    /// Like [`Crate::resolve`], but only when the name is really found (for glob lookups).
    fn resolve_defined(&self, path: &[String], depth: usize) -> Option<ModPath> {
        let (last, parent) = path.split_last()?;
        let module_path = self.resolve_module(parent)?;
        let module = self.modules.get(&module_path)?;
        if module.visible.contains(last) {
            return self.resolve(path, depth);
        }
        module.visible_globs.iter().find_map(|g| {
            let mut whole = g.clone();
            whole.push(last.clone());
            self.resolve_defined(&whole, depth + 1)
        })
    }

    fn resolve_module(&self, path: &[String]) -> Option<ModPath> {
        let owned = path.to_vec();
        self.modules.contains_key(&owned).then_some(owned)
    }

    /// A path as written in module `at`, made absolute; `None` when it leaves the crate.
    fn absolute(&self, at: &ModPath, segments: &[String]) -> Option<ModPath> {
        absolute_in(at, segments, |first| {
            let module = self.modules.get(at)?;
            if let Some(target) = module.imports.get(first) {
                return Some(target.clone());
            }
            let mut child = at.clone();
            child.push(first.to_owned());
            if self.modules.contains_key(&child) || module.defines.contains(first) {
                return Some(child);
            }
            None
        })
    }

    /// Module-to-module imports, with the names that make each.
    fn edges(&self) -> BTreeMap<(ModPath, ModPath), BTreeSet<String>> {
        let mut edges: BTreeMap<(ModPath, ModPath), BTreeSet<String>> = BTreeMap::new();
        for (at, module) in &self.modules {
            let mut paths = Paths::default();
            for item in &module.items {
                match item {
                    // the root's re-exports are the crate's face, not imports
                    syn::Item::Use(u) if at.is_empty() && is_pub(&u.vis) => {}
                    syn::Item::Use(u) => use_paths(&u.tree, Vec::new(), &mut paths.found),
                    other => paths.visit_item(other),
                }
            }
            for segments in paths.found {
                let Some(absolute) = self.absolute(at, &segments) else {
                    continue;
                };
                let Some(target) = self.resolve(&absolute, 0) else {
                    continue;
                };
                if target != *at {
                    let name = absolute.last().cloned().unwrap_or_default();
                    edges.entry((at.clone(), target)).or_default().insert(name);
                }
            }
        }
        edges
    }

    fn describe(&self, path: &ModPath) -> String {
        let file = self
            .modules
            .get(path)
            .map(|m| m.file.display().to_string())
            .unwrap_or_default();
        let root = crate::workspace_root();
        let file = Path::new(&file)
            .strip_prefix(&root)
            .map(|p| p.display().to_string())
            .unwrap_or(file);
        format!("{} ({file})", display(path))
    }
}

/// `segments` written in module `at`, made absolute: `crate::`, `super::`, `self::`, or a first
/// name that `local` resolves (a `use` name, a child module or a local item).
fn absolute_in(
    at: &ModPath,
    segments: &[String],
    local: impl Fn(&str) -> Option<ModPath>,
) -> Option<ModPath> {
    let (first, rest) = segments.split_first()?;
    let mut base = match first.as_str() {
        "crate" => Vec::new(),
        "self" => at.clone(),
        "super" => {
            let mut base = at.clone();
            base.pop()?;
            let mut rest = rest;
            while rest.first().map(String::as_str) == Some("super") {
                base.pop()?;
                rest = &rest[1..];
            }
            base.extend_from_slice(rest);
            return Some(base);
        }
        _ => local(first)?,
    };
    base.extend_from_slice(rest);
    Some(base)
}

/// Records a `use` tree's names in `module` (as absolute paths when they stay in the crate).
fn collect_use(at: &ModPath, tree: &syn::UseTree, mut prefix: Vec<String>, module: &mut Module) {
    match tree {
        syn::UseTree::Path(p) => {
            prefix.push(p.ident.to_string());
            collect_use(at, &p.tree, prefix, module);
        }
        syn::UseTree::Name(n) => {
            let name = n.ident.to_string();
            if name == "self" {
                if let Some(last) = prefix.last().cloned()
                    && let Some(target) = relative(at, &prefix)
                {
                    module.imports.insert(last, target);
                }
                return;
            }
            prefix.push(name.clone());
            if let Some(target) = relative(at, &prefix) {
                module.imports.insert(name, target);
            }
        }
        syn::UseTree::Rename(r) => {
            prefix.push(r.ident.to_string());
            if let Some(target) = relative(at, &prefix) {
                module.imports.insert(r.rename.to_string(), target);
            }
        }
        syn::UseTree::Glob(_) => {
            if let Some(target) = relative(at, &prefix) {
                module.globs.push(target);
            }
        }
        syn::UseTree::Group(g) => {
            for tree in &g.items {
                collect_use(at, tree, prefix.clone(), module);
            }
        }
    }
}

/// A `use` path made absolute: from `crate`, `self` or `super`, or from the module itself when
/// it starts with another name (a child module, as `use tasks::Tasks` in lib.rs; or an outside
/// crate, whose path then resolves to no other module of this one).
fn relative(at: &ModPath, prefix: &[String]) -> Option<ModPath> {
    absolute_in(at, prefix, |first| {
        let mut child = at.clone();
        child.push(first.to_owned());
        Some(child)
    })
}

/// The paths of a `use` tree, leaf by leaf.
fn use_paths(tree: &syn::UseTree, mut prefix: Vec<String>, out: &mut Vec<Vec<String>>) {
    match tree {
        syn::UseTree::Path(p) => {
            prefix.push(p.ident.to_string());
            use_paths(&p.tree, prefix, out);
        }
        syn::UseTree::Name(n) if n.ident == "self" => out.push(prefix),
        syn::UseTree::Name(n) => {
            prefix.push(n.ident.to_string());
            out.push(prefix);
        }
        syn::UseTree::Rename(r) => {
            prefix.push(r.ident.to_string());
            out.push(prefix);
        }
        syn::UseTree::Glob(_) => out.push(prefix),
        syn::UseTree::Group(g) => {
            for tree in &g.items {
                use_paths(tree, prefix.clone(), out);
            }
        }
    }
}

/// Every path written in code (types, expressions, patterns, trait bounds), test modules left
/// out.
#[derive(Default)]
struct Paths {
    found: Vec<Vec<String>>,
}

impl<'ast> Visit<'ast> for Paths {
    fn visit_path(&mut self, path: &'ast syn::Path) {
        // a one-name path is a local item or a `use` name, whose `use` is read already
        if path.leading_colon.is_none() && path.segments.len() > 1 {
            self.found
                .push(path.segments.iter().map(|s| s.ident.to_string()).collect());
        }
        syn::visit::visit_path(self, path);
    }

    fn visit_item_mod(&mut self, module: &'ast syn::ItemMod) {
        // child modules are modules of their own
        let _ = module;
    }

    fn visit_item_use(&mut self, item: &'ast syn::ItemUse) {
        use_paths(&item.tree, Vec::new(), &mut self.found);
    }

    fn visit_attribute(&mut self, _: &'ast syn::Attribute) {}
}

fn parse(file: &Path) -> Result<Vec<syn::Item>, String> {
    let text = std::fs::read_to_string(file).map_err(|e| format!("{}: {e}", file.display()))?;
    let parsed = syn::parse_file(&text).map_err(|e| format!("{}: {e}", file.display()))?;
    Ok(parsed.items)
}

fn item_attrs(item: &syn::Item) -> &[syn::Attribute] {
    match item {
        syn::Item::Const(i) => &i.attrs,
        syn::Item::Enum(i) => &i.attrs,
        syn::Item::Fn(i) => &i.attrs,
        syn::Item::Impl(i) => &i.attrs,
        syn::Item::Macro(i) => &i.attrs,
        syn::Item::Mod(i) => &i.attrs,
        syn::Item::Static(i) => &i.attrs,
        syn::Item::Struct(i) => &i.attrs,
        syn::Item::Trait(i) => &i.attrs,
        syn::Item::Type(i) => &i.attrs,
        syn::Item::Union(i) => &i.attrs,
        syn::Item::Use(i) => &i.attrs,
        _ => &[],
    }
}

fn item_name(item: &syn::Item) -> Option<String> {
    let ident = match item {
        syn::Item::Const(i) => &i.ident,
        syn::Item::Enum(i) => &i.ident,
        syn::Item::Fn(i) => &i.sig.ident,
        syn::Item::Macro(i) => i.ident.as_ref()?,
        syn::Item::Static(i) => &i.ident,
        syn::Item::Struct(i) => &i.ident,
        syn::Item::Trait(i) => &i.ident,
        syn::Item::Type(i) => &i.ident,
        syn::Item::Union(i) => &i.ident,
        _ => return None,
    };
    Some(ident.to_string())
}

fn item_vis(item: &syn::Item) -> Option<&syn::Visibility> {
    Some(match item {
        syn::Item::Const(i) => &i.vis,
        syn::Item::Enum(i) => &i.vis,
        syn::Item::Fn(i) => &i.vis,
        syn::Item::Static(i) => &i.vis,
        syn::Item::Struct(i) => &i.vis,
        syn::Item::Trait(i) => &i.vis,
        syn::Item::Type(i) => &i.vis,
        syn::Item::Union(i) => &i.vis,
        _ => return None,
    })
}

/// The names a `use` tree brings into its module (renames by their new name).
fn collect_names(tree: &syn::UseTree, out: &mut Vec<String>) {
    match tree {
        syn::UseTree::Path(p) => collect_names(&p.tree, out),
        syn::UseTree::Name(n) => out.push(n.ident.to_string()),
        syn::UseTree::Rename(r) => out.push(r.rename.to_string()),
        syn::UseTree::Glob(_) => {}
        syn::UseTree::Group(g) => g.items.iter().for_each(|t| collect_names(t, out)),
    }
}

fn is_pub(vis: &syn::Visibility) -> bool {
    !matches!(vis, syn::Visibility::Inherited)
}

/// `#[cfg(test)]` (or a `cfg` whose condition names `test`): compiled for tests only.
fn is_test_only(attrs: &[syn::Attribute]) -> bool {
    attrs.iter().any(|a| {
        a.path().is_ident("cfg")
            && a.meta.require_list().is_ok_and(|l| {
                l.tokens
                    .to_string()
                    .split(|c: char| !c.is_alphanumeric() && c != '_')
                    .any(|w| w == "test")
            })
    })
}

/// `#[path = "file.rs"]`.
fn path_attr(attrs: &[syn::Attribute]) -> Option<String> {
    attrs.iter().find_map(|a| {
        let syn::Meta::NameValue(nv) = &a.meta else {
            return None;
        };
        if !nv.path.is_ident("path") {
            return None;
        }
        match &nv.value {
            syn::Expr::Lit(syn::ExprLit {
                lit: syn::Lit::Str(s),
                ..
            }) => Some(s.value()),
            _ => None,
        }
    })
}

/// An import lifted to the level where it joins two siblings: the children of the two
/// modules' closest common ancestor that hold them. `None` between a module and one of its
/// own descendants: a module's submodules are its parts, free to use each other and it.
fn lift(from: &ModPath, to: &ModPath) -> Option<(ModPath, ModPath)> {
    let common = from.iter().zip(to).take_while(|(a, b)| a == b).count();
    if common == from.len() || common == to.len() {
        return None;
    }
    Some((from[..=common].to_vec(), to[..=common].to_vec()))
}

/// The imports between siblings (see [`lift`]).
fn lifted(
    edges: &BTreeMap<(ModPath, ModPath), BTreeSet<String>>,
) -> BTreeMap<(ModPath, ModPath), BTreeSet<String>> {
    let mut lifted: BTreeMap<(ModPath, ModPath), BTreeSet<String>> = BTreeMap::new();
    for ((from, to), names) in edges {
        if let Some(pair) = lift(from, to) {
            lifted
                .entry(pair)
                .or_default()
                .extend(names.iter().cloned());
        }
    }
    lifted
}

/// The strongly connected components of more than one module, by Tarjan's algorithm.
fn cycles(edges: &BTreeMap<(ModPath, ModPath), BTreeSet<String>>) -> Vec<BTreeSet<ModPath>> {
    let mut graph: BTreeMap<&ModPath, Vec<&ModPath>> = BTreeMap::new();
    for (from, to) in edges.keys() {
        graph.entry(from).or_default().push(to);
        graph.entry(to).or_default();
    }
    let nodes: Vec<&ModPath> = graph.keys().copied().collect();
    let mut index: HashMap<&ModPath, usize> = HashMap::new();
    let mut low: HashMap<&ModPath, usize> = HashMap::new();
    let mut on_stack: BTreeSet<&ModPath> = BTreeSet::new();
    let mut stack: Vec<&ModPath> = Vec::new();
    let mut found = Vec::new();
    let mut next = 0;
    for node in nodes {
        if !index.contains_key(node) {
            strong(
                node,
                &graph,
                &mut next,
                &mut index,
                &mut low,
                &mut stack,
                &mut on_stack,
                &mut found,
            );
        }
    }
    found
}

#[allow(clippy::too_many_arguments)]
fn strong<'a>(
    node: &'a ModPath,
    graph: &BTreeMap<&'a ModPath, Vec<&'a ModPath>>,
    next: &mut usize,
    index: &mut HashMap<&'a ModPath, usize>,
    low: &mut HashMap<&'a ModPath, usize>,
    stack: &mut Vec<&'a ModPath>,
    on_stack: &mut BTreeSet<&'a ModPath>,
    found: &mut Vec<BTreeSet<ModPath>>,
) {
    index.insert(node, *next);
    low.insert(node, *next);
    *next += 1;
    stack.push(node);
    on_stack.insert(node);
    for &to in graph.get(node).map(Vec::as_slice).unwrap_or(&[]) {
        if !index.contains_key(to) {
            strong(to, graph, next, index, low, stack, on_stack, found);
            let l = low[to].min(low[node]);
            low.insert(node, l);
        } else if on_stack.contains(to) {
            let l = index[to].min(low[node]);
            low.insert(node, l);
        }
    }
    if low[node] == index[node] {
        let mut component = BTreeSet::new();
        while let Some(top) = stack.pop() {
            on_stack.remove(top);
            component.insert(top.clone());
            if top == node {
                break;
            }
        }
        if component.len() > 1 {
            found.push(component);
        }
    }
}

#[cfg(test)]
mod tests;
