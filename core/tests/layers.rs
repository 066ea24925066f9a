//! The layering that `src/lib.rs` promises: each module of the library
//! only uses the ones below it, so the module graph has no circle.

use std::path::{Path, PathBuf};

/// The modules from the bottom up (`lib.rs`, "Layers"; `deck` and `rng`
/// are leaf utilities).
const LAYERS: &[&str] = &[
    "types", "rng", "deck", "profile", "plan", "tally", "state", "policy", "kernel", "sim",
    "metrics",
];

fn sources(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            sources(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

/// Every `crate::name` outside comments and test modules in the files of
/// module `layer` names a module below it.
#[test]
fn modules_use_only_lower_layers() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = Vec::new();
    sources(&src, &mut files);
    let mut checked = 0;
    for file in files {
        let rel = file.strip_prefix(&src).unwrap();
        let top = rel
            .components()
            .next()
            .unwrap()
            .as_os_str()
            .to_string_lossy();
        let module = top.trim_end_matches(".rs");
        if module == "lib" || rel.file_name().is_some_and(|n| n == "tests.rs") {
            continue;
        }
        let level = LAYERS
            .iter()
            .position(|m| *m == module)
            .unwrap_or_else(|| panic!("module {module} ({}) is not in LAYERS", rel.display()));
        let text = std::fs::read_to_string(&file).unwrap();
        for (n, line) in text.lines().enumerate() {
            let code = line.trim_start();
            if code.starts_with("mod tests") {
                break; // tests may use anything
            }
            if code.starts_with("//") {
                continue;
            }
            for (at, _) in code.match_indices("crate::") {
                let used: String = code[at + 7..]
                    .chars()
                    .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
                    .collect();
                let Some(used_level) = LAYERS.iter().position(|m| *m == used) else {
                    continue;
                };
                assert!(
                    used_level < level || used == module,
                    "{}:{}: {module} uses crate::{used}, which is not below it",
                    rel.display(),
                    n + 1
                );
                checked += 1;
            }
        }
    }
    assert!(checked > 20, "only {checked} crate:: paths found");
}
