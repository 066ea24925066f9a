//! Running cells: [`Runner`] replays cells, sharing what cells of one
//! process have in common; [`run_cells`] runs a selection of a plan's cells
//! into result files, skipping those already there.
//!
//! **Sharing.** Cells are independent: any one can run alone, anywhere, and
//! gives the same numbers. Within one process, cells that replay the same
//! trace share its loading, cells with the same window, estimates and load
//! share the prepared jobs, and the Conservative cell and the Selective
//! cells that take their thresholds from a Conservative run of that window
//! share one such run, and, when the plan asks for fairness, the cells of
//! one window, estimates and load share its fair starts (an
//! FCFS-Conservative replay with the fair-start probe); [`Runner`] keeps
//! each only while a cell still to run needs it. Results do not depend on
//! it: a Conservative replay gives the same schedule whoever asked for it.
//! A plan that asks for the wait split by reason follows every job's
//! pending reason in each of these replays (the schedule is the same).
//!
//! **Which cells.** `--cell I` runs cell I; an array task runs cells `k,
//! k + count, k + 2 count, ...` where `k` and `count` come from the batch
//! system's environment ([`Selection::from_env`]); otherwise every cell
//! runs, `--jobs` at a time.

use super::metrics::{self, CellFairness};
use super::results::{self, CellFailure, CellResult, Stored, Timings, RESULT_FORMAT};
use super::spec::{Cell, FarmParams, Plan, Workload};
use crate::error::CliError;
use crate::farm::generate::generate;
use crate::farm::replay::{self as farm_replay, prepare};
use crate::farm::study::offered;
use crate::output::reasons::{wait_split, WaitSplit};
use crate::output::{files, progress};
use crate::replay::policy::PolicyChoice;
use crate::replay::reasons::{Keep, WantReasons};
use crate::replay::run::{run_again, run_timed, RunOptions as ReplayOptions};
use crate::replay::thresholds::{ConservativeThresholds, ThresholdsUsed};
use crate::replay::{Prepared, RunResult};
use crate::studies::fairness::fair_starts;
use crate::studies::Source;
use crate::workload::synth::SyntheticSpec;
use backfill_core::Policy;
use std::collections::HashMap;
use std::hash::Hash;
use std::path::Path;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, OnceLock};
use std::time::Instant;

/// A value several cells share, or the error that making it gave (kept
/// as [`SharedError`], since [`CliError`] cannot be cloned).
type Shared<V> = Result<Arc<V>, SharedError>;

/// The error of a shared step, for every cell that needed the step: its
/// message and its exit status.
#[derive(Clone, Debug)]
struct SharedError {
    message: String,
    exit_code: u8,
}

impl From<CliError> for SharedError {
    fn from(e: CliError) -> Self {
        Self {
            message: e.to_string(),
            exit_code: e.exit_code(),
        }
    }
}

impl From<SharedError> for CliError {
    /// The same message with the same exit status: a bad input (2) stays
    /// one, anything else is work not done (1).
    fn from(e: SharedError) -> Self {
        if e.exit_code == 2 {
            Self::Usage(e.message)
        } else {
            Self::Incomplete(e.message)
        }
    }
}

/// Whether a cell starts or stops needing a shared value.
#[derive(Clone, Copy, Debug)]
enum Need {
    /// One more cell will need it.
    Expect,
    /// A cell that needed it is done.
    Release,
}

/// A shared value's slot and the number of cells still to use it.
type Slot<V> = (Arc<OnceLock<Shared<V>>>, usize);

/// Values made once and shared by the cells that need them; each is
/// dropped when the last of those cells is done.
struct Memo<K, V> {
    entries: Mutex<HashMap<K, Slot<V>>>,
}

impl<K: Hash + Eq + Clone, V> Memo<K, V> {
    fn new() -> Self {
        Self {
            entries: Mutex::new(HashMap::new()),
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<K, Slot<V>>> {
        self.entries
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// One more cell will need `key`.
    fn expect(&self, key: &K) {
        self.lock()
            .entry(key.clone())
            .or_insert_with(|| (Arc::new(OnceLock::new()), 0))
            .1 += 1;
    }

    /// The slot of `key`, made empty when there is none.
    fn slot(&self, key: &K) -> Arc<OnceLock<Shared<V>>> {
        Arc::clone(
            &self
                .lock()
                .entry(key.clone())
                .or_insert_with(|| (Arc::new(OnceLock::new()), 0))
                .0,
        )
    }

    /// The value of `key`, made by `make` by the first cell that asks (the
    /// others wait for it).
    fn get(&self, key: &K, make: impl FnOnce() -> Result<V, CliError>) -> Shared<V> {
        self.slot(key)
            .get_or_init(|| make().map(Arc::new).map_err(SharedError::from))
            .clone()
    }

    /// Sets `key`'s value (made beforehand by the caller).
    fn provide(&self, key: &K, value: V) {
        let _ = self.slot(key).set(Ok(Arc::new(value)));
    }

    /// A cell that needed `key` is done.
    fn release(&self, key: &K) {
        let mut entries = self.lock();
        if let Some(entry) = entries.get_mut(key) {
            entry.1 = entry.1.saturating_sub(1);
            if entry.1 == 0 {
                entries.remove(key);
            }
        }
    }

    /// [`Self::expect`] or [`Self::release`].
    fn count(&self, key: &K, need: Need) {
        match need {
            Need::Expect => self.expect(key),
            Need::Release => self.release(key),
        }
    }
}

/// What a prepared window depends on.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
struct PreparedKey {
    workload: Workload,
    skip: u64,
    first: Option<u64>,
    procs: Option<u32>,
    estimates: &'static str,
    load: u64,
}

/// What a Conservative run of a window depends on.
type ConservativeKey = (PreparedKey, u32, u32);

fn prepared_key(cell: &Cell) -> PreparedKey {
    let s = &cell.spec;
    PreparedKey {
        workload: s.workload.clone(),
        skip: s.window.skip,
        first: s.window.first,
        procs: s.window.procs,
        estimates: s.estimates.name(),
        load: s.load.to_bits(),
    }
}

fn conservative_key(cell: &Cell) -> ConservativeKey {
    let b = cell.spec.bounds;
    (prepared_key(cell), b.short_max, b.narrow_max)
}

/// Whether the cell replays Conservative or takes thresholds from it.
fn uses_conservative(cell: &Cell) -> bool {
    let p = &cell.spec.policy;
    p.choice == PolicyChoice::CONSERVATIVE || p.needs_conservative()
}

/// One cell's replay, with what the metrics need.
#[derive(Clone, Debug)]
pub(crate) struct CellRun {
    /// The prepared window.
    pub(crate) prepared: Arc<Prepared>,
    /// The replay.
    pub(crate) result: Arc<RunResult>,
    /// Selective's thresholds, as used.
    pub(crate) thresholds: ThresholdsUsed,
    /// The thresholds a Conservative run gave, when the cell took them
    /// from one.
    pub(crate) derived: Option<ConservativeThresholds>,
    /// The wait split by reason, when the plan asks for it.
    pub(crate) waits: Option<Vec<WaitSplit>>,
    /// The fairness against fair starts, when the plan asks for it.
    pub(crate) fairness: Option<CellFairness>,
    /// Wall-clock times.
    pub(crate) timings: Timings,
}

/// Replays cells of one plan, sharing loaded traces, prepared windows and
/// Conservative runs between them (see the module docs).
pub(crate) struct Runner<'p> {
    plan: &'p Plan,
    keep_records: bool,
    /// The plan asks for the wait split by reason: every replay follows
    /// the jobs' pending reasons.
    reasons: bool,
    /// The plan asks for fairness: the cells need fair starts and their
    /// replays' records.
    fairness: bool,
    /// The plan asks for the thresholds of the Conservative replay they
    /// come from: a Conservative cell derives them from its own replay.
    threshold_basis: bool,
    sources: Memo<Workload, Source>,
    prepared: Memo<PreparedKey, Prepared>,
    conservative: Memo<ConservativeKey, RunResult>,
    fair_starts: Memo<ConservativeKey, FairStartTimes>,
}

/// The fair start of every job of a window (by kernel id; `None` where
/// the kernel could not compute one) and how many have none.
type FairStartTimes = (Vec<Option<backfill_core::Time>>, u64);

impl<'p> Runner<'p> {
    /// A runner for the cells of `plan` numbered `cells`; their replays
    /// keep per-job records when `keep_records`.
    #[must_use]
    pub(crate) fn new(plan: &'p Plan, cells: &[usize], keep_records: bool) -> Self {
        let runner = Self {
            plan,
            keep_records,
            reasons: plan.metrics.iter().any(|m| metrics::needs_reasons(m)),
            fairness: plan.metrics.iter().any(|m| metrics::needs_fair_starts(m)),
            threshold_basis: plan
                .metrics
                .iter()
                .any(|m| metrics::needs_threshold_basis(m)),
            sources: Memo::new(),
            prepared: Memo::new(),
            conservative: Memo::new(),
            fair_starts: Memo::new(),
        };
        for cell in cells.iter().filter_map(|&i| plan.cells.get(i)) {
            runner.count(cell, Need::Expect);
        }
        runner
    }

    /// Counts `cell` in or out of the shared values it uses: its
    /// workload, its prepared window, and the Conservative run and fair
    /// starts when it needs them (a farm cell shares nothing).
    fn count(&self, cell: &Cell, need: Need) {
        if is_farm(cell) {
            return;
        }
        self.sources.count(&cell.spec.workload, need);
        self.prepared.count(&prepared_key(cell), need);
        if uses_conservative(cell) {
            self.conservative.count(&conservative_key(cell), need);
        }
        if self.fairness {
            self.fair_starts.count(&conservative_key(cell), need);
        }
    }

    /// Gives the runner the workload of `workload`, loaded beforehand.
    pub(crate) fn provide(&self, workload: &Workload, source: Source) {
        self.sources.provide(workload, source);
    }

    /// The prepared window of `cell`.
    ///
    /// # Errors
    /// Reading or preparing errors (shared by the cells of that window).
    pub(crate) fn prepared(&self, cell: &Cell) -> Result<Arc<Prepared>, CliError> {
        let s = &cell.spec;
        self.prepared
            .get(&prepared_key(cell), || {
                let source = self
                    .sources
                    .get(&s.workload, || match &s.workload {
                        Workload::Trace { path, .. } => {
                            Source::load(Some(path), SyntheticSpec::default())
                        }
                        Workload::Builtin { jobs, seed } => Ok(Source::Synthetic(SyntheticSpec {
                            jobs: *jobs,
                            seed: *seed,
                            ..SyntheticSpec::default()
                        })),
                        Workload::Farm(_) => Err(CliError::Usage(format!(
                            "{}: a generated farm is replayed by the farm kernel, not as a trace",
                            describe(cell)
                        ))),
                    })
                    .map_err(CliError::from)?;
                source.prepare(&s.window, s.shaping())
            })
            .map_err(CliError::from)
    }

    /// Replays `prepared` under `policy`, keeping the per-job records when
    /// `keep_records`, timing every kernel call when the plan says so, and
    /// following every job's pending reason (with its records) when the
    /// plan asks for the wait split by reason.
    fn replay(
        &self,
        prepared: &Prepared,
        policy: Policy,
        bounds: backfill_core::CategoryBounds,
        keep_records: bool,
        progress: Option<&indicatif::ProgressBar>,
    ) -> Result<RunResult, CliError> {
        let latency = self.plan.latency;
        if !self.reasons {
            return run_timed(prepared, policy, bounds, keep_records, progress, latency);
        }
        let options = ReplayOptions {
            reasons: Some(WantReasons {
                keep: Keep::Nothing,
                tally: true,
                queue_at: None,
            }),
            ..ReplayOptions::new(true, latency)
        };
        run_again(prepared, policy, bounds, options, progress)
    }

    /// Replays `cell`; `progress` counts its jobs.
    ///
    /// # Errors
    /// Reading, preparing and replay errors.
    pub(crate) fn run(
        &self,
        cell: &Cell,
        progress: Option<&indicatif::ProgressBar>,
    ) -> Result<CellRun, CliError> {
        let started = Instant::now();
        let s = &cell.spec;
        let prepared = self.prepared(cell)?;
        let prepare_seconds = started.elapsed().as_secs_f64();
        let choice = s.policy.choice;
        let conservative = if uses_conservative(cell) {
            let t = Instant::now();
            let run = self
                .conservative
                .get(&conservative_key(cell), || {
                    self.replay(&prepared, Policy::Conservative, s.bounds, true, progress)
                })
                .map_err(CliError::from)?;
            Some((run, t.elapsed().as_secs_f64()))
        } else {
            None
        };
        let derived = match &conservative {
            Some((run, _)) if s.policy.needs_conservative() => {
                Some(ConservativeThresholds::from_records(
                    run.records.as_deref().unwrap_or_default(),
                    s.estimates,
                    s.bounds,
                ))
            }
            _ => None,
        };
        let (policy, thresholds) =
            s.policy
                .thresholds
                .resolve(choice, s.bounds, derived.as_ref())?;
        let policy = s.policy.heuristics(s.policy.search(s.seed).apply(policy));
        let fair_starts = if self.fairness {
            let starts = self
                .fair_starts
                .get(&conservative_key(cell), || {
                    let (_, fair) = fair_starts(&prepared, s.bounds, progress)?;
                    Ok((fair.starts, fair.errors.len() as u64))
                })
                .map_err(CliError::from)?;
            Some(starts)
        } else {
            None
        };
        let (result, prerun_seconds) = match conservative {
            Some((run, _)) if choice == PolicyChoice::CONSERVATIVE => (run, None),
            other => {
                let keep = self.keep_records || self.fairness;
                let run = self.replay(&prepared, policy, s.bounds, keep, progress)?;
                (Arc::new(run), other.map(|(_, t)| t))
            }
        };
        let waits = result.reasons.as_ref().map(|followed| {
            wait_split(
                &followed.log,
                result.records.as_deref().unwrap_or_default(),
                s.bounds,
            )
        });
        let fairness = fair_starts
            .map(|f| CellFairness::of(result.records.as_deref().unwrap_or_default(), &f.0, f.1));
        let timings = Timings {
            prepare_seconds,
            prerun_seconds,
            replay_seconds: result.wall.as_secs_f64(),
            cell_seconds: started.elapsed().as_secs_f64(),
            slowest_call_us: result
                .latency
                .as_ref()
                .map(|l| l.slowest.0.as_secs_f64() * 1e6),
        };
        Ok(CellRun {
            prepared,
            result,
            thresholds,
            derived,
            waits,
            fairness,
            timings,
        })
    }

    /// `cell` is done: what only it still needed is dropped.
    pub(crate) fn release(&self, cell: &Cell) {
        self.count(cell, Need::Release);
    }

    /// The result file of `cell`, from its replay.
    #[must_use]
    pub(crate) fn result(&self, cell: &Cell, run: &CellRun) -> CellResult {
        let own = (self.threshold_basis
            && run.derived.is_none()
            && cell.spec.policy.choice == PolicyChoice::CONSERVATIVE)
            .then(|| {
                ConservativeThresholds::from_records(
                    run.result.records.as_deref().unwrap_or_default(),
                    cell.spec.estimates,
                    cell.spec.bounds,
                )
            });
        let basis = run.derived.as_ref().or(own.as_ref());
        self.result_with(cell, run.timings.clone(), |m| {
            metrics::value(
                m,
                &run.prepared,
                &run.result,
                &run.thresholds,
                run.waits.as_deref(),
                run.fairness.as_ref(),
                basis,
            )
        })
    }

    /// The result file of `cell`, metric `m` being `value(m)`.
    fn result_with(
        &self,
        cell: &Cell,
        timings: Timings,
        value: impl Fn(&str) -> Option<serde_json::Value>,
    ) -> CellResult {
        CellResult {
            format: RESULT_FORMAT.to_owned(),
            plan: self.plan.fingerprint.clone(),
            cell: cell.index,
            id: cell.id.clone(),
            parameters: cell.spec.parameters(),
            metrics: self
                .plan
                .metrics
                .iter()
                .map(|m| (m.clone(), value(m).unwrap_or(serde_json::Value::Null)))
                .collect(),
            timings,
            host: results::host(),
        }
    }
}

impl Runner<'_> {
    /// Replays the generated farm of `cell` (generated anew: it takes
    /// milliseconds) and gives its result file and its wall time.
    ///
    /// # Errors
    /// Generator, kernel-limit and replay errors.
    pub(crate) fn run_farm(
        &self,
        cell: &Cell,
        params: &FarmParams,
    ) -> Result<(CellResult, f64), CliError> {
        let started = Instant::now();
        let s = &cell.spec;
        let workload = generate(&params.spec()).map_err(CliError::Usage)?;
        let prepared = prepare(&s.workload.name(), workload)?;
        let (offered_load, skipped) = offered(&prepared);
        let prepare_seconds = started.elapsed().as_secs_f64();
        let (policy, _) = s
            .policy
            .thresholds
            .resolve(s.policy.choice, s.bounds, None)?;
        let policy = s.policy.heuristics(s.policy.search(s.seed).apply(policy));
        let run = farm_replay::run(&prepared, policy, s.bounds)?;
        let facts = metrics::FarmFacts {
            offered_load,
            skipped,
        };
        let timings = Timings {
            prepare_seconds,
            prerun_seconds: None,
            replay_seconds: run.wall.as_secs_f64(),
            cell_seconds: started.elapsed().as_secs_f64(),
            slowest_call_us: None,
        };
        let seconds = timings.cell_seconds;
        Ok((
            self.result_with(cell, timings, |m| metrics::farm_value(m, &run, facts)),
            seconds,
        ))
    }
}

/// Whether `cell` replays a generated farm.
fn is_farm(cell: &Cell) -> bool {
    matches!(cell.spec.workload, Workload::Farm(_))
}

/// Which of a plan's cells a `plan run` runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Selection {
    /// Every cell.
    All,
    /// One cell (`--cell`).
    One(usize),
    /// An array task: cells `index, index + count, ...`; with no count,
    /// cell `index` only.
    Task {
        /// The task's index, from 0.
        index: u64,
        /// The number of tasks.
        count: Option<u64>,
        /// Where the numbers came from, for messages.
        from: &'static str,
    },
}

impl Selection {
    /// The selection the environment gives when `--cell` is not: the
    /// variables named by `index_env` (and `count_env`), else Slurm's
    /// `SLURM_ARRAY_TASK_ID` (less `SLURM_ARRAY_TASK_MIN` when set) and
    /// `SLURM_ARRAY_TASK_COUNT`, else every cell. `var` reads a variable.
    ///
    /// # Errors
    /// [`CliError::Usage`] naming a variable that is missing or not a
    /// whole number.
    pub(crate) fn from_env(
        index_env: Option<&str>,
        count_env: Option<&str>,
        var: impl Fn(&str) -> Option<String>,
    ) -> Result<Self, CliError> {
        let number = |name: &str, option: &str| -> Result<Option<u64>, CliError> {
            let Some(text) = var(name) else {
                return Ok(None);
            };
            text.trim().parse::<u64>().map(Some).map_err(|_| {
                CliError::Usage(format!(
                    "{option}{name}={text:?} is not a whole number from 0 to {}",
                    u64::MAX
                ))
            })
        };
        if let Some(name) = index_env {
            let index = number(name, "--index-env: ")?.ok_or_else(|| {
                CliError::Usage(format!(
                    "--index-env {name}: the variable {name} is not set (is this an array task?)"
                ))
            })?;
            let count = match count_env {
                Some(c) => Some(number(c, "--count-env: ")?.ok_or_else(|| {
                    CliError::Usage(format!("--count-env {c}: the variable {c} is not set"))
                })?),
                None => None,
            };
            return Ok(Self::Task {
                index,
                count,
                from: "--index-env",
            });
        }
        let Some(id) = number("SLURM_ARRAY_TASK_ID", "")? else {
            return Ok(Self::All);
        };
        let min = number("SLURM_ARRAY_TASK_MIN", "")?.unwrap_or(0);
        let index = id.checked_sub(min).ok_or_else(|| {
            CliError::Usage(format!(
                "SLURM_ARRAY_TASK_ID={id} is below SLURM_ARRAY_TASK_MIN={min}"
            ))
        })?;
        Ok(Self::Task {
            index,
            count: number("SLURM_ARRAY_TASK_COUNT", "")?,
            from: "SLURM_ARRAY_TASK_ID",
        })
    }

    /// The cells this selection runs out of `total`.
    ///
    /// # Errors
    /// [`CliError::Usage`] for a cell or task index out of range.
    pub(crate) fn cells(self, total: usize) -> Result<Vec<usize>, CliError> {
        match self {
            Self::All => Ok((0..total).collect()),
            Self::One(i) if i < total => Ok(vec![i]),
            Self::One(i) => Err(CliError::Usage(format!(
                "--cell {i}: the plan has {total} cells, numbered 0 to {}",
                total.saturating_sub(1)
            ))),
            Self::Task {
                index,
                count: Some(count),
                from,
            } => {
                if count == 0 || index >= count {
                    return Err(CliError::Usage(format!(
                        "{from}: task index {index} is not below the task count {count}"
                    )));
                }
                let start = usize::try_from(index).unwrap_or(usize::MAX);
                let step = usize::try_from(count).unwrap_or(usize::MAX);
                Ok((start..total).step_by(step).collect())
            }
            Self::Task {
                index, count: None, ..
            } => Ok(usize::try_from(index)
                .ok()
                .filter(|&i| i < total)
                .into_iter()
                .collect()),
        }
    }
}

/// Calls `task` with every item of `items`, on `jobs` threads at once;
/// each thread takes the next item in order, so items start in order.
pub(crate) fn for_each(items: &[usize], jobs: usize, task: impl Fn(usize) + Sync) {
    let next = AtomicUsize::new(0);
    std::thread::scope(|scope| {
        for _ in 0..jobs.clamp(1, items.len().max(1)) {
            scope.spawn(|| {
                while let Some(&i) = items.get(next.fetch_add(1, Ordering::SeqCst)) {
                    task(i);
                }
            });
        }
    });
}

/// How [`run_cells`] runs.
#[derive(Clone, Copy, Debug)]
pub(crate) struct RunOptions<'a> {
    /// The output folder (results in `OUT/cells`).
    pub(crate) out: &'a Path,
    /// Run cells whose result is already there, and replace results of
    /// another plan.
    pub(crate) force: bool,
    /// Cells run at a time.
    pub(crate) jobs: usize,
}

/// What [`run_cells`] did.
#[derive(Clone, Debug, Default, PartialEq)]
pub(crate) struct Summary {
    /// Cells selected.
    pub(crate) selected: usize,
    /// Cells whose result was already there (skipped).
    pub(crate) already: usize,
    /// Cells run and written.
    pub(crate) ran: usize,
    /// Cells that failed: (index, error); each has a failure record.
    pub(crate) failed: Vec<(usize, String)>,
}

/// A cell in a message: `cell 12 (KTH-SP2-1996-2.1-cln.swf.gz easy user x1.2)`.
#[must_use]
pub(crate) fn describe(cell: &Cell) -> String {
    let p = cell.spec.parameters();
    let mut text = format!("cell {} ({} {}", cell.index, p.trace, p.policy);
    if !p.options.is_empty() {
        text.push_str(&format!(" [{}]", p.options));
    }
    if let Some(seed) = p.seed {
        text.push_str(&format!(" seed {seed}"));
    }
    text.push_str(&format!(" {} x{}", p.estimates, p.load));
    if p.skip > 0 || p.first.is_some() {
        text.push_str(&format!(
            " {}",
            crate::output::report::window_text(p.skip, p.first)
        ));
    }
    text.push(')');
    text
}

/// Runs the cells numbered `cells` of `plan` into `options.out`, `jobs`
/// at a time, skipping those whose result is there (unless `force`). A
/// cell that fails gets a failure record and the others go on.
///
/// # Errors
/// [`CliError::Usage`] when results of another plan are in the way (and
/// not `force`), [`CliError::Io`] when the folder cannot be made.
pub(crate) fn run_cells(
    plan: &Plan,
    cells: &[usize],
    options: RunOptions<'_>,
) -> Result<Summary, CliError> {
    let dir = results::cells_dir(options.out);
    std::fs::create_dir_all(&dir).map_err(|e| CliError::Io(dir.display().to_string(), e))?;
    let mut summary = Summary {
        selected: cells.len(),
        ..Summary::default()
    };
    let mut todo = Vec::new();
    let mut refused = Vec::new();
    for cell in cells.iter().filter_map(|&i| plan.cells.get(i)) {
        match results::stored(plan, cell, options.out) {
            Stored::Done(_) if !options.force => summary.already += 1,
            Stored::Done(_) | Stored::Missing => todo.push(cell.index),
            Stored::Unreadable(why) => {
                files::warn(&format!("host-cli: {why}; running the cell again"));
                todo.push(cell.index);
            }
            Stored::OtherPlan(why) | Stored::WrongId(why) => {
                if options.force {
                    todo.push(cell.index);
                } else {
                    refused.push(why);
                }
            }
        }
    }
    if !refused.is_empty() {
        return Err(CliError::Usage(format!(
            "{} holds {} file{} that {} not this plan's: {}; give another --out folder, or \
             --force to replace them",
            options.out.display(),
            refused.len(),
            if refused.len() == 1 { "" } else { "s" },
            if refused.len() == 1 { "is" } else { "are" },
            refused.join("; ")
        )));
    }
    let runner = Runner::new(plan, &todo, false);
    let bar = progress::cells(
        &format!("plan {}", plan.name),
        todo.len() as u64,
        todo.len() > 1,
    );
    let ran = AtomicUsize::new(0);
    let failed = Mutex::new(Vec::new());
    let say = |line: String| {
        if bar.is_hidden() {
            files::warn(&line);
        } else {
            bar.println(line);
        }
    };
    for_each(&todo, options.jobs, |i| {
        let Some(cell) = plan.cells.get(i) else {
            return;
        };
        let ran_cell = match &cell.spec.workload {
            Workload::Farm(params) => runner.run_farm(cell, params),
            _ => runner
                .run(cell, None)
                .map(|run| (runner.result(cell, &run), run.timings.cell_seconds)),
        };
        let outcome = ran_cell.and_then(|(result, seconds)| {
            results::write_atomic(&results::result_path(options.out, &cell.id), &result)?;
            Ok(seconds)
        });
        runner.release(cell);
        match outcome {
            Ok(seconds) => {
                let _ = std::fs::remove_file(results::failure_path(options.out, &cell.id));
                ran.fetch_add(1, Ordering::SeqCst);
                say(format!("{}: {seconds:.2} s", describe(cell)));
            }
            Err(e) => {
                let error = e.to_string();
                let record = CellFailure::new(plan, cell, error.clone());
                let written =
                    results::write_atomic(&results::failure_path(options.out, &cell.id), &record);
                let note = written
                    .err()
                    .map_or_else(String::new, |w| format!(" (no failure record: {w})"));
                say(format!("{}: failed: {error}{note}", describe(cell)));
                failed
                    .lock()
                    .unwrap_or_else(std::sync::PoisonError::into_inner)
                    .push((cell.index, error));
            }
        }
        bar.inc(1);
    });
    progress::finish(&bar);
    summary.ran = ran.into_inner();
    let mut failed = failed
        .into_inner()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    failed.sort_by_key(|f| f.0);
    summary.failed = failed;
    Ok(summary)
}

#[cfg(test)]
mod tests;
