//! Checkpoint and restore of a busy kernel (`docs/performance.md`,
//! "Checkpoints"): the size of the checkpoint, the time to write it into a
//! buffer (`Kernel::checkpoint`) and the time to restore a kernel from it
//! in place (`Kernel::restore`, every check included).
//!
//! * `deep/conservative/4096`: the busy machine of `backfill_benches`
//!   (1,024 processors full, 64 running jobs) with 4,096 jobs waiting,
//!   under Conservative (every one holds a reservation), in the
//!   `kernel_calls` bench's kernel (`Q = 8192`, `R = 128`);
//! * `tier/conservative/{S,M,L}`: the C tiers' kernels (`Q`, `R` of 64 and
//!   64, 1,024 and 1,024, 16,384 and 4,096; 16 machines and 8 pools of
//!   room) holding the busy machine with a full queue (64, 1,024 and
//!   16,384 jobs waiting), the most a tier's checkpoint holds of waiting
//!   jobs.
//!
//! `cargo bench -p backfill-benches --bench checkpoint`; the sizes are
//! printed first; `cargo xtask medians` prints the medians.

use backfill_benches::{
    busy_kernel, conservative_steps, queued_jobs, BENCH_RUNNING, BUSY_PROCS, QUEUED_AT,
    RUNNING_JOBS, RUNNING_WIDTH,
};
use backfill_core::{Cluster, Job, Kernel, Policy};
use criterion::{criterion_main, BenchmarkId, Criterion};
use std::hint::black_box;
use std::time::Duration;

/// The busy machine with `depth` jobs waiting, under Conservative, in a
/// kernel with room for 16 machines and 8 pools (a C tier's).
fn busy_tier<const Q: usize, const R: usize, const B: usize>(
    depth: usize,
) -> Box<Kernel<Q, R, B, 16, 8>> {
    let cluster = Cluster::single(BUSY_PROCS).expect("the busy machine");
    let mut kernel = Box::new(Kernel::new(cluster, Policy::Conservative));
    for (id, slot) in (0..RUNNING_JOBS).zip(1..) {
        let job = Job::new(id, 0, RUNNING_WIDTH, 3600 + 600 * slot);
        kernel.submit(0, job, &mut ()).expect("room");
        kernel.schedule(0, &mut ()).expect("room");
    }
    for job in queued_jobs(depth) {
        kernel.submit(QUEUED_AT, job, &mut ()).expect("room");
    }
    kernel.schedule(QUEUED_AT, &mut ()).expect("room");
    assert_eq!(kernel.queued().len(), depth);
    kernel
}

/// Runs `f` on a thread with a stack for the large tier's kernel (8 MB,
/// built and cloned by value on the way into its box).
fn on_big_stack<T: Send>(f: impl FnOnce() -> T + Send) -> T {
    std::thread::scope(|scope| {
        std::thread::Builder::new()
            .stack_size(256 << 20)
            .spawn_scoped(scope, f)
            .expect("a thread")
            .join()
            .expect("the kernel was built")
    })
}

/// Benches writing `kernel`'s checkpoint and restoring it into `target`,
/// as `name`.
fn bench<const Q: usize, const R: usize, const B: usize, const M: usize, const L: usize>(
    c: &mut Criterion,
    group: &str,
    name: &str,
    kernel: &Kernel<Q, R, B, M, L>,
    target: &mut Kernel<Q, R, B, M, L>,
) {
    let mut buf = vec![0u8; Kernel::<Q, R, B, M, L>::checkpoint_size()];
    let len = kernel
        .checkpoint(&mut buf)
        .expect("a buffer of checkpoint_size()");
    eprintln!(
        "{group}/{name}: {} queued, {} running: checkpoint {len} bytes (at most {})",
        kernel.queued().len(),
        kernel.running().len(),
        Kernel::<Q, R, B, M, L>::checkpoint_size()
    );
    let bytes = buf[..len].to_vec();
    let mut g = c.benchmark_group(group);
    g.measurement_time(Duration::from_secs(3));
    g.bench_with_input(BenchmarkId::new("checkpoint", name), kernel, |b, k| {
        b.iter(|| black_box(k.checkpoint(black_box(&mut buf))));
    });
    // Restored again and again in the same memory: the same work each time.
    g.bench_with_input(BenchmarkId::new("restore", name), &bytes, |b, bytes| {
        b.iter(|| black_box(target.restore(black_box(bytes))));
    });
    g.finish();
    target.restore(&bytes).expect("restores");
    target.validate().expect("a valid restored kernel");
}

fn checkpoints(c: &mut Criterion) {
    const DEEP_Q: usize = 8192;
    const DEEP_B: usize = conservative_steps(DEEP_Q, BENCH_RUNNING);
    let (deep, mut into) = on_big_stack(|| {
        let deep = busy_kernel::<DEEP_Q, BENCH_RUNNING, DEEP_B>(Policy::Conservative, 4096)
            .expect("the busy kernel");
        let into = busy_kernel::<DEEP_Q, BENCH_RUNNING, DEEP_B>(Policy::Easy, 10)
            .expect("the busy kernel");
        (deep, into)
    });
    bench(c, "deep", "conservative-4096", &deep, &mut into);
    drop((deep, into));
    let (s, mut into) = on_big_stack(|| (busy_tier::<64, 64, 193>(64), busy_tier(1)));
    bench(c, "tier", "S-conservative-64", &s, &mut into);
    let (m, mut into) = on_big_stack(|| (busy_tier::<1024, 1024, 3073>(1024), busy_tier(1)));
    bench(c, "tier", "M-conservative-1024", &m, &mut into);
    let (l, mut into) = on_big_stack(|| (busy_tier::<16384, 4096, 36865>(16384), busy_tier(1)));
    bench(c, "tier", "L-conservative-16384", &l, &mut into);
}

/// The criterion group (a private module: the macro makes a `pub fn`).
mod group {
    use criterion::Criterion;
    use std::time::Duration;

    criterion::criterion_group! {
        name = benches;
        config = Criterion::default()
            .sample_size(20)
            .warm_up_time(Duration::from_millis(500));
        targets = super::checkpoints
    }
}
criterion_main!(group::benches);
