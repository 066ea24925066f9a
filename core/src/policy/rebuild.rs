//! Conservative's "rebuild" compression, the rule of Alea's CONS.
//!
//! Rules (`docs/design.md`, "Conservative", compression modes):
//!
//! * reservations are made on arrival as under Conservative (the earliest
//!   fit in the plan) and a job starts at its reservation;
//! * the plan is compressed **only after an instant with an early
//!   completion** (a job that ended before its estimate); an on-time
//!   completion changes nothing;
//! * the compression empties the plan of every waiting job and puts them
//!   back one by one **in order of their current reservation start** (ties:
//!   queue order), each at its earliest fit on the machine of its
//!   reservation among the running jobs and the jobs put back before it.
//!
//! So precedence after an early end goes by planned start, not by arrival:
//! a job that was backfilled ahead of an older one is placed first and may
//! take room the older one would have used under the queue-order pass. No
//! reservation moves later: every job put back before a job `J` held a
//! reservation starting no later than `J`'s and gets one no later than it
//! held, on the same machine and for as long, so from `J`'s old start on it
//! holds processors and licenses only where it held them before, and `J`
//! fits where it was. (Letting a job change machines would break this: on
//! a slower machine it runs longer, and may then cross `J`'s window.)
//!
//! Source: the Alea simulator (`aleasimulator/alea`),
//! `src/xklusac/algorithms/schedule_based/CONS.java` and
//! `Scheduler.compressSchedule` in `src/xklusac/environment/Scheduler.java`.
//!
//! Pending reasons (`docs/design.md`, "Pending reasons"): as Conservative.

use crate::plan::Slot;
use crate::state::{KernelError, Observer, State};
use crate::types::Time;
use heapless::Vec;

/// The rebuild compression's memory: whether an early completion happened
/// since the last rebuild.
#[derive(Clone, Debug, Default)]
pub(crate) struct Rebuild {
    /// An early completion happened: the next settle rebuilds the plan.
    pending: bool,
}

impl Rebuild {
    /// The bookkeeping of a restored checkpoint: a rebuild is due iff
    /// `pending`.
    pub(crate) const fn restored(pending: bool) -> Self {
        Self { pending }
    }

    /// Whether an early completion calls for a rebuild (what a checkpoint
    /// keeps).
    pub(crate) const fn is_due(&self) -> bool {
        self.pending
    }

    /// `slot` completed at `now`: a rebuild is due when it ended early.
    pub(crate) const fn completed(&mut self, slot: &Slot, now: Time) {
        if slot.end() > now {
            self.pending = true;
        }
    }

    /// Whether a rebuild is due, which it no longer is after this call: the
    /// caller rebuilds the plan ([`State::rebuild`]) when it was.
    pub(crate) const fn take_due(&mut self) -> bool {
        let due = self.pending;
        self.pending = false;
        due
    }
}

impl<const Q: usize, const R: usize, const B: usize, const M: usize, const L: usize>
    State<Q, R, B, M, L>
{
    /// Takes every reserved queued job out of the plan and puts them back in
    /// order of their reservation start (ties: queue order), each at its
    /// earliest fit from now. On an error the old reservations are restored.
    /// Never inlined: its queue-sized order (24 bytes per queue slot) stays in
    /// its own frame, so Conservative's ordinary compression keeps its small
    /// stack.
    #[inline(never)]
    pub(crate) fn rebuild(&mut self, observer: &mut impl Observer) -> Result<(), KernelError> {
        let now = self.now;
        // (old reservation, queue index), in the order of re-insertion.
        let mut order: Vec<(Slot, usize), Q> = Vec::new();
        for (index, q) in self.queue.iter().enumerate() {
            if let Some(slot) = q.reservation() {
                order
                    .push((slot, index))
                    .map_err(|_| KernelError::Internal("rebuild: queue larger than capacity"))?;
            }
        }
        order.sort_unstable_by_key(|&(slot, index)| (slot.start, index));
        for &(slot, index) in &order {
            if let Some(q) = self.queue.get(index) {
                self.plan.release_from(&q.job, &slot, now)?;
            }
        }
        for (done, &(old, index)) in order.iter().enumerate() {
            let Some(job) = self.queue.get(index).map(|q| q.job) else {
                continue;
            };
            // Back on the machine of its reservation, for as long.
            let placed = self
                .plan
                .earliest_on(&job, usize::from(old.machine), now, old.duration)
                .map_err(KernelError::from)
                .and_then(|found| found.ok_or(KernelError::Unrunnable(job.id)))
                .map(|start| Slot { start, ..old })
                .and_then(|slot| {
                    self.plan
                        .reserve(&job, &slot)
                        .map(|()| slot)
                        .map_err(KernelError::from)
                });
            match placed {
                Ok(slot) => {
                    if let Some(e) = self.queue.get_mut(index) {
                        e.set_reservation(Some(slot));
                    }
                    if slot != old {
                        observer.reserved(&job, slot);
                    }
                }
                Err(e) => {
                    restore(self, order.get(..done).unwrap_or(&[]), &order);
                    return Err(e);
                }
            }
        }
        Ok(())
    }
}

/// Undoes a failed rebuild: the jobs of `placed` give back their new
/// reservations, then every job of `all` takes back its old one from now
/// (the plan held exactly these before, so they fit).
fn restore<const Q: usize, const R: usize, const B: usize, const M: usize, const L: usize>(
    st: &mut State<Q, R, B, M, L>,
    placed: &[(Slot, usize)],
    all: &[(Slot, usize)],
) {
    let now = st.now;
    for &(_, index) in placed {
        if let Some(q) = st.queue.get(index) {
            if let Some(slot) = q.reservation() {
                let _ = st.plan.release_from(&q.job, &slot, now);
            }
        }
    }
    for &(old, index) in all {
        let from = old.start.max(now);
        let kept = Slot {
            start: from,
            duration: old.end().saturating_sub(from),
            ..old
        };
        if let Some(q) = st.queue.get_mut(index) {
            let _ = st.plan.reserve(&q.job, &kept);
            q.set_reservation(Some(old));
        }
    }
}
