//! `host-cli replay` (of a trace, the built-in workload or a farm) and
//! `host-cli info`.

use super::args::{Format, InfoArgs, JobsFormat, ReplayArgs, WindowArgs};
use super::{in_format, json, output_files};
use crate::error::CliError;
use crate::farm::{format as farm_format, replay as farm_replay, report as farm_report};
use crate::output::csv_text;
use crate::output::files::{identity, OutputFiles};
use crate::output::reasons;
use crate::output::{batsim, distribution, groups, progress, report, swf_out, timeseries};
use crate::replay::checkpoint::{self, Checkpointing, Fingerprint};
use crate::replay::policy::{SearchOptions, ThresholdOptions};
use crate::replay::reasons::Described;
use crate::replay::reasons::Keep;
use crate::replay::reasons::{expected_words, Followed, WantReasons};
use crate::replay::run::{run_again, run_checkpointed, RunOptions};
use crate::replay::steady::{self, Edge};
use crate::replay::stream;
use crate::replay::thresholds::ConservativeThresholds;
use crate::replay::{self, Prepared, RunResult, Shaping};
use crate::studies::Source;
use crate::swf;
use crate::workload::synth::SyntheticSpec;
use backfill_core::{CategoryBounds, Policy};
use std::path::{Path, PathBuf};
use std::time::Instant;

/// A trace file of at least this many bytes (about 20,000 jobs gzip'd)
/// gets a visible progress bar for a replay that runs while it is read.
const LARGE_TRACE_BYTES: u64 = 1 << 20;

/// `host-cli replay`: returns the text to print.
///
/// # Errors
/// Any [`CliError`].
pub(crate) fn run_replay(args: &ReplayArgs) -> Result<String, CliError> {
    let checkpointing = args.checkpoint.is_some() || args.resume.is_some();
    if let Some(farm) = &args.farm {
        if checkpointing {
            return Err(CliError::Usage(
                "--checkpoint and --resume apply to trace replays, not to --farm".into(),
            ));
        }
        return run_farm_replay(args, farm);
    }
    if let Some(path) = &args.checkpoint {
        check_checkpoint_path(path, args)?;
    }
    if checkpointing && args.latency {
        return Err(CliError::Usage(
            "--latency cannot be used with --checkpoint or --resume: a resumed replay times \
             only the calls after its checkpoint"
                .into(),
        ));
    }
    let started = Instant::now();
    let shaping = args.shape.shaping();
    let spec = SyntheticSpec {
        jobs: args.synthetic_jobs,
        seed: args.seed.unwrap_or(SyntheticSpec::default().seed),
        ..SyntheticSpec::default()
    };
    let options = args.thresholds.options();
    options.check(&[args.policy])?;
    let search = SearchOptions {
        dpsa_nodes: args.dpsa_nodes,
        rs_seed: args.seed,
        rs_iterations: args.rs_iterations,
        no_compression: args.no_compression,
        compression: args.compression,
        flavour: args.flavour,
    };
    search.check(args.policy)?;
    let mut files = output_files(
        args.trace.as_deref(),
        &[
            ("--jobs-out", args.jobs_out.as_deref()),
            ("--timeseries", args.timeseries.as_deref()),
            ("--reasons-out", args.reasons_out.as_deref()),
        ],
    )?;
    // The kernel is built while the trace is read.
    replay::prebuild();
    let bounds = args.window.bounds();
    let (early, tap) = match start_early(args, &options, &search, shaping, bounds) {
        Some((streamed, tap, bar)) => (Some((streamed, bar)), Some(tap)),
        None => (None, None),
    };
    let (prepared, _) =
        load_prepared_tapped(args.trace.as_ref(), &args.window, shaping, &spec, tap)?;
    prepared.check_runnable()?;
    let keep = match (args.reasons_out.is_some(), args.explain) {
        (true, _) => Keep::All,
        (false, Some(number)) => Keep::Job(job_numbered(&prepared, number)?),
        (false, None) => Keep::Nothing,
    };
    if let Some((_, bar)) = &early {
        // The trace is read: the streamed replay's bar gets its total.
        progress::total_known(bar, prepared.jobs.len() as u64);
    }
    let read = started.elapsed().as_secs_f64();
    let mut prerun = None;
    let derived = if options.needs_conservative(&[args.policy]) {
        let prerun_started = Instant::now();
        let bar = progress::phase("Conservative pre-run", prepared.jobs.len() as u64);
        let r = replay::run(&prepared, Policy::Conservative, bounds, true, Some(&bar));
        progress::finish(&bar);
        let r = r?;
        prerun = Some(prerun_started.elapsed().as_secs_f64());
        Some(ConservativeThresholds::from_records(
            r.records.as_deref().unwrap_or_default(),
            prepared.shaping.estimates,
            bounds,
        ))
    } else {
        None
    };
    let (policy, used) = options.resolve(args.policy, bounds, derived.as_ref())?;
    let policy = search.apply(args.heuristics.apply(policy));
    let checkpoints = if checkpointing {
        let fingerprint = Fingerprint::of(&prepared, policy, bounds, keep_records(args));
        let resume = match &args.resume {
            Some(path) => Some(checkpoint::read(path, &fingerprint)?),
            None => None,
        };
        Some(Checkpointing {
            path: args.checkpoint.clone(),
            every: args.checkpoint_every.unwrap_or(u64::MAX),
            fingerprint,
            resume,
        })
    } else {
        None
    };
    let (verdict, bar) = match early {
        Some((streamed, bar)) => (streamed.finish(&prepared), bar),
        None => (
            stream::Verdict::Again { filled: false },
            progress::phase(&format!("replay {policy}"), prepared.jobs.len() as u64),
        ),
    };
    let result = match &checkpoints {
        Some(checkpoints) => {
            let options = RunOptions::new(keep_records(args), false);
            run_checkpointed(&prepared, policy, bounds, options, Some(&bar), checkpoints)
        }
        None if follows_reasons(args) => {
            let options = RunOptions {
                reasons: Some(WantReasons {
                    keep,
                    tally: args.wait_by_reason,
                    queue_at: args.queue_at,
                }),
                ..RunOptions::new(keep_records(args), args.latency)
            };
            run_again(&prepared, policy, bounds, options, Some(&bar))
        }
        None => verdict.into_result(
            &prepared,
            policy,
            bounds,
            keep_records(args),
            args.latency,
            Some(&bar),
        ),
    };
    progress::finish(&bar);
    let mut result = result?;
    let followed = result.reasons.take();
    if let Some(followed) = &followed {
        files.write_with("--reasons-out", |w| {
            reasons::write_reasons_csv(w, &prepared, &followed.log)
        })?;
    }
    let samples = args.timeseries.as_ref().map(|_| {
        timeseries::samples(
            result.records().unwrap_or_default(),
            prepared.machine_procs,
            args.every,
        )
    });
    if let Some(samples) = &samples {
        files.write_with("--timeseries", |w| timeseries::write_csv(w, samples))?;
    }
    let steady = (args.warmup.is_some() || args.cooldown.is_some())
        .then(|| steady::measure(&prepared, &mut result, bounds, args.warmup, args.cooldown));
    if let Some(records) = &result.records {
        files.write_with("--jobs-out", |w| match args.jobs_format {
            JobsFormat::Plain => {
                report::write_jobs_csv(w, &prepared, records, bounds, args.by.is_some())
            }
            JobsFormat::Batsim => batsim::write_jobs(w, &prepared, records),
            JobsFormat::Swf => match &args.trace {
                Some(trace) => {
                    swf_out::write_swf(w, trace, &prepared, records, &policy.to_string())
                }
                None => Err(std::io::Error::other("--jobs-format swf needs a TRACE")),
            },
        })?;
    }
    let phases = report::Phases {
        read,
        prerun,
        total: started.elapsed().as_secs_f64(),
    };
    let mut r = report::replay_report(&prepared, &result, bounds, phases);
    let measured = steady
        .as_ref()
        .map(|(records, _)| records.as_slice())
        .or(result.records.as_deref());
    if args.distributions {
        r.distributions =
            measured.map(|records| distribution::distributions(records, &result.metrics, bounds));
    }
    if let (Some(path), Some(samples)) = (&args.timeseries, &samples) {
        r.timeseries = Some(report::TimeseriesReport {
            file: path.display().to_string(),
            every_seconds: args.every,
            samples: samples.len() as u64,
        });
    }
    if let (Some(by), Some(records)) = (args.by, measured) {
        r.groups = Some(groups::groups(&prepared, records, by));
    }
    if let Some((_, left)) = steady {
        r.left_out = Some(report::LeftOutReport {
            warmup: args.warmup.map(Edge::text),
            warmup_jobs: left.warmup,
            cooldown: args.cooldown.map(Edge::text),
            cooldown_jobs: left.cooldown,
        });
    }
    if matches!(policy, Policy::Selective(_)) {
        r.thresholds = Some(used);
        r.conservative_thresholds = derived;
    }
    if let (true, Some(followed), Some(records)) = (args.wait_by_reason, &followed, measured) {
        r.wait_by_reason = Some(reasons::wait_split(&followed.log, records, bounds));
    }
    if let (Some(number), Some(followed)) = (args.explain, &followed) {
        let story = explain(&prepared, &result, followed, number, bounds)?;
        let text = match args.format {
            Format::Json => json(&story)?,
            _ => reasons::story_text(&story),
        };
        files.commit()?;
        return Ok(text);
    }
    if let (Some(at), Some(followed)) = (args.queue_at, &followed) {
        let queue = queue_at(&prepared, followed, at);
        let text = match args.format {
            Format::Json => json(&queue)?,
            _ => reasons::queue_text(&queue),
        };
        files.commit()?;
        return Ok(text);
    }
    let text = in_format(args.format, &r, report::replay_table, report::replay_csv)?;
    files.commit()?;
    Ok(text)
}

/// Whether the replay follows pending reasons: for `--explain`,
/// `--queue-at`, `--reasons-out` and `--wait-by-reason`.
const fn follows_reasons(args: &ReplayArgs) -> bool {
    args.explain.is_some()
        || args.queue_at.is_some()
        || args.reasons_out.is_some()
        || args.wait_by_reason
}

/// `--explain NUMBER`: the story of the job numbered `number` in the trace.
///
/// # Errors
/// [`CliError::Usage`] when the window has no such job.
fn explain(
    prepared: &Prepared,
    result: &RunResult,
    followed: &Followed,
    number: u64,
    bounds: CategoryBounds,
) -> Result<reasons::Story, CliError> {
    let id = job_numbered(prepared, number)?;
    let record = result
        .records()
        .and_then(|records| records.iter().find(|r| r.job.id == id));
    let refused = result
        .rejected
        .iter()
        .find(|(job, _)| *job == id)
        .map(|(_, e)| format!("the kernel refused it: {e}"));
    reasons::story(prepared, &followed.log, id, record, refused, bounds)
        .map_or_else(|| Err(no_such_job(prepared, number)), Ok)
}

/// The kernel id of the job numbered `number` (`--explain`).
///
/// # Errors
/// [`CliError::Usage`] when the window has no such job.
fn job_numbered(prepared: &Prepared, number: u64) -> Result<backfill_core::JobId, CliError> {
    reasons::id_of(prepared, number).ok_or_else(|| no_such_job(prepared, number))
}

/// `--explain NUMBER` for a job the window does not have.
fn no_such_job(prepared: &Prepared, number: u64) -> CliError {
    CliError::Usage(format!(
        "--explain {number}: {} has no job numbered {number} in the window replayed (a job \
         outside --skip/--first, or one `host-cli info` counts as skipped, is not replayed)",
        prepared.name
    ))
}

/// `--queue-at T`: the queue the replay kept for instant `at`.
fn queue_at(prepared: &Prepared, followed: &Followed, at: u32) -> reasons::QueueAt {
    let snapshot = followed.queue.as_ref();
    reasons::QueueAt {
        time: at,
        last_event: snapshot.map(|s| s.now),
        running: snapshot.map_or(0, |s| s.running),
        busy_procs: snapshot.map_or(0, |s| s.busy_procs),
        machine_procs: prepared.machine_procs,
        jobs: snapshot
            .map(|s| s.waiting.as_slice())
            .unwrap_or_default()
            .iter()
            .map(|w| {
                let named = |id| reasons::number(prepared, id);
                reasons::QueueRow {
                    position: w.position.saturating_add(1),
                    job: named(w.job.id),
                    procs: w.job.procs,
                    estimate: w.job.estimate,
                    waited: at.saturating_sub(w.job.submit),
                    expected_start: w.expected.time(),
                    expected: expected_words(&w.expected).to_owned(),
                    reason: w.reason.code(),
                    detail: w.reason.detail(&named),
                }
            })
            .collect(),
    }
}

/// Refuses a `--checkpoint` path that names the trace or the `--jobs-out`
/// file, or lies in no directory, before the replay starts.
///
/// # Errors
/// [`CliError::Usage`] naming the option, the path and the problem.
fn check_checkpoint_path(path: &Path, args: &ReplayArgs) -> Result<(), CliError> {
    let bad =
        |problem: &str| CliError::Usage(format!("--checkpoint {}: {problem}", path.display()));
    let Some(id) = identity(path) else {
        return Err(bad("its directory does not exist"));
    };
    if path.is_dir() {
        return Err(bad("is a directory, not a file name"));
    }
    if args.trace.as_deref().and_then(identity).as_ref() == Some(&id) {
        return Err(bad("is the input trace; refusing to overwrite it"));
    }
    for (option, out) in [
        ("--jobs-out", args.jobs_out.as_deref()),
        ("--timeseries", args.timeseries.as_deref()),
    ] {
        if out.and_then(identity).as_ref() == Some(&id) {
            return Err(bad(&format!(
                "{option} writes to it; give each output its own file"
            )));
        }
    }
    Ok(())
}

/// Whether the replay keeps its per-job records: for `--jobs-out` and
/// the options that read the per-job records (a replay without them
/// keeps none).
const fn keep_records(args: &ReplayArgs) -> bool {
    args.jobs_out.is_some()
        || args.explain.is_some()
        || args.wait_by_reason
        || args.distributions
        || args.warmup.is_some()
        || args.cooldown.is_some()
        || args.by.is_some()
        || args.timeseries.is_some()
}

/// Starts replaying the trace of `args` while it is read (see [`stream`]),
/// when it is a file and the policy is known before reading (not Selective
/// with thresholds from a Conservative pre-run); returns the replay, the
/// tap to read the trace through, and its progress bar.
fn start_early(
    args: &ReplayArgs,
    options: &ThresholdOptions,
    search: &SearchOptions,
    shaping: Shaping,
    bounds: CategoryBounds,
) -> Option<(stream::Streamed, swf::Tap, indicatif::ProgressBar)> {
    let path = args.trace.as_ref()?;
    // A checkpointed replay, or one that follows pending reasons, runs
    // once the trace is read.
    if follows_reasons(args)
        || options.needs_conservative(&[args.policy])
        || args.checkpoint.is_some()
        || args.resume.is_some()
    {
        return None;
    }
    let (policy, _) = options.resolve(args.policy, bounds, None).ok()?;
    let policy = search.apply(args.heuristics.apply(policy));
    let large = std::fs::metadata(path).is_ok_and(|m| m.len() >= LARGE_TRACE_BYTES);
    let bar = progress::growing_phase(&format!("replay {policy}"), large);
    let plan = stream::Plan {
        name: path.display().to_string(),
        window: args.window.window(),
        shaping,
        policy,
        bounds,
        keep_records: keep_records(args),
        latency: args.latency,
        progress: Some(bar.clone()),
    };
    let (streamed, tap) = stream::start(plan).ok()?;
    Some((streamed, tap, bar))
}

/// `host-cli replay --farm FARM.toml JOBS.csv`: returns the text to print.
///
/// # Errors
/// Any [`CliError`].
fn run_farm_replay(args: &ReplayArgs, farm: &Path) -> Result<String, CliError> {
    if args.compression.is_some() || args.flavour.is_some() {
        return Err(CliError::Usage(
            "--compression and --flavour apply to SWF replays on one machine, not --farm"
                .to_owned(),
        ));
    }
    if matches!(args.policy.plain(), Some(Policy::ConsRsAlea(_))) {
        return Err(CliError::Usage(format!(
            "{} runs on one machine without license pools, not --farm",
            args.policy
        )));
    }
    let options = args.thresholds.options();
    options.check(&[args.policy])?;
    if options.needs_conservative(&[args.policy]) {
        let given = if args.policy.is_selective_d() {
            "--thresholds SN,SW,LN,LW"
        } else {
            "--threshold X"
        };
        return Err(CliError::Usage(format!(
            "--policy {}: a farm replay does not derive Selective's thresholds from a \
             Conservative pre-run; give them with {given} (e.g. the mean bounded slowdowns that \
             `host-cli replay --farm {} JOBS.csv --policy conservative` reports), or use \
             selective-adaptive",
            args.policy.name(),
            farm.display()
        )));
    }
    let bounds = args.window.bounds();
    let (policy, _) = options.resolve(args.policy, bounds, None)?;
    let (r, files) = replay_farm(&ReplayRequest {
        farm,
        jobs: args.trace.as_deref(),
        policy: args.heuristics.apply(policy),
        bounds,
        jobs_out: args.jobs_out.as_deref(),
    })?;
    let text = in_format(args.format, &r, farm_report::table, farm_report::csv_row)?;
    files.commit()?;
    Ok(text)
}

/// Reads and prepares a farm replay's input.
///
/// # Errors
/// [`CliError::Usage`] naming the file, line and field of a bad input.
pub(crate) fn load(farm: &Path, jobs: &Path) -> Result<farm_replay::PreparedFarm, CliError> {
    let workload =
        farm_format::read_workload(farm, jobs).map_err(|e| CliError::Usage(e.to_string()))?;
    let name = format!("{} + {}", farm.display(), jobs.display());
    farm_replay::prepare(&name, workload)
}

/// What `host-cli replay --farm` does with its options.
#[derive(Clone, Debug)]
pub(crate) struct ReplayRequest<'a> {
    /// The farm description.
    pub(crate) farm: &'a Path,
    /// The job list.
    pub(crate) jobs: Option<&'a Path>,
    /// The policy (heuristics already applied).
    pub(crate) policy: Policy,
    /// Category bounds of the standard metrics.
    pub(crate) bounds: CategoryBounds,
    /// Per-job CSV output.
    pub(crate) jobs_out: Option<&'a Path>,
}

/// `host-cli replay --farm FARM.toml JOBS.csv`: replays, writes the
/// `--jobs-out` file (not yet in place) and returns the report with the
/// output files, which the caller commits once the report is rendered.
///
/// # Errors
/// Bad input, a replay error or an output file that cannot be written.
pub(crate) fn replay_farm(
    request: &ReplayRequest<'_>,
) -> Result<(farm_report::FarmReport, OutputFiles), CliError> {
    let started = Instant::now();
    let jobs = request.jobs.ok_or_else(|| {
        CliError::Usage(
            "--farm FARM.toml needs the job list: host-cli replay --farm FARM.toml JOBS.csv".into(),
        )
    })?;
    let mut files = OutputFiles::new(&[request.farm, jobs]);
    files.add("--jobs-out", request.jobs_out)?;
    let prepared = load(request.farm, jobs)?;
    if prepared.jobs.is_empty() {
        return Err(CliError::NothingToSchedule {
            trace: prepared.name.clone(),
            why: if prepared.skipped.is_empty() {
                "the job list is empty".into()
            } else {
                format!(
                    "no machine can run any of its {} jobs",
                    prepared.skipped.len()
                )
            },
        });
    }
    let bar = progress::phase(
        &format!("replay {}", request.policy),
        prepared.jobs.len() as u64,
    );
    let run = farm_replay::run(&prepared, request.policy, request.bounds);
    bar.inc(prepared.jobs.len() as u64);
    progress::finish(&bar);
    let run = run?;
    if files.wants("--jobs-out") {
        files.write(
            "--jobs-out",
            farm_report::jobs_csv(&prepared, &run)?.as_bytes(),
        )?;
    }
    let r = farm_report::report(&prepared, &run, started.elapsed().as_secs_f64());
    Ok((r, files))
}

/// `host-cli info`: returns the text to print.
///
/// # Errors
/// Any [`CliError`].
pub(crate) fn run_info(args: &InfoArgs) -> Result<String, CliError> {
    let started = Instant::now();
    let shaping = Shaping::AS_RECORDED;
    let (prepared, header) = load_prepared(
        Some(&args.trace),
        &args.window,
        shaping,
        &SyntheticSpec::default(),
    )?;
    prepared.check_job_lines()?;
    let r = report::info_report(
        &prepared,
        &header.unwrap_or_default(),
        args.window.bounds(),
        started.elapsed().as_secs_f64(),
    );
    in_format(args.format, &r, report::info_table, |r| {
        csv_text(&report::info_csv_rows(r))
    })
}

/// Loads `path` and prepares it, or the synthetic workload when `None`.
///
/// # Errors
/// Reading, parsing or option errors.
pub(crate) fn load_prepared(
    trace: Option<&PathBuf>,
    window: &WindowArgs,
    shaping: Shaping,
    spec: &SyntheticSpec,
) -> Result<(Prepared, Option<swf::SwfHeader>), CliError> {
    load_prepared_tapped(trace, window, shaping, spec, None)
}

/// [`load_prepared`], passing each data line of a trace file to `tap` as
/// it is read (a replay that runs meanwhile: see [`stream`]).
///
/// # Errors
/// As [`load_prepared`].
pub(crate) fn load_prepared_tapped(
    trace: Option<&PathBuf>,
    window: &WindowArgs,
    shaping: Shaping,
    spec: &SyntheticSpec,
    tap: Option<swf::Tap>,
) -> Result<(Prepared, Option<swf::SwfHeader>), CliError> {
    match trace {
        Some(path) => {
            let loaded = swf::load_tapped(path, tap).map_err(|e| farm_list_hint(path, e))?;
            let prepared = replay::prepare(&loaded, &window.window(), shaping)?;
            Ok((prepared, Some(loaded.header)))
        }
        None => {
            let source = Source::Synthetic(*spec);
            Ok((source.prepare(&window.window(), shaping)?, None))
        }
    }
}

/// `error` with a hint when the file that failed to read as SWF is a farm
/// job list (CSV), which needs `--farm`.
fn farm_list_hint(path: &Path, error: swf::SwfError) -> CliError {
    if farm_format::looks_like_job_list(path) {
        CliError::Usage(format!(
            "{error}; {} looks like a farm job list (CSV), not an SWF trace: replay it with \
             host-cli replay --farm FARM.toml {}",
            path.display(),
            path.display()
        ))
    } else {
        CliError::Swf(error)
    }
}
