//! The capacity tiers, and the kernel calls every tier answers the same way
//! ([`Tiered`], which the handle dispatch hands out).
//!
//! | tier | queued `Q` | running `R` | profile steps `B` | machines `M` | license pools `L` |
//! | --- | --- | --- | --- | --- | --- |
//! | S | 64 | 64 | 193 | 16 | 8 |
//! | M | 1,024 | 1,024 | 3,073 | 16 | 8 |
//! | L | 16,384 | 4,096 | 36,865 | 16 | 8 |
//!
//! `B = 2Q + R + 1` is what Conservative and its variants need at most (a
//! reservation adds two steps, a running job one); every other policy needs
//! less, so every policy runs on every tier. `M = 16` machines and `L = 8`
//! license pools cover the farms of the flexible-backfilling paper's
//! scenarios; a smaller cluster leaves the rest unused (and untouched).
//! The large tier holds fewer running than waiting jobs: running jobs need
//! a processor each, waiting ones do not.
#![forbid(unsafe_code)]

use crate::model::types::{FarmCluster, BF_MAX_MACHINES, BF_MAX_POOLS};
use backfill_core::policy::SlowdownAverage;
use backfill_core::{
    CheckpointError, Counters, Job, Kernel, KernelError, Observer, Pass, Policy, QueuedJob,
    RestoreError, RunningJob, Slot, Step, Time, Waiting,
};

/// The small tier's kernel.
pub type KernelS = Kernel<64, 64, { 2 * 64 + 64 + 1 }, BF_MAX_MACHINES, BF_MAX_POOLS>;
/// The medium tier's kernel.
pub type KernelM = Kernel<1024, 1024, { 2 * 1024 + 1024 + 1 }, BF_MAX_MACHINES, BF_MAX_POOLS>;
/// The large tier's kernel.
pub type KernelL = Kernel<16384, 4096, { 2 * 16384 + 4096 + 1 }, BF_MAX_MACHINES, BF_MAX_POOLS>;

/// A tier: which kernel type a handle holds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Tier {
    /// 64 queued jobs.
    S,
    /// 1,024 queued jobs.
    M,
    /// 16,384 queued jobs.
    L,
}

impl Tier {
    /// Every tier.
    pub const ALL: [Self; 3] = [Self::S, Self::M, Self::L];

    /// The tier's tag in a handle.
    #[must_use]
    pub const fn tag(self) -> u32 {
        match self {
            Self::S => 1,
            Self::M => 2,
            Self::L => 3,
        }
    }

    /// The tier with this tag.
    #[must_use]
    pub const fn of_tag(tag: u32) -> Option<Self> {
        match tag {
            1 => Some(Self::S),
            2 => Some(Self::M),
            3 => Some(Self::L),
            _ => None,
        }
    }
}

/// An observer passed on as a trait object (the kernel's calls take a
/// sized observer).
struct Forward<'a>(&'a mut dyn Observer);

impl Observer for Forward<'_> {
    fn started(&mut self, job: &Job, slot: Slot) {
        self.0.started(job, slot);
    }
    fn reserved(&mut self, job: &Job, slot: Slot) {
        self.0.reserved(job, slot);
    }
    fn keep_searching(&mut self) -> bool {
        self.0.keep_searching()
    }
}

/// The kernel calls the C functions make, for a kernel of any tier. A new
/// kernel call gets a method here (one line in the impl below) and a C
/// function in `abi`.
pub trait Tiered {
    /// `Kernel::reset`.
    fn reset(&mut self, cluster: FarmCluster, policy: Policy);
    /// `Kernel::submit`.
    ///
    /// # Errors
    /// As the kernel's.
    fn submit(
        &mut self,
        now: Time,
        job: Job,
        observer: &mut dyn Observer,
    ) -> Result<(), KernelError>;
    /// `Kernel::complete`.
    ///
    /// # Errors
    /// As the kernel's.
    fn complete(&mut self, now: Time, id: u32) -> Result<RunningJob, KernelError>;
    /// `Kernel::schedule`.
    ///
    /// # Errors
    /// As the kernel's.
    fn schedule(&mut self, now: Time, observer: &mut dyn Observer) -> Result<Pass, KernelError>;
    /// `Kernel::next_wakeup`.
    fn next_wakeup(&self) -> Option<Time>;
    /// `Kernel::validate`.
    ///
    /// # Errors
    /// As the kernel's.
    fn validate(&self) -> Result<(), KernelError>;
    /// `Kernel::set_queue_limit`.
    fn set_queue_limit(&mut self, limit: usize) -> usize;
    /// `Kernel::queue_limit`.
    fn queue_limit(&self) -> usize;
    /// `Kernel::now`.
    fn now(&self) -> Time;
    /// `Kernel::policy`.
    fn policy(&self) -> Policy;
    /// `Kernel::cluster`.
    fn cluster(&self) -> &FarmCluster;
    /// `Kernel::keeps_plan`.
    fn keeps_plan(&self) -> bool;
    /// `Kernel::queued`.
    fn queued(&self) -> &[QueuedJob];
    /// `Kernel::running`.
    fn running(&self) -> &[RunningJob];
    /// `Kernel::waiting`: calls `each` with every waiting job, in queue
    /// order.
    fn waiting(&self, each: &mut dyn FnMut(Waiting));
    /// `Kernel::counters`.
    fn counters(&self) -> &Counters;
    /// `Kernel::promotion_time`.
    fn promotion_time(&self, job: &Job) -> Time;
    /// `Kernel::slowdown_average`.
    fn slowdown_average(&self) -> &SlowdownAverage;
    /// The steps of machine `m`'s profile (`Kernel::plan`).
    fn machine_steps(&self, m: usize) -> Option<&[Step]>;
    /// The steps of license pool `l`'s profile (`Kernel::plan`).
    fn license_steps(&self, l: usize) -> Option<&[Step]>;
    /// The capacities: queued, running, profile steps.
    fn capacity(&self) -> (usize, usize, usize);
    /// `Kernel::checkpoint_size` of the tier.
    fn checkpoint_size(&self) -> usize;
    /// `Kernel::checkpoint`.
    ///
    /// # Errors
    /// As the kernel's.
    fn checkpoint(&self, buf: &mut [u8]) -> Result<usize, CheckpointError>;
    /// `Kernel::restore`.
    ///
    /// # Errors
    /// As the kernel's (the kernel is then unchanged).
    fn restore(&mut self, bytes: &[u8]) -> Result<(), RestoreError>;
}

impl<const Q: usize, const R: usize, const B: usize> Tiered
    for Kernel<Q, R, B, BF_MAX_MACHINES, BF_MAX_POOLS>
{
    fn reset(&mut self, cluster: FarmCluster, policy: Policy) {
        Kernel::reset(self, cluster, policy);
    }
    fn submit(
        &mut self,
        now: Time,
        job: Job,
        observer: &mut dyn Observer,
    ) -> Result<(), KernelError> {
        Kernel::submit(self, now, job, &mut Forward(observer))
    }
    fn complete(&mut self, now: Time, id: u32) -> Result<RunningJob, KernelError> {
        Kernel::complete(self, now, id)
    }
    fn schedule(&mut self, now: Time, observer: &mut dyn Observer) -> Result<Pass, KernelError> {
        Kernel::schedule(self, now, &mut Forward(observer))
    }
    fn next_wakeup(&self) -> Option<Time> {
        Kernel::next_wakeup(self)
    }
    fn validate(&self) -> Result<(), KernelError> {
        Kernel::validate(self)
    }
    fn set_queue_limit(&mut self, limit: usize) -> usize {
        Kernel::set_queue_limit(self, limit)
    }
    fn queue_limit(&self) -> usize {
        Kernel::queue_limit(self)
    }
    fn now(&self) -> Time {
        Kernel::now(self)
    }
    fn policy(&self) -> Policy {
        Kernel::policy(self)
    }
    fn cluster(&self) -> &FarmCluster {
        Kernel::cluster(self)
    }
    fn keeps_plan(&self) -> bool {
        Kernel::keeps_plan(self)
    }
    fn queued(&self) -> &[QueuedJob] {
        Kernel::queued(self)
    }
    fn running(&self) -> &[RunningJob] {
        Kernel::running(self)
    }
    fn waiting(&self, each: &mut dyn FnMut(Waiting)) {
        Kernel::waiting(self).for_each(each);
    }
    fn counters(&self) -> &Counters {
        Kernel::counters(self)
    }
    fn promotion_time(&self, job: &Job) -> Time {
        Kernel::promotion_time(self, job)
    }
    fn slowdown_average(&self) -> &SlowdownAverage {
        Kernel::slowdown_average(self)
    }
    fn machine_steps(&self, m: usize) -> Option<&[Step]> {
        self.plan().machine(m).map(backfill_core::Profile::steps)
    }
    fn license_steps(&self, l: usize) -> Option<&[Step]> {
        self.plan().license(l).map(backfill_core::Profile::steps)
    }
    fn capacity(&self) -> (usize, usize, usize) {
        (Q, R, B)
    }
    fn checkpoint_size(&self) -> usize {
        Self::checkpoint_size()
    }
    fn checkpoint(&self, buf: &mut [u8]) -> Result<usize, CheckpointError> {
        Kernel::checkpoint(self, buf)
    }
    fn restore(&mut self, bytes: &[u8]) -> Result<(), RestoreError> {
        Kernel::restore(self, bytes)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tags_round_trip() {
        for t in Tier::ALL {
            assert_eq!(Tier::of_tag(t.tag()), Some(t));
        }
        assert_eq!(Tier::of_tag(0), None);
        assert_eq!(Tier::of_tag(4), None);
    }
}
