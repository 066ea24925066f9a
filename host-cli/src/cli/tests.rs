//! End-to-end tests of the subcommands: parse a command line, run it on
//! the synthetic workload or a tiny SWF file, check what it prints and
//! writes.

use super::{run, Cli};
use clap::Parser;
use std::path::PathBuf;

/// A fresh scratch directory for one test (`name` unique among the
/// command-line tests).
pub(super) fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("host-cli-test-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// Parses and runs `host-cli ARGS`, returning what it prints or the error.
pub(super) fn cli(args: &[&str]) -> Result<String, String> {
    let mut argv = vec!["host-cli"];
    argv.extend_from_slice(args);
    let parsed = Cli::try_parse_from(argv).map_err(|e| e.to_string())?;
    run(&parsed.command).map_err(|e| e.to_string())
}

/// Four jobs on 10 processors, worked by hand (exact estimates = requested
/// times = run times).
///
/// * J1 (t=0, 6 procs, 100 s) runs at once.
/// * J2 (t=1, 8 procs, 100 s) waits for J1: fair start 100.
/// * J3 (t=2, 10 procs, 100 s): strict FCFS puts it after J2, at 200.
/// * J4 (t=3, 2 procs, 250 s): after J3, which holds all 10 until 300.
///
/// Conservative reserves J2 at 100, J3 at 200, J4 at 300 (at 3 it would
/// overlap J3): every job starts at its fair start. EASY backfills J4 at 3
/// on the two processors J2 leaves spare at its shadow time (100); so J3,
/// head after J2 starts, waits for J4's end: 253 instead of 200, a ratio
/// of (251 + 100) / (198 + 100) = 1.18, bucket 1-1.5.
const TINY: &str = "\
; MaxProcs: 10
1 0 0 100 6 -1 -1 6 100 -1 1 1 1 1 1 1 -1 -1
2 1 0 100 8 -1 -1 8 100 -1 1 1 1 1 1 1 -1 -1
3 2 0 100 10 -1 -1 10 100 -1 1 1 1 1 1 1 -1 -1
4 3 0 250 2 -1 -1 2 250 -1 1 1 1 1 1 1 -1 -1
5 4 0 -1 2 -1 -1 2 250 -1 5 1 1 1 1 1 -1 -1
";

fn tiny_trace(dir: &std::path::Path) -> String {
    let path = dir.join("tiny.swf");
    std::fs::write(&path, TINY).unwrap();
    path.display().to_string()
}

#[test]
fn fairness_on_a_hand_worked_trace() {
    let dir = scratch("fair");
    let trace = tiny_trace(&dir);
    let jobs = dir.join("jobs.csv");
    let json = cli(&[
        "fairness",
        &trace,
        "--estimates",
        "exact",
        "--policies",
        "conservative,easy",
        "--format",
        "json",
        "--jobs-out",
        jobs.to_str().unwrap(),
    ])
    .unwrap();
    let v: serde_json::Value = serde_json::from_str(&json).unwrap();
    let acc = &v["scenario"]["accounting"];
    assert_eq!(acc["jobs_in_window"], 5);
    assert_eq!(acc["scheduled"], 4);
    assert_eq!(
        acc["skipped"]["no_run_time"], 1,
        "job 5 has no run time: {acc}"
    );
    assert_eq!(v["jobs_counted"], 4);
    // Fair slowdowns 1, 1.99, 2.98, (297 + 250) / 250 = 2.188.
    let mean = v["mean_fair_slowdown"].as_f64().unwrap();
    assert!(
        (mean - (1.0 + 1.99 + 2.98 + 2.188) / 4.0).abs() < 1e-9,
        "{mean}"
    );
    let counts = |i: usize| v["policies"][i]["overall"]["counts"].clone();
    assert_eq!(v["policies"][0]["policy"], "conservative");
    assert_eq!(counts(0), serde_json::json!([4, 0, 0, 0, 0]));
    assert_eq!(counts(1), serde_json::json!([3, 1, 0, 0, 0]));
    let per_job = std::fs::read_to_string(&jobs).unwrap();
    let rows: Vec<&str> = per_job.lines().collect();
    assert_eq!(rows.len(), 5, "{per_job}");
    assert!(rows[0].starts_with("job_id,submit,procs,runtime,run,estimate,class,fair_start"));
    // J3: fair start 200, fair slowdown 2.98; EASY starts it at 253.
    assert!(
        rows[3]
            .starts_with("3,2,10,100,100,100,<=10m,200,198,2.9800,200,2.9800,<=1,253,3.5100,1-1.5"),
        "{}",
        rows[3]
    );
}

#[test]
fn replay_selective_takes_thresholds_from_conservative_by_default() {
    let dir = scratch("replay");
    let trace = tiny_trace(&dir);
    let text = cli(&[
        "replay",
        &trace,
        "--estimates",
        "exact",
        "--policy",
        "selective",
    ])
    .unwrap();
    // Conservative's mean bounded slowdown on TINY: (1 + 1.99 + 2.98 + 2.188) / 4.
    assert!(
        text.contains("thresholds   2.04 (from the mean bounded slowdown of a Conservative run"),
        "{text}"
    );
    assert!(text.contains("the default"), "{text}");
    assert!(
        text.contains("Selective threshold (overall): 2.040"),
        "{text}"
    );
    // The timing line keeps the Conservative pre-run apart from the replay.
    let timing = text.lines().find(|l| l.starts_with("wall time")).unwrap();
    assert!(
        timing.contains(" s replay, ")
            && timing.contains(" s Conservative pre-run for the thresholds, ")
            && timing.contains(" s in all"),
        "{timing}"
    );
    let given = cli(&[
        "replay",
        &trace,
        "--policy",
        "selective-d",
        "--thresholds",
        "1.5,2,3,4.25",
    ])
    .unwrap();
    assert!(
        given.contains("thresholds   SN 1.50, SW 2.00, LN 3.00, LW 4.25 (--thresholds)"),
        "{given}"
    );
    let err = cli(&["replay", &trace, "--policy", "easy", "--threshold", "3"]).unwrap_err();
    assert_eq!(
        err,
        "--threshold is for selective only, and the policies are easy"
    );
    let err = cli(&[
        "replay",
        &trace,
        "--policy",
        "selective",
        "--threshold",
        "0.5",
    ])
    .unwrap_err();
    assert!(err.contains("at least 1"), "{err}");
    let csv = cli(&[
        "replay",
        &trace,
        "--policy",
        "selective-scaled",
        "--format",
        "csv",
    ])
    .unwrap();
    assert_eq!(csv.lines().count(), 6, "{csv}");
}

#[test]
fn thresholds_command_prints_the_grid() {
    let text = cli(&[
        "thresholds",
        "--synthetic-jobs",
        "300",
        "--estimates",
        "user",
    ])
    .unwrap();
    for needle in [
        "trace        built-in Lublin-Feitelson batch model (seed 1, 300 jobs)",
        "window       whole trace   estimates user   load x1",
        "300 job lines in window; 300 scheduled",
        "       N         W",
        "Selective threshold (overall):",
        "well-estimated jobs (run >= estimate/2",
    ] {
        assert!(text.contains(needle), "{needle:?} missing in\n{text}");
    }
    let csv = cli(&["thresholds", "--synthetic-jobs", "300", "--format", "csv"]).unwrap();
    let lines: Vec<&str> = csv.lines().collect();
    assert_eq!(lines.len(), 6);
    assert_eq!(
        lines[0],
        "trace,window,estimates,load,offered_load,set,jobs,jobs_in_set,mean_bounded_slowdown,threshold"
    );
}

#[test]
fn compare_writes_table_csv_and_svg() {
    let dir = scratch("compare");
    let csv = dir.join("c.csv");
    let svg = dir.join("c.svg");
    let text = cli(&[
        "compare",
        "--synthetic-jobs",
        "300",
        "--policies",
        "easy,selective,selective-d",
        "--csv",
        csv.to_str().unwrap(),
        "--svg",
        svg.to_str().unwrap(),
    ])
    .unwrap();
    assert!(
        text.contains("percent change against conservative on the same 300 jobs"),
        "{text}"
    );
    assert!(text.contains("thresholds   selective-d: SN "), "{text}");
    let csv = std::fs::read_to_string(csv).unwrap();
    let mut lines = csv.lines();
    let header: Vec<&str> = lines.next().unwrap().split(',').collect();
    assert_eq!(header.len(), 19);
    assert_eq!(&header[..3], ["trace", "window", "estimates"]);
    // Baseline added in front: 4 policies x 5 sets.
    let rows: Vec<&str> = lines.collect();
    assert_eq!(rows.len(), 20);
    assert!(
        rows[0].contains(",conservative,conservative,all,300,"),
        "{}",
        rows[0]
    );
    let svg = std::fs::read_to_string(svg).unwrap();
    assert!(svg.starts_with("<svg") && svg.contains("selective-d") && svg.contains("LW"));
    let json = cli(&[
        "compare",
        "--synthetic-jobs",
        "200",
        "--policies",
        "easy",
        "--format",
        "json",
    ])
    .unwrap();
    let v: serde_json::Value = serde_json::from_str(&json).unwrap();
    assert_eq!(
        v["comparison"]["policies"][0]["sets"][0]["mean_bounded_slowdown_change_pct"],
        0.0
    );
}

#[test]
fn sweep_runs_every_load_and_policy() {
    let dir = scratch("sweep");
    let svg = dir.join("s.svg");
    let text = cli(&[
        "sweep",
        "--synthetic-jobs",
        "200",
        "--loads",
        "1.0,1.5",
        "--policies",
        "easy,selective,selective-scaled",
        "--scale",
        "2",
        "--svg",
        svg.to_str().unwrap(),
        "--set",
        "sn",
    ])
    .unwrap();
    assert!(text.contains("mean bounded slowdown, set SN"), "{text}");
    assert!(text.contains("x 2.00, 1.00 before the first"), "{text}");
    let csv = cli(&[
        "sweep",
        "--synthetic-jobs",
        "200",
        "--loads",
        "1,2",
        "--format",
        "csv",
    ])
    .unwrap();
    // 2 loads x 4 policies x 5 sets.
    assert_eq!(csv.lines().count(), 1 + 40);
    assert!(std::fs::read_to_string(svg)
        .unwrap()
        .contains("load factor"));
    let err = cli(&["sweep", "--synthetic-jobs", "50", "--loads", "1,-1"]).unwrap_err();
    assert!(err.contains("`-1` is not a load factor"), "{err}");
}

#[test]
fn fairness_on_the_synthetic_workload() {
    let dir = scratch("fairness");
    let svg = dir.join("f.svg");
    let csv = dir.join("f.csv");
    let text = cli(&[
        "fairness",
        "--synthetic-jobs",
        "300",
        "--svg",
        svg.to_str().unwrap(),
        "--csv",
        csv.to_str().unwrap(),
    ])
    .unwrap();
    assert!(
        text.contains("share of jobs (%) by bounded slowdown / fair slowdown (Table 9)"),
        "{text}"
    );
    assert!(text.contains("counted      300 jobs"), "{text}");
    let csv = std::fs::read_to_string(csv).unwrap();
    // 4 policies x (all + 5 classes).
    assert_eq!(csv.lines().count(), 1 + 24);
    assert!(std::fs::read_to_string(svg).unwrap().contains("sjf-easy"));
}

#[test]
fn jobs_without_requested_time_are_counted_in_info_and_replay() {
    let dir = scratch("noreq");
    let path = dir.join("noreq.swf");
    // Job 2 has no requested time (field 9 = -1), job 3 a zero one: both
    // fall back to their run time as the user estimate.
    std::fs::write(
        &path,
        "; MaxProcs: 4\n\
         1 0 0 50 2 -1 -1 2 100 -1 1 1 1 1 1 1 -1 -1\n\
         2 1 0 60 2 -1 -1 2 -1 -1 1 1 1 1 1 1 -1 -1\n\
         3 2 0 70 4 -1 -1 4 0 -1 1 1 1 1 1 1 -1 -1\n",
    )
    .unwrap();
    let trace = path.display().to_string();
    let info = cli(&["info", &trace]).unwrap();
    assert!(
        info.contains("2 jobs have no requested time (field 9)"),
        "{info}"
    );
    let table = cli(&["replay", &trace]).unwrap();
    assert!(
        table.contains("2 jobs have no requested time (field 9)"),
        "{table}"
    );
    let json: serde_json::Value =
        serde_json::from_str(&cli(&["replay", &trace, "--format", "json"]).unwrap()).unwrap();
    assert_eq!(json["accounting"]["no_requested_time"], 2);
    assert_eq!(json["accounting"]["scheduled"], 3);
}

#[test]
fn the_window_selects_synthetic_jobs_too() {
    let json: serde_json::Value = serde_json::from_str(
        &cli(&[
            "replay",
            "--synthetic-jobs",
            "300",
            "--skip",
            "50",
            "--first",
            "100",
            "--format",
            "json",
        ])
        .unwrap(),
    )
    .unwrap();
    assert_eq!(json["accounting"]["records_read"], 300);
    assert_eq!(json["accounting"]["jobs_in_window"], 100);
    assert_eq!(json["accounting"]["scheduled"], 100);
    assert_eq!(json["metrics"][0]["jobs"], 100);
}

#[test]
fn replay_reports_dpsa_searches_and_the_budget() {
    let text = cli(&["replay", "--synthetic-jobs", "800", "--policy", "dpsa-n"]).unwrap();
    assert!(
        text.contains("dpsa search  budget 100000 nodes/pass;"),
        "{text}"
    );
    let json: serde_json::Value = serde_json::from_str(
        &cli(&[
            "replay",
            "--synthetic-jobs",
            "800",
            "--policy",
            "dpsa-p",
            "--dpsa-nodes",
            "0",
            "--format",
            "json",
        ])
        .unwrap(),
    )
    .unwrap();
    assert_eq!(json["policy"], "dpsa-p");
    assert_eq!(json["dpsa"]["budget"], 0);
    assert_eq!(json["dpsa"]["nodes"], 0);
    assert_eq!(json["dpsa"]["budget_hits"], json["dpsa"]["searches"]);
    // With no budget DPSA-p is EASY.
    let easy: serde_json::Value = serde_json::from_str(
        &cli(&["replay", "--synthetic-jobs", "800", "--format", "json"]).unwrap(),
    )
    .unwrap();
    assert_eq!(json["metrics"], easy["metrics"]);
    assert!(easy.get("dpsa").is_none(), "no DPSA line for EASY");
    let err = cli(&["replay", "--policy", "easy", "--dpsa-nodes", "5"]).unwrap_err();
    assert!(err.contains("--dpsa-nodes applies to dpsa-p"), "{err}");
}

/// Every phase that replays jobs has a progress bar, and each bar counts
/// to its end (bars are hidden off a terminal but count all the same).
#[test]
fn every_replaying_phase_has_a_progress_bar() {
    let phases = |args: &[&str]| {
        let (result, phases) = crate::output::progress::recording(|| cli(args));
        result.unwrap();
        assert!(
            phases.iter().all(|p| p.done == p.total && p.total > 0),
            "{phases:?}"
        );
        phases
            .into_iter()
            .map(|p| (p.label, p.total))
            .collect::<Vec<_>>()
    };
    let jobs = ["--synthetic-jobs", "300"];
    let with = |command: &[&'static str]| [command, &jobs[..]].concat();
    assert_eq!(
        phases(&with(&["replay", "--policy", "selective"])),
        [
            ("Conservative pre-run".into(), 300),
            ("replay selective".into(), 300)
        ]
    );
    assert_eq!(phases(&with(&["replay"])), [("replay easy".into(), 300)]);
    assert_eq!(
        phases(&with(&["thresholds"])),
        [("Conservative run".into(), 300)]
    );
    // conservative (thresholds too), easy, selective, selective-d.
    assert_eq!(
        phases(&with(&["compare"])),
        [("compare 4 replays".into(), 1200)]
    );
    assert_eq!(
        phases(&with(&["sweep", "--loads", "1,2", "--policies", "easy"])),
        [("sweep 4 replays".into(), 1200)]
    );
    // The FCFS-Conservative reference, then the four policies.
    assert_eq!(
        phases(&with(&["fairness"])),
        [("fairness 5 replays".into(), 1500)]
    );
}

fn replay_json(args: &[&str]) -> serde_json::Value {
    let mut argv = vec!["replay", "--synthetic-jobs", "800", "--format", "json"];
    argv.extend_from_slice(args);
    serde_json::from_str(&cli(&argv).unwrap()).unwrap()
}

#[test]
fn replay_reports_cons_rs_searches_by_outcome() {
    let text = cli(&["replay", "--synthetic-jobs", "800", "--policy", "cons-rs"]).unwrap();
    assert!(
        text.contains("cons+rs      seed 0, 4 x queue length iterations/search;"),
        "{text}"
    );
    let json = replay_json(&["--policy", "cons-rs", "--seed", "7"]);
    assert_eq!(json["policy"], "cons-rs");
    let c = &json["cons_rs"];
    assert_eq!(c["seed"], 7);
    assert_eq!(c["per_queued_job"], 4);
    assert!(c["fixed"].is_null());
    let n = |k: &str| c[k].as_u64().unwrap();
    assert!(n("searches") > 0 && n("iterations") > 0, "{c}");
    assert!(n("accepted") > 0, "the search finds moves here: {c}");
    // Every iteration ends one way.
    assert_eq!(
        n("iterations"),
        n("accepted")
            + n("rejected_guarantee")
            + n("rejected_objective")
            + n("no_gap")
            + n("too_crowded"),
        "{c}"
    );
    assert!(json.get("dpsa").is_none());
    // The seed is the search's: same seed, same schedule; the workload is
    // the synthetic one of that seed too, so compare against itself only.
    assert_eq!(
        replay_json(&["--policy", "cons-rs", "--seed", "7"])["metrics"],
        json["metrics"]
    );
    assert!(replay_json(&["--policy", "conservative"])
        .get("cons_rs")
        .is_none());
}

#[test]
fn cons_rs_without_iterations_or_early_ends_is_conservative() {
    let conservative = replay_json(&["--policy", "conservative"]);
    let none = replay_json(&["--policy", "cons-rs", "--rs-iterations", "0"]);
    assert_eq!(none["cons_rs"]["fixed"], 0);
    assert_eq!(none["cons_rs"]["iterations"], 0);
    assert_eq!(none["metrics"], conservative["metrics"]);
    // Exact estimates: no job ends early, so no search runs.
    let exact = ["--estimates", "exact"];
    let rs = replay_json(&[&exact[..], &["--policy", "cons-rs"]].concat());
    assert_eq!(rs["cons_rs"]["searches"], 0);
    assert_eq!(
        rs["metrics"],
        replay_json(&[&exact[..], &["--policy", "conservative"]].concat())["metrics"]
    );
}

#[test]
fn no_compression_is_conservatives_baseline() {
    let json = replay_json(&["--policy", "conservative", "--no-compression"]);
    assert_eq!(json["policy"], "conservative-no-compression");
    let conservative = replay_json(&["--policy", "conservative"]);
    assert_ne!(json["metrics"], conservative["metrics"]);
    // Without compression nobody moves up: waits are no shorter overall.
    assert!(
        json["metrics"][0]["mean_wait"].as_f64()
            >= conservative["metrics"][0]["mean_wait"].as_f64(),
        "{} vs {}",
        json["metrics"][0],
        conservative["metrics"][0]
    );
}

#[test]
fn compression_and_flavour_choose_the_alea_variants() {
    let rebuild = replay_json(&["--policy", "conservative", "--compression", "rebuild"]);
    assert_eq!(rebuild["policy"], "conservative-rebuild");
    let queue = replay_json(&["--policy", "conservative", "--compression", "queue"]);
    assert_eq!(queue["policy"], "conservative");
    assert_eq!(
        queue["metrics"],
        replay_json(&["--policy", "conservative"])["metrics"]
    );
    let alea = replay_json(&["--policy", "cons-rs", "--flavour", "alea", "--seed", "3"]);
    assert_eq!(alea["policy"], "cons-rs-alea");
    assert_eq!(alea["cons_rs"]["seed"], 3);
    assert!(
        alea["cons_rs"]["searches"].as_u64() > Some(0),
        "{}",
        alea["cons_rs"]
    );
    let ours = replay_json(&["--policy", "cons-rs", "--flavour", "ours", "--seed", "3"]);
    assert_eq!(ours["policy"], "cons-rs");
    assert_ne!(alea["metrics"], ours["metrics"]);
}

/// The option variants have names of their own, as
/// `conservative-no-compression` has: the name runs what the option runs,
/// with the same search options.
#[test]
fn option_variants_are_named_policies_too() {
    let by_option = replay_json(&["--policy", "conservative", "--compression", "rebuild"]);
    let by_name = replay_json(&["--policy", "conservative-rebuild"]);
    assert_eq!(by_name["policy"], "conservative-rebuild");
    assert_eq!(by_name["metrics"], by_option["metrics"]);
    let alea = ["--seed", "5", "--rs-iterations", "3"];
    let by_option =
        replay_json(&[&["--policy", "cons-rs", "--flavour", "alea"][..], &alea].concat());
    let by_name = replay_json(&[&["--policy", "cons-rs-alea"][..], &alea].concat());
    assert_eq!(by_name["policy"], "cons-rs-alea");
    assert_eq!(by_name["cons_rs"]["seed"], 5);
    assert_eq!(by_name["cons_rs"], by_option["cons_rs"]);
    assert_eq!(by_name["metrics"], by_option["metrics"]);
}

#[test]
fn search_options_are_refused_for_other_policies() {
    for (args, message) in [
        (
            &["--policy", "easy", "--rs-iterations", "3"][..],
            "--rs-iterations applies to cons-rs and cons-rs-alea, not easy",
        ),
        (
            &["--policy", "cons-rs", "--no-compression"][..],
            "--no-compression applies to conservative, not cons-rs",
        ),
        (
            &["--policy", "cons-rs", "--dpsa-nodes", "9"][..],
            "--dpsa-nodes applies to dpsa-p, dpsa-n and dpsa-w, not cons-rs",
        ),
        (
            &["--policy", "cons-rs", "--compression", "rebuild"][..],
            "--compression applies to conservative, not cons-rs",
        ),
        (
            &["--policy", "conservative", "--flavour", "alea"][..],
            "--flavour applies to cons-rs, not conservative",
        ),
        (
            &[
                "--policy",
                "conservative",
                "--no-compression",
                "--compression",
                "queue",
            ][..],
            "--no-compression and --compression exclude each other",
        ),
        (
            &["--policy", "conservative-rebuild", "--compression", "queue"][..],
            "--compression applies to conservative, not conservative-rebuild",
        ),
        (
            &["--policy", "cons-rs-alea", "--flavour", "ours"][..],
            "--flavour applies to cons-rs, not cons-rs-alea",
        ),
    ] {
        let err = cli(&[&["replay"][..], args].concat()).unwrap_err();
        assert!(err.contains(message), "{args:?}: {err}");
    }
}

/// The `guarantee` column of `--jobs-out`: each job's first reservation,
/// never before its start; empty without reservations.
#[test]
fn jobs_out_has_each_jobs_guarantee() {
    let dir = scratch("guarantee");
    let read = |policy: &str| -> Vec<csv::StringRecord> {
        let path = dir.join(format!("{policy}.csv"));
        cli(&[
            "replay",
            "--synthetic-jobs",
            "600",
            "--policy",
            policy,
            "--jobs-out",
            path.to_str().unwrap(),
        ])
        .unwrap();
        let mut reader = csv::Reader::from_path(&path).unwrap();
        let headers = reader.headers().unwrap().clone();
        assert_eq!(headers.get(11), Some("guarantee"), "{headers:?}");
        reader.records().map(Result::unwrap).collect()
    };
    for policy in ["conservative", "cons-rs"] {
        let rows = read(policy);
        let mut guaranteed = 0;
        for row in &rows {
            if row[11].is_empty() {
                continue;
            }
            guaranteed += 1;
            let g: u32 = row[11].parse().unwrap();
            assert!(row[2].parse::<u32>().unwrap() <= g, "{policy}: {row:?}");
        }
        // Every job is reserved on arrival.
        assert_eq!(guaranteed, rows.len(), "{policy}");
    }
    assert!(read("fcfs").iter().all(|row| row[11].is_empty()));
    let _ = std::fs::remove_dir_all(&dir);
}
