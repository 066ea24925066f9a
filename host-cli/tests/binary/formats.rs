//! Report formats as other tools read them: CSV rows that concatenate,
//! JSON whose only varying part is `timings`, the per-job CSV.

use super::{
    fails_with, four_processor_trace, job, ok, run, scratch, small_trace_dir, stderr, write,
};

fn json(args: &[&str]) -> serde_json::Value {
    serde_json::from_str(&ok(args)).expect("json")
}

/// The lines of the per-job file `replay --jobs-out` writes for the trace
/// of `jobs` on 4 processors, with `more` options.
fn jobs_out_lines(jobs: &[String], more: &[&str]) -> Vec<String> {
    let dir = scratch();
    let trace = four_processor_trace(dir.path(), "k.swf", jobs);
    let out = dir.path().join("jobs.csv");
    let mut args = vec![
        "replay",
        trace.to_str().expect("utf-8"),
        "--jobs-out",
        out.to_str().expect("utf-8"),
    ];
    args.extend(more);
    ok(&args);
    let text = std::fs::read_to_string(&out).expect("jobs csv");
    text.lines().map(str::to_owned).collect()
}

/// The JSON without its `timings` object.
fn deterministic(mut v: serde_json::Value) -> serde_json::Value {
    let timings = v
        .as_object_mut()
        .expect("object")
        .remove("timings")
        .expect("a timings object");
    assert!(timings.is_object(), "{timings}");
    v
}

#[test]
fn json_is_deterministic_apart_from_timings() {
    let (_dir, trace) = small_trace_dir();
    let t = trace.as_str();
    let replay = ["replay", t, "--policy", "selective", "--format", "json"];
    let a = json(&replay);
    assert!(a["timings"]["prerun_seconds"].is_f64(), "{}", a["timings"]);
    for key in ["read_seconds", "replay_seconds", "total_seconds"] {
        assert!(a["timings"][key].is_f64(), "{key}: {}", a["timings"]);
    }
    // Kernel calls are timed only with --latency.
    assert!(
        a["timings"]["slowest_call_us"].is_null(),
        "{}",
        a["timings"]
    );
    assert!(a["timings"].get("latency").is_none(), "{}", a["timings"]);
    let timed = json(&["replay", t, "--format", "json", "--latency"]);
    let latency = &timed["timings"]["latency"];
    let calls = timed["kernel_calls"].as_u64().expect("kernel_calls");
    assert_eq!(latency["calls"].as_u64(), Some(calls), "{latency}");
    let buckets = latency["buckets"].as_array().expect("buckets");
    let in_buckets: u64 = buckets.iter().filter_map(|b| b["calls"].as_u64()).sum();
    assert_eq!(in_buckets, calls, "every call is in one bucket");
    let slowest = timed["timings"]["slowest_call_us"]
        .as_f64()
        .expect("slowest");
    let p50 = latency["p50_below_us"].as_f64().expect("p50");
    let p999 = latency["p999_below_us"].as_f64().expect("p999");
    assert!(
        p50 <= p999 && p999 <= slowest.max(1.0),
        "{latency} {slowest}"
    );
    assert!(timed["timings"]["slowest_call"].is_string());
    assert_eq!(deterministic(a), deterministic(json(&replay)));
    let easy = json(&["replay", t, "--format", "json"]);
    assert!(
        easy["timings"]["prerun_seconds"].is_null(),
        "no pre-run for easy"
    );
    let info = ["info", t, "--format", "json"];
    assert_eq!(deterministic(json(&info)), deterministic(json(&info)));
}

#[test]
fn skip_and_refusal_reasons_are_objects_with_stable_keys() {
    let dir = scratch();
    let trace = four_processor_trace(
        dir.path(),
        "t.swf",
        &[
            job(1, 0, 10, 1, 20),
            job(2, 1, -1, 1, 20),
            job(3, 2, 10, 9, 20),
        ],
    );
    let v = json(&["replay", trace.to_str().expect("utf-8"), "--format", "json"]);
    let acc = &v["accounting"];
    assert_eq!(
        acc["skipped"],
        serde_json::json!({
            "no_submit_time": 0,
            "no_run_time": 1,
            "no_processors": 0,
            "wider_than_machine": 1
        })
    );
    assert_eq!(
        acc["rejected_by_kernel"],
        serde_json::json!({"unrunnable": 0, "invalid": 0, "other": 0})
    );
    assert_eq!(acc["scheduled"], 1);
    assert_eq!(acc["jobs_in_window"], 3);
}

#[test]
fn csv_rows_carry_their_context_and_concatenate() {
    let (_dir, trace) = small_trace_dir();
    let t = trace.as_str();
    let easy = ok(&["replay", t, "--format", "csv"]);
    let sel = ok(&[
        "replay",
        t,
        "--policy",
        "selective",
        "--load",
        "1.5",
        "--format",
        "csv",
    ]);
    let header = "trace,window,machine_procs,policy,estimates,load,thresholds,threshold_source,\
                  short_max,narrow_max,set,jobs,mean_wait,mean_bounded_slowdown,mean_turnaround,\
                  worst_bounded_slowdown,killed,utilisation";
    for text in [&easy, &sel] {
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(lines[0], header);
        assert_eq!(lines.len(), 6, "{text}");
    }
    // The rows of two runs, under one header, form one table.
    let rows: String = sel.lines().skip(1).map(|l| format!("{l}\n")).collect();
    let joined = format!("{easy}{rows}");
    let mut reader: Vec<csv::StringRecord> = csv::Reader::from_reader(joined.as_bytes())
        .into_records()
        .map(|r| r.expect("row"))
        .collect();
    assert_eq!(reader.len(), 10);
    let first = reader.remove(0);
    assert_eq!(&first[3], "easy");
    assert_eq!(&first[6], "-");
    assert_eq!(&first[10], "all");
    let sel_all = &reader[4];
    assert_eq!(&sel_all[3], "selective");
    assert_eq!(&sel_all[5], "1.5");
    assert_eq!(&sel_all[7], "default-conservative");
    // Numbers are rounded to 4 decimals.
    for row in std::iter::once(&first).chain(&reader) {
        for field in [12, 13, 14, 15, 17] {
            let decimals = row[field].split('.').nth(1).map_or(0, str::len);
            assert!(decimals <= 4, "{}", &row[field]);
        }
    }
    let info = ok(&["info", t, "--format", "csv"]);
    let lines: Vec<&str> = info.lines().collect();
    assert_eq!(
        lines[0],
        "trace,window,machine_procs,machine_source,jobs_in_window,jobs_counted,short_max,\
         narrow_max,set,jobs,percent"
    );
    assert_eq!(lines.len(), 5);
    assert!(
        lines[1].ends_with(",whole trace,4,max-procs,8,8,3600,8,SN,8,100.0"),
        "{}",
        lines[1]
    );
}

#[test]
fn the_jobs_csv_says_which_jobs_were_killed() {
    // Job 2 runs 50 s but asked for 20: killed at its estimate.
    let lines = jobs_out_lines(&[job(1, 0, 10, 1, 20), job(2, 1, 50, 1, 20)], &[]);
    assert_eq!(
        lines,
        [
            "job_id,submit,start,end,wait,run,estimate,procs,bounded_slowdown,category,killed,guarantee",
            "1,0,0,10,0,10,20,1,1.0,SN,false,",
            "2,1,1,21,0,20,20,1,1.0,SN,true,",
        ]
    );
}

#[test]
fn jobs_format_batsim_writes_batsim_jobs_csv() {
    // Job 2 runs 50 s but asked for 20: killed at its estimate; job 3 needs
    // the whole machine and waits for both.
    let lines = jobs_out_lines(
        &[
            job(1, 0, 10, 1, 20),
            job(2, 1, 50, 2, 20),
            job(3, 2, 5, 4, 10),
        ],
        &["--jobs-format", "batsim"],
    );
    assert_eq!(
        lines,
        [
            "job_id,workload_name,profile,submission_time,requested_number_of_resources,\
             requested_time,success,final_state,starting_time,execution_time,finish_time,\
             waiting_time,turnaround_time,stretch,allocated_resources,consumed_energy,metadata",
            "1,k,10,0,1,20,1,COMPLETED_SUCCESSFULLY,0,10,10,0,10,1.0,0,-1,",
            "2,k,50,1,2,20,0,COMPLETED_WALLTIME_REACHED,1,20,21,0,20,1.0,1-2,-1,",
            "3,k,5,2,4,10,1,COMPLETED_SUCCESSFULLY,21,5,26,19,24,4.8,0-3,-1,",
        ]
    );
    // The layout needs a file to write.
    let alone = run(&["replay", "--first", "5", "--jobs-format", "batsim"]);
    assert_eq!(alone.status.code(), Some(2), "{}", stderr(&alone));
    assert!(stderr(&alone).contains("--jobs-out"), "{}", stderr(&alone));
}

/// CONS+RS from the command line: the same `--seed` writes the same
/// per-job CSV byte for byte, every job has its guarantee and starts by it,
/// and the report counts the search's moves.
#[test]
fn cons_rs_is_reproducible_from_its_seed() {
    let dir = scratch();
    // Jobs that end well before their requested 100 s, so the search runs.
    let mut text = String::from("; MaxProcs: 4\n");
    for i in 0..24u32 {
        text.push_str(&job(
            i + 1,
            u64::from(i) * 5,
            10 + i64::from(i % 7) * 9,
            1 + i64::from(i * 7 % 4),
            100,
        ));
    }
    let trace = write(dir.path(), "rs.swf", &text);
    let t = trace.to_str().expect("utf-8");
    let replay = |seed: &str, name: &str| {
        let jobs = dir.path().join(name);
        let report = json(&[
            "replay",
            t,
            "--policy",
            "cons-rs",
            "--seed",
            seed,
            "--jobs-out",
            jobs.to_str().expect("utf-8"),
            "--format",
            "json",
        ]);
        (report, std::fs::read(&jobs).expect("jobs csv"))
    };
    let (report, a) = replay("5", "a.csv");
    let (again, b) = replay("5", "b.csv");
    assert_eq!(a, b, "same seed, same schedule");
    assert_eq!(deterministic(report.clone()), deterministic(again));
    assert_eq!(report["policy"], "cons-rs");
    assert_eq!(report["cons_rs"]["seed"], 5);
    assert!(report["cons_rs"]["searches"].as_u64() > Some(0), "{report}");
    let text = String::from_utf8(a).expect("utf-8");
    let mut rows = text.lines();
    assert!(rows.next().expect("header").ends_with(",killed,guarantee"));
    let mut n = 0;
    for row in rows {
        let f: Vec<&str> = row.split(',').collect();
        let (start, guarantee): (u32, u32) = (f[2].parse().unwrap(), f[11].parse().unwrap());
        assert!(start <= guarantee, "{row}");
        n += 1;
    }
    assert_eq!(n, 24);
}

/// The data lines of an SWF text, as fields.
fn swf_rows(text: &str) -> Vec<Vec<i64>> {
    text.lines()
        .filter(|l| !l.trim_start().starts_with(';') && !l.trim().is_empty())
        .map(|l| {
            l.split_whitespace()
                .map(|f| f.parse().expect("integer"))
                .collect()
        })
        .collect()
}

#[test]
fn the_schedule_back_as_swf_round_trips() {
    let dir = scratch();
    // Jobs that queue, one killed at its estimate, one line skipped.
    let mut text = String::from("; MaxProcs: 4\n");
    for i in 0..30_u32 {
        let run = 20 + i64::from(i * 37 % 200);
        let requested = if i == 5 { run / 2 } else { run * 2 };
        text.push_str(&job(
            i + 1,
            u64::from(i) * 15,
            run,
            1 + i64::from(i % 4),
            requested,
        ));
    }
    text.push_str(&job(31, 500, 10, 9, 100)); // wider than the machine
    let trace = write(dir.path(), "in.swf", &text);
    let out_swf = dir.path().join("out.swf");
    let plain = dir.path().join("plain.csv");
    let replay = |input: &std::path::Path, out: &std::path::Path, layout: &str| {
        ok(&[
            "replay",
            input.to_str().expect("path"),
            "--policy",
            "conservative",
            "--jobs-out",
            out.to_str().expect("path"),
            "--jobs-format",
            layout,
        ]);
    };
    replay(&trace, &out_swf, "swf");
    replay(&trace, &plain, "plain");
    let written = std::fs::read_to_string(&out_swf).expect("swf");
    let rows = swf_rows(&written);
    let input = swf_rows(&text);
    assert_eq!(rows.len(), 30, "the too-wide job is left out");
    assert!(
        written.contains("1 data lines of the input were not scheduled"),
        "{written}"
    );
    // Fields 3-5 are the schedule's (from the plain per-job rows); the
    // others are the input's.
    let mut reader = csv::Reader::from_path(&plain).expect("plain");
    for ((row, original), job) in rows.iter().zip(&input).zip(reader.records()) {
        let job = job.expect("row");
        let num = |i: usize| job.get(i).expect("field").parse::<i64>().expect("number");
        // plain: job_id, submit, start, end, wait, run, estimate, procs
        assert_eq!(row[0], num(0));
        assert_eq!(row[1], num(1));
        assert_eq!(row[2], num(4), "wait");
        assert_eq!(row[3], num(5), "run time");
        assert_eq!(row[4], num(7), "processors");
        for f in [0, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17] {
            if f > 1 {
                assert_eq!(row[f], original[f], "field {}", f + 1);
            }
        }
    }
    // The killed job's run time is its estimate.
    assert_eq!(rows[5][3], input[5][8]);
    // `info` reads it, and replaying it gives the same schedule.
    let info = ok(&["info", out_swf.to_str().expect("path")]);
    assert!(info.contains("simulated schedule"), "{info}");
    let again = dir.path().join("again.swf");
    replay(&out_swf, &again, "swf");
    assert_eq!(
        swf_rows(&std::fs::read_to_string(&again).expect("again")),
        rows
    );
    // The built-in workload has no lines to rewrite.
    let out = run(&["replay", "--jobs-out", "x.swf", "--jobs-format", "swf"]);
    fails_with(&out, 2, &["--jobs-format", "generate lublin"]);
}
