//! A study checks its inputs before it touches anything: without its
//! traces it fails naming the folder and how to give it, and the study
//! folder it would replace is left as it was.

use std::path::Path;
use std::process::Command;

/// The xtask binary under test.
const BIN: &str = env!("CARGO_BIN_EXE_xtask");

/// Every file under `dir` with its contents, sorted by path.
fn contents(dir: &Path) -> Vec<(String, Vec<u8>)> {
    let mut out = Vec::new();
    for entry in std::fs::read_dir(dir).expect("read dir") {
        let entry = entry.expect("entry");
        if entry.file_type().expect("type").is_dir() {
            out.extend(contents(&entry.path()));
        } else {
            let bytes = std::fs::read(entry.path()).expect("read");
            out.push((entry.path().display().to_string(), bytes));
        }
    }
    out.sort();
    out
}

#[test]
fn a_study_without_its_traces_fails_first_and_keeps_the_old_results() {
    let scratch = tempfile::tempdir().expect("scratch");
    let empty = scratch.path().join("no-traces-here");
    std::fs::create_dir(&empty).expect("empty traces folder");
    let out_dir = scratch.path().join("studies");
    for study in ["selective", "cons-rs", "dpsa", "policies"] {
        // The results of an earlier run, which a failed run must not touch.
        let folder = out_dir.join(study);
        std::fs::create_dir_all(folder.join("data")).expect("old study");
        std::fs::write(folder.join("README.md"), "old results\n").expect("old readme");
        std::fs::write(folder.join("data/runs.csv"), "a,b\n1,2\n").expect("old data");
        let before = contents(&out_dir);
        for traces in [empty.as_path(), &scratch.path().join("missing")] {
            let run = Command::new(BIN)
                .args(["study", study, "--traces"])
                .arg(traces)
                .arg("--out")
                .arg(&out_dir)
                // No host-cli is built: the inputs are checked first.
                .args(["--bin", "/nonexistent/host-cli"])
                .output()
                .expect("run xtask");
            let err = String::from_utf8_lossy(&run.stderr);
            assert!(!run.status.success(), "{study}: {err}");
            assert!(
                err.contains(&traces.display().to_string()),
                "{study}: the message names no traces folder: {err}"
            );
            assert_eq!(
                contents(&out_dir),
                before,
                "{study}: the old results changed"
            );
        }
    }
}
