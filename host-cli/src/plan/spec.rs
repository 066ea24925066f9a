//! Plans and cells in memory: what one cell replays, its parameters as a
//! result file and the merged table show them, its canonical text, its id,
//! and the plan's fingerprint.
//!
//! **Canonical text.** A cell's parameters, one `key=value` line each in
//! the order of [`PARAMETER_COLUMNS`], values as the result files write
//! them (a missing value is empty; a load in Rust's shortest round-trip
//! form: `1`, `1.2`; thresholds in thousandths' text: `26.69`). The cell id
//! is the FNV-1a 64 hash of `backfill plan cell 1`, a newline and that
//! text, as 16 hex digits: the same parameters give the same id in every
//! plan, on every machine and with every Rust release (std's
//! `DefaultHasher` promises none of that). The plan fingerprint is the
//! FNV-1a 64 hash of `backfill plan 1`, the metrics asked for, whether
//! kernel calls are timed, and every cell's index and id in order.

use crate::farm::generate::FarmSpec;
use crate::replay::policy::{PolicyChoice, SearchOptions, ThresholdOptions};
use crate::replay::thresholds::milli_text;
use crate::replay::{Estimates, Shaping, Window};
use backfill_core::policy::{Heuristics, RandomSearch};
use backfill_core::{CategoryBounds, Policy};
use serde::{Deserialize, Serialize};
use std::collections::HashMap;
use std::fmt::Write as _;
use std::hash::Hasher as _;
use std::path::PathBuf;

/// The columns a cell's parameters fill, in order (also the lines of its
/// canonical text).
pub(crate) const PARAMETER_COLUMNS: [&str; 11] = [
    "trace",
    "skip",
    "first",
    "procs",
    "short_max",
    "narrow_max",
    "estimates",
    "load",
    "policy",
    "options",
    "seed",
];

/// What a cell replays.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub(crate) enum Workload {
    /// An SWF trace: `name` as the plan names it (relative to the traces
    /// folder, or absolute), read from `path`.
    Trace {
        /// The name in the cell's parameters.
        name: String,
        /// Where the file is.
        path: PathBuf,
    },
    /// The built-in Lublin-Feitelson workload (see
    /// [`crate::workload::synth`]); its machine is `procs` of the window,
    /// else 128 processors.
    Builtin {
        /// Jobs.
        jobs: u32,
        /// The workload's seed.
        seed: u64,
    },
    /// A farm and job stream from the farm generator (see
    /// [`crate::farm::generate`]), the paper's parameters but these.
    Farm(FarmParams),
}

/// The generator parameters a plan's `farms` entry sets (the others keep
/// the generator's defaults).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(crate) struct FarmParams {
    /// Jobs.
    pub(crate) jobs: u32,
    /// The generator's seed.
    pub(crate) seed: u64,
    /// Mean inter-arrival time, as the bits of its `f64` (so the
    /// parameters can be hashed).
    pub(crate) mean_interarrival_bits: u64,
    /// License copies as a percent range of the eligible machines.
    pub(crate) license_ratio: (u32, u32),
}

impl FarmParams {
    /// The generator's parameters.
    #[must_use]
    pub(crate) fn spec(&self) -> FarmSpec {
        FarmSpec {
            jobs: self.jobs,
            seed: self.seed,
            mean_interarrival: f64::from_bits(self.mean_interarrival_bits),
            license_ratio: self.license_ratio,
            ..FarmSpec::default()
        }
    }
}

impl Workload {
    /// The `trace` parameter: the trace's name, `builtin(jobs=J,seed=S)`,
    /// or `farm(jobs=J,seed=S,mean_interarrival=M,license_ratio=LO-HI)`.
    #[must_use]
    pub(crate) fn name(&self) -> String {
        match self {
            Self::Trace { name, .. } => name.clone(),
            Self::Builtin { jobs, seed } => format!("builtin(jobs={jobs},seed={seed})"),
            Self::Farm(f) => format!(
                "farm(jobs={},seed={},mean_interarrival={},license_ratio={}-{})",
                f.jobs,
                f.seed,
                f64::from_bits(f.mean_interarrival_bits),
                f.license_ratio.0,
                f.license_ratio.1
            ),
        }
    }
}

/// A policy with its options, as one cell runs it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct PolicySpec {
    /// The policy by name (Conservative without compression is its own
    /// name, `conservative-no-compression`).
    pub(crate) choice: PolicyChoice,
    /// Selective's thresholds, only those `choice` uses
    /// ([`ThresholdOptions::for_choice`]).
    pub(crate) thresholds: ThresholdOptions,
    /// DPSA's node budget per pass.
    pub(crate) dpsa_nodes: Option<u32>,
    /// CONS+RS's fixed iterations per search.
    pub(crate) rs_iterations: Option<u32>,
    /// BF_UNMOD's and BF_MOD's license heuristic weight, thousandths
    /// (the others keep [`Heuristics::DEFAULT`]).
    pub(crate) license_weight: Option<u32>,
}

impl PolicySpec {
    /// `choice` with the threshold options of `options` that it uses.
    #[must_use]
    pub(crate) fn new(choice: PolicyChoice, options: &ThresholdOptions) -> Self {
        Self {
            choice,
            thresholds: options.for_choice(choice),
            dpsa_nodes: None,
            rs_iterations: None,
            license_weight: None,
        }
    }

    /// `policy` (this spec's, resolved) with the heuristic options given:
    /// the license weight of BF_UNMOD and BF_MOD.
    #[must_use]
    pub(crate) const fn heuristics(&self, policy: Policy) -> Policy {
        let Some(license_weight) = self.license_weight else {
            return policy;
        };
        match policy {
            Policy::BfUnmod(h) => Policy::BfUnmod(Heuristics {
                license_weight,
                ..h
            }),
            Policy::BfMod(h) => Policy::BfMod(Heuristics {
                license_weight,
                ..h
            }),
            other => other,
        }
    }

    /// Whether the policy draws random numbers, so that a plan's seeds
    /// apply to it: CONS+RS in either flavour (its random search).
    #[must_use]
    pub(crate) fn draws(&self) -> bool {
        matches!(
            self.choice.plain(),
            Some(Policy::ConsRs(_) | Policy::ConsRsAlea(_))
        )
    }

    /// The seed a drawing policy uses when the plan gives none.
    #[must_use]
    pub(crate) const fn default_seed() -> u64 {
        RandomSearch::DEFAULT.seed
    }

    /// Whether a replay of this policy needs a Conservative run of the same
    /// window first (Selective thresholds taken from one).
    #[must_use]
    pub(crate) fn needs_conservative(&self) -> bool {
        self.thresholds.needs_conservative(&[self.choice])
    }

    /// The search options of a replay with `seed`.
    #[must_use]
    pub(crate) fn search(&self, seed: Option<u64>) -> SearchOptions {
        SearchOptions {
            dpsa_nodes: self.dpsa_nodes,
            rs_seed: seed,
            rs_iterations: self.rs_iterations,
            no_compression: false,
            compression: None,
            flavour: None,
        }
    }

    /// The `options` parameter: the options given, as `key=value` words in
    /// a fixed order; Selective and Selective-D without given thresholds
    /// say `threshold-from=conservative` (given or by default: the same
    /// replay).
    #[must_use]
    pub(crate) fn options_text(&self) -> String {
        let t = &self.thresholds;
        let mut words = Vec::new();
        if let Some(v) = t.threshold {
            words.push(format!("threshold={}", milli_text(v)));
        }
        if let Some(v) = t.thresholds {
            let v: Vec<String> = v.iter().map(|&x| milli_text(x)).collect();
            words.push(format!("thresholds={}", v.join(",")));
        }
        if self.needs_conservative() {
            words.push("threshold-from=conservative".to_owned());
        }
        if let Some(v) = t.scale {
            words.push(format!("scale={}", milli_text(v)));
        }
        if t.well_estimated_only {
            words.push("well-estimated-only".to_owned());
        }
        if let Some(n) = self.dpsa_nodes {
            words.push(format!("nodes={n}"));
        }
        if let Some(n) = self.rs_iterations {
            words.push(format!("iterations={n}"));
        }
        if let Some(w) = self.license_weight {
            words.push(format!("license-weight={}", milli_text(w)));
        }
        words.join(" ")
    }
}

/// Everything one cell's replay depends on.
#[derive(Clone, Debug, PartialEq)]
pub struct CellSpec {
    /// The trace or built-in workload.
    pub(crate) workload: Workload,
    /// The window of job lines and the machine size.
    pub(crate) window: Window,
    /// The category bounds of the metrics (and of Selective-D).
    pub(crate) bounds: CategoryBounds,
    /// The estimates the scheduler sees.
    pub(crate) estimates: Estimates,
    /// The load factor.
    pub(crate) load: f64,
    /// The policy and its options.
    pub(crate) policy: PolicySpec,
    /// The seed of a policy that draws (see [`PolicySpec::draws`]); `None`
    /// for the others.
    pub(crate) seed: Option<u64>,
}

/// A cell's parameters, as its result file and the merged table give them
/// (the columns of [`PARAMETER_COLUMNS`]).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Parameters {
    /// Trace name as the plan gives it, or `builtin(jobs=J,seed=S)`.
    pub(crate) trace: String,
    /// Job lines skipped.
    pub(crate) skip: u64,
    /// Job lines taken after those (all when `None`).
    pub(crate) first: Option<u64>,
    /// Machine size given by the plan (else the trace header's).
    pub(crate) procs: Option<u32>,
    /// Longest run time (s) of a Short job.
    pub(crate) short_max: u32,
    /// Most processors of a Narrow job.
    pub(crate) narrow_max: u32,
    /// `user` or `exact`.
    pub(crate) estimates: String,
    /// Load factor.
    pub(crate) load: f64,
    /// Policy name.
    pub(crate) policy: String,
    /// Policy options ([`PolicySpec::options_text`]).
    pub(crate) options: String,
    /// Seed of a policy that draws.
    pub(crate) seed: Option<u64>,
}

impl Parameters {
    /// The values in [`PARAMETER_COLUMNS`] order, as JSON values.
    #[must_use]
    pub(crate) fn values(&self) -> Vec<serde_json::Value> {
        use serde_json::Value;
        let opt = |v: Option<u64>| v.map_or(Value::Null, Value::from);
        vec![
            Value::from(self.trace.clone()),
            Value::from(self.skip),
            opt(self.first),
            opt(self.procs.map(u64::from)),
            Value::from(self.short_max),
            Value::from(self.narrow_max),
            Value::from(self.estimates.clone()),
            Value::from(self.load),
            Value::from(self.policy.clone()),
            Value::from(self.options.clone()),
            opt(self.seed),
        ]
    }

    /// The canonical text (see the module docs).
    #[must_use]
    pub fn canonical(&self) -> String {
        let opt = |v: Option<u64>| v.map_or_else(String::new, |v| v.to_string());
        let values = [
            self.trace.clone(),
            self.skip.to_string(),
            opt(self.first),
            opt(self.procs.map(u64::from)),
            self.short_max.to_string(),
            self.narrow_max.to_string(),
            self.estimates.clone(),
            self.load.to_string(),
            self.policy.clone(),
            self.options.clone(),
            opt(self.seed),
        ];
        let mut out = String::new();
        for (key, value) in PARAMETER_COLUMNS.iter().zip(values) {
            let _ = writeln!(out, "{key}={value}");
        }
        out
    }
}

impl CellSpec {
    /// The cell's parameters.
    #[must_use]
    pub fn parameters(&self) -> Parameters {
        Parameters {
            trace: self.workload.name(),
            skip: self.window.skip,
            first: self.window.first,
            procs: self.window.procs,
            short_max: self.bounds.short_max,
            narrow_max: self.bounds.narrow_max,
            estimates: self.estimates.name().to_owned(),
            load: self.load,
            policy: self.policy.choice.name().to_owned(),
            options: self.policy.options_text(),
            seed: self.seed,
        }
    }

    /// Estimates and load.
    #[must_use]
    pub(crate) const fn shaping(&self) -> Shaping {
        Shaping {
            estimates: self.estimates,
            load: self.load,
        }
    }
}

/// FNV-1a 64 of `text`, as 16 hex digits.
fn fnv1a(text: &str) -> String {
    let mut h = fnv::FnvHasher::default();
    h.write(text.as_bytes());
    format!("{:016x}", h.finish())
}

/// The id of a cell with these parameters (see the module docs).
#[must_use]
pub fn cell_id(parameters: &Parameters) -> String {
    fnv1a(&format!("backfill plan cell 1\n{}", parameters.canonical()))
}

/// One cell of a plan.
#[derive(Clone, Debug, PartialEq)]
pub struct Cell {
    /// Its place in the plan, from 0.
    pub index: usize,
    /// Its id ([`cell_id`]).
    pub id: String,
    /// What it replays.
    pub spec: CellSpec,
    /// Where in the plan it comes from, for messages (`experiment 2, line
    /// 14`).
    pub(crate) origin: String,
}

/// Two cells of a plan with the same parameters.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct DuplicateCell {
    /// The earlier cell's index.
    pub(crate) first: usize,
    /// The later one's.
    pub(crate) second: usize,
    /// The message.
    pub(crate) message: String,
}

/// An expanded plan: its cells in order, the metrics each result holds,
/// and its fingerprint.
#[derive(Clone, Debug, PartialEq)]
pub struct Plan {
    /// The plan file as named on the command line (or what made the plan).
    pub(crate) name: String,
    /// The folder relative trace names were found in, when the plan names
    /// any trace.
    pub(crate) traces_dir: Option<PathBuf>,
    /// The metrics asked for, by name ([`super::metrics`]).
    pub(crate) metrics: Vec<String>,
    /// Whether every kernel call is timed (the slowest one goes in the
    /// timings).
    pub(crate) latency: bool,
    /// The cells, in order.
    pub cells: Vec<Cell>,
    /// The fingerprint (see the module docs).
    pub fingerprint: String,
}

impl Plan {
    /// Numbers the cells of `specs` (each with where it comes from) and
    /// fingerprints the plan.
    ///
    /// # Errors
    /// [`DuplicateCell`] when two cells have the same parameters.
    pub(crate) fn new(
        name: String,
        traces_dir: Option<PathBuf>,
        metrics: Vec<String>,
        latency: bool,
        specs: Vec<(CellSpec, String)>,
    ) -> Result<Self, DuplicateCell> {
        let mut cells: Vec<Cell> = Vec::with_capacity(specs.len());
        let mut seen: HashMap<String, usize> = HashMap::new();
        for (index, (spec, origin)) in specs.into_iter().enumerate() {
            let parameters = spec.parameters();
            let id = cell_id(&parameters);
            if let Some(&first) = seen.get(&id) {
                let earlier = cells.get(first).map_or("", |c| c.origin.as_str());
                return Err(DuplicateCell {
                    first,
                    second: index,
                    message: format!(
                        "cells {first} ({earlier}) and {index} ({origin}) are the same replay ({}): \
                         list each combination once",
                        parameters.canonical().trim_end().replace('\n', ", ")
                    ),
                });
            }
            seen.insert(id.clone(), index);
            cells.push(Cell {
                index,
                id,
                spec,
                origin,
            });
        }
        let mut text = format!(
            "backfill plan 1\nmetrics={}\nlatency={latency}\n",
            metrics.join(",")
        );
        for c in &cells {
            let _ = writeln!(text, "cell {} {}", c.index, c.id);
        }
        Ok(Self {
            name,
            traces_dir,
            metrics,
            latency,
            fingerprint: fnv1a(&text),
            cells,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn spec(policy: &str, load: f64) -> CellSpec {
        let choice = crate::replay::policy::PolicyChoice::from_name(policy).unwrap();
        CellSpec {
            workload: Workload::Trace {
                name: "KTH-SP2-1996-2.1-cln.swf.gz".into(),
                path: PathBuf::from("/anywhere/KTH-SP2-1996-2.1-cln.swf.gz"),
            },
            window: Window {
                skip: 0,
                first: Some(5000),
                procs: None,
            },
            bounds: CategoryBounds::DEFAULT,
            estimates: Estimates::User,
            load,
            policy: PolicySpec::new(choice, &ThresholdOptions::default()),
            seed: None,
        }
    }

    #[test]
    fn canonical_text_and_id_are_fixed() {
        let p = spec("selective", 1.2).parameters();
        assert_eq!(
            p.canonical(),
            "trace=KTH-SP2-1996-2.1-cln.swf.gz\nskip=0\nfirst=5000\nprocs=\nshort_max=3600\n\
             narrow_max=8\nestimates=user\nload=1.2\npolicy=selective\n\
             options=threshold-from=conservative\nseed=\n"
        );
        // FNV-1a 64 of the text, as a separate FNV-1a implementation
        // (Python) gives it: a fixed value, whatever the platform or the
        // Rust release (a changed id would orphan every result file).
        assert_eq!(cell_id(&p), "0ca82a9be31c5b88");
        assert_eq!(fnv1a(""), "cbf29ce484222325");
        assert_eq!(fnv1a("a"), "af63dc4c8601ec8c");
        // The path the trace is read from is not a parameter.
        let mut moved = spec("selective", 1.2);
        moved.workload = Workload::Trace {
            name: "KTH-SP2-1996-2.1-cln.swf.gz".into(),
            path: PathBuf::from("/elsewhere/KTH.swf.gz"),
        };
        assert_eq!(cell_id(&moved.parameters()), cell_id(&p));
        assert_eq!(
            spec("easy", 1.0).parameters().canonical().lines().nth(7),
            Some("load=1")
        );
    }

    #[test]
    fn duplicates_are_refused_and_the_fingerprint_follows_the_cells() {
        let a = (spec("easy", 1.0), "experiment 1, line 3".to_owned());
        let b = (spec("easy", 1.2), "experiment 1, line 3".to_owned());
        let plan = |specs: Vec<(CellSpec, String)>, metrics: &[&str]| {
            Plan::new(
                "p".into(),
                None,
                metrics.iter().map(|m| (*m).to_owned()).collect(),
                false,
                specs,
            )
        };
        let one = plan(vec![a.clone(), b.clone()], &["mean_wait"]).unwrap();
        assert_eq!(one.cells.len(), 2);
        assert_eq!(one.cells[1].index, 1);
        let again = plan(vec![a.clone(), b.clone()], &["mean_wait"]).unwrap();
        assert_eq!(one.fingerprint, again.fingerprint);
        let swapped = plan(vec![b.clone(), a.clone()], &["mean_wait"]).unwrap();
        assert_ne!(one.fingerprint, swapped.fingerprint);
        assert_eq!(
            one.cells[0].id, swapped.cells[1].id,
            "ids follow parameters"
        );
        let other_metrics = plan(vec![a.clone(), b.clone()], &["jobs"]).unwrap();
        assert_ne!(one.fingerprint, other_metrics.fingerprint);
        let e = plan(
            vec![a, b, (spec("easy", 1.0), "experiment 2, line 9".into())],
            &[],
        )
        .unwrap_err();
        assert_eq!((e.first, e.second), (0, 2));
        assert!(
            e.message.starts_with(
                "cells 0 (experiment 1, line 3) and 2 (experiment 2, line 9) are the same replay \
                 (trace=KTH-SP2-1996-2.1-cln.swf.gz, skip=0,"
            ),
            "{}",
            e.message
        );
    }

    #[test]
    fn options_text_names_what_the_policy_uses() {
        let options = ThresholdOptions {
            threshold: Some(26_690),
            thresholds: Some([22_300, 72_400, 1_720, 2_590]),
            from: None,
            scale: Some(2_000),
            well_estimated_only: true,
        };
        let text = |name: &str| {
            PolicySpec::new(PolicyChoice::from_name(name).unwrap(), &options).options_text()
        };
        assert_eq!(text("selective"), "threshold=26.69");
        assert_eq!(text("selective-d"), "thresholds=22.30,72.40,1.72,2.59");
        assert_eq!(text("selective-scaled"), "scale=2.00 well-estimated-only");
        assert_eq!(text("selective-adaptive"), "well-estimated-only");
        assert_eq!(text("easy"), "");
        let mut dpsa = PolicySpec::new(PolicyChoice::from_name("dpsa-n").unwrap(), &options);
        dpsa.dpsa_nodes = Some(20_000);
        assert_eq!(dpsa.options_text(), "nodes=20000");
        assert!(!dpsa.draws());
        assert!(PolicySpec::new(PolicyChoice::from_name("cons-rs").unwrap(), &options).draws());
    }
}
