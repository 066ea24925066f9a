//! Progress bars on stderr for the phases of a command.
//!
//! Every phase that replays jobs gets one bar counting jobs replayed (in
//! every replay of the phase: a comparison of four policies on 10,000 jobs
//! counts to 40,000): a Selective replay's Conservative pre-run, the replay
//! itself, the Conservative run of `thresholds`, and each analysis's
//! replays (run in parallel, all on one bar). A bar shows its label, the
//! count, and the elapsed and remaining time, each labelled.
//!
//! Bars are drawn only after [`show_on_terminal`] (the binary calls it),
//! only when stderr is a terminal, and only for phases of at least
//! [`VISIBLE_FROM`] jobs (smaller ones are over in a fraction of a second
//! in a release build, and a bar that flashes by helps nobody). Otherwise a
//! bar is hidden but still counts, so `recording` can show tests which
//! phases ran and that each counted to its end.

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use std::cell::RefCell;
use std::io::IsTerminal;
use std::sync::atomic::{AtomicBool, Ordering};

/// Phases with fewer jobs (summed over their replays) get no visible bar.
pub(crate) const VISIBLE_FROM: u64 = 20_000;

static SHOW: AtomicBool = AtomicBool::new(false);

thread_local! {
    static RECORD: RefCell<Option<Vec<(String, ProgressBar)>>> = const { RefCell::new(None) };
}

/// Lets bars be drawn from now on, if stderr is a terminal.
pub(crate) fn show_on_terminal() {
    SHOW.store(std::io::stderr().is_terminal(), Ordering::Relaxed);
}

/// A phase that went through [`phase`], as [`recording`] saw it.
#[cfg(test)]
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct PhaseRecord {
    /// The bar's label.
    pub(crate) label: String,
    /// Jobs the phase was to replay.
    pub(crate) total: u64,
    /// Jobs it counted.
    pub(crate) done: u64,
}

/// A bar for a phase that replays `total` jobs (summed over its replays),
/// labelled `label`; call [`finish`] when the phase ends.
#[must_use]
pub(crate) fn phase(label: &str, total: u64) -> ProgressBar {
    bar(label, total, total >= VISIBLE_FROM)
}

/// A bar for a phase whose job count is not known yet (a replay that runs
/// while its trace is read): its length starts at 0 and grows as jobs
/// arrive ([`ProgressBar::inc_length`]). Drawn only when `large`, the
/// caller's guess that it will reach [`VISIBLE_FROM`] jobs.
#[must_use]
pub(crate) fn growing_phase(label: &str, large: bool) -> ProgressBar {
    bar(label, 0, large)
}

fn bar(label: &str, total: u64, large: bool) -> ProgressBar {
    let visible = SHOW.load(Ordering::Relaxed) && large;
    let target = if visible {
        ProgressDrawTarget::stderr()
    } else {
        ProgressDrawTarget::hidden()
    };
    let bar = ProgressBar::with_draw_target(Some(total), target);
    bar.set_style(
        ProgressStyle::with_template(
            "{msg} [{wide_bar}] {human_pos}/{human_len} jobs  elapsed {elapsed}  remaining {eta}",
        )
        .unwrap_or_else(|_| ProgressStyle::default_bar())
        .progress_chars("=> "),
    );
    bar.set_message(label.to_owned());
    if visible {
        bar.enable_steady_tick(std::time::Duration::from_millis(250));
    }
    RECORD.with(|r| {
        if let Some(log) = r.borrow_mut().as_mut() {
            log.push((label.to_owned(), bar.clone()));
        }
    });
    bar
}

/// Ends a phase: its bar disappears from the terminal.
pub(crate) fn finish(bar: &ProgressBar) {
    bar.finish_and_clear();
}

/// Runs `f` and returns what it returned with the phases it started on
/// this thread (for tests: which bars a command shows, and how far each
/// counted).
#[cfg(test)]
pub(crate) fn recording<T>(f: impl FnOnce() -> T) -> (T, Vec<PhaseRecord>) {
    RECORD.with(|r| *r.borrow_mut() = Some(Vec::new()));
    let out = f();
    let phases = RECORD
        .with(|r| r.borrow_mut().take())
        .unwrap_or_default()
        .into_iter()
        .map(|(label, bar)| PhaseRecord {
            label,
            total: bar.length().unwrap_or(0),
            done: bar.position(),
        })
        .collect();
    (out, phases)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn phases_are_recorded_with_their_counts() {
        let ((), phases) = recording(|| {
            let a = phase("first", 10);
            a.inc(10);
            finish(&a);
            let b = phase("second", 5);
            b.inc(3);
        });
        assert_eq!(
            phases,
            [
                PhaseRecord {
                    label: "first".into(),
                    total: 10,
                    done: 10
                },
                PhaseRecord {
                    label: "second".into(),
                    total: 5,
                    done: 3
                }
            ]
        );
        // Outside `recording`, nothing is kept.
        let _ = phase("unrecorded", 1);
        let ((), none) = recording(|| {});
        assert!(none.is_empty());
    }
}
