//! Farm replays and `farm-study` as a user runs them: the options a farm
//! replay honours, Selective on a farm, and the study's intervals.

use super::{farm_dir, ok_in, run_in, scratch, stderr, stdout};
use std::path::Path;

/// `farm-study` of 40 jobs on 6 machines at the inter-arrival `means`,
/// `repetitions` times each, without the license sweep, data into
/// `data_dir`; run in `dir`, expecting success; its stdout.
fn farm_study(
    dir: &Path,
    means: &str,
    repetitions: usize,
    policies: &str,
    data_dir: &str,
) -> String {
    let repetitions = repetitions.to_string();
    ok_in(
        dir,
        &[
            "farm-study",
            "--jobs",
            "40",
            "--machines",
            "6",
            "--means",
            means,
            "--repetitions",
            &repetitions,
            "--no-license-sweep",
            "--policies",
            policies,
            "--data-dir",
            data_dir,
        ],
    )
}

/// The values of column `name` of the CSV `text`, as numbers (empty
/// fields are `None`).
fn column(text: &str, name: &str) -> Vec<Option<f64>> {
    let mut reader = csv::Reader::from_reader(text.as_bytes());
    let header = reader.headers().expect("header").clone();
    let i = header
        .iter()
        .position(|h| h == name)
        .unwrap_or_else(|| panic!("no column {name} in {header:?}"));
    reader
        .records()
        .map(|r| {
            let r = r.expect("row");
            let v = r.get(i).expect("field");
            (!v.is_empty()).then(|| v.parse().expect("a number"))
        })
        .collect()
}

/// Tabulated `t(0.975, df)` for df = 1 and 2.
const T95: [f64; 2] = [12.706_204_7, 4.302_652_7];

#[test]
fn farm_study_intervals_are_student_t_and_say_so() {
    let dir = scratch();
    for (repetitions, t) in [(2_usize, T95[0]), (3, T95[1])] {
        let data = format!("data{repetitions}");
        let text = farm_study(dir.path(), "4,24", repetitions, "fcfs,bf-fcfs", &data);
        assert!(
            text.contains(&format!(
                "+- is the half-width of the Student-t 95% confidence interval of the mean over \
                 {repetitions} repetitions"
            )),
            "{text}"
        );
        // The header names only the means that ran.
        assert!(text.contains("grid: mean inter-arrival 4, 24 at"), "{text}");
        assert!(!text.contains("mean inter-arrival 12"), "{text}");
        let folder = dir.path().join(&data);
        let runs = std::fs::read_to_string(folder.join("farm-grid.csv")).expect("runs");
        let summary =
            std::fs::read_to_string(folder.join("farm-grid-summary.csv")).expect("summary");
        // Rows of farm-grid.csv: by mean, repetition, policy; summary rows by
        // mean and policy. Recompute every slowdown interval from the runs.
        let slowdowns = column(&runs, "mean_slowdown");
        let means = column(&summary, "mean_slowdown");
        let halves = column(&summary, "mean_slowdown_ci95_student_t");
        assert_eq!(means.len(), 4);
        for (k, (mean, half)) in means.iter().zip(&halves).enumerate() {
            let (setting, policy) = (k / 2, k % 2);
            let values: Vec<f64> = (0..repetitions)
                .map(|r| slowdowns[setting * repetitions * 2 + r * 2 + policy].expect("value"))
                .collect();
            let n = values.len() as f64;
            let m = values.iter().sum::<f64>() / n;
            let s = (values.iter().map(|v| (v - m).powi(2)).sum::<f64>() / (n - 1.0)).sqrt();
            let want = t * s / n.sqrt();
            assert!((mean.expect("mean") - m).abs() < 1e-3, "row {k}");
            assert!(
                (half.expect("half-width") - want).abs() < 1e-3 * want.max(1.0),
                "row {k}: {half:?} against {want}"
            );
        }
    }
    // One repetition: means only, and the outputs say why.
    let text = farm_study(dir.path(), "4", 1, "fcfs", "one");
    assert!(!text.contains("+-"), "{text}");
    assert!(
        text.contains("one repetition: means without a confidence interval"),
        "{text}"
    );
    let summary =
        std::fs::read_to_string(dir.path().join("one/farm-grid-summary.csv")).expect("summary");
    assert_eq!(column(&summary, "mean_slowdown_ci95_student_t"), [None]);
}

/// `replay --farm farm.toml jobs.csv` with `extra`, in `dir`.
fn replay_farm(dir: &Path, extra: &[&str]) -> std::process::Output {
    let mut args = vec!["replay", "--farm", "farm.toml", "jobs.csv"];
    args.extend(extra);
    run_in(dir, &args)
}

#[test]
fn selective_on_a_farm_says_what_to_do() {
    let dir = farm_dir(30, 4);
    for (policy, given) in [
        ("selective", "--threshold X"),
        ("selective-d", "--thresholds SN,SW,LN,LW"),
    ] {
        let out = replay_farm(dir.path(), &["--policy", policy]);
        let err = super::fails_with(&out, 2, &[policy, given, "--policy conservative"]);
        assert!(!err.contains("were needed but not computed"), "{err}");
    }
    // With its threshold given, Selective replays the farm.
    let out = replay_farm(dir.path(), &["--policy", "selective", "--threshold", "2"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let text = stdout(&out);
    assert!(text.contains("policy       selective"), "{text}");
}

#[test]
fn farm_replays_refuse_trace_options() {
    let dir = farm_dir(30, 4);
    for (option, value) in [
        ("--load", "2"),
        ("--first", "10"),
        ("--skip", "5"),
        ("--procs", "4"),
        ("--synthetic-jobs", "10"),
    ] {
        let out = replay_farm(dir.path(), &[option, value]);
        super::fails_with(&out, 2, &[option, "farm"]);
    }
    let out = replay_farm(
        dir.path(),
        &["--jobs-out", "o.csv", "--jobs-format", "batsim"],
    );
    super::fails_with(&out, 2, &["--jobs-format", "farm"]);
}
