//! `host-cli farm-study`: the flexible-backfilling paper's experiments
//! ([`crate::farm::study`]) with their output files.

use super::args::farm::FarmStudyArgs;
use crate::error::CliError;
use crate::farm::study::{self, StudySpec};
use crate::output::files::OutputFiles;
use backfill_core::Policy;
use std::path::Path;
use std::time::Instant;

/// Writes `made` (name, contents) to the outputs added under `option` for
/// `names`, in that order.
///
/// # Errors
/// [`CliError::Io`] when the files made are not the ones reserved (a bug)
/// or a write fails.
fn write_in_order(
    files: &mut OutputFiles,
    option: &str,
    names: &[&str],
    made: Vec<(String, String)>,
) -> Result<(), CliError> {
    let made_names: Vec<&str> = made.iter().map(|(n, _)| n.as_str()).collect();
    if made_names != names {
        return Err(CliError::Io(
            option.to_owned(),
            std::io::Error::other(format!("made {made_names:?}, reserved {names:?}")),
        ));
    }
    for (_, text) in made {
        files.write(option, text.as_bytes())?;
    }
    Ok(())
}

/// Creates `dir` (and its parents) if missing.
fn make_dir(dir: &Path) -> Result<(), CliError> {
    std::fs::create_dir_all(dir).map_err(|e| CliError::Io(dir.display().to_string(), e))
}

/// `LO-HI` percent.
fn parse_ratio_range(text: &str) -> Result<(u32, u32), CliError> {
    let (lo, hi) = text.split_once('-').ok_or_else(|| {
        CliError::Usage(format!("--license-ratios: expected LO-HI, found '{text}'"))
    })?;
    let number = |s: &str| {
        s.trim()
            .parse::<u32>()
            .ok()
            .filter(|&v| v <= 100)
            .ok_or_else(|| {
                CliError::Usage(format!(
                    "--license-ratios: expected a percentage, found '{s}'"
                ))
            })
    };
    Ok((number(lo)?, number(hi)?))
}

/// `host-cli farm-study`: runs the grid (and the license sweep), writes
/// the CSV files and figures asked for, returns the tables to print.
///
/// # Errors
/// Bad options, a replay error or a file that cannot be written.
pub(crate) fn run_study(args: &FarmStudyArgs) -> Result<String, CliError> {
    let mut policies = Vec::new();
    for name in &args.policies {
        let policy = Policy::from_name(name.trim())
            .ok_or_else(|| CliError::Usage(format!("--policies: unknown policy '{name}'")))?;
        if matches!(policy, Policy::ConsRsAlea(_)) {
            return Err(CliError::Usage(format!(
                "--policies: {policy} runs on one machine without license pools, not on a farm"
            )));
        }
        let policy = args.heuristics.apply(policy);
        if !policies.contains(&policy) {
            policies.push(policy);
        }
    }
    if policies.is_empty() {
        return Err(CliError::Usage(
            "--policies needs at least one policy".into(),
        ));
    }
    let ratios = if args.no_license_sweep {
        Vec::new()
    } else {
        args.license_ratios
            .iter()
            .map(|r| parse_ratio_range(r))
            .collect::<Result<Vec<_>, _>>()?
    };
    let spec = StudySpec {
        base: args.spec.spec(),
        means: args.means.clone(),
        repetitions: args.repetitions,
        policies,
        license_ratios: ratios,
        license_mean: args.license_mean,
    };
    spec.base.validate().map_err(CliError::Usage)?;
    if spec.repetitions == 0 || spec.means.is_empty() {
        return Err(CliError::Usage(
            "farm-study needs at least one mean and one repetition".into(),
        ));
    }
    // Every output file is checked and reserved before the run, and put in
    // place only when all are written.
    let sweep = !spec.license_ratios.is_empty();
    let mut files = OutputFiles::new(&[]);
    if let Some(dir) = &args.data_dir {
        make_dir(dir)?;
        for name in study::csv_names(sweep) {
            files.add_chosen("--data-dir", &dir.join(name), args.force)?;
        }
    }
    if let Some(dir) = &args.figures_dir {
        make_dir(dir)?;
        for name in study::figure_names(sweep) {
            files.add_chosen("--figures-dir", &dir.join(name), args.force)?;
        }
    }
    let started = Instant::now();
    let results = study::run(&spec)?;
    let seconds = started.elapsed().as_secs_f64();
    if args.data_dir.is_some() {
        write_in_order(
            &mut files,
            "--data-dir",
            &study::csv_names(sweep),
            study::csv_files(&results)?,
        )?;
    }
    if args.figures_dir.is_some() {
        write_in_order(
            &mut files,
            "--figures-dir",
            &study::figure_names(sweep),
            study::figures(&results)?,
        )?;
    }
    files.commit()?;
    Ok(study::tables(&results, seconds))
}
