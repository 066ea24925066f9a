//! The help texts: options grouped under headings, no measurements, the
//! defaults stated, and only policies a command can run.

use super::{run, small_trace_dir, stderr, stdout};

/// The headings of a help text (lines ending in ':' at the margin) with
/// the options under each.
fn sections(help: &str) -> Vec<(String, Vec<String>)> {
    let mut out: Vec<(String, Vec<String>)> = Vec::new();
    for line in help.lines() {
        if !line.starts_with(' ') && line.ends_with(':') {
            out.push((line.trim_end_matches(':').to_owned(), Vec::new()));
        } else if let (Some(option), Some(last)) = (
            line.trim_start()
                .split([' ', ','])
                .find(|w| w.starts_with("--")),
            out.last_mut(),
        ) {
            if line.trim_start().starts_with('-') {
                last.1.push(option.to_owned());
            }
        }
    }
    out
}

#[test]
fn replay_help_groups_its_options_under_headings() {
    let help = stdout(&run(&["replay", "--help"]));
    let sections = sections(&help);
    let heading_of = |option: &str| {
        sections
            .iter()
            .find(|(_, options)| options.iter().any(|o| o == option))
            .map(|(h, _)| h.as_str())
            .unwrap_or_else(|| panic!("{option} not in the help: {help}"))
    };
    // Only --help is left under the catch-all heading.
    let options = sections
        .iter()
        .find(|(h, _)| h == "Options")
        .map(|(_, o)| o.clone())
        .unwrap_or_default();
    assert_eq!(options, ["--help"], "{help}");
    for (option, heading) in [
        ("--policy", "Policy and workload"),
        ("--jobs-out", "Output"),
        ("--synthetic-jobs", "Built-in workload (without TRACE)"),
        ("--threshold", "Selective thresholds"),
        (
            "--dpsa-nodes",
            "Search policies (DPSA, CONS+RS, Conservative)",
        ),
        ("--first", "Window and categories"),
        ("--farm", "Farms"),
        (
            "--aging-weight",
            "Flexible-backfilling heuristics (bf-unmod, bf-mod)",
        ),
    ] {
        assert_eq!(heading_of(option), heading, "{help}");
    }
    // Selective's default source of thresholds is stated.
    let from = help
        .split("--threshold-from")
        .nth(1)
        .and_then(|rest| rest.split("\n      --").next())
        .unwrap_or_default();
    assert!(from.contains("[default: conservative"), "{from}");
}

#[test]
fn help_texts_hold_no_measurements() {
    for command in [
        &["replay"][..],
        &["info"],
        &["thresholds"],
        &["compare"],
        &["sweep"],
        &["fairness"],
        &["farm-study"],
        &["generate", "farm"],
        &["generate", "lublin"],
    ] {
        let mut args = command.to_vec();
        args.push("--help");
        let help = stdout(&run(&args));
        for word in ["LLNL-Thunder", "CEA-Curie", "Measured", "replays in"] {
            assert!(!help.contains(word), "{command:?} --help: {word}");
        }
    }
}

#[test]
fn compare_and_sweep_list_only_policies_they_run() {
    let (_dir, trace) = small_trace_dir();
    let trace = trace.as_str();
    for command in ["compare", "sweep"] {
        let help = stdout(&run(&[command, "--help"]));
        let listed: Vec<String> = help
            .split("--policies")
            .nth(1)
            .and_then(|rest| rest.split("--baseline").next())
            .unwrap_or_default()
            .lines()
            .filter_map(|l| l.trim().strip_prefix("- "))
            .filter_map(|l| l.split(':').next())
            .map(str::to_owned)
            .collect();
        assert!(listed.len() > 5, "{help}");
        for policy in &listed {
            let mut args = vec![
                command,
                trace,
                "--policies",
                policy.as_str(),
                "--baseline",
                "easy",
            ];
            if command == "sweep" {
                args.extend(["--loads", "1"]);
            }
            if policy == "selective" {
                args.extend(["--threshold", "2"]);
            }
            if policy == "selective-d" {
                args.extend(["--thresholds", "2,2,2,2"]);
            }
            let out = run(&args);
            assert_eq!(out.status.code(), Some(0), "{args:?}: {}", stderr(&out));
        }
    }
}
