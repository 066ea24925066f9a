//! Why jobs wait: `replay --explain`, `--queue-at`, `--reasons-out` and
//! `--wait-by-reason`, held against the per-job rows of `--jobs-out` of
//! the same replay (who waited when, and for how long).

use super::{fails_with, ok_in, run_in, scratch, small_trace};
use serde_json::Value;
use std::collections::BTreeMap;
use std::path::Path;

/// The policies that replay an SWF trace on one machine.
const POLICIES: &[&str] = &[
    "fcfs",
    "easy",
    "sjf-easy",
    "conservative",
    "conservative-no-compression",
    "conservative-rebuild",
    "selective",
    "selective-d",
    "selective-adaptive",
    "selective-scaled",
    "cons-rs",
    "cons-rs-alea",
    "dpsa-p",
    "dpsa-n",
    "dpsa-w",
    "bf-fcfs",
    "bf-unmod",
    "bf-mod",
];

/// A job of `--jobs-out`: (submit, start, wait, category).
#[derive(Clone, Debug)]
struct Row {
    submit: u64,
    start: u64,
    wait: u64,
    category: String,
}

/// The rows of a `--jobs-out` file, by job number.
fn jobs(path: &Path) -> BTreeMap<u64, Row> {
    let mut reader = csv::Reader::from_path(path).expect("jobs csv");
    let headers = reader.headers().expect("header").clone();
    let at = |name: &str| headers.iter().position(|h| h == name).expect(name);
    let (id, submit, start, wait, category) = (
        at("job_id"),
        at("submit"),
        at("start"),
        at("wait"),
        at("category"),
    );
    reader
        .records()
        .map(|r| {
            let r = r.expect("row");
            let n = |i: usize| r[i].parse::<u64>().expect("a number");
            (
                n(id),
                Row {
                    submit: n(submit),
                    start: n(start),
                    wait: n(wait),
                    category: r[category].to_owned(),
                },
            )
        })
        .collect()
}

/// A window of the built-in workload busy enough that jobs wait.
const BUSY: &[&str] = &["--synthetic-jobs", "400", "--load", "1.6"];

#[test]
fn the_wait_split_by_reason_adds_up_to_every_jobs_wait() {
    let dir = scratch();
    for policy in POLICIES {
        let mut args = vec!["replay", "--policy", policy, "--wait-by-reason"];
        args.extend(BUSY);
        args.extend(["--jobs-out", "jobs.csv", "--format", "json"]);
        let report: Value = serde_json::from_str(&ok_in(dir.path(), &args)).expect("json");
        let rows = jobs(&dir.path().join("jobs.csv"));
        check_split(&report, &rows, policy);
    }
}

/// The report's split of the wait of each set (all, SN, SW, LN, LW) adds
/// up, in integer seconds, to the set's wait in the per-job rows.
fn check_split(report: &Value, rows: &BTreeMap<u64, Row>, what: &str) {
    let splits = report["wait_by_reason"].as_array().expect("the split");
    assert_eq!(splits.len(), 5, "{what}");
    let mut waited = 0;
    for split in splits {
        let set = split["set"].as_str().expect("set");
        let total = split["total"].as_u64().expect("total");
        let reasons = split["by_reason"].as_array().expect("reasons");
        let parts: u64 = reasons
            .iter()
            .map(|r| r["seconds"].as_u64().expect("seconds"))
            .sum();
        // Every pass reports every job it leaves waiting, the one at a
        // job's submit included.
        assert!(
            reasons.iter().all(|r| r["reason"] != "unreported"),
            "{what}: {split}"
        );
        let expected: u64 = rows
            .values()
            .filter(|r| set == "all" || r.category == set)
            .map(|r| r.wait)
            .sum();
        assert_eq!((total, parts), (expected, expected), "{what}, set {set}");
        if set == "all" {
            waited = expected;
        }
    }
    assert!(waited > 0, "{what}: no job waited, nothing was checked");
}

#[test]
fn the_split_of_a_real_trace_adds_up() {
    let Some(dir) = std::env::var_os("BACKFILL_TRACES_DIR") else {
        eprintln!("BACKFILL_TRACES_DIR not set: the real-trace split is not checked");
        return;
    };
    let trace = Path::new(&dir).join("KTH-SP2-1996-2.1-cln.swf.gz");
    let trace = trace.to_str().expect("a UTF-8 path");
    let scratch = scratch();
    for policy in ["easy", "conservative", "fcfs", "selective"] {
        let args = [
            "replay",
            trace,
            "--first",
            "3000",
            "--policy",
            policy,
            "--wait-by-reason",
            "--jobs-out",
            "jobs.csv",
            "--format",
            "json",
        ];
        let report: Value = serde_json::from_str(&ok_in(scratch.path(), &args)).expect("json");
        check_split(&report, &jobs(&scratch.path().join("jobs.csv")), policy);
    }
}

#[test]
fn the_queue_at_an_instant_is_the_jobs_submitted_and_not_yet_started() {
    let dir = scratch();
    for policy in ["fcfs", "easy", "conservative", "selective", "dpsa-p"] {
        let mut base = vec!["replay", "--policy", policy];
        base.extend(BUSY);
        let mut args = base.clone();
        args.extend(["--jobs-out", "jobs.csv"]);
        ok_in(dir.path(), &args);
        let rows = jobs(&dir.path().join("jobs.csv"));
        let last = rows.values().map(|r| r.start).max().expect("jobs");
        let mut checked = 0;
        for tenth in 1..10u64 {
            let at = last * tenth / 10;
            let at_text = at.to_string();
            let mut args = base.clone();
            args.extend(["--queue-at", &at_text, "--format", "json"]);
            let queue: Value = serde_json::from_str(&ok_in(dir.path(), &args)).expect("json");
            let listed: Vec<&Value> = queue["jobs"].as_array().expect("jobs").iter().collect();
            let mut numbers: Vec<u64> = listed
                .iter()
                .map(|j| j["job"].as_u64().expect("job"))
                .collect();
            numbers.sort_unstable();
            let expected: Vec<u64> = rows
                .iter()
                .filter(|(_, r)| r.submit <= at && r.start > at)
                .map(|(&n, _)| n)
                .collect();
            assert_eq!(numbers, expected, "{policy} at {at}");
            for (i, j) in listed.iter().enumerate() {
                let row = &rows[&j["job"].as_u64().expect("job")];
                assert_eq!(j["position"].as_u64(), Some(i as u64 + 1), "{policy}");
                assert_eq!(j["waited"].as_u64(), Some(at - row.submit), "{policy}");
                let expected_start = &j["expected_start"];
                assert!(!j["reason"].as_str().expect("reason").is_empty());
                if policy == "fcfs" {
                    assert!(expected_start.is_null(), "{policy}: {j}");
                }
                if let Some(t) = expected_start.as_u64() {
                    assert!(t >= at, "{policy}: an expected start in the past: {j}");
                }
            }
            checked += listed.len();
        }
        assert!(checked > 0, "{policy}: every queue was empty");
        // The table says the same, one line per job after two.
        let mut args = base.clone();
        let at_text = (last / 2).to_string();
        args.extend(["--queue-at", &at_text]);
        let table = ok_in(dir.path(), &args);
        assert!(
            table.starts_with(&format!("queue at t={at_text} ")),
            "{table}"
        );
    }
}

#[test]
fn a_story_goes_from_submit_through_its_reasons_to_its_end() {
    let dir = scratch();
    for policy in ["fcfs", "easy", "conservative", "cons-rs"] {
        let mut args = vec!["replay", "--policy", policy];
        args.extend(BUSY);
        args.extend(["--jobs-out", "jobs.csv", "--reasons-out", "reasons.csv"]);
        ok_in(dir.path(), &args);
        let rows = jobs(&dir.path().join("jobs.csv"));
        let changes = reason_rows(&dir.path().join("reasons.csv"));
        let (&number, row) = rows.iter().max_by_key(|(_, r)| r.wait).expect("a job");
        let number_text = number.to_string();
        let mut args = vec!["replay", "--policy", policy];
        args.extend(BUSY);
        args.extend(["--explain", &number_text, "--format", "json"]);
        let story: Value = serde_json::from_str(&ok_in(dir.path(), &args)).expect("json");
        assert_eq!(story["job"].as_u64(), Some(number));
        assert_eq!(story["wait"].as_u64(), Some(row.wait), "{policy}");
        let events = story["events"].as_array().expect("events");
        let kinds: Vec<&str> = events
            .iter()
            .map(|e| e["event"].as_str().expect("event"))
            .collect();
        assert_eq!(kinds.first(), Some(&"submitted"), "{policy}");
        assert_eq!(kinds[kinds.len() - 2], "started", "{policy}");
        assert!(
            matches!(kinds.last(), Some(&("ended" | "killed"))),
            "{policy}"
        );
        let waits: Vec<(u64, String)> = events
            .iter()
            .filter(|e| e["event"] == "waiting")
            .map(|e| {
                (
                    e["time"].as_u64().expect("time"),
                    format!("{} {}", e["what"].as_str().expect("what"), e["detail"]),
                )
            })
            .collect();
        let logged: Vec<(u64, String)> = changes
            .iter()
            .filter(|c| c.0 == number)
            .map(|c| (c.1, format!("{} {:?}", c.2, c.3)))
            .collect();
        assert_eq!(
            waits, logged,
            "{policy}: the story and --reasons-out differ"
        );
        assert!(
            !waits.is_empty(),
            "{policy}: the job that waited most has no reason"
        );
        assert_eq!(
            waits[0].0, row.submit,
            "{policy}: first reason at its submit"
        );
        assert!(waits.iter().all(|w| w.0 < row.start), "{policy}");
        let text = {
            let mut args = vec!["replay", "--policy", policy];
            args.extend(BUSY);
            args.extend(["--explain", &number_text]);
            ok_in(dir.path(), &args)
        };
        assert!(text.starts_with(&format!("job {number} ")), "{text}");
        assert_eq!(text.lines().count(), events.len() + 1, "{text}");
    }
}

/// The rows of a `--reasons-out` file: (job, time, reason, detail).
fn reason_rows(path: &Path) -> Vec<(u64, u64, String, String)> {
    let mut reader = csv::Reader::from_path(path).expect("reasons csv");
    let headers = reader.headers().expect("header").clone();
    assert_eq!(
        headers.iter().collect::<Vec<_>>(),
        ["job", "time", "reason", "detail"]
    );
    reader
        .records()
        .map(|r| {
            let r = r.expect("row");
            (
                r[0].parse().expect("job"),
                r[1].parse().expect("time"),
                r[2].to_owned(),
                r[3].to_owned(),
            )
        })
        .collect()
}

#[test]
fn reasons_out_is_every_change_by_time_and_the_same_each_run() {
    let dir = scratch();
    let mut args = vec!["replay", "--policy", "easy"];
    args.extend(BUSY);
    args.extend(["--jobs-out", "jobs.csv", "--reasons-out", "a.csv"]);
    let report = ok_in(dir.path(), &args);
    let rows = jobs(&dir.path().join("jobs.csv"));
    // The schedule and the report do not change when reasons are followed.
    let mut plain = vec!["replay", "--policy", "easy"];
    plain.extend(BUSY);
    plain.extend(["--jobs-out", "plain.csv"]);
    let plain_report = ok_in(dir.path(), &plain);
    let read = |name: &str| std::fs::read(dir.path().join(name)).expect("read");
    assert_eq!(read("jobs.csv"), read("plain.csv"));
    let steady = |t: &str| {
        t.lines()
            .filter(|l| !l.starts_with("wall time"))
            .collect::<Vec<_>>()
            .join("\n")
    };
    assert_eq!(steady(&report), steady(&plain_report));
    *args.last_mut().expect("args") = "b.csv";
    ok_in(dir.path(), &args);
    assert_eq!(read("a.csv"), read("b.csv"));
    let changes = reason_rows(&dir.path().join("a.csv"));
    assert!(changes
        .windows(2)
        .all(|w| (w[0].1, w[0].0) <= (w[1].1, w[1].0)));
    for (job, time, _, _) in &changes {
        let row = &rows[job];
        assert!(
            row.submit <= *time && *time < row.start,
            "job {job} at {time}"
        );
    }
    // Every job that waited has a reason from its submit on.
    for (number, row) in rows.iter().filter(|(_, r)| r.wait > 0) {
        assert!(
            changes.iter().any(|c| c.0 == *number && c.1 == row.submit),
            "job {number} waited without a reason at its submit"
        );
    }
}

#[test]
fn the_reason_options_are_refused_where_they_cannot_apply() {
    let dir = scratch();
    small_trace(dir.path());
    let cases: &[(&[&str], &[&str])] = &[
        (
            &["--explain", "3", "--queue-at", "10"],
            &["--queue-at", "--explain"],
        ),
        (
            &["--explain", "3", "--format", "csv"],
            &["--format", "--explain"],
        ),
        (
            &["--queue-at", "3", "--distributions"],
            &["--distributions", "--queue-at"],
        ),
        (
            &["--explain", "3", "--wait-by-reason"],
            &["--wait-by-reason"],
        ),
        (
            &[
                "--reasons-out",
                "r.csv",
                "--checkpoint",
                "c",
                "--checkpoint-every",
                "2",
            ],
            &["--reasons-out", "checkpoint"],
        ),
    ];
    for (extra, needles) in cases {
        let mut args = vec!["replay", "small.swf"];
        args.extend(*extra);
        fails_with(&run_in(dir.path(), &args), 2, needles);
    }
    // A job the window does not have: refused, and no file is left.
    let out = run_in(
        dir.path(),
        &[
            "replay",
            "small.swf",
            "--explain",
            "99",
            "--reasons-out",
            "r.csv",
        ],
    );
    fails_with(&out, 2, &["--explain 99", "no job numbered 99"]);
    assert!(!dir.path().join("r.csv").exists());
}
