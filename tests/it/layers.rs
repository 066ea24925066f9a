//! The layering each crate's `lib.rs` promises: each module only uses the
//! modules below it, so neither crate's module graph has a circle. Read
//! from the sources: every `crate::name` outside comments and test modules
//! must name a lower layer.

use std::path::{Path, PathBuf};

/// backfill-core's modules from the bottom up (`core/src/lib.rs`,
/// "Layers"; `deck` and `rng` are leaf utilities).
const CORE: &[&str] = &[
    "types",
    "rng",
    "deck",
    "profile",
    "plan",
    "reason",
    "tally",
    "state",
    "policy",
    "checkpoint",
    "kernel",
    "sim",
    "metrics",
];

/// backfill-cli's modules from the bottom up (`host-cli/src/lib.rs`): the
/// stages a trace goes through, from reading it to the command line
/// (`numbers` is a leaf utility, `error` the host's error type).
const HOST_CLI: &[&str] = &[
    "numbers", "swf", "error", "workload", "replay", "output", "studies", "farm", "plan", "cli",
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

/// Checks the crate whose sources are in `src` against `layers`; returns
/// how many `crate::` paths it checked.
fn check(src: &Path, layers: &[&str]) -> usize {
    let mut files = Vec::new();
    sources(src, &mut files);
    let mut checked = 0;
    for file in files {
        let rel = file.strip_prefix(src).unwrap();
        let top = rel
            .components()
            .next()
            .unwrap()
            .as_os_str()
            .to_string_lossy();
        let module = top.trim_end_matches(".rs");
        if matches!(module, "lib" | "main") || rel.file_name().is_some_and(|n| n == "tests.rs") {
            continue;
        }
        let level = layers.iter().position(|m| *m == module).unwrap_or_else(|| {
            panic!(
                "module {module} ({}) is not in the layer list",
                rel.display()
            )
        });
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
                let Some(used_level) = layers.iter().position(|m| *m == used) else {
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
    checked
}

#[test]
fn core_modules_use_only_lower_layers() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("../core/src");
    let checked = check(&src, CORE);
    assert!(checked > 20, "only {checked} crate:: paths found");
}

#[test]
fn host_cli_modules_use_only_lower_layers() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("../host-cli/src");
    let checked = check(&src, HOST_CLI);
    assert!(checked > 20, "only {checked} crate:: paths found");
}
