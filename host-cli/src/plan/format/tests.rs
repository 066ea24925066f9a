use super::*;
use backfill_core::policy::Heuristics;

/// A traces folder holding `a.swf`, `b.swf` and `sub/c.swf` (contents do
/// not matter: the plan is only expanded here).
fn traces() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("a.swf"), "").unwrap();
    std::fs::write(dir.path().join("b.swf"), "").unwrap();
    std::fs::create_dir(dir.path().join("sub")).unwrap();
    std::fs::write(dir.path().join("sub/c.swf"), "").unwrap();
    dir
}

fn expand(text: &str) -> Result<Plan, FormatError> {
    let dir = traces();
    parse("plan.toml", text, dir.path())
}

/// The error of `text`, displayed.
fn error(text: &str) -> String {
    match expand(text) {
        Ok(plan) => panic!("accepted, {} cells:\n{text}", plan.cells.len()),
        Err(e) => e.to_string(),
    }
}

/// Each plan text of `cases` is refused with an error starting with its
/// text, on one line.
fn errors_start_with(cases: &[(&str, &str)]) {
    for (text, start) in cases {
        let e = error(text);
        assert!(
            e.starts_with(start),
            "expected `{start}...`, got `{e}` for:\n{text}"
        );
        assert!(!e.contains('\n'), "an error of several lines: {e:?}");
    }
}

#[test]
fn cells_come_out_in_a_stable_documented_order() {
    let text = "metrics = [\"jobs\", \"mean_wait.SN\", \"cons_rs.iterations\"]\n\
                [[experiment]]\n\
                traces = [\"b.swf\", \"*.swf\"]\n\
                windows = [{ first = 100 }, { skip = 10, first = 50, procs = 64 }]\n\
                estimates = [\"user\", \"exact\"]\n\
                loads = [1.0, 1.5]\n\
                policies = [\"easy\", \"cons-rs\"]\n\
                seeds = [3, 4]\n\
                [[experiment]]\n\
                builtin = [{ jobs = 300, seed = 2 }]\n\
                policies = [{ name = \"selective\", threshold = 26.69 }, \"dpsa-n\"]\n";
    let dir = traces();
    let plan = parse("plan.toml", text, dir.path());
    // b.swf is listed, then matched by the glob after a.swf: its cells
    // come twice, the second time from 48 on.
    let e = plan.unwrap_err().to_string();
    assert!(e.starts_with("plan.toml:2: cells 0 (experiment 1, line 2) and 48 (experiment 1, line 2) are the same replay (trace=b.swf,"), "{e}");
    let text = text.replace("[\"b.swf\", \"*.swf\"]", "[\"b.swf\", \"a.swf\"]");
    let plan = parse("plan.toml", &text, dir.path()).unwrap();
    // 2 traces x 2 windows x 2 estimates x 2 loads x (easy + cons-rs x 2
    // seeds), then the built-in workload x 2 policies.
    assert_eq!(plan.cells.len(), 2 * 2 * 2 * 2 * 3 + 2);
    let p: Vec<_> = plan.cells.iter().map(|c| c.spec.parameters()).collect();
    assert_eq!(
        (
            p[0].trace.as_str(),
            p[0].first,
            p[0].estimates.as_str(),
            p[0].load,
            p[0].policy.as_str(),
            p[0].seed
        ),
        ("b.swf", Some(100), "user", 1.0, "easy", None)
    );
    assert_eq!((p[1].policy.as_str(), p[1].seed), ("cons-rs", Some(3)));
    assert_eq!((p[2].policy.as_str(), p[2].seed), ("cons-rs", Some(4)));
    assert_eq!(p[3].load, 1.5);
    assert_eq!(p[6].estimates, "exact");
    assert_eq!(
        (p[12].skip, p[12].first, p[12].procs),
        (10, Some(50), Some(64))
    );
    assert_eq!(p[24].trace, "a.swf");
    assert_eq!(p[48].trace, "builtin(jobs=300,seed=2)");
    assert_eq!(p[48].options, "threshold=26.69");
    assert_eq!(p[49].policy, "dpsa-n");
    assert_eq!(plan.metrics, ["jobs", "mean_wait.SN", "cons_rs.iterations"]);
    assert!(plan.cells.iter().enumerate().all(|(i, c)| c.index == i));
    // The same text expands to the same cells, ids and fingerprint.
    let again = parse("other-name.toml", &text, dir.path()).unwrap();
    assert_eq!(again.fingerprint, plan.fingerprint);
    assert_eq!(
        again.cells.iter().map(|c| &c.id).collect::<Vec<_>>(),
        plan.cells.iter().map(|c| &c.id).collect::<Vec<_>>()
    );
}

#[test]
fn a_grown_plan_keeps_the_ids_of_its_old_cells() {
    let dir = traces();
    let small = "[[experiment]]\ntraces = [\"b.swf\"]\npolicies = [\"easy\", \"fcfs\"]\n";
    let grown =
        "[[experiment]]\ntraces = [\"a.swf\", \"b.swf\"]\npolicies = [\"easy\", \"fcfs\"]\n";
    let small = parse("p.toml", small, dir.path()).unwrap();
    let grown = parse("p.toml", grown, dir.path()).unwrap();
    assert_ne!(small.fingerprint, grown.fingerprint);
    // Renumbered: b.swf's cells were 0 and 1 and are now 2 and 3.
    assert_eq!(small.cells[0].id, grown.cells[2].id);
    assert_eq!(small.cells[1].id, grown.cells[3].id);
}

#[test]
fn globs_and_subfolders_name_traces_relative_to_the_folder() {
    let plan = expand("[[experiment]]\ntraces = [\"**/*.swf\"]\npolicies = [\"easy\"]\n").unwrap();
    let names: Vec<String> = plan
        .cells
        .iter()
        .map(|c| c.spec.parameters().trace)
        .collect();
    assert_eq!(names, ["a.swf", "b.swf", "sub/c.swf"]);
}

#[test]
fn a_trace_entry_gives_its_own_loads() {
    let plan = expand(
        "[[experiment]]\n\
         traces = [\"a.swf\", { path = \"b.swf\", loads = [1.15, 2] }, { path = \"sub/*.swf\" }]\n\
         builtin = [{ jobs = 10 }]\n\
         loads = [1.0, 1.2]\n\
         policies = [\"easy\"]\n",
    )
    .unwrap();
    let cells: Vec<(String, f64)> = plan
        .cells
        .iter()
        .map(|c| (c.spec.parameters().trace, c.spec.load))
        .collect();
    let want: Vec<(String, f64)> = [
        ("a.swf", 1.0),
        ("a.swf", 1.2),
        ("b.swf", 1.15),
        ("b.swf", 2.0),
        ("sub/c.swf", 1.0),
        ("sub/c.swf", 1.2),
        ("builtin(jobs=10,seed=1)", 1.0),
        ("builtin(jobs=10,seed=1)", 1.2),
    ]
    .iter()
    .map(|(t, l)| ((*t).to_owned(), *l))
    .collect();
    assert_eq!(cells, want);
    // Without the experiment's loads, a plain name takes the default, 1.
    let plan = expand(
        "[[experiment]]\ntraces = [{ path = \"a.swf\", loads = [1.5] }, \"b.swf\"]\npolicies = [\"easy\"]\n",
    )
    .unwrap();
    let loads: Vec<f64> = plan.cells.iter().map(|c| c.spec.load).collect();
    assert_eq!(loads, [1.5, 1.0]);
    // The same cell from a trace's own loads and the experiment's: refused.
    let e = error(
        "[[experiment]]\ntraces = [\"a.swf\", { path = \"a.swf\", loads = [1.0] }]\npolicies = [\"easy\"]\n",
    );
    assert!(e.contains("are the same replay"), "{e}");
}

#[test]
fn bad_trace_entries_name_the_file_line_and_field() {
    let cases: &[(&str, &str)] = &[
        (
            "[[experiment]]\ntraces = [\n  \"a.swf\",\n  { path = \"b.swf\", load = [1.2] },\n]\npolicies = [\"easy\"]\n",
            "plan.toml:4: field experiment[0].traces[1].load: unknown key `load` in a trace entry: \
             its keys are path and loads",
        ),
        (
            "[[experiment]]\ntraces = [{ loads = [1.2] }]\npolicies = [\"easy\"]\n",
            "plan.toml:2: field experiment[0].traces[0]: a trace entry needs `path`",
        ),
        (
            "[[experiment]]\ntraces = [{ path = 3 }]\npolicies = [\"easy\"]\n",
            "plan.toml:2: field experiment[0].traces[0].path: `path` is a trace name or glob, not \
             an integer",
        ),
        (
            "[[experiment]]\ntraces = [5]\npolicies = [\"easy\"]\n",
            "plan.toml:2: field experiment[0].traces[0]: a trace is a name or a table",
        ),
        (
            "[[experiment]]\ntraces = [{ path = \"a.swf\", loads = [] }]\npolicies = [\"easy\"]\n",
            "plan.toml:2: field experiment[0].traces[0].loads: the list is empty",
        ),
        (
            "[[experiment]]\ntraces = [{ path = \"a.swf\", loads = 1.2 }]\npolicies = [\"easy\"]\n",
            "plan.toml:2: field experiment[0].traces[0].loads: `loads` is a list of load factors, \
             not a float",
        ),
        (
            "[[experiment]]\ntraces = [{ path = \"a.swf\", loads = [1.2, -1] }]\npolicies = [\"easy\"]\n",
            "plan.toml:2: field experiment[0].traces[0].loads[1]: -1 is not a load factor",
        ),
        (
            "[[experiment]]\ntraces = [{ path = \"a.swf\", loads = [1.2, \"x\"] }]\npolicies = [\"easy\"]\n",
            "plan.toml:2: field experiment[0].traces[0].loads[1]: a load factor is a number, not a \
             string",
        ),
        (
            "[[experiment]]\ntraces = [{ path = \"missing.swf\", loads = [1.2] }]\npolicies = [\"easy\"]\n",
            "plan.toml:2: field experiment[0].traces[0]: trace `missing.swf` not found in ",
        ),
        // Loads no trace takes.
        (
            "[[experiment]]\ntraces = [{ path = \"a.swf\", loads = [1.2] }]\nloads = [1.0]\npolicies = [\"easy\"]\n",
            "plan.toml:3: field experiment[0].loads: every trace of the experiment gives its own \
             `loads`, so these apply to none",
        ),
    ];
    errors_start_with(cases);
}

/// Names and keys quoted in a refusal are shown escaped, as farm files show
/// them, so that one holding a line break leaves the refusal on one line.
#[test]
fn names_with_line_breaks_are_shown_escaped() {
    errors_start_with(&[
        (
            "metrics = [\"a\\nb\"]\n[[experiment]]\ntraces = [\"a.swf\"]\npolicies = [\"easy\"]\n",
            "plan.toml:1: field metrics[0]: `a\\nb` is not a metric",
        ),
        (
            "[[experiment]]\ntraces = [\"a.swf\"]\nestimates = [\"x\\ny\"]\npolicies = [\"easy\"]\n",
            "plan.toml:3: field experiment[0].estimates[0]: `x\\ny` is not an estimate kind",
        ),
        (
            "[[experiment]]\ntraces = [\"no\\nsuch.swf\"]\npolicies = [\"easy\"]\n",
            "plan.toml:2: field experiment[0].traces[0]: trace `no\\nsuch.swf` not found in ",
        ),
        (
            "[[experiment]]\ntraces = [\"x\\n*.swf\"]\npolicies = [\"easy\"]\n",
            "plan.toml:2: field experiment[0].traces[0]: no trace matches `x\\n*.swf` in ",
        ),
        (
            "[[experiment]]\ntraces = [\"[\\r\"]\npolicies = [\"easy\"]\n",
            "plan.toml:2: field experiment[0].traces[0]: `[\\r` is not a valid pattern: ",
        ),
        (
            "[[experiment]]\ntraces = [{ path = \"a.swf\", \"k\\ny\" = 1 }]\npolicies = [\"easy\"]\n",
            "plan.toml:2: field experiment[0].traces[0].k\\ny: unknown key `k\\ny` in a trace entry",
        ),
        (
            "[[experiment]]\ntraces = [\"a.swf\"]\npolicies = [\"e\\nasy\"]\n",
            "plan.toml:3: field experiment[0].policies[0]: `e\\nasy` is not a policy",
        ),
        (
            "[[experiment]]\ntraces = [\"a.swf\"]\npolicies = [{ name = \"selective\", \"o\\np\" = 1 }]\n",
            "plan.toml:3: field experiment[0].policies[0].o\\np: unknown policy option `o\\np`",
        ),
        (
            "[[experiment]]\ntraces = [\"a.swf\"]\npolicies = [{ name = \"selective\", threshold_from = \"a\\nb\" }]\n",
            "plan.toml:3: field experiment[0].policies[0].threshold_from: `a\\nb` is not a \
             threshold source",
        ),
    ]);
}

#[test]
fn seeds_only_multiply_the_policies_that_draw() {
    let plan = expand(
        "[[experiment]]\nbuiltin = [{}]\npolicies = [\"easy\", \"cons-rs\", \"conservative\"]\nseeds = [1, 2, 3]\n",
    )
    .unwrap();
    let seeds: Vec<_> = plan
        .cells
        .iter()
        .map(|c| (c.spec.parameters().policy, c.spec.seed))
        .collect();
    assert_eq!(seeds.len(), 5);
    assert_eq!(seeds[0], ("easy".to_owned(), None));
    assert_eq!(seeds[3], ("cons-rs".to_owned(), Some(3)));
    assert_eq!(seeds[4], ("conservative".to_owned(), None));
    // Without seeds, CONS+RS runs with its default seed (named in the cell).
    let plan = expand("[[experiment]]\nbuiltin = [{}]\npolicies = [\"cons-rs\"]\n").unwrap();
    assert_eq!(plan.cells[0].spec.seed, Some(PolicySpec::default_seed()));
}

#[test]
fn policy_options_reach_the_cell() {
    let plan = expand(
        "[[experiment]]\nbuiltin = [{}]\npolicies = [\
         { name = \"conservative\", no_compression = true },\
         { name = \"dpsa-w\", nodes = 500 },\
         { name = \"cons-rs\", iterations = 7 },\
         { name = \"selective-d\", thresholds = [1, 2.5, 3, 4] },\
         { name = \"selective-scaled\", scale = 2, well_estimated_only = true },\
         { name = \"selective\", threshold_from = \"conservative\" }]\n",
    )
    .unwrap();
    let p: Vec<(String, String)> = plan
        .cells
        .iter()
        .map(|c| (c.spec.parameters().policy, c.spec.parameters().options))
        .collect();
    let p: Vec<(&str, &str)> = p.iter().map(|(a, b)| (a.as_str(), b.as_str())).collect();
    assert_eq!(
        p,
        [
            ("conservative-no-compression", ""),
            ("dpsa-w", "nodes=500"),
            ("cons-rs", "iterations=7"),
            ("selective-d", "thresholds=1.00,2.50,3.00,4.00"),
            ("selective-scaled", "scale=2.00 well-estimated-only"),
            ("selective", "threshold-from=conservative"),
        ]
    );
}

#[test]
fn malformed_plans_name_the_file_line_and_field() {
    let cases: &[(&str, &str)] = &[
        // Not TOML at all.
        ("[[experiment]\n", "plan.toml:1: "),
        // Wrong types.
        (
            "[[experiment]]\ntraces = [\"a.swf\"]\nloads = \"1.2\"\npolicies = [\"easy\"]\n",
            "plan.toml:3: field loads: ",
        ),
        (
            "[[experiment]]\ntraces = [\"a.swf\"]\npolicies = [\"easy\"]\nshort_max = -1\n",
            "plan.toml:4: field experiment[0].short_max: -1 is out of range",
        ),
        (
            "[[experiment]]\ntraces = [\"a.swf\"]\npolicies = [3]\n",
            "plan.toml:3: field experiment[0].policies[0]: a policy is a name or a table",
        ),
        (
            "[[experiment]]\ntraces = [\"a.swf\"]\npolicies = [{ name = \"dpsa-n\", nodes = \"many\" }]\n",
            "plan.toml:3: field experiment[0].policies[0].nodes: `nodes` is a whole number, not a string",
        ),
        (
            "[[experiment]]\ntraces = [\"a.swf\"]\nwindows = [{ first = 1.5 }]\npolicies = [\"easy\"]\n",
            "plan.toml:3: field windows: ",
        ),
        (
            "[[experiment]]\ntraces = [\"a.swf\"]\nloads = [0.0]\npolicies = [\"easy\"]\n",
            "plan.toml:3: field experiment[0].loads[0]: 0 is not a load factor",
        ),
        // Unknown keys, at every level.
        ("metric = [\"jobs\"]\n[[experiment]]\ntraces = [\"a.swf\"]\npolicies = [\"easy\"]\n", "plan.toml:1: "),
        (
            "[[experiment]]\ntraces = [\"a.swf\"]\npolicy = [\"easy\"]\n",
            "plan.toml:",
        ),
        (
            "[[experiment]]\ntraces = [\"a.swf\"]\nwindows = [{ firts = 10 }]\npolicies = [\"easy\"]\n",
            "plan.toml:3: ",
        ),
        (
            "[[experiment]]\ntraces = [\"a.swf\"]\npolicies = [{ name = \"easy\", threshold = 2 }]\n",
            "plan.toml:3: field experiment[0].policies[0].threshold: `threshold` applies to selective, not easy",
        ),
        (
            "[[experiment]]\ntraces = [\"a.swf\"]\npolicies = [{ name = \"easy\", depth = 2 }]\n",
            "plan.toml:3: field experiment[0].policies[0].depth: unknown policy option `depth`",
        ),
        // Empty lists, no experiment, no workload.
        ("metrics = []\n[[experiment]]\ntraces = [\"a.swf\"]\npolicies = [\"easy\"]\n", "plan.toml:1: field metrics: the list is empty"),
        ("[[experiment]]\ntraces = []\npolicies = [\"easy\"]\n", "plan.toml:2: field experiment[0].traces: the list is empty"),
        ("[[experiment]]\ntraces = [\"a.swf\"]\npolicies = []\n", "plan.toml:3: field experiment[0].policies: the list is empty"),
        ("[[experiment]]\ntraces = [\"a.swf\"]\nloads = []\npolicies = [\"easy\"]\n", "plan.toml:3: field experiment[0].loads: the list is empty"),
        ("metrics = [\"jobs\"]\n", "plan.toml: the plan has no [[experiment]]"),
        ("[[experiment]]\npolicies = [\"easy\"]\n", "plan.toml:2: field experiment[0]: the experiment names no workload"),
        // Unknown names.
        (
            "[[experiment]]\ntraces = [\"a.swf\"]\npolicies = [\"easy\", \"backfill\"]\n",
            "plan.toml:3: field experiment[0].policies[1]: `backfill` is not a policy; the policies are fcfs, easy,",
        ),
        (
            "metrics = [\"jobs\", \"mean_wiat\"]\n[[experiment]]\ntraces = [\"a.swf\"]\npolicies = [\"easy\"]\n",
            "plan.toml:1: field metrics[1]: `mean_wiat` is not a metric",
        ),
        (
            "metrics = [\"jobs\", \"jobs\"]\n[[experiment]]\ntraces = [\"a.swf\"]\npolicies = [\"easy\"]\n",
            "plan.toml:1: field metrics[1]: `jobs` is listed twice",
        ),
        // The wait split by reason: an unknown reason or set, a reason
        // farms do not give on one machine, a set metric without a set.
        (
            "metrics = [\"jobs\",\n  \"wait_by_reason.reserverd\"]\n[[experiment]]\ntraces = [\"a.swf\"]\npolicies = [\"easy\"]\n",
            "plan.toml:2: field metrics[1]: `wait_by_reason.reserverd` is not a metric; the metrics \
             are jobs, mean_wait, total_wait,",
        ),
        (
            "metrics = [\"wait_by_reason.reserved.XL\"]\n[[experiment]]\ntraces = [\"a.swf\"]\npolicies = [\"easy\"]\n",
            "plan.toml:1: field metrics[0]: `wait_by_reason.reserved.XL` is not a metric",
        ),
        (
            "metrics = [\"wait_by_reason.license\"]\n[[experiment]]\ntraces = [\"a.swf\"]\npolicies = [\"easy\"]\n",
            "plan.toml:1: field metrics[0]: `wait_by_reason.license` is not a metric",
        ),
        (
            "metrics = [\"wait_by_reason\"]\n[[experiment]]\ntraces = [\"a.swf\"]\npolicies = [\"easy\"]\n",
            "plan.toml:1: field metrics[0]: `wait_by_reason` is not a metric",
        ),
        (
            "metrics = [\"total_wait\", \"total_wait\"]\n[[experiment]]\ntraces = [\"a.swf\"]\npolicies = [\"easy\"]\n",
            "plan.toml:1: field metrics[1]: `total_wait` is listed twice",
        ),
        (
            "[[experiment]]\ntraces = [\"a.swf\"]\nestimates = [\"user\", \"perfect\"]\npolicies = [\"easy\"]\n",
            "plan.toml:3: field experiment[0].estimates[1]: `perfect` is not an estimate kind",
        ),
        // Traces that are not there.
        (
            "[[experiment]]\ntraces = [\"a.swf\", \"missing.swf\"]\npolicies = [\"easy\"]\n",
            "plan.toml:2: field experiment[0].traces[1]: trace `missing.swf` not found in ",
        ),
        (
            "[[experiment]]\ntraces = [\"*.gz\"]\npolicies = [\"easy\"]\n",
            "plan.toml:2: field experiment[0].traces[0]: no trace matches `*.gz` in ",
        ),
        // Seeds where nothing draws.
        (
            "[[experiment]]\ntraces = [\"a.swf\"]\npolicies = [\"easy\"]\nseeds = [1]\n",
            "plan.toml:4: field experiment[0].seeds: seeds apply to the policies that draw",
        ),
        // Duplicate cells: a policy listed twice, across experiments.
        (
            "[[experiment]]\ntraces = [\"a.swf\"]\npolicies = [\"easy\", \"easy\"]\n",
            "plan.toml:1: cells 0 (experiment 1, line 1) and 1 (experiment 1, line 1) are the same replay",
        ),
        (
            "[[experiment]]\ntraces = [\"a.swf\"]\npolicies = [\"easy\"]\n\n[[experiment]]\ntraces = [\"a.swf\"]\nloads = [1]\npolicies = [\"fcfs\", \"easy\"]\n",
            "plan.toml:5: cells 0 (experiment 1, line 1) and 2 (experiment 2, line 5) are the same replay",
        ),
        // Options that contradict each other.
        (
            "[[experiment]]\ntraces = [\"a.swf\"]\npolicies = [{ name = \"selective\", threshold = 2, threshold_from = \"conservative\" }]\n",
            "plan.toml:3: field experiment[0].policies[0]: `threshold_from` and the thresholds",
        ),
    ];
    errors_start_with(cases);
}

#[test]
fn reading_names_the_file_and_the_traces_folder() {
    let dir = traces();
    let missing = dir.path().join("nowhere.toml");
    let e = read(&missing, Some(dir.path())).unwrap_err().to_string();
    assert!(
        e.starts_with(&format!("{}: cannot read the plan", missing.display())),
        "{e}"
    );
    // Relative names resolve in --traces, else the plan's own folder.
    let plan_dir = tempfile::tempdir().unwrap();
    let file = plan_dir.path().join("p.toml");
    std::fs::write(
        &file,
        "[[experiment]]\ntraces = [\"a.swf\"]\npolicies = [\"easy\"]\n",
    )
    .unwrap();
    let plan = read(&file, Some(dir.path())).unwrap();
    assert_eq!(plan.traces_dir.as_deref(), Some(dir.path()));
    let e = read(&file, Some(plan_dir.path())).unwrap_err().to_string();
    assert!(e.contains("trace `a.swf` not found in"), "{e}");
}

#[test]
fn farms_expand_by_mean_ratio_and_seed_with_the_generator_defaults() {
    let text = "metrics = [\"jobs\", \"farm.missed_percent\"]\n\
                [[experiment]]\n\
                farms = [{ mean_interarrivals = [4, 12.5], license_ratios = [[10, 30], [50, 70]], seeds = [1, 2] }, {}]\n\
                policies = [\"bf-fcfs\", { name = \"bf-mod\", license_weight = 0 }]\n";
    let plan = expand(text).unwrap();
    // (2 means x 2 ratios x 2 seeds + the defaults' one farm) x 2 policies.
    assert_eq!(plan.cells.len(), (2 * 2 * 2 + 1) * 2);
    let p: Vec<_> = plan.cells.iter().map(|c| c.spec.parameters()).collect();
    assert_eq!(
        p[0].trace,
        "farm(jobs=1000,seed=1,mean_interarrival=4,license_ratio=10-30)"
    );
    assert_eq!(
        (p[0].policy.as_str(), p[0].options.as_str()),
        ("bf-fcfs", "")
    );
    assert_eq!(
        (p[1].policy.as_str(), p[1].options.as_str()),
        ("bf-mod", "license-weight=0.00")
    );
    assert_eq!(
        p[2].trace,
        "farm(jobs=1000,seed=2,mean_interarrival=4,license_ratio=10-30)"
    );
    assert_eq!(
        p[4].trace,
        "farm(jobs=1000,seed=1,mean_interarrival=4,license_ratio=50-70)"
    );
    assert_eq!(
        p[8].trace,
        "farm(jobs=1000,seed=1,mean_interarrival=12.5,license_ratio=10-30)"
    );
    // The second entry is the generator's defaults (the paper's).
    assert_eq!(
        p[16].trace,
        "farm(jobs=1000,seed=1,mean_interarrival=12,license_ratio=50-70)"
    );
    // The license weight reaches the kernel's heuristics, and only those
    // of BF_UNMOD and BF_MOD.
    let spec = plan.cells[1].spec.policy;
    let Policy::BfMod(h) = spec.heuristics(Policy::BfMod(Heuristics::DEFAULT)) else {
        panic!("not bf-mod");
    };
    assert_eq!(
        h,
        Heuristics {
            license_weight: 0,
            ..Heuristics::DEFAULT
        }
    );
    assert_eq!(spec.heuristics(Policy::Easy), Policy::Easy);
    let weighted = expand(
        "[[experiment]]\ntraces = [\"a.swf\"]\n\
         policies = [{ name = \"bf-unmod\", license_weight = 2.5 }]\n",
    )
    .unwrap();
    assert_eq!(weighted.cells[0].spec.policy.license_weight, Some(2500));
}

#[test]
fn farm_keys_that_cannot_take_effect_are_refused() {
    let farm = "[[experiment]]\nfarms = [{}]\n";
    let cases: Vec<(String, &str)> = vec![
        (
            format!("{farm}traces = [\"a.swf\"]\npolicies = [\"fcfs\"]\n"),
            "plan.toml:3: field experiment[0].traces: `traces` does not apply to generated farms",
        ),
        (
            format!("{farm}loads = [1.2]\npolicies = [\"fcfs\"]\n"),
            "plan.toml:3: field experiment[0].loads: `loads` does not apply",
        ),
        (
            format!("{farm}estimates = [\"exact\"]\npolicies = [\"fcfs\"]\n"),
            "plan.toml:3: field experiment[0].estimates: ",
        ),
        (
            format!("{farm}windows = [{{ first = 10 }}]\npolicies = [\"fcfs\"]\n"),
            "plan.toml:3: field experiment[0].windows: ",
        ),
        (
            format!("{farm}short_max = 10\npolicies = [\"fcfs\"]\n"),
            "plan.toml:3: field experiment[0].short_max: ",
        ),
        (
            format!("{farm}policies = [\"selective\"]\n"),
            "plan.toml:3: field experiment[0].policies[0]: selective takes its thresholds from a \
             Conservative run",
        ),
        (
            format!("latency = true\n{farm}policies = [\"fcfs\"]\n"),
            "plan.toml:1: field latency: kernel calls are not timed",
        ),
        (
            format!("metrics = [\"utilisation\"]\n{farm}policies = [\"fcfs\"]\n"),
            "plan.toml:1: field metrics[0]: `utilisation` is not computed for generated farms",
        ),
        (
            format!("metrics = [\"wait_by_reason.processors\"]\n{farm}policies = [\"fcfs\"]\n"),
            "plan.toml:1: field metrics[0]: `wait_by_reason.processors` is not computed for \
             generated farms",
        ),
        (
            "metrics = [\"farm.span\"]\n[[experiment]]\ntraces = [\"a.swf\"]\npolicies = [\"easy\"]\n"
                .to_owned(),
            "plan.toml:1: field metrics[0]: `farm.span` is a metric of generated farms only",
        ),
        (
            "[[experiment]]\nfarms = [{ license_ratios = [[10, 30, 50]] }]\npolicies = [\"fcfs\"]\n"
                .to_owned(),
            "plan.toml:2: field experiment[0].farms[0].license_ratios[0]: a license ratio is two \
             percentages",
        ),
        (
            "[[experiment]]\nfarms = [{ license_ratios = [[10, 130]] }]\npolicies = [\"fcfs\"]\n"
                .to_owned(),
            "plan.toml:2: field experiment[0].farms[0].license_ratios[0]: 130 is out of range",
        ),
        (
            "[[experiment]]\nfarms = [{ license_ratios = [[70, 30]] }]\npolicies = [\"fcfs\"]\n"
                .to_owned(),
            "plan.toml:2: field experiment[0].farms[0]: ",
        ),
        (
            "[[experiment]]\nfarms = [{ mean_interarrivals = [-1] }]\npolicies = [\"fcfs\"]\n"
                .to_owned(),
            "plan.toml:2: field experiment[0].farms[0].mean_interarrivals[0]: -1 is not a mean",
        ),
        (
            "[[experiment]]\nfarms = [{ seed = 3 }]\npolicies = [\"fcfs\"]\n".to_owned(),
            "plan.toml:2: ",
        ),
        (
            "[[experiment]]\nfarms = []\npolicies = [\"fcfs\"]\n".to_owned(),
            "plan.toml:2: field experiment[0].farms: the list is empty",
        ),
        (
            "[[experiment]]\ntraces = [\"a.swf\"]\npolicies = [{ name = \"easy\", license_weight = 0 }]\n"
                .to_owned(),
            "plan.toml:3: field experiment[0].policies[0].license_weight: `license_weight` applies \
             to bf-unmod and bf-mod, not easy",
        ),
        (
            "[[experiment]]\ntraces = [\"a.swf\"]\npolicies = [{ name = \"bf-mod\", license_weight = true }]\n"
                .to_owned(),
            "plan.toml:3: field experiment[0].policies[0].license_weight: `license_weight` is a \
             number",
        ),
    ];
    for (text, start) in &cases {
        let e = error(text);
        assert!(e.starts_with(start), "{e}\nfor\n{text}");
    }
}
