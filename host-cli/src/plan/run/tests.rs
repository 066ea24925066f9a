use super::*;

fn env<'a>(vars: &'a [(&'a str, &'a str)]) -> impl Fn(&str) -> Option<String> + 'a {
    move |name| {
        vars.iter()
            .find(|(k, _)| *k == name)
            .map(|(_, v)| (*v).to_owned())
    }
}

#[test]
fn slurm_tasks_take_every_count_th_cell() {
    let s = Selection::from_env(
        None,
        None,
        env(&[
            ("SLURM_ARRAY_TASK_ID", "2"),
            ("SLURM_ARRAY_TASK_COUNT", "4"),
        ]),
    )
    .unwrap();
    assert_eq!(s.cells(11).unwrap(), [2, 6, 10]);
    // An array numbered from 5 (--array=5-8): task 7 is the third.
    let s = Selection::from_env(
        None,
        None,
        env(&[
            ("SLURM_ARRAY_TASK_ID", "7"),
            ("SLURM_ARRAY_TASK_MIN", "5"),
            ("SLURM_ARRAY_TASK_COUNT", "4"),
        ]),
    )
    .unwrap();
    assert_eq!(s.cells(9).unwrap(), [2, 6]);
    // More tasks than cells: the extra tasks have nothing to do.
    let s = Selection::from_env(
        None,
        None,
        env(&[
            ("SLURM_ARRAY_TASK_ID", "9"),
            ("SLURM_ARRAY_TASK_COUNT", "10"),
        ]),
    )
    .unwrap();
    assert_eq!(s.cells(5).unwrap(), Vec::<usize>::new());
    // No array: every cell.
    let s = Selection::from_env(None, None, env(&[])).unwrap();
    assert_eq!(s, Selection::All);
    assert_eq!(s.cells(3).unwrap(), [0, 1, 2]);
}

#[test]
fn other_batch_systems_name_their_variables() {
    let vars = [
        ("JOB_COMPLETION_INDEX", "3"),
        ("PBS_ARRAY_INDEX", "1"),
        ("NTASKS", "2"),
        ("SLURM_ARRAY_TASK_ID", "0"),
    ];
    // The named variable wins over Slurm's.
    let k8s = Selection::from_env(Some("JOB_COMPLETION_INDEX"), None, env(&vars)).unwrap();
    assert_eq!(k8s.cells(10).unwrap(), [3]);
    assert_eq!(k8s.cells(3).unwrap(), Vec::<usize>::new());
    let pbs = Selection::from_env(Some("PBS_ARRAY_INDEX"), Some("NTASKS"), env(&vars)).unwrap();
    assert_eq!(pbs.cells(6).unwrap(), [1, 3, 5]);
    for (index, count, vars, message) in [
        (
            "JOB_COMPLETION_INDEX",
            None,
            &[][..],
            "--index-env JOB_COMPLETION_INDEX: the variable JOB_COMPLETION_INDEX is not set",
        ),
        (
            "I",
            None,
            &[("I", "-1")][..],
            "--index-env: I=\"-1\" is not a whole number",
        ),
        (
            "I",
            Some("N"),
            &[("I", "0")][..],
            "--count-env N: the variable N is not set",
        ),
    ] {
        let e = Selection::from_env(Some(index), count, env(vars)).unwrap_err();
        assert!(e.to_string().starts_with(message), "{e}");
        assert_eq!(e.exit_code(), 2);
    }
    let e = Selection::from_env(None, None, env(&[("SLURM_ARRAY_TASK_ID", "x")])).unwrap_err();
    assert!(
        e.to_string()
            .starts_with("SLURM_ARRAY_TASK_ID=\"x\" is not a whole number"),
        "{e}"
    );
    let beyond = Selection::Task {
        index: 4,
        count: Some(4),
        from: "SLURM_ARRAY_TASK_ID",
    };
    assert!(beyond.cells(10).is_err());
    assert!(Selection::One(10).cells(10).is_err());
    assert_eq!(Selection::One(9).cells(10).unwrap(), [9]);
}

#[test]
fn for_each_runs_every_item_once() {
    let seen = Mutex::new(Vec::new());
    for_each(&[4, 1, 7, 2, 9], 3, |i| seen.lock().unwrap().push(i));
    let mut seen = seen.into_inner().unwrap();
    seen.sort_unstable();
    assert_eq!(seen, [1, 2, 4, 7, 9]);
    for_each(&[], 4, |_| panic!("no item"));
}

#[test]
fn farm_cells_give_the_farm_replays_numbers() {
    use crate::farm::generate::{generate, FarmSpec};
    use crate::farm::replay::{prepare, run};
    use backfill_core::policy::Heuristics;
    use backfill_core::{CategoryBounds, Policy};
    let text = "metrics = [\"jobs\", \"mean_wait\", \"farm.missed_percent\", \
                \"farm.license_usage\", \"farm.handovers\", \"farm.offered_load\", \
                \"farm.skipped\"]\n\
                [[experiment]]\n\
                farms = [{ jobs = 300, seeds = [3], mean_interarrivals = [2], license_ratios = [[10, 30]] }]\n\
                policies = [\"bf-fcfs\", { name = \"bf-mod\", license_weight = 0 }]\n";
    let dir = tempfile::tempdir().unwrap();
    let plan = super::super::format::parse("plan.toml", text, dir.path()).unwrap();
    let out = dir.path().join("out");
    let summary = run_cells(
        &plan,
        &[0, 1],
        RunOptions {
            out: &out,
            force: false,
            jobs: 2,
        },
    )
    .unwrap();
    assert_eq!((summary.ran, summary.failed.len()), (2, 0));
    let spec = FarmSpec {
        jobs: 300,
        seed: 3,
        mean_interarrival: 2.0,
        license_ratio: (10, 30),
        ..FarmSpec::default()
    };
    let prepared = prepare("farm", generate(&spec).unwrap()).unwrap();
    let (offered_load, skipped) = crate::farm::study::offered(&prepared);
    let policies = [
        Policy::BfFcfs,
        Policy::BfMod(Heuristics {
            license_weight: 0,
            ..Heuristics::DEFAULT
        }),
    ];
    let mut differs = false;
    assert_eq!(
        plan.cells[0].spec.parameters().trace,
        "farm(jobs=300,seed=3,mean_interarrival=2,license_ratio=10-30)"
    );
    for (cell, policy) in plan.cells.iter().zip(policies) {
        let results::Stored::Done(result) = results::stored(&plan, cell, &out) else {
            panic!("no result for {}", describe(cell));
        };
        let direct = run(&prepared, policy, CategoryBounds::DEFAULT).unwrap();
        let m = &result.metrics;
        assert_eq!(m["jobs"], serde_json::json!(direct.outcome.finished));
        assert_eq!(m["mean_wait"], serde_json::json!(direct.metrics.mean_wait));
        assert_eq!(
            m["farm.missed_percent"],
            serde_json::json!(direct.metrics.missed_percent)
        );
        assert_eq!(
            m["farm.license_usage"],
            serde_json::json!(direct.metrics.license_usage)
        );
        assert_eq!(
            m["farm.handovers"],
            serde_json::json!(direct.counters.reservation_handovers)
        );
        assert_eq!(m["farm.offered_load"], serde_json::json!(offered_load));
        assert_eq!(m["farm.skipped"], serde_json::json!(skipped));
        // The weight took effect: the default heuristics schedule this
        // stream differently.
        if matches!(policy, Policy::BfMod(_)) {
            let default = run(
                &prepared,
                Policy::BfMod(Heuristics::DEFAULT),
                CategoryBounds::DEFAULT,
            )
            .unwrap();
            differs = default.records != direct.records;
        }
    }
    assert!(differs, "license_weight = 0 changed nothing on this stream");
}
