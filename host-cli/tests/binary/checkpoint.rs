//! `replay --checkpoint FILE --checkpoint-every N` and `--resume FILE`: a
//! replay killed at a random moment and resumed from its last checkpoint
//! writes what the replay that never stopped writes; checkpoints of other
//! replays, damaged ones, and ones whose collected results disagree with
//! the state they restore, are refused with exit status 2.

use super::{fails_with, run, scratch, stderr, stdout, BIN};
use backfill_core::rng::SplitMix64;
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Instant, SystemTime, UNIX_EPOCH};

/// The synthetic workload's size: long enough in a debug build (about half
/// a second, two with checkpoints every 200 events) for a kill to land in
/// the middle.
const JOBS: &str = "6000";

/// The replay's arguments, its per-job CSV written to `jobs_out`.
fn replay(jobs_out: &Path) -> Vec<String> {
    synthetic(JOBS, jobs_out, &["--policy", "conservative"])
}

/// The arguments of a replay of `jobs` built-in jobs with a JSON report
/// and its per-job CSV written to `jobs_out`, the `policy` arguments last.
fn synthetic(jobs: &str, jobs_out: &Path, policy: &[&str]) -> Vec<String> {
    let args = [
        "replay",
        "--synthetic-jobs",
        jobs,
        "--format",
        "json",
        "--jobs-out",
        jobs_out.to_str().expect("utf-8"),
    ]
    .map(String::from)
    .to_vec();
    with(args, policy)
}

fn with(mut args: Vec<String>, more: &[&str]) -> Vec<String> {
    args.extend(more.iter().map(|s| (*s).to_owned()));
    args
}

fn strs(args: &[String]) -> Vec<&str> {
    args.iter().map(String::as_str).collect()
}

/// The report without its wall-clock part (`timings`, which differs
/// between any two runs).
fn report(json: &str) -> serde_json::Value {
    let mut v: serde_json::Value = serde_json::from_str(json).expect("a JSON report");
    v.as_object_mut()
        .expect("an object")
        .remove("timings")
        .expect("timings");
    v
}

/// What a finished replay wrote: its report without the wall-clock part
/// and its per-job CSV.
struct Outputs {
    report: serde_json::Value,
    jobs: Vec<u8>,
}

/// Runs the replay `args`, which writes its per-job CSV to `jobs_csv`,
/// expecting success (`what` names the run in a failure); what it wrote.
fn replayed(args: &[String], jobs_csv: &Path, what: &str) -> Outputs {
    let out = run(&strs(args));
    assert_eq!(out.status.code(), Some(0), "{what}: {}", stderr(&out));
    Outputs {
        report: report(&stdout(&out)),
        jobs: std::fs::read(jobs_csv).expect("the per-job CSV"),
    }
}

impl Outputs {
    /// Asserts these are the outputs `whole` holds.
    fn assert_same(&self, whole: &Self, what: &str) {
        assert_eq!(self.report, whole.report, "{what}: the report differs");
        assert!(self.jobs == whole.jobs, "{what}: the per-job CSV differs");
    }
}

/// A seed from the clock, printed with every failure so a run can be
/// repeated (`CHECKPOINT_KILL_SEED`).
fn seed() -> u64 {
    std::env::var("CHECKPOINT_KILL_SEED")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or_else(|| {
            SystemTime::now()
                .duration_since(UNIX_EPOCH)
                .map_or(1, |d| d.as_nanos() as u64)
        })
}

/// Kills a real `host-cli replay` process at random moments, three runs in
/// turn, each resuming from the checkpoint the last one left; the run that
/// then finishes writes the report and per-job CSV of the replay that never
/// stopped, byte for byte (the report's wall-clock times apart). The seed
/// of the moments is printed with a failure; `CHECKPOINT_KILL_SEED` repeats
/// it.
#[test]
fn a_replay_killed_at_random_moments_resumes_to_the_same_outputs() {
    let dir = scratch();
    let whole_csv = dir.path().join("whole.csv");
    let whole = replayed(&replay(&whole_csv), &whole_csv, "the whole replay");
    let ck = dir.path().join("replay.ckpt");
    let ck_s = ck.to_str().expect("utf-8");
    let jobs_csv = dir.path().join("jobs.csv");
    let checkpointed = with(
        replay(&jobs_csv),
        &["--checkpoint", ck_s, "--checkpoint-every", "200"],
    );
    // Taking checkpoints changes nothing; it also gives the run's length.
    let started = Instant::now();
    let checkpointing = replayed(&checkpointed, &jobs_csv, "with checkpoints");
    let length = started.elapsed();
    checkpointing.assert_same(&whole, "with checkpoints");
    std::fs::remove_file(&ck).expect("remove the checkpoint");
    std::fs::remove_file(&jobs_csv).expect("remove jobs.csv");

    let seed = seed();
    let mut rng = SplitMix64::new(seed);
    let mut kills = 0;
    let mut resumed_from = 0;
    for _ in 0..3 {
        let args = if ck.exists() {
            resumed_from += 1;
            with(checkpointed.clone(), &["--resume", ck_s])
        } else {
            checkpointed.clone()
        };
        let mut child = Command::new(BIN)
            .args(&args)
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("spawn host-cli");
        // Somewhere in the first half of an uninterrupted run's length (a
        // resumed run is shorter and may finish first: it then wrote the
        // outputs, and the next run resumes from its last checkpoint).
        let fraction = 0.05 + 0.4 * (rng.next_u64() % 1000) as f64 / 1000.0;
        std::thread::sleep(length.mul_f64(fraction));
        let _ = child.kill();
        let status = child.wait().expect("wait");
        if !status.success() {
            kills += 1;
        }
    }
    assert!(kills >= 1, "seed {seed}: every run ended before its kill");
    assert!(ck.exists(), "seed {seed}: no checkpoint after the kills");
    let what = format!("seed {seed}");
    replayed(&with(checkpointed, &["--resume", ck_s]), &jobs_csv, &what).assert_same(&whole, &what);
    assert!(resumed_from >= 1, "seed {seed}: no run resumed");
}

/// The arguments of a checkpointed replay (without `--checkpoint-every`)
/// and the bytes of a checkpoint three quarters through it (every 9,000
/// of its 12,000 events).
fn a_checkpoint(dir: &Path) -> (Vec<String>, Vec<u8>) {
    let ck = dir.join("replay.ckpt");
    let args = with(
        replay(&dir.join("jobs.csv")),
        &["--checkpoint", ck.to_str().expect("utf-8")],
    );
    let first = with(args.clone(), &["--checkpoint-every", "9000"]);
    let out = run(&strs(&first));
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    (args, std::fs::read(&ck).expect("a checkpoint"))
}

/// Damaged checkpoints and those of other replays are refused with exit
/// status 2, one line naming the file and the reason, and nothing written.
#[test]
fn foreign_and_damaged_checkpoints_are_refused() {
    let dir = scratch();
    let (args, bytes) = a_checkpoint(dir.path());
    let bad = dir.path().join("bad.ckpt");
    let bad_s = bad.to_str().expect("utf-8");
    let resume = |bytes: &[u8], extra: &[&str]| {
        std::fs::write(&bad, bytes).expect("write");
        let mut args = with(args.clone(), &["--resume", bad_s]);
        for pair in extra.chunks(2) {
            match args.iter().position(|a| a == pair[0]) {
                Some(at) => args[at + 1] = pair[1].to_owned(),
                None => args.extend(pair.iter().map(|s| (*s).to_owned())),
            }
        }
        let at = args
            .iter()
            .position(|a| a == "--checkpoint")
            .expect("--checkpoint");
        args.drain(at..at + 2);
        run(&strs(&args))
    };
    let mut flipped = bytes.clone();
    let middle = flipped.len() / 2;
    flipped[middle] ^= 0x04;
    fails_with(
        &resume(&flipped, &[]),
        2,
        &[bad_s, "cannot resume", "checksum mismatch"],
    );
    fails_with(
        &resume(&bytes[..bytes.len() - 100], &[]),
        2,
        &[bad_s, "truncated"],
    );
    fails_with(&resume(b"hello", &[]), 2, &[bad_s, "wrong magic number"]);
    fails_with(
        &resume(&bytes, &["--policy", "easy"]),
        2,
        &[bad_s, "another replay: its policy is `Conservative"],
    );
    fails_with(
        &resume(&bytes, &["--seed", "2"]),
        2,
        &[bad_s, "another replay: its trace is"],
    );
    fails_with(
        &resume(&bytes, &["--load", "1.2"]),
        2,
        &[bad_s, "another replay: its trace is"],
    );
    // The last per-job record left out, the record count, the length
    // and the CRC made right: the file's checks accept it, the restored
    // state (one more job finished) does not.
    fails_with(
        &resume(&without_last_record(&bytes), &[]),
        2,
        &[
            bad_s,
            "cannot resume: the collected results disagree with the replay's state: ",
            "per-job records, the state has finished ",
        ],
    );
    let missing = dir.path().join("missing.ckpt");
    let out = run(&strs(&with(
        replay(&dir.path().join("x.csv")),
        &["--resume", missing.to_str().expect("utf-8")],
    )));
    fails_with(&out, 2, &["missing.ckpt: cannot resume"]);
    assert!(!dir.path().join("x.csv").exists());
}

/// `file` (a checkpoint with per-job records) without its last record,
/// resealed: the record count one less, the length and the CRC-32 made
/// right (layout in docs/checkpoint-format.md, "Replay files of
/// host-cli": the records, 55 bytes each, and their count end the file
/// before its CRC).
fn without_last_record(file: &[u8]) -> Vec<u8> {
    let body = &file[..file.len() - 4];
    let count_at = |n: usize| body.len().checked_sub(55 * n + 8);
    let n = (1..=body.len() / 55)
        .find(|&n| {
            count_at(n)
                .is_some_and(|at| body[at - 1] == 1 && body[at..at + 8] == (n as u64).to_le_bytes())
        })
        .expect("per-job records");
    let at = count_at(n).expect("their count");
    let mut out = body[..body.len() - 55].to_vec();
    out[at..at + 8].copy_from_slice(&(n as u64 - 1).to_le_bytes());
    let len = out.len() as u64 + 4;
    out[12..20].copy_from_slice(&len.to_le_bytes());
    let crc = backfill_core::checkpoint::crc32(&out);
    out.extend_from_slice(&crc.to_le_bytes());
    out
}

/// Options that cannot go with checkpoints are refused before anything
/// runs, naming them.
#[test]
fn checkpoint_options_are_checked() {
    let dir = scratch();
    let ck = dir.path().join("c.ckpt");
    let ck_s = ck.to_str().expect("utf-8");
    let base = ["replay", "--synthetic-jobs", "50"];
    let out = run(&[
        &base[..],
        &["--checkpoint", ck_s, "--checkpoint-every", "0"],
    ]
    .concat());
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    assert!(
        stderr(&out).contains("--checkpoint-every"),
        "{}",
        stderr(&out)
    );
    let out = run(&[&base[..], &["--checkpoint-every", "5"]].concat());
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    assert!(
        stderr(&out).contains("--checkpoint <FILE>"),
        "{}",
        stderr(&out)
    );
    let out = run(&[
        &base[..],
        &["--checkpoint", ck_s, "--checkpoint-every", "5", "--latency"],
    ]
    .concat());
    fails_with(&out, 2, &["--latency cannot be used with --checkpoint"]);
    assert!(!ck.exists());
    let trace = super::small_trace(dir.path());
    let trace_s = trace.to_str().expect("utf-8");
    let before = std::fs::read(&trace).expect("trace");
    let out = run(&[
        "replay",
        trace_s,
        "--checkpoint",
        trace_s,
        "--checkpoint-every",
        "1",
    ]);
    fails_with(&out, 2, &["--checkpoint", "is the input trace"]);
    assert_eq!(std::fs::read(&trace).expect("trace"), before);
    let jobs = dir.path().join("jobs.csv");
    let jobs_s = jobs.to_str().expect("utf-8");
    let out = run(&[
        "replay",
        trace_s,
        "--jobs-out",
        jobs_s,
        "--checkpoint",
        jobs_s,
        "--checkpoint-every",
        "1",
    ]);
    fails_with(&out, 2, &["--checkpoint", "--jobs-out writes to it"]);
    let nowhere = dir.path().join("no/such/dir/c.ckpt");
    let out = run(&[
        "replay",
        trace_s,
        "--checkpoint",
        nowhere.to_str().expect("utf-8"),
        "--checkpoint-every",
        "1",
    ]);
    fails_with(&out, 2, &["--checkpoint", "its directory does not exist"]);
    assert_eq!(super::listing(dir.path()), ["small.swf"]);
}

/// The option variants of Conservative and CONS+RS (`--compression
/// rebuild`, `--flavour alea`) checkpoint and resume to the outputs of the
/// replay that never stopped; their checkpoints are another replay to the
/// plain policy.
#[test]
fn option_variants_resume_exactly() {
    let dir = scratch();
    let variants: [(&[&str], &str); 2] = [
        (
            &["--policy", "conservative", "--compression", "rebuild"],
            "ConservativeRebuild",
        ),
        (
            &[
                "--policy",
                "cons-rs",
                "--flavour",
                "alea",
                "--rs-iterations",
                "2",
            ],
            "ConsRsAlea",
        ),
    ];
    for (variant, debug_name) in variants {
        let args = |csv: &Path| synthetic("1500", csv, variant);
        let whole_csv = dir.path().join("whole.csv");
        let whole = replayed(&args(&whole_csv), &whole_csv, debug_name);
        // 1,500 arrivals and as many ends: one checkpoint, two thirds in.
        let ck = dir.path().join("variant.ckpt");
        let ck_s = ck.to_str().expect("utf-8");
        let jobs_csv = dir.path().join("jobs.csv");
        let checkpointed = with(
            args(&jobs_csv),
            &["--checkpoint", ck_s, "--checkpoint-every", "2000"],
        );
        replayed(&checkpointed, &jobs_csv, debug_name);
        std::fs::remove_file(&jobs_csv).expect("remove jobs.csv");
        replayed(
            &with(checkpointed, &["--resume", ck_s]),
            &jobs_csv,
            debug_name,
        )
        .assert_same(&whole, debug_name);
        // The same replay under the plain policy (`--policy` alone).
        let mut plain = args(&jobs_csv);
        plain.truncate(plain.len() - (variant.len() - 2));
        let plain = with(
            plain,
            &[
                "--checkpoint",
                ck_s,
                "--checkpoint-every",
                "2000",
                "--resume",
                ck_s,
            ],
        );
        let out = run(&strs(&plain));
        let reason = format!("another replay: its policy is `{debug_name}");
        fails_with(&out, 2, &[ck_s, &reason]);
        std::fs::remove_file(&ck).expect("remove the checkpoint");
    }
}
