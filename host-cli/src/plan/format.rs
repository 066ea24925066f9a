//! The plan file (TOML). `docs/plans.md` is the reference; in short:
//!
//! ```toml
//! metrics = ["jobs", "mean_wait", "mean_bounded_slowdown", "utilisation"]
//! latency = false              # time every kernel call (slowest call in the timings)
//!
//! [[experiment]]               # one cross product; a plan has one or more
//! traces = ["KTH-SP2-1996-2.1-cln.swf.gz", "SDSC-*.swf.gz"]
//! builtin = [{ jobs = 2000, seed = 1 }]
//! windows = [{ first = 5000 }, { skip = 0 }]
//! estimates = ["user", "exact"]
//! loads = [1.0, 1.2]
//! policies = ["easy", { name = "selective", threshold = 26.69 }, "cons-rs"]
//! seeds = [0, 1, 2]            # only for a policy that draws (cons-rs, cons-rs-alea)
//! short_max = 3600
//! narrow_max = 8
//! ```
//!
//! Cells come out experiment by experiment, and within one in the order
//! workload (traces as listed, a glob's matches sorted by name, then the
//! built-in workloads), window, estimates, load, policy, seed. Every error
//! names the file, the line and the field (from toml's spans); unknown
//! keys, empty lists, unknown policies or metrics, options a policy does
//! not take, traces that are not there and two cells with the same
//! parameters are all refused.

use super::metrics;
use super::spec::{CellSpec, FarmParams, Plan, PolicySpec, Workload};
use crate::error::CliError;
use crate::farm::format::{line_of, FormatError};
use crate::farm::generate::FarmSpec;
use crate::numbers::parse_thousandths;
use crate::replay::policy::{PolicyChoice, ThresholdFrom, ThresholdOptions};
use crate::replay::thresholds::{parse_scale, parse_threshold};
use crate::replay::{Estimates, Window};
use crate::workload::synth::SyntheticSpec;
use backfill_core::{CategoryBounds, Policy};
use serde::Deserialize;
use std::ops::Range;
use std::path::{Path, PathBuf};
use toml::{Spanned, Value};

/// The environment variable naming the traces folder.
pub(crate) const TRACES_ENV: &str = "BACKFILL_TRACES_DIR";

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawPlan {
    metrics: Option<Spanned<Vec<Spanned<String>>>>,
    latency: Option<Spanned<bool>>,
    #[serde(default)]
    experiment: Vec<Spanned<RawExperiment>>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawExperiment {
    traces: Option<Spanned<Vec<Spanned<Value>>>>,
    builtin: Option<Spanned<Vec<Spanned<RawBuiltin>>>>,
    farms: Option<Spanned<Vec<Spanned<RawFarm>>>>,
    windows: Option<Spanned<Vec<Spanned<RawWindow>>>>,
    estimates: Option<Spanned<Vec<Spanned<String>>>>,
    loads: Option<Spanned<Vec<Spanned<f64>>>>,
    policies: Spanned<Vec<Spanned<Value>>>,
    seeds: Option<Spanned<Vec<Spanned<i64>>>>,
    short_max: Option<Spanned<i64>>,
    narrow_max: Option<Spanned<i64>>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawBuiltin {
    jobs: Option<Spanned<i64>>,
    seed: Option<Spanned<i64>>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawFarm {
    jobs: Option<Spanned<i64>>,
    seeds: Option<Spanned<Vec<Spanned<i64>>>>,
    mean_interarrivals: Option<Spanned<Vec<Spanned<f64>>>>,
    license_ratios: Option<Spanned<Vec<Spanned<RawRange>>>>,
}

/// A `[LO, HI]` pair, as written.
type RawRange = Vec<Spanned<i64>>;

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawWindow {
    skip: Option<Spanned<i64>>,
    first: Option<Spanned<i64>>,
    procs: Option<Spanned<i64>>,
}

/// The folder relative trace names are looked up in: `given` (`--traces`),
/// else `$BACKFILL_TRACES_DIR` when set and not empty, else the plan
/// file's folder.
#[must_use]
pub(crate) fn traces_dir(given: Option<&Path>, plan: &Path) -> PathBuf {
    if let Some(dir) = given {
        return dir.to_path_buf();
    }
    if let Some(dir) = std::env::var_os(TRACES_ENV).filter(|d| !d.is_empty()) {
        return PathBuf::from(dir);
    }
    match plan.parent() {
        Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
        _ => PathBuf::from("."),
    }
}

/// Reads and expands the plan file `path`, relative trace names taken from
/// [`traces_dir`]`(traces, path)`.
///
/// # Errors
/// [`CliError::Usage`] with the [`FormatError`]: file, line, field.
pub(crate) fn read(path: &Path, traces: Option<&Path>) -> Result<Plan, CliError> {
    let name = path.display().to_string();
    let text = std::fs::read_to_string(path).map_err(|e| {
        CliError::Usage(
            FormatError {
                file: name.clone(),
                line: None,
                field: None,
                message: format!("cannot read the plan: {e}"),
            }
            .to_string(),
        )
    })?;
    parse(&name, &text, &traces_dir(traces, path)).map_err(|e| CliError::Usage(e.to_string()))
}

/// Where errors point: the file and its text.
struct Ctx<'a> {
    file: &'a str,
    text: &'a str,
}

impl Ctx<'_> {
    fn err(&self, span: Range<usize>, field: &str, message: impl Into<String>) -> FormatError {
        FormatError {
            file: self.file.to_owned(),
            line: Some(line_of(self.text, span.start)),
            field: (!field.is_empty()).then(|| field.to_owned()),
            message: message.into(),
        }
    }

    /// The key written on the line of byte `offset` (`loads = [...]` gives
    /// `loads`), for toml's own errors, which name no field.
    fn key_at(&self, offset: usize) -> Option<String> {
        let start = self.text.get(..offset)?.rfind('\n').map_or(0, |i| i + 1);
        let line = self.text.get(start..)?.lines().next()?;
        let (key, _) = line.split_once('=')?;
        let key = key.trim().trim_matches('"');
        (!key.is_empty()
            && key
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || "_-.".contains(c)))
        .then(|| key.to_owned())
    }

    /// A whole number in `lo..=hi`.
    fn int<T: TryFrom<i64>>(
        &self,
        v: &Spanned<i64>,
        field: &str,
        lo: i64,
        hi: u64,
    ) -> Result<T, FormatError> {
        let n = *v.get_ref();
        if n < lo || u64::try_from(n).is_ok_and(|n| n > hi) {
            return Err(self.err(
                v.span(),
                field,
                format!("{n} is out of range: a whole number from {lo} to {hi}"),
            ));
        }
        T::try_from(n).map_err(|_| self.err(v.span(), field, format!("{n} is out of range")))
    }

    /// A list that must not be empty.
    fn list<'v, T>(
        &self,
        v: &'v Spanned<Vec<T>>,
        field: &str,
        what: &str,
    ) -> Result<&'v [T], FormatError> {
        if v.get_ref().is_empty() {
            return Err(self.err(
                v.span(),
                field,
                format!("the list is empty: give at least one {what} (or leave `{field}` out)"),
            ));
        }
        Ok(v.get_ref())
    }

    /// Each entry of the list `v`, which must not be empty ([`Ctx::list`]),
    /// read by `read` with its field (`field[i]`); the first error stops.
    fn each<T, U>(
        &self,
        v: &Spanned<Vec<T>>,
        field: &str,
        what: &str,
        mut read: impl FnMut(&T, &str) -> Result<U, FormatError>,
    ) -> Result<Vec<U>, FormatError> {
        self.list(v, field, what)?
            .iter()
            .enumerate()
            .map(|(i, x)| read(x, &format!("{field}[{i}]")))
            .collect()
    }
}

/// Parses the plan `text`; `file` names it in errors, relative trace names
/// are looked up in `traces`.
///
/// # Errors
/// [`FormatError`] naming the file, line and field.
pub fn parse(file: &str, text: &str, traces: &Path) -> Result<Plan, FormatError> {
    let ctx = Ctx { file, text };
    let raw: RawPlan = toml::from_str(text).map_err(|e| {
        let span = e.span().unwrap_or(0..0);
        let field = ctx.key_at(span.start).unwrap_or_default();
        let mut err = ctx.err(span, &field, e.message().trim_end().replace('\n', "; "));
        if e.span().is_none() {
            err.line = None;
        }
        err
    })?;
    let metrics = match &raw.metrics {
        None => metrics::DEFAULT.map(str::to_owned).to_vec(),
        Some(list) => {
            let mut out: Vec<String> = Vec::new();
            let any_farm = raw.experiment.iter().any(|e| e.get_ref().farms.is_some());
            let any_other = raw.experiment.iter().any(|e| e.get_ref().farms.is_none());
            for (i, m) in ctx.list(list, "metrics", "metric")?.iter().enumerate() {
                let field = format!("metrics[{i}]");
                let name = m.get_ref();
                if !metrics::is_known(name) {
                    let shown = name.escape_debug().to_string();
                    return Err(ctx.err(m.span(), &field, metrics::unknown(&shown)));
                }
                if out.contains(name) {
                    return Err(ctx.err(m.span(), &field, format!("`{name}` is listed twice")));
                }
                if any_farm && !metrics::for_farms(name) {
                    return Err(ctx.err(
                        m.span(),
                        &field,
                        format!(
                            "`{name}` is not computed for generated farms, and this plan has \
                             `farms`; their metrics are {}",
                            metrics::farm_names().join(", ")
                        ),
                    ));
                }
                if any_other && metrics::farm_only(name) {
                    return Err(ctx.err(
                        m.span(),
                        &field,
                        format!(
                            "`{name}` is a metric of generated farms only, and this plan also \
                             replays traces or builtin workloads"
                        ),
                    ));
                }
                out.push(name.clone());
            }
            out
        }
    };
    if raw.experiment.is_empty() {
        return Err(FormatError {
            file: file.to_owned(),
            line: None,
            field: None,
            message: "the plan has no [[experiment]]: add one with traces (or builtin) and \
                      policies"
                .into(),
        });
    }
    let latency = raw.latency.as_ref().is_some_and(|l| *l.get_ref());
    if let Some(l) = raw.latency.as_ref().filter(|l| *l.get_ref()) {
        if raw.experiment.iter().any(|e| e.get_ref().farms.is_some()) {
            return Err(ctx.err(
                l.span(),
                "latency",
                "kernel calls are not timed in generated farms' replays, and this plan has \
                 `farms`: leave `latency` out",
            ));
        }
    }
    let mut specs = Vec::new();
    let mut lines = Vec::new();
    for (i, e) in raw.experiment.iter().enumerate() {
        let line = line_of(text, e.span().start);
        let origin = format!("experiment {}, line {line}", i + 1);
        for spec in experiment(&ctx, e.get_ref(), &format!("experiment[{i}]"), traces)? {
            specs.push((spec, origin.clone()));
            lines.push(line);
        }
    }
    Plan::new(
        file.to_owned(),
        Some(traces.to_path_buf()),
        metrics,
        latency,
        specs,
    )
    .map_err(|d| FormatError {
        file: file.to_owned(),
        line: lines.get(d.second).copied(),
        field: None,
        message: d.message,
    })
}

/// The cells of one experiment, in order.
fn experiment(
    ctx: &Ctx<'_>,
    e: &RawExperiment,
    at: &str,
    traces: &Path,
) -> Result<Vec<CellSpec>, FormatError> {
    let field = |name: &str| format!("{at}.{name}");
    // Each workload with the loads its trace entry gives, if any.
    let mut workloads: Vec<(Workload, Option<Vec<f64>>)> = Vec::new();
    if let Some(list) = &e.traces {
        let found = ctx.each(list, &field("traces"), "trace", |entry, at| {
            let (text, own) = trace_entry(ctx, entry, at)?;
            let found = find_traces(ctx, &text, &entry.span(), at, traces)?;
            Ok(found.into_iter().map(move |w| (w, own.clone())))
        })?;
        workloads.extend(found.into_iter().flatten());
    }
    if let Some(list) = &e.builtin {
        let default = SyntheticSpec::default();
        let found = ctx.each(list, &field("builtin"), "workload", |b, f| {
            let b = b.get_ref();
            let jobs = match &b.jobs {
                Some(v) => ctx.int(v, &format!("{f}.jobs"), 1, u64::from(u32::MAX))?,
                None => default.jobs,
            };
            let seed = match &b.seed {
                Some(v) => ctx.int(v, &format!("{f}.seed"), 0, u64::MAX)?,
                None => default.seed,
            };
            Ok((Workload::Builtin { jobs, seed }, None))
        })?;
        workloads.extend(found);
    }
    if let Some(list) = &e.farms {
        farms_alone(ctx, e, at)?;
        let found = ctx.each(list, &field("farms"), "farm", |f, at| farms(ctx, f, at))?;
        workloads.extend(found.into_iter().flatten().map(|w| (w, None)));
    }
    if workloads.is_empty() {
        return Err(ctx.err(
            e.policies.span(),
            at,
            "the experiment names no workload: give `traces`, `builtin` or `farms`",
        ));
    }
    let windows = match &e.windows {
        None => vec![Window::WHOLE],
        Some(list) => ctx.each(list, &field("windows"), "window", |w, at| {
            window(ctx, w.get_ref(), at)
        })?,
    };
    let estimates = match &e.estimates {
        None => vec![Estimates::User],
        Some(list) => ctx.each(list, &field("estimates"), "estimate kind", |s, at| match s
            .get_ref()
            .as_str()
        {
            "user" => Ok(Estimates::User),
            "exact" => Ok(Estimates::Exact),
            other => Err(ctx.err(
                s.span(),
                at,
                format!(
                    "`{}` is not an estimate kind: user or exact",
                    other.escape_debug()
                ),
            )),
        })?,
    };
    let loads = match &e.loads {
        None => vec![1.0],
        Some(list) => {
            if workloads.iter().all(|(_, own)| own.is_some()) {
                return Err(ctx.err(
                    list.span(),
                    &field("loads"),
                    "every trace of the experiment gives its own `loads`, so these apply to \
                     none: leave `loads` out, or the traces' own",
                ));
            }
            ctx.each(list, &field("loads"), "load factor", |l, at| {
                load_factor(ctx, *l.get_ref(), l.span(), at)
            })?
        }
    };
    let policies = ctx.each(&e.policies, &field("policies"), "policy", |p, at| {
        let spec = policy(ctx, p, at)?;
        if e.farms.is_some() && spec.needs_conservative() {
            return Err(ctx.err(
                p.span(),
                at,
                format!(
                    "{} takes its thresholds from a Conservative run of a trace, which a \
                         generated farm has not: give its thresholds",
                    spec.choice.name()
                ),
            ));
        }
        Ok(spec)
    })?;
    let seeds: Option<Vec<u64>> = match &e.seeds {
        None => None,
        Some(list) => {
            let values: Vec<u64> = ctx.each(list, &field("seeds"), "seed", |s, at| {
                ctx.int(s, at, 0, u64::MAX)
            })?;
            if !policies.iter().any(PolicySpec::draws) {
                return Err(ctx.err(
                    list.span(),
                    &field("seeds"),
                    "seeds apply to the policies that draw random numbers (cons-rs), and this \
                     experiment has none",
                ));
            }
            Some(values)
        }
    };
    let bound = |v: &Option<Spanned<i64>>, name: &str, default: u32| match v {
        Some(v) => ctx.int(v, &field(name), 0, u64::from(u32::MAX)),
        None => Ok(default),
    };
    let bounds = CategoryBounds {
        short_max: bound(&e.short_max, "short_max", CategoryBounds::DEFAULT.short_max)?,
        narrow_max: bound(
            &e.narrow_max,
            "narrow_max",
            CategoryBounds::DEFAULT.narrow_max,
        )?,
    };
    let mut out = Vec::new();
    for (workload, own) in &workloads {
        for &window in &windows {
            for &estimates in &estimates {
                for &load in own.as_ref().unwrap_or(&loads) {
                    for &policy in &policies {
                        let cell_seeds: Vec<Option<u64>> = if policy.draws() {
                            seeds.as_ref().map_or_else(
                                || vec![Some(PolicySpec::default_seed())],
                                |s| s.iter().copied().map(Some).collect(),
                            )
                        } else {
                            vec![None]
                        };
                        for seed in cell_seeds {
                            out.push(CellSpec {
                                workload: workload.clone(),
                                window,
                                bounds,
                                estimates,
                                load,
                                policy,
                                seed,
                            });
                        }
                    }
                }
            }
        }
    }
    Ok(out)
}

/// `v` as a load factor: a positive finite number.
fn load_factor(ctx: &Ctx<'_>, v: f64, span: Range<usize>, field: &str) -> Result<f64, FormatError> {
    if v.is_finite() && v > 0.0 {
        Ok(v)
    } else {
        Err(ctx.err(
            span,
            field,
            format!(
                "{v} is not a load factor (a positive number: submit times are divided by it, \
                 so 1.2 is 20% heavier)"
            ),
        ))
    }
}

/// A `traces` entry: a name (or glob), or a table `{ path = NAME, loads =
/// [...] }` whose loads replace the experiment's for the traces it names.
fn trace_entry(
    ctx: &Ctx<'_>,
    entry: &Spanned<Value>,
    at: &str,
) -> Result<(String, Option<Vec<f64>>), FormatError> {
    let span = entry.span();
    let table = match entry.get_ref() {
        Value::String(name) => return Ok((name.clone(), None)),
        Value::Table(table) => table,
        other => {
            return Err(ctx.err(
                span,
                at,
                format!(
                    "a trace is a name or a table {{ path = NAME, loads = [...] }}, not {}",
                    kind(other)
                ),
            ))
        }
    };
    if let Some(key) = table
        .keys()
        .find(|k| !["path", "loads"].contains(&k.as_str()))
    {
        return Err(ctx.err(
            span,
            &format!("{at}.{}", key.escape_debug()),
            format!(
                "unknown key `{}` in a trace entry: its keys are path and loads",
                key.escape_debug()
            ),
        ));
    }
    let path = match table.get("path") {
        Some(Value::String(path)) => path.clone(),
        Some(other) => {
            return Err(ctx.err(
                span,
                &format!("{at}.path"),
                format!("`path` is a trace name or glob, not {}", kind(other)),
            ))
        }
        None => {
            return Err(ctx.err(
                span,
                at,
                "a trace entry needs `path`, the trace's name or glob",
            ))
        }
    };
    let field = format!("{at}.loads");
    let loads = match table.get("loads") {
        None => None,
        Some(Value::Array(list)) if list.is_empty() => {
            return Err(ctx.err(
                span,
                &field,
                "the list is empty: give at least one load factor (or leave `loads` out)",
            ))
        }
        Some(Value::Array(list)) => Some(
            list.iter()
                .enumerate()
                .map(|(i, v)| {
                    let f = format!("{field}[{i}]");
                    match v {
                        #[allow(clippy::cast_precision_loss)]
                        Value::Integer(n) => load_factor(ctx, *n as f64, span.clone(), &f),
                        Value::Float(x) => load_factor(ctx, *x, span.clone(), &f),
                        other => Err(ctx.err(
                            span.clone(),
                            &f,
                            format!("a load factor is a number, not {}", kind(other)),
                        )),
                    }
                })
                .collect::<Result<Vec<f64>, _>>()?,
        ),
        Some(other) => {
            return Err(ctx.err(
                span,
                &field,
                format!("`loads` is a list of load factors, not {}", kind(other)),
            ))
        }
    };
    Ok((path, loads))
}

/// Refuses, beside `farms`, the keys that do not apply to generated farms.
fn farms_alone(ctx: &Ctx<'_>, e: &RawExperiment, at: &str) -> Result<(), FormatError> {
    let spans = [
        ("traces", e.traces.as_ref().map(Spanned::span)),
        ("builtin", e.builtin.as_ref().map(Spanned::span)),
        ("windows", e.windows.as_ref().map(Spanned::span)),
        ("estimates", e.estimates.as_ref().map(Spanned::span)),
        ("loads", e.loads.as_ref().map(Spanned::span)),
        ("short_max", e.short_max.as_ref().map(Spanned::span)),
        ("narrow_max", e.narrow_max.as_ref().map(Spanned::span)),
    ];
    for (key, span) in spans {
        if let Some(span) = span {
            return Err(ctx.err(
                span,
                &format!("{at}.{key}"),
                format!(
                    "`{key}` does not apply to generated farms (their jobs carry their own \
                     estimates, machines and deadlines): give `farms` in an experiment of its own"
                ),
            ));
        }
    }
    Ok(())
}

/// A `farms` entry: the farms of every mean inter-arrival time, license
/// ratio and seed given (in that order), the generator's defaults for the
/// keys left out.
fn farms(ctx: &Ctx<'_>, f: &Spanned<RawFarm>, at: &str) -> Result<Vec<Workload>, FormatError> {
    let raw = f.get_ref();
    let default = FarmSpec::default();
    let jobs = match &raw.jobs {
        Some(v) => ctx.int(v, &format!("{at}.jobs"), 1, u64::from(u32::MAX))?,
        None => default.jobs,
    };
    let seeds: Vec<u64> = match &raw.seeds {
        Some(list) => ctx.each(list, &format!("{at}.seeds"), "seed", |v, at| {
            ctx.int(v, at, 0, u64::MAX)
        })?,
        None => vec![default.seed],
    };
    let means: Vec<f64> = match &raw.mean_interarrivals {
        Some(list) => {
            let field = format!("{at}.mean_interarrivals");
            ctx.each(list, &field, "mean inter-arrival time", |v, at| {
                let m = *v.get_ref();
                if m.is_finite() && m >= 0.0 {
                    Ok(m)
                } else {
                    Err(ctx.err(
                        v.span(),
                        at,
                        format!("{m} is not a mean inter-arrival time (a number >= 0)"),
                    ))
                }
            })?
        }
        None => vec![default.mean_interarrival],
    };
    let ratios: Vec<(u32, u32)> = match &raw.license_ratios {
        Some(list) => {
            let field = format!("{at}.license_ratios");
            ctx.each(list, &field, "license ratio", |v, field| {
                let [lo, hi] = v.get_ref().as_slice() else {
                    return Err(ctx.err(
                        v.span(),
                        field,
                        format!(
                            "a license ratio is two percentages [LO, HI], not {} values",
                            v.get_ref().len()
                        ),
                    ));
                };
                Ok((ctx.int(lo, field, 0, 100)?, ctx.int(hi, field, 0, 100)?))
            })?
        }
        None => vec![default.license_ratio],
    };
    let mut out = Vec::new();
    for &mean in &means {
        for &license_ratio in &ratios {
            for &seed in &seeds {
                let params = FarmParams {
                    jobs,
                    seed,
                    mean_interarrival_bits: mean.to_bits(),
                    license_ratio,
                };
                params
                    .spec()
                    .validate()
                    .map_err(|m| ctx.err(f.span(), at, m))?;
                out.push(Workload::Farm(params));
            }
        }
    }
    Ok(out)
}

/// A window entry.
fn window(ctx: &Ctx<'_>, w: &RawWindow, at: &str) -> Result<Window, FormatError> {
    Ok(Window {
        skip: match &w.skip {
            Some(v) => ctx.int(v, &format!("{at}.skip"), 0, u64::MAX)?,
            None => 0,
        },
        first: match &w.first {
            Some(v) => Some(ctx.int(v, &format!("{at}.first"), 0, u64::MAX)?),
            None => None,
        },
        procs: match &w.procs {
            Some(v) => Some(ctx.int(v, &format!("{at}.procs"), 1, u64::from(u32::MAX))?),
            None => None,
        },
    })
}

/// The traces a `traces` entry names: one file, or a glob's matches sorted
/// by name; relative ones in `dir`.
fn find_traces(
    ctx: &Ctx<'_>,
    text: &str,
    span: &Range<usize>,
    field: &str,
    dir: &Path,
) -> Result<Vec<Workload>, FormatError> {
    let where_ = || {
        format!(
            "{} (relative trace names are looked up in --traces DIR, else ${TRACES_ENV}, else \
             the plan's folder)",
            dir.display()
        )
    };
    if text.trim().is_empty() {
        return Err(ctx.err(span.clone(), field, "an empty trace name"));
    }
    // Quoted escaped: the name may hold a line break.
    let shown = text.escape_debug();
    let absolute = Path::new(text).is_absolute();
    let full = if absolute {
        PathBuf::from(text)
    } else {
        dir.join(text)
    };
    let name_of = |path: &Path| {
        if absolute {
            path.display().to_string()
        } else {
            path.strip_prefix(dir)
                .unwrap_or(path)
                .components()
                .map(|c| c.as_os_str().to_string_lossy().into_owned())
                .collect::<Vec<_>>()
                .join("/")
        }
    };
    if !text.contains(['*', '?', '[']) {
        if !full.is_file() {
            return Err(ctx.err(
                span.clone(),
                field,
                format!("trace `{shown}` not found in {}", where_()),
            ));
        }
        return Ok(vec![Workload::Trace {
            name: name_of(&full),
            path: full,
        }]);
    }
    let glob_text = if absolute {
        text.to_owned()
    } else {
        format!(
            "{}/{text}",
            glob::Pattern::escape(&dir.display().to_string())
        )
    };
    let paths = glob::glob(&glob_text).map_err(|e| {
        ctx.err(
            span.clone(),
            field,
            format!("`{shown}` is not a valid pattern: {e}"),
        )
    })?;
    let mut found: Vec<PathBuf> = paths
        .filter_map(Result::ok)
        .filter(|p| p.is_file())
        .collect();
    found.sort();
    if found.is_empty() {
        return Err(ctx.err(
            span.clone(),
            field,
            format!("no trace matches `{shown}` in {}", where_()),
        ));
    }
    Ok(found
        .into_iter()
        .map(|path| Workload::Trace {
            name: name_of(&path),
            path,
        })
        .collect())
}

/// The kind of a TOML value, for messages.
fn kind(v: &Value) -> &'static str {
    match v {
        Value::String(_) => "a string",
        Value::Integer(_) => "an integer",
        Value::Float(_) => "a float",
        Value::Boolean(_) => "a boolean",
        Value::Datetime(_) => "a date",
        Value::Array(_) => "an array",
        Value::Table(_) => "a table",
    }
}

/// A number's text, for the threshold parsers.
fn number_text(v: &Value) -> Option<String> {
    match v {
        Value::Integer(i) => Some(i.to_string()),
        Value::Float(f) => Some(f.to_string()),
        _ => None,
    }
}

/// The options a policy entry may have: (key, the policies it applies to).
const OPTIONS: [(&str, &str); 9] = [
    ("threshold", "selective"),
    ("thresholds", "selective-d"),
    ("threshold_from", "selective and selective-d"),
    ("scale", "selective-scaled"),
    (
        "well_estimated_only",
        "selective-adaptive and selective-scaled",
    ),
    ("nodes", "dpsa-p, dpsa-n and dpsa-w"),
    ("iterations", "cons-rs"),
    ("no_compression", "conservative"),
    ("license_weight", "bf-unmod and bf-mod"),
];

/// A policy entry: a name, or a table with `name` and options.
fn policy(ctx: &Ctx<'_>, entry: &Spanned<Value>, at: &str) -> Result<PolicySpec, FormatError> {
    let span = entry.span();
    let err = |field: &str, message: String| ctx.err(span.clone(), field, message);
    let named = |name: &str, field: &str| {
        <PolicyChoice as clap::ValueEnum>::from_str(name, false).map_err(|_| {
            err(
                field,
                format!(
                    "`{}` is not a policy; the policies are {}",
                    name.escape_debug(),
                    Policy::ALL.map(Policy::name).join(", ")
                ),
            )
        })
    };
    let table = match entry.get_ref() {
        Value::String(name) => {
            return Ok(PolicySpec::new(
                named(name, at)?,
                &ThresholdOptions::default(),
            ));
        }
        Value::Table(t) => t,
        other => {
            return Err(err(
                at,
                format!(
                    "a policy is a name or a table {{ name = \"...\", options }}, not {}",
                    kind(other)
                ),
            ))
        }
    };
    let name = match table.get("name") {
        Some(Value::String(n)) => n.clone(),
        Some(other) => {
            return Err(err(
                &format!("{at}.name"),
                format!("the policy name is a string, not {}", kind(other)),
            ))
        }
        None => return Err(err(at, "a policy table needs `name`".into())),
    };
    let mut choice = named(&name, &format!("{at}.name"))?;
    let mut options = ThresholdOptions::default();
    let mut spec = PolicySpec::new(choice, &options);
    let dpsa = matches!(choice.plain(), Some(Policy::Dpsa { .. }));
    for (key, value) in table {
        if key == "name" {
            continue;
        }
        let field = format!("{at}.{}", key.escape_debug());
        let Some(&(_, applies)) = OPTIONS.iter().find(|o| o.0 == key) else {
            return Err(err(
                &field,
                format!(
                    "unknown policy option `{}`; the options are {}",
                    key.escape_debug(),
                    OPTIONS.map(|o| o.0).join(", ")
                ),
            ));
        };
        let fits = match key.as_str() {
            "threshold" => name == "selective",
            "thresholds" => name == "selective-d",
            "threshold_from" => name == "selective" || name == "selective-d",
            "scale" => name == "selective-scaled",
            "well_estimated_only" => name == "selective-adaptive" || name == "selective-scaled",
            "nodes" => dpsa,
            "iterations" => spec.draws(),
            "license_weight" => name == "bf-unmod" || name == "bf-mod",
            _ => name == "conservative",
        };
        if !fits {
            return Err(err(
                &field,
                format!("`{key}` applies to {applies}, not {name}"),
            ));
        }
        let bad = |what: &str| err(&field, format!("`{key}` is {what}, not {}", kind(value)));
        let parsed = |r: Result<u32, String>| r.map_err(|m| err(&field, m));
        match (key.as_str(), value) {
            ("threshold", v) => {
                let t = number_text(v).ok_or_else(|| bad("a number (e.g. 26.69)"))?;
                options.threshold = Some(parsed(parse_threshold(&t))?);
            }
            ("thresholds", Value::Array(values)) => {
                let mut out = [0; 4];
                if values.len() != 4 {
                    return Err(err(
                        &field,
                        format!(
                            "`thresholds` takes four numbers (SN, SW, LN, LW), not {}",
                            values.len()
                        ),
                    ));
                }
                for (slot, v) in out.iter_mut().zip(values) {
                    let t = number_text(v).ok_or_else(|| bad("four numbers"))?;
                    *slot = parsed(parse_threshold(&t))?;
                }
                options.thresholds = Some(out);
            }
            ("threshold_from", Value::String(s)) if s == "conservative" => {
                options.from = Some(ThresholdFrom::Conservative);
            }
            ("threshold_from", Value::String(s)) => {
                return Err(err(
                    &field,
                    format!(
                        "`{}` is not a threshold source: the one source is \"conservative\"",
                        s.escape_debug()
                    ),
                ))
            }
            ("scale", v) => {
                let t = number_text(v).ok_or_else(|| bad("a number (e.g. 1.5)"))?;
                options.scale = Some(parsed(parse_scale(&t))?);
            }
            ("well_estimated_only", Value::Boolean(b)) => options.well_estimated_only = *b,
            ("license_weight", v) => {
                let t = number_text(v).ok_or_else(|| bad("a number (e.g. 0 or 1.5)"))?;
                spec.license_weight = Some(parsed(parse_thousandths(&t))?);
            }
            ("nodes" | "iterations", Value::Integer(n)) => {
                let n = u32::try_from(*n).map_err(|_| {
                    err(
                        &field,
                        format!("{n} is out of range: a whole number from 0 to {}", u32::MAX),
                    )
                })?;
                if key == "nodes" {
                    spec.dpsa_nodes = Some(n);
                } else {
                    spec.rs_iterations = Some(n);
                }
            }
            ("no_compression", Value::Boolean(b)) => {
                if *b {
                    choice = named(Policy::ConservativeNoCompression.name(), &field)?;
                }
            }
            ("thresholds", _) => return Err(bad("an array of four numbers")),
            ("threshold_from", _) => return Err(bad("a string")),
            ("well_estimated_only" | "no_compression", _) => return Err(bad("a boolean")),
            _ => return Err(bad("a whole number")),
        }
    }
    if options.from.is_some() && (options.threshold.is_some() || options.thresholds.is_some()) {
        return Err(err(
            at,
            "`threshold_from` and the thresholds it would replace are both given: give one or the \
             other"
                .into(),
        ));
    }
    let with = PolicySpec::new(choice, &options);
    Ok(PolicySpec {
        dpsa_nodes: spec.dpsa_nodes,
        rs_iterations: spec.rs_iterations,
        license_weight: spec.license_weight,
        ..with
    })
}

#[cfg(test)]
mod tests;
