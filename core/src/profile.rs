//! Availability profile: free units of one resource over time, as sorted steps.
//!
//! # Background
//!
//! Every backfilling policy asks the same two questions of a machine: "how
//! many processors are free at time `t`?" and "what is the earliest time at or
//! after `t` when `n` processors stay free for `d` seconds?". A profile answers
//! both from a step function kept as a sorted, fixed-capacity array of
//! [`Step`]s. Step `i` says that from `steps[i].at` until `steps[i + 1].at`
//! (or forever, for the last step) `steps[i].free` units are free. Running
//! jobs and reservations are subtracted from it with [`Profile::reserve`] and
//! given back with [`Profile::release`]. Intervals are half-open,
//! `[start, start + duration)`: a job ending at `t` frees its units at `t`.
//!
//! The same type tracks license pools: a pool of `k` copies is a profile with
//! capacity `k`.
//!
//! # Invariants (checked by [`Profile::validate`])
//!
//! 1. There is at least one step; step times strictly increase.
//! 2. No step has more free units than the capacity.
//! 3. The last step has all units free (every reservation ends).
//! 4. Canonical form: two neighbouring steps never have the same `free`, so
//!    reserving and then releasing the same interval restores the profile
//!    exactly.
//!
//! Every operation either succeeds or leaves the profile unchanged and
//! returns a [`ProfileError`].
//!
//! # Example
//!
//! ```
//! use backfill_core::Profile;
//! let mut p: Profile<8> = Profile::new(10);
//! p.reserve(0, 100, 6)?;                         // a job on 6 of 10 processors until 100
//! assert_eq!(p.earliest_fit(0, 50, 4)?, Some(0));  // 4 fit next to it
//! assert_eq!(p.earliest_fit(0, 50, 5)?, Some(100)); // 5 must wait for it to end
//! p.release(0, 100, 6)?;
//! assert_eq!(p.steps().len(), 1);
//! # Ok::<(), backfill_core::ProfileError>(())
//! ```

use crate::types::{Duration, Time};
use heapless::Vec;

/// One step of a profile: from `at` on, `free` units are free.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Step {
    /// Where the step begins.
    pub at: Time,
    /// Free units from `at` until the next step.
    pub free: u32,
}

/// What went wrong in a profile operation. The profile is unchanged.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum ProfileError {
    /// The step array is full (capacity `B` reached).
    Full,
    /// Fewer units are free somewhere in the interval than were asked for.
    Insufficient,
    /// A release would leave more units free than the capacity.
    OverRelease,
    /// `start + duration` does not fit in a [`Time`].
    TimeOverflow,
    /// The interval begins before the profile's origin (its first step).
    BeforeOrigin,
    /// [`Profile::validate`] found a broken invariant (its number in the module docs).
    Invariant(u8),
}

impl core::fmt::Display for ProfileError {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        match self {
            Self::Full => f.write_str("profile step capacity exhausted"),
            Self::Insufficient => f.write_str("not enough free units in the interval"),
            Self::OverRelease => f.write_str("release exceeds the capacity"),
            Self::TimeOverflow => f.write_str("interval end overflows the time type"),
            Self::BeforeOrigin => f.write_str("interval starts before the profile origin"),
            Self::Invariant(n) => write!(f, "profile invariant {n} broken"),
        }
    }
}

impl core::error::Error for ProfileError {}

/// How many of `steps` begin at or before `t` (`partition_point(|s| s.at
/// <= t)`), by an eight-way search: each round reads seven steps that do
/// not depend on one another, so the loads overlap instead of forming the
/// chain of dependent loads a binary search waits on; the last few steps
/// are counted without branches.
fn steps_through(steps: &[Step], t: Time) -> usize {
    let mut base = 0usize;
    let mut size = steps.len();
    // The answer is in `base..=base + size` and every step before `base`
    // begins at or before `t`.
    while size > 16 {
        let stride = size / 8;
        let mut below = 0usize;
        for k in 1..8usize {
            let probe = base.saturating_add(k.saturating_mul(stride));
            below = below.saturating_add(usize::from(steps.get(probe).is_some_and(|s| s.at <= t)));
        }
        base = base.saturating_add(below.saturating_mul(stride));
        size = if below == 7 {
            size.saturating_sub(7usize.saturating_mul(stride))
        } else {
            stride
        };
    }
    let tail = steps
        .get(base..base.saturating_add(size))
        .unwrap_or_default();
    base.saturating_add(tail.iter().map(|s| usize::from(s.at <= t)).sum::<usize>())
}

/// Free units of one resource over time, with room for `B` steps.
#[derive(Clone, Debug)]
pub struct Profile<const B: usize> {
    steps: Vec<Step, B>,
    capacity: u32,
}

/// Where a checked window `[start, end)` lies in the steps: `first` is in
/// force at `start` and `last` just before `end`; a step must be split at
/// `start` or `end` when none begins there; `most` is the most units free
/// in the window before the change.
#[derive(Clone, Copy, Debug)]
struct Span {
    first: usize,
    last: usize,
    split_start: bool,
    split_end: bool,
    most: u32,
}

impl Span {
    /// Steps the change adds before canonical form is restored.
    fn splits(&self) -> usize {
        usize::from(self.split_start).saturating_add(usize::from(self.split_end))
    }
}

impl<const B: usize> Profile<B> {
    /// A profile with all `capacity` units free from time 0 on.
    #[must_use]
    #[inline(always)]
    pub fn new(capacity: u32) -> Self {
        const { assert!(B >= 3, "a profile needs room for at least 3 steps") };
        let mut steps = Vec::new();
        // Cannot fail: B >= 3.
        let _ = steps.push(Step {
            at: 0,
            free: capacity,
        });
        Self { steps, capacity }
    }

    /// All units free again from `origin` on (keeps the capacity).
    pub fn reset(&mut self, origin: Time) {
        self.steps.clear();
        // Cannot fail: B >= 3.
        let _ = self.steps.push(Step {
            at: origin,
            free: self.capacity,
        });
    }

    /// All of a new `capacity` free from time 0 on, in place: the profile is
    /// then what [`Profile::new`] returns.
    pub fn renew(&mut self, capacity: u32) {
        self.capacity = capacity;
        self.reset(0);
    }

    /// Total units.
    #[must_use]
    pub const fn capacity(&self) -> u32 {
        self.capacity
    }

    /// The steps, in time order.
    #[must_use]
    pub fn steps(&self) -> &[Step] {
        &self.steps
    }

    /// The earliest time the profile describes (its first step).
    #[must_use]
    pub fn origin(&self) -> Time {
        self.steps.first().map_or(0, |s| s.at)
    }

    /// Index of the step in force at `t` (the first step when `t` is before the origin).
    fn index_at(&self, t: Time) -> usize {
        // Most questions are about the first step (`t` is now).
        if self.steps.get(1).is_none_or(|s| t < s.at) {
            return 0;
        }
        steps_through(&self.steps, t).saturating_sub(1)
    }

    /// [`index_at`](Self::index_at), searched outwards from the step at
    /// `hint` (galloping: probes 1, 2, 4, ... steps away, then a search
    /// between the last two probes), so a hint `k` steps off costs about
    /// `2 log2 k` probes and a right one a single comparison.
    fn index_near(&self, t: Time, hint: usize) -> usize {
        let steps = self.steps.as_slice();
        let begins_by = |i: usize| steps.get(i).is_some_and(|s| s.at <= t);
        if hint >= steps.len() {
            return self.index_at(t);
        }
        // The answer `i` is the last step with `at <= t` (0 if none):
        // bracket it in `lo..hi` with `lo` a step that begins by `t` (or 0)
        // and `hi` one that does not (or the end).
        let (lo, hi) = if begins_by(hint) {
            let (mut lo, mut gap) = (hint, 1usize);
            loop {
                let probe = lo.saturating_add(gap);
                if begins_by(probe) {
                    lo = probe;
                    gap = gap.saturating_mul(2);
                } else {
                    break (lo, probe.min(steps.len()));
                }
            }
        } else {
            let (mut hi, mut gap) = (hint, 1usize);
            loop {
                let Some(probe) = hi.checked_sub(gap) else {
                    break (0, hi);
                };
                if begins_by(probe) {
                    break (probe, hi);
                }
                hi = probe;
                gap = gap.saturating_mul(2);
            }
        };
        let between = steps.get(lo.saturating_add(1)..hi).unwrap_or_default();
        lo.saturating_add(steps_through(between, t))
    }

    fn free_of(&self, index: usize) -> u32 {
        self.steps.get(index).map_or(self.capacity, |s| s.free)
    }

    fn at_of(&self, index: usize) -> Option<Time> {
        self.steps.get(index).map(|s| s.at)
    }

    /// Free units at `t`.
    #[must_use]
    pub fn free_at(&self, t: Time) -> u32 {
        if t == self.origin() {
            return self.free_of(0); // the common case: `t` is now
        }
        self.free_of(self.index_at(t))
    }

    /// The fewest free units anywhere in `[start, start + duration)`.
    ///
    /// # Errors
    /// [`ProfileError::TimeOverflow`] when the end does not fit in a [`Time`].
    pub fn min_free(&self, start: Time, duration: Duration) -> Result<u32, ProfileError> {
        let end = start
            .checked_add(duration)
            .ok_or(ProfileError::TimeOverflow)?;
        let mut index = self.index_at(start);
        let mut least = self.free_of(index);
        loop {
            index = index.saturating_add(1);
            match self.at_of(index) {
                Some(at) if at < end => least = least.min(self.free_of(index)),
                _ => return Ok(least),
            }
        }
    }

    /// The earliest `b <= t` such that fewer than `need` units are free over
    /// all of `[b, t)`, looking back at most `max_steps` steps (and not
    /// before the origin); `t` itself when the step just before `t` has
    /// `need` free. A window that must hold `need` units and must end by `t`
    /// cannot end after `b`.
    #[must_use]
    pub fn blocked_since(&self, t: Time, need: u32, max_steps: usize) -> Time {
        self.blocked_since_near(t, need, max_steps, 0, &mut 0)
    }

    /// [`blocked_since`](Self::blocked_since), trying the step at index
    /// `hint` (and the one after it) before searching for the step in force
    /// just before `t`, and leaving that step's index in `hint`. Any `hint`
    /// gives the same answer; a good one saves the search. The compression
    /// pass asks this for each queued job in turn, and neighbours in the
    /// queue are often blocked from the same step.
    ///
    /// It also stops looking back once the stretch reaches before `floor`,
    /// and then returns a time before `floor` that may be later than
    /// [`blocked_since`](Self::blocked_since)'s: a caller that only needs to
    /// know whether the stretch begins before `floor` (the compression pass:
    /// then no window of the job's length fits between now and it) is not
    /// told where. With `floor` 0 the answer is `blocked_since`'s.
    #[must_use]
    pub fn blocked_since_near(
        &self,
        t: Time,
        need: u32,
        max_steps: usize,
        floor: Time,
        hint: &mut usize,
    ) -> Time {
        if t <= self.origin() {
            return t;
        }
        let mut index = self.index_near(t.saturating_sub(1), *hint);
        *hint = index;
        let mut since = t;
        for _ in 0..max_steps {
            let Some(step) = self.steps.get(index) else {
                break;
            };
            if step.free >= need {
                break;
            }
            since = step.at.max(self.origin());
            if index == 0 || since < floor {
                break;
            }
            index = index.saturating_sub(1);
        }
        since
    }

    /// The most free units anywhere in `[start, end)` (0 when empty).
    #[must_use]
    pub fn max_free(&self, start: Time, end: Time) -> u32 {
        if end <= start {
            return 0;
        }
        let mut index = self.index_at(start);
        let mut most = self.free_of(index);
        loop {
            index = index.saturating_add(1);
            match self.at_of(index) {
                Some(at) if at < end => most = most.max(self.free_of(index)),
                _ => return most,
            }
        }
    }

    /// Whether `need` units stay free over `[start, start + duration)`.
    ///
    /// # Errors
    /// [`ProfileError::TimeOverflow`] when the end does not fit in a [`Time`].
    pub fn fits(&self, start: Time, duration: Duration, need: u32) -> Result<bool, ProfileError> {
        Ok(self.min_free(start, duration)? >= need)
    }

    /// The earliest time `t >= from` such that `need` units stay free over
    /// `[t, t + duration)`; `None` when `need` exceeds the capacity.
    ///
    /// # Errors
    /// [`ProfileError::TimeOverflow`] when a candidate interval's end does not fit.
    pub fn earliest_fit(
        &self,
        from: Time,
        duration: Duration,
        need: u32,
    ) -> Result<Option<Time>, ProfileError> {
        if need > self.capacity {
            return Ok(None);
        }
        let mut index = self.index_at(from);
        let mut start = from.max(self.origin());
        'candidate: loop {
            let end = start
                .checked_add(duration)
                .ok_or(ProfileError::TimeOverflow)?;
            let mut j = index;
            loop {
                if self.free_of(j) < need {
                    // The window cannot cover step j: restart after it. The
                    // last step has every unit free, so step j + 1 exists.
                    let next = j.saturating_add(1);
                    match self.at_of(next) {
                        Some(at) => {
                            start = at;
                            index = next;
                            continue 'candidate;
                        }
                        None => return Ok(None), // only with a broken profile
                    }
                }
                let next = j.saturating_add(1);
                match self.at_of(next) {
                    Some(at) if at < end => j = next,
                    _ => return Ok(Some(start)),
                }
            }
        }
    }

    /// The earliest `t` in `[from, limit)` such that `need` units stay free
    /// over `[t, t + duration)` truncated at `held_from`; `None` when there is
    /// none.
    ///
    /// This answers "can a job that already holds `need` units over
    /// `[held_from, held_from + duration)` move earlier?" without touching
    /// the profile: for a start `t < held_from`, the part of the window from
    /// `held_from` on lies inside the job's own reservation, where at least
    /// `need` units are free once it is given back. So only
    /// `[t, min(t + duration, held_from))` needs checking, with `limit <=
    /// held_from`. Pass `held_from = Time::MAX` for a resource the job does
    /// not hold.
    ///
    /// # Errors
    /// [`ProfileError::TimeOverflow`] when a candidate interval's end does not fit.
    pub fn earliest_fit_before(
        &self,
        from: Time,
        duration: Duration,
        need: u32,
        held_from: Time,
        limit: Time,
    ) -> Result<Option<Time>, ProfileError> {
        let steps = self.steps.as_slice();
        let mut start = from.max(self.origin());
        let mut index = self.index_at(start);
        loop {
            if start >= limit {
                return Ok(None);
            }
            let end = start
                .checked_add(duration)
                .ok_or(ProfileError::TimeOverflow)?
                .min(held_from);
            // The first step of the window with too few units free, if any:
            // step `index` is in force at `start`, the rest begin before `end`.
            let window = steps.get(index..).unwrap_or_default();
            let mut blocked = None;
            for (k, step) in window.iter().enumerate() {
                if k > 0 && step.at >= end {
                    break;
                }
                if step.free < need {
                    blocked = Some(index.saturating_add(k));
                    break;
                }
            }
            let Some(blocked) = blocked else {
                return Ok(Some(start));
            };
            // The next candidate is the first later step with room; every
            // step passed on the way is a candidate that fails at once
            // (after the same limit and overflow tests).
            let mut next = blocked;
            loop {
                next = next.saturating_add(1);
                let Some(step) = steps.get(next) else {
                    return Ok(None); // only with a broken profile
                };
                if step.at >= limit {
                    return Ok(None);
                }
                if step.free >= need {
                    index = next;
                    start = step.at;
                    break;
                }
                step.at
                    .checked_add(duration)
                    .ok_or(ProfileError::TimeOverflow)?;
            }
        }
    }

    /// Adds `amount` to (`take`: subtracts it from) every step in
    /// `[start, end)`, after checking the bounds; then restores canonical
    /// form. One binary search finds the first step; the window is walked
    /// once to check it, which also finds its last step and whether a step
    /// must be split at either edge.
    fn apply(
        &mut self,
        start: Time,
        end: Time,
        amount: u32,
        take: bool,
    ) -> Result<(), ProfileError> {
        if start < self.origin() {
            return Err(ProfileError::BeforeOrigin);
        }
        if amount == 0 || start == end {
            return Ok(());
        }
        // Check first, so that failure leaves the profile untouched.
        let span = self.check(self.index_at(start), start, end, amount, take)?;
        if self.steps.len().saturating_add(span.splits()) > B {
            return Err(ProfileError::Full);
        }
        self.commit(&span, start, end, amount, take)
    }

    /// Moves a holding of `amount` units from `[old_start, old_start +
    /// duration)` to `[new_start, new_start + duration)`, which begins
    /// earlier and overlaps it: takes `[new_start, old_start)` and gives back
    /// `[new_end, old_end)`. The profile is then what giving back the old
    /// holding and taking the new one leave, with one search for the two
    /// parts (the second is found from the first) and two short updates.
    /// Returns the most units free in `[new_end, old_end)` afterwards: where
    /// the move freed room.
    ///
    /// # Errors
    /// [`ProfileError::Insufficient`] (also when the two do not overlap so),
    /// [`ProfileError::OverRelease`], [`ProfileError::Full`],
    /// [`ProfileError::TimeOverflow`] or [`ProfileError::BeforeOrigin`]; the
    /// profile is unchanged then.
    pub fn shift_earlier(
        &mut self,
        old_start: Time,
        new_start: Time,
        duration: Duration,
        amount: u32,
    ) -> Result<u32, ProfileError> {
        let overflow = ProfileError::TimeOverflow;
        let new_end = new_start.checked_add(duration).ok_or(overflow)?;
        let old_end = old_start.checked_add(duration).ok_or(overflow)?;
        if !(new_start < old_start && old_start < new_end) {
            return Err(ProfileError::Insufficient);
        }
        if new_start < self.origin() {
            return Err(ProfileError::BeforeOrigin);
        }
        let taken = self.check(self.index_at(new_start), new_start, old_start, amount, true)?;
        // The step in force at `new_end` is at or after the last one taken.
        let first = self.index_near(new_end, taken.last);
        let given = self.check(first, new_end, old_end, amount, false)?;
        let splits = taken.splits().saturating_add(given.splits());
        if self.steps.len().saturating_add(splits) > B {
            return Err(ProfileError::Full);
        }
        // The later part first: its edits leave every step up to the last
        // one taken where it was.
        self.commit(&given, new_end, old_end, amount, false)?;
        self.commit(&taken, new_start, old_start, amount, true)?;
        Ok(given.most.saturating_add(amount))
    }

    /// Checks that `amount` units can be taken (or given back) over `[start,
    /// end)` (non-empty, from the origin on), whose first step is `first`;
    /// returns where the window lies in the steps.
    fn check(
        &self,
        first: usize,
        start: Time,
        end: Time,
        amount: u32,
        take: bool,
    ) -> Result<Span, ProfileError> {
        let mut last = first;
        let mut most = 0;
        loop {
            let free = self.free_of(last);
            let ok = if take {
                free >= amount
            } else {
                free.checked_add(amount).is_some_and(|f| f <= self.capacity)
            };
            if !ok {
                return Err(if take {
                    ProfileError::Insufficient
                } else {
                    ProfileError::OverRelease
                });
            }
            most = most.max(free);
            match self.at_of(last.saturating_add(1)) {
                Some(at) if at < end => last = last.saturating_add(1),
                _ => break,
            }
        }
        Ok(Span {
            first,
            last,
            split_start: self.at_of(first) != Some(start),
            split_end: self.at_of(last.saturating_add(1)) != Some(end),
            most,
        })
    }

    /// Takes (or gives back) `amount` units over `[start, end)`, checked as
    /// `span` (with room for its splits), and restores canonical form.
    fn commit(
        &mut self,
        span: &Span,
        start: Time,
        end: Time,
        amount: u32,
        take: bool,
    ) -> Result<(), ProfileError> {
        let Span {
            first,
            mut last,
            split_start,
            split_end,
            ..
        } = *span;
        let mut lo = first;
        if split_start {
            lo = first.saturating_add(1);
            let free = self.free_of(first);
            self.steps
                .insert(lo, Step { at: start, free })
                .map_err(|_| ProfileError::Full)?;
            last = last.saturating_add(1);
        }
        let hi = last.saturating_add(1);
        if split_end {
            let free = self.free_of(last);
            self.steps
                .insert(hi, Step { at: end, free })
                .map_err(|_| ProfileError::Full)?;
        }
        for step in self.steps.get_mut(lo..hi).into_iter().flatten() {
            step.free = if take {
                step.free.saturating_sub(amount)
            } else {
                step.free.saturating_add(amount)
            };
        }
        // Canonical form can only break at the two edges.
        self.merge_with_previous(hi);
        self.merge_with_previous(lo);
        Ok(())
    }

    /// Removes step `index` when it has the same `free` as the step before it.
    fn merge_with_previous(&mut self, index: usize) {
        if index == 0 {
            return;
        }
        let previous = index.saturating_sub(1);
        if self.steps.get(index).is_some() && self.free_of(index) == self.free_of(previous) {
            self.steps.remove(index);
        }
    }

    /// Takes `amount` units over `[start, start + duration)`.
    ///
    /// # Errors
    /// [`ProfileError::Insufficient`], [`ProfileError::Full`],
    /// [`ProfileError::TimeOverflow`] or [`ProfileError::BeforeOrigin`]; the
    /// profile is unchanged then.
    pub fn reserve(
        &mut self,
        start: Time,
        duration: Duration,
        amount: u32,
    ) -> Result<(), ProfileError> {
        let end = start
            .checked_add(duration)
            .ok_or(ProfileError::TimeOverflow)?;
        self.apply(start, end, amount, true)
    }

    /// Gives back `amount` units over `[start, start + duration)`. The part of
    /// the interval before the origin is ignored (it is history).
    ///
    /// # Errors
    /// [`ProfileError::OverRelease`], [`ProfileError::Full`] or
    /// [`ProfileError::TimeOverflow`]; the profile is unchanged then.
    pub fn release(
        &mut self,
        start: Time,
        duration: Duration,
        amount: u32,
    ) -> Result<(), ProfileError> {
        let end = start
            .checked_add(duration)
            .ok_or(ProfileError::TimeOverflow)?;
        let start = start.max(self.origin());
        if end <= start {
            return Ok(());
        }
        self.apply(start, end, amount, false)
    }

    /// Forgets everything before `now`: the step in force at `now` becomes the
    /// first and begins at `now`. Times before the origin cannot be reserved.
    pub fn advance(&mut self, now: Time) {
        if now <= self.origin() {
            return;
        }
        let index = self.index_at(now);
        if index > 0 {
            self.steps.copy_within(index.., 0);
            let keep = self.steps.len().saturating_sub(index);
            self.steps.truncate(keep);
        }
        if let Some(first) = self.steps.first_mut() {
            first.at = now;
        }
    }

    /// Sets the profile to what holding every interval of `holdings()`
    /// leaves from `origin` on: each `(start, end, amount)` holds `amount`
    /// units over `[start, end)` (the part before `origin` is history). The
    /// steps are found in time order, by a sweep over the intervals' ends,
    /// so the result (canonical, as every profile) does not depend on the
    /// intervals' order and needs room only for its own steps, where
    /// reserving the intervals one by one may need a step more on the way.
    /// `holdings` is called once per step, each call a pass over the
    /// intervals: `O(steps * intervals)`, for a checkpoint's restore when
    /// reserving one by one ran out of room.
    ///
    /// # Errors
    /// [`ProfileError::Insufficient`] when more than the capacity is held at
    /// some instant, [`ProfileError::Full`] when the result has more than
    /// `B` steps; the profile is left empty (all free from `origin`) then.
    pub(crate) fn rebuild<I>(
        &mut self,
        origin: Time,
        holdings: impl Fn() -> I,
    ) -> Result<(), ProfileError>
    where
        I: Iterator<Item = (Time, Time, u32)>,
    {
        // The units held at `t`, and the first interval end after `t`.
        let sweep = |t: Time| {
            let mut held = 0u64;
            let mut next: Option<Time> = None;
            for (start, end, amount) in holdings() {
                let start = start.max(origin);
                if start <= t && t < end {
                    held = held.saturating_add(u64::from(amount));
                }
                for edge in [start, end] {
                    if edge > t && start < end {
                        next = Some(next.map_or(edge, |n| n.min(edge)));
                    }
                }
            }
            (held, next)
        };
        let result = (|| {
            self.steps.clear();
            let mut t = origin;
            let mut last: Option<u32> = None;
            loop {
                let (held, next) = sweep(t);
                let free = u64::from(self.capacity)
                    .checked_sub(held)
                    .and_then(|free| u32::try_from(free).ok())
                    .ok_or(ProfileError::Insufficient)?;
                if last != Some(free) {
                    self.steps
                        .push(Step { at: t, free })
                        .map_err(|_| ProfileError::Full)?;
                    last = Some(free);
                }
                match next {
                    Some(n) => t = n,
                    None => return Ok(()),
                }
            }
        })();
        if result.is_err() {
            self.reset(origin);
        }
        result
    }

    /// The step storage itself, as scratch space for a checkpoint's restore
    /// (which rebuilds the profile afterwards): up to `B` values of eight
    /// bytes, with no other memory to hold them.
    pub(crate) fn scratch(&mut self) -> &mut Vec<Step, B> {
        &mut self.steps
    }

    /// Checks the invariants listed in the module docs.
    ///
    /// # Errors
    /// [`ProfileError::Invariant`] with the number of the first broken one.
    pub fn validate(&self) -> Result<(), ProfileError> {
        if self.steps.is_empty() {
            return Err(ProfileError::Invariant(1));
        }
        for pair in self.steps.windows(2) {
            if let [a, b] = pair {
                if a.at >= b.at {
                    return Err(ProfileError::Invariant(1));
                }
                if a.free == b.free {
                    return Err(ProfileError::Invariant(4));
                }
            }
        }
        if self.steps.iter().any(|s| s.free > self.capacity) {
            return Err(ProfileError::Invariant(2));
        }
        if self.steps.last().map(|s| s.free) != Some(self.capacity) {
            return Err(ProfileError::Invariant(3));
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn steps<const B: usize>(p: &Profile<B>) -> std::vec::Vec<(Time, u32)> {
        p.steps().iter().map(|s| (s.at, s.free)).collect()
    }

    /// `shift_earlier` leaves what giving back the old holding and taking
    /// the new one leave, and returns the most free where the move freed
    /// room; when that fails it fails and changes nothing. Random profiles
    /// (with an origin past 0, steps that merge at the edges, holdings up
    /// to the capacity) and random overlapping moves; moves that do not
    /// overlap are refused.
    #[test]
    fn shift_earlier_is_release_then_reserve() {
        let mut rng = crate::rng::SplitMix64::new(5);
        let (mut shifted, mut refused) = (0, 0);
        for case in 0..5000 {
            let cap = 1 + rng.below(8) as u32;
            let mut p: Profile<64> = Profile::new(cap);
            for _ in 0..rng.below(12) {
                let (s, d) = (rng.below(60) as Time, 1 + rng.below(30) as Time);
                let _ = p.reserve(s, d, 1 + rng.below(u64::from(cap)) as u32);
            }
            p.advance(rng.below(10) as Time);
            let (old, d) = (10 + rng.below(50) as Time, 1 + rng.below(30) as Time);
            let amount = rng.below(u64::from(cap) + 1) as u32;
            if p.reserve(old, d, amount).is_err() {
                continue;
            }
            let new = old.saturating_sub(rng.below(u64::from(d) + 3) as Time);
            let overlaps = new < old && old < new + d;
            let mut expected = p.clone();
            let two = expected
                .release(old, d, amount)
                .and_then(|()| expected.reserve(new, d, amount));
            let before = steps(&p);
            match p.shift_earlier(old, new, d, amount) {
                Ok(most) => {
                    assert!(overlaps, "case {case}: not an earlier, overlapping slot");
                    assert_eq!(two, Ok(()), "case {case}");
                    assert_eq!(steps(&p), steps(&expected), "case {case}");
                    assert_eq!(most, p.max_free(new + d, old + d), "case {case}");
                    p.validate().unwrap();
                    shifted += 1;
                }
                Err(e) => {
                    assert!(two.is_err() || !overlaps, "case {case}: {e:?}");
                    assert_eq!(steps(&p), before, "case {case}");
                    refused += 1;
                }
            }
        }
        assert!(
            shifted > 1000 && refused > 100,
            "{shifted} shifted, {refused} refused"
        );
    }

    /// A shift needs room for its splits before it merges: with exactly
    /// that room it goes through, with one step less it is `Full` and
    /// changes nothing.
    #[test]
    fn shift_earlier_needs_room_for_its_splits() {
        fn setup<const B: usize>() -> Profile<B> {
            let mut p: Profile<B> = Profile::new(10);
            p.reserve(200, 50, 1).unwrap();
            p.reserve(300, 1, 1).unwrap();
            p.reserve(100, 100, 2).unwrap();
            p
        }
        // 6 steps; moving [100, 200) to [50, 150) splits at 50 and 150.
        let mut roomy = setup::<8>();
        assert_eq!(roomy.steps().len(), 6);
        assert_eq!(roomy.shift_earlier(100, 50, 100, 2), Ok(10));
        assert_eq!(
            steps(&roomy),
            [
                (0, 10),
                (50, 8),
                (150, 10),
                (200, 9),
                (250, 10),
                (300, 9),
                (301, 10)
            ]
        );
        let mut tight = setup::<7>();
        let before = steps(&tight);
        assert_eq!(
            tight.shift_earlier(100, 50, 100, 2),
            Err(ProfileError::Full)
        );
        assert_eq!(steps(&tight), before);
    }

    #[test]
    fn capacity_survives_reservations_and_reset() {
        let mut p: Profile<8> = Profile::new(10);
        assert_eq!(p.capacity(), 10);
        p.reserve(0, 10, 10).unwrap();
        assert_eq!(p.capacity(), 10);
        p.reset(50);
        assert_eq!((p.capacity(), p.origin(), p.free_at(50)), (10, 50, 10));
    }

    #[test]
    fn blocked_since_walks_back_over_short_steps() {
        let mut p: Profile<8> = Profile::new(10);
        p.reserve(10, 10, 8).unwrap();
        p.reserve(20, 10, 9).unwrap();
        assert_eq!(steps(&p), [(0, 10), (10, 2), (20, 1), (30, 10)]);
        // 5 units: short over [10, 30), two steps back from 30.
        assert_eq!(p.blocked_since(30, 5, 16), 10);
        assert_eq!(p.blocked_since(25, 5, 16), 10);
        // ...but no further back than asked.
        assert_eq!(p.blocked_since(30, 5, 1), 20);
        assert_eq!(p.blocked_since(30, 5, 0), 30);
        // 2 units fit just before 20: nothing blocks up to 20.
        assert_eq!(p.blocked_since(20, 2, 16), 20);
        assert_eq!(p.blocked_since(30, 2, 16), 20);
        // At or before the origin there is nothing to look back on.
        assert_eq!(p.blocked_since(0, 5, 16), 0);
        let mut q: Profile<8> = Profile::new(10);
        q.reserve(0, 10, 8).unwrap();
        assert_eq!(q.blocked_since(10, 5, 16), 0);
    }

    /// The eight-way count and the search from a hint agree with a plain
    /// binary search, for every time around every step and every hint
    /// (right, near, far, past the end), on profiles of 1 to 300 steps;
    /// `blocked_since_near` answers as `blocked_since` whatever the hint and
    /// leaves the index of the step just before `t` in it.
    #[test]
    fn searches_from_a_hint_agree_with_a_binary_search() {
        for n in [1usize, 2, 3, 7, 16, 17, 18, 40, 129, 300] {
            let mut p: Profile<1024> = Profile::new(1000);
            p.steps.clear();
            for i in 0..n {
                let at = u32::try_from(i).unwrap() * 10;
                let free = if i + 1 == n {
                    1000
                } else {
                    u32::try_from(i % 7).unwrap()
                };
                p.steps.push(Step { at, free }).unwrap();
            }
            let last = u32::try_from(n).unwrap() * 10;
            for t in (0..last + 15).step_by(5) {
                let plain = p.steps.partition_point(|s| s.at <= t);
                assert_eq!(steps_through(&p.steps, t), plain, "n {n}, t {t}");
                let expected = plain.saturating_sub(1);
                assert_eq!(p.index_at(t), expected, "n {n}, t {t}");
                for hint in [
                    0,
                    1,
                    2,
                    expected,
                    expected + 1,
                    expected.saturating_sub(1),
                    n / 2,
                    n - 1,
                    n,
                    n + 5,
                ] {
                    assert_eq!(p.index_near(t, hint), expected, "n {n}, t {t}, hint {hint}");
                    let mut h = hint;
                    let near = p.blocked_since_near(t, 3, 16, 0, &mut h);
                    let full = p.blocked_since(t, 3, 16);
                    assert_eq!(near, full, "n {n}, t {t}, hint {hint}");
                    if t > 0 {
                        assert_eq!(h, p.index_at(t - 1), "n {n}, t {t}, hint {hint}");
                    }
                    // With a floor (every step start among them): the same
                    // answer to "before the floor?", and the exact one when
                    // it is not.
                    let starts = p.steps.iter().map(|s| s.at);
                    for floor in [1, full + 1, t.saturating_sub(7), t + 1]
                        .into_iter()
                        .chain(starts)
                    {
                        let cut = p.blocked_since_near(t, 3, 16, floor, &mut h);
                        assert_eq!(cut < floor, full < floor, "n {n}, t {t}, floor {floor}");
                        assert!(cut >= full && (cut < floor || cut == full), "n {n}, t {t}");
                    }
                }
            }
        }
    }

    /// Each invariant of the module docs, broken by hand, is named.
    #[test]
    fn validate_names_each_broken_invariant() {
        let broken = |steps: &[(Time, u32)]| {
            let mut p: Profile<8> = Profile::new(10);
            p.steps.clear();
            for &(at, free) in steps {
                p.steps.push(Step { at, free }).unwrap();
            }
            p.validate()
        };
        assert_eq!(broken(&[(0, 10)]), Ok(()));
        assert_eq!(broken(&[(0, 5), (10, 10)]), Ok(()));
        assert_eq!(broken(&[]), Err(ProfileError::Invariant(1)));
        assert_eq!(broken(&[(0, 5), (0, 10)]), Err(ProfileError::Invariant(1)));
        assert_eq!(
            broken(&[(0, 11), (10, 10)]),
            Err(ProfileError::Invariant(2))
        );
        assert_eq!(broken(&[(0, 10), (10, 5)]), Err(ProfileError::Invariant(3)));
        assert_eq!(
            broken(&[(0, 5), (10, 5), (20, 10)]),
            Err(ProfileError::Invariant(4))
        );
    }

    #[test]
    fn errors_say_what_went_wrong() {
        let mut p: Profile<8> = Profile::new(4);
        let e = p.reserve(0, 10, 5).unwrap_err();
        assert_eq!(e, ProfileError::Insufficient);
        assert_eq!(std::format!("{e}"), "not enough free units in the interval");
        assert_eq!(
            std::format!("{}", ProfileError::Invariant(3)),
            "profile invariant 3 broken"
        );
    }

    #[test]
    fn reserve_splits_and_release_merges() {
        let mut p: Profile<16> = Profile::new(10);
        p.reserve(5, 10, 3).unwrap();
        assert_eq!(steps(&p), [(0, 10), (5, 7), (15, 10)]);
        p.reserve(10, 10, 7).unwrap();
        assert_eq!(steps(&p), [(0, 10), (5, 7), (10, 0), (15, 3), (20, 10)]);
        p.validate().unwrap();
        p.release(5, 10, 3).unwrap();
        assert_eq!(steps(&p), [(0, 10), (10, 3), (20, 10)]);
        p.release(10, 10, 7).unwrap();
        assert_eq!(steps(&p), [(0, 10)]);
        p.validate().unwrap();
    }

    #[test]
    fn adjacent_reservations_merge() {
        let mut p: Profile<8> = Profile::new(4);
        p.reserve(0, 10, 2).unwrap();
        p.reserve(10, 10, 2).unwrap();
        assert_eq!(steps(&p), [(0, 2), (20, 4)]);
    }

    #[test]
    fn earliest_fit_skips_blocked_steps() {
        let mut p: Profile<16> = Profile::new(10);
        p.reserve(0, 100, 8).unwrap(); // 2 free until 100
        p.reserve(120, 30, 9).unwrap(); // 1 free in [120, 150)
        assert_eq!(p.earliest_fit(0, 10, 2).unwrap(), Some(0));
        assert_eq!(p.earliest_fit(0, 10, 3).unwrap(), Some(100));
        assert_eq!(p.earliest_fit(0, 20, 3).unwrap(), Some(100));
        assert_eq!(
            p.earliest_fit(0, 21, 3).unwrap(),
            Some(150),
            "[100,121) hits the 1-free step"
        );
        assert_eq!(p.earliest_fit(0, 1, 11).unwrap(), None);
        assert_eq!(p.earliest_fit(130, 5, 1).unwrap(), Some(130));
        assert_eq!(p.min_free(90, 40).unwrap(), 1);
        assert!(p.fits(100, 20, 10).unwrap());
    }

    /// Candidates skipped over a run of blocked steps are still tried in
    /// order: one past the limit ends the search, one whose end overflows
    /// is an error, as if each had been tried in full.
    #[test]
    fn earliest_fit_before_skips_blocked_steps_in_order() {
        const MAX: Time = Time::MAX;
        let mut p: Profile<16> = Profile::new(4);
        p.reserve(MAX - 100, 40, 4).unwrap(); // none free in [MAX-100, MAX-60)
        p.reserve(MAX - 60, 10, 3).unwrap(); // 1 free in [MAX-60, MAX-50)
        p.reserve(100, 50, 3).unwrap(); // 1 free in [100, 150)
        let fit =
            |from, duration, need, limit| p.earliest_fit_before(from, duration, need, MAX, limit);
        assert_eq!(fit(0, 101, 2, 1000), Ok(Some(150)));
        assert_eq!(fit(0, 101, 2, 150), Ok(None), "150 is the limit");
        assert_eq!(fit(0, 100, 2, 1000), Ok(Some(0)));
        assert_eq!(
            fit(MAX - 200, 150, 4, MAX),
            Err(ProfileError::TimeOverflow),
            "MAX-60 + 150"
        );
        assert_eq!(
            fit(MAX - 200, 150, 4, MAX - 60),
            Ok(None),
            "MAX-60 is past the limit"
        );
        assert_eq!(fit(MAX - 200, 100, 4, MAX), Ok(Some(MAX - 200)));
        // Held from MAX-100 on, the blocked steps are the job's own.
        assert_eq!(
            p.earliest_fit_before(MAX - 200, 150, 4, MAX - 100, MAX - 100),
            Ok(Some(MAX - 200))
        );
    }

    #[test]
    fn half_open_intervals_touch_without_overlap() {
        let mut p: Profile<8> = Profile::new(1);
        p.reserve(0, 10, 1).unwrap();
        assert_eq!(p.earliest_fit(0, 5, 1).unwrap(), Some(10));
        assert!(p.reserve(9, 1, 1).is_err());
        p.reserve(10, 1, 1).unwrap();
    }

    #[test]
    fn failures_leave_the_profile_unchanged() {
        let mut p: Profile<4> = Profile::new(4);
        p.reserve(10, 10, 2).unwrap();
        let before = steps(&p);
        assert_eq!(p.reserve(5, 10, 3), Err(ProfileError::Insufficient));
        assert_eq!(p.release(0, 30, 1), Err(ProfileError::OverRelease));
        assert_eq!(p.reserve(1, 2, 1), Err(ProfileError::Full));
        assert_eq!(p.reserve(u32::MAX, 1, 1), Err(ProfileError::TimeOverflow));
        assert_eq!(steps(&p), before);
        p.validate().unwrap();
    }

    #[test]
    fn advance_drops_history() {
        let mut p: Profile<8> = Profile::new(4);
        p.reserve(0, 10, 1).unwrap();
        p.reserve(10, 10, 2).unwrap();
        p.advance(12);
        assert_eq!(steps(&p), [(12, 2), (20, 4)]);
        assert_eq!(p.reserve(11, 1, 1), Err(ProfileError::BeforeOrigin));
        // Releasing an interval that began in the past frees only its future part.
        p.release(10, 10, 2).unwrap();
        assert_eq!(steps(&p), [(12, 4)]);
        p.advance(100);
        assert_eq!(steps(&p), [(100, 4)]);
    }

    #[test]
    fn zero_amount_and_zero_duration_are_no_ops() {
        let mut p: Profile<4> = Profile::new(4);
        p.reserve(3, 0, 4).unwrap();
        p.reserve(3, 5, 0).unwrap();
        assert_eq!(steps(&p), [(0, 4)]);
        assert_eq!(p.earliest_fit(7, 0, 4).unwrap(), Some(7));
    }

    /// The sweep gives what reserving the intervals one by one gives, in
    /// any order; refuses more than the capacity at an instant and more
    /// steps than `B`, leaving the profile all free from the origin; and
    /// needs room for its result only.
    #[test]
    fn rebuild_sweeps_to_what_reserving_gives() {
        let mut rng = crate::rng::SplitMix64::new(17);
        let (mut built, mut over, mut full) = (0, 0, 0);
        for case in 0..3000 {
            let cap = 1 + rng.below(6) as u32;
            let origin = rng.below(20) as Time;
            let intervals: std::vec::Vec<(Time, Time, u32)> = (0..rng.below(8))
                .map(|_| {
                    let s = rng.below(60) as Time;
                    (
                        s,
                        s + rng.below(30) as Time,
                        1 + rng.below(u64::from(cap)) as u32,
                    )
                })
                .collect();
            let mut one: Profile<64> = Profile::new(cap);
            one.advance(origin);
            let reserved = intervals.iter().try_for_each(|&(s, e, n)| {
                let s = s.max(origin);
                if e <= s {
                    return Ok(());
                }
                one.reserve(s, e - s, n)
            });
            let mut swept: Profile<64> = Profile::new(cap);
            let result = swept.rebuild(origin, || intervals.iter().copied());
            match (reserved, result) {
                (Ok(()), Ok(())) => {
                    assert_eq!(steps(&swept), steps(&one), "case {case}");
                    swept.validate().unwrap();
                    // Room for the result alone is enough.
                    let mut tight: Profile<64> = Profile::new(cap);
                    let needed = steps(&one).len();
                    if (3..8).contains(&needed) {
                        let mut small: Profile<8> = Profile::new(cap);
                        small.rebuild(origin, || intervals.iter().copied()).unwrap();
                        assert_eq!(steps(&small), steps(&one));
                    }
                    tight
                        .rebuild(origin, || intervals.iter().rev().copied())
                        .unwrap();
                    assert_eq!(steps(&tight), steps(&one), "case {case}: order");
                    built += 1;
                }
                (Err(ProfileError::Insufficient), Err(ProfileError::Insufficient)) => {
                    assert_eq!(steps(&swept), [(origin, cap)]);
                    over += 1;
                }
                (a, b) => panic!("case {case}: one by one {a:?}, sweep {b:?}"),
            }
            let mut three: Profile<3> = Profile::new(cap);
            if three.rebuild(origin, || intervals.iter().copied()) == Err(ProfileError::Full) {
                assert_eq!(steps(&three), [(origin, cap)]);
                full += 1;
            }
        }
        assert!(
            built > 1000 && over > 100 && full > 100,
            "{built} {over} {full}"
        );
    }
}
