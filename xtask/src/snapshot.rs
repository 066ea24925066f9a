//! `cargo xtask snapshot`: the job CSV of every trace x policy x estimate
//! kind that a `host-cli` binary writes, so that two builds can be compared
//! file by file (a change meant to keep schedules must leave every file
//! byte-identical), and the comparison of two such folders.

use crate::exec;
use crate::repo;
use backfill_core::Policy;
use std::path::{Path, PathBuf};
use std::process::Command;

/// Every policy the snapshot replays by default: core's `Policy::ALL` by
/// name, Conservative without compression as `cons-nc`; that one and
/// `cons-rs` on each trace's first 20,000 jobs, as in the real-trace test.
pub fn default_policies() -> Vec<String> {
    Policy::ALL
        .iter()
        .map(|p| match p {
            Policy::ConservativeNoCompression => "cons-nc".to_owned(),
            p => p.name().to_owned(),
        })
        .collect()
}

/// Writes `DIR/TRACE.POLICY.ESTIMATES.csv` (`replay --jobs-out`) for every
/// trace in `traces`, policy in `policies` and estimate kind, `jobs` at a
/// time. A replay that fails is listed in the error after all others ran.
pub fn write(
    bin: &Path,
    dir: &Path,
    policies: &[String],
    traces: &Path,
    jobs: usize,
) -> Result<(), String> {
    if !bin.is_file() {
        return Err(format!("host-cli binary {} not found", bin.display()));
    }
    let traces = repo::traces_in(traces)?;
    std::fs::create_dir_all(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    let mut list = Vec::new();
    for trace in &traces {
        for policy in policies {
            for estimates in ["user", "exact"] {
                list.push((trace.clone(), policy.clone(), estimates));
            }
        }
    }
    let failed = std::sync::Mutex::new(Vec::new());
    exec::parallel(jobs, &list, |(trace, policy, estimates)| {
        let out = dir.join(format!("{}.{policy}.{estimates}.csv", repo::stem(trace)));
        let mut command = Command::new(bin);
        command
            .arg("replay")
            .arg(trace)
            .args(["--estimates", estimates]);
        match policy.as_str() {
            "cons-rs" => command.args(["--policy", "cons-rs", "--first", "20000"]),
            "cons-nc" => command.args([
                "--policy",
                "conservative",
                "--first",
                "20000",
                "--no-compression",
            ]),
            p => command.args(["--policy", p]),
        };
        command.arg("--jobs-out").arg(&out);
        let report = dir.join(format!(
            ".{}.{policy}.{estimates}.report",
            repo::stem(trace)
        ));
        let result = exec::to_file(command, &report, None);
        let _ = std::fs::remove_file(&report);
        if let Err(e) = result {
            if let Ok(mut f) = failed.lock() {
                f.push(e);
            }
        }
        Ok(())
    })?;
    let count = csv_files(dir)?.len();
    println!("{count} job CSVs in {}", dir.display());
    let failed = failed.into_inner().unwrap_or_default();
    if failed.is_empty() {
        Ok(())
    } else {
        Err(format!(
            "{} replays failed:\n{}",
            failed.len(),
            failed.join("\n")
        ))
    }
}

/// The `.csv` files in `dir`, by name.
fn csv_files(dir: &Path) -> Result<Vec<PathBuf>, String> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir)
        .map_err(|e| format!("{}: {e}", dir.display()))?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "csv"))
        .collect();
    files.sort();
    Ok(files)
}

/// Compares the job CSVs of two snapshot folders byte for byte: prints the
/// count of identical files and names every file that differs or is in
/// one folder only (then fails).
pub fn compare(a: &Path, b: &Path) -> Result<(), String> {
    let names = |dir: &Path| -> Result<Vec<String>, String> {
        Ok(csv_files(dir)?
            .iter()
            .filter_map(|p| p.file_name().map(|n| n.to_string_lossy().into_owned()))
            .collect())
    };
    let (na, nb) = (names(a)?, names(b)?);
    let mut identical = 0;
    let mut problems = Vec::new();
    for name in &na {
        if !nb.contains(name) {
            problems.push(format!("only in {}: {name}", a.display()));
            continue;
        }
        let read = |d: &Path| std::fs::read(d.join(name)).map_err(|e| format!("{name}: {e}"));
        if read(a)? == read(b)? {
            identical += 1;
        } else {
            problems.push(format!("differs: {name}"));
        }
    }
    for name in nb.iter().filter(|n| !na.contains(n)) {
        problems.push(format!("only in {}: {name}", b.display()));
    }
    println!(
        "{identical} of {} job CSVs identical ({} in {}, {} in {})",
        na.len().max(nb.len()),
        na.len(),
        a.display(),
        nb.len(),
        b.display()
    );
    if problems.is_empty() {
        Ok(())
    } else {
        Err(problems.join("\n"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn compare_counts_identical_files_and_names_the_others() {
        let (a, b) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
        for (dir, same, other) in [(&a, "x", "1"), (&b, "x", "2")] {
            std::fs::write(dir.path().join("same.csv"), same).unwrap();
            std::fs::write(dir.path().join("other.csv"), other).unwrap();
        }
        std::fs::write(a.path().join("extra.csv"), "").unwrap();
        let e = compare(a.path(), b.path()).unwrap_err();
        assert!(e.contains("differs: other.csv"), "{e}");
        assert!(e.contains("only in") && e.contains("extra.csv"), "{e}");
        std::fs::remove_file(a.path().join("extra.csv")).unwrap();
        std::fs::write(b.path().join("other.csv"), "1").unwrap();
        assert!(compare(a.path(), b.path()).is_ok());
    }
}
