//! What the reports say: sets without jobs have no figures (`-`, `null`,
//! an empty CSV field), counts agree with their nouns, every error has the
//! same prefix, `-` is stdout.

use super::{
    fails_with, farm_dir, four_processor_trace, job, listing, ok, ok_in, run, scratch,
    small_trace_dir, stderr, stdout,
};

/// `small_trace` has only short narrow jobs: SW, LN and LW are empty.
#[test]
fn sets_without_jobs_show_no_figures() {
    let (_dir, trace) = small_trace_dir();
    let t = trace.as_str();
    let table = ok(&["replay", t]);
    for set in ["SW", "LN", "LW"] {
        let row = table
            .lines()
            .find(|l| l.starts_with(set))
            .unwrap_or_else(|| panic!("no {set} row in\n{table}"));
        let cells: Vec<&str> = row.split_whitespace().collect();
        // set, jobs, four figures, killed.
        assert_eq!(cells, [set, "0", "-", "-", "-", "-", "0"], "{row}");
    }
    let json: serde_json::Value =
        serde_json::from_str(&ok(&["replay", t, "--format", "json"])).expect("json");
    let metrics = json["metrics"].as_array().expect("metrics");
    for m in metrics.iter().filter(|m| m["jobs"] == 0) {
        for key in [
            "mean_wait",
            "mean_bounded_slowdown",
            "mean_turnaround",
            "worst_bounded_slowdown",
        ] {
            assert!(m[key].is_null(), "{key}: {m}");
        }
    }
    assert_eq!(metrics.iter().filter(|m| m["jobs"] == 0).count(), 3);
    let all = &metrics[0];
    assert!(all["mean_bounded_slowdown"].as_f64().expect("a number") >= 1.0);
    let csv = ok(&["replay", t, "--format", "csv"]);
    let mut reader = csv::Reader::from_reader(csv.as_bytes());
    let header = reader.headers().expect("header").clone();
    let column = |name: &str| header.iter().position(|h| h == name).expect(name);
    for row in reader.records() {
        let row = row.expect("row");
        if &row[column("jobs")] == "0" {
            assert_eq!(&row[column("mean_bounded_slowdown")], "", "{row:?}");
            assert_eq!(&row[column("mean_wait")], "", "{row:?}");
        }
    }
    // compare: the absolute values of an empty set are `-` too.
    let compare = ok(&["compare", t, "--policies", "easy"]);
    let slowdowns = compare
        .lines()
        .skip_while(|l| !l.starts_with("absolute values"))
        .find(|l| l.starts_with("mean bounded slowdown"))
        .expect("absolute slowdowns");
    assert!(
        slowdowns.ends_with("-          -          -"),
        "{slowdowns}"
    );
}

#[test]
fn farm_reports_leave_out_the_categories_without_jobs() {
    let dir = farm_dir(40, 4);
    let replay = ["replay", "--farm", "farm.toml", "jobs.csv"];
    // Estimates of 500-3000 s on machines of up to 8 CPUs: every job is
    // short and narrow.
    let table = ok_in(dir.path(), &replay);
    assert!(table.lines().any(|l| l.starts_with("SN ")), "{table}");
    for set in ["SW ", "LN ", "LW "] {
        assert!(
            !table.lines().any(|l| l.starts_with(set)),
            "{set}in\n{table}"
        );
    }
    let json: serde_json::Value = serde_json::from_str(&ok_in(
        dir.path(),
        &[&replay[..], &["--format", "json"]].concat(),
    ))
    .expect("json");
    let sets: Vec<&str> = json["sets"]
        .as_array()
        .expect("sets")
        .iter()
        .map(|s| s["set"].as_str().expect("label"))
        .collect();
    assert_eq!(sets, ["all", "SN"]);
}

#[test]
fn one_job_is_one_job() {
    let dir = scratch();
    // Job 2 comes before job 1 in submit order; job 1 has no requested time.
    let trace = four_processor_trace(
        dir.path(),
        "t.swf",
        &[job(1, 50, 10, 1, -1), job(2, 10, 10, 1, 20)],
    );
    let t = trace.to_str().expect("utf-8");
    let table = ok(&["replay", t]);
    assert!(
        table.contains("1 job has no requested time (field 9): its user estimate is its run time"),
        "{table}"
    );
    assert!(
        table.contains("1 job was out of submit order in the file"),
        "{table}"
    );
    assert!(!table.contains("1 jobs"), "{table}");
    let info = ok(&["info", t]);
    assert!(info.contains("1 job has no requested time"), "{info}");
}

#[test]
fn every_error_starts_with_the_same_prefix() {
    let (_dir, trace) = small_trace_dir();
    let t = trace.as_str();
    // A clap usage error and one of host-cli's own.
    let clap = run(&["replay", "--no-such-option"]);
    assert_eq!(clap.status.code(), Some(2));
    assert!(stderr(&clap).starts_with("error: "), "{}", stderr(&clap));
    let own = run(&["replay", t, "--first", "0"]);
    fails_with(&own, 2, &["nothing to schedule"]);
    assert!(stderr(&own).starts_with("error: "), "{}", stderr(&own));
}

#[test]
fn a_dash_sends_the_per_job_rows_to_stdout_and_the_report_to_stderr() {
    let (dir, trace) = small_trace_dir();
    let t = trace.as_str();
    let out = run(&["replay", t, "--jobs-out", "-"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let rows = stdout(&out);
    assert!(rows.starts_with("job_id,submit,start,end,"), "{rows}");
    assert_eq!(rows.lines().count(), 9, "a header and 8 jobs: {rows}");
    assert!(stderr(&out).starts_with("trace "), "{}", stderr(&out));
    assert_eq!(listing(dir.path()), ["small.swf"], "no file named -");
    let out = run(&["fairness", t, "--csv", "-", "--jobs-out", "-"]);
    fails_with(&out, 2, &["--jobs-out -", "--csv already writes to stdout"]);
}

#[test]
fn a_farm_job_list_replayed_as_a_trace_gets_a_hint() {
    let dir = farm_dir(10, 4);
    let jobs = dir.path().join("jobs.csv");
    for command in ["replay", "info"] {
        let out = run(&[command, jobs.to_str().expect("utf-8")]);
        fails_with(
            &out,
            2,
            &[
                "jobs.csv:1: ",
                "looks like a farm job list (CSV)",
                "replay --farm FARM.toml",
            ],
        );
    }
}

#[test]
fn options_for_another_policy_or_mode_are_refused() {
    let (_dir, trace) = small_trace_dir();
    let trace = trace.as_str();
    for (args, option) in [
        (
            vec!["replay", trace, "--aging-weight", "5"],
            "--aging-weight",
        ),
        (
            vec!["replay", trace, "--synthetic-jobs", "10"],
            "--synthetic-jobs",
        ),
        (vec!["replay", trace, "--seed", "3"], "--seed"),
        (vec!["compare", trace, "--seed", "3"], "--seed"),
        (vec!["replay", "--boost", "3"], "--boost"),
    ] {
        let out = run(&args);
        fails_with(&out, 2, &[option]);
    }
    // The same --seed applies to cons-rs's search.
    ok(&["replay", trace, "--policy", "cons-rs", "--seed", "3"]);
}

/// With a trace, `--seed` seeds CONS+RS in either flavour, by either
/// spelling, and is refused for a policy that draws nothing.
#[test]
fn a_trace_replay_takes_a_seed_for_either_cons_rs_flavour() {
    let (_dir, trace) = small_trace_dir();
    let trace = trace.as_str();
    for policy in [
        &["--policy", "cons-rs-alea"][..],
        &["--policy", "cons-rs", "--flavour", "alea"],
        &["--policy", "cons-rs"],
    ] {
        let args = [
            &["replay", trace][..],
            policy,
            &["--seed", "5", "--format", "json"],
        ]
        .concat();
        let v: serde_json::Value = serde_json::from_str(&ok(&args)).unwrap();
        assert_eq!(v["cons_rs"]["seed"], 5, "{policy:?}");
    }
    let out = run(&["replay", trace, "--policy", "easy", "--seed", "5"]);
    fails_with(&out, 2, &["--seed", "the policy is easy"]);
}
