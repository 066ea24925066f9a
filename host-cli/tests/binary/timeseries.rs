//! `replay --timeseries` against a second-by-second count of the per-job
//! rows, and `plot timeseries` drawing it.

use super::{fails_with, job, ok, run, scratch, write};

/// One job of the plain `--jobs-out` rows.
struct Row {
    submit: u64,
    start: u64,
    end: u64,
    estimate: u64,
    procs: u64,
}

#[test]
fn the_time_series_is_the_count_of_every_second() {
    let dir = scratch();
    let mut text = String::from("; MaxProcs: 8\n");
    for i in 0..40_u32 {
        let run = 5 + i64::from(i * 29 % 120);
        text.push_str(&job(
            i + 1,
            u64::from(i * 17 % 11 + i * 6),
            run,
            1 + i64::from(i % 5),
            run + 20,
        ));
    }
    let trace = write(dir.path(), "t.swf", &text);
    let series = dir.path().join("ts.csv");
    let jobs = dir.path().join("jobs.csv");
    let every = 7;
    let report = ok(&[
        "replay",
        trace.to_str().expect("path"),
        "--policy",
        "conservative",
        "--timeseries",
        series.to_str().expect("path"),
        "--every",
        &every.to_string(),
        "--jobs-out",
        jobs.to_str().expect("path"),
    ]);
    let mut reader = csv::Reader::from_path(&jobs).expect("jobs");
    let rows: Vec<Row> = reader
        .records()
        .map(|r| {
            let r = r.expect("row");
            let num = |i: usize| r.get(i).expect("field").parse::<u64>().expect("number");
            Row {
                submit: num(1),
                start: num(2),
                end: num(3),
                estimate: num(6),
                procs: num(7),
            }
        })
        .collect();
    let first = rows.iter().map(|r| r.submit).min().expect("jobs");
    let last = rows.iter().map(|r| r.end).max().expect("jobs");
    let mut reader = csv::Reader::from_path(&series).expect("series");
    let samples: Vec<Vec<String>> = reader
        .records()
        .map(|r| r.expect("row").iter().map(str::to_owned).collect())
        .collect();
    // Samples every 7 s from the first submit to the first at or after the
    // last end.
    let expected: Vec<u64> = (0..)
        .map(|k| first + k * every)
        .take_while(|&t| t < last + every)
        .collect();
    assert_eq!(samples.len(), expected.len());
    // Processor-seconds used, counted second by second.
    let busy_at = |t: u64| -> u64 {
        rows.iter()
            .filter(|r| r.start <= t && t < r.end)
            .map(|r| r.procs)
            .sum()
    };
    for (sample, &t) in samples.iter().zip(&expected) {
        let running: Vec<&Row> = rows.iter().filter(|r| r.start <= t && t < r.end).collect();
        let waiting: Vec<&Row> = rows
            .iter()
            .filter(|r| r.submit <= t && t < r.start)
            .collect();
        let want = [
            t,
            running.iter().map(|r| r.procs).sum(),
            running.len() as u64,
            waiting.len() as u64,
            waiting.iter().map(|r| r.procs * r.estimate).sum(),
        ];
        let got: Vec<u64> = sample[..5]
            .iter()
            .map(|v| v.parse().expect("number"))
            .collect();
        assert_eq!(got, want, "at t = {t}");
        let used: u64 = (first..t).map(busy_at).sum();
        if t == first {
            assert_eq!(sample[5], "", "no utilisation before any time passed");
        } else {
            let want = used as f64 / (8 * (t - first)) as f64;
            let got: f64 = sample[5].parse().expect("utilisation");
            assert!(
                (got - want).abs() < 1e-12,
                "at t = {t}: {got} against {want}"
            );
        }
    }
    // The report says where it went; plot draws it.
    assert!(report.contains(&format!("{} samples every 7 s", expected.len())));
    let svg = dir.path().join("ts.svg");
    ok(&[
        "plot",
        "timeseries",
        series.to_str().expect("path"),
        "-o",
        svg.to_str().expect("path"),
    ]);
    let figure = std::fs::read_to_string(&svg).expect("svg");
    assert!(
        figure.starts_with("<svg") && figure.contains("processors busy"),
        "{figure}"
    );
    // A file that is not a time series is refused, naming it.
    let bad = write(dir.path(), "bad.csv", "a,b\n1,2\n");
    let out = run(&[
        "plot",
        "timeseries",
        bad.to_str().expect("path"),
        "-o",
        svg.to_str().expect("path"),
    ]);
    fails_with(&out, 2, &["bad.csv", "row 2"]);
}
