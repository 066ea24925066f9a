//! Whole-trace replays and trace parsing.
//!
//! For CTC-SP2 (77,222 jobs; the speed goals are stated for it: end to end,
//! EASY within 2x and Conservative within 5x of reading the trace) and for
//! the largest trace of the folder (CEA-Curie, 312,826 jobs):
//!
//! * `<trace>/parse_only`: `swf::load` + `replay::prepare` (gzip, parse,
//!   select, sort, convert);
//! * `<trace>/replay/<policy>`: `replay::run` on the prepared trace, what
//!   `host-cli replay` does after parsing (replay thread, kernel
//!   construction, the whole event loop, metrics);
//! * `ctc/end_to_end/<easy|conservative>`: both, one after the other;
//! * `ctc/while_reading/<easy|conservative>`: what `host-cli replay` does,
//!   the replay running while the trace is read (`stream::read_and_replay`):
//!   the quantity the goals bound.
//!
//! Traces come from `$BACKFILL_TRACES_DIR` (relative: from where the
//! command ran), default `../shared/traces` beside the workspace; a
//! missing trace is skipped with a note. Flat sampling, 10 samples: a
//! Curie replay takes seconds.

use backfill_benches::{
    load_prepared, replay, replay_while_reading, trace_path, CTC_TRACE, LARGEST_TRACE,
};
use backfill_core::Policy;
use criterion::{criterion_main, Criterion, SamplingMode};
use std::hint::black_box;
use std::path::Path;
use std::time::Duration;

fn trace(c: &mut Criterion, label: &str, path: &Path, end_to_end: bool) {
    let prepared = load_prepared(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    eprintln!(
        "{label}: {} jobs on {} processors",
        prepared.jobs.len(),
        prepared.machine_procs
    );
    let mut group = c.benchmark_group(label);
    group
        .sampling_mode(SamplingMode::Flat)
        .sample_size(10)
        .warm_up_time(Duration::from_millis(500))
        .measurement_time(Duration::from_secs(3));
    group.bench_function("parse_only", |b| {
        b.iter(|| black_box(load_prepared(black_box(path)).unwrap()));
    });
    for policy in Policy::ALL {
        group.bench_function(format!("replay/{}", policy.name()), |b| {
            b.iter(|| black_box(replay(&prepared, policy).unwrap().outcome));
        });
    }
    if end_to_end {
        for policy in [Policy::Easy, Policy::Conservative] {
            group.bench_function(format!("end_to_end/{}", policy.name()), |b| {
                b.iter(|| {
                    let prepared = load_prepared(black_box(path)).unwrap();
                    black_box(replay(&prepared, policy).unwrap().outcome)
                });
            });
            group.bench_function(format!("while_reading/{}", policy.name()), |b| {
                b.iter(|| {
                    black_box(
                        replay_while_reading(black_box(path), policy)
                            .unwrap()
                            .outcome,
                    )
                });
            });
        }
    }
    group.finish();
}

fn replays(c: &mut Criterion) {
    if let Some(path) = trace_path(CTC_TRACE) {
        trace(c, "ctc", &path, true);
    }
    if let Some(path) = trace_path(LARGEST_TRACE) {
        trace(c, "curie", &path, false);
    }
}

/// The criterion group (a private module: the macro makes a `pub fn`).
mod group {
    criterion::criterion_group!(benches, super::replays);
}
criterion_main!(group::benches);
