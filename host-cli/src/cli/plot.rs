//! `host-cli plot timeseries FILE.csv -o FILE.svg`: draws the time series
//! `replay --timeseries` wrote (processors busy, jobs running, jobs
//! waiting, against simulated hours since the first submit).

use super::args::PlotTimeseriesArgs;
use super::output_files;
use crate::error::CliError;
use crate::studies::plot::{lines, LinePanel, Series};

/// One row of the time series file (the columns the figure uses).
#[derive(Debug, serde::Deserialize)]
struct Row {
    time: f64,
    procs_busy: f64,
    jobs_running: f64,
    jobs_waiting: f64,
}

/// `host-cli plot timeseries`: returns the text to print.
///
/// # Errors
/// [`CliError::Usage`] naming the file and row of a bad input; output
/// errors.
pub(crate) fn run_timeseries(args: &PlotTimeseriesArgs) -> Result<String, CliError> {
    let name = args.file.display().to_string();
    let mut files = output_files(Some(&args.file), &[("--output", Some(&args.output))])?;
    let mut reader =
        csv::Reader::from_path(&args.file).map_err(|e| CliError::Usage(format!("{name}: {e}")))?;
    let rows: Vec<Row> = reader
        .deserialize()
        .enumerate()
        .map(|(i, r)| {
            r.map_err(|e| {
                CliError::Usage(format!(
                    "{name}: row {}: {e} (expected the columns of `replay --timeseries`)",
                    i + 2
                ))
            })
        })
        .collect::<Result<_, _>>()?;
    let Some(first) = rows.first() else {
        return Err(CliError::Usage(format!("{name}: no samples to draw")));
    };
    let xs: Vec<f64> = rows
        .iter()
        .map(|r| (r.time - first.time) / 3600.0)
        .collect();
    let panel = |title: &str, y: &str, value: fn(&Row) -> f64| LinePanel {
        title: title.to_owned(),
        x_label: "simulated hours since the first submit".to_owned(),
        y_label: y.to_owned(),
        xs: xs.clone(),
        series: vec![Series {
            name: "replay".to_owned(),
            values: rows.iter().map(|r| Some(value(r))).collect(),
        }],
    };
    let svg = lines(
        &format!("Time series of {name}"),
        &format!("{} samples", rows.len()),
        &[
            panel("processors busy", "processors", |r| r.procs_busy),
            panel("jobs running", "jobs", |r| r.jobs_running),
            panel("jobs waiting", "jobs", |r| r.jobs_waiting),
        ],
    )
    .map_err(CliError::Usage)?;
    files.write("--output", svg.as_bytes())?;
    files.commit()?;
    Ok(format!(
        "drew {} samples of {name} to {}\n",
        rows.len(),
        args.output.display()
    ))
}
