//! Pending reasons and expected starts: the policies' rules evaluated,
//! read-only, on the kernel's state (`docs/design.md`, "Pending reasons"
//! and "Expected starts").
//!
//! A pass reports this evaluation of the state it leaves (only to an
//! observer that wants reasons), and [`Kernel::waiting`](crate::Kernel::waiting)
//! gives it for the state as it stands, so the two agree after a pass. The
//! rules, by family:
//!
//! * **FCFS**: the head does not fit now ([`Reason::Processors`],
//!   [`Reason::NoLicense`] or [`Reason::NoMachine`], no expected start);
//!   every other job is [`Reason::Behind`] the head.
//! * **EASY family** (EASY, SJF-EASY, DPSA, BF_FCFS, BF_UNMOD, BF_MOD): the
//!   head does not fit now, with its shadow time as expected start; a job
//!   behind it that fits now without the head's reservation but not with
//!   it [`Reason::WouldDelay`] it; one that does not fit now even without
//!   it is short of processors, a license or a machine. DPSA: a job that
//!   fits now with the head's reservation after a pass whose search ran out
//!   of nodes is [`Reason::SearchBudget`].
//! * **Conservative family** (Conservative, its variants, CONS+RS): every
//!   job is [`Reason::Reserved`] at its reservation, its expected start.
//! * **Selective**: guaranteed jobs as Conservative; entry-queue jobs are
//!   [`Reason::NotPromoted`] until their promotion instant.
//!
//! Whatever the family, a job that the next pass would start (it fits now
//! under the rules, or its reservation has come) is [`Reason::Pending`].

use super::Engine;
use crate::plan::Slot;
use crate::reason::{ExpectedStart, Reason, Waiting};
use crate::state::{Observer, QueuedJob, State};
use crate::types::{Job, Procs, Time};

/// Which rules give the reasons.
#[derive(Clone, Copy, Debug)]
enum Family {
    /// FCFS.
    Strict,
    /// The EASY family; DPSA after a search that ran out of its budget
    /// (`Some(nodes)`).
    Head { budget: Option<u32> },
    /// Every job holds a reservation.
    Reserved,
    /// Selective.
    Selective,
}

/// What the head of the queue is doing.
#[derive(Clone, Copy, Debug)]
enum Head {
    /// No job waits.
    Empty,
    /// The head fits now (the next pass starts it).
    Fits,
    /// The head does not fit now; its shadow slot (`None` when the plan
    /// could not say) and, with a tally, the processors it leaves spare.
    Waits {
        job: Job,
        shadow: Option<Slot>,
        spare: Procs,
    },
}

/// The policy's rules on one state, ready to explain each queued job.
pub(crate) struct View<
    'a,
    const Q: usize,
    const R: usize,
    const B: usize,
    const M: usize,
    const L: usize,
> {
    engine: &'a Engine,
    st: &'a State<Q, R, B, M, L>,
    family: Family,
    head: Head,
}

impl<'a, const Q: usize, const R: usize, const B: usize, const M: usize, const L: usize>
    View<'a, Q, R, B, M, L>
{
    /// The rules of `engine` on `st`.
    pub(crate) fn new(engine: &'a Engine, st: &'a State<Q, R, B, M, L>) -> Self {
        let family = match engine {
            Engine::Fcfs => Family::Strict,
            Engine::Easy(_) | Engine::Flexible(_) => Family::Head { budget: None },
            Engine::Dpsa(d) => Family::Head {
                budget: d.budget_ran_out(st.running.len()),
            },
            Engine::Conservative(_) | Engine::ConsRs(_) | Engine::ConsRsAlea(_) => Family::Reserved,
            Engine::Selective(_) => Family::Selective,
        };
        let mut view = Self {
            engine,
            st,
            family,
            head: Head::Empty,
        };
        if matches!(family, Family::Strict | Family::Head { .. }) {
            view.head = match st.queue.first() {
                None => Head::Empty,
                Some(q) if view.fits_now(&q.job) => Head::Fits,
                Some(q) => view.shadow(&q.job),
            };
        }
        view
    }

    /// Every queued job, explained, in queue order.
    pub(crate) fn waiting(self) -> impl Iterator<Item = Waiting> + 'a {
        let st = self.st;
        st.queue
            .iter()
            .enumerate()
            .map(move |(position, q)| self.explain(position, q))
    }

    /// Reports every queued job's reason by `engine`'s rules on `st` to
    /// `observer` (after a pass). Never inlined, so that a pass for an
    /// observer that wants no reasons does not carry this code.
    #[inline(never)]
    pub(crate) fn report(
        engine: &'a Engine,
        st: &'a State<Q, R, B, M, L>,
        observer: &mut impl Observer,
    ) {
        for waiting in Self::new(engine, st).waiting() {
            observer.waiting(&waiting);
        }
    }

    /// Queue entry `q` at `position`, explained.
    pub(crate) fn explain(&self, position: usize, q: &QueuedJob) -> Waiting {
        let (reason, expected) = match self.family {
            Family::Strict => (self.strict(position, &q.job), ExpectedStart::Unknown),
            Family::Head { budget } => self.behind_head(position, &q.job, budget),
            Family::Reserved => Self::reserved(q, self.st.now),
            Family::Selective => match q.reservation() {
                Some(_) => Self::reserved(q, self.st.now),
                None => (self.entry(&q.job), ExpectedStart::Unknown),
            },
        };
        Waiting {
            position,
            job: q.job,
            reason,
            expected,
        }
    }

    /// FCFS.
    fn strict(&self, position: usize, job: &Job) -> Reason {
        match (position, self.head) {
            (0, Head::Fits) => Reason::Pending,
            (0, _) => self.short(job, None),
            _ => self
                .st
                .queue
                .first()
                .map_or(Reason::Pending, |h| Reason::Behind { ahead: h.job.id }),
        }
    }

    /// The EASY family.
    fn behind_head(
        &self,
        position: usize,
        job: &Job,
        budget: Option<u32>,
    ) -> (Reason, ExpectedStart) {
        match self.head {
            Head::Empty | Head::Fits if self.fits_now(job) => {
                (Reason::Pending, ExpectedStart::Unknown)
            }
            Head::Empty | Head::Fits => (self.short(job, None), ExpectedStart::Unknown),
            Head::Waits { shadow, .. } if position == 0 => {
                let expected = shadow.map_or(ExpectedStart::Unknown, ExpectedStart::Shadow);
                (self.short(job, expected.time()), expected)
            }
            Head::Waits {
                job: head,
                shadow,
                spare,
            } => {
                let reason = if !self.fits_now(job) {
                    self.short(job, None)
                } else {
                    match shadow {
                        Some(slot) if !self.fits_beside(job, &head, &slot, spare) => {
                            Reason::WouldDelay {
                                holder: head.id,
                                start: slot.start,
                            }
                        }
                        _ => {
                            budget.map_or(Reason::Pending, |budget| Reason::SearchBudget { budget })
                        }
                    }
                };
                (reason, ExpectedStart::Unknown)
            }
        }
    }

    /// A job that may hold a reservation (Conservative family, Selective's
    /// guaranteed queue).
    fn reserved(q: &QueuedJob, now: Time) -> (Reason, ExpectedStart) {
        match q.reservation() {
            Some(slot) if slot.start > now => {
                (Reason::Reserved { slot }, ExpectedStart::Reservation(slot))
            }
            Some(slot) => (Reason::Pending, ExpectedStart::Reservation(slot)),
            None => (Reason::Pending, ExpectedStart::Unknown),
        }
    }

    /// Selective's entry queue.
    fn entry(&self, job: &Job) -> Reason {
        let at = self.engine.promotion_time(job);
        if at <= self.st.now || self.fits_now(job) {
            Reason::Pending
        } else {
            Reason::NotPromoted { at }
        }
    }

    /// What `job`, which does not fit now, is short of.
    fn short(&self, job: &Job, expected: Option<Time>) -> Reason {
        let st = self.st;
        if st.tally().is_some() {
            return Reason::Processors { expected };
        }
        for l in 0..st.cluster.pools().len() {
            if job.licenses.contains(l)
                && st.plan.license(l).is_some_and(|p| p.free_at(st.now) == 0)
            {
                let pool = u8::try_from(l).unwrap_or(u8::MAX);
                return Reason::NoLicense { pool, expected };
            }
        }
        if st.cluster.machines().len() > 1 {
            Reason::NoMachine { expected }
        } else {
            Reason::Processors { expected }
        }
    }

    /// Whether `job` fits now (the plan as it is, or the tally).
    fn fits_now(&self, job: &Job) -> bool {
        let st = self.st;
        match st.tally() {
            Some(tally) => {
                job.procs <= tally.free()
                    && tally
                        .machine()
                        .scale(job.estimate)
                        .and_then(|d| st.now.checked_add(d))
                        .is_some()
            }
            None => self.fits_on_plan(job, None),
        }
    }

    /// The head `job` (which does not fit now) with its shadow slot.
    fn shadow(&self, job: &Job) -> Head {
        let st = self.st;
        let (shadow, spare) = match st.tally() {
            Some(tally) => {
                let found = tally.shadow(job.procs);
                let duration = tally.machine().scale(job.estimate);
                match (found, duration) {
                    (Some((start, spare)), Some(duration)) => (
                        Some(Slot {
                            start,
                            machine: 0,
                            duration,
                        }),
                        spare,
                    ),
                    _ => (None, 0),
                }
            }
            None => (st.plan.earliest(&st.cluster, job, st.now).ok().flatten(), 0),
        };
        Head::Waits {
            job: *job,
            shadow,
            spare,
        }
    }

    /// Whether `job`, which fits now, also fits now with `head` reserved at
    /// `shadow` (which is not in the plan): EASY's backfill test.
    fn fits_beside(&self, job: &Job, head: &Job, shadow: &Slot, spare: Procs) -> bool {
        let st = self.st;
        if let Some(tally) = st.tally() {
            let end = tally
                .machine()
                .scale(job.estimate)
                .and_then(|d| st.now.checked_add(d));
            return end.is_some_and(|end| end <= shadow.start || job.procs <= spare);
        }
        self.fits_on_plan(job, Some((head, shadow)))
    }

    /// Whether `job` fits the plan now, with `head` reserved at `shadow`
    /// besides when given (it is not in the plan): `Plan::fit_now`'s test,
    /// written on the profiles here so that the passes' own calls to it
    /// are compiled as they were (a caller more changes how they inline).
    fn fits_on_plan(&self, job: &Job, head: Option<(&Job, &Slot)>) -> bool {
        let st = self.st;
        let now = st.now;
        let (hs, he) = head.map_or((now, now), |(_, s)| (s.start, s.end()));
        // The fewest units of `profile` free over the part of `[now, end)`
        // the head overlaps, less what the head takes there.
        let overlap_ok = |profile: &crate::profile::Profile<B>, end: Time, need: u32, take: u32| {
            let (a, b) = (now.max(hs), end.min(he));
            a >= b
                || profile
                    .min_free(a, b.saturating_sub(a))
                    .is_ok_and(|free| free >= need.saturating_add(take))
        };
        for &machine in st.cluster.order() {
            let index = usize::from(machine);
            if !st.cluster.eligible(job, index) {
                continue;
            }
            let (Some(cpus), Some(duration)) =
                (st.plan.machine(index), st.cluster.duration_on(job, index))
            else {
                continue;
            };
            let Some(end) = now.checked_add(duration) else {
                continue;
            };
            if !cpus.fits(now, duration, job.procs).unwrap_or(false) {
                continue;
            }
            if let Some((head, shadow)) = head {
                if machine == shadow.machine && !overlap_ok(cpus, end, job.procs, head.procs) {
                    continue;
                }
            }
            let licensed = (0..st.cluster.pools().len())
                .filter(|&l| job.licenses.contains(l))
                .all(|l| {
                    st.plan.license(l).is_some_and(|p| {
                        p.fits(now, duration, 1).unwrap_or(false)
                            && head.is_none_or(|(h, _)| {
                                !h.licenses.contains(l) || overlap_ok(p, end, 1, 1)
                            })
                    })
                });
            if licensed {
                return true;
            }
        }
        false
    }
}

#[cfg(test)]
mod tests {
    use crate::policy::Threshold;
    use crate::reason::{ExpectedStart, Reason, StartKind, Waiting};
    use crate::sim::fixtures::job;
    use crate::types::{Cluster, Job, LicenseSet, Machine};
    use crate::{Kernel, Observer, Policy, Slot};
    use std::vec::Vec;

    /// Records the reasons and start kinds a pass reports.
    #[derive(Default)]
    struct Log {
        waiting: Vec<Waiting>,
        starts: Vec<(u32, StartKind)>,
    }

    impl Observer for Log {
        fn wants_reasons(&self) -> bool {
            true
        }
        fn waiting(&mut self, waiting: &Waiting) {
            self.waiting.push(*waiting);
        }
        fn start_kind(&mut self, job: &Job, kind: StartKind) {
            self.starts.push((job.id, kind));
        }
    }

    /// Submits `jobs` at 0 and runs one pass; the pass's reasons are the
    /// query's, and every waiting job has one.
    fn pass<const M: usize, const L: usize>(
        mut k: Kernel<16, 16, 64, M, L>,
        jobs: &[Job],
    ) -> (Log, Kernel<16, 16, 64, M, L>) {
        for j in jobs {
            k.submit(0, *j, &mut ()).unwrap();
        }
        let mut log = Log::default();
        k.schedule(0, &mut log).unwrap();
        let query: Vec<Waiting> = k.waiting().collect();
        assert_eq!(log.waiting, query);
        assert_eq!(query.len(), k.queued().len());
        (log, k)
    }

    fn reasons(log: &Log) -> Vec<(u32, Reason)> {
        log.waiting.iter().map(|w| (w.job.id, w.reason)).collect()
    }

    /// Five processors: job 1 (3 wide, 100 s) runs; job 2 (5 wide) is the
    /// head; job 3 (1 wide, 50 s) backfills; job 4 (1 wide, 200 s) fits
    /// now but would delay job 2; job 5 (2 wide) finds too few processors.
    fn easy_jobs() -> [Job; 5] {
        [
            job(1).procs(3).estimate(100).job(),
            job(2).procs(5).estimate(100).job(),
            job(3).procs(1).estimate(50).job(),
            job(4).procs(1).estimate(200).job(),
            job(5).procs(2).estimate(10).job(),
        ]
    }

    #[test]
    fn fcfs_names_the_head_and_who_blocks_the_rest() {
        let k = Kernel::new(Cluster::<1, 0>::single(5).unwrap(), Policy::Fcfs);
        let (log, _) = pass(k, &easy_jobs());
        assert_eq!(log.starts, [(1, StartKind::InOrder)]);
        assert_eq!(
            reasons(&log),
            [
                (2, Reason::Processors { expected: None }),
                (3, Reason::Behind { ahead: 2 }),
                (4, Reason::Behind { ahead: 2 }),
                (5, Reason::Behind { ahead: 2 }),
            ]
        );
        assert!(log
            .waiting
            .iter()
            .all(|w| w.expected == ExpectedStart::Unknown));
    }

    #[test]
    fn easy_gives_the_head_its_shadow_time_with_a_tally_or_a_plan() {
        let cluster = Cluster::<1, 0>::single(5).unwrap();
        for k in [
            Kernel::new(cluster.clone(), Policy::Easy),
            Kernel::new_with_plan(cluster.clone(), Policy::Easy),
        ] {
            let (log, _) = pass(k, &easy_jobs());
            assert_eq!(
                log.starts,
                [(1, StartKind::InOrder), (3, StartKind::Backfilled)]
            );
            assert_eq!(
                reasons(&log),
                [
                    (
                        2,
                        Reason::Processors {
                            expected: Some(100)
                        }
                    ),
                    (
                        4,
                        Reason::WouldDelay {
                            holder: 2,
                            start: 100
                        }
                    ),
                    (5, Reason::Processors { expected: None }),
                ]
            );
            let shadow = Slot {
                start: 100,
                machine: 0,
                duration: 100,
            };
            assert_eq!(log.waiting[0].expected, ExpectedStart::Shadow(shadow));
            assert_eq!(log.waiting[1].expected, ExpectedStart::Unknown);
        }
    }

    /// After job 1 ends, before the next pass, the query says the head is
    /// pending: it fits now.
    #[test]
    fn between_passes_the_query_answers_for_the_state_as_it_stands() {
        let k = Kernel::new(Cluster::<1, 0>::single(5).unwrap(), Policy::Easy);
        let (_, mut k) = pass(k, &easy_jobs());
        k.complete(40, 3).unwrap();
        k.complete(60, 1).unwrap();
        let first = k.waiting().next().unwrap();
        assert_eq!((first.job.id, first.reason), (2, Reason::Pending));
    }

    /// Job 1 and job 3 start; job 2 is reserved at 100, job 4 (200 s, which
    /// would overlap job 2) at 200, job 5 at 50 (when job 3 ends).
    #[test]
    fn conservative_reasons_are_the_reservations() {
        let k = Kernel::new(Cluster::<1, 0>::single(5).unwrap(), Policy::Conservative);
        let (log, k) = pass(k, &easy_jobs());
        assert_eq!(
            log.starts,
            [(1, StartKind::AtReservation), (3, StartKind::AtReservation)]
        );
        let starts: Vec<(u32, Option<u32>)> = log
            .waiting
            .iter()
            .map(|w| (w.job.id, w.expected.time()))
            .collect();
        assert_eq!(starts, [(2, Some(100)), (4, Some(200)), (5, Some(50))]);
        for (w, q) in log.waiting.iter().zip(k.queued()) {
            let slot = q.reservation().unwrap();
            assert_eq!(w.reason, Reason::Reserved { slot });
            assert_eq!(w.expected, ExpectedStart::Reservation(slot));
        }
    }

    /// An early completion moves job 2's reservation up: it starts
    /// compressed.
    #[test]
    fn a_start_moved_up_by_compression_says_so() {
        let mut k: Kernel<16, 16, 64> =
            Kernel::new(Cluster::<1, 0>::single(5).unwrap(), Policy::Conservative);
        k.submit(0, job(1).procs(4).estimate(100).job(), &mut ())
            .unwrap();
        k.submit(0, job(2).procs(4).estimate(100).job(), &mut ())
            .unwrap();
        let mut log = Log::default();
        k.schedule(0, &mut log).unwrap();
        k.complete(30, 1).unwrap();
        k.schedule(30, &mut log).unwrap();
        assert_eq!(
            log.starts,
            [(1, StartKind::AtReservation), (2, StartKind::Compressed)]
        );
    }

    /// Selective with threshold 2: a job of estimate 100 submitted at 0 is
    /// promoted at 100.
    #[test]
    fn selective_entry_jobs_wait_for_their_promotion() {
        let k = Kernel::new(
            Cluster::<1, 0>::single(5).unwrap(),
            Policy::Selective(Threshold::Fixed(2000)),
        );
        let (log, _) = pass(
            k,
            &[
                job(1).procs(4).estimate(300).job(),
                job(2).procs(2).estimate(100).job(),
            ],
        );
        assert_eq!(reasons(&log), [(2, Reason::NotPromoted { at: 100 })]);
    }

    /// Two machines of 2 processors and one license: a job needing the
    /// license waits for it; a job wider than what is free anywhere waits
    /// for a machine.
    #[test]
    fn farms_name_the_license_or_the_machines() {
        let cluster: Cluster<2, 1> =
            Cluster::with_one_license(&[Machine::new(2), Machine::new(2)], 1);
        let k = Kernel::new(cluster, Policy::BfFcfs);
        let licensed = |id| job(id).procs(1).estimate(100).licenses(LicenseSet(1)).job();
        let (log, _) = pass(
            k,
            &[
                licensed(1),
                job(2).procs(2).estimate(100).job(),
                job(3).procs(2).estimate(100).job(),
                licensed(4),
            ],
        );
        assert_eq!(
            reasons(&log),
            [
                (
                    3,
                    Reason::NoMachine {
                        expected: Some(100)
                    }
                ),
                (
                    4,
                    Reason::NoLicense {
                        pool: 0,
                        expected: None
                    }
                ),
            ]
        );
    }
}
