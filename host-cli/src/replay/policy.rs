//! The policy a replay runs, from the command line's choice: Selective's
//! thresholds (given, or from a Conservative run of the same window) and
//! the search policies' options (`--dpsa-nodes`, `--seed`,
//! `--rs-iterations`, `--no-compression`).

use super::thresholds::{
    milli_f64, milli_text, ConservativeThresholds, ThresholdSource, ThresholdsUsed,
};
use crate::error::CliError;
use backfill_core::policy::{DpsaOrder, Iterations, Threshold};
use backfill_core::{CategoryBounds, Policy};
use std::fmt::Write as _;

/// A policy as named on the command line: one of core's [`Policy::ALL`]
/// or [`Policy::OPTION_VARIANTS`], parsed and listed by its
/// [`Policy::name`] (this adapter has no names of its own). A Selective variant stands for its kind of threshold until
/// [`ThresholdOptions::resolve`] gives it its thresholds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct PolicyChoice(Policy);

/// Every choice, in the order of [`Policy::ALL`], then the option
/// variants.
const CHOICES: [PolicyChoice; Policy::ALL.len() + Policy::OPTION_VARIANTS.len()] = {
    let mut out = [PolicyChoice(Policy::Fcfs); Policy::ALL.len() + Policy::OPTION_VARIANTS.len()];
    let mut i = 0;
    while i < Policy::ALL.len() {
        out[i] = PolicyChoice(Policy::ALL[i]);
        i += 1;
    }
    while i < out.len() {
        out[i] = PolicyChoice(Policy::OPTION_VARIANTS[i - Policy::ALL.len()]);
        i += 1;
    }
    out
};

impl PolicyChoice {
    /// EASY (the default of `replay --policy`).
    pub(crate) const EASY: Self = Self(Policy::Easy);
    /// Conservative (the analyses' default baseline).
    pub(crate) const CONSERVATIVE: Self = Self(Policy::Conservative);

    /// The choice named `name` ([`Policy::from_name`]).
    #[cfg(test)]
    #[must_use]
    pub(crate) fn from_name(name: &str) -> Option<Self> {
        Policy::from_name(name).map(Self)
    }

    /// The command-line name ([`Policy::name`]).
    #[must_use]
    pub(crate) const fn name(self) -> &'static str {
        self.0.name()
    }

    /// Selective with one threshold.
    const fn is_selective(self) -> bool {
        matches!(self.0, Policy::Selective(Threshold::Fixed(_)))
    }

    /// Selective-D: one threshold per category.
    pub(crate) const fn is_selective_d(self) -> bool {
        matches!(self.0, Policy::Selective(Threshold::PerCategory { .. }))
    }

    /// Whether the threshold adapts to completed jobs (selective-adaptive
    /// and selective-scaled).
    #[must_use]
    pub(crate) const fn is_adaptive(self) -> bool {
        matches!(self.0, Policy::Selective(Threshold::Adaptive { .. }))
    }

    /// Selective-scaled: adaptive with a factor other than 1.
    const fn is_scaled(self) -> bool {
        matches!(self.0, Policy::Selective(Threshold::Adaptive { scale, .. }) if scale != 1000)
    }

    /// The policy of a choice that needs no thresholds (core's defaults:
    /// DPSA's node budget, CONS+RS's search, the flexible heuristics);
    /// `None` for the Selective variants.
    #[must_use]
    pub(crate) const fn plain(self) -> Option<Policy> {
        match self.0 {
            Policy::Selective(_) => None,
            other => Some(other),
        }
    }
}

impl std::fmt::Display for PolicyChoice {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

impl clap::ValueEnum for PolicyChoice {
    fn value_variants<'a>() -> &'a [Self] {
        &CHOICES
    }

    fn to_possible_value(&self) -> Option<clap::builder::PossibleValue> {
        Some(clap::builder::PossibleValue::new(self.name()).help(summary(self.0)))
    }
}

/// What a policy does, in one line, for `--help`.
const fn summary(policy: Policy) -> &'static str {
    match policy {
        Policy::Fcfs => "First come, first served, no backfilling",
        Policy::Easy => "EASY backfilling",
        Policy::SjfEasy => "EASY with shortest-estimate-first order",
        Policy::Conservative => "Conservative backfilling",
        Policy::Selective(Threshold::Fixed(_)) => "Selective reservation, one threshold",
        Policy::Selective(Threshold::PerCategory { .. }) => {
            "Selective reservation, one threshold per category (Selective-D)"
        }
        Policy::Selective(Threshold::Adaptive { scale: 1000, .. }) => {
            "Selective with the running mean slowdown of completed jobs as threshold"
        }
        Policy::Selective(_) => "Selective with the running mean slowdown times `--scale` (1.5)",
        Policy::ConservativeNoCompression => {
            "Conservative without compression: reservations made at arrival never move \
             (as conservative --no-compression)"
        }
        Policy::ConsRs(_) => {
            "CONS+RS: Conservative, then a seeded random search after every early completion \
             (`--seed`, `--rs-iterations`)"
        }
        Policy::ConservativeRebuild => {
            "Conservative compressed by rebuilding the plan after early completions only \
             (as conservative --compression rebuild)"
        }
        Policy::ConsRsAlea(_) => {
            "CONS+RS by the Alea simulator's rules, one machine only (as cons-rs --flavour alea; \
             `--seed`, `--rs-iterations`)"
        }
        Policy::BfFcfs => "BF_FCFS: EASY on a farm, machines tried most powerful first",
        Policy::BfUnmod(_) => "BF_UNMOD: flexible backfilling, the head keeps its reservation",
        Policy::BfMod(_) => "BF_MOD: flexible backfilling, the reservation follows the priority",
        Policy::Dpsa {
            order: DpsaOrder::Priority,
            ..
        } => "DPSA-p: EASY, then the start set using the most processors (ties: queue order)",
        Policy::Dpsa {
            order: DpsaOrder::Narrow,
            ..
        } => "DPSA-n: as DPSA-p, ties to narrow jobs",
        Policy::Dpsa { .. } => "DPSA-w: as DPSA-p, ties to wide jobs",
        _ => "",
    }
}

/// Where thresholds may be taken from (`--threshold-from`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub(crate) enum ThresholdFrom {
    /// A Conservative run of the same trace, window, estimates and load.
    Conservative,
}

/// The threshold options of the command line, in kernel units.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct ThresholdOptions {
    /// `--threshold`: Selective's threshold, thousandths.
    pub(crate) threshold: Option<u32>,
    /// `--thresholds`: Selective-D's SN, SW, LN, LW, thousandths.
    pub(crate) thresholds: Option<[u32; 4]>,
    /// `--threshold-from`, when given.
    pub(crate) from: Option<ThresholdFrom>,
    /// `--scale`: the scaled-adaptive factor, thousandths (default 1500).
    pub(crate) scale: Option<u32>,
    /// `--well-estimated-only`: adaptive means over well-estimated jobs only.
    pub(crate) well_estimated_only: bool,
}

/// The paper's scaled-adaptive factor, 1.5, in thousandths.
pub(crate) const DEFAULT_SCALE: u32 = 1500;

impl ThresholdOptions {
    /// Whether some Selective variant in `choices` takes its thresholds from
    /// a Conservative run.
    #[must_use]
    pub(crate) fn needs_conservative(&self, choices: &[PolicyChoice]) -> bool {
        choices.iter().any(|c| match c {
            c if c.is_selective() => self.threshold.is_none(),
            c if c.is_selective_d() => self.thresholds.is_none(),
            _ => false,
        })
    }

    /// The options that `choice` uses, the others cleared: what a replay of
    /// `choice` alone would be given (a plan's cell, see `crate::plan`).
    /// `--threshold-from` stays only where it sets thresholds.
    #[must_use]
    pub(crate) fn for_choice(&self, choice: PolicyChoice) -> Self {
        let selective = choice.is_selective();
        let selective_d = choice.is_selective_d();
        let derives =
            (selective && self.threshold.is_none()) || (selective_d && self.thresholds.is_none());
        Self {
            threshold: self.threshold.filter(|_| selective),
            thresholds: self.thresholds.filter(|_| selective_d),
            from: self.from.filter(|_| derives),
            scale: self.scale.filter(|_| choice.is_scaled()),
            well_estimated_only: self.well_estimated_only && choice.is_adaptive(),
        }
    }

    /// Refuses options that no policy in `choices` would use, and
    /// `--threshold-from` together with the thresholds it would replace.
    ///
    /// # Errors
    /// [`CliError::Usage`] naming the option and the policies it applies
    /// to, or the options that clash.
    pub(crate) fn check(&self, choices: &[PolicyChoice]) -> Result<(), CliError> {
        let has = |kind: fn(PolicyChoice) -> bool| choices.iter().any(|&c| kind(c));
        let unused = |option: &str, applies: &str| {
            Err(CliError::Usage(format!(
                "{option} is for {applies} only, and the policies are {}",
                choices
                    .iter()
                    .map(|c| c.name())
                    .collect::<Vec<_>>()
                    .join(",")
            )))
        };
        if self.threshold.is_some() && !has(PolicyChoice::is_selective) {
            return unused("--threshold", "selective");
        }
        if self.thresholds.is_some() && !has(PolicyChoice::is_selective_d) {
            return unused("--thresholds", "selective-d");
        }
        if self.from.is_some() && !self.needs_conservative(choices) {
            // Every selective / selective-d listed has its thresholds given.
            let given: Vec<(&str, &str)> = [
                (
                    PolicyChoice::is_selective as fn(PolicyChoice) -> bool,
                    self.threshold.is_some(),
                    "--threshold",
                ),
                (
                    PolicyChoice::is_selective_d,
                    self.thresholds.is_some(),
                    "--thresholds",
                ),
            ]
            .into_iter()
            .filter_map(|(kind, set, option)| {
                let c = choices.iter().find(|&&c| kind(c))?;
                set.then(|| (option, c.name()))
            })
            .collect();
            if given.is_empty() {
                return unused("--threshold-from", "selective and selective-d");
            }
            let options: Vec<&str> = given.iter().map(|g| g.0).collect();
            let policies: Vec<&str> = given.iter().map(|g| g.1).collect();
            return Err(CliError::Usage(format!(
                "--threshold-from and {} both set the thresholds of {}: give one or the other",
                options.join(" and "),
                policies.join(" and ")
            )));
        }
        if self.scale.is_some() && !has(PolicyChoice::is_scaled) {
            return unused("--scale", "selective-scaled");
        }
        if self.well_estimated_only && !choices.iter().any(|c| c.is_adaptive()) {
            return unused(
                "--well-estimated-only",
                "selective-adaptive and selective-scaled",
            );
        }
        Ok(())
    }

    /// The kernel policy for `choice`, with its thresholds: given ones, or
    /// those of `derived` (a Conservative run of the same window).
    ///
    /// # Errors
    /// [`CliError::Usage`] when thresholds from a Conservative run are needed
    /// but `derived` is `None` (a bug in the caller).
    pub(crate) fn resolve(
        &self,
        choice: PolicyChoice,
        bounds: CategoryBounds,
        derived: Option<&ConservativeThresholds>,
    ) -> Result<(Policy, ThresholdsUsed), CliError> {
        if let Some(p) = choice.plain() {
            return Ok((p, ThresholdsUsed::none()));
        }
        let conservative_source = if self.from.is_some() {
            ThresholdSource::Conservative
        } else {
            ThresholdSource::DefaultConservative
        };
        let from_note = |d: &ConservativeThresholds, source| {
            let default = if source == ThresholdSource::DefaultConservative {
                "; the default, as neither a threshold nor --threshold-from was given"
            } else {
                ""
            };
            format!("from the {}{default}", d.basis_text())
        };
        let missing = || {
            CliError::Usage(format!(
                "{choice}: thresholds from a Conservative run were needed but not computed"
            ))
        };
        let mut used = ThresholdsUsed::none();
        let policy = match choice {
            c if c.is_selective() => {
                let (t, source, note) = match (self.threshold, derived) {
                    (Some(t), _) => (t, ThresholdSource::Given, "--threshold".to_owned()),
                    (None, Some(d)) => (
                        d.fixed(),
                        conservative_source,
                        from_note(d, conservative_source),
                    ),
                    (None, None) => return Err(missing()),
                };
                used.source = source;
                used.overall = Some(milli_f64(t));
                used.values = milli_text(t);
                used.text = format!("{} ({note})", milli_text(t));
                Policy::Selective(Threshold::Fixed(t))
            }
            c if c.is_selective_d() => {
                let (t, fallback, source, note) = match (self.thresholds, derived) {
                    (Some(t), _) => (
                        t,
                        Vec::new(),
                        ThresholdSource::Given,
                        "--thresholds".to_owned(),
                    ),
                    (None, Some(d)) => {
                        let (t, fallback) = d.per_category();
                        (
                            t,
                            fallback,
                            conservative_source,
                            from_note(d, conservative_source),
                        )
                    }
                    (None, None) => return Err(missing()),
                };
                used.source = source;
                used.per_category = Some(t.map(milli_f64));
                let cells: Vec<String> = backfill_core::Category::ALL
                    .iter()
                    .zip(t)
                    .map(|(c, v)| format!("{} {}", c.label(), milli_text(v)))
                    .collect();
                used.values = cells.join(" ");
                used.text = format!("{} ({note})", cells.join(", "));
                if !fallback.is_empty() {
                    let _ = write!(
                        used.text,
                        "; {} had no counted job and use the overall threshold",
                        fallback.join(", ")
                    );
                }
                used.fallback = fallback;
                Policy::Selective(Threshold::PerCategory {
                    thresholds: t,
                    bounds,
                })
            }
            c if c.is_adaptive() => {
                let scale = if c.is_scaled() {
                    self.scale.unwrap_or(DEFAULT_SCALE)
                } else {
                    1000
                };
                used.source = ThresholdSource::Adaptive;
                used.scale = Some(milli_f64(scale));
                used.well_estimated_only = Some(self.well_estimated_only);
                used.values = format!(
                    "adaptive x{}{}",
                    milli_text(scale),
                    if self.well_estimated_only {
                        " well-estimated"
                    } else {
                        ""
                    }
                );
                used.text = format!(
                    "running mean bounded slowdown of the jobs completed so far{}{}, 1.00 before the first",
                    if scale == 1000 {
                        String::new()
                    } else {
                        format!(" x {}", milli_text(scale))
                    },
                    if self.well_estimated_only {
                        " (well-estimated jobs only)"
                    } else {
                        ""
                    }
                );
                Policy::Selective(Threshold::Adaptive {
                    scale,
                    well_estimated_only: self.well_estimated_only,
                    initial: 1000,
                })
            }
            _ => return Err(missing()),
        };
        Ok((policy, used))
    }
}

/// Conservative's compression (`--compression`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub(crate) enum CompressionMode {
    /// After every instant with a completion, in queue order, never later
    /// (the default).
    Queue,
    /// After early completions only, every job put back in planned-start
    /// order (the Alea simulator's CONS).
    Rebuild,
}

/// CONS+RS's rules (`--flavour`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub(crate) enum Flavour {
    /// The gap-filling search with guarantees (the default).
    Ours,
    /// The Alea simulator's CONS+RS.
    Alea,
}

/// The replay options of the search policies and of the no-compression
/// baseline.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct SearchOptions {
    /// `--dpsa-nodes`.
    pub(crate) dpsa_nodes: Option<u32>,
    /// `--seed`, which under cons-rs seeds the random search.
    pub(crate) rs_seed: Option<u64>,
    /// `--rs-iterations`.
    pub(crate) rs_iterations: Option<u32>,
    /// `--no-compression`.
    pub(crate) no_compression: bool,
    /// `--compression`.
    pub(crate) compression: Option<CompressionMode>,
    /// `--flavour`.
    pub(crate) flavour: Option<Flavour>,
}

impl SearchOptions {
    /// Refuses an option the policy would not use (`--seed` is also the
    /// synthetic workload's, so it is never refused).
    ///
    /// # Errors
    /// [`CliError::Usage`] naming the option and the policies it applies to.
    pub(crate) fn check(&self, choice: PolicyChoice) -> Result<(), CliError> {
        let unused = |option: &str, applies: &str| {
            Err(CliError::Usage(format!(
                "{option} applies to {applies}, not {choice}"
            )))
        };
        let dpsa = matches!(choice.plain(), Some(Policy::Dpsa { .. }));
        if self.dpsa_nodes.is_some() && !dpsa {
            return unused("--dpsa-nodes", "dpsa-p, dpsa-n and dpsa-w");
        }
        let cons_rs = matches!(
            choice.plain(),
            Some(Policy::ConsRs(_) | Policy::ConsRsAlea(_))
        );
        if self.rs_iterations.is_some() && !cons_rs {
            return unused("--rs-iterations", "cons-rs and cons-rs-alea");
        }
        if self.no_compression && choice != PolicyChoice::CONSERVATIVE {
            return unused("--no-compression", "conservative");
        }
        if self.compression.is_some() && choice != PolicyChoice::CONSERVATIVE {
            return unused("--compression", "conservative");
        }
        if self.no_compression && self.compression.is_some() {
            return Err(CliError::Usage(
                "--no-compression and --compression exclude each other".to_owned(),
            ));
        }
        if self.flavour.is_some() && !matches!(choice.plain(), Some(Policy::ConsRs(_))) {
            return unused("--flavour", "cons-rs");
        }
        Ok(())
    }

    /// `policy` with these options applied (after [`SearchOptions::check`]).
    #[must_use]
    pub(crate) fn apply(&self, policy: Policy) -> Policy {
        match policy {
            Policy::Dpsa { .. } => self
                .dpsa_nodes
                .map_or(policy, |n| policy.with_dpsa_nodes(n)),
            Policy::ConsRs(mut params) | Policy::ConsRsAlea(mut params) => {
                if let Some(seed) = self.rs_seed {
                    params.seed = seed;
                }
                if let Some(n) = self.rs_iterations {
                    params.iterations = Iterations::Fixed(n);
                }
                if self.flavour == Some(Flavour::Alea) || matches!(policy, Policy::ConsRsAlea(_)) {
                    Policy::ConsRsAlea(params)
                } else {
                    Policy::ConsRs(params)
                }
            }
            Policy::Conservative if self.no_compression => Policy::ConservativeNoCompression,
            Policy::Conservative if self.compression == Some(CompressionMode::Rebuild) => {
                Policy::ConservativeRebuild
            }
            other => other,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn named(name: &str) -> PolicyChoice {
        PolicyChoice::from_name(name).unwrap()
    }

    #[test]
    fn unused_threshold_options_are_refused() {
        let given = ThresholdOptions {
            threshold: Some(2000),
            ..ThresholdOptions::default()
        };
        assert!(given.check(&[named("selective")]).is_ok());
        assert!(given.check(&[named("easy"), named("selective-d")]).is_err());
        assert!(!given.needs_conservative(&[named("selective")]));
        assert!(given.needs_conservative(&[named("selective"), named("selective-d")]));
        let from = ThresholdOptions {
            from: Some(ThresholdFrom::Conservative),
            ..ThresholdOptions::default()
        };
        assert!(from.check(&[named("selective-d")]).is_ok());
        let e = from
            .check(&[named("selective-adaptive")])
            .unwrap_err()
            .to_string();
        assert_eq!(
            e,
            "--threshold-from is for selective and selective-d only, and the policies are \
             selective-adaptive"
        );
        let both = ThresholdOptions {
            threshold: Some(5000),
            from: Some(ThresholdFrom::Conservative),
            ..ThresholdOptions::default()
        };
        let e = both.check(&[named("selective")]).unwrap_err().to_string();
        assert_eq!(
            e,
            "--threshold-from and --threshold both set the thresholds of selective: give one or \
             the other"
        );
        assert!(
            both.check(&[named("selective"), named("selective-d")])
                .is_ok(),
            "selective-d takes them"
        );
        let all = ThresholdOptions {
            thresholds: Some([2000; 4]),
            ..both
        };
        let e = all
            .check(&[named("selective"), named("selective-d")])
            .unwrap_err()
            .to_string();
        assert!(
            e.starts_with("--threshold-from and --threshold and --thresholds both set the thresholds of selective and selective-d"),
            "{e}"
        );
        let scale = ThresholdOptions {
            scale: Some(2000),
            ..ThresholdOptions::default()
        };
        assert!(scale.check(&[named("selective-scaled")]).is_ok());
        assert!(scale.check(&[named("selective-adaptive")]).is_err());
        let well = ThresholdOptions {
            well_estimated_only: true,
            ..ThresholdOptions::default()
        };
        assert!(well.check(&[named("selective-adaptive")]).is_ok());
        assert!(well.check(&[named("selective")]).is_err());
    }

    #[test]
    fn resolve_builds_kernel_policies() {
        let b = CategoryBounds::DEFAULT;
        let o = ThresholdOptions {
            threshold: Some(26_690),
            thresholds: Some([22_300, 72_400, 1_720, 2_590]),
            scale: Some(2_000),
            ..ThresholdOptions::default()
        };
        let (p, t) = o.resolve(named("selective"), b, None).unwrap();
        assert_eq!(p, Policy::Selective(Threshold::Fixed(26_690)));
        assert_eq!(t.source, ThresholdSource::Given);
        assert_eq!(t.text, "26.69 (--threshold)");
        let (p, _) = o.resolve(named("selective-d"), b, None).unwrap();
        assert_eq!(
            p,
            Policy::Selective(Threshold::PerCategory {
                thresholds: [22_300, 72_400, 1_720, 2_590],
                bounds: b
            })
        );
        let (p, _) = o.resolve(named("selective-scaled"), b, None).unwrap();
        assert_eq!(
            p,
            Policy::Selective(Threshold::Adaptive {
                scale: 2000,
                well_estimated_only: false,
                initial: 1000
            })
        );
        let (p, _) = o.resolve(named("selective-adaptive"), b, None).unwrap();
        assert_eq!(p, Policy::Selective(Threshold::ADAPTIVE));
        let none = ThresholdOptions::default();
        assert!(none.resolve(named("selective"), b, None).is_err());
        assert_eq!(
            none.resolve(named("easy"), b, None).unwrap().0,
            Policy::Easy
        );
    }
}
