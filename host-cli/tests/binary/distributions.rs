//! `replay --distributions`: every percentile, maximum, standard deviation
//! and geometric mean in the JSON, CSV and table reports, recomputed here
//! from the per-job rows of `--jobs-out` by sorting.

use super::{ok, run, scratch, stdout};
use serde_json::Value;

/// One job of the plain `--jobs-out` layout: its set and its wait,
/// bounded slowdown and turnaround, recomputed from its times.
struct Job {
    category: String,
    wait: f64,
    bsld: f64,
    turnaround: f64,
}

fn jobs(text: &str) -> Vec<Job> {
    let mut reader = csv::Reader::from_reader(text.as_bytes());
    let header = reader.headers().expect("header").clone();
    let at = |name: &str| header.iter().position(|h| h == name).expect(name);
    let (submit, start, end, category) = (at("submit"), at("start"), at("end"), at("category"));
    reader
        .records()
        .map(|r| {
            let r = r.expect("row");
            let num = |i: usize| r.get(i).expect("field").parse::<f64>().expect("number");
            let wait = num(start) - num(submit);
            let run = (num(end) - num(start)).max(10.0);
            Job {
                category: r.get(category).expect("category").to_owned(),
                wait,
                bsld: (wait + run) / run,
                turnaround: num(end) - num(submit),
            }
        })
        .collect()
}

/// Nearest rank: the value of rank ceil(p n / 100) of the sorted values.
fn percentile(sorted: &[f64], p: f64) -> f64 {
    let rank = ((p / 100.0) * sorted.len() as f64).ceil().max(1.0) as usize;
    sorted[rank - 1]
}

fn close(a: f64, b: f64) -> bool {
    (a - b).abs() <= 1e-6 * b.abs().max(1.0)
}

#[test]
fn distributions_match_the_jobs_in_every_format() {
    let dir = scratch();
    let jobs_csv = dir.path().join("jobs.csv");
    let base = [
        "replay",
        "--synthetic-jobs",
        "400",
        "--policy",
        "conservative",
        "--distributions",
        "--jobs-out",
    ];
    let with = |format: &str| {
        let mut args = base.to_vec();
        args.extend([jobs_csv.to_str().expect("path"), "--format", format]);
        ok(&args)
    };
    let report: Value = serde_json::from_str(&with("json")).expect("json");
    let csv_text = with("csv");
    let table = with("table");
    let all = jobs(&std::fs::read_to_string(&jobs_csv).expect("jobs"));
    let sets = report["distributions"].as_array().expect("distributions");
    assert_eq!(sets.len(), 5);
    let mut csv_rows = csv::Reader::from_reader(csv_text.as_bytes());
    let header = csv_rows.headers().expect("header").clone();
    let rows: Vec<csv::StringRecord> = csv_rows.records().map(|r| r.expect("row")).collect();
    let mut nonempty = 0;
    for (k, set) in sets.iter().enumerate() {
        let name = set["set"].as_str().expect("set");
        let mine: Vec<&Job> = all
            .iter()
            .filter(|j| name == "all" || j.category == name)
            .collect();
        assert_eq!(set["jobs"].as_u64(), Some(mine.len() as u64), "{name}");
        let field = |column: &str| -> Option<f64> {
            let i = header.iter().position(|h| h == column).expect(column);
            let v = rows[k].get(i).expect("field");
            (!v.is_empty()).then(|| v.parse().expect("number"))
        };
        if mine.is_empty() {
            assert!(
                set["wait"].is_null() && set["wait_std_dev"].is_null(),
                "{set}"
            );
            assert_eq!(field("wait_p50"), None);
            continue;
        }
        nonempty += 1;
        let n = mine.len() as f64;
        for (measure, value) in [
            ("wait", (|j: &Job| j.wait) as fn(&Job) -> f64),
            ("bounded_slowdown", |j| j.bsld),
            ("turnaround", |j| j.turnaround),
        ] {
            let mut v: Vec<f64> = mine.iter().map(|j| value(j)).collect();
            v.sort_by(f64::total_cmp);
            for (key, want) in [
                ("p50", percentile(&v, 50.0)),
                ("p90", percentile(&v, 90.0)),
                ("p95", percentile(&v, 95.0)),
                ("p99", percentile(&v, 99.0)),
                ("max", v[v.len() - 1]),
            ] {
                let got = set[measure][key].as_f64().expect("value");
                assert!(
                    close(got, want),
                    "{name} {measure} {key}: {got} against {want}"
                );
                let cell = field(&format!("{measure}_{key}")).expect("csv value");
                assert!(
                    (cell - want).abs() < 1e-4 + 1e-9 * want,
                    "{name} csv {measure}_{key}"
                );
            }
        }
        // Population standard deviations, two-pass; geometric mean of bsld.
        let sd = |f: fn(&Job) -> f64| {
            let mean = mine.iter().map(|j| f(j)).sum::<f64>() / n;
            (mine.iter().map(|j| (f(j) - mean).powi(2)).sum::<f64>() / n).sqrt()
        };
        let geo = (mine.iter().map(|j| j.bsld.ln()).sum::<f64>() / n).exp();
        for (key, want) in [
            ("wait_std_dev", sd(|j| j.wait)),
            ("bounded_slowdown_std_dev", sd(|j| j.bsld)),
            ("geometric_mean_bounded_slowdown", geo),
        ] {
            let got = set[key].as_f64().expect(key);
            assert!(close(got, want), "{name} {key}: {got} against {want}");
            assert!(
                (field(key).expect(key) - want).abs() < 1e-4 + 1e-9 * want,
                "{name} {key}"
            );
        }
        // The table shows the same values at its precision.
        let wait = &set["wait"];
        let line = format!(
            "{name:<9} {:>10.1} {:>10.1} {:>10.1} {:>10.1} {:>10.1} {:>10.1}",
            wait["p50"].as_f64().unwrap_or_default(),
            wait["p90"].as_f64().unwrap_or_default(),
            wait["p95"].as_f64().unwrap_or_default(),
            wait["p99"].as_f64().unwrap_or_default(),
            wait["max"].as_f64().unwrap_or_default(),
            set["wait_std_dev"].as_f64().unwrap_or_default(),
        );
        assert!(table.contains(&line), "{line:?} not in\n{table}");
    }
    assert!(nonempty >= 3, "too few sets with jobs");
    assert!(table.contains("nearest-rank percentiles"), "{table}");
}

#[test]
fn a_replay_without_distributions_reports_as_before() {
    let out = run(&["replay", "--synthetic-jobs", "50", "--format", "json"]);
    let report: Value = serde_json::from_str(&stdout(&out)).expect("json");
    assert!(report.get("distributions").is_none());
    let csv_text = stdout(&run(&[
        "replay",
        "--synthetic-jobs",
        "50",
        "--format",
        "csv",
    ]));
    assert!(!csv_text.contains("wait_p50"));
    let table = stdout(&run(&["replay", "--synthetic-jobs", "50"]));
    assert!(!table.contains("distributions"));
}

#[test]
fn warmup_and_cooldown_jobs_are_scheduled_but_not_measured() {
    let dir = scratch();
    let jobs_csv = dir.path().join("jobs.csv");
    let path = jobs_csv.to_str().expect("path");
    let run_with = |extra: &[&str]| -> Value {
        let mut args = vec![
            "replay",
            "--synthetic-jobs",
            "300",
            "--distributions",
            "--jobs-out",
            path,
            "--format",
            "json",
        ];
        args.extend(extra);
        serde_json::from_str(&ok(&args)).expect("json")
    };
    let plain = run_with(&[]);
    let plain_jobs = std::fs::read_to_string(&jobs_csv).expect("jobs");
    let report = run_with(&["--warmup", "40", "--cooldown", "3h"]);
    let text = std::fs::read_to_string(&jobs_csv).expect("jobs");
    // Every job is still scheduled, the same way.
    assert_eq!(text, plain_jobs);
    assert_eq!(report["accounting"], plain["accounting"]);
    // Submit order (ties by job number), as the replay orders its jobs.
    let mut reader = csv::Reader::from_reader(text.as_bytes());
    let mut rows: Vec<(u64, u64, Job)> = Vec::new();
    let header = reader.headers().expect("header").clone();
    let at = |name: &str| header.iter().position(|h| h == name).expect(name);
    let (id, submit) = (at("job_id"), at("submit"));
    for (record, job) in reader.records().zip(jobs(&text)) {
        let record = record.expect("row");
        let num = |i: usize| {
            record
                .get(i)
                .expect("field")
                .parse::<u64>()
                .expect("number")
        };
        rows.push((num(submit), num(id), job));
    }
    rows.sort_by_key(|r| (r.0, r.1));
    let last_submit = rows.last().expect("jobs").0;
    let warm = 40;
    let cool = rows[warm..]
        .iter()
        .filter(|r| r.0 > last_submit - 3 * 3600)
        .count();
    let measured: Vec<&Job> = rows[warm..]
        .iter()
        .filter(|r| r.0 <= last_submit - 3 * 3600)
        .map(|r| &r.2)
        .collect();
    assert!(cool > 0 && !measured.is_empty(), "{cool} cool-down jobs");
    assert_eq!(
        report["left_out"]["warmup_jobs"].as_u64(),
        Some(warm as u64)
    );
    assert_eq!(
        report["left_out"]["cooldown_jobs"].as_u64(),
        Some(cool as u64)
    );
    let all = &report["metrics"][0];
    assert_eq!(all["jobs"].as_u64(), Some(measured.len() as u64));
    let n = measured.len() as f64;
    let mean_wait = measured.iter().map(|j| j.wait).sum::<f64>() / n;
    let mean_bsld = measured.iter().map(|j| j.bsld).sum::<f64>() / n;
    assert!(close(all["mean_wait"].as_f64().expect("mean"), mean_wait));
    assert!(close(
        all["mean_bounded_slowdown"].as_f64().expect("mean"),
        mean_bsld
    ));
    let mut waits: Vec<f64> = measured.iter().map(|j| j.wait).collect();
    waits.sort_by(f64::total_cmp);
    let p90 = report["distributions"][0]["wait"]["p90"]
        .as_f64()
        .expect("p90");
    assert!(close(p90, percentile(&waits, 90.0)));
    // The table says how many were left out; the CSV rows carry the counts.
    let table = stdout(&run(&[
        "replay",
        "--synthetic-jobs",
        "300",
        "--warmup",
        "40",
        "--cooldown",
        "3h",
    ]));
    assert!(
        table.contains(&format!(
            "40 jobs as warm-up (first 40 jobs) and {cool} jobs as cool-down"
        )),
        "{table}"
    );
    let csv_text = stdout(&run(&[
        "replay",
        "--synthetic-jobs",
        "300",
        "--warmup",
        "40",
        "--format",
        "csv",
    ]));
    let first = csv_text.lines().next().expect("header");
    assert!(first.ends_with(",warmup_jobs,cooldown_jobs"), "{first}");
    assert!(csv_text.lines().nth(1).expect("row").ends_with(",40,0"));
}

/// A trace of 120 jobs on 16 processors by four users in two groups and
/// three queues (one unknown).
fn owned_trace(dir: &std::path::Path) -> std::path::PathBuf {
    let mut text = String::from("; MaxProcs: 16\n");
    let mut submit = 0;
    for i in 1..=120_u32 {
        submit += i * 37 % 100;
        let run = 10 + i * 53 % 590;
        let procs = 1 << (i % 5);
        let user = [1, 2, 3, 7][(i % 4) as usize];
        let queue = [0, 1, -1][(i % 3) as usize];
        text.push_str(&format!(
            "{i} {submit} -1 {run} {procs} -1 -1 {procs} {} -1 1 {user} {} -1 {queue} -1 -1 -1\n",
            run * 3 / 2,
            user % 2
        ));
    }
    super::write(dir, "owned.swf", &text)
}

#[test]
fn figures_per_owner_and_their_fairness_match_the_jobs() {
    let dir = scratch();
    let trace = owned_trace(dir.path());
    let jobs_csv = dir.path().join("jobs.csv");
    for by in ["user", "group", "queue"] {
        let report = ok(&[
            "replay",
            trace.to_str().expect("path"),
            "--by",
            by,
            "--jobs-out",
            jobs_csv.to_str().expect("path"),
            "--format",
            "json",
        ]);
        let report: Value = serde_json::from_str(&report).expect("json");
        let text = std::fs::read_to_string(&jobs_csv).expect("jobs");
        let mut reader = csv::Reader::from_reader(text.as_bytes());
        let header = reader.headers().expect("header").clone();
        let column = header.iter().position(|h| h == by).expect("owner column");
        let owners: Vec<String> = reader
            .records()
            .map(|r| r.expect("row").get(column).expect("field").to_owned())
            .collect();
        let all = jobs(&text);
        // Groups by number, the unknown one ("" here) first.
        let mut keys: Vec<&String> = owners.iter().collect();
        keys.sort_by_key(|k| k.parse::<u64>().ok());
        keys.dedup();
        let groups = report["groups"]["groups"].as_array().expect("groups");
        assert_eq!(groups.len(), keys.len(), "{by}");
        let (mut waits, mut slowdowns) = (Vec::new(), Vec::new());
        for (key, row) in keys.iter().zip(groups) {
            let label = if key.is_empty() {
                "unknown"
            } else {
                key.as_str()
            };
            assert_eq!(row["set"], label, "{by}");
            let mine: Vec<&Job> = all
                .iter()
                .zip(&owners)
                .filter(|(_, o)| o == key)
                .map(|(j, _)| j)
                .collect();
            let n = mine.len() as f64;
            let wait = mine.iter().map(|j| j.wait).sum::<f64>() / n;
            let bsld = mine.iter().map(|j| j.bsld).sum::<f64>() / n;
            assert_eq!(row["jobs"].as_u64(), Some(mine.len() as u64));
            assert!(
                close(row["mean_wait"].as_f64().expect("wait"), wait),
                "{by} {label}"
            );
            assert!(close(
                row["mean_bounded_slowdown"].as_f64().expect("bsld"),
                bsld
            ));
            waits.push(wait);
            slowdowns.push(bsld);
        }
        let fairness = &report["groups"]["fairness"];
        let max = slowdowns.iter().copied().fold(f64::MIN, f64::max);
        let min = slowdowns.iter().copied().fold(f64::MAX, f64::min);
        let sum: f64 = waits.iter().sum();
        let jain = sum * sum / (waits.len() as f64 * waits.iter().map(|w| w * w).sum::<f64>());
        assert!(close(
            fairness["slowdown_max_over_min"].as_f64().expect("ratio"),
            max / min
        ));
        assert!(close(
            fairness["jain_index_of_mean_wait"].as_f64().expect("jain"),
            jain
        ));
        assert_eq!(fairness["groups"].as_u64(), Some(keys.len() as u64));
    }
    // The table and the CSV rows name the groups.
    let trace = trace.to_str().expect("path");
    let table = stdout(&run(&["replay", trace, "--by", "queue"]));
    assert!(
        table.contains("fairness     3 queues: mean bsld max/min"),
        "{table}"
    );
    assert!(table.lines().any(|l| l.starts_with("unknown ")), "{table}");
    let csv_text = stdout(&run(&["replay", trace, "--by", "user", "--format", "csv"]));
    assert!(csv_text
        .lines()
        .next()
        .expect("header")
        .ends_with(",groups,slowdown_max_over_min,jain_index_of_mean_wait"));
    assert_eq!(
        csv_text.lines().filter(|l| l.contains(",user 7,")).count(),
        1,
        "{csv_text}"
    );
}
