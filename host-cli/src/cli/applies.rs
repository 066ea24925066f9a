//! Which options apply where: every option given on the command line
//! either takes effect or is refused here, once, after parsing, with exit
//! status 2 and a sentence naming the option and why.
//!
//! A command runs in one of a few modes (`replay`: a trace, the built-in
//! workload or a farm; the analyses: a trace or the built-in workload), and
//! some options apply only to some policies. [`refusal`] is the one table
//! of the combinations that do not apply; the options whose checks need the
//! parsed values of several options (the Selective thresholds, the search
//! options of DPSA and CONS+RS) keep theirs next to the policy code.
//! Options are told apart by clap's [`ValueSource`]: a default never
//! counts as given.

use super::args::{Format, JobsFormat};
use crate::error::CliError;
use crate::replay::policy::PolicyChoice;
use backfill_core::Policy;
use clap::parser::ValueSource;
use clap::ArgMatches;

/// The options of the flexible-backfilling heuristics (bf-unmod, bf-mod).
const HEURISTICS: [&str; 9] = [
    "aging_weight",
    "age_factor",
    "deadline_weight",
    "deadline_min",
    "deadline_max",
    "deadline_k",
    "license_weight",
    "wait_weight",
    "boost",
];

/// What a command reads its jobs from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Mode {
    /// An SWF trace.
    Trace,
    /// The built-in synthetic workload.
    BuiltIn,
    /// A farm description and its job list.
    Farm,
    /// Neither (`generate`, `farm-study`).
    Other,
}

/// Refuses the first option given on the command line that does not apply
/// to the command, mode and policy of `matches`.
///
/// # Errors
/// [`CliError::Usage`] naming the option and why it does not apply.
pub(crate) fn check(matches: &ArgMatches) -> Result<(), CliError> {
    let Some((mut command, mut sub)) = matches.subcommand() else {
        return Ok(());
    };
    while let Some((name, inner)) = sub.subcommand() {
        command = name;
        sub = inner;
    }
    let given = |id: &str| {
        sub.try_get_raw(id).ok().flatten().is_some()
            && sub.value_source(id) == Some(ValueSource::CommandLine)
    };
    let mode = if given("farm") {
        Mode::Farm
    } else if given("trace") {
        Mode::Trace
    } else if matches!(
        command,
        "replay" | "thresholds" | "compare" | "sweep" | "fairness"
    ) {
        Mode::BuiltIn
    } else {
        Mode::Other
    };
    for id in sub.ids() {
        let id = id.as_str();
        if !given(id) {
            continue;
        }
        if let Some(why) = refusal(command, mode, sub, id) {
            return Err(CliError::Usage(format!("--{} {why}", id.replace('_', "-"))));
        }
    }
    Ok(())
}

/// Why option `id` does not apply to `command` in `mode` with the other
/// options of `sub`; `None` when it does.
fn refusal(command: &str, mode: Mode, sub: &ArgMatches, id: &str) -> Option<String> {
    let policy = || {
        sub.try_get_one::<PolicyChoice>("policy")
            .ok()
            .flatten()
            .copied()
    };
    let flexible = |p: Option<PolicyChoice>| {
        matches!(
            p.and_then(PolicyChoice::plain),
            Some(Policy::BfUnmod(_) | Policy::BfMod(_))
        )
    };
    let cons_rs = matches!(
        policy().and_then(PolicyChoice::plain),
        Some(Policy::ConsRs(_) | Policy::ConsRsAlea(_))
    );
    let replaced = || {
        ["explain", "queue_at"]
            .into_iter()
            .find(|o| sub.value_source(o) == Some(ValueSource::CommandLine))
            .map(|o| format!("--{}", o.replace('_', "-")))
    };
    match (command, mode, id) {
        ("replay", Mode::Trace | Mode::BuiltIn, _) if REASONS.contains(&id) => {
            reasons_refusal(sub, id)
        }
        ("replay", Mode::Trace | Mode::BuiltIn, "format")
            if sub.get_one::<Format>("format") == Some(&Format::Csv) =>
        {
            replaced().map(|o| {
                format!("csv: {o} prints a table or JSON (--format table or --format json)")
            })
        }
        ("replay", Mode::Trace | Mode::BuiltIn, r) if REPORT_ONLY.contains(&r) => {
            replaced().map(|o| format!("adds to the report, and {o} prints instead of the report"))
        }
        ("replay", Mode::Trace | Mode::BuiltIn, "by")
            if sub.value_source("jobs_out") != Some(ValueSource::CommandLine) =>
        {
            replaced().map(|o| {
                format!(
                    "adds to the report (and to --jobs-out, not given), and {o} prints \
                     instead of the report"
                )
            })
        }
        (_, Mode::Trace, "synthetic_jobs") => Some(
            "sizes the built-in workload, and a TRACE was given (use --first to take fewer of \
             its jobs)"
                .to_owned(),
        ),
        ("replay", Mode::Trace, "seed") if !cons_rs => Some(format!(
            "seeds the built-in workload and cons-rs's random search; with a TRACE it applies \
             to cons-rs (either flavour) only, and the policy is {}",
            policy().map_or("?", PolicyChoice::name)
        )),
        (_, Mode::Trace, "seed") if command != "replay" => {
            Some("seeds the built-in workload, and a TRACE was given".to_owned())
        }
        ("replay", Mode::Farm, _) => farm_refusal(id),
        ("replay", Mode::BuiltIn, "jobs_format")
            if sub.get_one::<JobsFormat>("jobs_format") == Some(&JobsFormat::Swf) =>
        {
            Some(
                "swf rewrites the lines of an input trace, and the built-in workload has none \
                 (write it with `host-cli generate lublin -o FILE.swf` and replay that)"
                    .to_owned(),
            )
        }
        ("replay", _, h) if HEURISTICS.contains(&h) && !flexible(policy()) => Some(format!(
            "weighs the flexible-backfilling heuristics of bf-unmod and bf-mod, and the policy \
             is {}",
            policy().map_or("?", PolicyChoice::name)
        )),
        ("farm-study", _, h) if HEURISTICS.contains(&h) => {
            let listed = sub
                .try_get_many::<String>("policies")
                .ok()
                .flatten()
                .is_some_and(|mut p| p.any(|p| matches!(p.as_str(), "bf-unmod" | "bf-mod")));
            (!listed).then(|| {
                "weighs the heuristics of bf-unmod and bf-mod, and --policies lists neither"
                    .to_owned()
            })
        }
        ("farm", _, "force") if given_both(sub, "farm_out", "jobs_out") => Some(
            "lets the default names farm.toml and jobs.csv be replaced, and --farm-out and \
             --jobs-out name both files"
                .to_owned(),
        ),
        ("farm-study", _, "mean_interarrival") => Some(
            "is the generator's single mean; the study's grid runs the means of --means".to_owned(),
        ),
        ("farm-study", _, "license_ratios" | "license_mean")
            if sub.get_flag("no_license_sweep") =>
        {
            Some("describes the license sweep, and --no-license-sweep skips it".to_owned())
        }
        _ => None,
    }
}

/// The options about why jobs wait.
const REASONS: [&str; 4] = ["explain", "queue_at", "reasons_out", "wait_by_reason"];

/// The options that only add to a replay's report, which `--explain` and
/// `--queue-at` print instead of.
const REPORT_ONLY: [&str; 4] = ["distributions", "warmup", "cooldown", "latency"];

/// Why option `id` (one of [`REASONS`]) does not apply to a replay of a
/// trace or the built-in workload with the other options of `sub`; `None`
/// when it does.
fn reasons_refusal(sub: &ArgMatches, id: &str) -> Option<String> {
    let given = |o: &str| sub.value_source(o) == Some(ValueSource::CommandLine);
    if given("checkpoint") || given("resume") {
        return Some(
            "follows every pass of the whole replay, and a checkpointed replay (--checkpoint, \
             --resume) does not keep the reasons it has seen"
                .to_owned(),
        );
    }
    match id {
        "queue_at" if given("explain") => Some(
            "prints the queue instead of the report, and --explain prints a job's story \
             instead: give one of them"
                .to_owned(),
        ),
        "wait_by_reason" if given("explain") || given("queue_at") => Some(
            "adds to the report, and --explain or --queue-at prints instead of the report"
                .to_owned(),
        ),
        _ => None,
    }
}

/// Whether options `a` and `b` were both given on the command line.
fn given_both(sub: &ArgMatches, a: &str, b: &str) -> bool {
    [a, b]
        .iter()
        .all(|id| sub.value_source(id) == Some(ValueSource::CommandLine))
}

/// Why option `id` does not apply to a farm replay; `None` when it does.
fn farm_refusal(id: &str) -> Option<String> {
    let why = match id {
        "load" | "first" | "skip" => {
            "does not apply to a farm job list, which is replayed whole with its own submit \
             times and deadlines (write another list with `host-cli generate farm --jobs N \
             --mean-interarrival T`)"
        }
        "procs" => "does not apply to a farm: FARM.toml gives each machine's CPUs",
        "estimates" => "does not apply to a farm: its jobs' estimates are part of the job list",
        "jobs_format" => "does not apply to a farm: its --jobs-out has the farm's own columns",
        "latency" => "is not measured for farm replays",
        "checkpoint" | "checkpoint_every" | "resume" => {
            "applies to trace replays: a farm replay is not checkpointed"
        }
        "distributions" | "warmup" | "cooldown" | "by" | "timeseries" | "every" => {
            "is not computed for farm replays (their report is the farm paper's)"
        }
        "synthetic_jobs" | "seed" => {
            "sizes or seeds the built-in workload, and a farm job list was given (seed the \
             farm with `host-cli generate farm --seed S`)"
        }
        "explain" | "queue_at" | "reasons_out" | "wait_by_reason" => {
            "is not reported for farm replays: the farm replay has its own driver, which \
             does not follow pending reasons"
        }
        "dpsa_nodes" | "rs_iterations" | "no_compression" => {
            "tunes a policy of the batch traces, which a farm does not run"
        }
        _ => return None,
    };
    Some(why.to_owned())
}
