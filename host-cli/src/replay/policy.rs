//! The policy a replay runs, from the command line's choice: Selective's
//! thresholds (given, or from a Conservative run of the same window) and
//! the search policies' options (`--dpsa-nodes`, `--seed`,
//! `--rs-iterations`, `--no-compression`).

use super::thresholds::{
    milli_f64, milli_text, ConservativeThresholds, ThresholdSource, ThresholdsUsed,
};
use crate::error::CliError;
use backfill_core::policy::{Iterations, RandomSearch, Threshold};
use backfill_core::{CategoryBounds, Policy};
use serde::{Deserialize, Serialize};
use std::fmt::Write as _;

/// A policy as named on the command line (Selective variants before their
/// thresholds are known).
#[derive(
    Clone,
    Copy,
    Debug,
    PartialEq,
    Eq,
    Hash,
    PartialOrd,
    Ord,
    Serialize,
    Deserialize,
    clap::ValueEnum,
)]
#[serde(rename_all = "kebab-case")]
pub enum PolicyChoice {
    /// First come, first served, no backfilling.
    Fcfs,
    /// EASY backfilling.
    Easy,
    /// EASY with shortest-estimate-first order.
    SjfEasy,
    /// Conservative backfilling.
    Conservative,
    /// Selective reservation, one threshold.
    Selective,
    /// Selective reservation, one threshold per category (Selective-D).
    SelectiveD,
    /// Selective with the running mean slowdown of completed jobs as threshold.
    SelectiveAdaptive,
    /// Selective with the running mean slowdown times `--scale` (1.5).
    SelectiveScaled,
    /// BF_FCFS: EASY on a farm, machines tried most powerful first.
    BfFcfs,
    /// BF_UNMOD: flexible backfilling, the head keeps its reservation.
    BfUnmod,
    /// BF_MOD: flexible backfilling, the reservation follows the priority.
    BfMod,
    /// DPSA-p: EASY, then the start set using the most processors (ties: queue order).
    DpsaP,
    /// DPSA-n: as DPSA-p, ties to narrow jobs.
    DpsaN,
    /// DPSA-w: as DPSA-p, ties to wide jobs.
    DpsaW,
    /// CONS+RS: Conservative, then a seeded random search after every early
    /// completion (`--seed`, `--rs-iterations`).
    ConsRs,
}

impl PolicyChoice {
    /// The command-line name.
    #[must_use]
    pub const fn name(self) -> &'static str {
        match self {
            Self::Fcfs => "fcfs",
            Self::Easy => "easy",
            Self::SjfEasy => "sjf-easy",
            Self::Conservative => "conservative",
            Self::Selective => "selective",
            Self::SelectiveD => "selective-d",
            Self::SelectiveAdaptive => "selective-adaptive",
            Self::SelectiveScaled => "selective-scaled",
            Self::BfFcfs => "bf-fcfs",
            Self::BfUnmod => "bf-unmod",
            Self::BfMod => "bf-mod",
            Self::DpsaP => "dpsa-p",
            Self::DpsaN => "dpsa-n",
            Self::DpsaW => "dpsa-w",
            Self::ConsRs => "cons-rs",
        }
    }

    /// Whether the threshold adapts to completed jobs.
    #[must_use]
    pub(crate) const fn is_adaptive(self) -> bool {
        matches!(self, Self::SelectiveAdaptive | Self::SelectiveScaled)
    }

    /// The policy of a choice that needs no thresholds; `None` for the
    /// Selective variants.
    #[must_use]
    pub const fn plain(self) -> Option<Policy> {
        match self {
            Self::Fcfs => Some(Policy::Fcfs),
            Self::Easy => Some(Policy::Easy),
            Self::SjfEasy => Some(Policy::SjfEasy),
            Self::Conservative => Some(Policy::Conservative),
            Self::BfFcfs => Some(Policy::BfFcfs),
            Self::BfUnmod => Some(Policy::BfUnmod(backfill_core::policy::Heuristics::DEFAULT)),
            Self::BfMod => Some(Policy::BfMod(backfill_core::policy::Heuristics::DEFAULT)),
            Self::DpsaP => Some(Policy::DPSA_P),
            Self::DpsaN => Some(Policy::DPSA_N),
            Self::DpsaW => Some(Policy::DPSA_W),
            Self::ConsRs => Some(Policy::ConsRs(RandomSearch::DEFAULT)),
            _ => None,
        }
    }
}

impl std::fmt::Display for PolicyChoice {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
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
            PolicyChoice::Selective => self.threshold.is_none(),
            PolicyChoice::SelectiveD => self.thresholds.is_none(),
            _ => false,
        })
    }

    /// Refuses options that no policy in `choices` would use, and
    /// `--threshold-from` together with the thresholds it would replace.
    ///
    /// # Errors
    /// [`CliError::Usage`] naming the option and the policies it applies
    /// to, or the options that clash.
    pub(crate) fn check(&self, choices: &[PolicyChoice]) -> Result<(), CliError> {
        let has = |c: PolicyChoice| choices.contains(&c);
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
        if self.threshold.is_some() && !has(PolicyChoice::Selective) {
            return unused("--threshold", "selective");
        }
        if self.thresholds.is_some() && !has(PolicyChoice::SelectiveD) {
            return unused("--thresholds", "selective-d");
        }
        if self.from.is_some() && !self.needs_conservative(choices) {
            // Every selective / selective-d listed has its thresholds given.
            let given: Vec<(&str, &str)> = [
                (
                    PolicyChoice::Selective,
                    self.threshold.is_some(),
                    "--threshold",
                ),
                (
                    PolicyChoice::SelectiveD,
                    self.thresholds.is_some(),
                    "--thresholds",
                ),
            ]
            .into_iter()
            .filter(|&(c, set, _)| set && has(c))
            .map(|(c, _, option)| (option, c.name()))
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
        if self.scale.is_some() && !has(PolicyChoice::SelectiveScaled) {
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
            PolicyChoice::Selective => {
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
            PolicyChoice::SelectiveD => {
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
            PolicyChoice::SelectiveAdaptive | PolicyChoice::SelectiveScaled => {
                let scale = if choice == PolicyChoice::SelectiveScaled {
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
        let dpsa = matches!(
            choice,
            PolicyChoice::DpsaP | PolicyChoice::DpsaN | PolicyChoice::DpsaW
        );
        if self.dpsa_nodes.is_some() && !dpsa {
            return unused("--dpsa-nodes", "dpsa-p, dpsa-n and dpsa-w");
        }
        if self.rs_iterations.is_some() && choice != PolicyChoice::ConsRs {
            return unused("--rs-iterations", "cons-rs");
        }
        if self.no_compression && choice != PolicyChoice::Conservative {
            return unused("--no-compression", "conservative");
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
            Policy::ConsRs(mut params) => {
                if let Some(seed) = self.rs_seed {
                    params.seed = seed;
                }
                if let Some(n) = self.rs_iterations {
                    params.iterations = Iterations::Fixed(n);
                }
                Policy::ConsRs(params)
            }
            Policy::Conservative if self.no_compression => Policy::ConservativeNoCompression,
            other => other,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unused_threshold_options_are_refused() {
        use PolicyChoice as P;
        let given = ThresholdOptions {
            threshold: Some(2000),
            ..ThresholdOptions::default()
        };
        assert!(given.check(&[P::Selective]).is_ok());
        assert!(given.check(&[P::Easy, P::SelectiveD]).is_err());
        assert!(!given.needs_conservative(&[P::Selective]));
        assert!(given.needs_conservative(&[P::Selective, P::SelectiveD]));
        let from = ThresholdOptions {
            from: Some(ThresholdFrom::Conservative),
            ..ThresholdOptions::default()
        };
        assert!(from.check(&[P::SelectiveD]).is_ok());
        let e = from.check(&[P::SelectiveAdaptive]).unwrap_err().to_string();
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
        let e = both.check(&[P::Selective]).unwrap_err().to_string();
        assert_eq!(
            e,
            "--threshold-from and --threshold both set the thresholds of selective: give one or \
             the other"
        );
        assert!(
            both.check(&[P::Selective, P::SelectiveD]).is_ok(),
            "selective-d takes them"
        );
        let all = ThresholdOptions {
            thresholds: Some([2000; 4]),
            ..both
        };
        let e = all
            .check(&[P::Selective, P::SelectiveD])
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
        assert!(scale.check(&[P::SelectiveScaled]).is_ok());
        assert!(scale.check(&[P::SelectiveAdaptive]).is_err());
        let well = ThresholdOptions {
            well_estimated_only: true,
            ..ThresholdOptions::default()
        };
        assert!(well.check(&[P::SelectiveAdaptive]).is_ok());
        assert!(well.check(&[P::Selective]).is_err());
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
        let (p, t) = o.resolve(PolicyChoice::Selective, b, None).unwrap();
        assert_eq!(p, Policy::Selective(Threshold::Fixed(26_690)));
        assert_eq!(t.source, ThresholdSource::Given);
        assert_eq!(t.text, "26.69 (--threshold)");
        let (p, _) = o.resolve(PolicyChoice::SelectiveD, b, None).unwrap();
        assert_eq!(
            p,
            Policy::Selective(Threshold::PerCategory {
                thresholds: [22_300, 72_400, 1_720, 2_590],
                bounds: b
            })
        );
        let (p, _) = o.resolve(PolicyChoice::SelectiveScaled, b, None).unwrap();
        assert_eq!(
            p,
            Policy::Selective(Threshold::Adaptive {
                scale: 2000,
                well_estimated_only: false,
                initial: 1000
            })
        );
        let (p, _) = o.resolve(PolicyChoice::SelectiveAdaptive, b, None).unwrap();
        assert_eq!(p, Policy::Selective(Threshold::ADAPTIVE));
        let none = ThresholdOptions::default();
        assert!(none.resolve(PolicyChoice::Selective, b, None).is_err());
        assert_eq!(
            none.resolve(PolicyChoice::Easy, b, None).unwrap().0,
            Policy::Easy
        );
    }
}
