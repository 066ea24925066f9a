//! No option is silently ignored: every option of every command the
//! parser accepts (walked from clap's own description of the command line,
//! so a new option cannot escape), in every mode of its command (a trace,
//! the built-in workload, a farm), either changes what the run prints or
//! writes, or is refused with exit status 2 and a message naming it.

use super::{ok_in, run_in, small_trace, stderr, stdout};
use std::collections::BTreeMap;
use std::path::Path;
use std::process::Output;

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

/// Plan modes: the plan file (two cells on `tr/small.swf`).
const PLAN: (&str, &[&str]) = ("", &["plan.toml"]);
/// Plan modes: the folder the plan's trace is found in.
const TRACES: (&str, &[&str]) = ("--traces", &["tr"]);

/// Options whose effect a single run's outputs cannot show, with where it
/// is tested instead: (command, option, why).
const SHOWN_ELSEWHERE: &[(&str, &str, &str)] = &[
    (
        "run",
        "jobs",
        "cells run at a time; the results are the same by design, which \
         plan::cells_by_index_and_as_array_tasks_give_the_table_of_one_run \
         checks",
    ),
    (
        "merge",
        "traces",
        "expands the plan's trace patterns as plan cells and plan run do, where the walk \
         sees it; in another folder the plan has other cells, whose results res/ lacks",
    ),
    (
        "merge",
        "allow-missing",
        "matters only when a result is missing (plan.rs tests it)",
    ),
    (
        "slurm",
        "submit",
        "needs a running Slurm cluster: scripts/slurm/plan-test.sh submits a plan in .ci/run",
    ),
];

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
        name: "plan cells",
        path: &["plan", "cells"],
        base: &[PLAN, TRACES],
    },
    Mode {
        name: "plan run",
        path: &["plan", "run"],
        base: &[PLAN, TRACES, ("--out", &["r"])],
    },
    Mode {
        name: "plan merge",
        path: &["plan", "merge"],
        base: &[("", &["plan.toml", "res"]), TRACES],
    },
    Mode {
        name: "plan slurm",
        path: &["plan", "slurm"],
        base: &[PLAN, TRACES, ("--out", &["r"])],
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
        (_, "compression") => vec!["rebuild"],
        (_, "flavour") => vec!["alea"],
        (_, "checkpoint") => vec!["ck.out", "--checkpoint-every", "5"],
        (_, "checkpoint-every") => vec!["5", "--checkpoint", "ck.out"],
        // A checkpoint of another replay (the built-in workload under
        // FCFS): refused, naming --resume. That a matching checkpoint
        // continues the replay exactly is checkpoint.rs's subject.
        (_, "resume") => vec!["ck.bin"],
        (_, "traces") => vec!["tr2"],
        ("merge", "out") => vec!["m.csv"],
        (_, "out") => vec!["r2"],
        (_, "json") => vec!["m.json"],
        (_, "cell") => vec!["0"],
        (_, "index-env") => vec!["BACKFILL_TEST_UNSET_INDEX"],
        (_, "count-env") => vec!["N", "--index-env", "BACKFILL_TEST_UNSET_INDEX"],
        (_, "partition") => vec!["debug"],
        (_, "time") => vec!["1:00:00"],
        (_, "max-parallel") => vec!["1"],
        (_, "tasks") => vec!["1"],
        (_, "bin") => vec!["/usr/bin/true"],
        (_, "procs") => vec!["8"],
        (_, "explain") => vec!["3"],
        (_, "queue-at") => vec!["40"],
        (_, "reasons-out") => vec!["reasons.csv"],
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
    ok_in(
        dir.path(),
        &[
            "generate",
            "farm",
            "--jobs",
            "200",
            "--machines",
            "5",
            "--mean-interarrival",
            "2",
        ],
    );
    ok_in(
        dir.path(),
        &[
            "replay",
            "small.swf",
            "--timeseries",
            "ts.csv",
            "--every",
            "10",
        ],
    );
    // A plan of the traces small*.swf: two cells on tr/small.swf (tr2/
    // holds a shorter small.swf and small-b.swf, for --traces), and its
    // results in res/.
    std::fs::write(
        dir.path().join("plan.toml"),
        "[[experiment]]\ntraces = [\"small*.swf\"]\npolicies = [\"easy\", \"fcfs\"]\n",
    )
    .expect("write plan");
    let trace = std::fs::read_to_string(dir.path().join("small.swf")).expect("read trace");
    for (folder, text) in [
        ("tr", trace.clone()),
        (
            "tr2",
            trace.lines().take(4).map(|l| format!("{l}\n")).collect(),
        ),
    ] {
        std::fs::create_dir(dir.path().join(folder)).expect("trace folder");
        std::fs::write(dir.path().join(folder).join("small.swf"), text).expect("write trace");
    }
    std::fs::copy(
        dir.path().join("small.swf"),
        dir.path().join("tr2/small-b.swf"),
    )
    .expect("copy trace");
    // A checkpoint of another replay than any mode's base run.
    for args in [
        &["plan", "run", "plan.toml", "--traces", "tr", "--out", "res"][..],
        &[
            "replay",
            "--synthetic-jobs",
            "40",
            "--policy",
            "fcfs",
            "--checkpoint",
            "ck.bin",
            "--checkpoint-every",
            "5",
        ],
    ] {
        ok_in(dir.path(), args);
    }
    dir
}

/// Copies the folder `from` into `to`, recursively.
fn copy_tree(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).expect("create folder");
    for entry in std::fs::read_dir(from).expect("read folder") {
        let entry = entry.expect("entry");
        let target = to.join(entry.file_name());
        if entry.file_type().expect("type").is_dir() {
            copy_tree(&entry.path(), &target);
        } else {
            std::fs::copy(entry.path(), target).expect("copy file");
        }
    }
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
    copy_tree(inputs, dir.path());
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let go = || run_in(dir.path(), &args);
    if twice {
        go();
    }
    let out = go();
    let mut files = BTreeMap::new();
    files_under(dir.path(), "", &mut files);
    // Absolute paths and job names (plan slurm's script) name the scratch
    // folder, which differs from run to run.
    let here = dir.path().display().to_string();
    let folder = dir
        .path()
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let files = files
        .into_iter()
        .map(|(name, text)| {
            (
                name,
                text.replace(&here, "SCRATCH").replace(&folder, "FOLDER"),
            )
        })
        .collect();
    (
        Outcome {
            status: out.status.code(),
            stdout: steady(&stdout(&out)).replace(&here, "SCRATCH"),
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
            let command_name = mode.path.last().copied().unwrap_or_default();
            if SHOWN_ELSEWHERE
                .iter()
                .any(|&(c, o, _)| c == command_name && o == long)
            {
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
