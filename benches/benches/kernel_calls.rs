//! One kernel call on a busy machine, per policy and queue depth.
//!
//! The state is the busy machine of `backfill_benches` (1024 processors
//! full, `depth` jobs waiting, first running job ending early). Each
//! iteration works on a fresh clone of that state (`iter_batched_ref`; the
//! clone is setup, never timed), so every measured call sees the same
//! input:
//!
//! * `schedule/<policy>/<depth>`: `Kernel::schedule` right after the early
//!   completion (Conservative compression runs inside it);
//! * `submit/conservative/<depth>`: `Kernel::submit` of one more job under
//!   Conservative (it gets its reservation at once).
//!
//! The inputs are boxed: criterion's stable `black_box` is a volatile read
//! of its argument, and LLVM expands a volatile read of a whole kernel
//! element by element (minutes of compile time for the larger kernels).
//!
//! Kernel capacities follow the depth (`Q = 2 * depth`, `R = 128`,
//! `B = 2Q + R + 1`): the calls cost time in the number of jobs and steps
//! held, not in the capacity, while the untimed clone of a kernel sized for
//! 8192 jobs would make the small depths take minutes of setup.

use backfill_benches::{
    batch_len, busy_kernel, complete_early, conservative_steps, probe_job, size_report,
    BENCH_RUNNING, COMPLETION_AT,
};
use backfill_core::{Kernel, Policy};
use criterion::{criterion_main, BatchSize, BenchmarkId, Criterion};
use std::hint::black_box;
use std::time::Duration;

/// Benches one depth with capacities `Q`, `BENCH_RUNNING`, `B`.
fn depth<const Q: usize, const B: usize>(c: &mut Criterion, depth: usize) {
    let batch = BatchSize::NumIterations(batch_len(size_of::<Kernel<Q, BENCH_RUNNING, B>>()));
    // Conservative passes take milliseconds at depth 4096: give 20 samples time.
    let time = Duration::from_millis(if depth >= 4096 { 2500 } else { 1000 });
    let mut group = c.benchmark_group("schedule");
    group.measurement_time(time);
    for policy in Policy::ALL {
        let base = busy_kernel::<Q, BENCH_RUNNING, B>(policy, depth)
            .unwrap_or_else(|e| panic!("{policy} at depth {depth}: {e}"));
        group.bench_with_input(BenchmarkId::new(policy.name(), depth), &base, |b, base| {
            b.iter_batched_ref(
                || {
                    let mut kernel = Box::new((**base).clone());
                    complete_early(&mut kernel).unwrap();
                    kernel
                },
                |kernel| black_box(kernel.schedule(black_box(COMPLETION_AT), &mut ())),
                batch,
            );
        });
    }
    group.finish();

    let mut group = c.benchmark_group("submit");
    group.measurement_time(time);
    let base = busy_kernel::<Q, BENCH_RUNNING, B>(Policy::Conservative, depth)
        .unwrap_or_else(|e| panic!("conservative at depth {depth}: {e}"));
    group.bench_with_input(
        BenchmarkId::new(Policy::Conservative.name(), depth),
        &base,
        |b, base| {
            b.iter_batched_ref(
                || Box::new((**base).clone()),
                |kernel| black_box(kernel.submit(black_box(COMPLETION_AT), probe_job(), &mut ())),
                batch,
            );
        },
    );
    group.finish();
}

fn kernel_calls(c: &mut Criterion) {
    eprintln!("memory (bytes):");
    for (what, bytes) in size_report() {
        eprintln!("{bytes:>12}  {what}");
    }
    depth::<32, { conservative_steps(32, BENCH_RUNNING) }>(c, 16);
    depth::<512, { conservative_steps(512, BENCH_RUNNING) }>(c, 256);
    depth::<8192, { conservative_steps(8192, BENCH_RUNNING) }>(c, 4096);
}

/// The criterion group (a private module: the macro makes a `pub fn`).
mod group {
    use criterion::Criterion;
    use std::time::Duration;

    criterion::criterion_group! {
        name = benches;
        config = Criterion::default()
            .sample_size(20)
            .warm_up_time(Duration::from_millis(300))
            .measurement_time(Duration::from_secs(1));
        targets = super::kernel_calls
    }
}
criterion_main!(group::benches);
