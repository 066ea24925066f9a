//! `host-cli sweep` through a plan: the sweep's loads x policies are the
//! cells of a plan made on the fly (no file, no result files), run in
//! parallel by a [`Runner`] that keeps each replay's per-job records; the
//! cells of one load are then compared as `host-cli compare` would
//! ([`crate::studies::sweep`] makes the report). Each load's Conservative
//! run is made once and serves as the Conservative cell and as the source
//! of the Selective thresholds at that load, as in the paper.

use super::run::{for_each, CellRun, Runner};
use super::spec::{CellSpec, Plan, PolicySpec, Workload};
use crate::error::CliError;
use crate::replay::policy::{PolicyChoice, ThresholdOptions};
use crate::replay::{Estimates, Window};
use crate::studies::compare;
use crate::studies::sweep::SweepReport;
use crate::studies::{PolicyRun, Scenario, Source, Study};
use backfill_core::CategoryBounds;
use std::sync::{Arc, Mutex};

/// The sweep's parameters.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct SweepSpec {
    /// Window.
    pub(crate) window: Window,
    /// Estimates.
    pub(crate) estimates: Estimates,
    /// Load factors.
    pub(crate) loads: Vec<f64>,
    /// Policies.
    pub(crate) choices: Vec<PolicyChoice>,
    /// Threshold options.
    pub(crate) options: ThresholdOptions,
    /// Baseline.
    pub(crate) baseline: PolicyChoice,
    /// Category bounds.
    pub(crate) bounds: CategoryBounds,
}

/// The plan of a sweep of `workload`: for each load, each policy.
///
/// # Errors
/// [`CliError::Usage`] for no load, a load given twice, or threshold
/// options no policy uses.
pub(crate) fn plan(workload: &Workload, spec: &SweepSpec) -> Result<Plan, CliError> {
    if spec.loads.is_empty() {
        return Err(CliError::Usage(
            "--loads needs at least one load factor".into(),
        ));
    }
    for (i, load) in spec.loads.iter().enumerate() {
        if spec
            .loads
            .get(..i)
            .is_some_and(|before| before.contains(load))
        {
            return Err(CliError::Usage(format!(
                "--loads lists {load} twice: give each load factor once"
            )));
        }
    }
    spec.options.check(&spec.choices)?;
    let mut cells = Vec::new();
    for &load in &spec.loads {
        for &choice in &spec.choices {
            let policy = PolicySpec::new(choice, &spec.options);
            let cell = CellSpec {
                workload: workload.clone(),
                window: spec.window,
                bounds: spec.bounds,
                estimates: spec.estimates,
                load,
                policy,
                seed: policy.draws().then(PolicySpec::default_seed),
            };
            cells.push((cell, format!("load {load}, policy {choice}")));
        }
    }
    Plan::new("sweep".into(), None, Vec::new(), false, cells)
        .map_err(|d| CliError::Usage(d.message))
}

/// Replays a sweep of `source` (named `workload`): every load, every
/// policy; `progress` counts the jobs of every replay.
///
/// # Errors
/// As [`plan`], and preparation and replay errors (the first cell's that
/// failed, in plan order).
pub(crate) fn run(
    source: Source,
    workload: &Workload,
    spec: &SweepSpec,
    progress: Option<&indicatif::ProgressBar>,
) -> Result<SweepReport, CliError> {
    let plan = plan(workload, spec)?;
    let all: Vec<usize> = (0..plan.cells.len()).collect();
    let runner = Runner::new(&plan, &all, true);
    runner.provide(workload, source);
    let runs = Mutex::new(Vec::new());
    for_each(&all, rayon::current_num_threads(), |i| {
        let Some(cell) = plan.cells.get(i) else {
            return;
        };
        let run = runner.run(cell, progress);
        runner.release(cell);
        runs.lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .push((i, run));
    });
    drop(runner);
    let mut runs = runs
        .into_inner()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    runs.sort_by_key(|r| r.0);
    let runs = runs
        .into_iter()
        .map(|(_, r)| r)
        .collect::<Result<Vec<_>, CliError>>()?;
    let per_load = spec.choices.len().max(1);
    let mut runs = runs.into_iter();
    let mut comparisons = Vec::new();
    let mut first = None;
    for _ in &spec.loads {
        let load_runs: Vec<CellRun> = runs.by_ref().take(per_load).collect();
        let Some(prepared) = load_runs.first().map(|r| Arc::clone(&r.prepared)) else {
            continue;
        };
        let study = Study {
            conservative: load_runs.iter().find_map(|r| r.derived.clone()),
            runs: load_runs
                .into_iter()
                .zip(&spec.choices)
                .map(|(r, &choice)| PolicyRun {
                    choice,
                    thresholds: r.thresholds,
                    result: Arc::try_unwrap(r.result).unwrap_or_else(|shared| (*shared).clone()),
                })
                .collect(),
        };
        let (c, common) = compare::comparison(&prepared, &study, spec.baseline, spec.bounds)?;
        if first.is_none() {
            first = Some((prepared, common, study.rejected()));
        }
        comparisons.push(c);
    }
    let Some((prepared, common, rejected)) = first else {
        return Err(CliError::Usage(
            "--loads needs at least one load factor".into(),
        ));
    };
    let scenario = Scenario::new(
        &prepared,
        &spec.window,
        spec.bounds,
        None,
        rejected,
        &common,
    );
    Ok(SweepReport {
        scenario,
        baseline: spec.baseline.name().to_owned(),
        comparisons,
    })
}
