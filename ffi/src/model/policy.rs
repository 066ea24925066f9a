//! The policy as C sets it up: a kind and the options of every family, with
//! the defaults of each kind and the checks that refuse what the kernel
//! would not use.
//!
//! Every field is a plain integer (C may leave any value in it). A kind
//! reads only its own options; the others must keep the values
//! [`default_of`] gives that kind, so that no option is silently ignored.
#![forbid(unsafe_code)]
#![allow(non_camel_case_types)]

use backfill_core::policy::{Heuristics, Iterations, RandomSearch, Threshold};
use backfill_core::{CategoryBounds, Policy};
use core::ffi::CStr;

/// The policy families and their variants, in the order of the kernel's
/// `Policy::ALL` (`bf_policy.kind`).
#[repr(u32)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum bf_policy_kind {
    /// First come, first served, no backfilling.
    BF_POLICY_FCFS = 0,
    /// EASY backfilling: one reservation, for the queue head.
    BF_POLICY_EASY = 1,
    /// EASY with the queue ordered by estimate, shortest first.
    BF_POLICY_SJF_EASY = 2,
    /// Conservative backfilling: a reservation for every job, compressed
    /// after every completion.
    BF_POLICY_CONSERVATIVE = 3,
    /// Selective reservation with one threshold (`selective.threshold`).
    BF_POLICY_SELECTIVE = 4,
    /// Selective-D: a threshold per job category (`selective.thresholds`,
    /// categories by `selective.short_max` and `selective.narrow_max`).
    BF_POLICY_SELECTIVE_D = 5,
    /// Selective with the running mean bounded slowdown as threshold
    /// (`selective.scale`, default 1.0; `initial`; `well_estimated_only`).
    BF_POLICY_SELECTIVE_ADAPTIVE = 6,
    /// As `BF_POLICY_SELECTIVE_ADAPTIVE` with `selective.scale` 1.5 by
    /// default.
    BF_POLICY_SELECTIVE_SCALED = 7,
    /// Conservative whose reservations are never revisited (no compression).
    BF_POLICY_CONSERVATIVE_NO_COMPRESSION = 8,
    /// CONS+RS: Conservative, then a seeded random search after every early
    /// completion (`cons_rs`).
    BF_POLICY_CONS_RS = 9,
    /// BF_FCFS: EASY on a farm, machines tried most powerful first.
    BF_POLICY_BF_FCFS = 10,
    /// BF_UNMOD: flexible backfilling by the `heuristics`' priority; the
    /// head keeps its reservation.
    BF_POLICY_BF_UNMOD = 11,
    /// BF_MOD: as BF_UNMOD, the reservation follows the priority.
    BF_POLICY_BF_MOD = 12,
    /// DPSA-p: EASY, then the start set using the most processors, ties in
    /// queue order (`dpsa.nodes`).
    BF_POLICY_DPSA_P = 13,
    /// DPSA-n: as DPSA-p, ties to narrow jobs.
    BF_POLICY_DPSA_N = 14,
    /// DPSA-w: as DPSA-p, ties to wide jobs.
    BF_POLICY_DPSA_W = 15,
}

/// How `bf_cons_rs_options.iterations` counts.
#[repr(u32)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum bf_rs_iterations {
    /// `iterations` per job waiting when the search starts (default, 4).
    BF_RS_PER_QUEUED_JOB = 0,
    /// `iterations` per search, whatever the queue.
    BF_RS_FIXED = 1,
}

/// Selective reservation's options. Thresholds are expansion factors in
/// thousandths (2000 is 2.0), at least 1000.
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct bf_selective_options {
    /// `BF_POLICY_SELECTIVE`: the threshold (default 2000).
    pub threshold: u32,
    /// `BF_POLICY_SELECTIVE_D`: the thresholds of short-narrow,
    /// short-wide, long-narrow and long-wide jobs (default 4000, 8000,
    /// 1500, 2000).
    pub thresholds: [u32; 4],
    /// `BF_POLICY_SELECTIVE_D`: the longest estimate of a short job,
    /// seconds (default 3600).
    pub short_max: u32,
    /// `BF_POLICY_SELECTIVE_D`: the most processors of a narrow job
    /// (default 8).
    pub narrow_max: u32,
    /// Adaptive and scaled: the factor on the mean slowdown, thousandths,
    /// at least 1 (default 1000; scaled 1500).
    pub scale: u32,
    /// Adaptive and scaled: the threshold before any job completed,
    /// thousandths, at least 1000 (default 1000).
    pub initial: u32,
    /// Adaptive and scaled: 1 to average only well-estimated jobs (run time
    /// at least half the estimate), 0 for all (default 0).
    pub well_estimated_only: u32,
}

/// CONS+RS's options.
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct bf_cons_rs_options {
    /// The random search's seed (default 0).
    pub seed: u64,
    /// How `iterations` counts: a `bf_rs_iterations` (default
    /// `BF_RS_PER_QUEUED_JOB`).
    pub iterations_mode: u32,
    /// Iterations of one search (default 4 per queued job).
    pub iterations: u32,
}

/// DPSA's options.
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct bf_dpsa_options {
    /// Search nodes per pass (default 100000; 0 keeps the greedy set, so
    /// DPSA-p with 0 is EASY).
    pub nodes: u32,
}

/// Flexible backfilling's heuristics (BF_UNMOD, BF_MOD): weights in
/// thousandths, scores in milli-points (the defaults: every weight 1000).
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct bf_heuristics {
    /// Weight of the aging score (default 1000).
    pub aging_weight: u32,
    /// Aging: milli-points per second of wait (default 1).
    pub age_factor: u32,
    /// Weight of the deadline score (default 1000).
    pub deadline_weight: u32,
    /// Deadline: the score far from the deadline (default 1000).
    pub deadline_min: u32,
    /// Deadline: the score at the deadline (default 10000).
    pub deadline_max: u32,
    /// Deadline: the score rises over the last `k` estimates before the
    /// deadline, thousandths (default 2000).
    pub deadline_k: u32,
    /// Weight of the licenses score (default 1000).
    pub license_weight: u32,
    /// Weight of the wait-minimisation score (default 1000).
    pub wait_weight: u32,
    /// Wait minimisation: the score of the shortest job (default 1000).
    pub wait_boost: u32,
}

/// A scheduling policy and its options: fill it with `bf_policy_default`,
/// then change the options of its kind.
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct bf_policy {
    /// A `bf_policy_kind`.
    pub kind: u32,
    /// The Selective kinds' options.
    pub selective: bf_selective_options,
    /// `BF_POLICY_CONS_RS`'s options.
    pub cons_rs: bf_cons_rs_options,
    /// The DPSA kinds' options.
    pub dpsa: bf_dpsa_options,
    /// `BF_POLICY_BF_UNMOD` and `BF_POLICY_BF_MOD`'s options.
    pub heuristics: bf_heuristics,
}

/// The kernel's policies in kind order.
const KINDS: [Policy; 16] = Policy::ALL;

/// The heuristics `$h` as a `$to`, field by field: core's `Heuristics` and
/// `bf_heuristics` have the same fields, listed once here for both ways.
macro_rules! heuristics_as {
    ($to:ident, $h:expr) => {
        $to {
            aging_weight: $h.aging_weight,
            age_factor: $h.age_factor,
            deadline_weight: $h.deadline_weight,
            deadline_min: $h.deadline_min,
            deadline_max: $h.deadline_max,
            deadline_k: $h.deadline_k,
            license_weight: $h.license_weight,
            wait_weight: $h.wait_weight,
            wait_boost: $h.wait_boost,
        }
    };
}

/// The heuristics as C sees them.
const fn heuristics_c(h: &Heuristics) -> bf_heuristics {
    heuristics_as!(bf_heuristics, h)
}

/// The heuristics from C.
const fn heuristics_of(h: &bf_heuristics) -> Heuristics {
    heuristics_as!(Heuristics, h)
}

/// Every option at the default of the kernel's examples (`Policy::ALL`):
/// what a kind that does not read an option leaves in it.
pub(crate) const BASE: bf_policy = bf_policy {
    kind: 0,
    selective: bf_selective_options {
        threshold: 2000,
        thresholds: [4000, 8000, 1500, 2000],
        short_max: CategoryBounds::DEFAULT.short_max,
        narrow_max: CategoryBounds::DEFAULT.narrow_max,
        scale: 1000,
        initial: 1000,
        well_estimated_only: 0,
    },
    cons_rs: bf_cons_rs_options {
        seed: 0,
        iterations_mode: bf_rs_iterations::BF_RS_PER_QUEUED_JOB as u32,
        iterations: 4,
    },
    dpsa: bf_dpsa_options {
        nodes: backfill_core::policy::DEFAULT_DPSA_NODES,
    },
    heuristics: heuristics_c(&Heuristics::DEFAULT),
};

/// The defaults of kind `kind` (`None`: no such kind): the kernel's policy
/// `Policy::ALL[kind]` (Selective with its example thresholds, CONS+RS with
/// seed 0 and 4 iterations per queued job, DPSA with 100,000 nodes, the
/// default heuristics).
#[must_use]
pub fn default_of(kind: u32) -> Option<bf_policy> {
    to_c(*KINDS.get(usize::try_from(kind).ok()?)?)
}

/// The C form of `policy`; `None` for a policy without a
/// [`bf_policy_kind`] (the kernel's option variants, Conservative with the
/// rebuild compression and the Alea flavour of CONS+RS, which a checkpoint
/// written by a Rust host can bring into a C kernel).
#[must_use]
pub fn to_c(policy: Policy) -> Option<bf_policy> {
    let mut c = BASE;
    c.kind = KINDS
        .iter()
        .position(|p| p.name() == policy.name())
        .and_then(|i| u32::try_from(i).ok())?;
    match policy {
        Policy::Selective(Threshold::Fixed(t)) => c.selective.threshold = t,
        Policy::Selective(Threshold::PerCategory { thresholds, bounds }) => {
            c.selective.thresholds = thresholds;
            c.selective.short_max = bounds.short_max;
            c.selective.narrow_max = bounds.narrow_max;
        }
        Policy::Selective(Threshold::Adaptive {
            scale,
            well_estimated_only,
            initial,
        }) => {
            c.selective.scale = scale;
            c.selective.initial = initial;
            c.selective.well_estimated_only = u32::from(well_estimated_only);
        }
        Policy::ConsRs(RandomSearch { seed, iterations }) => {
            c.cons_rs.seed = seed;
            (c.cons_rs.iterations_mode, c.cons_rs.iterations) = match iterations {
                Iterations::PerQueuedJob(n) => (bf_rs_iterations::BF_RS_PER_QUEUED_JOB as u32, n),
                Iterations::Fixed(n) => (bf_rs_iterations::BF_RS_FIXED as u32, n),
            };
        }
        Policy::Dpsa { nodes, .. } => c.dpsa.nodes = nodes,
        Policy::BfUnmod(h) | Policy::BfMod(h) => c.heuristics = heuristics_c(&h),
        _ => {}
    }
    Some(c)
}

/// The option groups a kind reads.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Reads {
    Nothing,
    Threshold,
    PerCategory,
    Adaptive,
    RandomSearch,
    Nodes,
    Heuristics,
}

/// What kind `policy` reads.
const fn reads(policy: Policy) -> Reads {
    match policy {
        Policy::Selective(Threshold::Fixed(_)) => Reads::Threshold,
        Policy::Selective(Threshold::PerCategory { .. }) => Reads::PerCategory,
        Policy::Selective(Threshold::Adaptive { .. }) => Reads::Adaptive,
        Policy::ConsRs(_) => Reads::RandomSearch,
        Policy::Dpsa { .. } => Reads::Nodes,
        Policy::BfUnmod(_) | Policy::BfMod(_) => Reads::Heuristics,
        _ => Reads::Nothing,
    }
}

/// The kernel's policy for `c`, or which option is wrong and why (a
/// static text naming the field).
///
/// # Errors
/// An unknown kind, an option out of range, or an option the kind does not
/// read that differs from the kind's default.
pub fn of_c(c: &bf_policy) -> Result<Policy, &'static CStr> {
    let kind = usize::try_from(c.kind).unwrap_or(usize::MAX);
    let not_a_kind = c"kind: not a bf_policy_kind (0 to 15)";
    let base = *KINDS.get(kind).ok_or(not_a_kind)?;
    let defaults = to_c(base).ok_or(not_a_kind)?;
    let reads = reads(base);
    let (s, d) = (&c.selective, &defaults.selective);
    let unused = |group: Reads, same: bool, why: &'static CStr| {
        if reads != group && !same {
            Err(why)
        } else {
            Ok(())
        }
    };
    unused(
        Reads::Threshold,
        s.threshold == d.threshold,
        c"selective.threshold: only BF_POLICY_SELECTIVE reads it",
    )?;
    unused(
        Reads::PerCategory,
        (s.thresholds, s.short_max, s.narrow_max) == (d.thresholds, d.short_max, d.narrow_max),
        c"selective.thresholds, short_max, narrow_max: only BF_POLICY_SELECTIVE_D reads them",
    )?;
    unused(
        Reads::Adaptive,
        (s.scale, s.initial, s.well_estimated_only) == (d.scale, d.initial, d.well_estimated_only),
        c"selective.scale, initial, well_estimated_only: only the adaptive and scaled kinds read them",
    )?;
    unused(
        Reads::RandomSearch,
        c.cons_rs == defaults.cons_rs,
        c"cons_rs: only BF_POLICY_CONS_RS reads it",
    )?;
    unused(
        Reads::Nodes,
        c.dpsa == defaults.dpsa,
        c"dpsa.nodes: only the DPSA kinds read it",
    )?;
    unused(
        Reads::Heuristics,
        c.heuristics == defaults.heuristics,
        c"heuristics: only BF_POLICY_BF_UNMOD and BF_POLICY_BF_MOD read them",
    )?;
    let threshold = |t: u32, why| if t < 1000 { Err(why) } else { Ok(t) };
    Ok(match base {
        Policy::Selective(Threshold::Fixed(_)) => Policy::Selective(Threshold::Fixed(threshold(
            s.threshold,
            c"selective.threshold: below 1000 (an expansion factor is at least 1)",
        )?)),
        Policy::Selective(Threshold::PerCategory { .. }) => {
            for t in s.thresholds {
                threshold(
                    t,
                    c"selective.thresholds: below 1000 (an expansion factor is at least 1)",
                )?;
            }
            Policy::Selective(Threshold::PerCategory {
                thresholds: s.thresholds,
                bounds: CategoryBounds {
                    short_max: s.short_max,
                    narrow_max: s.narrow_max,
                },
            })
        }
        Policy::Selective(Threshold::Adaptive { .. }) => {
            if s.scale == 0 {
                return Err(c"selective.scale: 0 (the factor must be positive)");
            }
            threshold(
                s.initial,
                c"selective.initial: below 1000 (an expansion factor is at least 1)",
            )?;
            let well_estimated_only = match s.well_estimated_only {
                0 => false,
                1 => true,
                _ => return Err(c"selective.well_estimated_only: neither 0 nor 1"),
            };
            Policy::Selective(Threshold::Adaptive {
                scale: s.scale,
                well_estimated_only,
                initial: s.initial,
            })
        }
        Policy::ConsRs(_) => {
            let n = c.cons_rs.iterations;
            let iterations = match c.cons_rs.iterations_mode {
                0 => Iterations::PerQueuedJob(n),
                1 => Iterations::Fixed(n),
                _ => return Err(c"cons_rs.iterations_mode: not a bf_rs_iterations (0 or 1)"),
            };
            Policy::ConsRs(RandomSearch {
                seed: c.cons_rs.seed,
                iterations,
            })
        }
        Policy::Dpsa { order, .. } => Policy::Dpsa {
            order,
            nodes: c.dpsa.nodes,
        },
        Policy::BfUnmod(_) => Policy::BfUnmod(heuristics_of(&c.heuristics)),
        Policy::BfMod(_) => Policy::BfMod(heuristics_of(&c.heuristics)),
        other => other,
    })
}

/// The kernel's name of kind `kind`, as a C string (`None`: no such kind).
#[must_use]
pub fn name_of(kind: u32) -> Option<&'static CStr> {
    const NAMES: [&CStr; 16] = [
        c"fcfs",
        c"easy",
        c"sjf-easy",
        c"conservative",
        c"selective",
        c"selective-d",
        c"selective-adaptive",
        c"selective-scaled",
        c"conservative-no-compression",
        c"cons-rs",
        c"bf-fcfs",
        c"bf-unmod",
        c"bf-mod",
        c"dpsa-p",
        c"dpsa-n",
        c"dpsa-w",
    ];
    NAMES.get(usize::try_from(kind).ok()?).copied()
}

#[cfg(test)]
mod tests {
    use super::*;
    use backfill_core::policy::DpsaOrder;

    /// DPSA's search order of a DPSA kind.
    fn order_of(policy: Policy) -> Option<DpsaOrder> {
        match policy {
            Policy::Dpsa { order, .. } => Some(order),
            _ => None,
        }
    }

    /// Kind `i`'s defaults are `Policy::ALL[i]`, and every policy survives
    /// the trip through C.
    #[test]
    fn defaults_are_the_kernels_policies() {
        for (i, policy) in Policy::ALL.into_iter().enumerate() {
            let kind = u32::try_from(i).unwrap();
            let c = default_of(kind).unwrap();
            assert_eq!(c.kind, kind);
            assert_eq!(of_c(&c), Ok(policy), "{policy}");
            assert_eq!(to_c(policy), Some(c));
            assert_eq!(
                name_of(kind).map(|n| n.to_str().unwrap()),
                Some(policy.name())
            );
        }
        assert_eq!(default_of(16), None);
        assert_eq!(name_of(16), None);
        assert_eq!(
            order_of(of_c(&default_of(15).unwrap()).unwrap()),
            Some(DpsaOrder::Wide)
        );
        assert_eq!(
            bf_policy_kind::BF_POLICY_DPSA_W as usize,
            Policy::ALL.len() - 1
        );
    }

    /// The kernel's option variants have no kind: they have no C form,
    /// rather than the form of another policy.
    #[test]
    fn option_variants_have_no_c_form() {
        for policy in Policy::OPTION_VARIANTS {
            assert_eq!(to_c(policy), None, "{policy}");
        }
    }

    /// Options take effect on their kind.
    #[test]
    fn options_take_effect() {
        let mut c = default_of(bf_policy_kind::BF_POLICY_SELECTIVE as u32).unwrap();
        c.selective.threshold = 26_690;
        assert_eq!(of_c(&c), Ok(Policy::Selective(Threshold::Fixed(26_690))));
        let mut c = default_of(bf_policy_kind::BF_POLICY_SELECTIVE_SCALED as u32).unwrap();
        c.selective.well_estimated_only = 1;
        c.selective.scale = 1700;
        assert_eq!(
            of_c(&c),
            Ok(Policy::Selective(Threshold::Adaptive {
                scale: 1700,
                well_estimated_only: true,
                initial: 1000
            }))
        );
        let mut c = default_of(bf_policy_kind::BF_POLICY_CONS_RS as u32).unwrap();
        c.cons_rs = bf_cons_rs_options {
            seed: 42,
            iterations_mode: bf_rs_iterations::BF_RS_FIXED as u32,
            iterations: 9,
        };
        assert_eq!(
            of_c(&c),
            Ok(Policy::ConsRs(RandomSearch {
                seed: 42,
                iterations: Iterations::Fixed(9)
            }))
        );
        let mut c = default_of(bf_policy_kind::BF_POLICY_DPSA_N as u32).unwrap();
        c.dpsa.nodes = 0;
        assert_eq!(of_c(&c), Ok(Policy::DPSA_N.with_dpsa_nodes(0)));
        let mut c = default_of(bf_policy_kind::BF_POLICY_BF_MOD as u32).unwrap();
        c.heuristics.deadline_weight = 0;
        assert_eq!(
            of_c(&c),
            Ok(Policy::BfMod(Heuristics {
                deadline_weight: 0,
                ..Heuristics::DEFAULT
            }))
        );
    }

    /// Out of range, or read by another kind: refused, naming the field.
    #[test]
    fn bad_or_unused_options_are_refused() {
        let easy = default_of(bf_policy_kind::BF_POLICY_EASY as u32).unwrap();
        let refused = |c: bf_policy, field: &str| {
            let why = of_c(&c).unwrap_err().to_str().unwrap();
            assert!(why.starts_with(field), "{why}");
        };
        refused(bf_policy { kind: 16, ..easy }, "kind");
        refused(
            bf_policy {
                kind: u32::MAX,
                ..easy
            },
            "kind",
        );
        let mut c = easy;
        c.dpsa.nodes = 5;
        refused(c, "dpsa.nodes");
        let mut c = easy;
        c.cons_rs.seed = 1;
        refused(c, "cons_rs");
        let mut c = easy;
        c.heuristics.age_factor = 2;
        refused(c, "heuristics");
        let mut c = easy;
        c.selective.thresholds[3] = 3000;
        refused(c, "selective.thresholds");
        let mut c = default_of(bf_policy_kind::BF_POLICY_SELECTIVE_D as u32).unwrap();
        c.selective.threshold = 3000;
        refused(c, "selective.threshold");
        c.selective.threshold = 2000;
        c.selective.thresholds[1] = 999;
        refused(c, "selective.thresholds");
        let mut c = default_of(bf_policy_kind::BF_POLICY_SELECTIVE as u32).unwrap();
        c.selective.threshold = 999;
        refused(c, "selective.threshold");
        let mut c = default_of(bf_policy_kind::BF_POLICY_SELECTIVE_ADAPTIVE as u32).unwrap();
        c.selective.well_estimated_only = 2;
        refused(c, "selective.well_estimated_only");
        c.selective.well_estimated_only = 0;
        c.selective.scale = 0;
        refused(c, "selective.scale");
        c.selective.scale = 1000;
        c.selective.initial = 10;
        refused(c, "selective.initial");
        let mut c = default_of(bf_policy_kind::BF_POLICY_CONS_RS as u32).unwrap();
        c.cons_rs.iterations_mode = 2;
        refused(c, "cons_rs.iterations_mode");
    }
}
