//! `host-cli plan`: cells run here, by index or as array tasks, merged
//! into one table; a run killed mid-way and run again finishes only the
//! missing cells; merge refuses gaps, results of another plan, files that
//! are not what their name says and files cut short; the GNU parallel,
//! Kubernetes and PBS recipes of docs/plans.md, run as written there, give
//! the table of one run.

use super::{fails_saying, job, ok, run, scratch, stderr, stdout, write, BIN};
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// A plan of `loads.len() x 4` cells of the built-in workload.
fn plan_text(jobs: u32, loads: &str) -> String {
    format!(
        "metrics = [\"jobs\", \"mean_wait\", \"mean_bounded_slowdown.SN\", \"utilisation\", \
         \"thresholds\", \"cons_rs.iterations\"]\n\
         [[experiment]]\n\
         builtin = [{{ jobs = {jobs}, seed = 3 }}]\n\
         loads = [{loads}]\n\
         policies = [\"easy\", \"conservative\", \"selective\", {{ name = \"cons-rs\", iterations = 5 }}]\n"
    )
}

/// A scratch directory holding the plan `name` of `text`, and its path.
fn scratch_plan(name: &str, text: &str) -> (tempfile::TempDir, PathBuf) {
    let dir = scratch();
    let plan = write(dir.path(), name, text);
    (dir, plan)
}

fn s(p: &Path) -> &str {
    p.to_str().expect("utf-8 path")
}

/// The merged CSV without the columns that differ between two runs of
/// the same plan (timings and host).
fn merged_values(plan: &Path, dir: &Path) -> Vec<Vec<String>> {
    let text = ok(&["plan", "merge", s(plan), s(dir)]);
    let mut reader = csv::Reader::from_reader(text.as_bytes());
    let header = reader.headers().expect("header").clone();
    let keep: Vec<usize> = header
        .iter()
        .enumerate()
        .filter(|(_, h)| !h.ends_with("_seconds") && *h != "slowest_call_us" && *h != "host")
        .map(|(i, _)| i)
        .collect();
    let mut rows = vec![keep.iter().map(|&i| header[i].to_owned()).collect()];
    for r in reader.records() {
        let r = r.expect("record");
        rows.push(keep.iter().map(|&i| r[i].to_owned()).collect());
    }
    rows
}

fn result_files(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(dir.join("cells"))
        .map(|d| {
            d.map(|e| e.expect("entry").file_name().to_string_lossy().into_owned())
                .filter(|n| n.ends_with(".json") && !n.starts_with('.'))
                .collect()
        })
        .unwrap_or_default();
    names.sort();
    names
}

#[test]
fn cells_by_index_and_as_array_tasks_give_the_table_of_one_run() {
    let (dir, plan) = scratch_plan("plan.toml", &plan_text(300, "1.0, 1.3"));
    let d = dir.path();
    let listing = ok(&["plan", "cells", s(&plan)]);
    assert!(listing.ends_with("\n8 cells\n"), "{listing}");
    assert!(listing.contains("builtin(jobs=300,seed=3)"), "{listing}");
    let json: serde_json::Value =
        serde_json::from_str(&ok(&["plan", "cells", s(&plan), "--format", "json"])).expect("json");
    assert_eq!(json["cells"], 8);
    assert_eq!(json["list"][3]["parameters"]["policy"], "cons-rs");
    assert!(json["list"][3]["parameters"]["seed"].is_u64());
    assert!(json["list"][0]["parameters"]["seed"].is_null());

    let all = d.join("all");
    let text = ok(&["plan", "run", s(&plan), "--out", s(&all), "--jobs", "2"]);
    assert!(
        text.contains("8 selected: 0 already done, 8 run, 0 failed"),
        "{text}"
    );
    let expected = merged_values(&plan, &all);
    assert_eq!(expected.len(), 9);
    // Selective's thresholds come from the Conservative run of its load.
    let thresholds = expected[0]
        .iter()
        .position(|h| h == "thresholds")
        .expect("column");
    assert!(!expected[3][thresholds].is_empty());
    assert!(expected[1][thresholds].is_empty());

    // One cell at a time, in reverse, by --cell.
    let single = d.join("single");
    for i in (0..8).rev() {
        ok(&[
            "plan",
            "run",
            s(&plan),
            "--out",
            s(&single),
            "--cell",
            &i.to_string(),
        ]);
    }
    assert_eq!(merged_values(&plan, &single), expected);

    // Three Slurm array tasks (Kubernetes-style indexed tasks: the test of
    // the recipes below).
    let tasks = d.join("tasks");
    for k in 0..3 {
        let out = Command::new(BIN)
            .args(["plan", "run", s(&plan), "--out", s(&tasks)])
            .env("SLURM_ARRAY_TASK_ID", k.to_string())
            .env("SLURM_ARRAY_TASK_COUNT", "3")
            .output()
            .expect("run");
        assert!(out.status.success(), "{}", stderr(&out));
        let want = if k < 2 { 3 } else { 2 };
        assert!(
            stdout(&out).contains(&format!(
                "{want} selected (task {k} of 3 from SLURM_ARRAY_TASK_ID)"
            )),
            "{}",
            stdout(&out)
        );
    }
    assert_eq!(merged_values(&plan, &tasks), expected);

    // JSON rows hold the same values as the CSV, keys in column order.
    let json_path = d.join("table.json");
    let csv_path = d.join("table.csv");
    ok(&[
        "plan",
        "merge",
        s(&plan),
        s(&all),
        "--out",
        s(&csv_path),
        "--json",
        s(&json_path),
    ]);
    let json_text = std::fs::read_to_string(&json_path).expect("json");
    let rows: Vec<serde_json::Map<String, serde_json::Value>> =
        serde_json::from_str(&json_text).expect("rows");
    assert_eq!(rows.len(), 8);
    let csv_text = std::fs::read_to_string(&csv_path).expect("csv");
    let header: Vec<&str> = csv_text
        .lines()
        .next()
        .expect("header")
        .split(',')
        .collect();
    let mut keys: Vec<&str> = rows[0].keys().map(String::as_str).collect();
    let mut sorted = header.clone();
    keys.sort_unstable();
    sorted.sort_unstable();
    assert_eq!(keys, sorted);
    // Keys come in column order in the file.
    let first_row = json_text.split('}').next().expect("a row");
    let at: Vec<usize> = header
        .iter()
        .map(|h| first_row.find(&format!("\"{h}\":")).expect("key"))
        .collect();
    assert!(at.windows(2).all(|w| w[0] < w[1]), "{first_row}");
    assert_eq!(rows[5]["status"], "ok");
}

#[test]
fn merge_refuses_gaps_other_plans_and_broken_files() {
    let (dir, plan) = scratch_plan("plan.toml", &plan_text(200, "1.0"));
    let d = dir.path();
    let out = d.join("out");
    ok(&["plan", "run", s(&plan), "--out", s(&out)]);
    let files = result_files(&out);
    assert_eq!(files.len(), 4);
    let cells = out.join("cells");

    // A missing result: exit 1 listing the cell; --allow-missing writes
    // the table with the row marked.
    let gone = cells.join(&files[1]);
    let kept = std::fs::read(&gone).expect("read");
    std::fs::remove_file(&gone).expect("remove");
    let m = run(&["plan", "merge", s(&plan), s(&out)]);
    fails_saying(&m, 1, "1 of 4 cells have no result");
    assert!(stdout(&m).is_empty());
    let table = ok(&["plan", "merge", s(&plan), s(&out), "--allow-missing"]);
    assert_eq!(table.matches(",missing,").count(), 1, "{table}");

    // A result cut short counts as missing, named with its file.
    std::fs::write(&gone, &kept[..kept.len() / 2]).expect("truncate");
    fails_saying(
        &run(&["plan", "merge", s(&plan), s(&out)]),
        1,
        "not a complete result file",
    );
    // plan run runs it again.
    let text = ok(&["plan", "run", s(&plan), "--out", s(&out)]);
    assert!(
        text.contains("4 selected: 3 already done, 1 run, 0 failed"),
        "{text}"
    );
    let rerun: serde_json::Value =
        serde_json::from_slice(&std::fs::read(&gone).expect("read")).expect("a whole result");
    assert_eq!(
        format!("{}.json", rerun["id"].as_str().expect("id")),
        files[1]
    );

    // A result under another cell's name.
    let other = cells.join(&files[2]);
    let other_text = std::fs::read(&other).expect("read");
    std::fs::write(&other, &kept).expect("write");
    fails_saying(
        &run(&["plan", "merge", s(&plan), s(&out)]),
        2,
        "holds the result of cell id",
    );
    std::fs::write(&other, &other_text).expect("write");

    // Results of another plan: same cells, other metrics.
    let plan2 = write(
        d,
        "plan2.toml",
        &plan_text(200, "1.0").replace("\"jobs\", ", ""),
    );
    fails_saying(
        &run(&["plan", "merge", s(&plan2), s(&out)]),
        2,
        "a result of another plan (fingerprint",
    );
    // plan run refuses to mix them too, unless --force.
    fails_saying(
        &run(&["plan", "run", s(&plan2), "--out", s(&out)]),
        2,
        "--force to replace them",
    );
    ok(&["plan", "run", s(&plan2), "--out", s(&out), "--force"]);
    ok(&["plan", "merge", s(&plan2), s(&out)]);
}

#[test]
fn a_failed_cell_leaves_a_record_that_merge_lists() {
    let dir = scratch();
    let d = dir.path();
    // The second trace has jobs too wide for the machine only: nothing to
    // schedule, so its cell fails while the other runs.
    write(
        d,
        "good.swf",
        &format!("; MaxProcs: 4\n{}", job(1, 0, 10, 2, 20)),
    );
    write(
        d,
        "bad.swf",
        &format!("; MaxProcs: 4\n{}", job(1, 0, 10, 8, 20)),
    );
    let plan = write(
        d,
        "plan.toml",
        "[[experiment]]\ntraces = [\"good.swf\", \"bad.swf\"]\npolicies = [\"easy\"]\n",
    );
    let out = d.join("out");
    // `--traces` names the folder: a BACKFILL_TRACES_DIR of the caller
    // would otherwise come before the plan's folder.
    fails_saying(
        &run(&["plan", "run", s(&plan), "--out", s(&out), "--traces", s(d)]),
        1,
        "cell 1 failed: ",
    );
    let files = result_files(&out);
    assert_eq!(
        files.iter().filter(|f| f.ends_with(".failed.json")).count(),
        1,
        "{files:?}"
    );
    fails_saying(
        &run(&["plan", "merge", s(&plan), s(&out), "--traces", s(d)]),
        1,
        "cell 1 (bad.swf easy user x1): failed: ",
    );
    let table = ok(&[
        "plan",
        "merge",
        s(&plan),
        s(&out),
        "--allow-missing",
        "--traces",
        s(d),
    ]);
    assert!(table.contains(",failed,"), "{table}");
}

#[test]
fn a_killed_run_resumes_with_only_the_missing_cells() {
    // Twelve cells of a few seconds each in a debug build, one at a time.
    let (dir, plan) = scratch_plan("plan.toml", &plan_text(2500, "0.9, 1.0, 1.1"));
    let d = dir.path();
    let reference = d.join("reference");
    let killed = d.join("killed");
    let mut child = Command::new(BIN)
        .args(["plan", "run", s(&plan), "--out", s(&killed), "--jobs", "1"])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("spawn");
    let start = Instant::now();
    while result_files(&killed).len() < 2 {
        assert!(
            start.elapsed() < Duration::from_secs(600),
            "no result after 10 minutes"
        );
        assert!(
            child.try_wait().expect("wait").is_none(),
            "the run ended before it was killed"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
    child.kill().expect("kill");
    child.wait().expect("wait");
    let done = result_files(&killed).len();
    assert!((2..12).contains(&done), "{done} results when killed");
    // Each result there is complete (written under a temporary name, then
    // renamed): merge reads every one of them.
    let err = fails_saying(
        &run(&["plan", "merge", s(&plan), s(&killed)]),
        1,
        &format!("{} of 12 cells have no result", 12 - done),
    );
    assert!(!err.contains("not a complete result"), "{err}");
    let read_results = |names: &[String]| -> Vec<Vec<u8>> {
        names
            .iter()
            .map(|n| std::fs::read(killed.join("cells").join(n)).expect("result"))
            .collect()
    };
    let finished = result_files(&killed);
    let before = read_results(&finished);
    let text = ok(&["plan", "run", s(&plan), "--out", s(&killed)]);
    assert!(
        text.contains(&format!(
            "12 selected: {done} already done, {} run, 0 failed",
            12 - done
        )),
        "{text}"
    );
    // The cells finished before the kill were not run again: their files
    // are byte for byte what they were (timings and all).
    assert_eq!(read_results(&finished), before);
    assert_eq!(result_files(&killed).len(), 12);
    ok(&["plan", "run", s(&plan), "--out", s(&reference)]);
    assert_eq!(
        merged_values(&plan, &killed),
        merged_values(&plan, &reference)
    );
}

#[test]
fn plan_errors_exit_2_naming_file_line_and_field() {
    let dir = scratch();
    let d = dir.path();
    let plan = write(
        d,
        "plan.toml",
        "[[experiment]]\nbuiltin = [{}]\npolicies = [\"easy\", \"nope\"]\n",
    );
    let r = run(&["plan", "cells", s(&plan)]);
    assert_eq!(r.status.code(), Some(2));
    let err = stderr(&r);
    assert!(
        err.contains(&format!(
            "{}:3: field experiment[0].policies[1]: `nope` is not a policy",
            plan.display()
        )),
        "{err}"
    );
    let good = write(
        d,
        "good.toml",
        "[[experiment]]\nbuiltin = [{ jobs = 50 }]\npolicies = [\"easy\"]\n",
    );
    fails_saying(
        &run(&[
            "plan",
            "run",
            s(&good),
            "--out",
            s(&d.join("o")),
            "--cell",
            "1",
        ]),
        2,
        "--cell 1: the plan has 1 cells",
    );
    fails_saying(
        &run(&["plan", "merge", s(&good), s(&d.join("nowhere"))]),
        2,
        "not a folder",
    );
}

#[test]
fn slurm_writes_the_array_script() {
    let (dir, plan) = scratch_plan("my plan.toml", &plan_text(100, "1.0, 1.1"));
    let d = dir.path();
    let out = d.join("out");
    let text = ok(&[
        "plan",
        "slurm",
        s(&plan),
        "--out",
        s(&out),
        "--partition",
        "debug",
        "--time",
        "10:00",
        "--max-parallel",
        "3",
    ]);
    assert!(
        text.contains("(8 cells in 8 array tasks); submit it with: sbatch "),
        "{text}"
    );
    let script = std::fs::read_to_string(out.join("plan.sbatch")).expect("script");
    assert!(script.contains("#SBATCH --array=0-7%3\n"), "{script}");
    assert!(
        script.contains("#SBATCH --job-name=plan-my-plan\n"),
        "{script}"
    );
    assert!(
        script.contains("#SBATCH --partition=debug\n#SBATCH --time=10:00\n"),
        "{script}"
    );
    assert!(script.contains(&format!(
        "#SBATCH --output={}/logs/%A_%a.out",
        out.display()
    )));
    assert!(script.contains(&format!(
        "plan run '{}' --out '{}'",
        plan.display(),
        out.display()
    )));
    assert!(out.join("logs").is_dir());
    // A file named plan.toml takes its folder's name.
    std::fs::create_dir(d.join("study-a")).expect("mkdir");
    let named = write(&d.join("study-a"), "plan.toml", &plan_text(100, "1.0"));
    ok(&["plan", "slurm", s(&named), "--out", s(&out)]);
    let script = std::fs::read_to_string(out.join("plan.sbatch")).expect("script");
    assert!(
        script.contains("#SBATCH --job-name=plan-study-a\n"),
        "{script}"
    );
    assert!(!Path::new(BIN).is_relative());
}

/// The GNU parallel recipe of docs/plans.md, run as written there (`host-cli`
/// found on the PATH, the plan as `study.toml`, results in `results`), gives
/// the table of one `plan run`. Needs GNU parallel: `.ci/run` installs it and
/// runs this test by name.
#[test]
#[ignore = "needs GNU parallel (`apt-get install parallel`); .ci/run runs it"]
fn the_gnu_parallel_recipe_gives_the_table_of_one_run() {
    let recipe = docs_block("### GNU parallel", "sh");
    assert!(recipe.contains("parallel "), "{recipe}");
    let (dir, plan) = scratch_plan("study.toml", &plan_text(300, "0.9, 1.0, 1.1, 1.2"));
    let d = dir.path();
    let path = path_with_bin();
    let out = Command::new("bash")
        .args(["-euo", "pipefail", "-c", &recipe])
        .current_dir(d)
        .env("PATH", path)
        .env_remove("SLURM_ARRAY_TASK_ID")
        .output()
        .expect("bash");
    assert!(
        out.status.success(),
        "the recipe failed: {}\n{}",
        stdout(&out),
        stderr(&out)
    );
    assert_eq!(result_files(&d.join("results")).len(), 16);
    let reference = d.join("reference");
    ok(&["plan", "run", s(&plan), "--out", s(&reference)]);
    assert_eq!(
        merged_values(&plan, &d.join("results")),
        merged_values(&plan, &reference)
    );
}

/// `$PATH` with the binary's folder first, for recipes that call
/// `host-cli` by name.
fn path_with_bin() -> std::ffi::OsString {
    let bin_dir = Path::new(BIN).parent().expect("the binary's folder");
    std::env::join_paths(
        std::iter::once(bin_dir.to_path_buf()).chain(std::env::split_paths(
            &std::env::var_os("PATH").unwrap_or_default(),
        )),
    )
    .expect("PATH")
}

/// The block of `lang` after `heading` in docs/plans.md.
fn docs_block(heading: &str, lang: &str) -> String {
    let docs = Path::new(env!("CARGO_MANIFEST_DIR")).join("../docs/plans.md");
    let text = std::fs::read_to_string(&docs).expect("docs/plans.md");
    let (_, section) = text
        .split_once(&format!("{heading}\n"))
        .unwrap_or_else(|| panic!("no {heading:?} in docs/plans.md"));
    let (_, block) = section
        .split_once(&format!("```{lang}\n"))
        .unwrap_or_else(|| panic!("no {lang} block under {heading:?}"));
    block
        .split_once("```")
        .expect("the block's end")
        .0
        .to_owned()
}

/// The Kubernetes Indexed Job and PBS array recipes of docs/plans.md, as far
/// as they can run without those systems: the pod's command of the Job
/// (paths mapped to a scratch folder) run once per completion index with
/// `JOB_COMPLETION_INDEX` and the task count set as the Job sets them, and
/// the PBS script run by bash once per `PBS_ARRAY_INDEX`, each give the
/// table of one `plan run`.
#[test]
fn the_kubernetes_and_pbs_recipes_give_the_table_of_one_run() {
    let (dir, plan) = scratch_plan("study.toml", &plan_text(200, "1.0, 1.1, 1.2"));
    let d = dir.path();
    let reference = d.join("reference");
    ok(&["plan", "run", s(&plan), "--out", s(&reference)]);
    let expected = merged_values(&plan, &reference);
    assert_eq!(expected.len(), 13);

    // Kubernetes: `completions` tasks, each told the count in TASKS.
    let yaml = docs_block("### Kubernetes (Indexed Job)", "yaml");
    let command = yaml
        .split_once("command: [")
        .and_then(|(_, rest)| rest.split_once(']'))
        .map(|(list, _)| format!("[{list}]"))
        .expect("the container's command");
    let command: Vec<String> = serde_json::from_str(&command).expect("a JSON-like list");
    let completions = yaml
        .lines()
        .find_map(|l| l.trim().strip_prefix("completions: "))
        .and_then(|v| v.split_whitespace().next())
        .expect("completions");
    assert!(
        yaml.contains(&format!("{{ name: TASKS, value: \"{completions}\" }}")),
        "TASKS must be the Job's completions: {yaml}"
    );
    assert_eq!(command[0], "host-cli");
    let indexed = d.join("indexed");
    let mapped: Vec<String> = command[1..]
        .iter()
        .map(|a| match a.as_str() {
            "/study/study.toml" => s(&plan).to_owned(),
            "/results" => s(&indexed).to_owned(),
            "/traces" => s(d).to_owned(),
            _ => a.clone(),
        })
        .collect();
    // Five tasks for twelve cells: tasks 0 and 1 run three cells.
    for k in 0..5 {
        let out = Command::new(BIN)
            .args(&mapped)
            .env("JOB_COMPLETION_INDEX", k.to_string())
            .env("TASKS", "5")
            .env_remove("SLURM_ARRAY_TASK_ID")
            .output()
            .expect("run");
        assert!(out.status.success(), "{mapped:?}: {}", stderr(&out));
    }
    assert_eq!(merged_values(&plan, &indexed), expected);

    // PBS: one array task per cell, the script run as written.
    let script = docs_block("### PBS Pro / OpenPBS", "sh");
    assert!(script.starts_with("#PBS -J 0-"), "{script}");
    let path = path_with_bin();
    for k in 0..12 {
        let out = Command::new("bash")
            .args(["-euo", "pipefail", "-c", &script])
            .current_dir(d)
            .env("PATH", &path)
            .env("PBS_ARRAY_INDEX", k.to_string())
            .env_remove("SLURM_ARRAY_TASK_ID")
            .output()
            .expect("bash");
        assert!(out.status.success(), "{script}: {}", stderr(&out));
    }
    assert_eq!(merged_values(&plan, &d.join("results")), expected);
}

/// The farm plan of docs/plans.md expands as the text says (means x ratios
/// x seeds, then policies), and one of its cells runs.
#[test]
fn the_documented_farm_plan_expands_and_runs() {
    let dir = scratch();
    let d = dir.path();
    let plan = write(d, "farms.toml", &docs_block("### Generated farms", "toml"));
    let cells = ok(&["plan", "cells", s(&plan)]);
    assert!(cells.contains("\n48 cells"), "{cells}");
    assert!(
        cells.contains("farm(jobs=1000,seed=2,mean_interarrival=48,license_ratio=50-70)"),
        "{cells}"
    );
    assert!(cells.contains("license-weight=0.00"), "{cells}");
    let out = d.join("out");
    ok(&["plan", "run", s(&plan), "--out", s(&out), "--cell", "47"]);
    let merged = run(&["plan", "merge", s(&plan), s(&out), "--allow-missing"]);
    let table = stdout(&merged);
    let row = table
        .lines()
        .find(|l| {
            l.contains("seed=2,mean_interarrival=12,license_ratio=70-90") && l.contains("bf-mod")
        })
        .unwrap_or_else(|| panic!("{table}"));
    assert!(row.contains(",ok,"), "{row}");
}

/// The wait-by-reason metrics of a cell are the split `host-cli replay
/// --wait-by-reason` prints for the same replay, set by set and reason by
/// reason, and a set's reasons add up to its `total_wait`; following the
/// reasons changes no other metric.
#[test]
fn wait_by_reason_cells_give_the_split_of_replay() {
    let dir = scratch();
    let d = dir.path();
    let policies = ["fcfs", "easy", "conservative", "selective", "selective-d"];
    let reports: Vec<serde_json::Value> = policies
        .iter()
        .map(|policy| {
            serde_json::from_str(&ok(&[
                "replay",
                "--synthetic-jobs",
                "400",
                "--seed",
                "5",
                "--load",
                "1.3",
                "--policy",
                policy,
                "--wait-by-reason",
                "--format",
                "json",
            ]))
            .expect("replay json")
        })
        .collect();
    // The reasons the replays give, and two that none gives here (their
    // columns must be 0).
    let mut reasons: Vec<String> = vec!["pending".into(), "search-budget".into()];
    for report in &reports {
        for split in report["wait_by_reason"].as_array().expect("split") {
            for part in split["by_reason"].as_array().expect("by_reason") {
                let reason = part["reason"].as_str().expect("reason").to_owned();
                if !reasons.contains(&reason) {
                    reasons.push(reason);
                }
            }
        }
    }
    for reason in [
        "behind",
        "processors",
        "would-delay",
        "reserved",
        "not-promoted",
    ] {
        assert!(
            reasons.iter().any(|r| r == reason),
            "no wait under {reason}: the workload shows too little"
        );
    }
    let mut metrics = vec!["mean_wait".to_owned(), "mean_bounded_slowdown".to_owned()];
    for set in ["", ".SN", ".SW", ".LN", ".LW"] {
        metrics.push(format!("jobs{set}"));
        metrics.push(format!("total_wait{set}"));
        metrics.extend(reasons.iter().map(|r| format!("wait_by_reason.{r}{set}")));
    }
    let quoted: Vec<String> = metrics.iter().map(|m| format!("{m:?}")).collect();
    let body = format!(
        "[[experiment]]\nbuiltin = [{{ jobs = 400, seed = 5 }}]\nloads = [1.3]\n\
         policies = [{}]\n",
        policies.map(|p| format!("{p:?}")).join(", ")
    );
    let plan = write(
        d,
        "plan.toml",
        &format!("metrics = [{}]\n{body}", quoted.join(", ")),
    );
    let split = run_and_merge(&plan, &d.join("out"));
    // The same plan without the split: the same means.
    let plain = write(
        d,
        "plain.toml",
        &format!("metrics = [\"mean_wait\", \"mean_bounded_slowdown\"]\n{body}"),
    );
    let plain = run_and_merge(&plain, &d.join("plain"));
    for (i, (policy, report)) in policies.iter().zip(&reports).enumerate() {
        let row = &split[i];
        assert_eq!(row["policy"], *policy);
        let splits = report["wait_by_reason"].as_array().expect("split");
        assert_eq!(splits.len(), 5, "{policy}");
        for split in splits {
            let set = split["set"].as_str().expect("set");
            let suffix = if set == "all" {
                String::new()
            } else {
                format!(".{set}")
            };
            assert_eq!(
                row[format!("total_wait{suffix}")],
                split["total"],
                "{policy} {set}"
            );
            let mut sum = 0;
            for reason in &reasons {
                let given = split["by_reason"]
                    .as_array()
                    .expect("by_reason")
                    .iter()
                    .find(|r| r["reason"] == reason.as_str())
                    .map_or(0, |r| r["seconds"].as_u64().expect("seconds"));
                let column = &row[format!("wait_by_reason.{reason}{suffix}")];
                assert_eq!(column.as_u64(), Some(given), "{policy} {set} {reason}");
                sum += given;
            }
            assert_eq!(split["total"].as_u64(), Some(sum), "{policy} {set}");
            let jobs = report["metrics"]
                .as_array()
                .expect("metrics")
                .iter()
                .find(|m| m["set"] == set)
                .expect("set metrics")["jobs"]
                .clone();
            assert_eq!(row[format!("jobs{suffix}")], jobs, "{policy} {set}");
        }
        for mean in ["mean_wait", "mean_bounded_slowdown"] {
            assert_eq!(row[mean], plain[i][mean], "{policy} {mean}");
        }
    }
}

/// Runs `plan` into `out` (two cells at a time) and gives its merged
/// table (`plan merge --json`, written to `out/merged.json`).
fn run_and_merge(plan: &Path, out: &Path) -> serde_json::Value {
    ok(&["plan", "run", s(plan), "--out", s(out), "--jobs", "2"]);
    let json = out.join("merged.json");
    ok(&["plan", "merge", s(plan), s(out), "--json", s(&json)]);
    serde_json::from_str(&std::fs::read_to_string(&json).expect("merged")).expect("json")
}

/// The rows of the CSV output of `command` on 500 built-in jobs (seed 7)
/// with `estimates` at load x1.4, with the `extra` arguments, by column.
fn synthetic_rows(command: &str, estimates: &str, extra: &[&str]) -> Vec<HashMap<String, String>> {
    let mut args = vec![
        command,
        "--synthetic-jobs",
        "500",
        "--seed",
        "7",
        "--estimates",
        estimates,
        "--load",
        "1.4",
        "--format",
        "csv",
    ];
    args.extend(extra);
    csv::Reader::from_reader(ok(&args).as_bytes())
        .deserialize()
        .map(|r| r.expect("record"))
        .collect()
}

/// The merged table of a plan of `metrics` under `policies` on the
/// workload of [`synthetic_rows`], with exact and user estimates (cells in
/// that order, then the policies'), run in `d/out`.
fn synthetic_plan(d: &Path, metrics: &[String], policies: &[&str]) -> serde_json::Value {
    let quoted = |items: &[&str]| -> String {
        items
            .iter()
            .map(|i| format!("{i:?}"))
            .collect::<Vec<_>>()
            .join(", ")
    };
    let metrics: Vec<&str> = metrics.iter().map(String::as_str).collect();
    let plan = write(
        d,
        "plan.toml",
        &format!(
            "metrics = [{}]\n[[experiment]]\nbuiltin = [{{ jobs = 500, seed = 7 }}]\n\
             estimates = [\"exact\", \"user\"]\nloads = [1.4]\npolicies = [{}]\n",
            quoted(&metrics),
            quoted(policies)
        ),
    );
    run_and_merge(&plan, &d.join("out"))
}

/// The fairness metrics of a cell are the counts of `host-cli fairness`
/// for the same policy, window, estimates and load, overall and per
/// run-time class.
#[test]
fn fairness_cells_give_the_counts_of_the_fairness_command() {
    const CLASSES: [(&str, &str); 6] = [
        ("all", ""),
        ("<=10m", ".le_10m"),
        ("10m-1h", ".10m_1h"),
        ("1h-4h", ".1h_4h"),
        ("4h-12h", ".4h_12h"),
        (">12h", ".gt_12h"),
    ];
    const BUCKETS: [(&str, &str); 6] = [
        ("jobs", "fair.jobs"),
        ("le_1", "fair.le_1"),
        ("gt_1_le_1_5", "fair.gt_1_le_1_5"),
        ("gt_1_5_le_2", "fair.gt_1_5_le_2"),
        ("gt_2_le_4", "fair.gt_2_le_4"),
        ("gt_4", "fair.gt_4"),
    ];
    const POLICIES: [&str; 5] = [
        "conservative",
        "easy",
        "selective",
        "selective-d",
        "sjf-easy",
    ];
    let dir = scratch();
    let d = dir.path();
    let mut metrics = vec!["fair.no_fair_start".to_owned()];
    for (_, class) in CLASSES {
        metrics.extend(BUCKETS.map(|(_, m)| format!("{m}{class}")));
    }
    let table = synthetic_plan(d, &metrics, &POLICIES);
    let mut unfair = 0;
    for (e, estimates) in ["exact", "user"].iter().enumerate() {
        let rows = synthetic_rows("fairness", estimates, &["--policies", &POLICIES.join(",")]);
        for r in &rows {
            let policy = &r["policy"];
            let i = POLICIES.iter().position(|p| p == policy).expect("policy");
            let row = &table[e * 5 + i];
            assert_eq!(row["policy"], *policy);
            assert_eq!(row["estimates"], *estimates);
            assert_eq!(row["fair.no_fair_start"], 0);
            let (_, suffix) = CLASSES
                .iter()
                .find(|(label, _)| *label == r["class"])
                .expect("class");
            for (column, metric) in BUCKETS {
                let want: u64 = r[column].parse().expect("count");
                assert_eq!(
                    row[format!("{metric}{suffix}")].as_u64(),
                    Some(want),
                    "{estimates} {policy} {} {column}",
                    r["class"]
                );
                if column != "jobs" && column != "le_1" {
                    unfair += want;
                }
            }
        }
        assert_eq!(rows.len(), 5 * 6, "{estimates}");
    }
    assert!(
        unfair > 0,
        "no job treated unfairly: the test shows nothing"
    );
}

/// The threshold metrics of a cell are the rows of `host-cli thresholds`
/// for the same window, estimates and load (the Conservative run's means
/// over the jobs averaged, the counts and the thresholds), whether the
/// cell is the Conservative one or takes its thresholds from it; other
/// cells leave them empty.
#[test]
fn threshold_cells_give_the_rows_of_the_thresholds_command() {
    const COLUMNS: [(&str, &str); 4] = [
        ("jobs", "threshold.jobs"),
        ("jobs_in_set", "threshold.jobs_in_set"),
        ("mean_bounded_slowdown", "threshold.mean_bounded_slowdown"),
        ("threshold", "threshold.value"),
    ];
    const SETS: [(&str, &str); 5] = [
        ("all", ""),
        ("SN", ".SN"),
        ("SW", ".SW"),
        ("LN", ".LN"),
        ("LW", ".LW"),
    ];
    const POLICIES: [&str; 4] = ["conservative", "selective", "selective-d", "easy"];
    let dir = scratch();
    let d = dir.path();
    let mut metrics = Vec::new();
    for (_, set) in SETS {
        metrics.extend(COLUMNS.map(|(_, m)| format!("{m}{set}")));
    }
    let table = synthetic_plan(d, &metrics, &POLICIES);
    let mut well_estimated_only = false;
    for (e, estimates) in ["exact", "user"].iter().enumerate() {
        let rows = synthetic_rows("thresholds", estimates, &[]);
        for r in &rows {
            let (_, suffix) = SETS
                .iter()
                .find(|(label, _)| *label == r["set"])
                .expect("set");
            well_estimated_only |= r["jobs"] != r["jobs_in_set"];
            for (p, policy) in POLICIES.iter().enumerate() {
                let row = &table[e * 4 + p];
                assert_eq!(row["policy"], *policy);
                assert_eq!(row["estimates"], *estimates);
                for (column, metric) in COLUMNS {
                    let cell = &row[format!("{metric}{suffix}")];
                    if *policy == "easy" {
                        assert!(cell.is_null(), "{estimates} easy {metric}{suffix}");
                        continue;
                    }
                    let want: f64 = r[column].parse().expect("number");
                    let got = cell.as_f64().expect("a number");
                    // The command rounds its means to four decimals.
                    let got = if column == "mean_bounded_slowdown" {
                        (got * 1e4).round() / 1e4
                    } else {
                        got
                    };
                    assert_eq!(got, want, "{estimates} {policy} {metric}{suffix}");
                }
            }
        }
        assert_eq!(rows.len(), 5, "{estimates}");
    }
    assert!(
        well_estimated_only,
        "every job well estimated: the test does not tell the sets apart"
    );
}

/// `rows` as CSV text.
fn csv_of<R: serde::Serialize>(rows: &[R]) -> String {
    let mut w = csv::Writer::from_writer(Vec::new());
    for r in rows {
        w.serialize(r).expect("row");
    }
    String::from_utf8(w.into_inner().expect("csv")).expect("utf8")
}

/// The reports built from a merged table's cells (`backfill_cli::plan::
/// reports`) are those of `host-cli compare`, `sweep`, `fairness` and
/// `thresholds` on the same trace: the same CSV rows (but for the trace
/// column, the file name instead of the path) and the same figures.
#[test]
fn reports_of_merged_cells_are_those_of_the_commands() {
    use backfill_cli::plan::reports;
    let dir = scratch();
    let d = dir.path();
    let trace = d.join("model.swf");
    ok(&[
        "generate",
        "lublin",
        "--jobs",
        "400",
        "--seed",
        "3",
        "-o",
        s(&trace),
    ]);
    let policies = ["conservative", "easy", "selective", "selective-d"];
    let mut metrics: Vec<String> = [
        "utilisation",
        "offered_load",
        "thresholds",
        "threshold_source",
    ]
    .map(str::to_owned)
    .to_vec();
    for set in ["", ".SN", ".SW", ".LN", ".LW"] {
        for m in [
            "jobs",
            "mean_wait",
            "mean_bounded_slowdown",
            "mean_turnaround",
            "worst_bounded_slowdown",
            "threshold.jobs",
            "threshold.jobs_in_set",
            "threshold.mean_bounded_slowdown",
            "threshold.value",
        ] {
            metrics.push(format!("{m}{set}"));
        }
    }
    metrics.push("fair.no_fair_start".to_owned());
    for class in ["", ".le_10m", ".10m_1h", ".1h_4h", ".4h_12h", ".gt_12h"] {
        for b in [
            "jobs",
            "le_1",
            "gt_1_le_1_5",
            "gt_1_5_le_2",
            "gt_2_le_4",
            "gt_4",
        ] {
            metrics.push(format!("fair.{b}{class}"));
        }
    }
    let plan = write(
        d,
        "plan.toml",
        &format!(
            "metrics = [{}]\n[[experiment]]\ntraces = [{:?}]\nestimates = [\"user\"]\n\
             loads = [1.0, 1.5]\npolicies = [{}]\n",
            metrics
                .iter()
                .map(|m| format!("{m:?}"))
                .collect::<Vec<_>>()
                .join(", "),
            s(&trace),
            policies.map(|p| format!("{p:?}")).join(", ")
        ),
    );
    let rows: Vec<reports::Row> =
        serde_json::from_value(run_and_merge(&plan, &d.join("out"))).expect("rows");
    let cells: Vec<&reports::Row> = rows.iter().collect();
    // The command's CSV with the trace column as the plan names it.
    let command = |args: &[&str], svg: &Path| -> (String, String) {
        let mut all = args.to_vec();
        all.extend([
            s(&trace),
            "--estimates",
            "user",
            "--format",
            "csv",
            "--svg",
            s(svg),
        ]);
        let csv = ok(&all).replace(s(&trace), "model.swf");
        (csv, std::fs::read_to_string(svg).expect("svg"))
    };
    let list = policies.join(",");
    for (i, load) in ["1.0", "1.5"].iter().enumerate() {
        let at = &cells[i * 4..i * 4 + 4];
        let svg = d.join(format!("compare-{load}.svg"));
        let (csv, figure) = command(&["compare", "--load", load, "--policies", &list], &svg);
        let drawn = reports::compare(at, "conservative").expect("compare");
        assert_eq!(csv_of(&drawn.rows), csv, "compare x{load}");
        assert_eq!(drawn.svg, figure, "compare figure x{load}");
        let svg = d.join(format!("fairness-{load}.svg"));
        let (csv, figure) = command(&["fairness", "--load", load, "--policies", &list], &svg);
        let drawn = reports::fairness(at).expect("fairness");
        assert_eq!(csv_of(&drawn.rows), csv, "fairness x{load}");
        assert_eq!(drawn.svg, figure, "fairness figure x{load}");
        let csv = ok(&[
            "thresholds",
            s(&trace),
            "--estimates",
            "user",
            "--load",
            load,
            "--format",
            "csv",
        ])
        .replace(s(&trace), "model.swf");
        for cell in [at[0], at[2], at[3]] {
            let rows = reports::thresholds(cell).expect("thresholds");
            assert_eq!(csv_of(&rows), csv, "thresholds x{load}");
        }
        assert!(
            reports::thresholds(at[1]).is_err(),
            "EASY has no Conservative run"
        );
    }
    let svg = d.join("sweep.svg");
    let (csv, figure) = command(&["sweep", "--loads", "1.0,1.5", "--policies", &list], &svg);
    let drawn = reports::sweep(&cells, "conservative", "all").expect("sweep");
    assert_eq!(csv_of(&drawn.rows), csv, "sweep");
    assert_eq!(drawn.svg, figure, "sweep figure");
    // A cell of another window is refused.
    let mut other = rows[1].clone();
    other.insert("first".to_owned(), serde_json::Value::from(100));
    let err = reports::compare(&[&rows[0], &other], "conservative").expect_err("refused");
    assert!(err.contains("differ in first"), "{err}");
}
