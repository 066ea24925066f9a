//! The replay kernels: four sizes, tried smallest first, and one built
//! ahead of time.
//!
//! The kernel's tables are fixed at compile time, so a replay starts on
//! [`TraceKernel`] (8,192 waiting and 4,096 running jobs, about 1 MB: every
//! trace in the archive needs at most a few thousand of each, and a kernel
//! costs its size in zeroed and copied memory before the first call). A
//! window can never need more waiting or running jobs than it has jobs, so
//! up to 4,096 jobs it cannot fill. A larger window that does fill it (a
//! long queue under a heavy `--load`, or more than 4,096 small jobs at once
//! on a large machine) is replayed again, from the start, on
//! a kernel of [`DEEP_QUEUE_CAPACITY`] (16,384 of each, 2.4 MB), then if need be on
//! one of [`MEDIUM_QUEUE_CAPACITY`] (262,144 of each, 37 MB), and if that fills too and
//! the window is larger still, on one of [`LARGE_QUEUE_CAPACITY`] (1,048,576 of each,
//! 150 MB). The kernel is deterministic and its capacity changes nothing
//! else, so the schedule is the one a kernel of unbounded size would give.
//! Only a window of more than 1,048,576 jobs with more than that many
//! waiting (or running) at once can still fill the largest: that stops the
//! replay with an error saying so, naming the time and the limit. Jobs the kernel refuses for what they are (wider than
//! any machine, no processors) are counted by reason in
//! [`RunResult::rejected`](super::RunResult::rejected) and the replay goes on.
//!
//! Building a kernel costs about a millisecond: it is built on the stack
//! and copied into its box, and the first touch of each of its pages is a
//! page fault. `replay` therefore calls [`prebuild`] before it reads the
//! trace: a [`TraceKernel`] is built on another thread meanwhile, and the
//! first replay of that size takes it and [`Simulator::reset`]s it for the
//! trace's machine and the policy, in place.

use backfill_core::{Cluster, Kernel, Policy, Simulator};
use std::any::Any;
use std::sync::Mutex;
use std::thread::JoinHandle;

/// Waiting jobs the first replay kernel can hold.
pub const QUEUE_CAPACITY: usize = 1 << 13;
/// Running jobs the first replay kernel can hold.
pub const RUNNING_CAPACITY: usize = 1 << 12;
/// Profile steps: enough for Conservative with full tables (`2Q + R + 1`).
pub const STEP_CAPACITY: usize = 2 * QUEUE_CAPACITY + RUNNING_CAPACITY + 8;
/// The kernel type trace replays start on: one machine, no licenses.
pub type TraceKernel = Kernel<QUEUE_CAPACITY, RUNNING_CAPACITY, STEP_CAPACITY>;
/// The cluster type of every replay kernel.
pub(crate) type TraceCluster = Cluster<1, 0>;
/// Waiting jobs the second replay kernel can hold (see the module docs).
pub(crate) const DEEP_QUEUE_CAPACITY: usize = 1 << 14;
/// Running jobs the second replay kernel can hold.
pub(crate) const DEEP_RUNNING_CAPACITY: usize = 1 << 14;
/// Profile steps of the second kernel (`2Q + R + 8`, as [`STEP_CAPACITY`]).
pub(crate) const DEEP_STEP_CAPACITY: usize = 2 * DEEP_QUEUE_CAPACITY + DEEP_RUNNING_CAPACITY + 8;
/// Waiting jobs the middle replay kernel can hold (see the module docs).
pub(crate) const MEDIUM_QUEUE_CAPACITY: usize = 1 << 18;
/// Running jobs the middle replay kernel can hold.
pub(crate) const MEDIUM_RUNNING_CAPACITY: usize = 1 << 18;
/// Profile steps of the middle kernel (`2Q + R + 8`, as [`STEP_CAPACITY`]).
pub(crate) const MEDIUM_STEP_CAPACITY: usize =
    2 * MEDIUM_QUEUE_CAPACITY + MEDIUM_RUNNING_CAPACITY + 8;
/// Waiting jobs the largest replay kernel can hold (see the module docs).
pub(crate) const LARGE_QUEUE_CAPACITY: usize = 1 << 20;
/// Running jobs the larger replay kernel can hold.
pub(crate) const LARGE_RUNNING_CAPACITY: usize = 1 << 20;
/// Profile steps of the largest kernel (`2Q + R + 8`, as [`STEP_CAPACITY`]).
pub(crate) const LARGE_STEP_CAPACITY: usize = 2 * LARGE_QUEUE_CAPACITY + LARGE_RUNNING_CAPACITY + 8;

/// A simulator being built on a thread of its own (boxed as `Any`, so that
/// any size fits; see [`simulator_from`]).
type Building = JoinHandle<Box<dyn Any + Send>>;

/// The kernel [`prebuild`] is building, for the next replay on a
/// [`TraceKernel`].
static PREBUILT: Mutex<Option<Building>> = Mutex::new(None);

/// Starts building a [`TraceKernel`] (with its simulator) on a thread of its
/// own, for the next replay of that size to take instead of building one
/// (see the module docs). Without a thread, that replay builds its own.
pub(crate) fn prebuild() {
    let spawned = build_in_background::<QUEUE_CAPACITY, RUNNING_CAPACITY, STEP_CAPACITY>();
    if let (Ok(handle), Ok(mut slot)) = (spawned, PREBUILT.lock()) {
        *slot = Some(handle);
    }
}

/// Builds a simulator of this size (one processor, FCFS: [`simulator_from`]
/// sets it up) on a new thread.
fn build_in_background<const Q: usize, const R: usize, const B: usize>() -> std::io::Result<Building>
{
    std::thread::Builder::new()
        .name("kernel-build".into())
        .stack_size(stack_for::<Q, R, B>())
        .spawn(|| -> Box<dyn Any + Send> {
            match Cluster::single(1) {
                Ok(cluster) => boxed_simulator::<Q, R, B>(cluster, Policy::Fcfs),
                Err(_) => Box::new(()),
            }
        })
}

/// The kernel [`prebuild`] built, when it is of this size, set up for
/// `cluster` and `policy`; else a new one.
pub(crate) fn simulator_for<const Q: usize, const R: usize, const B: usize>(
    cluster: &TraceCluster,
    policy: Policy,
) -> Box<Simulator<Q, R, B>> {
    let building = PREBUILT.lock().ok().and_then(|mut slot| slot.take());
    simulator_from(building, cluster, policy)
}

/// The simulator `building` builds, when it is of this size, reset for
/// `cluster` and `policy`; else a new one.
fn simulator_from<const Q: usize, const R: usize, const B: usize>(
    building: Option<Building>,
    cluster: &TraceCluster,
    policy: Policy,
) -> Box<Simulator<Q, R, B>> {
    let built = building.and_then(|h| h.join().ok());
    match built.map(|b| b.downcast::<Simulator<Q, R, B>>()) {
        Some(Ok(mut sim)) => {
            sim.reset(cluster.clone(), policy);
            sim
        }
        _ => boxed_simulator(cluster.clone(), policy),
    }
}

/// A new simulator in a box. Out of line, so that only this frame holds the
/// kernel on its way into the box (a caller's frame that held it would
/// touch all of its pages on entry).
#[inline(never)]
fn boxed_simulator<const Q: usize, const R: usize, const B: usize>(
    cluster: TraceCluster,
    policy: Policy,
) -> Box<Simulator<Q, R, B>> {
    Box::new(Simulator::new(Kernel::new(cluster, policy)))
}

/// The stack of a thread that builds a kernel of this size: room for the
/// copies a debug build makes, and at least the 256 MB replays always had
/// (address space only: untouched pages cost nothing).
pub(crate) fn stack_for<const Q: usize, const R: usize, const B: usize>() -> usize {
    (8 * std::mem::size_of::<Simulator<Q, R, B>>() + (64 << 20)).max(256 << 20)
}

#[cfg(test)]
mod tests {
    use super::*;
    use backfill_core::{CategoryBounds, Job, Metrics, SimJob};

    /// A simulator built in the background is taken when it has the size
    /// asked for, and reset for the cluster and policy: it prints as a new
    /// one, though it was built for another machine and had run jobs. One
    /// of another size is left, and a new one built.
    #[test]
    fn a_simulator_built_in_the_background_is_reset_and_used() {
        let cluster = Cluster::single(8).unwrap();
        let fresh = format!(
            "{:?}",
            boxed_simulator::<8, 8, 32>(cluster.clone(), Policy::Easy)
        );
        let (tx, rx) = std::sync::mpsc::channel();
        let building = std::thread::spawn(move || -> Box<dyn Any + Send> {
            let mut sim =
                boxed_simulator::<8, 8, 32>(Cluster::single(3).unwrap(), Policy::Conservative);
            let jobs = (0..6).map(|id| SimJob {
                job: Job::new(id, id, 2, 50),
                runtime: 30,
            });
            let mut metrics = Metrics::new(CategoryBounds::default());
            sim.run(jobs, &mut metrics).unwrap();
            assert_eq!(metrics.overall.count, 6);
            tx.send(std::ptr::from_ref(&*sim) as usize).unwrap();
            sim
        });
        let sim = simulator_from::<8, 8, 32>(Some(building), &cluster, Policy::Easy);
        assert_eq!(std::ptr::from_ref(&*sim) as usize, rx.recv().unwrap());
        assert_eq!(format!("{sim:?}"), fresh);
        let other = build_in_background::<16, 16, 64>().unwrap();
        let sim = simulator_from::<8, 8, 32>(Some(other), &cluster, Policy::Easy);
        assert_eq!(format!("{sim:?}"), fresh);
        let sim = simulator_from::<8, 8, 32>(None, &cluster, Policy::Easy);
        assert_eq!(format!("{sim:?}"), fresh);
    }
}
