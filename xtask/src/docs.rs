//! `cargo xtask docs [--check]`: every study's document (and the files that
//! follow from its committed data without a replay) made again from
//! `docs/studies/NAME/data/`, and written or compared.

use crate::repo;
use crate::study;

/// Writes every generated file, or with `check` compares them with the
/// committed ones and fails naming every difference.
pub fn run(check: bool) -> Result<(), String> {
    let studies = repo::studies_dir();
    let mut differences = Vec::new();
    let mut files = 0;
    for (name, generate) in study::ALL {
        let dir = studies.join(name);
        for (rel, text) in generate(&dir).map_err(|e| format!("study {name}: {e}"))? {
            files += 1;
            let path = dir.join(&rel);
            let old = std::fs::read_to_string(&path).ok();
            if old.as_deref() == Some(text.as_str()) {
                continue;
            }
            if check {
                differences.push(describe(&path, old.as_deref(), &text));
            } else {
                repo::write_text(&path, &text)?;
                eprintln!("wrote {}", path.display());
            }
        }
    }
    if differences.is_empty() {
        eprintln!(
            "{files} generated files {} the committed data",
            if check { "agree with" } else { "written from" }
        );
        Ok(())
    } else {
        Err(format!(
            "{} of {files} generated files differ from what the committed data gives \
             (`cargo xtask docs` writes them):\n{}",
            differences.len(),
            differences.join("\n")
        ))
    }
}

/// Where `new` first differs from `old` (missing when `None`).
fn describe(path: &std::path::Path, old: Option<&str>, new: &str) -> String {
    let Some(old) = old else {
        return format!("  {}: missing", path.display());
    };
    let (a, b): (Vec<&str>, Vec<&str>) = (old.lines().collect(), new.lines().collect());
    let line = a
        .iter()
        .zip(&b)
        .position(|(x, y)| x != y)
        .unwrap_or(a.len().min(b.len()));
    let show = |v: &[&str]| {
        v.get(line).map_or("(end of file)".to_owned(), |l| {
            let l: String = l.chars().take(160).collect();
            format!("{l:?}")
        })
    };
    format!(
        "  {}: line {}\n    committed: {}\n    generated: {}",
        path.display(),
        line + 1,
        show(&a),
        show(&b)
    )
}
