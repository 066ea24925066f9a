//! The plan: one availability profile per machine and one per license pool.
//!
//! A job placed at a [`Slot`] holds `procs` processors of the slot's machine
//! and one copy of each license it needs over `[start, start + duration)`,
//! where the duration is the job's estimate scaled by the machine's speed.
//! [`Plan::earliest`] finds the earliest slot over all eligible machines: for
//! one machine, the machine's profile and every needed license profile are
//! asked in turn for their earliest fit from the current candidate time until
//! all agree (the candidate only moves later, over finitely many steps, so
//! this ends). Equal start times go to the fastest machine, then the lowest
//! index, so farm policies use "the first available most powerful machine".

use crate::profile::{Profile, ProfileError};
use crate::types::{Cluster, Duration, Job, MachineId, Time};

/// Where and when a job runs (or is reserved to run).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Slot {
    /// Start time.
    pub start: Time,
    /// Machine index.
    pub machine: MachineId,
    /// How long the job holds its resources there (its estimate, scaled by speed).
    pub duration: Duration,
}

impl Slot {
    /// No slot at all: what a job that holds nothing passes as its own slot
    /// to [`Plan::earliest_before`] (it begins at the end of time).
    pub const NOTHING: Self = Self {
        start: Time::MAX,
        machine: 0,
        duration: 0,
    };

    /// `start + duration`, saturating (a slot is only built when this fits).
    #[must_use]
    #[inline]
    pub const fn end(&self) -> Time {
        self.start.saturating_add(self.duration)
    }
}

/// Availability of every machine and license pool of a cluster.
#[derive(Clone, Debug)]
pub struct Plan<const B: usize, const M: usize, const L: usize> {
    machines: Profiles<B, M>,
    licenses: Profiles<B, L>,
}

/// The profiles of one kind of resource: room for `N`, the first `len` of
/// which are the cluster's (read as a slice of those). All `N` are always
/// there, so that [`Plan::renew`] sets a plan up for another cluster without
/// building a profile outside it: a profile of a deep kernel is hundreds of
/// kilobytes, more than a firmware stack holds.
#[derive(Clone)]
struct Profiles<const B: usize, const N: usize> {
    all: [Profile<B>; N],
    len: usize,
}

impl<const B: usize, const N: usize> Profiles<B, N> {
    /// One profile per capacity, all free from time 0.
    #[inline(always)]
    fn new(capacities: impl Iterator<Item = u32>) -> Self {
        let mut profiles = Self {
            all: core::array::from_fn(|_| Profile::new(0)),
            len: 0,
        };
        profiles.renew(capacities);
        profiles
    }

    /// As [`Profiles::new`], in place: the first profiles are renewed where
    /// they are; capacities past `N` are ignored (a cluster has at most `N`).
    fn renew(&mut self, capacities: impl Iterator<Item = u32>) {
        self.len = 0;
        for (profile, capacity) in self.all.iter_mut().zip(capacities) {
            profile.renew(capacity);
            self.len = self.len.saturating_add(1);
        }
    }
}

impl<const B: usize, const N: usize> core::ops::Deref for Profiles<B, N> {
    type Target = [Profile<B>];

    fn deref(&self) -> &[Profile<B>] {
        self.all.get(..self.len).unwrap_or_default()
    }
}

impl<const B: usize, const N: usize> core::ops::DerefMut for Profiles<B, N> {
    fn deref_mut(&mut self) -> &mut [Profile<B>] {
        self.all.get_mut(..self.len).unwrap_or_default()
    }
}

/// The cluster's profiles only (the spare ones are never read).
impl<const B: usize, const N: usize> core::fmt::Debug for Profiles<B, N> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_list().entries(self.iter()).finish()
    }
}

/// Undoes a [`Profile::shift_earlier`] of `amount` units from `old` to
/// `new`: takes `[new end, old end)` again and gives back `[new start, old
/// start)`. It restores the steps that were there, and every step it needs
/// on the way is one the shift checked it had room for: it cannot fail.
fn shift_back<const B: usize>(profile: &mut Profile<B>, old: &Slot, new: &Slot, amount: u32) {
    let _ = profile.reserve(new.end(), old.end().saturating_sub(new.end()), amount);
    let _ = profile.release(new.start, old.start.saturating_sub(new.start), amount);
}

impl<const B: usize, const M: usize, const L: usize> Plan<B, M, L> {
    /// All resources of `cluster` free from time 0.
    #[must_use]
    #[inline(always)]
    pub fn new(cluster: &Cluster<M, L>) -> Self {
        Self {
            machines: Profiles::new(cluster.machines().iter().map(|m| m.cpus)),
            licenses: Profiles::new(cluster.pools().iter().map(|l| l.count)),
        }
    }

    /// The processor profile of machine `machine`.
    #[must_use]
    pub fn machine(&self, machine: usize) -> Option<&Profile<B>> {
        self.machines.get(machine)
    }

    /// The profile of license pool `pool`.
    #[must_use]
    pub fn license(&self, pool: usize) -> Option<&Profile<B>> {
        self.licenses.get(pool)
    }

    /// The plan of `cluster` with all its resources free from time 0, in
    /// place: the plan is then what [`Plan::new`] returns, and the profiles
    /// it already holds are reused rather than built again.
    pub fn renew(&mut self, cluster: &Cluster<M, L>) {
        self.machines
            .renew(cluster.machines().iter().map(|m| m.cpus));
        self.licenses.renew(cluster.pools().iter().map(|l| l.count));
    }

    /// Everything free again from `origin` on.
    pub fn reset(&mut self, origin: Time) {
        for p in self.machines.iter_mut().chain(self.licenses.iter_mut()) {
            p.reset(origin);
        }
    }

    /// Forgets everything before `now` in every profile.
    pub fn advance(&mut self, now: Time) {
        for p in self.machines.iter_mut().chain(self.licenses.iter_mut()) {
            p.advance(now);
        }
    }

    /// Earliest start at or after `from` on machine `machine` (which must be
    /// eligible for `job`), for `duration` seconds.
    pub(crate) fn earliest_on(
        &self,
        job: &Job,
        machine: usize,
        from: Time,
        duration: Duration,
    ) -> Result<Option<Time>, ProfileError> {
        let Some(cpus) = self.machines.get(machine) else {
            return Ok(None);
        };
        let mut t = from;
        loop {
            let Some(mut next) = cpus.earliest_fit(t, duration, job.procs)? else {
                return Ok(None);
            };
            for (pool, profile) in self.licenses.iter().enumerate() {
                if job.licenses.contains(pool) {
                    match profile.earliest_fit(next, duration, 1)? {
                        Some(at) => next = next.max(at),
                        None => return Ok(None),
                    }
                }
            }
            if next == t {
                return Ok(Some(t));
            }
            t = next;
        }
    }

    /// The earliest slot at or after `from` over every eligible machine, or
    /// `None` when no machine can ever run the job.
    ///
    /// # Errors
    /// [`ProfileError::TimeOverflow`] when the search runs past the end of time.
    pub fn earliest(
        &self,
        cluster: &Cluster<M, L>,
        job: &Job,
        from: Time,
    ) -> Result<Option<Slot>, ProfileError> {
        let mut best: Option<Slot> = None;
        for &machine in cluster.order() {
            let index = usize::from(machine);
            if !cluster.eligible(job, index) {
                continue;
            }
            let Some(duration) = cluster.duration_on(job, index) else {
                continue;
            };
            let limit = best.map_or(Time::MAX, |b| b.start);
            if let Some(start) = self.earliest_on(job, index, from, duration)? {
                if best.is_none() || start < limit {
                    best = Some(Slot {
                        start,
                        machine,
                        duration,
                    });
                    if start == from {
                        break; // nothing can start earlier
                    }
                }
            }
        }
        Ok(best)
    }

    /// A slot for `job`, which holds `own` in the plan, that starts at or
    /// after `from` and strictly before `limit`, as if `own` were given back
    /// first; `None` when there is none. The plan is not changed: this is how
    /// compression tests whether a reservation can move earlier. For a job
    /// that holds nothing pass [`Slot::NOTHING`]: then this is
    /// [`Plan::earliest`] stopped at `limit`.
    ///
    /// # Errors
    /// [`ProfileError::TimeOverflow`] when the search runs past the end of time.
    pub fn earliest_before(
        &self,
        cluster: &Cluster<M, L>,
        job: &Job,
        own: &Slot,
        from: Time,
        limit: Time,
    ) -> Result<Option<Slot>, ProfileError> {
        let mut best: Option<Slot> = None;
        let mut limit = limit;
        for &machine in cluster.order() {
            let index = usize::from(machine);
            if !cluster.eligible(job, index) {
                continue;
            }
            let (Some(cpus), Some(duration)) =
                (self.machines.get(index), cluster.duration_on(job, index))
            else {
                continue;
            };
            // The job holds its processors on its own machine, and one copy
            // of each license, from `own.start` on.
            let cpu_held = if machine == own.machine {
                own.start
            } else {
                Time::MAX
            };
            // On a slower machine the window outlasts the held licenses; it is
            // then checked without that credit (never wrong, at worst a move
            // to a slower machine is missed and the reservation stays).
            let license_held = if duration <= own.duration {
                own.start
            } else {
                Time::MAX
            };
            let mut t = from;
            let found = 'search: loop {
                let Some(mut next) =
                    cpus.earliest_fit_before(t, duration, job.procs, cpu_held, limit)?
                else {
                    break 'search None;
                };
                for (pool, profile) in self.licenses.iter().enumerate() {
                    if job.licenses.contains(pool) {
                        match profile.earliest_fit_before(next, duration, 1, license_held, limit)? {
                            Some(at) => next = next.max(at),
                            None => break 'search None,
                        }
                    }
                }
                if next == t {
                    break 'search Some(t);
                }
                t = next;
            };
            if let Some(start) = found {
                best = Some(Slot {
                    start,
                    machine,
                    duration,
                });
                limit = start;
                if start == from {
                    break;
                }
            }
        }
        Ok(best)
    }

    /// A slot starting exactly at `now`, if `job` fits now anywhere.
    ///
    /// # Errors
    /// [`ProfileError::TimeOverflow`] when the job's end does not fit in a [`Time`].
    pub fn fit_now(
        &self,
        cluster: &Cluster<M, L>,
        job: &Job,
        now: Time,
    ) -> Result<Option<Slot>, ProfileError> {
        for &machine in cluster.order() {
            let index = usize::from(machine);
            let Some(cpus) = self.machines.get(index) else {
                continue;
            };
            // Cheap test first: processors free at this instant.
            if cpus.free_at(now) < job.procs || !cluster.eligible(job, index) {
                continue;
            }
            let Some(duration) = cluster.duration_on(job, index) else {
                continue;
            };
            if !cpus.fits(now, duration, job.procs)? {
                continue;
            }
            let mut licensed = true;
            for (pool, profile) in self.licenses.iter().enumerate() {
                if job.licenses.contains(pool) && !profile.fits(now, duration, 1)? {
                    licensed = false;
                    break;
                }
            }
            if licensed {
                return Ok(Some(Slot {
                    start: now,
                    machine,
                    duration,
                }));
            }
        }
        Ok(None)
    }

    /// The most processors free anywhere in `[start, end)` on any machine.
    #[must_use]
    pub fn most_free_between(&self, start: Time, end: Time) -> u32 {
        self.machines
            .iter()
            .map(|p| p.max_free(start, end))
            .max()
            .unwrap_or(0)
    }

    /// The most processors free at `now` on any one machine.
    #[must_use]
    pub fn most_free_now(&self, now: Time) -> u32 {
        self.machines
            .iter()
            .map(|p| p.free_at(now))
            .max()
            .unwrap_or(0)
    }

    /// Takes the job's resources over the slot; all or nothing.
    ///
    /// # Errors
    /// The first [`ProfileError`]; the plan is unchanged then.
    pub fn reserve(&mut self, job: &Job, slot: &Slot) -> Result<(), ProfileError> {
        let machine = usize::from(slot.machine);
        let cpus = self
            .machines
            .get_mut(machine)
            .ok_or(ProfileError::Insufficient)?;
        cpus.reserve(slot.start, slot.duration, job.procs)?;
        for pool in 0..self.licenses.len() {
            if !job.licenses.contains(pool) {
                continue;
            }
            let result = match self.licenses.get_mut(pool) {
                Some(p) => p.reserve(slot.start, slot.duration, 1),
                None => Err(ProfileError::Insufficient),
            };
            if let Err(e) = result {
                // Roll back what was taken; giving back what was just taken cannot fail.
                for undo in 0..pool {
                    if job.licenses.contains(undo) {
                        if let Some(p) = self.licenses.get_mut(undo) {
                            let _ = p.release(slot.start, slot.duration, 1);
                        }
                    }
                }
                if let Some(p) = self.machines.get_mut(machine) {
                    let _ = p.release(slot.start, slot.duration, job.procs);
                }
                return Err(e);
            }
        }
        Ok(())
    }

    /// Gives back the job's resources over the part of the slot from `from` on.
    ///
    /// # Errors
    /// The first [`ProfileError`] (only with inconsistent bookkeeping).
    pub fn release_from(&mut self, job: &Job, slot: &Slot, from: Time) -> Result<(), ProfileError> {
        let start = slot.start.max(from);
        let end = slot.end();
        if end <= start {
            return Ok(());
        }
        let duration = end.saturating_sub(start);
        if let Some(p) = self.machines.get_mut(usize::from(slot.machine)) {
            p.release(start, duration, job.procs)?;
        }
        for (pool, p) in self.licenses.iter_mut().enumerate() {
            if job.licenses.contains(pool) {
                p.release(start, duration, 1)?;
            }
        }
        Ok(())
    }

    /// Moves `job` from `old` to `new` on the same machine when `new`
    /// begins earlier and overlaps `old`: its processors and each license it
    /// holds by [`Profile::shift_earlier`] (one search, two short updates),
    /// which leaves the plan as giving back `old` and taking `new` would.
    /// Returns the most processors free in `[new end, old end)`, where the
    /// move gave room back, on the machines that room can serve: the job's
    /// own, or every machine when it gave back licenses (a job elsewhere
    /// may use them). `None`, having changed nothing, for any other move.
    ///
    /// # Errors
    /// As [`Profile::shift_earlier`]; the plan is unchanged then.
    #[inline]
    pub fn shift_earlier(
        &mut self,
        job: &Job,
        old: &Slot,
        new: &Slot,
    ) -> Result<Option<u32>, ProfileError> {
        let overlaps = new.start < old.start && old.start < new.end();
        if !overlaps || new.machine != old.machine || new.duration != old.duration {
            return Ok(None);
        }
        let machine = usize::from(old.machine);
        let Some(cpus) = self.machines.get_mut(machine) else {
            return Ok(None);
        };
        let mut most = cpus.shift_earlier(old.start, new.start, new.duration, job.procs)?;
        for pool in 0..self.licenses.len() {
            if !job.licenses.contains(pool) {
                continue;
            }
            let shifted = match self.licenses.get_mut(pool) {
                Some(copies) => copies.shift_earlier(old.start, new.start, new.duration, 1),
                None => Ok(0),
            };
            if let Err(e) = shifted {
                // Back where they were: the processors and the licenses
                // shifted before this one.
                if let Some(cpus) = self.machines.get_mut(machine) {
                    shift_back(cpus, old, new, job.procs);
                }
                for done in (0..pool).filter(|&p| job.licenses.contains(p)) {
                    if let Some(copies) = self.licenses.get_mut(done) {
                        shift_back(copies, old, new, 1);
                    }
                }
                return Err(e);
            }
            most = self.most_free_between(new.end(), old.end());
        }
        Ok(Some(most))
    }

    /// Sets the plan up for `cluster` holding, from `origin` on, what the
    /// jobs of `holdings()` hold at their slots (each as [`Plan::reserve`]
    /// takes it; the part of a slot before `origin` is history), as the
    /// kernel's own calls would have left it: the plan of a restored
    /// checkpoint, which keeps no plan but the jobs it holds for. The jobs
    /// are reserved one by one, in the order given; when a profile runs out
    /// of steps on the way (a step a later job would merge away), every
    /// profile is built again by a sweep in time order
    /// ([`Profile::rebuild`]), which needs room for the result only.
    ///
    /// # Errors
    /// [`ProfileError::Insufficient`] when the jobs hold more than a machine
    /// or pool has at some instant, [`ProfileError::Full`] when a profile
    /// needs more than `B` steps, or [`ProfileError::TimeOverflow`]. The
    /// plan is then the cluster's, all free from `origin` on.
    pub(crate) fn rebuild<I>(
        &mut self,
        cluster: &Cluster<M, L>,
        origin: Time,
        holdings: impl Fn() -> I,
    ) -> Result<(), ProfileError>
    where
        I: Iterator<Item = (Job, Slot)>,
    {
        let from_origin = |slot: &Slot| {
            let start = slot.start.max(origin);
            let end = slot.start.checked_add(slot.duration)?;
            (start < end).then_some((start, end))
        };
        self.renew(cluster);
        self.advance(origin);
        let mut one_by_one = Ok(());
        for (job, slot) in holdings() {
            let Some((start, end)) = from_origin(&slot) else {
                if slot.start.checked_add(slot.duration).is_none() {
                    one_by_one = Err(ProfileError::TimeOverflow);
                    break;
                }
                continue;
            };
            let held = Slot {
                start,
                duration: end.saturating_sub(start),
                ..slot
            };
            one_by_one = self.reserve(&job, &held);
            if one_by_one.is_err() {
                break;
            }
        }
        let result = match one_by_one {
            Err(ProfileError::Full) => self.sweep(cluster, origin, &holdings),
            other => other,
        };
        if result.is_err() {
            self.renew(cluster);
            self.advance(origin);
        }
        result
    }

    /// [`Plan::rebuild`]'s second way: every profile built by a sweep in
    /// time order ([`Profile::rebuild`]), whatever the jobs' order.
    fn sweep<I>(
        &mut self,
        cluster: &Cluster<M, L>,
        origin: Time,
        holdings: &impl Fn() -> I,
    ) -> Result<(), ProfileError>
    where
        I: Iterator<Item = (Job, Slot)>,
    {
        self.renew(cluster);
        self.advance(origin);
        // A slot on no machine of the cluster is refused, as reserving it
        // is (the sweeps would pass over it).
        let count = self.machines.len();
        if holdings().any(|(_, slot)| usize::from(slot.machine) >= count) {
            return Err(ProfileError::Insufficient);
        }
        let held = move |slot: &Slot| {
            let start = slot.start.max(origin);
            let end = slot.start.checked_add(slot.duration)?;
            (start < end).then_some((start, end))
        };
        for (m, profile) in self.machines.iter_mut().enumerate() {
            profile.rebuild(origin, || {
                holdings().filter_map(move |(job, slot)| {
                    let (start, end) = held(&slot)?;
                    (usize::from(slot.machine) == m).then_some((start, end, job.procs))
                })
            })?;
        }
        for (l, profile) in self.licenses.iter_mut().enumerate() {
            profile.rebuild(origin, || {
                holdings().filter_map(move |(job, slot)| {
                    let (start, end) = held(&slot)?;
                    job.licenses.contains(l).then_some((start, end, 1))
                })
            })?;
        }
        Ok(())
    }

    /// The step storage of the first machine's profile as scratch space
    /// ([`Profile::scratch`]); the plan must be rebuilt after it is used.
    pub(crate) fn scratch(&mut self) -> Option<&mut heapless::Vec<crate::profile::Step, B>> {
        self.machines.all.first_mut().map(Profile::scratch)
    }

    /// Checks every profile's invariants.
    ///
    /// # Errors
    /// The first broken invariant.
    pub fn validate(&self) -> Result<(), ProfileError> {
        for p in self.machines.iter().chain(self.licenses.iter()) {
            p.validate()?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sim::fixtures::{job, AtSpeed};
    use crate::types::Machine;
    use std::format;

    /// A used plan renewed for another cluster (fewer machines, a license
    /// pool more) is the new plan of that cluster, and again for more
    /// machines.
    #[test]
    fn renew_gives_the_new_plan_of_the_cluster() {
        let machine = |cpus| Machine { cpus, speed: 1000 };
        let three: Cluster<3, 1> =
            Cluster::new(&[machine(4), machine(8), machine(2)], &[]).unwrap();
        let mut plan: Plan<16, 3, 1> = Plan::new(&three);
        plan.reserve(
            &job(1).procs(3).estimate(50).job(),
            &Slot {
                start: 10,
                machine: 1,
                duration: 50,
            },
        )
        .unwrap();
        plan.advance(5);
        let two: Cluster<3, 1> = Cluster::with_one_license(&[machine(6), machine(1)], 2);
        plan.renew(&two);
        assert_eq!(
            format!("{plan:?}"),
            format!("{:?}", Plan::<16, 3, 1>::new(&two))
        );
        // The third machine's profile is kept for later, never read.
        assert!(plan.machine(1).is_some() && plan.machine(2).is_none());
        assert_eq!(plan.license(0).map(Profile::capacity), Some(2));
        plan.renew(&three);
        assert_eq!(
            format!("{plan:?}"),
            format!("{:?}", Plan::<16, 3, 1>::new(&three))
        );
    }

    /// A fast machine (first in `Cluster::order`) busy until 100, a slow one
    /// idle: the earliest slot is on the slow machine now, not on the fast
    /// one later, though the fast one is searched first.
    #[test]
    fn earliest_looks_past_the_first_machine_in_order() {
        let cluster: Cluster<2, 0> =
            Cluster::new(&[Machine::new(4), Machine::new(4).at_speed(2000)], &[]).unwrap();
        assert_eq!(cluster.order(), &[1, 0]);
        let mut plan: Plan<16, 2, 0> = Plan::new(&cluster);
        let busy = job(1).procs(4).estimate(200).job();
        let fast_busy = Slot {
            start: 0,
            machine: 1,
            duration: 100,
        };
        plan.reserve(&busy, &fast_busy).unwrap();
        let job = job(2).procs(4).estimate(100).job();
        let now = Slot {
            start: 0,
            machine: 0,
            duration: 100,
        };
        assert_eq!(plan.earliest(&cluster, &job, 0).unwrap(), Some(now));
        // From 100 on both are free: the tie goes to the fast machine.
        let fast = Slot {
            start: 100,
            machine: 1,
            duration: 50,
        };
        assert_eq!(plan.earliest(&cluster, &job, 100).unwrap(), Some(fast));
        // The same through `earliest_before`, for a job that holds nothing.
        assert_eq!(
            plan.earliest_before(&cluster, &job, &Slot::NOTHING, 0, Time::MAX)
                .unwrap(),
            Some(now)
        );
        assert_eq!(
            plan.earliest_before(&cluster, &job, &Slot::NOTHING, 0, 0)
                .unwrap(),
            None
        );
    }

    /// A job holding the only copy of a license from 100 on may move to 50:
    /// its window then overlaps its own hold, which `earliest_before`
    /// counts as free for the processors and for the license alike.
    #[test]
    fn earliest_before_credits_the_jobs_own_license() {
        use crate::types::LicenseSet;
        let cluster: Cluster<1, 1> = Cluster::with_one_license(&[Machine::new(4)], 1);
        let mut plan: Plan<16, 1, 1> = Plan::new(&cluster);
        let mut job = job(1).procs(4).estimate(100).job();
        job.licenses = LicenseSet(1);
        let own = Slot {
            start: 100,
            machine: 0,
            duration: 100,
        };
        plan.reserve(&job, &own).unwrap();
        let moved = Slot {
            start: 50,
            machine: 0,
            duration: 100,
        };
        assert_eq!(
            plan.earliest_before(&cluster, &job, &own, 50, 100).unwrap(),
            Some(moved)
        );
        // Without the credit (another job, same needs) nothing fits before 200.
        let mut other = job;
        other.id = 2;
        assert_eq!(
            plan.earliest_before(&cluster, &other, &Slot::NOTHING, 50, 200)
                .unwrap(),
            None
        );
    }

    /// `shift_earlier` moves a job only on its machine, to an earlier slot
    /// that overlaps its own, and then leaves what release-then-reserve
    /// leaves, licenses included; it tells the most free where room came
    /// back (on every machine once a license came back). Any other move is
    /// `None`, and a move its license does not allow is refused; both
    /// change nothing.
    #[test]
    fn shift_earlier_takes_only_overlapping_moves() {
        use crate::types::LicenseSet;
        let machine = Machine::new(4);
        let cluster: Cluster<2, 1> = Cluster::with_one_license(&[machine, machine], 1);
        let slot = |start, machine| Slot {
            start,
            machine,
            duration: 100,
        };
        let mover = job(1).procs(3).estimate(100);
        let licensed = mover.licenses(LicenseSet(1)).job();
        let mover = mover.job();
        let own = slot(100, 0);
        for (who, to) in [
            (mover, slot(50, 1)),
            (mover, slot(0, 0)),
            (mover, slot(100, 0)),
            (mover, slot(150, 0)),
            (
                mover,
                Slot {
                    duration: 90,
                    ..slot(50, 0)
                },
            ),
        ] {
            let mut plan: Plan<16, 2, 1> = Plan::new(&cluster);
            plan.reserve(&who, &own).unwrap();
            let before = format!("{plan:?}");
            assert_eq!(plan.shift_earlier(&who, &own, &to), Ok(None), "{to:?}");
            assert_eq!(format!("{plan:?}"), before);
        }
        let mut plan: Plan<16, 2, 1> = Plan::new(&cluster);
        plan.reserve(&mover, &own).unwrap();
        let other = Slot {
            start: 0,
            machine: 0,
            duration: 300,
        };
        plan.reserve(&job(2).procs(1).estimate(300).job(), &other)
            .unwrap();
        let mut expected = plan.clone();
        expected.release_from(&mover, &own, 0).unwrap();
        expected.reserve(&mover, &slot(50, 0)).unwrap();
        // Freed: [150, 200), where job 2 still holds 1 of the 4.
        assert_eq!(plan.shift_earlier(&mover, &own, &slot(50, 0)), Ok(Some(3)));
        assert_eq!(format!("{plan:?}"), format!("{expected:?}"));
        // With its license: machine 1 is all free in [150, 200).
        let mut plan: Plan<16, 2, 1> = Plan::new(&cluster);
        plan.reserve(&licensed, &own).unwrap();
        plan.reserve(&job(2).procs(1).estimate(300).job(), &other)
            .unwrap();
        let mut expected = plan.clone();
        expected.release_from(&licensed, &own, 0).unwrap();
        expected.reserve(&licensed, &slot(50, 0)).unwrap();
        assert_eq!(
            plan.shift_earlier(&licensed, &own, &slot(50, 0)),
            Ok(Some(4))
        );
        assert_eq!(format!("{plan:?}"), format!("{expected:?}"));
        // The license is held by another job on machine 1 until 60: the
        // processors have room from 50, the license not.
        let mut plan: Plan<16, 2, 1> = Plan::new(&cluster);
        plan.reserve(&licensed, &own).unwrap();
        let holder = job(3).procs(1).estimate(60).licenses(LicenseSet(1)).job();
        plan.reserve(
            &holder,
            &Slot {
                duration: 60,
                ..slot(0, 1)
            },
        )
        .unwrap();
        let before = format!("{plan:?}");
        assert_eq!(
            plan.shift_earlier(&licensed, &own, &slot(50, 0)),
            Err(ProfileError::Insufficient)
        );
        assert_eq!(format!("{plan:?}"), before);
    }
}
