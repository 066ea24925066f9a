use super::*;
use crate::farm::format::{farm_toml, jobs_csv};

fn spec(seed: u64, jobs: u32) -> FarmSpec {
    FarmSpec {
        seed,
        jobs,
        ..FarmSpec::default()
    }
}

#[test]
fn the_same_seed_gives_the_same_files() {
    let a = generate(&spec(7, 500)).unwrap();
    let b = generate(&spec(7, 500)).unwrap();
    assert_eq!(a, b);
    assert_eq!(farm_toml(&a.farm, "x"), farm_toml(&b.farm, "x"));
    assert_eq!(
        jobs_csv(&a.farm, &a.jobs, "x"),
        jobs_csv(&b.farm, &b.jobs, "x")
    );
    let c = generate(&spec(8, 500)).unwrap();
    assert_ne!(a.jobs, c.jobs);
}

#[test]
fn the_defaults_are_the_papers() {
    let s = FarmSpec::default();
    assert_eq!((s.machines, s.licenses, s.jobs), (100, 20, 1000));
    assert_eq!((s.estimate, s.margin), ((500, 3000), (30, 250)));
    assert_eq!((s.job_cpus, s.machine_cpus), ((1, 8), (1, 8)));
    assert_eq!(s.license_ratio, (50, 70));
    assert_eq!((s.suitability, s.needs, s.no_deadline), (90, 30, 30));
    let w = generate(&s).unwrap();
    assert_eq!(w.farm.machines.len(), 100);
    assert_eq!(w.farm.licenses.len(), 20);
    assert_eq!(w.jobs.len(), 1000);
    assert_eq!(w.farm.machines[7].name, "m07");
    assert_eq!(w.farm.licenses[3].name, "lic03");
    assert!(w.jobs.windows(2).all(|p| p[0].submit <= p[1].submit));
}

/// `|mean - expected| <= 5 standard errors` of a sample of `n` values
/// with standard deviation `sd`.
fn close(what: &str, mean: f64, expected: f64, sd: f64, n: usize) {
    let se = sd / (n as f64).sqrt();
    assert!(
        (mean - expected).abs() <= 5.0 * se,
        "{what}: sample mean {mean:.4}, expected {expected:.4} +- {:.4}",
        5.0 * se
    );
}

fn uniform_sd(lo: f64, hi: f64) -> f64 {
    // Discrete uniform over lo..=hi.
    let n = hi - lo + 1.0;
    ((n * n - 1.0) / 12.0).sqrt()
}

fn mean(values: impl Iterator<Item = f64>) -> (f64, usize) {
    let (sum, n) = values.fold((0.0, 0usize), |(s, n), v| (s + v, n + 1));
    (sum / n as f64, n)
}

#[test]
fn sample_means_match_the_configured_distributions() {
    let s = FarmSpec {
        jobs: 20_000,
        mean_interarrival: 6.0,
        ..FarmSpec::default()
    };
    let w = generate(&s).unwrap();
    let jobs = &w.jobs;
    // Inter-arrival: exponential, sd = mean (floors of a running sum: the
    // mean gap is unchanged up to one unit over the whole stream).
    let gaps = f64::from(jobs.last().unwrap().submit) / jobs.len() as f64;
    close("inter-arrival", gaps, 6.0, 6.0, jobs.len());
    let (m, n) = mean(jobs.iter().map(|j| f64::from(j.estimate)));
    close("estimate", m, 1750.0, uniform_sd(500.0, 3000.0), n);
    let (m, n) = mean(jobs.iter().map(|j| f64::from(j.cpus)));
    close("job CPUs", m, 4.5, uniform_sd(1.0, 8.0), n);
    assert!(jobs.iter().all(|j| j.runtime == j.estimate));
    let (m, n) = mean(
        jobs.iter()
            .filter_map(|j| j.deadline.map(|d| f64::from(d - j.submit - j.estimate))),
    );
    close("deadline margin", m, 140.0, uniform_sd(30.0, 250.0), n);
    let (m, n) = mean(
        jobs.iter()
            .map(|j| f64::from(u8::from(j.deadline.is_none()))),
    );
    close("share without deadline", m, 0.3, (0.3f64 * 0.7).sqrt(), n);
    let (m, n) = mean(
        jobs.iter()
            .flat_map(|j| (0..20).map(move |l| f64::from(u8::from(j.licenses.contains(&l))))),
    );
    close("license needs", m, 0.3, (0.3f64 * 0.7).sqrt(), n);
}

#[test]
fn farm_draws_match_the_configured_distributions() {
    // Machines and licenses of 50 farms.
    let farms: Vec<_> = (1..=50)
        .map(|seed| {
            generate(&FarmSpec {
                jobs: 0,
                seed,
                ..FarmSpec::default()
            })
            .unwrap()
            .farm
        })
        .collect();
    let (m, n) = mean(
        farms
            .iter()
            .flat_map(|f| f.machines.iter().map(|m| f64::from(m.cpus))),
    );
    close("machine CPUs", m, 4.5, uniform_sd(1.0, 8.0), n);
    assert!(farms
        .iter()
        .flat_map(|f| &f.machines)
        .all(|m| m.speed == 1000));
    let (m, n) = mean(farms.iter().flat_map(|f| {
        f.licenses
            .iter()
            .map(|l| l.machines.len() as f64 / f.machines.len() as f64)
    }));
    // Each license's share of usable machines averages 100 draws.
    close("suitability", m, 0.9, (0.9f64 * 0.1 / 100.0).sqrt(), n);
    // Copies = floor(ratio * usable): the ratio, less half a copy on average.
    let (m, n) = mean(farms.iter().flat_map(|f| {
        f.licenses
            .iter()
            .map(|l| (f64::from(l.copies) + 0.5) / l.machines.len() as f64)
    }));
    close("license ratio", m, 0.60, uniform_sd(50.0, 70.0) / 100.0, n);
}

#[test]
fn options_change_what_they_say() {
    let s = FarmSpec {
        jobs: 2000,
        margin_kind: MarginKind::Percent,
        margin: (100, 100),
        no_deadline: 0,
        runtime_percent: (50, 50),
        speed: (500, 2000),
        needs: 0,
        ..FarmSpec::default()
    };
    let w = generate(&s).unwrap();
    assert!(w
        .jobs
        .iter()
        .all(|j| j.deadline == Some(j.submit + 2 * j.estimate)));
    assert!(w.jobs.iter().all(|j| j.runtime == j.estimate / 2));
    assert!(w.jobs.iter().all(|j| j.licenses.is_empty()));
    assert!(w.farm.machines.iter().any(|m| m.speed != 1000));
    assert!(w
        .farm
        .machines
        .iter()
        .all(|m| (500..=2000).contains(&m.speed)));
}

#[test]
fn bad_parameters_are_refused() {
    let bad = |s: FarmSpec| generate(&s).unwrap_err();
    assert_eq!(
        bad(FarmSpec {
            machines: 200,
            ..FarmSpec::default()
        }),
        "machines: from 1 to 128, got 200"
    );
    assert_eq!(
        bad(FarmSpec {
            estimate: (10, 5),
            ..FarmSpec::default()
        }),
        "estimate: the range 10-5 is empty"
    );
    assert_eq!(
        bad(FarmSpec {
            needs: 101,
            ..FarmSpec::default()
        }),
        "needs: a percentage from 0 to 100, got 101"
    );
    assert!(bad(FarmSpec {
        mean_interarrival: f64::NAN,
        ..FarmSpec::default()
    })
    .starts_with("mean inter-arrival"));
}
