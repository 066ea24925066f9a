//! The scheduling policies, chosen at run time by value (no `dyn`).
//!
//! | policy | rule (DESIGN.md section 3) | source |
//! | --- | --- | --- |
//! | [`Policy::Fcfs`] | start jobs strictly in queue order while the head fits; no backfilling | baseline |
//! | [`Policy::Easy`] | start from the head while jobs fit; the first that does not gets a reservation at its shadow time; later jobs start now if they fit without delaying it | Lifka, EASY (1995); Mu'alem & Feitelson (2001) |
//! | [`Policy::SjfEasy`] | EASY with the queue ordered by estimate, shortest first (ties: submit, id); not starvation-free | Srinivasan et al., JSSPP 2002 |
//! | [`Policy::Conservative`] | every job gets a reservation on arrival at the earliest time it fits the plan; it starts at its reservation; after an early completion the plan is compressed in queue order, never moving a reservation later | Mu'alem & Feitelson (2001) |
//!
//! Queue order is FCFS, `(submit, id)`, unless the policy says otherwise.

/// A scheduling policy.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Policy {
    /// First come, first served, no backfilling.
    Fcfs,
    /// EASY (aggressive) backfilling: one reservation, for the queue head.
    Easy,
    /// EASY with shortest-estimate-first queue order.
    SjfEasy,
    /// Conservative backfilling: a reservation for every job, with compression.
    Conservative,
}

impl Policy {
    /// Every policy, in a fixed order (for sweeps, tests and fuzzing).
    pub const ALL: [Self; 4] = [Self::Fcfs, Self::Easy, Self::SjfEasy, Self::Conservative];

    /// The policy's command-line name.
    #[must_use]
    pub const fn name(self) -> &'static str {
        match self {
            Self::Fcfs => "fcfs",
            Self::Easy => "easy",
            Self::SjfEasy => "sjf-easy",
            Self::Conservative => "conservative",
        }
    }

    /// The policy with command-line name `name`.
    #[must_use]
    pub fn from_name(name: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|p| p.name() == name)
    }

    /// Whether every queued job gets a reservation (and compression applies).
    #[must_use]
    pub const fn reserves_all(self) -> bool {
        matches!(self, Self::Conservative)
    }

    /// Whether the head of the queue is guaranteed a start by its first
    /// reservation (EASY-style head reservation).
    #[must_use]
    pub const fn reserves_head(self) -> bool {
        matches!(self, Self::Easy | Self::SjfEasy)
    }

    /// Whether the policy guarantees that every job of a finite input starts.
    #[must_use]
    pub const fn starvation_free(self) -> bool {
        !matches!(self, Self::SjfEasy)
    }

    /// Whether the queue is ordered by estimate rather than by arrival.
    #[must_use]
    pub const fn shortest_first(self) -> bool {
        matches!(self, Self::SjfEasy)
    }
}

impl core::fmt::Display for Policy {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.write_str(self.name())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip() {
        for p in Policy::ALL {
            assert_eq!(Policy::from_name(p.name()), Some(p));
        }
        assert_eq!(Policy::from_name("nope"), None);
    }
}
