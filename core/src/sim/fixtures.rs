//! Test jobs built from named fields, for hand-written schedules:
//!
//! ```text
//! job(2).submit(1).procs(8).estimate(50).runs(30)
//! ```
//!
//! is job 2, submitted at t=1, on 8 processors, with a 50 s estimate and
//! 30 s of actual run time. A field left out is the plainest value: submitted
//! at 0, 1 processor, a 1 s estimate, running exactly its estimate, no
//! deadline, no licenses, priority 0.
//!
//! [`Collect`] is the sink such schedules are read from: every finished
//! job and every reservation event.
//!
//! One file for both test suites: core's unit tests use it as
//! `crate::sim::fixtures`, and `tests/support` includes it by path as
//! `backfill_tests::fixtures`. It names core's types from the crate root,
//! where both crates have them.

use crate::{
    Duration, Job, JobId, JobRecord, LicenseSet, Machine, MachineId, Procs, SimJob, Sink, Slot,
    Time,
};

/// A job under construction; see the module docs. Becomes a [`Job`] with
/// [`TestJob::job`] or a [`SimJob`] (the job and its run time) with
/// [`TestJob::sim`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TestJob {
    job: Job,
    /// `None`: runs exactly its estimate.
    runtime: Option<Duration>,
}

/// Job `id`, submitted at 0, on 1 processor, estimated (and running) 1 s.
#[must_use]
pub const fn job(id: JobId) -> TestJob {
    TestJob {
        job: Job::new(id, 0, 1, 1),
        runtime: None,
    }
}

impl TestJob {
    /// Submitted at `at`.
    #[must_use]
    pub const fn submit(mut self, at: Time) -> Self {
        self.job.submit = at;
        self
    }

    /// Asks for `procs` processors.
    #[must_use]
    pub const fn procs(mut self, procs: Procs) -> Self {
        self.job.procs = procs;
        self
    }

    /// The user's estimate, `seconds` (on a reference-speed machine).
    #[must_use]
    pub const fn estimate(mut self, seconds: Duration) -> Self {
        self.job.estimate = seconds;
        self
    }

    /// Really runs `seconds` (on a reference-speed machine): less than the
    /// estimate ends early, more is killed at the estimate.
    #[must_use]
    pub const fn runs(mut self, seconds: Duration) -> Self {
        self.runtime = Some(seconds);
        self
    }

    /// Should have ended by `at`.
    #[must_use]
    pub const fn deadline(mut self, at: Time) -> Self {
        self.job.deadline = at;
        self
    }

    /// Needs one copy of each license in `set`.
    #[must_use]
    pub const fn licenses(mut self, set: LicenseSet) -> Self {
        self.job.licenses = set;
        self
    }

    /// What the scheduler sees.
    #[must_use]
    pub const fn job(self) -> Job {
        self.job
    }

    /// Its actual run time.
    #[must_use]
    pub const fn runtime(self) -> Duration {
        match self.runtime {
            Some(seconds) => seconds,
            None => self.job.estimate,
        }
    }

    /// The job and its run time, as a replay takes them.
    #[must_use]
    pub const fn sim(self) -> SimJob {
        SimJob {
            job: self.job,
            runtime: self.runtime(),
        }
    }
}

/// The replay input of `jobs`, in order.
#[must_use]
pub fn sims(jobs: &[TestJob]) -> std::vec::Vec<SimJob> {
    jobs.iter().map(|j| j.sim()).collect()
}

/// A machine at another speed than the reference's, in the same named
/// style as jobs: `Machine::new(4).at_speed(2000)` is 4 processors twice
/// as fast.
pub trait AtSpeed {
    /// The machine at `speed` thousandths of the reference speed.
    #[must_use]
    fn at_speed(self, speed: u32) -> Machine;
}

impl AtSpeed for Machine {
    fn at_speed(self, speed: u32) -> Machine {
        Machine { speed, ..self }
    }
}

/// What a replay reports: finished jobs and reservation events.
#[derive(Debug, Default)]
pub struct Collect {
    /// Finished jobs, in completion order.
    pub records: std::vec::Vec<JobRecord>,
    /// Reservation events `(now, job, reserved start)`, in order.
    pub reservations: std::vec::Vec<(Time, JobId, Time)>,
}

impl Sink for Collect {
    fn finished(&mut self, record: &JobRecord) {
        self.records.push(*record);
    }
    fn reserved(&mut self, now: Time, job: &Job, slot: Slot) {
        self.reservations.push((now, job.id, slot.start));
    }
}

impl Collect {
    /// `(job, start)` of every finished job, by id.
    #[must_use]
    pub fn starts(&self) -> std::vec::Vec<(JobId, Time)> {
        let mut starts: std::vec::Vec<_> =
            self.records.iter().map(|r| (r.job.id, r.start())).collect();
        starts.sort_unstable();
        starts
    }

    /// `(job, start, machine)` of every finished job, by id.
    #[must_use]
    pub fn placements(&self) -> std::vec::Vec<(JobId, Time, MachineId)> {
        let mut placed: std::vec::Vec<_> = self
            .records
            .iter()
            .map(|r| (r.job.id, r.start(), r.slot.machine))
            .collect();
        placed.sort_unstable();
        placed
    }

    /// Job `id`'s record.
    ///
    /// # Panics
    /// When job `id` did not finish.
    #[must_use]
    pub fn record(&self, id: JobId) -> &JobRecord {
        self.records
            .iter()
            .find(|r| r.job.id == id)
            .unwrap_or_else(|| panic!("job {id} did not finish"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fields_left_out_are_the_plainest_values() {
        let plain = job(7).sim();
        assert_eq!(plain.job, Job::new(7, 0, 1, 1));
        assert_eq!(plain.runtime, 1);
        let full = job(2)
            .submit(1)
            .procs(8)
            .estimate(50)
            .runs(30)
            .deadline(90)
            .licenses(LicenseSet(0b10));
        let mut expected = Job::new(2, 1, 8, 50).with_deadline(Some(90));
        expected.licenses = LicenseSet(0b10);
        assert_eq!(full.job(), expected);
        assert_eq!(
            full.sim(),
            SimJob {
                job: expected,
                runtime: 30
            }
        );
        // Without `runs`, a job runs exactly its estimate.
        assert_eq!(job(3).estimate(40).runtime(), 40);
        assert_eq!(sims(&[job(1), job(2).runs(0)]).len(), 2);
        let fast = Machine::new(4).at_speed(2000);
        assert_eq!((fast.cpus, fast.speed), (4, 2000));
    }
}
