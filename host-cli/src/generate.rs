//! `host-cli generate`: write a model workload as an SWF trace.
//!
//! ```text
//! host-cli generate lublin --jobs 5000 --procs 128 --seed 1 [--load 1.0] [-o lublin.swf]
//! ```
//!
//! `generate lublin` writes the built-in workload ([`crate::synth`]) for
//! the given parameters: `host-cli replay FILE` then schedules exactly what
//! `host-cli replay --synthetic-jobs N --seed S --procs P` schedules. The
//! header says how the file was made (the command line, both models with
//! their papers, the maximal estimate); each job line has its submit time,
//! run time, processors (fields 5 and 8), estimate (field 9), status 1 and
//! queue 1 (batch, as `m_lublin99.c` writes the job type); the other fields
//! are -1.

use crate::lublin::MAX_RUNTIME;
use crate::output::OutputFiles;
use crate::replay::CliError;
use crate::swf::{SwfRecord, TraceJob};
use crate::synth::{self, SyntheticSpec, BATCH_QUEUE};
use clap::{Args, Subcommand};
use std::fmt::Write as _;
use std::path::PathBuf;

/// `host-cli generate`.
#[derive(Debug, Args)]
pub struct GenerateArgs {
    /// The workload model.
    #[command(subcommand)]
    pub model: GenerateModel,
}

/// The models `generate` can write.
#[derive(Debug, Subcommand)]
pub enum GenerateModel {
    /// Lublin-Feitelson batch jobs with Tsafrir-Etsion-Feitelson estimates
    /// (the built-in workload of `replay`).
    Lublin(LublinArgs),
}

/// `host-cli generate lublin`.
#[derive(Debug, Args)]
pub struct LublinArgs {
    /// Number of jobs.
    #[arg(long, value_name = "N", default_value_t = SyntheticSpec::default().jobs)]
    pub jobs: u32,
    /// Machine size (processors).
    #[arg(long, value_name = "P", default_value_t = SyntheticSpec::default().procs,
          value_parser = clap::value_parser!(u32).range(1..))]
    pub procs: u32,
    /// PRNG seed.
    #[arg(long, value_name = "S", default_value_t = SyntheticSpec::default().seed)]
    pub seed: u64,
    /// Arrival rate relative to the published model: inter-arrival times
    /// are divided by F (F > 1 is heavier; the day keeps 24 hours).
    #[arg(long, value_name = "F", default_value_t = 1.0)]
    pub load: f64,
    /// Write to FILE instead of standard output.
    #[arg(short, long, value_name = "FILE")]
    pub output: Option<PathBuf>,
}

impl LublinArgs {
    /// The workload these options describe.
    ///
    /// # Errors
    /// [`CliError::Usage`] for a load that is not a positive number.
    pub fn spec(&self) -> Result<SyntheticSpec, CliError> {
        if !(self.load.is_finite() && self.load > 0.0) {
            return Err(CliError::Usage(format!(
                "--load must be a positive number, got {}",
                self.load
            )));
        }
        Ok(SyntheticSpec {
            jobs: self.jobs,
            procs: self.procs,
            load: self.load,
            seed: self.seed,
        })
    }
}

/// Runs `host-cli generate` and returns the text to print: the SWF file,
/// or with `-o` a line saying where it went.
///
/// # Errors
/// A bad option, the estimate model failing, or writing the file.
pub fn run(args: &GenerateArgs) -> Result<String, CliError> {
    match &args.model {
        GenerateModel::Lublin(a) => {
            let spec = a.spec()?;
            let text = lublin_swf(&spec)?;
            match &a.output {
                None => Ok(text),
                Some(path) => {
                    let mut files = OutputFiles::new(&[]);
                    files.add("--output", Some(path))?;
                    files.write("--output", text.as_bytes())?;
                    files.commit()?;
                    Ok(format!(
                        "wrote {} jobs ({}) to {}\n",
                        spec.jobs,
                        command_line(&spec),
                        path.display()
                    ))
                }
            }
        }
    }
}

/// The command line that makes `spec`'s file (without `-o`).
#[must_use]
pub fn command_line(spec: &SyntheticSpec) -> String {
    format!(
        "host-cli generate lublin --jobs {} --procs {} --seed {} --load {}",
        spec.jobs, spec.procs, spec.seed, spec.load
    )
}

/// The SWF text of the built-in workload `spec`: header, then one line a
/// job.
///
/// # Errors
/// [`CliError::Usage`] if the estimate model cannot cover the run times
/// (see [`synth::try_generate`]).
pub fn lublin_swf(spec: &SyntheticSpec) -> Result<String, CliError> {
    let jobs =
        synth::try_generate(spec).map_err(|e| CliError::Usage(format!("estimate model: {e}")))?;
    let mut out = String::with_capacity(80 * jobs.len() + 1200);
    let header = [
        ("Version", "2.2".to_owned()),
        ("Computer", format!("synthetic, {} processors", spec.procs)),
        ("MaxJobs", spec.jobs.to_string()),
        ("MaxRecords", spec.jobs.to_string()),
        ("MaxProcs", spec.procs.to_string()),
        ("MaxNodes", spec.procs.to_string()),
        ("MaxRuntime", MAX_RUNTIME.to_string()),
        ("Note", format!("generated by {}", command_line(spec))),
        (
            "Note",
            "jobs: the batch-job model of U. Lublin and D. G. Feitelson, \"The workload on \
             parallel supercomputers: modeling the characteristics of rigid jobs\", J. Parallel \
             Distrib. Comput. 63(11), 2003, with the batch parameters of m_lublin99.c"
                .to_owned(),
        ),
        (
            "Note",
            format!(
                "requested times (field 9): the model of D. Tsafrir, Y. Etsion and D. G. \
                 Feitelson, \"Modeling user runtime estimates\", JSSPP 2005 (est_model.cc), \
                 maximal estimate {MAX_RUNTIME} s; no job runs past its estimate"
            ),
        ),
        (
            "Note",
            format!(
                "time 0 is midnight; arrival rate x{} the published one (inter-arrival times \
                 divided by it); queue 1 = batch",
                spec.load
            ),
        ),
    ];
    for (key, value) in header {
        // Writing to a String cannot fail.
        let _ = writeln!(out, "; {key}: {value}");
    }
    for job in &jobs {
        let _ = writeln!(out, "{}", record(job));
    }
    Ok(out)
}

/// The SWF record of one generated job.
fn record(job: &TraceJob) -> SwfRecord {
    let number = i64::try_from(job.number).unwrap_or(i64::MAX);
    let procs = i64::from(job.procs);
    SwfRecord::from_fields([
        number,
        i64::from(job.submit),
        -1,
        i64::from(job.runtime),
        procs,
        -1,
        -1,
        procs,
        i64::from(job.estimate),
        -1,
        1,
        -1,
        -1,
        -1,
        BATCH_QUEUE,
        -1,
        -1,
        -1,
    ])
}
