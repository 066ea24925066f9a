//! The figures a report prints, recomputed from the per-job records alone:
//! each job's wait, bounded slowdown and turnaround from its submit, start
//! and end; each set's count, means, worst value, kills, utilisation,
//! percentiles (by sorting, nearest rank), standard deviations (two-pass)
//! and geometric mean, overall and per category (from the job's run time
//! and processors). [`check_metrics`] holds core's accumulators to them and
//! [`check_report`] the JSON figures `host-cli replay` prints, so that a
//! change that left some jobs (the killed ones, say) out of a figure fails.

use backfill_core::{Accumulator, CategoryBounds, JobRecord, Metrics};
use serde_json::Value;

/// The sets of a report, in its order: a name and which jobs are in it.
const SETS: [(&str, Option<(bool, bool)>); 5] = [
    ("all", None),
    ("SN", Some((true, true))),
    ("SW", Some((true, false))),
    ("LN", Some((false, true))),
    ("LW", Some((false, false))),
];

/// One job's figures, from its times.
#[derive(Clone, Copy, Debug)]
struct JobFigures {
    wait: f64,
    bsld: f64,
    turnaround: f64,
    work: u128,
    submit: u64,
    end: u64,
    killed: bool,
    short: bool,
    narrow: bool,
}

fn job_figures(r: &JobRecord, bounds: CategoryBounds) -> JobFigures {
    let submit = u64::from(r.job.submit);
    let start = u64::from(r.slot.start);
    let end = u64::from(r.end);
    let wait = start - submit;
    let run = end - start;
    let bounded = run.max(10) as f64;
    JobFigures {
        wait: wait as f64,
        bsld: (wait as f64 + bounded) / bounded,
        turnaround: (end - submit) as f64,
        work: u128::from(run) * u128::from(r.job.procs),
        submit,
        end,
        killed: r.killed,
        short: r.runtime <= bounds.short_max,
        narrow: r.job.procs <= bounds.narrow_max,
    }
}

/// A set's figures.
#[derive(Clone, Debug)]
struct SetFigures {
    jobs: u64,
    mean_wait: f64,
    mean_bsld: f64,
    mean_turnaround: f64,
    worst_bsld: f64,
    killed: u64,
    wait_sd: f64,
    bsld_sd: f64,
    geo_bsld: f64,
    /// p50, p90, p95, p99, max of wait, bsld, turnaround.
    quantiles: [[f64; 5]; 3],
    work: u128,
    span: u64,
}

fn mean(v: &[f64]) -> f64 {
    v.iter().sum::<f64>() / v.len() as f64
}

fn population_sd(v: &[f64]) -> f64 {
    let m = mean(v);
    (v.iter().map(|x| (x - m).powi(2)).sum::<f64>() / v.len() as f64).sqrt()
}

fn quantiles(mut v: Vec<f64>) -> [f64; 5] {
    v.sort_by(f64::total_cmp);
    let rank = |p: f64| v[((p / 100.0 * v.len() as f64).ceil() as usize).max(1) - 1];
    [
        rank(50.0),
        rank(90.0),
        rank(95.0),
        rank(99.0),
        v[v.len() - 1],
    ]
}

/// The figures of `jobs`; `None` when there are none.
fn set_figures(jobs: &[JobFigures]) -> Option<SetFigures> {
    if jobs.is_empty() {
        return None;
    }
    let waits: Vec<f64> = jobs.iter().map(|j| j.wait).collect();
    let bslds: Vec<f64> = jobs.iter().map(|j| j.bsld).collect();
    let turnarounds: Vec<f64> = jobs.iter().map(|j| j.turnaround).collect();
    let first = jobs.iter().map(|j| j.submit).min().unwrap_or(0);
    let last = jobs.iter().map(|j| j.end).max().unwrap_or(0);
    Some(SetFigures {
        jobs: jobs.len() as u64,
        mean_wait: mean(&waits),
        mean_bsld: mean(&bslds),
        mean_turnaround: mean(&turnarounds),
        worst_bsld: bslds.iter().copied().fold(f64::MIN, f64::max),
        killed: jobs.iter().filter(|j| j.killed).count() as u64,
        wait_sd: population_sd(&waits),
        bsld_sd: population_sd(&bslds),
        geo_bsld: mean(&bslds.iter().map(|b| b.ln()).collect::<Vec<_>>()).exp(),
        quantiles: [quantiles(waits), quantiles(bslds), quantiles(turnarounds)],
        work: jobs.iter().map(|j| j.work).sum(),
        span: last - first,
    })
}

/// The figures of every set of `records`, in report order.
fn sets(records: &[JobRecord], bounds: CategoryBounds) -> Vec<(&'static str, Option<SetFigures>)> {
    let all: Vec<JobFigures> = records.iter().map(|r| job_figures(r, bounds)).collect();
    SETS.iter()
        .map(|&(name, kind)| {
            let jobs: Vec<JobFigures> = all
                .iter()
                .filter(|j| kind.is_none_or(|k| k == (j.short, j.narrow)))
                .copied()
                .collect();
            (name, set_figures(&jobs))
        })
        .collect()
}

/// Whether `got` is `want` up to floating-point summation order.
fn close(got: f64, want: f64) -> bool {
    (got - want).abs() <= 1e-9 * want.abs().max(1.0)
}

fn expect(what: &str, got: f64, want: f64) -> Result<(), String> {
    if close(got, want) {
        Ok(())
    } else {
        Err(format!("{what}: reported {got}, the jobs give {want}"))
    }
}

fn utilisation(work: u128, span: u64, processors: u32) -> f64 {
    let capacity = u128::from(span) * u128::from(processors);
    if capacity == 0 {
        0.0
    } else {
        work as f64 / capacity as f64
    }
}

/// Holds `acc` to the figures of `set`.
fn check_accumulator(
    name: &str,
    acc: &Accumulator,
    set: Option<&SetFigures>,
    processors: u32,
) -> Result<(), String> {
    let Some(s) = set else {
        return if acc.count == 0 {
            Ok(())
        } else {
            Err(format!(
                "{name}: {} jobs counted, none in the records",
                acc.count
            ))
        };
    };
    if (acc.count, acc.killed) != (s.jobs, s.killed) {
        return Err(format!(
            "{name}: (jobs, killed) = {:?}, the records have {:?}",
            (acc.count, acc.killed),
            (s.jobs, s.killed)
        ));
    }
    expect(&format!("{name} mean wait"), acc.mean_wait(), s.mean_wait)?;
    expect(
        &format!("{name} mean bsld"),
        acc.mean_slowdown(),
        s.mean_bsld,
    )?;
    expect(
        &format!("{name} mean turnaround"),
        acc.mean_turnaround(),
        s.mean_turnaround,
    )?;
    expect(
        &format!("{name} worst bsld"),
        acc.worst_slowdown,
        s.worst_bsld,
    )?;
    expect(
        &format!("{name} wait std dev"),
        acc.wait_std_dev(),
        s.wait_sd,
    )?;
    expect(
        &format!("{name} bsld std dev"),
        acc.slowdown_std_dev(),
        s.bsld_sd,
    )?;
    expect(
        &format!("{name} geometric mean bsld"),
        acc.geometric_mean_slowdown(),
        s.geo_bsld,
    )?;
    expect(
        &format!("{name} utilisation"),
        acc.utilisation(u64::from(processors)),
        utilisation(s.work, s.span, processors),
    )
}

/// Holds core's `metrics`, accumulated over `records`, to the figures the
/// records give, overall and per category (utilisation over `processors`).
///
/// # Errors
/// The first figure that differs, named.
pub fn check_metrics(
    metrics: &Metrics,
    records: &[JobRecord],
    processors: u32,
) -> Result<(), String> {
    let accumulators = std::iter::once(&metrics.overall).chain(
        backfill_core::Category::ALL
            .iter()
            .map(|&c| metrics.category(c)),
    );
    for ((name, set), acc) in sets(records, metrics.bounds).iter().zip(accumulators) {
        check_accumulator(name, acc, set.as_ref(), processors)?;
    }
    Ok(())
}

/// A number of the report, `None` for `null`.
fn number(v: &Value, what: &str) -> Result<Option<f64>, String> {
    match v {
        Value::Null => Ok(None),
        v => v
            .as_f64()
            .map(Some)
            .ok_or_else(|| format!("{what}: not a number: {v}")),
    }
}

fn expect_field(v: &Value, what: &str, want: Option<f64>) -> Result<(), String> {
    match (number(v, what)?, want) {
        (None, None) => Ok(()),
        (Some(got), Some(want)) => expect(what, got, want),
        (got, want) => Err(format!("{what}: reported {got:?}, the jobs give {want:?}")),
    }
}

/// Holds the JSON figures of a replay report (`metrics`, `utilisation`
/// and, when present, `distributions`) to the figures `records` give, on a
/// machine of `processors`.
///
/// # Errors
/// The first figure that differs, named.
pub fn check_report(
    report: &Value,
    records: &[JobRecord],
    processors: u32,
    bounds: CategoryBounds,
) -> Result<(), String> {
    let sets = sets(records, bounds);
    let rows = report["metrics"].as_array().ok_or("no metrics")?;
    if rows.len() != sets.len() {
        return Err(format!("{} metrics rows", rows.len()));
    }
    for ((name, set), row) in sets.iter().zip(rows) {
        if row["set"] != *name {
            return Err(format!("row {} where {name} was expected", row["set"]));
        }
        let jobs = set.as_ref().map_or(0, |s| s.jobs);
        let killed = set.as_ref().map_or(0, |s| s.killed);
        if row["jobs"].as_u64() != Some(jobs) || row["killed"].as_u64() != Some(killed) {
            return Err(format!(
                "{name}: jobs/killed {}/{}, the records give {jobs}/{killed}",
                row["jobs"], row["killed"]
            ));
        }
        for (key, want) in [
            ("mean_wait", set.as_ref().map(|s| s.mean_wait)),
            ("mean_bounded_slowdown", set.as_ref().map(|s| s.mean_bsld)),
            ("mean_turnaround", set.as_ref().map(|s| s.mean_turnaround)),
            ("worst_bounded_slowdown", set.as_ref().map(|s| s.worst_bsld)),
        ] {
            expect_field(&row[key], &format!("{name} {key}"), want)?;
        }
    }
    let overall = sets.first().and_then(|(_, s)| s.as_ref());
    expect_field(
        &report["utilisation"],
        "utilisation",
        Some(overall.map_or(0.0, |s| utilisation(s.work, s.span, processors))),
    )?;
    let Some(distributions) = report.get("distributions") else {
        return Ok(());
    };
    let rows = distributions.as_array().ok_or("distributions not a list")?;
    for ((name, set), row) in sets.iter().zip(rows) {
        for (m, measure) in ["wait", "bounded_slowdown", "turnaround"]
            .iter()
            .enumerate()
        {
            for (q, key) in ["p50", "p90", "p95", "p99", "max"].iter().enumerate() {
                let want = set.as_ref().map(|s| s.quantiles[m][q]);
                let got = if row[measure].is_null() {
                    &Value::Null
                } else {
                    &row[measure][key]
                };
                expect_field(got, &format!("{name} {measure} {key}"), want)?;
            }
        }
        for (key, want) in [
            ("wait_std_dev", set.as_ref().map(|s| s.wait_sd)),
            ("bounded_slowdown_std_dev", set.as_ref().map(|s| s.bsld_sd)),
            (
                "geometric_mean_bounded_slowdown",
                set.as_ref().map(|s| s.geo_bsld),
            ),
        ] {
            expect_field(&row[key], &format!("{name} {key}"), want)?;
        }
    }
    Ok(())
}
