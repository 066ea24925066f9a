//! `host-cli plan slurm`: the `sbatch` script that runs a plan as a Slurm
//! job array, one `host-cli plan run` per task (each task takes its cells
//! from `SLURM_ARRAY_TASK_ID` and `SLURM_ARRAY_TASK_COUNT`), every path
//! absolute and each task's log in `OUT/logs/JOB_TASK.out`.

use crate::error::CliError;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

/// What the script is made of.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Script {
    /// The `host-cli` binary (absolute).
    pub(crate) bin: PathBuf,
    /// The plan file (absolute).
    pub(crate) plan: PathBuf,
    /// The plan's fingerprint and cell count, for the header.
    pub(crate) fingerprint: String,
    /// Cells in the plan.
    pub(crate) cells: usize,
    /// The output folder (absolute).
    pub(crate) out: PathBuf,
    /// The traces folder the plan was read with (absolute), when it names
    /// traces.
    pub(crate) traces: Option<PathBuf>,
    /// Array tasks (at most the cells; default: one per cell).
    pub(crate) tasks: Option<usize>,
    /// `--partition`.
    pub(crate) partition: Option<String>,
    /// `--time`.
    pub(crate) time: Option<String>,
    /// Tasks running at once (`%N` of `--array`).
    pub(crate) max_parallel: Option<usize>,
    /// A job name.
    pub(crate) name: String,
}

/// `text` in single quotes for the shell.
fn quote(text: &str) -> String {
    format!("'{}'", text.replace('\'', "'\\''"))
}

/// An option value that goes on an `#SBATCH` line: one word, no quotes.
fn word(option: &str, value: &str) -> Result<String, CliError> {
    if value.is_empty()
        || value
            .chars()
            .any(|c| c.is_whitespace() || "'\"\\#$`".contains(c))
    {
        return Err(CliError::Usage(format!(
            "{option} {value:?}: give one word without blanks, quotes or shell characters"
        )));
    }
    Ok(value.to_owned())
}

impl Script {
    /// The array tasks: one per cell unless fewer were asked for.
    ///
    /// # Errors
    /// [`CliError::Usage`] for no cell, or a task or parallel count of 0.
    pub(crate) fn tasks(&self) -> Result<usize, CliError> {
        if self.cells == 0 {
            return Err(CliError::Usage("the plan has no cells".into()));
        }
        match self.tasks {
            Some(0) => Err(CliError::Usage("--tasks 0: at least one task".into())),
            Some(n) => Ok(n.min(self.cells)),
            None => Ok(self.cells),
        }
    }

    /// The script's text.
    ///
    /// # Errors
    /// [`CliError::Usage`] for an option value that cannot go in the
    /// script, as [`Script::tasks`].
    pub(crate) fn text(&self) -> Result<String, CliError> {
        let tasks = self.tasks()?;
        let mut array = format!("0-{}", tasks - 1);
        match self.max_parallel {
            Some(0) => return Err(CliError::Usage("--max-parallel 0: at least 1".into())),
            Some(n) => {
                let _ = write!(array, "%{n}");
            }
            None => {}
        }
        let logs = self.out.join("logs");
        let mut out = String::from("#!/bin/bash\n");
        let _ = writeln!(
            out,
            "# Written by `host-cli plan slurm`: plan {} (fingerprint {}), {} cells in {tasks} \
             array tasks",
            self.plan.display(),
            self.fingerprint,
            self.cells
        );
        out.push_str(
            "# Each task runs cells TASK, TASK + COUNT, ... (SLURM_ARRAY_TASK_ID, \
             SLURM_ARRAY_TASK_COUNT);\n# a task whose cells have results already skips \
             them, so resubmitting runs only what is missing.\n",
        );
        let _ = writeln!(out, "#SBATCH --job-name={}", word("job name", &self.name)?);
        let _ = writeln!(out, "#SBATCH --array={array}");
        let _ = writeln!(
            out,
            "#SBATCH --output={}",
            word("--out", &logs.join("%A_%a.out").display().to_string())?
        );
        out.push_str("#SBATCH --cpus-per-task=1\n");
        if let Some(p) = &self.partition {
            let _ = writeln!(out, "#SBATCH --partition={}", word("--partition", p)?);
        }
        if let Some(t) = &self.time {
            let _ = writeln!(out, "#SBATCH --time={}", word("--time", t)?);
        }
        out.push_str("set -euo pipefail\n");
        let mut command = format!(
            "exec {} plan run {} --out {}",
            quote(&self.bin.display().to_string()),
            quote(&self.plan.display().to_string()),
            quote(&self.out.display().to_string())
        );
        if let Some(t) = &self.traces {
            let _ = write!(command, " --traces {}", quote(&t.display().to_string()));
        }
        command.push_str(" --jobs \"${SLURM_CPUS_PER_TASK:-1}\"\n");
        out.push_str(&command);
        Ok(out)
    }
}

/// `path` made absolute (from the current folder), without resolving links.
///
/// # Errors
/// [`CliError::Io`] when the current folder is unknown.
pub(crate) fn absolute(path: &Path) -> Result<PathBuf, CliError> {
    std::path::absolute(path).map_err(|e| CliError::Io(path.display().to_string(), e))
}

/// Submits `script` with `sbatch --parsable`; returns the job id.
///
/// # Errors
/// [`CliError::Incomplete`] when `sbatch` cannot be run or refuses the job
/// (with its message).
pub(crate) fn submit(script: &Path) -> Result<String, CliError> {
    let out = std::process::Command::new("sbatch")
        .arg("--parsable")
        .arg(script)
        .stdin(std::process::Stdio::null())
        .output()
        .map_err(|e| CliError::Incomplete(format!("cannot run sbatch: {e}")))?;
    if !out.status.success() {
        return Err(CliError::Incomplete(format!(
            "sbatch {} failed ({}): {}",
            script.display(),
            out.status,
            String::from_utf8_lossy(&out.stderr).trim()
        )));
    }
    let text = String::from_utf8_lossy(&out.stdout);
    // --parsable prints `JOBID` or `JOBID;CLUSTER`.
    Ok(text.trim().split(';').next().unwrap_or_default().to_owned())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn script() -> Script {
        Script {
            bin: "/opt/bf/host-cli".into(),
            plan: "/home/u/study/plan.toml".into(),
            fingerprint: "0123456789abcdef".into(),
            cells: 40,
            out: "/scratch/u/out".into(),
            traces: Some("/data/traces".into()),
            tasks: None,
            partition: None,
            time: None,
            max_parallel: Some(8),
            name: "plan".into(),
        }
    }

    #[test]
    fn the_script_runs_one_plan_run_per_task_with_absolute_paths() {
        let text = script().text().unwrap();
        assert_eq!(
            text,
            "#!/bin/bash\n\
             # Written by `host-cli plan slurm`: plan /home/u/study/plan.toml (fingerprint \
             0123456789abcdef), 40 cells in 40 array tasks\n\
             # Each task runs cells TASK, TASK + COUNT, ... (SLURM_ARRAY_TASK_ID, \
             SLURM_ARRAY_TASK_COUNT);\n\
             # a task whose cells have results already skips them, so resubmitting runs only \
             what is missing.\n\
             #SBATCH --job-name=plan\n\
             #SBATCH --array=0-39%8\n\
             #SBATCH --output=/scratch/u/out/logs/%A_%a.out\n\
             #SBATCH --cpus-per-task=1\n\
             set -euo pipefail\n\
             exec '/opt/bf/host-cli' plan run '/home/u/study/plan.toml' --out '/scratch/u/out' \
             --traces '/data/traces' --jobs \"${SLURM_CPUS_PER_TASK:-1}\"\n"
        );
    }

    #[test]
    fn options_reach_the_script_or_are_refused() {
        let s = Script {
            tasks: Some(100),
            partition: Some("short".into()),
            time: Some("0-01:00:00".into()),
            max_parallel: None,
            traces: None,
            plan: "/it's/plan.toml".into(),
            ..script()
        };
        let text = s.text().unwrap();
        assert!(text.contains("#SBATCH --array=0-39\n"), "{text}");
        assert!(text.contains("#SBATCH --partition=short\n"));
        assert!(text.contains("#SBATCH --time=0-01:00:00\n"));
        assert!(
            text.contains("plan run '/it'\\''s/plan.toml' --out"),
            "{text}"
        );
        assert!(!text.contains("--traces"));
        let fewer = Script {
            tasks: Some(16),
            ..script()
        };
        assert!(fewer.text().unwrap().contains("--array=0-15%8\n"));
        for bad in [
            Script {
                partition: Some("a b".into()),
                ..script()
            },
            Script {
                time: Some("1:00\n#SBATCH --mem=1".into()),
                ..script()
            },
            Script {
                tasks: Some(0),
                ..script()
            },
            Script {
                max_parallel: Some(0),
                ..script()
            },
            Script {
                cells: 0,
                ..script()
            },
        ] {
            assert!(bad.text().is_err(), "{bad:?}");
        }
    }
}
