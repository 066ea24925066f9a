//! Proof that `backfill-core` needs neither `std` nor a heap.
//!
//! This is a `#![no_std]` `#![no_main]` binary with its own
//! `#[panic_handler]`. If `backfill-core` (or anything it depends on) pulled
//! in `std`, the link would fail: `std` brings its own `panic_impl` lang item
//! ("duplicate lang item") and needs the C runtime's start files, which
//! `build.sh` leaves out (`-C link-arg=-nostartfiles`). No global allocator
//! is defined either, so any use of `alloc` would fail to link as well.
//!
//! Link flags (`build.sh`): `-C panic=abort`, `-C link-arg=-nostartfiles`
//! (no C runtime start files: `_start` below is the entry point) and
//! `-C link-arg=-lc`. rustc links no_std binaries with `-nodefaultlibs`, and
//! on `x86_64-unknown-linux-gnu` the compiler's `memcpy`, `memmove` and
//! `memset` calls are resolved by libc (a bare-metal target gets them from
//! `compiler_builtins`): `-lc` supplies those three symbols and nothing of
//! Rust's `std`. The release profile uses LTO, without which the prebuilt
//! `core` still refers to `rust_eh_personality`.
//!
//! The entry point really drives the kernel (submit, schedule, complete,
//! next wakeup, validate, and a whole `Simulator` replay into `Metrics`) for
//! every policy, so the policies' code is linked and not optimised away.
//! It never returns: it loops forever. It is built, never run.
#![no_std]
#![no_main]
#![deny(unsafe_code, missing_docs)]

use backfill_core::{CategoryBounds, Cluster, Job, Kernel, Metrics, Policy, SimJob, Simulator};
use core::hint::black_box;

/// The small kernel used here: 8 queued, 8 running, 32 profile steps
/// (Conservative needs `2Q + R + 1 = 25`).
type SmallKernel = Kernel<8, 8, 32>;

/// A few jobs on a 4-processor machine: (submit, procs, estimate, runtime).
const JOBS: [(u32, u32, u32, u32); 6] = [
    (0, 4, 100, 60),
    (0, 2, 50, 50),
    (5, 1, 10, 3),
    (10, 3, 200, 150),
    (12, 1, 30, 30),
    (20, 4, 40, 10),
];

/// Direct kernel calls: submit all, schedule, complete what runs, repeat.
fn drive(policy: Policy) -> u64 {
    let Ok(cluster) = Cluster::single(black_box(4)) else {
        return 0;
    };
    let mut kernel: SmallKernel = Kernel::new(cluster, policy);
    let mut checksum = 0_u64;
    for (id, &(submit, procs, estimate, _)) in (0_u32..).zip(JOBS.iter()) {
        let job = Job::new(id, submit, procs, estimate);
        if kernel.submit(submit, black_box(job), &mut ()).is_ok() {
            checksum = checksum.wrapping_add(1);
        }
    }
    let mut now = 20;
    for _ in 0..32 {
        if let Ok(pass) = kernel.schedule(now, &mut ()) {
            checksum = checksum.wrapping_add(u64::from(pass.started));
        }
        // End the first running job at its estimate, then move on.
        let first = kernel.running().first().map(|r| (r.job.id, r.slot.end()));
        if let Some((id, end)) = first {
            now = now.max(end);
            if kernel.complete(now, id).is_ok() {
                checksum = checksum.wrapping_add(u64::from(id));
            }
        } else if let Some(wake) = kernel.next_wakeup() {
            now = wake;
        } else {
            break;
        }
    }
    if kernel.validate().is_ok() {
        checksum = checksum.wrapping_add(7);
    }
    checksum
}

/// A whole replay through the simulator into a `Metrics` sink.
fn replay(policy: Policy) -> u64 {
    let Ok(cluster) = Cluster::single(black_box(4)) else {
        return 0;
    };
    let kernel: SmallKernel = Kernel::new(cluster, policy);
    let mut sim = Simulator::new(kernel);
    let mut metrics = Metrics::new(CategoryBounds::DEFAULT);
    let jobs = (0_u32..)
        .zip(JOBS)
        .map(|(id, (submit, procs, estimate, runtime))| SimJob {
            job: Job::new(id, submit, procs, estimate),
            runtime,
        });
    match sim.run(black_box(jobs), &mut metrics) {
        Ok(outcome) => {
            let metrics = black_box(&metrics);
            let total = &metrics.overall;
            outcome
                .finished
                .wrapping_add(total.wait)
                .wrapping_add(total.mean_slowdown().to_bits())
        }
        Err(_) => 1,
    }
}

/// Entry point (no C runtime: `-nostartfiles`). Exercises every policy, then
/// spins forever.
// `#[no_mangle]` is flagged by the `unsafe_code` lint (an exported symbol can
// clash with another one at link time). It is the only way to name the
// entry point without the C runtime, and this binary is never run, so the
// lint is allowed on this one item only.
#[allow(unsafe_code)]
#[no_mangle]
pub extern "C" fn _start() -> ! {
    let mut checksum = 0_u64;
    for policy in Policy::ALL {
        checksum = checksum.wrapping_add(drive(black_box(policy)));
        checksum = checksum.wrapping_add(replay(black_box(policy)));
    }
    black_box(checksum);
    #[allow(clippy::empty_loop)]
    loop {}
}

/// Panics cannot unwind here: spin.
#[panic_handler]
fn panic(_info: &core::panic::PanicInfo<'_>) -> ! {
    #[allow(clippy::empty_loop)]
    loop {}
}
