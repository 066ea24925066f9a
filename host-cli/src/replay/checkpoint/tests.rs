use super::*;
use crate::replay::run::{run_checkpointed, RunOptions};
use crate::replay::{prepare_synthetic, run, RunResult, Shaping, Window};
use crate::workload::synth::SyntheticSpec;
use backfill_core::{Cluster, Kernel, Simulator};

fn synthetic(jobs: u32) -> Prepared {
    let spec = SyntheticSpec {
        jobs,
        ..SyntheticSpec::default()
    };
    prepare_synthetic(&spec, &Window::WHOLE, Shaping::AS_RECORDED).unwrap()
}

const OPTIONS: RunOptions = RunOptions {
    keep_records: true,
    latency: false,
    first_kernel_filled: false,
    reasons: None,
};

/// What a replay's outputs are made of (its wall time apart).
fn outputs(r: &RunResult) -> impl PartialEq + std::fmt::Debug {
    (
        r.metrics,
        r.outcome,
        r.records.clone(),
        r.rejected.clone(),
        r.counters,
        r.queue_capacity,
    )
}

/// The checkpoints of a replay of `prepared` under `policy` every `every`
/// events, written to `path`.
fn checkpointing(
    prepared: &Prepared,
    policy: Policy,
    every: u64,
    path: &Path,
    resume: Option<Resumed>,
) -> Checkpointing {
    Checkpointing {
        path: Some(path.to_path_buf()),
        every,
        fingerprint: Fingerprint::of(prepared, policy, CategoryBounds::DEFAULT, true),
        resume,
    }
}

/// A checkpoint file of a replay stopped part way.
fn a_checkpoint(dir: &Path) -> (Prepared, PathBuf, Vec<u8>) {
    let prepared = synthetic(300);
    let path = dir.join("replay.ckpt");
    let ck = checkpointing(&prepared, Policy::Conservative, 400, &path, None);
    run_checkpointed(
        &prepared,
        Policy::Conservative,
        CategoryBounds::DEFAULT,
        OPTIONS,
        None,
        &ck,
    )
    .unwrap();
    let bytes = std::fs::read(&path).unwrap();
    (prepared, path, bytes)
}

/// A replay resumed from the last checkpoint an earlier one wrote ends
/// exactly as the replay that never stopped, under every policy and
/// several intervals; the file holds the last checkpoint, and it decodes
/// to what was written.
#[test]
fn a_resumed_replay_ends_as_one_never_stopped() {
    let dir = tempfile::tempdir().unwrap();
    let prepared = synthetic(400);
    let bounds = CategoryBounds::DEFAULT;
    for policy in [
        Policy::Easy,
        Policy::Conservative,
        Policy::ConsRs(Default::default()),
    ] {
        let whole = run(&prepared, policy, bounds, true, None).unwrap();
        for every in [13, 500] {
            let path = dir.path().join(format!("{policy}-{every}.ckpt"));
            let writing = checkpointing(&prepared, policy, every, &path, None);
            let written =
                run_checkpointed(&prepared, policy, bounds, OPTIONS, None, &writing).unwrap();
            assert_eq!(outputs(&written), outputs(&whole), "{policy} every {every}");
            let resumed = read(&path, &writing.fingerprint).unwrap();
            let taken = decode(&std::fs::read(&path).unwrap()).unwrap();
            let finished = taken.collected.metrics.overall.count;
            // Every 13 events, the last checkpoint is near the end; 500
            // events are about half of the replay's 800.
            assert!(finished > 0, "{finished}");
            if every == 500 {
                assert!(finished < whole.metrics.overall.count, "{finished}");
            }
            let resuming = checkpointing(&prepared, policy, every, &path, Some(resumed));
            let again =
                run_checkpointed(&prepared, policy, bounds, OPTIONS, None, &resuming).unwrap();
            assert_eq!(outputs(&again), outputs(&whole), "{policy} every {every}");
        }
    }
}

/// A file's every field reads back as written.
#[test]
fn a_file_decodes_to_what_was_encoded() {
    let dir = tempfile::tempdir().unwrap();
    let (prepared, _, bytes) = a_checkpoint(dir.path());
    let decoded = decode(&bytes).unwrap();
    let fingerprint = Fingerprint::of(
        &prepared,
        Policy::Conservative,
        CategoryBounds::DEFAULT,
        true,
    );
    assert_eq!(decoded.fingerprint, fingerprint.text());
    assert_eq!(
        encode(&fingerprint, &decoded.simulator, &decoded.collected),
        bytes
    );
    let records = decoded.collected.records.as_ref().map_or(0, Vec::len);
    assert!(records > 0);
    // The sizes docs/checkpoint-format.md gives, "Replay files of host-cli".
    let expected = HEADER_LEN
        + 8
        + decoded.fingerprint.len()
        + 8
        + decoded.simulator.len()
        + 8
        + 5 * 130
        + 8
        + 5 * decoded.collected.rejected.len()
        + 1
        + 8
        + 55 * records
        + 4;
    assert_eq!(bytes.len(), expected);
    assert_eq!(RECORD_LEN, 55);
}

/// The message `read` refuses `bytes` with, as the replay of the checkpoint
/// in `dir` would.
fn refusal(dir: &Path, prepared: &Prepared, policy: Policy, bytes: &[u8]) -> String {
    let path = dir.join("damaged.ckpt");
    std::fs::write(&path, bytes).unwrap();
    let fingerprint = Fingerprint::of(prepared, policy, CategoryBounds::DEFAULT, true);
    let error = read(&path, &fingerprint).unwrap_err();
    assert!(matches!(error, CliError::Usage(_)), "{error:?}");
    let text = error.to_string();
    assert!(
        text.starts_with(&format!("--resume {}: cannot resume: ", path.display())),
        "{text}"
    );
    text
}

/// `bytes` with the CRC-32 trailer computed again.
fn resealed(mut bytes: Vec<u8>) -> Vec<u8> {
    let body = bytes.len() - 4;
    let crc = crc32(&bytes[..body]);
    bytes[body..].copy_from_slice(&crc.to_le_bytes());
    bytes
}

/// Every damage is refused naming the file and the reason: a flipped bit
/// anywhere, a truncation, trailing bytes, another magic number, a newer
/// layout, a field no writer writes.
#[test]
fn damaged_files_are_refused_with_the_reason() {
    let dir = tempfile::tempdir().unwrap();
    let (prepared, _, bytes) = a_checkpoint(dir.path());
    let policy = Policy::Conservative;
    let why = |b: &[u8]| refusal(dir.path(), &prepared, policy, b);
    for at in (8..bytes.len()).step_by(37).chain([bytes.len() - 1]) {
        let mut flipped = bytes.clone();
        flipped[at] ^= 0x10;
        let text = why(&flipped);
        assert!(
            text.contains("checksum mismatch")
                || text.contains("truncated")
                || text.contains("trailing bytes")
                || text.contains("version"),
            "byte {at}: {text}"
        );
    }
    for len in [0, 5, 12, 40, bytes.len() / 2, bytes.len() - 1] {
        let text = why(&bytes[..len]);
        assert!(
            text.contains("truncated") || text.contains("wrong magic"),
            "{len}: {text}"
        );
    }
    let mut longer = bytes.clone();
    longer.push(0);
    assert!(why(&longer).contains("trailing bytes"));
    let mut foreign = bytes.clone();
    foreign[3] = b'C';
    assert!(why(&foreign).contains("wrong magic number"));
    assert!(why(b"").contains("wrong magic number"));
    let mut newer = bytes.clone();
    newer[8] = 2;
    assert!(why(&resealed(newer)).contains("layout version 2 is newer"));
    let mut reserved = bytes.clone();
    reserved[10] = 1;
    assert!(why(&resealed(reserved)).contains("reserved field"));
    // The core checkpoint inside, damaged and the file resealed: core's
    // own checksum finds it.
    let decoded = decode(&bytes).unwrap();
    let mut inner = decoded.simulator.clone();
    let last = inner.len() - 10;
    inner[last] ^= 1;
    let fingerprint = Fingerprint::of(&prepared, policy, CategoryBounds::DEFAULT, true);
    let rewrapped = encode(&fingerprint, &inner, &decoded.collected);
    let path = dir.path().join("inner.ckpt");
    std::fs::write(&path, &rewrapped).unwrap();
    let resumed = read(&path, &fingerprint).unwrap();
    let ck = checkpointing(&prepared, policy, 400, &dir.path().join("x"), Some(resumed));
    let error = run_checkpointed(
        &prepared,
        policy,
        CategoryBounds::DEFAULT,
        OPTIONS,
        None,
        &ck,
    )
    .unwrap_err();
    assert!(matches!(error, CliError::Usage(_)));
    let text = error.to_string();
    assert!(
        text.contains(
            "inner.ckpt: cannot resume: the replay's state: checkpoint checksum mismatch"
        ),
        "{text}"
    );
}

/// A checkpoint of another replay is refused naming what differs.
#[test]
fn another_replays_checkpoint_is_refused_naming_the_difference() {
    let dir = tempfile::tempdir().unwrap();
    let (prepared, _, bytes) = a_checkpoint(dir.path());
    let text = refusal(dir.path(), &prepared, Policy::Easy, &bytes);
    assert!(
        text.contains("another replay: its policy is `Conservative")
            && text.contains("this replay's is `Easy`"),
        "{text}"
    );
    let other = synthetic(301);
    let text = refusal(dir.path(), &other, Policy::Conservative, &bytes);
    assert!(text.contains("its trace is `300 jobs"), "{text}");
    let fingerprint = Fingerprint::of(
        &prepared,
        Policy::Conservative,
        CategoryBounds::DEFAULT,
        false,
    );
    let path = dir.path().join("records.ckpt");
    std::fs::write(&path, &bytes).unwrap();
    let text = read(&path, &fingerprint).unwrap_err().to_string();
    assert!(text.contains("its per-job records is `kept`"), "{text}");
}

/// A replay checkpoint of a kernel size the replays do not use is refused
/// before anything runs.
#[test]
fn a_checkpoint_of_another_kernel_size_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let (prepared, _, bytes) = a_checkpoint(dir.path());
    let decoded = decode(&bytes).unwrap();
    let cluster = Cluster::single(prepared.machine_procs).unwrap();
    let small: Simulator<64, 64, 256> = Simulator::new(Kernel::new(cluster, Policy::Conservative));
    let mut inner = vec![0; small.checkpoint_len()];
    let len = small.checkpoint(&mut inner).unwrap();
    inner.truncate(len);
    let fingerprint = Fingerprint::of(
        &prepared,
        Policy::Conservative,
        CategoryBounds::DEFAULT,
        true,
    );
    let text = refusal(
        dir.path(),
        &prepared,
        Policy::Conservative,
        &encode(&fingerprint, &inner, &decoded.collected),
    );
    assert!(
        text.contains("from a kernel of 64 waiting jobs, 64 running, 256 steps"),
        "{text}"
    );
}

/// Writing replaces the file whole and leaves no temporary file behind.
#[test]
fn a_checkpoint_replaces_the_last_one_whole() {
    let dir = tempfile::tempdir().unwrap();
    let (_, path, bytes) = a_checkpoint(dir.path());
    std::fs::write(&path, b"an older checkpoint").unwrap();
    let (_, again, rewritten) = a_checkpoint(dir.path());
    assert_eq!(again, path);
    assert_eq!(rewritten, bytes);
    let names: Vec<_> = std::fs::read_dir(dir.path())
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    assert_eq!(names, ["replay.ckpt"]);
}

/// `a_checkpoint` in a folder of its own, decoded.
struct Written {
    dir: tempfile::TempDir,
    prepared: Prepared,
    decoded: Decoded,
}

fn written() -> Written {
    let dir = tempfile::tempdir().unwrap();
    let (prepared, _, bytes) = a_checkpoint(dir.path());
    let decoded = decode(&bytes).unwrap();
    Written {
        dir,
        prepared,
        decoded,
    }
}

impl Written {
    /// The fingerprint of the replay that wrote it.
    fn fingerprint(&self) -> Fingerprint {
        Fingerprint::of(
            &self.prepared,
            Policy::Conservative,
            CategoryBounds::DEFAULT,
            true,
        )
    }

    /// Why that replay refuses the checkpoint written again with
    /// `fingerprint` and `collected`, or its collected sums as they are.
    fn refusal_with(&self, fingerprint: &Fingerprint, collected: Option<&Collected>) -> String {
        let collected = collected.unwrap_or(&self.decoded.collected);
        let file = encode(fingerprint, &self.decoded.simulator, collected);
        refusal(self.dir.path(), &self.prepared, Policy::Conservative, &file)
    }
}

/// A fingerprint whose text reads the same field by field but is not
/// written as this build writes it (a line ending in `\r\n`, fields
/// reordered, a field twice) is refused as damage, on one line; before,
/// the first two were resumed, and the third quoted both texts whole, over
/// several lines.
#[test]
fn a_fingerprint_not_written_as_this_build_writes_it_is_refused() {
    let w = written();
    let ours = w.fingerprint();
    let mut crlf = ours.clone();
    crlf.fields[3].1.push('\r');
    let mut reordered = ours.clone();
    reordered.fields.swap(0, 1);
    let mut repeated = ours.clone();
    repeated.fields.push(ours.fields[0].clone());
    for theirs in [crlf, reordered, repeated] {
        let text = w.refusal_with(&theirs, None);
        assert!(!text.contains('\n'), "{text}");
        assert!(
            text.ends_with(
                "cannot resume: malformed at byte 28: the fingerprint is not one `name: value` \
                 line for each of trace, window, shaping, policy, categories, per-job records, \
                 in this order"
            ),
            "{text}"
        );
    }
}

/// A value of the checkpoint's fingerprint is shown escaped: the refusal
/// stays on one line.
#[test]
fn another_replays_value_is_shown_escaped() {
    let w = written();
    let mut theirs = w.fingerprint();
    theirs.fields[3].1 = "Conser\rvative\u{7}".into();
    let text = w.refusal_with(&theirs, None);
    assert!(
        text.contains(
            "another replay: its policy is `Conser\\rvative\\u{7}`, this replay's is \
             `Conservative`"
        ),
        "{text}"
    );
}

/// The metrics' category bounds and the records flag must say what the
/// fingerprint says: a file that keeps no records for a replay that keeps
/// them would lose the records of the jobs before it.
#[test]
fn metrics_and_records_must_agree_with_the_fingerprint() {
    let w = written();
    let mut unkept = w.decoded.collected.clone();
    unkept.records = None;
    let mut other_bounds = w.decoded.collected.clone();
    other_bounds.metrics.bounds.short_max += 1;
    for (collected, at, why) in [
        (
            unkept,
            w.decoded.records_at,
            "the records flag disagrees with the fingerprint's per-job records",
        ),
        (
            other_bounds,
            w.decoded.bounds_at,
            "the metrics' category bounds are not the fingerprint's",
        ),
    ] {
        let text = w.refusal_with(&w.fingerprint(), Some(&collected));
        assert!(
            text.ends_with(&format!("malformed at byte {at}: {why}")),
            "{text}"
        );
    }
}

/// An absent optional value (first submit, last end, a guarantee) is
/// written as zero; any other value is refused, since the file would not
/// be written back the same (the `resume_file` fuzz target found it).
#[test]
fn an_absent_value_that_is_not_zero_is_refused() {
    let w = written();
    let mut collected = w.decoded.collected.clone();
    collected.metrics.by_category[3] = Accumulator::default();
    let file = encode(&w.fingerprint(), &w.decoded.simulator, &collected);
    assert!(decode(&file).is_ok());
    // The last category's first submit: after the bounds (8), four sums
    // (130 each) and the sum's first 64 bytes, its presence byte.
    let flag = w.decoded.bounds_at + 8 + 4 * 130 + 64;
    assert_eq!(file[flag], 0);
    let mut damaged = file;
    damaged[flag + 2] = 7;
    let text = refusal(
        w.dir.path(),
        &w.prepared,
        Policy::Conservative,
        &resealed(damaged),
    );
    assert!(
        text.ends_with(&format!(
            "malformed at byte {}: an absent optional value is not zero",
            flag + 1
        )),
        "{text}"
    );
}

impl Written {
    /// Why the replay that wrote it refuses to continue from its
    /// checkpoint with `collected` instead of what it had collected: the
    /// file, written by this build's writer (its CRC right), passes
    /// [`check`]; the refusal comes once the simulator is restored.
    fn resume_refusal(&self, collected: &Collected) -> String {
        let fingerprint = self.fingerprint();
        let path = self.dir.path().join("inconsistent.ckpt");
        let file = encode(&fingerprint, &self.decoded.simulator, collected);
        std::fs::write(&path, file).unwrap();
        let resumed = read(&path, &fingerprint).unwrap();
        let policy = Policy::Conservative;
        let out = self.dir.path().join("again.ckpt");
        let ck = checkpointing(&self.prepared, policy, 400, &out, Some(resumed));
        let bounds = CategoryBounds::DEFAULT;
        let error =
            run_checkpointed(&self.prepared, policy, bounds, OPTIONS, None, &ck).unwrap_err();
        assert!(matches!(error, CliError::Usage(_)), "{error:?}");
        assert!(!out.exists(), "a refused resume wrote a checkpoint");
        let text = error.to_string();
        assert!(!text.contains('\n'), "{text}");
        let prefix = format!(
            "--resume {}: cannot resume: the collected results disagree with the replay's \
             state: ",
            path.display()
        );
        text.strip_prefix(&prefix)
            .unwrap_or_else(|| panic!("{text}"))
            .to_owned()
    }
}

/// A change to what a file has collected.
type Edit<'a> = dyn Fn(&mut Collected) + 'a;

/// A file whose collected part does not match the simulator state it
/// restores, resealed with a right CRC, is refused once restored, naming
/// what disagrees: before, one with fewer records than the jobs the state
/// had finished was resumed, and its per-job CSV missed those jobs.
#[test]
fn collected_results_must_agree_with_the_restored_state() {
    let w = written();
    let c = &w.decoded.collected;
    let records = c.records.as_ref().unwrap();
    let finished = records.len();
    assert!(finished > 2, "{finished}");
    assert_eq!(c.metrics.overall.count, finished as u64);
    let edited = |edit: &Edit<'_>| {
        let mut collected = c.clone();
        edit(&mut collected);
        w.resume_refusal(&collected)
    };
    let first = records[0].job.id;
    let cases: [(&Edit<'_>, String); 9] = [
        (
            &|c| {
                c.records.as_mut().unwrap().pop();
            },
            format!(
                "{} per-job records, the state has finished {finished} jobs",
                finished - 1
            ),
        ),
        (
            &|c| c.metrics.overall.count += 1,
            format!(
                "the metrics count {} finished jobs, the state has finished {finished}",
                finished + 1
            ),
        ),
        (
            &|c| c.metrics.overall.killed += 1,
            "the metrics count 1 killed jobs, the state has killed 0".into(),
        ),
        (
            &|c| c.metrics.by_category[2].count += 1,
            format!(
                "the categories' metrics count {} jobs, the overall metrics {finished}",
                finished + 1
            ),
        ),
        (
            &|c| c.rejected.push((0, KernelError::Unrunnable(0))),
            "1 refused jobs listed, the state has refused 0".into(),
        ),
        (
            &|c| {
                let r = c.records.as_mut().unwrap();
                r[1] = r[0];
            },
            format!("per-job record 1: job {first} already has a per-job record"),
        ),
        (
            &|c| c.records.as_mut().unwrap()[0].runtime += 1,
            format!("per-job record 0 (job {first}) is not that job as the trace gives it"),
        ),
        (
            &|c| c.metrics.overall.slowdown += 1.0,
            "the overall metrics are not the sums of the per-job records".into(),
        ),
        (
            &|c| c.metrics.overall.last_end = Some(u32::MAX),
            format!(
                "the metrics' last end {} is after the state's last instant (",
                u32::MAX
            ),
        ),
    ];
    for (edit, why) in cases {
        let text = edited(edit);
        assert!(text.starts_with(&why), "{text}\nnot {why}");
    }
    // A job the state still runs or queues, in place of a finished one:
    // one it has taken (the replay's part's first field, 72 bytes before
    // the inner CRC, docs/checkpoint-format.md) that the file does not
    // list.
    let sim = &w.decoded.simulator;
    let at = sim.len() - 4 - 72;
    let taken = u64::from_le_bytes(sim[at..at + 8].try_into().unwrap());
    let listed: Vec<JobId> = (records.iter().map(|r| r.job.id))
        .chain(c.rejected.iter().map(|&(id, _)| id))
        .collect();
    let held = (0..u32::try_from(taken).unwrap())
        .find(|id| !listed.contains(id))
        .unwrap();
    let text = edited(&|c| c.records.as_mut().unwrap()[0].job.id = held);
    assert_eq!(
        text,
        format!("per-job record 0: job {held} is still queued or running in the state")
    );
}

/// A file without per-job records is held to the counts it has, and still
/// resumes as the replay that never stopped.
#[test]
fn a_file_without_records_is_checked_by_its_counts() {
    let dir = tempfile::tempdir().unwrap();
    let prepared = synthetic(300);
    let policy = Policy::Easy;
    let bounds = CategoryBounds::DEFAULT;
    let path = dir.path().join("counts.ckpt");
    let fingerprint = write_last(&prepared, policy, bounds, false, 300, &path).unwrap();
    let options = RunOptions {
        keep_records: false,
        ..OPTIONS
    };
    let resume = |bytes: &[u8]| {
        std::fs::write(&path, bytes).unwrap();
        let resumed = read(&path, &fingerprint).unwrap();
        let ck = Checkpointing {
            path: None,
            every: u64::MAX,
            fingerprint: fingerprint.clone(),
            resume: Some(resumed),
        };
        run_checkpointed(&prepared, policy, bounds, options, None, &ck)
    };
    let bytes = std::fs::read(&path).unwrap();
    let whole = run(&prepared, policy, bounds, false, None).unwrap();
    assert_eq!(outputs(&resume(&bytes).unwrap()), outputs(&whole));
    let mut decoded = decode(&bytes).unwrap();
    decoded.collected.metrics.overall.count -= 1;
    let fewer = encode(&fingerprint, &decoded.simulator, &decoded.collected);
    let text = resume(&fewer).unwrap_err().to_string();
    assert!(
        text.contains("cannot resume: the collected results disagree with the replay's state: the metrics count"),
        "{text}"
    );
}

/// A state that is not of this replay's jobs (a file whose fingerprint was
/// made to match by hand) is refused once restored, before the replay
/// meets the difference: more jobs taken than the replay has, or other
/// jobs than its first ones.
#[test]
fn a_state_of_other_jobs_is_refused() {
    let w = written();
    let policy = Policy::Conservative;
    let bounds = CategoryBounds::DEFAULT;
    let refusal_for = |prepared: &Prepared| {
        let fingerprint = Fingerprint::of(prepared, policy, bounds, true);
        let path = w.dir.path().join("other-jobs.ckpt");
        let file = encode(&fingerprint, &w.decoded.simulator, &w.decoded.collected);
        std::fs::write(&path, file).unwrap();
        let resumed = read(&path, &fingerprint).unwrap();
        let error = resume_from(prepared, policy, bounds, true, resumed).unwrap_err();
        assert!(matches!(error, CliError::Usage(_)), "{error:?}");
        error.to_string()
    };
    let text = refusal_for(&synthetic(10));
    assert!(
        text.contains("cannot resume: the replay's state is of other jobs: it has taken ")
            && text.ends_with(", this replay has 10"),
        "{text}"
    );
    let mut other = synthetic(300);
    other.jobs[0].runtime += 1;
    let text = refusal_for(&other);
    assert!(
        text.contains("cannot resume: the replay's state is of other jobs: the ")
            && text.contains(" it has taken are not this replay's first "),
        "{text}"
    );
}
