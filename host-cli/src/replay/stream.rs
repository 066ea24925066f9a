//! Replaying a trace while it is read.
//!
//! `host-cli replay` reads a trace on its main thread and, meanwhile,
//! replays it on another ([`start`]). The reader passes on a copy of each
//! data line as it reads it ([`Tap`]); the replay thread selects and
//! converts the lines as [`replay::prepare()`] does (the machine size from the
//! header as it stands at the first data line, then the window, the SWF
//! rules, the estimates and the load, through the same
//! [`Selector`] and [`replay::kernel_job`]) and feeds the kernel as
//! they come, so the replay ends soon after the last line is read instead
//! of starting then.
//!
//! The early replay is a speculation, checked before it is used
//! ([`Streamed::finish`]): it counts only if what the kernel saw is exactly
//! what `prepare` gives once the whole trace is read, the same machine size
//! and the same kernel jobs in the same order. A trace out of submit order
//! (LLNL-Thunder: `prepare` sorts it), a header entry after the first data
//! line that changes the machine size, a header with no machine size, a
//! value that does not fit, or a kernel that fills up (the larger kernels
//! are tried from the start) all make it count for nothing, and the replay
//! runs again from the prepared jobs as it would without streaming. The
//! schedule is therefore the same either way; only the time differs.

use super::kernels::{stack_for, TraceCluster, QUEUE_CAPACITY, RUNNING_CAPACITY, STEP_CAPACITY};
use super::run::{fills_kernel, replay_jobs, run_again, RunOptions, RunResult, Setup};
use crate::error::CliError;
use crate::replay::{self, Prepared, Shaping, Window};
use crate::swf::{LoadedTrace, Selector, SwfRecord, Tap, Tapped};
use backfill_core::{CategoryBounds, Cluster, Policy, SimJob};
use std::sync::mpsc::{channel, Receiver};
use std::thread::JoinHandle;

/// What the early replay saw and gave.
struct Early {
    /// The machine size it assumed (`None`: it did not run).
    procs: Option<u32>,
    /// The kernel jobs it was fed, in order.
    jobs: Vec<SimJob>,
    /// Whether it saw every job of the window: no line was out of order or
    /// failed to convert.
    whole: bool,
    /// Its result, or whether it stopped because the kernel filled up.
    result: Result<RunResult, bool>,
}

/// A replay running while its trace is read ([`start`]).
#[derive(Debug)]
pub(crate) struct Streamed {
    handle: JoinHandle<Early>,
}

/// What an early replay replays: everything [`run_timed`](super::run::run_timed) takes but
/// the prepared jobs.
#[derive(Clone, Debug)]
pub(crate) struct Plan {
    /// The trace's name, for conversion errors (which only end the early
    /// replay: `prepare` reports them).
    pub(crate) name: String,
    /// The window.
    pub(crate) window: Window,
    /// Estimates and load.
    pub(crate) shaping: Shaping,
    /// The policy, resolved as the replay will run it.
    pub(crate) policy: Policy,
    /// Job categories for the metrics.
    pub(crate) bounds: CategoryBounds,
    /// Keep every job's record (`--jobs-out`).
    pub(crate) keep_records: bool,
    /// Time every kernel call (`--latency`).
    pub(crate) latency: bool,
    /// The progress bar: a count without a total while the trace is read.
    pub(crate) progress: Option<indicatif::ProgressBar>,
}

/// Starts replaying, on a thread of its own, the data lines the returned
/// [`Tap`] will be given (pass it to [`load_tapped`](crate::swf::load_tapped)).
///
/// # Errors
/// The error of spawning the thread.
pub(crate) fn start(plan: Plan) -> std::io::Result<(Streamed, Tap)> {
    let (to, from) = channel();
    let stack = stack_for::<QUEUE_CAPACITY, RUNNING_CAPACITY, STEP_CAPACITY>();
    let handle = std::thread::Builder::new()
        .name(format!("replay-{}", plan.policy))
        .stack_size(stack)
        .spawn(move || replay_as_read(&plan, &from))?;
    Ok((Streamed { handle }, Tap::new(to)))
}

/// Whether an early replay counts ([`Streamed::finish`]).
#[derive(Debug)]
pub(crate) enum Verdict {
    /// It replayed exactly the prepared jobs: its result.
    Counts(Box<RunResult>),
    /// It must run again; `filled` when it stopped on the first kernel
    /// filling up with exactly the prepared jobs (the next size is then
    /// the one to start on).
    Again {
        /// The first kernel filled up.
        filled: bool,
    },
}

impl Verdict {
    /// The replay's result: the early replay's when it counts, else a
    /// replay of `prepared` run now (from the second kernel size when the
    /// first filled up), keeping what `options` asks and counting on
    /// `progress` from the start.
    ///
    /// # Errors
    /// As [`run_timed`](super::run::run_timed).
    pub(crate) fn into_result(
        self,
        prepared: &Prepared,
        policy: Policy,
        bounds: CategoryBounds,
        keep_records: bool,
        latency: bool,
        progress: Option<&indicatif::ProgressBar>,
    ) -> Result<RunResult, CliError> {
        match self {
            Self::Counts(result) => Ok(*result),
            Self::Again { filled } => {
                if let Some(bar) = progress {
                    bar.set_length(prepared.jobs.len() as u64);
                    bar.set_position(0);
                }
                let options = RunOptions {
                    first_kernel_filled: filled,
                    ..RunOptions::new(keep_records, latency)
                };
                run_again(prepared, policy, bounds, options, progress)
            }
        }
    }
}

impl Streamed {
    /// Whether the early replay replayed exactly `prepared`'s jobs on its
    /// machine (see the module docs). Call it after reading ended (the tap
    /// is gone), or it waits for that.
    #[must_use]
    pub(crate) fn finish(self, prepared: &Prepared) -> Verdict {
        let Ok(early) = self.handle.join() else {
            return Verdict::Again { filled: false };
        };
        let same =
            early.procs == Some(prepared.machine_procs) && prepared.jobs.starts_with(&early.jobs);
        match early.result {
            Ok(result) if same && early.whole && early.jobs.len() == prepared.jobs.len() => {
                Verdict::Counts(Box::new(RunResult {
                    while_reading: true,
                    ..result
                }))
            }
            Err(filled) => Verdict::Again {
                filled: filled && same && early.whole,
            },
            Ok(_) => Verdict::Again { filled: false },
        }
    }
}

/// Reads the trace at `path` and replays it under `policy` while it is
/// read, as `host-cli replay` does (without per-job records, call timings or
/// a progress bar; the kernel built meanwhile by [`replay::prebuild`]),
/// replaying again from the prepared jobs when the early replay does not
/// count. Returns the prepared trace and the result.
///
/// # Errors
/// [`CliError`] when the trace cannot be read or prepared, or the replay
/// fails.
pub fn read_and_replay(
    path: &std::path::Path,
    window: Window,
    shaping: Shaping,
    policy: Policy,
    bounds: CategoryBounds,
) -> Result<(Prepared, RunResult), CliError> {
    replay::prebuild();
    let plan = Plan {
        name: path.display().to_string(),
        window,
        shaping,
        policy,
        bounds,
        keep_records: false,
        latency: false,
        progress: None,
    };
    let (streamed, tap) = start(plan).map_err(|e| CliError::Io("replay thread".into(), e))?;
    let loaded = crate::swf::load_tapped(path, Some(tap))?;
    let prepared = replay::prepare(&loaded, &window, shaping)?;
    let result = streamed
        .finish(&prepared)
        .into_result(&prepared, policy, bounds, false, false, None)?;
    Ok((prepared, result))
}

/// The early replay's thread: waits for the header, then replays the jobs
/// as their lines arrive.
fn replay_as_read(plan: &Plan, from: &Receiver<Tapped>) -> Early {
    let mut early = Early {
        procs: None,
        jobs: Vec::new(),
        whole: false,
        result: Err(false),
    };
    // Without a data line there is nothing to replay early.
    let Ok(Tapped::Header(header)) = from.recv() else {
        return early;
    };
    let trace = LoadedTrace {
        name: plan.name.clone(),
        header: *header,
        records: Vec::new(),
        comment_lines: 0,
        blank_lines: 0,
    };
    // No size in the header (the replay then sizes the machine from the
    // whole log) or a bad one: not replayed early.
    let Ok(Some((procs, _))) = replay::machine_size(&trace, &plan.window) else {
        return early;
    };
    let load = plan.shaping.load;
    let Ok(cluster): Result<TraceCluster, _> = Cluster::single(procs.max(1)) else {
        return early;
    };
    if !(load.is_finite() && load > 0.0) {
        return early;
    }
    early.procs = Some(procs);
    let mut feed = Feed {
        from,
        name: &plan.name,
        selector: Selector::new(plan.window.skip, plan.window.first, procs),
        shaping: plan.shaping,
        lines: Vec::new().into_iter(),
        last_key: None,
        broken: false,
        jobs: &mut early.jobs,
    };
    let setup = Setup {
        jobs: 0,
        cluster: &cluster,
        policy: plan.policy,
        bounds: plan.bounds,
        options: RunOptions {
            keep_records: plan.keep_records,
            latency: plan.latency,
            first_kernel_filled: false,
            reasons: None,
        },
        progress: plan.progress.as_ref(),
    };
    let (_, done) = replay_jobs::<QUEUE_CAPACITY, RUNNING_CAPACITY, STEP_CAPACITY, _, _>(
        &setup,
        0,
        &mut feed,
        &mut (),
    );
    let broken = feed.broken;
    early.whole = !broken;
    early.result = done.map_err(|(error, _)| fills_kernel(&error));
    early
}

/// The kernel jobs of the lines as they arrive: what `prepare` would give,
/// as long as the lines are in submit order.
struct Feed<'a> {
    from: &'a Receiver<Tapped>,
    name: &'a str,
    selector: Selector,
    shaping: Shaping,
    lines: std::vec::IntoIter<(u64, SwfRecord)>,
    /// The sort key (submit, job number) of the last job: `prepare` sorts
    /// by it, so a smaller one means the order is not the file's.
    last_key: Option<(u32, u64)>,
    /// A line out of order or that did not convert: the jobs stop there.
    broken: bool,
    jobs: &'a mut Vec<SimJob>,
}

impl Feed<'_> {
    /// The job of one data line, if it is one; `Err` ends the feed.
    fn job(&mut self, line: u64, record: &SwfRecord) -> Result<Option<SimJob>, ()> {
        let Some(t) = self
            .selector
            .push(self.name, line, record)
            .map_err(|_| ())?
        else {
            return Ok(None);
        };
        let key = (t.submit, t.number);
        if self.last_key.is_some_and(|last| key < last) {
            return Err(());
        }
        self.last_key = Some(key);
        let (job, _) = replay::kernel_job(self.jobs.len(), &t, self.shaping).ok_or(())?;
        Ok(Some(job))
    }
}

impl Iterator for Feed<'_> {
    type Item = SimJob;

    fn next(&mut self) -> Option<SimJob> {
        loop {
            if self.broken || self.selector.window_ended() {
                return None;
            }
            if let Some((line, record)) = self.lines.next() {
                match self.job(line, &record) {
                    Ok(Some(job)) => {
                        self.jobs.push(job);
                        return Some(job);
                    }
                    Ok(None) => continue,
                    Err(()) => {
                        self.broken = true;
                        return None;
                    }
                }
            }
            match self.from.recv() {
                Ok(Tapped::Records(lines)) => self.lines = lines.into_iter(),
                Ok(Tapped::Header(_)) => continue,
                Err(_) => return None,
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::replay::prepare;
    use crate::replay::run::run_timed;
    use crate::swf::load_tapped;
    use std::fmt::Write as _;

    /// A data line: job `n` submitted at `submit`, running `run` s on
    /// `procs` processors, having asked for `asked` s.
    fn line(n: u64, submit: u64, run: u64, procs: u32, asked: u64) -> String {
        format!("{n} {submit} -1 {run} {procs} -1 -1 {procs} {asked} -1 1 1 1 -1 -1 -1 -1 -1\n")
    }

    /// `jobs` jobs in submit order on a machine of 64 (a few per second,
    /// widths 1 to 32, runs shorter than asked), after `header`.
    fn trace(header: &str, jobs: u64) -> String {
        let mut text = String::from(header);
        let mut x: u64 = 0x9E37_79B9;
        for n in 1..=jobs {
            x = x
                .wrapping_mul(6_364_136_223_846_793_005)
                .wrapping_add(1_442_695_040_888_963_407);
            let procs = 1 << ((x >> 33) % 6);
            let asked = 60 + (x >> 40) % 3000;
            let run = 1 + (x >> 20) % asked;
            let _ = write!(text, "{}", line(n, n * 7 / 3, run, procs, asked));
        }
        text
    }

    /// `text` with its lines `a` and `b` (0-based) swapped.
    fn swapped(text: &str, a: usize, b: usize) -> String {
        let mut lines: Vec<&str> = text.lines().collect();
        lines.swap(a, b);
        lines.join("\n") + "\n"
    }

    /// Replays `text` while reading it, as `replay` does, and prepares it:
    /// what the early replay is judged on.
    fn stream(text: &str, window: Window, policy: Policy) -> (Verdict, Prepared, Option<u64>) {
        let dir = tempfile::tempdir().expect("temp dir");
        let path = dir.path().join("t.swf");
        std::fs::write(&path, text).expect("write");
        let shaping = Shaping::AS_RECORDED;
        let bar = crate::output::progress::growing_phase("test", false);
        let plan = Plan {
            name: path.display().to_string(),
            window,
            shaping,
            policy,
            bounds: CategoryBounds::default(),
            keep_records: true,
            latency: false,
            progress: Some(bar.clone()),
        };
        let (streamed, tap) = start(plan).expect("thread");
        let loaded = load_tapped(&path, Some(tap)).expect("trace");
        let prepared = prepare(&loaded, &window, shaping).expect("prepared");
        let verdict = streamed.finish(&prepared);
        (verdict, prepared, bar.length())
    }

    /// The early replay of a trace in submit order counts, and gives what
    /// the replay of the prepared jobs gives, record by record.
    #[test]
    fn a_trace_in_order_counts_and_gives_the_replay_of_its_prepared_jobs() {
        let text = trace("; MaxProcs: 64\n", 400);
        let windows = [
            Window::WHOLE,
            Window {
                skip: 25,
                first: Some(150),
                procs: None,
            },
            Window {
                skip: 0,
                first: None,
                procs: Some(16),
            },
        ];
        for policy in [Policy::Fcfs, Policy::Easy, Policy::Conservative] {
            for window in windows {
                let (verdict, prepared, length) = stream(&text, window, policy);
                let Verdict::Counts(early) = verdict else {
                    panic!("{policy} {window:?}: {verdict:?}");
                };
                assert!(early.while_reading);
                let again = run_timed(
                    &prepared,
                    policy,
                    CategoryBounds::default(),
                    true,
                    None,
                    false,
                )
                .expect("replay");
                assert!(!again.while_reading);
                assert_eq!(early.records, again.records, "{policy} {window:?}");
                assert_eq!(early.metrics, again.metrics);
                assert_eq!(early.outcome, again.outcome);
                assert_eq!(early.rejected, again.rejected);
                assert_eq!(length, None, "the streamed bar shows no total of its own");
                assert!(!prepared.jobs.is_empty());
            }
        }
    }

    /// Lines out of submit order, a machine size that only a later header
    /// line gives, or none at all: the early replay does not count.
    #[test]
    fn what_the_early_replay_cannot_know_makes_it_run_again() {
        let swapped = swapped(&trace("; MaxProcs: 64\n", 50), 10, 30);
        let late_size = trace("", 50) + "; MaxProcs: 64\n";
        let no_size = trace("", 50);
        for text in [&swapped, &late_size, &no_size] {
            let (verdict, prepared, _) = stream(text, Window::WHOLE, Policy::Easy);
            assert!(
                matches!(verdict, Verdict::Again { filled: false }),
                "{verdict:?}"
            );
            assert_eq!(prepared.jobs.len(), 50);
        }
        // The size from MaxNodes at the first line, then MaxProcs (which
        // comes first) later: the same jobs (none is wider than 32), on
        // another machine.
        let nodes_then_procs = trace("; MaxNodes: 32\n", 50) + "; MaxProcs: 64\n";
        let (verdict, prepared, _) = stream(&nodes_then_procs, Window::WHOLE, Policy::Easy);
        assert!(
            matches!(verdict, Verdict::Again { filled: false }),
            "{verdict:?}"
        );
        assert_eq!((prepared.jobs.len(), prepared.machine_procs), (50, 64));
        // A duplicate size entry later on changes nothing: the first stays.
        // Nor do two lines with the same submit time and job number.
        let mut twice = trace("; MaxProcs: 64\n", 50);
        let last = twice.lines().last().unwrap_or_default().to_owned();
        twice = twice + &last + "\n; MaxProcs: 32\n";
        let (verdict, prepared, _) = stream(&twice, Window::WHOLE, Policy::Easy);
        assert!(matches!(verdict, Verdict::Counts(_)), "{verdict:?}");
        assert_eq!(prepared.jobs.len(), 51);
    }

    /// A queue longer than the first kernel holds stops the early replay,
    /// which says so (the replay then starts on the next size).
    #[test]
    fn a_first_kernel_that_fills_is_reported() {
        let mut text = String::from("; MaxProcs: 1\n");
        let jobs = QUEUE_CAPACITY as u64 + 10;
        for n in 1..=jobs {
            text.push_str(&line(n, 0, 1, 1, 2));
        }
        let (verdict, prepared, _) = stream(&text, Window::WHOLE, Policy::Fcfs);
        assert!(
            matches!(verdict, Verdict::Again { filled: true }),
            "{verdict:?}"
        );
        assert_eq!(prepared.jobs.len() as u64, jobs);
    }

    /// `read_and_replay` gives what reading, preparing and replaying one
    /// after the other give, whether the early replay counts (lines in
    /// order) or not (two lines swapped).
    #[test]
    fn read_and_replay_gives_the_replay_of_the_prepared_trace() {
        let ordered = trace("; MaxProcs: 64\n", 120);
        let swapped = swapped(&ordered, 5, 40);
        let dir = tempfile::tempdir().expect("temp dir");
        let shaping = Shaping::AS_RECORDED;
        for (n, text) in [ordered, swapped].iter().enumerate() {
            let path = dir.path().join(format!("{n}.swf"));
            std::fs::write(&path, text).expect("write");
            for policy in [Policy::Easy, Policy::Conservative] {
                let bounds = CategoryBounds::default();
                let (prepared, got) =
                    read_and_replay(&path, Window::WHOLE, shaping, policy, bounds).expect("replay");
                assert_eq!(got.while_reading, n == 0, "only the ordered trace streams");
                let loaded = crate::swf::load(&path).expect("trace");
                let again = prepare(&loaded, &Window::WHOLE, shaping).expect("prepared");
                assert_eq!(prepared.jobs, again.jobs);
                let want = run_timed(&again, policy, bounds, false, None, false).expect("replay");
                assert_eq!(got.metrics, want.metrics, "{policy}");
                assert_eq!(got.outcome, want.outcome);
            }
        }
    }
}
