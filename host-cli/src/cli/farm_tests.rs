//! The farm commands end to end: `generate farm` (determinism, both files
//! or neither), `replay --farm` (farm metrics, `--jobs-out`, errors naming
//! the file) and a small `farm-study` writing its CSV and SVG files.

use super::tests::{cli, scratch};
use std::path::{Path, PathBuf};

fn s(p: &Path) -> &str {
    p.to_str().unwrap()
}

/// Generates a 200-job farm with `seed` into `dir`.
fn generate(dir: &Path, seed: &str) -> (PathBuf, PathBuf) {
    let (farm, jobs) = (dir.join("farm.toml"), dir.join("jobs.csv"));
    let out = cli(&[
        "generate",
        "farm",
        "--jobs",
        "200",
        "--seed",
        seed,
        "--farm-out",
        s(&farm),
        "--jobs-out",
        s(&jobs),
    ])
    .unwrap();
    assert!(
        out.contains("100 machines") && out.contains("200 jobs"),
        "{out}"
    );
    (farm, jobs)
}

#[test]
fn generate_farm_is_deterministic_and_replays() {
    let dir = scratch("generate");
    let (farm, jobs) = generate(&dir, "5");
    let first = (std::fs::read(&farm).unwrap(), std::fs::read(&jobs).unwrap());
    generate(&dir, "5");
    let again = (std::fs::read(&farm).unwrap(), std::fs::read(&jobs).unwrap());
    assert_eq!(first, again, "same seed, same files");
    generate(&dir, "6");
    assert_ne!(
        std::fs::read(&jobs).unwrap(),
        first.1,
        "another seed, other jobs"
    );

    let per_job = dir.join("out.csv");
    let text = cli(&[
        "replay",
        "--farm",
        s(&farm),
        s(&jobs),
        "--policy",
        "bf-mod",
        "--jobs-out",
        s(&per_job),
    ])
    .unwrap();
    for needle in [
        "policy       bf-mod",
        "system usage",
        "deadlines",
        "license usage",
        "hand-overs",
    ] {
        assert!(text.contains(needle), "{needle:?} missing in\n{text}");
    }
    let rows = std::fs::read_to_string(&per_job).unwrap();
    assert_eq!(rows.lines().filter(|l| !l.starts_with('#')).count(), 201);
    let json = cli(&["replay", "--farm", s(&farm), s(&jobs), "--format", "json"]).unwrap();
    assert!(json.contains("\"system_usage\""), "{json}");
}

#[test]
fn generate_farm_writes_both_files_or_neither() {
    let dir = scratch("atomic");
    let farm = dir.join("farm.toml");
    let err = cli(&[
        "generate",
        "farm",
        "--farm-out",
        s(&farm),
        "--jobs-out",
        s(&dir.join("missing-dir").join("jobs.csv")),
    ])
    .unwrap_err();
    assert!(err.contains("--jobs-out"), "{err}");
    assert!(!farm.exists(), "no farm file without its job list");
}

#[test]
fn replay_farm_errors_name_the_file_and_line() {
    let dir = scratch("errors");
    let farm = dir.join("farm.toml");
    std::fs::write(&farm, "machine = [{ name = \"a\", cpus = 4 }]\n").unwrap();
    let jobs = dir.join("jobs.csv");
    std::fs::write(&jobs, "id,submit,cpus,estimate\n1,0,2,10\n2,0,x,10\n").unwrap();
    let err = cli(&["replay", "--farm", s(&farm), s(&jobs)]).unwrap_err();
    assert!(
        err.contains("jobs.csv") && err.contains('3') && err.contains("cpus"),
        "{err}"
    );
    let err = cli(&["replay", "--farm", s(&farm)]).unwrap_err();
    assert!(err.contains("JOBS.csv"), "{err}");
    std::fs::write(&jobs, "id,submit,cpus,estimate\n1,0,9,10\n").unwrap();
    let err = cli(&["replay", "--farm", s(&farm), s(&jobs)]).unwrap_err();
    assert!(err.contains("nothing to schedule"), "{err}");
}

#[test]
fn a_small_farm_study_writes_its_files() {
    let dir = scratch("study");
    let text = cli(&[
        "farm-study",
        "--jobs",
        "60",
        "--machines",
        "20",
        "--means",
        "6,24",
        "--repetitions",
        "2",
        "--license-ratios",
        "20-40,60-80",
        "--data-dir",
        s(&dir),
        "--figures-dir",
        s(&dir),
    ])
    .unwrap();
    assert!(text.contains("deadlines missed"), "{text}");
    for name in crate::farm::study::csv_names(true)
        .into_iter()
        .chain(crate::farm::study::figure_names(true))
    {
        let body = std::fs::read_to_string(dir.join(name)).unwrap();
        assert!(!body.is_empty(), "{name} is empty");
    }
    let grid = std::fs::read_to_string(dir.join("farm-grid.csv")).unwrap();
    // Header + 2 means x 2 repetitions x 4 policies.
    assert_eq!(grid.lines().count(), 1 + 2 * 2 * 4);
}

/// The Alea flavour of CONS+RS runs on one machine without license pools:
/// a farm replay or study naming it is refused before anything runs.
#[test]
fn the_alea_flavour_is_refused_on_farms() {
    let dir = scratch("alea-farm");
    let (farm, jobs) = generate(&dir, "3");
    let err = cli(&[
        "replay",
        "--farm",
        s(&farm),
        s(&jobs),
        "--policy",
        "cons-rs-alea",
    ])
    .unwrap_err();
    assert!(
        err.contains("cons-rs-alea runs on one machine without license pools, not --farm"),
        "{err}"
    );
    let err = cli(&[
        "farm-study",
        "--jobs",
        "20",
        "--policies",
        "bf-fcfs,cons-rs-alea",
        "--data-dir",
        s(&dir),
    ])
    .unwrap_err();
    assert!(
        err.contains("--policies: cons-rs-alea runs on one machine"),
        "{err}"
    );
}
