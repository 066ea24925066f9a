//! Conservative backfilling: a reservation for every job.
//!
//! Rules (`docs/design.md`, "Conservative"):
//!
//! * every job gets a reservation on arrival, at the earliest time it fits
//!   the current plan (running jobs until their estimated ends, and every
//!   reservation made before it), and starts at its reservation;
//! * after every instant with a completion (an early one leaves a gap; an
//!   on-time one may let a job use room that another vacated in the previous
//!   pass) the plan is compressed once: in queue order each waiting job is
//!   taken out and put back at its earliest feasible start, which is never
//!   later than before. A reservation is a guarantee: it never moves later.
//!
//! Pending reasons (`docs/design.md`, "Pending reasons"): every waiting job
//! is reserved at its reservation, which is its expected start; a job
//! starts at its reservation, or moved up by compression when that is
//! earlier than its first one.
//!
//! Source: A. W. Mu'alem and D. G. Feitelson, *Utilization, predictability,
//! workloads, and user runtime estimates in scheduling the IBM SP2 with
//! backfilling*, IEEE TPDS 12(6), 2001 (the compression pass as in pyss and
//! the other reference simulators).
//!
//! The compression pass and the start of due reservations are also the
//! guaranteed queue of [Selective reservation](super::selective) and the base
//! of [CONS+RS](super::cons_rs), which use [`Compression`] and
//! [`State::pass_reserved`] from here; every policy of the family
//! ([`Reserves`]) follows Conservative's rules at arrivals and passes.
//!
//! *Conservative without compression* ([`Policy::ConservativeNoCompression`](crate::Policy::ConservativeNoCompression))
//! is the plainest variant: reservations made at arrival are never
//! revisited; a baseline only (the CONS+RS paper's CONS figures look like
//! it).
//!
//! # Pruning, exact
//!
//! When a job was last placed (at its arrival, or in the previous pass) no
//! earlier start fitted. Time passing frees nothing, so an earlier window can
//! only fit now if it overlaps capacity freed since then: an early completion
//! (`[now, estimated end)`) or a job that moved (its old slot). Every queued
//! job was placed after the previous pass began, so a pass looks only at
//! windows overlapping an interval freed since then ([`Freed`]: a few
//! intervals, or their hull).

use super::Rules;
use crate::plan::Slot;
use crate::state::{KernelError, Observer, Pass, QueuedJob, State};
use crate::types::{Job, Time};
use heapless::Vec;

/// Conservative's memory between calls: its compression bookkeeping.
#[derive(Clone, Debug, Default)]
pub(crate) struct Conservative {
    pub(crate) compression: Compression,
    /// The baseline without compression: reservations made at arrival are
    /// never revisited.
    pub(crate) static_plan: bool,
    /// The "rebuild" compression ([`super::rebuild`]) in place of the
    /// queue-order pass.
    pub(crate) rebuild: Option<super::rebuild::Rebuild>,
}

impl Conservative {
    /// `job` completed at `now` and the plan released it: a compression pass
    /// is due, unless this is the baseline without compression.
    pub(crate) fn completed<const B: usize, const M: usize, const L: usize>(
        &mut self,
        plan: &crate::plan::Plan<B, M, L>,
        slot: &Slot,
        now: Time,
    ) {
        if let Some(rebuild) = &mut self.rebuild {
            rebuild.completed(slot, now);
        } else if !self.static_plan {
            self.compression.completed(plan, slot, now);
        }
    }
}

/// A policy of the Conservative family (Conservative, its variants, CONS+RS
/// of either flavour) on a kernel state `S`: it settles the plan in its own
/// way before an arrival and a pass (a compression, a rebuild, a random
/// search) and otherwise follows Conservative's rules, which give it its
/// [`Rules`]: an arrival is reserved at its earliest fit in the settled
/// plan, a pass starts every job whose reservation has come.
pub(crate) trait Reserves<S> {
    /// The compression bookkeeping.
    fn compression(&self) -> &Compression;

    /// [`Reserves::compression`], to change.
    fn compression_mut(&mut self) -> &mut Compression;

    /// What is due before an arrival or a pass: the compression (or the
    /// rebuild, or the search) the completions at this instant call for.
    fn settle(&mut self, st: &mut S, observer: &mut impl Observer) -> Result<(), KernelError>;

    /// A job arrives at `now`, the plan settled, before it is reserved:
    /// nothing, unless the policy says otherwise.
    fn arrives(&mut self, now: Time) {
        let _ = now;
    }

    /// The next instant after `st.now` at which the policy must run a pass
    /// for something else than a reservation start (a periodic search):
    /// none, unless the policy says otherwise.
    fn next_search(&self, st: &S) -> Option<Time> {
        let _ = st;
        None
    }
}

impl<const Q: usize, const R: usize, const B: usize, const M: usize, const L: usize, P>
    Rules<State<Q, R, B, M, L>> for P
where
    P: Reserves<State<Q, R, B, M, L>>,
{
    /// Settles the plan and reserves the arriving `job` at its earliest fit.
    fn arrival(
        &mut self,
        st: &mut State<Q, R, B, M, L>,
        job: &Job,
        observer: &mut impl Observer,
    ) -> Result<Option<Slot>, KernelError> {
        self.settle(st, observer)?;
        self.arrives(st.now);
        st.reserve_on_arrival(job, observer).map(Some)
    }

    /// One scheduling pass: settle, then start every job whose reservation
    /// has come.
    fn pass(
        &mut self,
        st: &mut State<Q, R, B, M, L>,
        observer: &mut impl Observer,
    ) -> Result<Pass, KernelError> {
        self.settle(st, observer)?;
        st.pass_reserved(self.compression_mut(), observer)
    }

    /// The earliest reservation start after now, or the policy's next
    /// search if that comes first.
    fn next_wakeup(&self, st: &State<Q, R, B, M, L>) -> Option<Time> {
        let reservation = self.compression().next_reservation(&st.queue, st.now);
        match (reservation, self.next_search(st)) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        }
    }
}

impl<const Q: usize, const R: usize, const B: usize, const M: usize, const L: usize>
    Reserves<State<Q, R, B, M, L>> for Conservative
{
    fn compression(&self) -> &Compression {
        &self.compression
    }

    fn compression_mut(&mut self) -> &mut Compression {
        &mut self.compression
    }

    /// The compression due after completions: the queue-order pass, or the
    /// rebuild, which leaves the earliest reservation start unknown.
    fn settle(
        &mut self,
        st: &mut State<Q, R, B, M, L>,
        observer: &mut impl Observer,
    ) -> Result<(), KernelError> {
        match &mut self.rebuild {
            Some(rebuild) => {
                if rebuild.take_due() {
                    self.compression.earliest = Earliest::Unknown;
                    st.rebuild(observer)?;
                }
                Ok(())
            }
            None => st.compress(&mut self.compression, observer),
        }
    }
}

impl<const Q: usize, const R: usize, const B: usize, const M: usize, const L: usize>
    State<Q, R, B, M, L>
{
    /// One compression pass, if `compression` says one is due: every
    /// reserved job, in queue order, moves to its earliest feasible start if
    /// that is earlier (see the module docs for the pruning).
    pub(crate) fn compress(
        &mut self,
        compression: &mut Compression,
        observer: &mut impl Observer,
    ) -> Result<(), KernelError> {
        if !compression.pending {
            return Ok(());
        }
        compression.pending = false;
        let mut freed = compression.freed_in_last_pass.clone();
        freed.extend(&compression.freed_since_pass);
        compression.freed_since_pass = Freed::new();
        let mut freed_in_pass = Freed::new();
        // What the pass finds out about the jobs it looks at ([`Learnt`]).
        let mut learnt = Learnt::default();
        // One machine without licenses: each job's search asks that
        // machine's profile directly (see `earliest_into`).
        let alone = self.cluster.machines().len() == 1 && self.cluster.pools().is_empty();
        #[cfg(test)]
        let prune = !compression.exhaustive;
        #[cfg(not(test))]
        let prune = true;
        for index in 0..self.queue.len() {
            // Cheap tests first: a job already starting now cannot move, and
            // one wider than every freed interval's room cannot either.
            let movable = self.queue.get(index).is_some_and(|q| {
                q.reservation().is_some_and(|r| r.start > self.now)
                    && (!prune || freed.intervals().iter().any(|i| i.2 >= q.job.procs))
            });
            if !movable {
                continue;
            }
            let Some(entry) = self.queue.get(index) else {
                continue;
            };
            let Some(old) = entry.reservation() else {
                continue;
            };
            // The search may only look at windows that overlap an interval
            // freed since the job was last placed (see the module docs), and
            // `Learnt` carries what the pass found out about jobs before it.
            let bound = if prune {
                Some((&freed, &mut learnt))
            } else {
                None
            };
            // Look for an earlier place without touching the plan, reading
            // the job where it is; most jobs cannot move, and then nothing
            // is copied or changed.
            let moved = match earliest_into(self, &entry.job, &old, bound, alone) {
                Ok(Some(earlier)) => {
                    let job = entry.job;
                    place(self, index, &job, &old, Some(earlier), observer)
                }
                Ok(None) => Ok((old, None)),
                Err(e) => Err(e),
            };
            match moved {
                Ok((slot, known)) if slot != old => {
                    learnt.plan_changed();
                    compression.earliest.lower(slot.start);
                    let from = old.start.max(self.now);
                    // The move may have told the most free where it freed room,
                    // on the machines that room can serve.
                    let most = match known {
                        Some(most) => most,
                        None => self
                            .plan
                            .most_free_between(came_free(&old, &slot).max(from), old.end()),
                    };
                    freed_in_pass.add(from, old.end(), most);
                    freed.add(from, old.end(), most);
                }
                Ok(_) => {}
                Err(e) => {
                    // Jobs after this one were not examined: search fully next time.
                    compression
                        .freed_since_pass
                        .add(self.now, Time::MAX, u32::MAX);
                    compression.earliest = Earliest::Unknown;
                    return Err(e);
                }
            }
        }
        compression.freed_in_last_pass = freed_in_pass;
        Ok(())
    }

    /// Reserves the arriving `job` at its earliest fit in the plan and reports
    /// it to `observer`.
    pub(crate) fn reserve_on_arrival(
        &mut self,
        job: &Job,
        observer: &mut impl Observer,
    ) -> Result<Slot, KernelError> {
        let slot = self
            .plan
            .earliest(&self.cluster, job, self.now)?
            .ok_or(KernelError::Unrunnable(job.id))?;
        self.plan.reserve(job, &slot)?;
        observer.reserved(job, slot);
        Ok(slot)
    }

    /// Starts every job whose reservation has come. A job whose reservation was
    /// missed (the host called late) is re-planned from now. When the earliest
    /// reservation start is known and later than now, nothing is due and the
    /// queue is not scanned; a scan leaves it known.
    pub(crate) fn pass_reserved(
        &mut self,
        compression: &mut Compression,
        observer: &mut impl Observer,
    ) -> Result<Pass, KernelError> {
        let now = self.now;
        let mut pass = Pass::default();
        if compression.earliest.after(now).is_some() {
            return Ok(pass);
        }
        // Unknown until the scan ends (an error leaves it so).
        compression.earliest = Earliest::Unknown;
        let mut earliest: Option<Time> = None;
        let mut index = 0;
        // Each entry is read in place; only a job re-planned is copied.
        while let Some(entry) = self.queue.get(index) {
            let Some(mut slot) = entry.reservation() else {
                index = index.saturating_add(1);
                continue;
            };
            if slot.start < now {
                // A missed reservation (the host called late): re-plan from now.
                let (old, job) = (slot, entry.job);
                self.replanned_late = true;
                slot = place(self, index, &job, &old, None, observer)?.0;
                let most = self.plan.most_free_between(old.start, old.end());
                compression.freed_since_pass.add(old.start, old.end(), most);
            }
            if slot.start == now {
                self.start(index, slot, true, observer)?;
                pass.started = pass.started.saturating_add(1);
            } else {
                earliest = Some(earliest.map_or(slot.start, |t| t.min(slot.start)));
                index = index.saturating_add(1);
            }
        }
        compression.earliest = Earliest::Known(earliest);
        Ok(pass)
    }

    /// Gives back what `job` holds of `old` from now on and reserves `to`
    /// instead (`None`: its earliest slot from now); returns the slot and, when
    /// the move found it out, the most processors free on its machine where it
    /// freed room. On an error (a full profile, a time overflow) the old
    /// reservation is taken back, so the plan still matches the queue.
    fn move_reservation(
        &mut self,
        job: &Job,
        old: &Slot,
        to: Option<Slot>,
    ) -> Result<(Slot, Option<u32>), KernelError> {
        let now = self.now;
        // A move earlier that overlaps the old slot on its machine changes only
        // what differs, and says where it gave room back.
        if let Some(new) = to.filter(|new| now <= new.start) {
            if let Some(most) = self.plan.shift_earlier(job, old, &new)? {
                return Ok((new, Some(most)));
            }
        }
        self.plan.release_from(job, old, now)?;
        let target = match to {
            Some(slot) => Ok(slot),
            None => match self.plan.earliest(&self.cluster, job, now) {
                Ok(found) => found.ok_or(KernelError::Unrunnable(job.id)),
                Err(e) => Err(e.into()),
            },
        };
        let placed = target.and_then(|slot| match self.plan.reserve(job, &slot) {
            Ok(()) => Ok((slot, None)),
            Err(e) => Err(e.into()),
        });
        if placed.is_err() {
            // Taking back exactly what was just given back cannot fail.
            let from = old.start.max(now);
            let kept = Slot {
                start: from,
                duration: old.end().saturating_sub(from),
                ..*old
            };
            let _ = self.plan.reserve(job, &kept);
        }
        placed
    }
}

/// The earliest reservation start after `now` among queued jobs (`None`
/// when no queued job holds one).
pub(crate) fn next_reservation(queue: &[QueuedJob], now: Time) -> Option<Time> {
    reservation_starts(queue).filter(|&t| t > now).min()
}

/// The reservation starts of the queued jobs that hold one.
fn reservation_starts(queue: &[QueuedJob]) -> impl Iterator<Item = Time> + '_ {
    queue
        .iter()
        .filter_map(|q| q.reservation().map(|slot| slot.start))
}

/// What is known of the earliest reservation start among queued jobs. It is
/// kept as reservations are made ([`Compression::reserved`]), moved earlier
/// (compression) and started ([`State::pass_reserved`]'s scan), so a pass with no
/// reservation due and [`Compression::next_reservation`] need not scan the
/// queue. A change it cannot follow (CONS+RS may move a reservation later)
/// makes it unknown until the next scan.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) enum Earliest {
    /// Not known: scan the queue.
    #[default]
    Unknown,
    /// The earliest reservation start in the queue (`None`: no queued job
    /// holds a reservation).
    Known(Option<Time>),
}

impl Earliest {
    /// A reservation starting at `t` was made, or one moved earlier to `t`
    /// (the earliest start is then still exact).
    fn lower(&mut self, t: Time) {
        if let Self::Known(x) = self {
            *x = Some(x.map_or(t, |x| x.min(t)));
        }
    }

    /// The earliest reservation start after `now` when it is known without
    /// a scan: `Some(None)` when no job holds a reservation. `None` (scan)
    /// when unknown or when a reservation is due at or before `now`.
    fn after(self, now: Time) -> Option<Option<Time>> {
        match self {
            Self::Known(None) => Some(None),
            Self::Known(Some(t)) if t > now => Some(Some(t)),
            _ => None,
        }
    }
}

/// The compression bookkeeping: whether a pass is due, and which intervals
/// were freed since the queued jobs were last placed.
#[derive(Clone, Debug, Default)]
pub(crate) struct Compression {
    /// A completion happened: the next pass must compress.
    pending: bool,
    /// Intervals freed since the last compression pass ended.
    freed_since_pass: Freed,
    /// Intervals freed during the last compression pass.
    freed_in_last_pass: Freed,
    /// The earliest reservation start in the queue, if known.
    pub(crate) earliest: Earliest,
    /// Tests: search every window, as if nothing were pruned (the pruning
    /// must not change a schedule).
    #[cfg(test)]
    pub(crate) exhaustive: bool,
}

impl Compression {
    /// Whether a compression pass is due (a completion came since the last).
    pub(crate) const fn is_due(&self) -> bool {
        self.pending
    }

    /// The bookkeeping of a restored checkpoint, which keeps only whether
    /// a pass is due: the next pass searches every window (as if capacity
    /// had come free everywhere since the last one, a superset of what did,
    /// which the pruning allows), and the earliest reservation start is
    /// found by a scan. The decisions are those the kept bookkeeping would
    /// have given.
    pub(crate) fn restored(due: bool) -> Self {
        let mut freed_since_pass = Freed::new();
        freed_since_pass.add(0, Time::MAX, u32::MAX);
        Self {
            pending: due,
            freed_since_pass,
            ..Self::default()
        }
    }

    /// Records that `slot`, from `now` on, was given up by a job that moved
    /// (CONS+RS), so the next pass searches windows overlapping it.
    pub(crate) fn vacated<const B: usize, const M: usize, const L: usize>(
        &mut self,
        plan: &crate::plan::Plan<B, M, L>,
        slot: &Slot,
        now: Time,
    ) {
        let from = slot.start.max(now);
        let most = plan.most_free_between(from, slot.end());
        self.freed_since_pass.add(from, slot.end(), most);
        // The job that gave it up may now start later than any other.
        self.earliest = Earliest::Unknown;
    }

    /// A queued job got a reservation starting at `start` (on arrival, or
    /// on promotion under Selective).
    pub(crate) fn reserved(&mut self, start: Time) {
        self.earliest.lower(start);
    }

    /// Whether the earliest reservation start, when known, is that of
    /// `queue` ([`Kernel::validate`](crate::Kernel::validate)).
    pub(crate) fn earliest_agrees(&self, queue: &[QueuedJob]) -> bool {
        match self.earliest {
            Earliest::Unknown => true,
            Earliest::Known(t) => t == reservation_starts(queue).min(),
        }
    }

    /// The earliest reservation start after `now` among queued jobs
    /// ([`next_reservation`]), without a scan when it is known.
    pub(crate) fn next_reservation(&self, queue: &[QueuedJob], now: Time) -> Option<Time> {
        self.earliest
            .after(now)
            .unwrap_or_else(|| next_reservation(queue, now))
    }

    /// Records the completion of `slot` at `now` (after the plan released
    /// it): a pass is due, and an early completion freed `[now, end)`.
    pub(crate) fn completed<const B: usize, const M: usize, const L: usize>(
        &mut self,
        plan: &crate::plan::Plan<B, M, L>,
        slot: &Slot,
        now: Time,
    ) {
        if slot.end() > now {
            let most = plan.most_free_between(now, slot.end());
            self.freed_since_pass.add(now, slot.end(), most);
        }
        // One compression pass after every instant with a completion, an
        // on-time one too (`docs/design.md`, "Event order", step 2): a pass is not a
        // fixpoint, and what jobs moved by the previous pass freed may now
        // let a job ahead of them move.
        self.pending = true;
    }
}

/// From when capacity came free in `old` when a job moved from it to the
/// earlier `new`: on the same machine, from the later of the new end and
/// the old start (before the new end the job holds the same processors);
/// on another machine, from the old start. It is all [`Freed`]'s room
/// needs: a window that fits thanks to the move overlaps what came free.
fn came_free(old: &Slot, new: &Slot) -> Time {
    if new.machine == old.machine {
        new.end().max(old.start)
    } else {
        old.start
    }
}

/// Moves queue entry `index`, `job`, from its reservation `old` to `to`
/// (`None`: its earliest slot from now), records the new reservation and
/// reports it if it changed; returns it with, when the move found it out,
/// the most processors free on its machine where the move freed room.
/// Inlined into its callers, the compression pass and the start of due
/// reservations: once the pass became a method of the state, the compiler
/// left it out of line, which cost a Conservative replay of KTH-SP2 0.3 %
/// more instructions (callgrind).
#[inline(always)]
fn place<const Q: usize, const R: usize, const B: usize, const M: usize, const L: usize>(
    st: &mut State<Q, R, B, M, L>,
    index: usize,
    job: &Job,
    old: &Slot,
    to: Option<Slot>,
    observer: &mut impl Observer,
) -> Result<(Slot, Option<u32>), KernelError> {
    let (slot, most) = st.move_reservation(job, old, to)?;
    if let Some(e) = st.queue.get_mut(index) {
        e.set_reservation(Some(slot));
    }
    if slot != *old {
        observer.reserved(job, slot);
    }
    Ok((slot, most))
}

/// The earliest slot before `own.start` for a job that holds `own`, among
/// windows overlapping one of the freed intervals of `bound` (all windows
/// when `bound` is `None`). Inlined into its one caller: returned through
/// memory, the answer cost a store-forwarding stall per job.
#[inline(always)]
fn earliest_into<const Q: usize, const R: usize, const B: usize, const M: usize, const L: usize>(
    st: &State<Q, R, B, M, L>,
    job: &Job,
    own: &Slot,
    bound: Option<(&Freed, &mut Learnt)>,
    alone: bool,
) -> Result<Option<Slot>, KernelError> {
    let now = st.now;
    let Some((freed, learnt)) = bound else {
        return Ok(st
            .plan
            .earliest_before(&st.cluster, job, own, now, own.start)?);
    };
    // On one machine without licenses, the job's profile is the one it
    // holds its reservation in, and its duration there is its slot's.
    let single = if alone {
        st.plan
            .machine(usize::from(own.machine))
            .map(|profile| (profile, own.duration))
    } else {
        None
    };
    // A window [s, s + d) overlaps [a, b) when a - d < s < b; `d` is the
    // job's longest duration on any machine.
    let reach = match single {
        Some((_, duration)) => duration,
        None => st
            .cluster
            .machines()
            .iter()
            .filter_map(|m| m.scale(job.estimate))
            .max()
            .unwrap_or(Time::MAX),
    };
    // On one machine without licenses, a window must end before the
    // stretch with too few processors that precedes the job's own
    // reservation: a start after `blocked - duration` cannot fit.
    let mut ceiling = own.start;
    // Whether the windows end by the blocked stretch (then a failed search
    // is worth a record, see `Learnt`).
    let mut bounded = false;
    // Every start before `searched` is known not to fit.
    let mut searched: Time = 0;
    if let Some((profile, _)) = single {
        // Past `now + duration` back, the job cannot move anyway.
        let floor = now.saturating_add(own.duration);
        let blocked = profile.blocked_since_near(own.start, job.procs, 16, floor, &mut learnt.hint);
        if blocked < own.start {
            match blocked.checked_sub(own.duration) {
                Some(last) if last >= now => ceiling = last.saturating_add(1),
                _ => return Ok(None),
            }
            searched = learnt.fails_until(job.procs, own.duration);
            if searched >= ceiling {
                return Ok(None);
            }
            bounded = true;
        }
    }
    // The windows to search, in order of their first start: one per freed
    // interval that ever had room for the job.
    let mut ranges: Vec<(Time, Time), 8> = Vec::new();
    for &(a, b, most) in freed.intervals() {
        if most >= job.procs {
            // Cannot fail: there are at most 8 intervals.
            let _ = ranges.push((now.max(a.saturating_sub(reach)), ceiling.min(b)));
        }
    }
    ranges.sort_unstable();
    // Every start before `searched` (from the first range's on) has been
    // tried and does not fit, so a range overlapping an earlier one begins
    // where that one ended; the first fit found is the earliest, as later
    // ranges begin no earlier.
    for &(from, limit) in &ranges {
        let from = from.max(searched);
        if from >= limit {
            continue;
        }
        let found = if let Some((profile, duration)) = single {
            profile
                .earliest_fit_before(from, duration, job.procs, own.start, limit)?
                .map(|start| Slot {
                    start,
                    machine: 0,
                    duration,
                })
        } else {
            st.plan
                .earliest_before(&st.cluster, job, own, from, limit)?
        };
        if found.is_some() {
            return Ok(found);
        }
        searched = searched.max(limit);
    }
    if bounded {
        learnt.stuck(job.procs, own.duration, ceiling);
    }
    Ok(None)
}

/// What a compression pass has learnt about the jobs it has looked at, on
/// one machine without licenses.
///
/// * `hint`: where the previous job's blocked stretch began in the profile
///   (neighbours in the queue are often blocked from the same step, so the
///   next search starts there).
/// * `stuck`: jobs that could not move since the plan last changed, each as
///   (processors, duration, until): no window of `duration` with
///   `processors` free starts in `[now, until)`. The job's windows that
///   start there end by its blocked stretch, before its own reservation,
///   and each was searched, pruned (it overlaps no freed interval) or
///   ruled out by an earlier record, without a fit. A later job that needs
///   at least as many processors for at least as long cannot start in
///   `[now, until)` either: its window from such a start holds the earlier
///   job's window from the same start, which does not fit. Its own
///   reservation plays no part when its windows too end by its
///   blocked stretch, so its search begins at `until` (and it cannot move
///   when that is past its last start). Exact while the plan is unchanged;
///   the pass forgets these jobs when a job moves.
#[derive(Clone, Debug, Default)]
struct Learnt {
    hint: usize,
    stuck: Stuck,
}

impl Learnt {
    /// A job moved: what was learnt about the old plan no longer holds
    /// (the hint stays: any hint gives the same answers).
    fn plan_changed(&mut self) {
        self.stuck.len = 0;
        self.stuck.next = 0;
    }

    /// Before when (from now on) no window of `duration` with `procs` free
    /// can start, as known from the jobs that could not move: 0 when
    /// nothing is known.
    fn fails_until(&self, procs: u32, duration: Time) -> Time {
        let n = self.stuck.len;
        let (p, d, u) = &self.stuck.columns;
        let mut until = 0;
        for ((&p, &d), &u) in p.iter().zip(d).zip(u).take(n) {
            until = until.max(if p <= procs && d <= duration { u } else { 0 });
        }
        until
    }

    /// Records a job that could not move: no window of `duration` with
    /// `procs` free starts before `until` (the oldest record gives way
    /// when the list is full).
    fn stuck(&mut self, procs: u32, duration: Time, until: Time) {
        let stuck = &mut self.stuck;
        let at = stuck.next % STUCK;
        let (p, d, u) = &mut stuck.columns;
        if let (Some(p), Some(d), Some(u)) = (p.get_mut(at), d.get_mut(at), u.get_mut(at)) {
            (*p, *d, *u) = (procs, duration, until);
        }
        stuck.next = at.saturating_add(1);
        stuck.len = stuck.len.max(stuck.next);
    }
}

/// How many jobs that could not move [`Learnt`] remembers.
const STUCK: usize = 16;

/// [`Learnt`]'s jobs that could not move, as columns (processors, duration,
/// until), so a lookup tests them all without a branch per job: the first
/// `len` are in use, and the next record goes at `next` (the oldest gives
/// way).
#[derive(Clone, Debug, Default)]
struct Stuck {
    columns: ([u32; STUCK], [Time; STUCK], [Time; STUCK]),
    len: usize,
    next: usize,
}

/// A short list of time intervals `[a, b)` where capacity was freed, each
/// with the most processors free (on any machine), when it was added,
/// anywhere in the part of it that came free: all of it, but for a job that
/// moved earlier on its machine only the part after its new end
/// ([`came_free`]). When full, it collapses to one interval covering them
/// all, with the largest of those maxima: a superset is always safe for
/// compression's pruning, only slower.
///
/// Why the maximum may be kept although the plan changes: a window that fits
/// now thanks to what came free overlaps that part, and has `need`
/// processors free at its points there. Where no capacity was freed after
/// the interval was added, free processors only went down since, so the
/// recorded maximum is at least `need`; where capacity was freed later, the
/// window also overlaps that later interval and is found through it.
#[derive(Clone, Debug, Default)]
pub(crate) struct Freed {
    intervals: Vec<(Time, Time, u32), 8>,
}

impl Freed {
    fn new() -> Self {
        Self::default()
    }

    fn intervals(&self) -> &[(Time, Time, u32)] {
        &self.intervals
    }

    fn add(&mut self, a: Time, b: Time, most: u32) {
        if a >= b {
            return;
        }
        if let Some(hit) = self
            .intervals
            .iter_mut()
            .find(|(x, y, _)| a <= *y && *x <= b)
        {
            *hit = (hit.0.min(a), hit.1.max(b), hit.2.max(most));
            return;
        }
        if self.intervals.push((a, b, most)).is_err() {
            let lo = self.intervals.iter().map(|i| i.0).fold(a, Time::min);
            let hi = self.intervals.iter().map(|i| i.1).fold(b, Time::max);
            let top = self.intervals.iter().map(|i| i.2).fold(most, u32::max);
            self.intervals.clear();
            let _ = self.intervals.push((lo, hi, top));
        }
    }

    fn extend(&mut self, other: &Self) {
        for &(a, b, most) in other.intervals() {
            self.add(a, b, most);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A job that could not move tells about every job needing at least as
    /// many processors for at least as long, and the latest such record
    /// counts; a change of plan forgets them all; a full list drops the
    /// oldest.
    #[test]
    fn learnt_stuck_jobs_bound_the_search_of_larger_ones() {
        let mut l = Learnt::default();
        assert_eq!(l.fails_until(1, 1), 0, "nothing known");
        l.stuck(4, 100, 50);
        l.stuck(2, 300, 70);
        assert_eq!(l.fails_until(4, 100), 50, "the same job");
        assert_eq!(l.fails_until(8, 200), 50, "wider and longer");
        assert_eq!(l.fails_until(8, 300), 70, "the later of two");
        assert_eq!(l.fails_until(3, 300), 70, "narrower than the first");
        assert_eq!(l.fails_until(4, 99), 0, "shorter than both");
        assert_eq!(l.fails_until(1, 1000), 0, "narrower than both");
        l.plan_changed();
        assert_eq!(l.fails_until(8, 300), 0, "forgotten");
        for k in 0..STUCK as u32 {
            l.stuck(1 + k, 10, 1000 + k);
        }
        assert_eq!(l.fails_until(1, 10), 1000);
        l.stuck(100, 10, 5000);
        assert_eq!(l.fails_until(1, 10), 0, "the oldest gave way");
        assert_eq!(l.fails_until(2, 10), 1001);
        assert_eq!(l.fails_until(100, 10), 5000);
    }

    /// Overlapping or touching intervals merge (keeping the larger room);
    /// disjoint ones stay apart, so the pruning stays tight; a full list
    /// collapses to the hull of everything.
    #[test]
    fn freed_merges_only_what_overlaps() {
        let mut f = Freed::new();
        f.add(10, 20, 3);
        f.add(30, 40, 5);
        assert_eq!(f.intervals(), &[(10, 20, 3), (30, 40, 5)]);
        f.add(15, 25, 4);
        assert_eq!(f.intervals(), &[(10, 25, 4), (30, 40, 5)]);
        f.add(25, 30, 1);
        assert_eq!(f.intervals(), &[(10, 30, 4), (30, 40, 5)]);
        f.add(50, 50, 9);
        assert_eq!(f.intervals().len(), 2, "an empty interval frees nothing");
        let mut full = Freed::new();
        for i in 0..8 {
            full.add(i * 10, i * 10 + 5, i);
        }
        assert_eq!(full.intervals().len(), 8);
        full.add(100, 105, 2);
        assert_eq!(full.intervals(), &[(0, 105, 7)]);
    }
}
