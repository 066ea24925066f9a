//! No option is silently ignored: every option of every command the
//! parser accepts (walked from clap's own description of the command line,
//! so a new option cannot escape), in every mode of its command (a trace,
//! the built-in workload, a farm), either changes what the run prints or
//! writes, or is refused with exit status 2 and a message naming it.

use super::{small_trace, stderr, stdout, BIN};
use std::collections::BTreeMap;
use std::path::Path;
use std::process::{Command, Output, Stdio};

/// One command in one mode: the subcommand path, and the arguments of a
/// small run that the walked option is added to (an option already among
/// them has its value replaced).
struct Mode {
    /// What the mode is, for messages.
    name: &'static str,
    /// The subcommand path (`["generate", "farm"]`).
    path: &'static [&'static str],
    /// The base run's arguments after the path, as (option, values).
    base: &'static [(&'static str, &'static [&'static str])],
}

/// Trace mode: the positional SWF trace.
const TRACE: (&str, &[&str]) = ("", &["small.swf"]);
/// Built-in mode: a small synthetic workload.
const BUILT_IN: (&str, &[&str]) = ("--synthetic-jobs", &["40"]);

/// Every mode of every command.
const MODES: &[Mode] = &[
    Mode {
        name: "replay of a trace",
        path: &["replay"],
        base: &[TRACE],
    },
    Mode {
        name: "replay of the built-in workload",
        path: &["replay"],
        base: &[BUILT_IN],
    },
    Mode {
        name: "replay of a farm",
        path: &["replay"],
        base: &[
            ("", &["jobs.csv"]),
            ("--farm", &["farm.toml"]),
            ("--policy", &["bf-mod"]),
        ],
    },
    Mode {
        name: "info",
        path: &["info"],
        base: &[TRACE],
    },
    Mode {
        name: "thresholds of a trace",
        path: &["thresholds"],
        base: &[TRACE],
    },
    Mode {
        name: "thresholds of the built-in workload",
        path: &["thresholds"],
        base: &[BUILT_IN],
    },
    Mode {
        name: "compare on a trace",
        path: &["compare"],
        base: &[TRACE],
    },
    Mode {
        name: "compare on the built-in workload",
        path: &["compare"],
        base: &[BUILT_IN],
    },
    Mode {
        name: "sweep on a trace",
        path: &["sweep"],
        base: &[TRACE, ("--loads", &["1,1.5"])],
    },
    Mode {
        name: "sweep on the built-in workload",
        path: &["sweep"],
        base: &[BUILT_IN, ("--loads", &["1,1.5"])],
    },
    Mode {
        name: "fairness on a trace",
        path: &["fairness"],
        base: &[TRACE],
    },
    Mode {
        name: "fairness on the built-in workload",
        path: &["fairness"],
        base: &[BUILT_IN],
    },
    Mode {
        name: "generate lublin",
        path: &["generate", "lublin"],
        base: &[("--jobs", &["30"]), ("--output", &["out.swf"])],
    },
    Mode {
        name: "generate farm",
        path: &["generate", "farm"],
        base: &[
            ("--jobs", &["30"]),
            ("--machines", &["4"]),
            ("--farm-out", &["g.toml"]),
            ("--jobs-out", &["g.csv"]),
        ],
    },
    Mode {
        name: "plot timeseries",
        path: &["plot", "timeseries"],
        base: &[("", &["ts.csv"]), ("--output", &["out.svg"])],
    },
    Mode {
        name: "farm-study",
        path: &["farm-study"],
        base: &[
            ("--jobs", &["30"]),
            ("--machines", &["4"]),
            ("--means", &["2"]),
            ("--repetitions", &["2"]),
            ("--license-ratios", &["50-70"]),
            ("--policies", &["fcfs,bf-mod"]),
            ("--data-dir", &["d"]),
            ("--figures-dir", &["f"]),
        ],
    },
];

/// The value the walk gives option `long` of command `path` (with the
/// options it needs beside it); `None` for a flag. Panics for an option
/// that has no sample yet: a new option must be added here.
fn sample(path: &[&str], long: &str) -> Vec<&'static str> {
    let command = path.last().copied().unwrap_or_default();
    match (command, long) {
        ("replay", "policy") => vec!["conservative"],
        ("compare" | "sweep", "policies") => vec!["easy,conservative"],
        ("fairness", "policies") => vec!["easy"],
        ("farm-study", "policies") => vec!["fcfs"],
        ("compare" | "sweep", "baseline") => vec!["easy"],
        ("farm" | "farm-study", "jobs") => vec!["24"],
        ("lublin", "jobs") => vec!["20"],
        ("lublin", "procs") => vec!["64"],
        ("lublin", "output") => vec!["other.swf"],
        ("timeseries", "output") => vec!["other.svg"],
        ("farm" | "farm-study", "seed") => vec!["9"],
        ("lublin", "load") => vec!["3"],
        (_, "estimates") => vec!["exact"],
        (_, "load") => vec!["1.5"],
        (_, "loads") => vec!["1,2"],
        (_, "jobs-out") => vec!["out.csv"],
        (_, "jobs-format") => vec!["batsim", "--jobs-out", "out.csv"],
        (_, "format") => vec!["json"],
        (_, "synthetic-jobs") => vec!["30"],
        (_, "seed") => vec!["7"],
        (_, "threshold") => vec!["2"],
        (_, "thresholds") => vec!["1,2,3,4"],
        (_, "threshold-from") => vec!["conservative"],
        (_, "scale") => vec!["2"],
        (_, "dpsa-nodes") => vec!["10"],
        (_, "rs-iterations") => vec!["5"],
        (_, "first") => vec!["5"],
        (_, "warmup" | "cooldown") => vec!["3"],
        (_, "by") => vec!["user"],
        (_, "timeseries") => vec!["ts.csv"],
        (_, "every") => vec!["60", "--timeseries", "ts.csv"],
        (_, "skip") => vec!["2"],
        (_, "procs") => vec!["8"],
        (_, "short-max") => vec!["33"],
        (_, "narrow-max") => vec!["2"],
        (_, "csv") => vec!["out.csv"],
        (_, "svg") => vec!["out.svg"],
        (_, "set") => vec!["sn"],
        (_, "aging-weight" | "deadline-weight" | "license-weight" | "wait-weight") => vec!["9"],
        (_, "age-factor") => vec!["0.5"],
        (_, "deadline-min") => vec!["5"],
        (_, "deadline-max") => vec!["100"],
        (_, "deadline-k") => vec!["0.1"],
        (_, "boost") => vec!["50"],
        (_, "farm-out") => vec!["other.toml"],
        (_, "means") => vec!["2,6"],
        (_, "repetitions") => vec!["3"],
        (_, "license-ratios") => vec!["10-30,50-70"],
        (_, "license-mean") => vec!["2"],
        (_, "data-dir") => vec!["d2"],
        (_, "figures-dir") => vec!["f2"],
        (_, "machines") => vec!["5"],
        (_, "licenses") => vec!["2"],
        (_, "mean-interarrival") => vec!["6"],
        (_, "estimate") => vec!["100,200"],
        (_, "margin") => vec!["5,10"],
        (_, "margin-kind") => vec!["percent"],
        (_, "job-cpus") => vec!["1,2"],
        (_, "machine-cpus") => vec!["2,4"],
        (_, "license-ratio") => vec!["10,20"],
        (_, "suitability") => vec!["30"],
        (_, "needs") => vec!["80"],
        (_, "no-deadline") => vec!["50"],
        (_, "speed") => vec!["0.5,2"],
        (_, "runtime-percent") => vec!["50,100"],
        _ => panic!("no sample value for --{long} of {path:?}: add one to options.rs"),
    }
}

/// What a run did: its status, its stdout and every file it left, with
/// wall-clock figures left out.
#[derive(Clone, Debug, PartialEq, Eq)]
struct Outcome {
    status: Option<i32>,
    stdout: String,
    files: BTreeMap<String, String>,
}

/// Whether `line` reports wall-clock time (which differs between runs).
fn clocked(line: &str) -> bool {
    [
        "wall time",
        "_seconds",
        "seconds\"",
        " s)",
        "replays in ",
        "read in ",
    ]
    .iter()
    .any(|w| line.contains(w))
}

/// Without its wall-clock lines.
fn steady(text: &str) -> String {
    text.lines()
        .filter(|l| !clocked(l))
        .collect::<Vec<_>>()
        .join("\n")
}

/// Every file under `dir`, by path relative to it.
fn files_under(dir: &Path, prefix: &str, out: &mut BTreeMap<String, String>) {
    for entry in std::fs::read_dir(dir).expect("read dir") {
        let entry = entry.expect("entry");
        let name = format!("{prefix}{}", entry.file_name().to_string_lossy());
        if entry.file_type().expect("type").is_dir() {
            files_under(&entry.path(), &format!("{name}/"), out);
        } else {
            let bytes = std::fs::read(entry.path()).expect("read");
            out.insert(name, steady(&String::from_utf8_lossy(&bytes)));
        }
    }
}

/// A directory with the inputs every mode reads.
fn inputs() -> tempfile::TempDir {
    let dir = super::scratch();
    small_trace(dir.path());
    let out = Command::new(BIN)
        .args([
            "generate",
            "farm",
            "--jobs",
            "200",
            "--machines",
            "5",
            "--mean-interarrival",
            "2",
        ])
        .current_dir(dir.path())
        .output()
        .expect("generate farm");
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let out = Command::new(BIN)
        .args([
            "replay",
            "small.swf",
            "--timeseries",
            "ts.csv",
            "--every",
            "10",
        ])
        .current_dir(dir.path())
        .output()
        .expect("time series");
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    dir
}

/// The paths of every command that runs (the leaves of the command tree).
fn leaves(command: &clap::Command, path: Vec<String>, out: &mut Vec<Vec<String>>) {
    let subs: Vec<&clap::Command> = command
        .get_subcommands()
        .filter(|c| c.get_name() != "help")
        .collect();
    if subs.is_empty() {
        out.push(path);
        return;
    }
    for sub in subs {
        let mut p = path.clone();
        p.push(sub.get_name().to_owned());
        leaves(sub, p, out);
    }
}

/// Runs `args` in a fresh copy of `inputs`; with `twice`, runs it once
/// before (so the files it names by default exist).
fn outcome(inputs: &Path, args: &[String], twice: bool) -> (Outcome, Output) {
    let dir = super::scratch();
    for name in ["small.swf", "farm.toml", "jobs.csv", "ts.csv"] {
        std::fs::copy(inputs.join(name), dir.path().join(name)).expect("copy input");
    }
    let go = || {
        Command::new(BIN)
            .args(args)
            .current_dir(dir.path())
            .stdin(Stdio::null())
            .output()
            .expect("run host-cli")
    };
    if twice {
        go();
    }
    let out = go();
    let mut files = BTreeMap::new();
    files_under(dir.path(), "", &mut files);
    (
        Outcome {
            status: out.status.code(),
            stdout: steady(&stdout(&out)),
            files,
        },
        out,
    )
}

/// The command line of `mode` with `set` added (each option replacing
/// the base's own value).
fn command_line(mode: &Mode, set: &[(&str, Vec<&str>)]) -> Vec<String> {
    let mut args: Vec<String> = mode.path.iter().map(|&s| s.to_owned()).collect();
    for &(long, values) in mode.base {
        if !long.is_empty() && set.iter().any(|(o, _)| *o == long) {
            continue;
        }
        if !long.is_empty() {
            args.push(long.to_owned());
        }
        args.extend(values.iter().map(|&v| v.to_owned()));
    }
    for (long, values) in set {
        args.push((*long).to_owned());
        args.extend(values.iter().map(|&v| v.to_owned()));
    }
    args
}

#[test]
fn every_option_takes_effect_or_is_refused_in_every_mode() {
    let inputs = inputs();
    let root = backfill_cli::cli::command();
    // Every command is walked: a new one needs its modes here.
    let mut commands = Vec::new();
    leaves(&root, Vec::new(), &mut commands);
    for path in &commands {
        assert!(
            MODES.iter().any(|m| m.path.iter().eq(path.iter())),
            "command {path:?} has no mode in options.rs"
        );
    }
    let mut checked = 0;
    let mut problems = Vec::new();
    for mode in MODES {
        let mut command = &root;
        for name in mode.path {
            command = command
                .find_subcommand(name)
                .unwrap_or_else(|| panic!("no command {name}"));
        }
        let base = command_line(mode, &[]);
        let (plain, out) = outcome(inputs.path(), &base, false);
        assert_eq!(
            plain.status,
            Some(0),
            "{}: {base:?}: {}",
            mode.name,
            stderr(&out)
        );
        let (again, _) = outcome(inputs.path(), &base, false);
        assert_eq!(plain, again, "{}: two runs differ", mode.name);
        for arg in command.get_arguments() {
            let Some(long) = arg.get_long() else { continue };
            if matches!(long, "help" | "version" | "farm") {
                continue;
            }
            let option = format!("--{long}");
            let sampled = if arg.get_action().takes_values() {
                sample(mode.path, long)
            } else {
                Vec::new()
            };
            // A sample's value comes first, then the options it needs
            // beside it, which the run it is compared with also has.
            let (value, beside) = sampled.split_at(sampled.len().min(1));
            let beside: Vec<(&str, Vec<&str>)> = beside
                .chunks(2)
                .map(|pair| (pair[0], pair[1..].to_vec()))
                .collect();
            let twice = long == "force";
            let before = if twice || !beside.is_empty() {
                outcome(inputs.path(), &command_line(mode, &beside), twice).0
            } else {
                plain.clone()
            };
            let mut set = beside.clone();
            set.push((option.as_str(), value.to_vec()));
            let args = command_line(mode, &set);
            let (after, run) = outcome(inputs.path(), &args, twice);
            checked += 1;
            if before.status == Some(2) && after.status == Some(2) {
                // The mode refuses the option this one needs beside it
                // (--every without a --timeseries a farm replay refuses).
                continue;
            }
            if after.status == Some(2) {
                let err = stderr(&run);
                if !err.contains(&option) {
                    problems.push(format!(
                        "{}: {args:?} refused without naming {option}: {err}",
                        mode.name
                    ));
                }
            } else if after.status != Some(0) {
                problems.push(format!("{}: {args:?} failed: {}", mode.name, stderr(&run)));
            } else if after == before {
                problems.push(format!(
                    "{}: {option} was silently ignored ({args:?})",
                    mode.name
                ));
            }
        }
    }
    assert!(checked > 150, "only {checked} combinations");
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}
