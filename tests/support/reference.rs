//! A per-second reference model of [`Profile`](backfill_core::Profile).
//!
//! The model keeps one free count per second over a small horizon
//! ([`HORIZON`]; every later second has all units free) and answers each
//! profile question by brute force, so the fuzz target `profile_ops` can
//! compare the real profile's answers and its exact step list against it.
//!
//! Conventions it mirrors from the profile's docs: intervals are half-open;
//! times before the origin are history (reserving there is an error,
//! releasing there is ignored); a zero-length window `[t, t)` looks at the
//! instant `t` (as [`Profile::min_free`](backfill_core::Profile::min_free)
//! does); reserving or releasing zero units or zero seconds changes nothing.

use backfill_core::{ProfileError, Step, Time};

/// Seconds the model tracks explicitly; from here on every unit is free.
pub const HORIZON: Time = 160;

/// Free units per second from the origin up to [`HORIZON`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RefProfile {
    capacity: u32,
    origin: Time,
    free: Vec<u32>,
}

/// `start + duration`, or the error a profile gives when it overflows.
fn end_of(start: Time, duration: u32) -> Result<Time, ProfileError> {
    start
        .checked_add(duration)
        .ok_or(ProfileError::TimeOverflow)
}

impl RefProfile {
    /// All `capacity` units free from time 0.
    #[must_use]
    pub fn new(capacity: u32) -> Self {
        Self {
            capacity,
            origin: 0,
            free: vec![capacity; HORIZON as usize],
        }
    }

    /// The origin (the first instant not forgotten).
    #[must_use]
    pub const fn origin(&self) -> Time {
        self.origin
    }

    /// Free units at second `t` (`t >= origin` is meant; earlier seconds
    /// read as the origin).
    #[must_use]
    pub fn free(&self, t: Time) -> u32 {
        let t = t.max(self.origin);
        self.free.get(t as usize).copied().unwrap_or(self.capacity)
    }

    /// The canonical step list the real profile must hold: a step at the
    /// origin, then one wherever the free count changes.
    #[must_use]
    pub fn steps(&self) -> Vec<Step> {
        let mut steps = vec![Step {
            at: self.origin,
            free: self.free(self.origin),
        }];
        for t in self.origin + 1..=HORIZON {
            let free = self.free(t);
            if free != self.free(t - 1) {
                steps.push(Step { at: t, free });
            }
        }
        steps
    }

    /// Whether no step begins at `t` (a reservation edge there needs a split).
    fn missing(&self, t: Time) -> bool {
        !(t == self.origin || (t > self.origin && self.free(t) != self.free(t - 1)))
    }

    /// Steps a change over `[start, end)` needs before merging, as the
    /// profile counts them (one per edge that is not yet a step).
    #[must_use]
    pub fn steps_needed(&self, start: Time, end: Time) -> usize {
        self.steps().len() + usize::from(self.missing(start)) + usize::from(self.missing(end))
    }

    /// What [`Profile::reserve`](backfill_core::Profile::reserve) must do,
    /// with `limit` steps of room: applied here too when `Ok`.
    ///
    /// # Errors
    /// The error the profile must return.
    pub fn reserve(
        &mut self,
        start: Time,
        duration: u32,
        amount: u32,
        limit: usize,
    ) -> Result<(), ProfileError> {
        let end = end_of(start, duration)?;
        if start < self.origin {
            return Err(ProfileError::BeforeOrigin);
        }
        if amount == 0 || duration == 0 {
            return Ok(());
        }
        if (start..end).any(|t| self.free(t) < amount) {
            return Err(ProfileError::Insufficient);
        }
        self.apply(start, end, amount, false, limit)
    }

    /// What [`Profile::release`](backfill_core::Profile::release) must do.
    ///
    /// # Errors
    /// The error the profile must return.
    pub fn release(
        &mut self,
        start: Time,
        duration: u32,
        amount: u32,
        limit: usize,
    ) -> Result<(), ProfileError> {
        let end = end_of(start, duration)?;
        let start = start.max(self.origin);
        if end <= start || amount == 0 {
            return Ok(());
        }
        if (start..end)
            .any(|t| u64::from(self.free(t)) + u64::from(amount) > u64::from(self.capacity))
        {
            return Err(ProfileError::OverRelease);
        }
        self.apply(start, end, amount, true, limit)
    }

    /// Takes (or, with `release`, gives back) `amount` over `[start, end)`
    /// when the profile has the steps for it within `limit`.
    fn apply(
        &mut self,
        start: Time,
        end: Time,
        amount: u32,
        release: bool,
        limit: usize,
    ) -> Result<(), ProfileError> {
        if self.steps_needed(start, end) > limit {
            return Err(ProfileError::Full);
        }
        self.add(start, end, amount, release);
        Ok(())
    }

    /// What [`Profile::shift_earlier`](backfill_core::Profile::shift_earlier)
    /// must do with `limit` steps of room (applied here too when `Ok`):
    /// take `[new, old)` and give back `[new + d, old + d)`, all or nothing,
    /// and tell the most free in the part given back.
    ///
    /// # Errors
    /// The error the profile must return.
    pub fn shift_earlier(
        &mut self,
        old: Time,
        new: Time,
        duration: u32,
        amount: u32,
        limit: usize,
    ) -> Result<u32, ProfileError> {
        let new_end = end_of(new, duration)?;
        let old_end = end_of(old, duration)?;
        if !(new < old && old < new_end) {
            return Err(ProfileError::Insufficient);
        }
        if new < self.origin {
            return Err(ProfileError::BeforeOrigin);
        }
        if (new..old).any(|t| self.free(t) < amount) {
            return Err(ProfileError::Insufficient);
        }
        if (new_end..old_end)
            .any(|t| u64::from(self.free(t)) + u64::from(amount) > u64::from(self.capacity))
        {
            return Err(ProfileError::OverRelease);
        }
        let splits = [new, old, new_end, old_end]
            .iter()
            .filter(|&&t| self.missing(t))
            .count();
        if self.steps().len() + splits > limit {
            return Err(ProfileError::Full);
        }
        self.add(new, old, amount, false);
        self.add(new_end, old_end, amount, true);
        Ok(self.max_free(new_end, old_end))
    }

    fn add(&mut self, start: Time, end: Time, amount: u32, give: bool) {
        assert!(end <= HORIZON, "reference horizon too short");
        for f in &mut self.free[start as usize..end as usize] {
            *f = if give { *f + amount } else { *f - amount };
        }
    }

    /// The smallest free count over `[start, start + duration)`, reading at
    /// least the instant `max(start, origin)`.
    #[must_use]
    pub fn min_free(&self, start: Time, duration: u32) -> u32 {
        let from = start.max(self.origin);
        let end = start.saturating_add(duration).max(from + 1);
        (from..end.min(HORIZON + 1))
            .map(|t| self.free(t))
            .min()
            .unwrap_or(self.capacity)
    }

    /// The earliest `t >= max(from, origin)` with `need` units free over
    /// `[t, t + duration)` (at the instant `t` when `duration` is 0); `None`
    /// when `need` exceeds the capacity.
    #[must_use]
    pub fn earliest_fit(&self, from: Time, duration: u32, need: u32) -> Option<Time> {
        if need > self.capacity {
            return None;
        }
        let first = from.max(self.origin);
        let found = (first..=HORIZON.max(first)).find(|&t| {
            let end = t + duration.max(1);
            (t..end).all(|x| self.free(x) >= need)
        });
        Some(found.expect("every unit is free from the horizon on"))
    }

    /// The largest free count over `[start, end)` (0 when the interval is
    /// empty), reading at least the instant `max(start, origin)`.
    #[must_use]
    pub fn max_free(&self, start: Time, end: Time) -> u32 {
        if end <= start {
            return 0;
        }
        let from = start.max(self.origin);
        let end = end.max(from + 1).min(HORIZON + 1);
        (from..end)
            .map(|t| self.free(t))
            .max()
            .unwrap_or(self.capacity)
    }

    /// What [`Profile::earliest_fit_before`](backfill_core::Profile::earliest_fit_before)
    /// must answer: the earliest `t` in `[max(from, origin), limit)` with
    /// `need` units free over `[t, min(t + duration, held_from))` (at least
    /// the instant `t`).
    #[must_use]
    pub fn earliest_fit_before(
        &self,
        from: Time,
        duration: u32,
        need: u32,
        held_from: Time,
        limit: Time,
    ) -> Option<Time> {
        let first = from.max(self.origin);
        (first..limit.min(HORIZON + 1)).find(|&t| {
            let end = (t + duration).min(held_from).max(t + 1);
            (t..end).all(|x| self.free(x) >= need)
        })
    }

    /// All units free from `origin` on.
    pub fn reset(&mut self, origin: Time) {
        self.origin = origin;
        self.free.fill(self.capacity);
    }

    /// Forgets everything before `now` (nothing when `now` is not after the origin).
    pub fn advance(&mut self, now: Time) {
        self.origin = self.origin.max(now);
    }
}
