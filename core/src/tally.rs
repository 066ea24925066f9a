//! [`Tally`]: what the head-reservation policies need to know about one
//! machine without licenses, instead of a plan.
//!
//! FCFS, EASY and SJF-EASY on a single machine ask only two questions: how
//! many processors are free now, and when the running jobs, held until their
//! estimated ends, leave enough free for the queue head (its *shadow time*)
//! and how many are spare then. Both are answered from a free-processor
//! counter and the running jobs' estimated ends, kept sorted with the
//! processors each end gives back. A start or an end is one binary search
//! and a short shift; no profile of steps is rewritten, and the head's
//! reservation is never placed or lifted.
//!
//! Invariant: `free + sum(procs over ends) == cpus`; the ends are strictly
//! increasing and each gives back at least one processor.

use crate::types::{Machine, Procs, Time};
use heapless::Vec;

/// Free processors now and the running jobs' estimated ends, for at most `R`
/// running jobs.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Tally<const R: usize> {
    /// The machine counted (its processors, and its speed for durations).
    machine: Machine,
    cpus: Procs,
    free: Procs,
    /// `(estimated end, processors given back then)`, by end.
    ends: Vec<(Time, Procs), R>,
    /// Releases so far (wrapping): a pass can tell whether any job ended
    /// since the last one.
    releases: u64,
}

/// Why the tally refused a change (the caller's bookkeeping is wrong, or the
/// running set is full).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum TallyError {
    /// More processors than are free, or given back more than were held.
    Mismatch,
    /// More distinct ends than `R`.
    Full,
}

impl<const R: usize> Tally<R> {
    /// `machine`, all its processors free.
    pub(crate) const fn new(machine: Machine) -> Self {
        Self {
            machine,
            cpus: machine.cpus,
            free: machine.cpus,
            ends: Vec::new(),
            releases: 0,
        }
    }

    /// As [`Tally::new`] for `machine`, in place.
    pub(crate) fn renew(&mut self, machine: Machine) {
        self.machine = machine;
        self.cpus = machine.cpus;
        self.free = machine.cpus;
        self.ends.clear();
        self.releases = 0;
    }

    /// The machine counted.
    pub(crate) const fn machine(&self) -> Machine {
        self.machine
    }

    /// Processors free now.
    pub(crate) const fn free(&self) -> Procs {
        self.free
    }

    /// A job of `procs` processors starts now and holds them until `end`.
    pub(crate) fn hold(&mut self, end: Time, procs: Procs) -> Result<(), TallyError> {
        let free = self.free.checked_sub(procs).ok_or(TallyError::Mismatch)?;
        match self.ends.binary_search_by_key(&end, |&(t, _)| t) {
            Ok(at) => {
                let entry = self.ends.get_mut(at).ok_or(TallyError::Mismatch)?;
                entry.1 = entry.1.checked_add(procs).ok_or(TallyError::Mismatch)?;
            }
            Err(at) => self
                .ends
                .insert(at, (end, procs))
                .map_err(|_| TallyError::Full)?,
        }
        self.free = free;
        Ok(())
    }

    /// A job that held `procs` processors until `end` gives them back.
    pub(crate) fn release(&mut self, end: Time, procs: Procs) -> Result<(), TallyError> {
        let at = self
            .ends
            .binary_search_by_key(&end, |&(t, _)| t)
            .map_err(|_| TallyError::Mismatch)?;
        let entry = self.ends.get_mut(at).ok_or(TallyError::Mismatch)?;
        let left = entry.1.checked_sub(procs).ok_or(TallyError::Mismatch)?;
        let free = self.free.checked_add(procs).ok_or(TallyError::Mismatch)?;
        if free > self.cpus {
            return Err(TallyError::Mismatch);
        }
        if left == 0 {
            self.ends.remove(at);
        } else {
            entry.1 = left;
        }
        self.free = free;
        self.releases = self.releases.wrapping_add(1);
        Ok(())
    }

    /// The earliest estimated end of a job holding processors (`None`: none
    /// does).
    pub(crate) fn first_end(&self) -> Option<Time> {
        self.ends.first().map(|&(end, _)| end)
    }

    /// How many releases there have been (wrapping).
    pub(crate) const fn releases(&self) -> u64 {
        self.releases
    }

    /// The shadow time of a job of `need` processors that does not fit now:
    /// the earliest estimated end at which enough processors are free, and
    /// how many are spare then once it holds its own. `None` when the
    /// machine is too small, or when it fits now (then it is no shadow).
    pub(crate) fn shadow(&self, need: Procs) -> Option<(Time, Procs)> {
        if need <= self.free {
            return None;
        }
        let mut free = self.free;
        for &(end, procs) in &self.ends {
            free = free.saturating_add(procs);
            if free >= need {
                return Some((end, free.saturating_sub(need)));
            }
        }
        None
    }

    /// Checks the invariant against the jobs said to hold processors:
    /// `held` lists `(estimated end, processors)` once per running job.
    pub(crate) fn agrees_with(&self, held: impl Iterator<Item = (Time, Procs)> + Clone) -> bool {
        let total = held.clone().map(|(_, p)| u64::from(p)).sum::<u64>();
        if u64::from(self.free).saturating_add(total) != u64::from(self.cpus) {
            return false;
        }
        let increasing = self
            .ends
            .windows(2)
            .all(|w| matches!(w, [a, b] if a.0 < b.0));
        increasing
            && self.ends.iter().all(|&(end, procs)| {
                let at_end = held
                    .clone()
                    .filter(|&(t, _)| t == end)
                    .map(|(_, p)| u64::from(p))
                    .sum::<u64>();
                procs > 0 && at_end == u64::from(procs)
            })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn holds_merge_by_end_and_release_in_any_order() {
        let mut t: Tally<4> = Tally::new(Machine::new(10));
        t.hold(50, 3).unwrap();
        t.hold(20, 2).unwrap();
        t.hold(50, 1).unwrap();
        assert_eq!(t.free(), 4);
        assert_eq!(t.ends.as_slice(), &[(20, 2), (50, 4)]);
        assert!(t.agrees_with([(50, 3), (20, 2), (50, 1)].into_iter()));
        t.release(50, 3).unwrap();
        assert_eq!(t.ends.as_slice(), &[(20, 2), (50, 1)]);
        t.release(20, 2).unwrap();
        assert_eq!(t.ends.as_slice(), &[(50, 1)]);
        assert_eq!(t.free(), 9);
        assert!(t.agrees_with([(50, 1)].into_iter()));
        assert!(!t.agrees_with([(50, 2)].into_iter()));
        assert!(!t.agrees_with([(40, 1)].into_iter()));
    }

    /// `agrees_with` checks the whole invariant: ends strictly increasing,
    /// each giving back at least one processor.
    #[test]
    fn agrees_with_refuses_empty_or_unordered_ends() {
        let mut t: Tally<4> = Tally::new(Machine::new(10));
        t.hold(20, 2).unwrap();
        t.hold(50, 3).unwrap();
        let held = [(20, 2), (50, 3)];
        assert!(t.agrees_with(held.into_iter()));
        // An end that gives nothing back.
        let mut empty = t.clone();
        empty.ends.insert(1, (30, 0)).unwrap();
        assert!(!empty.agrees_with(held.into_iter()));
        // Ends out of order, or one end twice.
        let mut swapped = t.clone();
        swapped.ends.swap(0, 1);
        assert!(!swapped.agrees_with(held.into_iter()));
        let mut twice = t.clone();
        twice.ends = Vec::from_slice(&[(20, 2), (20, 2), (50, 3)]).unwrap();
        assert!(!twice.agrees_with(held.into_iter()));
    }

    #[test]
    fn refuses_what_does_not_add_up() {
        let mut t: Tally<1> = Tally::new(Machine::new(4));
        assert_eq!(t.hold(10, 5), Err(TallyError::Mismatch));
        t.hold(10, 2).unwrap();
        assert_eq!(t.hold(20, 1), Err(TallyError::Full));
        assert_eq!(t.release(20, 1), Err(TallyError::Mismatch));
        assert_eq!(t.release(10, 3), Err(TallyError::Mismatch));
        // Failures change nothing.
        assert_eq!(t.free(), 2);
        assert_eq!(t.ends.as_slice(), &[(10, 2)]);
    }

    #[test]
    fn shadow_is_the_first_end_that_frees_enough() {
        let mut t: Tally<8> = Tally::new(Machine::new(10));
        t.hold(30, 4).unwrap();
        t.hold(10, 3).unwrap();
        t.hold(20, 2).unwrap();
        // 1 free now; +3 at 10, +2 at 20, +4 at 30.
        assert_eq!(t.shadow(1), None, "fits now");
        assert_eq!(t.shadow(2), Some((10, 2)));
        assert_eq!(t.shadow(4), Some((10, 0)));
        assert_eq!(t.shadow(5), Some((20, 1)));
        assert_eq!(t.shadow(6), Some((20, 0)));
        assert_eq!(t.shadow(7), Some((30, 3)));
        assert_eq!(t.shadow(10), Some((30, 0)));
        assert_eq!(t.shadow(11), None, "wider than the machine");
    }
}
