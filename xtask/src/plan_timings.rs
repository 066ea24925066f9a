//! `cargo xtask plan-timings`: the timings of a merged plan table
//! (`host-cli plan merge PLAN DIR --out T.csv`).
//!
//! ```text
//! cargo xtask plan-timings T.csv [--nodes 1,2,8,32,128,512] [--slowest 10] [--extrapolate]
//! ```
//!
//! Prints the cells with a result, the sum of their cell times, the slowest
//! cells, and what a cluster of N one-core nodes would take for the plan.
//!
//! A cell on a cluster runs alone: it reads its trace, runs the
//! Conservative replay its Selective thresholds come from (when it needs
//! one) and its own replay. In one `plan run` process cells share those
//! steps, so the time a cell would take alone is estimated as
//!
//! ```text
//! load(trace) + replay_seconds + conservative(trace, window, estimates, load)
//! ```
//!
//! where `load(trace)` is the largest `prepare_seconds` of the trace's
//! cells (the cell that read the trace; the others waited for it or found
//! it done) and `conservative(...)` is the `replay_seconds` of the
//! Conservative cell of the same trace, window, estimates and load (its own
//! `prerun_seconds` when the plan has no such cell; 0 for cells that need
//! none). N nodes are filled longest cell first, each cell to the node free
//! first (Graham's LPT rule); the makespan is at least the slowest cell and
//! at least the total over N.
//!
//! With `--extrapolate` (for a table merged with `--allow-missing`), each
//! cell without a result is given the mean time alone of the cells with a
//! result of the same policy, window and load (else of the same policy and
//! window), and the N-node figures cover every cell; the output says how
//! many cells are extrapolated. The slowest of those cells is unknown, so
//! the makespan of many nodes is then a guess.

use std::cmp::Reverse;
use std::collections::{BinaryHeap, HashMap};
use std::fmt::Write as _;
use std::path::PathBuf;

/// Options.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// The merged table (CSV, as `host-cli plan merge --out` writes it).
    table: PathBuf,
    /// Cluster sizes to fill, in one-core nodes, comma-separated.
    #[arg(long, value_name = "N,...", default_value = "1,2,8,32,128,512", value_delimiter = ',', value_parser = clap::value_parser!(u64).range(1..))]
    nodes: Vec<u64>,
    /// How many of the slowest cells to list.
    #[arg(long, value_name = "N", default_value_t = 10)]
    slowest: usize,
    /// Give each cell without a result the mean time alone of its policy,
    /// window and load (else policy and window), and count it.
    #[arg(long)]
    extrapolate: bool,
}

/// A row of the merged table, by column name.
type Row = HashMap<String, String>;

/// Column `name` of `row` (empty when absent).
fn field<'a>(row: &'a Row, name: &str) -> &'a str {
    row.get(name).map_or("", String::as_str)
}

/// Column `name` as a number: 0 when empty; an error naming the cell when
/// it is not a number.
fn number(row: &Row, name: &str) -> Result<f64, String> {
    let text = field(row, name);
    if text.is_empty() {
        return Ok(0.0);
    }
    text.parse().map_err(|_| {
        format!(
            "cell {}: {name} `{text}` is not a number",
            field(row, "cell")
        )
    })
}

/// Reads the table; prints the report to standard output.
pub fn run(args: &Args) -> Result<(), String> {
    let path = &args.table;
    let mut reader =
        csv::Reader::from_path(path).map_err(|e| format!("{}: {e}", path.display()))?;
    let every = reader
        .deserialize::<Row>()
        .collect::<Result<Vec<Row>, _>>()
        .map_err(|e| format!("{}: {e}", path.display()))?;
    print!("{}", report(&every, args)?);
    Ok(())
}

/// A float total in the order given (as the rows come).
fn total(values: impl Iterator<Item = f64>) -> f64 {
    values.fold(0.0, |sum, v| sum + v)
}

/// The report of rows `every` (see the module docs).
fn report(every: &[Row], args: &Args) -> Result<String, String> {
    let (rows, missing): (Vec<&Row>, Vec<&Row>) =
        every.iter().partition(|r| field(r, "status") == "ok");
    if rows.is_empty() {
        return Err("no cell with a result".into());
    }
    let mut load: HashMap<&str, f64> = HashMap::new();
    for r in &rows {
        let prepare = number(r, "prepare_seconds")?;
        let slot = load.entry(field(r, "trace")).or_insert(0.0);
        *slot = slot.max(prepare);
    }
    let window = |r: &Row| {
        ["trace", "skip", "first", "procs", "estimates", "load"].map(|k| field(r, k).to_owned())
    };
    let mut conservative = HashMap::new();
    for r in rows.iter().filter(|r| field(r, "policy") == "conservative") {
        conservative.insert(window(r), number(r, "replay_seconds")?);
    }
    let mut alone: Vec<(f64, &Row)> = Vec::new();
    for r in &rows {
        let mut t =
            load.get(field(r, "trace")).copied().unwrap_or(0.0) + number(r, "replay_seconds")?;
        if field(r, "options").contains("threshold-from=conservative") {
            t += match conservative.get(&window(r)) {
                Some(&c) => c,
                None => number(r, "prerun_seconds")?,
            };
        }
        alone.push((t, r));
    }
    let total_cell = total(
        rows.iter()
            .map(|r| number(r, "cell_seconds"))
            .collect::<Result<Vec<_>, _>>()?
            .into_iter(),
    );
    let mut total_alone = total(alone.iter().map(|a| a.0));
    let mut out = String::new();
    let _ = writeln!(out, "cells with a result: {}", rows.len());
    let _ = writeln!(
        out,
        "sum of cell_seconds (as run, sharing within the process): {total_cell:.0} s"
    );
    let _ = writeln!(out, "sum of the estimated times alone: {total_alone:.0} s");
    // Longest first; a stable sort keeps equal times in table order.
    alone.sort_by(|a, b| b.0.total_cmp(&a.0));
    let _ = writeln!(
        out,
        "slowest {} cells (estimated alone; replay_seconds in brackets):",
        args.slowest
    );
    for (t, r) in alone.iter().take(args.slowest) {
        let first = field(r, "first");
        let window_text = if first.is_empty() {
            String::new()
        } else {
            format!(" first {first}")
        };
        let _ = writeln!(
            out,
            "  {t:8.1} s  ({:7.1})  {} {} {} x{}{window_text}",
            number(r, "replay_seconds")?,
            field(r, "trace"),
            field(r, "policy"),
            field(r, "estimates"),
            field(r, "load"),
        );
    }
    if args.extrapolate && !missing.is_empty() {
        let kind = |r: &Row, with_load: bool| {
            let mut key = ["policy", "skip", "first"]
                .map(|k| field(r, k).to_owned())
                .to_vec();
            if with_load {
                key.push(field(r, "load").to_owned());
            }
            key
        };
        let mut by_kind: HashMap<Vec<String>, Vec<f64>> = HashMap::new();
        for (t, r) in &alone {
            for with_load in [true, false] {
                by_kind.entry(kind(r, with_load)).or_default().push(*t);
            }
        }
        let mut guessed = Vec::new();
        for r in &missing {
            let times = by_kind
                .get(&kind(r, true))
                .or_else(|| by_kind.get(&kind(r, false)))
                .ok_or_else(|| {
                    format!(
                        "cannot extrapolate cell {}: no {} cell has a result",
                        field(r, "cell"),
                        field(r, "policy")
                    )
                })?;
            #[allow(clippy::cast_precision_loss)]
            let mean = total(times.iter().copied()) / times.len() as f64;
            guessed.push((mean, *r));
        }
        let extra = total(guessed.iter().map(|g| g.0));
        let _ = writeln!(
            out,
            "EXTRAPOLATED: {} cells without a result, given the mean time alone of their \
             policy, window and load: {extra:.0} s; total alone {:.0} s",
            missing.len(),
            total_alone + extra
        );
        alone.extend(guessed);
        alone.sort_by(|a, b| b.0.total_cmp(&a.0));
        total_alone += extra;
    }
    let _ = writeln!(
        out,
        "N one-core nodes: makespan (LPT), lower bound max(slowest, total/N):"
    );
    let slowest = alone.first().map_or(0.0, |a| a.0);
    for &n in &args.nodes {
        let makespan = lpt(alone.iter().map(|a| a.0), n);
        #[allow(clippy::cast_precision_loss)]
        let bound = slowest.max(total_alone / n as f64);
        let _ = writeln!(
            out,
            "  {n:6}: {:7.2} h  (bound {:6.2} h)",
            makespan / 3600.0,
            bound / 3600.0
        );
    }
    Ok(out)
}

/// The makespan of `times` (taken in the order given) on `nodes` nodes,
/// each to the node free first.
fn lpt(times: impl Iterator<Item = f64>, nodes: u64) -> f64 {
    /// A node's busy time, ordered as a number (for the heap).
    #[derive(PartialEq)]
    struct Busy(f64);
    impl Eq for Busy {}
    impl PartialOrd for Busy {
        fn partial_cmp(&self, other: &Self) -> Option<std::cmp::Ordering> {
            Some(self.cmp(other))
        }
    }
    impl Ord for Busy {
        fn cmp(&self, other: &Self) -> std::cmp::Ordering {
            self.0.total_cmp(&other.0)
        }
    }
    let mut free: BinaryHeap<Reverse<Busy>> = (0..nodes).map(|_| Reverse(Busy(0.0))).collect();
    for t in times {
        if let Some(Reverse(Busy(b))) = free.pop() {
            free.push(Reverse(Busy(b + t)));
        }
    }
    free.into_iter()
        .map(|Reverse(Busy(b))| b)
        .fold(0.0, f64::max)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row(cell: u32, trace: &str, policy: &str, options: &str, times: [&str; 4]) -> Row {
        let mut r = Row::new();
        for (k, v) in [
            ("cell", cell.to_string().as_str()),
            ("trace", trace),
            ("skip", ""),
            ("first", ""),
            ("procs", ""),
            ("estimates", "user"),
            ("load", "1"),
            ("policy", policy),
            ("options", options),
            ("status", if times[2].is_empty() { "missing" } else { "ok" }),
            ("prepare_seconds", times[0]),
            ("prerun_seconds", times[1]),
            ("replay_seconds", times[2]),
            ("cell_seconds", times[3]),
        ] {
            r.insert(k.to_owned(), v.to_owned());
        }
        r
    }

    fn args(nodes: Vec<u64>, extrapolate: bool) -> Args {
        Args {
            table: PathBuf::new(),
            nodes,
            slowest: 2,
            extrapolate,
        }
    }

    #[test]
    fn a_cell_alone_reads_its_trace_and_runs_its_conservative_replay() {
        let rows = [
            row(0, "a", "conservative", "", ["2", "", "10", "12"]),
            row(
                1,
                "a",
                "selective",
                "threshold-from=conservative",
                ["0", "", "5", "15"],
            ),
            row(2, "b", "easy", "", ["1", "", "3", "4"]),
        ];
        let text = report(&rows, &args(vec![1, 2], false)).unwrap();
        // Alone: 2 + 10, 2 + 5 + 10, 1 + 3; the Selective cell is the slowest.
        assert!(text.contains("sum of cell_seconds (as run, sharing within the process): 31 s"));
        assert!(text.contains("sum of the estimated times alone: 33 s"));
        assert!(text.contains("      17.0 s  (    5.0)  a selective user x1\n"));
        assert!(text.contains("      12.0 s  (   10.0)  a conservative user x1\n"));
        assert!(!text.contains("b easy"), "only the two slowest are listed");
        // One node: 33 s; two: 17 | 12 + 4.
        assert!(text.contains("       1:    0.01 h  (bound   0.01 h)"));
        assert_eq!(lpt([17.0, 12.0, 4.0].into_iter(), 2), 17.0);
        assert_eq!(lpt([17.0, 12.0, 4.0].into_iter(), 1), 33.0);
    }

    #[test]
    fn missing_cells_take_their_kinds_mean_when_extrapolated() {
        let rows = [
            row(0, "a", "easy", "", ["0", "", "10", "10"]),
            row(1, "b", "easy", "", ["0", "", "20", "20"]),
            row(2, "c", "easy", "", ["", "", "", ""]),
        ];
        let plain = report(&rows, &args(vec![1], false)).unwrap();
        assert!(!plain.contains("EXTRAPOLATED"));
        let text = report(&rows, &args(vec![1], true)).unwrap();
        assert!(text.contains(
            "EXTRAPOLATED: 1 cells without a result, given the mean time alone of their \
             policy, window and load: 15 s; total alone 45 s"
        ));
        let lone = [row(0, "a", "easy", "", ["", "", "", ""])];
        assert_eq!(
            report(&lone, &args(vec![1], true)).unwrap_err(),
            "no cell with a result"
        );
    }
}
