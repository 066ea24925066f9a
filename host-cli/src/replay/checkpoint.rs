//! `replay --checkpoint FILE --checkpoint-every N` and `replay --resume
//! FILE`: a replay's checkpoint file, written atomically, and read back
//! with every check before a replay continues from it.
//!
//! A file is a host header, the replay it belongs to (its fingerprint: the
//! trace's jobs, the window, the estimates and load, the policy with every
//! parameter, the category bounds, whether per-job records are kept), the
//! core simulator's checkpoint (`docs/checkpoint-format.md`), what the
//! host has collected so far (the metrics' sums, the refused jobs, the
//! per-job records when kept) and a CRC-32 over all of it. The layout is
//! in `docs/checkpoint-format.md`, "Replay files of host-cli".
//!
//! A checkpoint is taken after the instant at which at least N events (job
//! arrivals, refusals and completions) have happened since the last one,
//! counted in the replay, not in wall time, so the same command writes the
//! same checkpoints.
//!
//! A file is resumed only by the replay whose fingerprint it holds, byte
//! for byte: what [`check`] accepts is written back the same by
//! [`Resumed::file`]. Every refusal is one line, `--resume FILE: cannot
//! resume: REASON`, with what the file holds shown escaped. Once the
//! simulator is restored, what the file has collected must agree with its
//! state ([`agrees`]): a file resealed by hand with fewer per-job records
//! than the jobs finished would otherwise lose those jobs. Public for the
//! tests and the `resume_file` fuzz target, which also write real files
//! with [`write_last`] and continue from them with [`resume_from`].

use super::kernels::{
    DEEP_QUEUE_CAPACITY, DEEP_RUNNING_CAPACITY, DEEP_STEP_CAPACITY, LARGE_QUEUE_CAPACITY,
    LARGE_RUNNING_CAPACITY, LARGE_STEP_CAPACITY, MEDIUM_QUEUE_CAPACITY, MEDIUM_RUNNING_CAPACITY,
    MEDIUM_STEP_CAPACITY, QUEUE_CAPACITY, RUNNING_CAPACITY, STEP_CAPACITY,
};
use super::prepare::Prepared;
use super::run::{run_checkpointed, RunOptions, RunResult};
use crate::error::CliError;
use backfill_core::checkpoint::{crc32, read_header, Capacities};
use backfill_core::metrics::{Spread, Spreads};
use backfill_core::{
    Accumulator, Category, CategoryBounds, Job, JobId, JobRecord, KernelError, LicenseSet, Metrics,
    Outcome, Policy, Progress, SimJob, Slot,
};
use std::io::Write;
use std::path::{Path, PathBuf};

/// The first bytes of a replay checkpoint file (`\x89BFR\r\n\x1a\n`: as
/// core's magic, with `R` for replay).
const MAGIC: [u8; 8] = [0x89, b'B', b'F', b'R', b'\r', b'\n', 0x1A, b'\n'];

/// The file layout's version (the core checkpoint inside has its own).
const VERSION: u16 = 1;

/// Bytes of the header: magic number, layout version, a reserved zero,
/// the file's length.
const HEADER_LEN: usize = 8 + 2 + 2 + 8;

/// Bytes of one [`JobRecord`] in the file.
const RECORD_LEN: usize = 32 + 4 + 9 + 4 + 1 + 5;

/// What a replay's checkpoints are: where they go, how often, and which
/// replay they belong to.
#[derive(Debug)]
pub(crate) struct Checkpointing {
    /// The file written (`--checkpoint`), when checkpoints are taken.
    pub(crate) path: Option<PathBuf>,
    /// Events between two checkpoints (`--checkpoint-every`).
    pub(crate) every: u64,
    /// The replay's fingerprint.
    pub(crate) fingerprint: Fingerprint,
    /// The checkpoint to continue from (`--resume`), read and checked.
    pub(crate) resume: Option<Resumed>,
}

/// What identifies a replay: named fields, compared one by one, so that a
/// refusal says which one differs; with the category bounds and whether
/// per-job records are kept, which the file's metrics and records flag
/// must agree with.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Fingerprint {
    fields: Vec<(&'static str, String)>,
    bounds: CategoryBounds,
    records: bool,
}

impl Fingerprint {
    /// The fingerprint of replaying `prepared` under `policy` (its
    /// parameters resolved) with `bounds`, keeping per-job records or not.
    #[must_use]
    pub fn of(prepared: &Prepared, policy: Policy, bounds: CategoryBounds, records: bool) -> Self {
        let digest = prepared
            .jobs
            .iter()
            .fold(Progress::EMPTY_DIGEST, Progress::digest_of);
        let window = &prepared.window;
        let fields = vec![
            (
                "trace",
                format!("{} jobs, digest {digest:016x}", prepared.jobs.len()),
            ),
            (
                "window",
                format!(
                    "skip {}, first {}, {} processors",
                    window.skip,
                    window.first.map_or_else(|| "all".into(), |n| n.to_string()),
                    prepared.machine_procs
                ),
            ),
            (
                "shaping",
                format!(
                    "estimates {:?}, load {}",
                    prepared.shaping.estimates, prepared.shaping.load
                ),
            ),
            ("policy", format!("{policy:?}")),
            (
                "categories",
                format!(
                    "short up to {} s, narrow up to {} processors",
                    bounds.short_max, bounds.narrow_max
                ),
            ),
            (
                "per-job records",
                if records { "kept" } else { "not kept" }.into(),
            ),
        ];
        Self {
            fields,
            bounds,
            records,
        }
    }

    /// The fingerprint as the file holds it: one `name: value` line per
    /// field, in order.
    #[must_use]
    pub fn text(&self) -> String {
        self.fields
            .iter()
            .map(|(k, v)| format!("{k}: {v}\n"))
            .collect()
    }

    /// Why a checkpoint whose fingerprint is `text` is not of this replay
    /// (one line), or `None` when `text` is this replay's fingerprint
    /// exactly. The first field whose value differs is named with both
    /// values, the checkpoint's escaped (it may hold any character); a
    /// text with every field's value but not as written here (fields
    /// reordered, repeated or unknown, other line ends) is damage.
    fn differs_from(&self, text: &str) -> Option<String> {
        if text == self.text() {
            return None;
        }
        let theirs: Vec<(&str, &str)> = text
            .lines()
            .map(|l| l.split_once(": ").unwrap_or((l, "")))
            .collect();
        for (name, ours) in &self.fields {
            let found = theirs.iter().find(|(k, _)| k == name).map(|(_, v)| *v);
            if found != Some(ours.as_str()) {
                let found = found.map_or_else(|| "absent".into(), |v| v.escape_debug().to_string());
                return Some(format!(
                    "the checkpoint is of another replay: its {name} is `{found}`, this \
                     replay's is `{ours}` (resume with the command that wrote it)"
                ));
            }
        }
        let names: Vec<&str> = self.fields.iter().map(|(k, _)| *k).collect();
        Some(Reader::malformed_at(
            HEADER_LEN + 8,
            &format!(
                "the fingerprint is not one `name: value` line for each of {}, in this order",
                names.join(", ")
            ),
        ))
    }
}

/// A checkpoint read back: the core simulator's bytes, which kernel size
/// took them, and what the host had collected.
#[derive(Debug)]
pub struct Resumed {
    /// The file read.
    pub path: PathBuf,
    /// The core simulator's checkpoint.
    pub simulator: Vec<u8>,
    /// The capacities in its header.
    pub capacities: Capacities,
    /// What the host had collected.
    pub collected: Collected,
}

impl Resumed {
    /// The file this checkpoint is written as for the replay of
    /// `fingerprint`: for the fingerprint it was accepted under, the bytes
    /// it was read from.
    #[must_use]
    pub fn file(&self, fingerprint: &Fingerprint) -> Vec<u8> {
        encode(fingerprint, &self.simulator, &self.collected)
    }
}

/// What the host collects during a replay, beside the simulator.
#[derive(Clone, Debug, PartialEq)]
pub struct Collected {
    /// The metrics' sums.
    pub metrics: Metrics,
    /// The jobs the kernel refused, with its reason.
    pub rejected: Vec<(JobId, KernelError)>,
    /// Per-job records in completion order, when kept.
    pub records: Option<Vec<JobRecord>>,
}

/// The capacities of the replay's kernel sizes, smallest first, as a
/// checkpoint's header gives them (one machine, no license pool).
pub(crate) const SIZES: [(usize, usize, usize); 4] = [
    (QUEUE_CAPACITY, RUNNING_CAPACITY, STEP_CAPACITY),
    (
        DEEP_QUEUE_CAPACITY,
        DEEP_RUNNING_CAPACITY,
        DEEP_STEP_CAPACITY,
    ),
    (
        MEDIUM_QUEUE_CAPACITY,
        MEDIUM_RUNNING_CAPACITY,
        MEDIUM_STEP_CAPACITY,
    ),
    (
        LARGE_QUEUE_CAPACITY,
        LARGE_RUNNING_CAPACITY,
        LARGE_STEP_CAPACITY,
    ),
];

/// Whether `c` are the capacities of a kernel of `q` waiting jobs, `r`
/// running and `b` steps, for one machine.
pub(crate) fn is_size(c: &Capacities, (q, r, b): (usize, usize, usize)) -> bool {
    let eq = |a: u32, b: usize| usize::try_from(a).is_ok_and(|a| a == b);
    eq(c.queued, q) && eq(c.running, r) && eq(c.steps, b) && c.machines == 1 && c.pools == 0
}

impl Checkpointing {
    /// Writes a checkpoint of the simulator bytes `simulator` and
    /// `collected` to [`Checkpointing::path`]: into a temporary file
    /// beside it, flushed to disk, then renamed over it, so the path holds
    /// the previous checkpoint or this one, never part of one.
    ///
    /// # Errors
    /// [`CliError::Io`] naming the file.
    pub(crate) fn write(&self, simulator: &[u8], collected: &Collected) -> Result<(), CliError> {
        let Some(path) = &self.path else {
            return Ok(());
        };
        let bytes = encode(&self.fingerprint, simulator, collected);
        let io = |e: std::io::Error| CliError::Io(path.display().to_string(), e);
        let dir = match path.parent() {
            Some(d) if !d.as_os_str().is_empty() => d,
            _ => Path::new("."),
        };
        let mut file = tempfile::NamedTempFile::new_in(dir).map_err(io)?;
        file.write_all(&bytes).map_err(io)?;
        file.as_file().sync_all().map_err(io)?;
        file.persist(path).map_err(|e| io(e.error))?;
        Ok(())
    }
}

/// Replays `prepared` under `policy` with `bounds`, keeping per-job records
/// or not, and writes a checkpoint to `path` every `every` events, as
/// `host-cli replay --checkpoint PATH --checkpoint-every EVERY` does: `path`
/// then holds the last one (nothing, when the replay has fewer events).
/// Returns the replay's fingerprint.
///
/// # Errors
/// As the replay: [`CliError::Io`] when a checkpoint cannot be written.
pub fn write_last(
    prepared: &Prepared,
    policy: Policy,
    bounds: CategoryBounds,
    records: bool,
    every: u64,
    path: &Path,
) -> Result<Fingerprint, CliError> {
    let checkpointing = Checkpointing {
        path: Some(path.to_path_buf()),
        every,
        fingerprint: Fingerprint::of(prepared, policy, bounds, records),
        resume: None,
    };
    let options = RunOptions {
        keep_records: records,
        latency: false,
        first_kernel_filled: false,
        reasons: None,
    };
    run_checkpointed(prepared, policy, bounds, options, None, &checkpointing)?;
    Ok(checkpointing.fingerprint)
}

/// Continues the replay of `prepared` under `policy` with `bounds`,
/// keeping per-job records or not, from `resumed` (a file [`check`]
/// accepted for that replay's fingerprint), writing no checkpoint, as
/// `host-cli replay --resume FILE` does.
///
/// # Errors
/// As the replay: [`CliError::Usage`] (exit status 2) when the simulator
/// refuses the file's state or what the file has collected disagrees with
/// it ([`agrees`]).
pub fn resume_from(
    prepared: &Prepared,
    policy: Policy,
    bounds: CategoryBounds,
    records: bool,
    resumed: Resumed,
) -> Result<RunResult, CliError> {
    let checkpointing = Checkpointing {
        path: None,
        every: u64::MAX,
        fingerprint: Fingerprint::of(prepared, policy, bounds, records),
        resume: Some(resumed),
    };
    let options = RunOptions {
        keep_records: records,
        latency: false,
        first_kernel_filled: false,
        reasons: None,
    };
    run_checkpointed(prepared, policy, bounds, options, None, &checkpointing)
}

/// Reads the checkpoint at `path` for the replay of `fingerprint`.
///
/// # Errors
/// [`CliError::Usage`] (exit status 2) naming the file and why: it cannot
/// be read, or [`check`] refuses it.
pub(crate) fn read(path: &Path, fingerprint: &Fingerprint) -> Result<Resumed, CliError> {
    let bytes = std::fs::read(path).map_err(|e| refusal(path, &e.to_string()))?;
    check(path, &bytes, fingerprint)
}

/// The refusal of `--resume path`: one line.
pub(crate) fn refusal(path: &Path, why: &str) -> CliError {
    CliError::Usage(format!("--resume {}: cannot resume: {why}", path.display()))
}

/// Checks `bytes`, the checkpoint file at `path`, for the replay of
/// `fingerprint`, every check of `--resume` before the replay's thread
/// restores the simulator.
///
/// # Errors
/// [`CliError::Usage`] (exit status 2), one line naming the file and why:
/// it is not a replay checkpoint, is of a newer layout, is damaged
/// (truncated, a checksum mismatch, a field no writer writes, metrics or
/// records that disagree with the fingerprint), belongs to another replay
/// (naming the field that differs) or comes from a kernel size this
/// build's replays do not use.
pub fn check(path: &Path, bytes: &[u8], fingerprint: &Fingerprint) -> Result<Resumed, CliError> {
    let refuse = |why: String| refusal(path, &why);
    let decoded = decode(bytes).map_err(refuse)?;
    if let Some(why) = fingerprint.differs_from(&decoded.fingerprint) {
        return Err(refuse(why));
    }
    if decoded.collected.metrics.bounds != fingerprint.bounds {
        return Err(refuse(Reader::malformed_at(
            decoded.bounds_at,
            "the metrics' category bounds are not the fingerprint's",
        )));
    }
    if decoded.collected.records.is_some() != fingerprint.records {
        return Err(refuse(Reader::malformed_at(
            decoded.records_at,
            "the records flag disagrees with the fingerprint's per-job records",
        )));
    }
    let header =
        read_header(&decoded.simulator).map_err(|e| refuse(format!("the replay's state: {e}")))?;
    let c = header.capacities;
    if !SIZES.iter().any(|&size| is_size(&c, size)) {
        return Err(refuse(format!(
            "the replay's state comes from a kernel of {} waiting jobs, {} running, {} steps, \
             {} machines and {} license pools, not one of the sizes replays use",
            c.queued, c.running, c.steps, c.machines, c.pools
        )));
    }
    Ok(Resumed {
        path: path.to_path_buf(),
        simulator: decoded.simulator,
        capacities: c,
        collected: decoded.collected,
    })
}

/// What a resumed replay needs to know of its simulator once restored,
/// to check what the file has collected against it: where the replay
/// stands, and the jobs submitted but not finished (queued or running).
pub(crate) struct Restored<'a> {
    /// The restored simulator's progress.
    pub(crate) progress: &'a Progress,
    /// The ids of its queued and running jobs.
    pub(crate) unfinished: Vec<JobId>,
}

/// Checks that the state `resumed`'s simulator was restored to is of the
/// replay of `jobs` (index = kernel id: it has taken no more jobs than
/// there are, and those it has taken are the first of them, by their
/// digest), and that what the file has collected agrees with that state,
/// so that a resumed replay loses no job and counts none twice: one
/// refused job listed for each the state refused, each a job it has taken
/// and listed once; the metrics count the jobs it finished and killed,
/// the categories' counts add up to the overall count, the first submit
/// and the last end are within what it has taken and done; and, when
/// per-job records are kept, one for each job it finished (each listed
/// once, in completion order, the job as the trace gives it), the metrics
/// being exactly the sums of those records. Every check is a pass over
/// what the file holds.
///
/// # Errors
/// [`CliError::Usage`] (exit status 2), one line: `--resume FILE: cannot
/// resume: the replay's state is of other jobs: WHAT` (a file whose
/// fingerprint was made by hand to match, say) or `--resume FILE: cannot
/// resume: the collected results disagree with the replay's state: WHAT`.
pub(crate) fn agrees(
    resumed: &Resumed,
    restored: &Restored<'_>,
    jobs: &[SimJob],
) -> Result<(), CliError> {
    let progress = restored.progress;
    let taken = usize::try_from(progress.taken).ok();
    let Some(taken_jobs) = taken.and_then(|t| jobs.get(..t)) else {
        return Err(refusal(
            &resumed.path,
            &format!(
                "the replay's state is of other jobs: it has taken {}, this replay has {}",
                progress.taken,
                jobs.len()
            ),
        ));
    };
    let digest = taken_jobs
        .iter()
        .fold(Progress::EMPTY_DIGEST, Progress::digest_of);
    if digest != progress.digest {
        return Err(refusal(
            &resumed.path,
            &format!(
                "the replay's state is of other jobs: the {} it has taken are not this \
                 replay's first {} (digest {:016x}, not {digest:016x})",
                progress.taken, progress.taken, progress.digest
            ),
        ));
    }
    disagreement(&resumed.collected, restored, jobs).map_or(Ok(()), |why| {
        Err(refusal(
            &resumed.path,
            &format!("the collected results disagree with the replay's state: {why}"),
        ))
    })
}

/// What a job is to the restored state, for [`disagreement`].
#[derive(Clone, Copy, PartialEq, Eq)]
enum Seen {
    /// Not taken yet, or taken and not yet met in the file.
    Open,
    /// Queued or running.
    Unfinished,
    /// Listed as refused.
    Refused,
    /// Has a per-job record.
    Finished,
}

/// Why `collected` disagrees with `restored` (see [`agrees`]), or `None`;
/// the state is of `jobs`.
fn disagreement(collected: &Collected, restored: &Restored<'_>, jobs: &[SimJob]) -> Option<String> {
    let progress = restored.progress;
    let o = &progress.outcome;
    let m = &collected.metrics;
    let rejected = collected.rejected.len() as u64;
    if rejected != o.rejected {
        return Some(format!(
            "{rejected} refused jobs listed, the state has refused {}",
            o.rejected
        ));
    }
    if m.overall.count != o.finished {
        return Some(format!(
            "the metrics count {} finished jobs, the state has finished {}",
            m.overall.count, o.finished
        ));
    }
    if m.overall.killed != o.killed {
        return Some(format!(
            "the metrics count {} killed jobs, the state has killed {}",
            m.overall.killed, o.killed
        ));
    }
    let in_categories = m
        .by_category
        .iter()
        .fold(0u64, |n, acc| n.saturating_add(acc.count));
    if in_categories != m.overall.count {
        return Some(format!(
            "the categories' metrics count {in_categories} jobs, the overall metrics {}",
            m.overall.count
        ));
    }
    let (first, last) = (m.overall.first_submit, m.overall.last_end);
    if first.is_some() != (o.finished > 0) || last.is_some() != (o.finished > 0) {
        return Some(format!(
            "the metrics' first submit and last end are {} with {} finished jobs",
            if first.is_some() { "set" } else { "absent" },
            o.finished
        ));
    }
    if let Some(first) = first.filter(|&t| t > progress.last_submit) {
        return Some(format!(
            "the metrics' first submit {first} is after the last job taken ({})",
            progress.last_submit
        ));
    }
    if let Some(last) = last.filter(|&t| t > o.last_time) {
        return Some(format!(
            "the metrics' last end {last} is after the state's last instant ({})",
            o.last_time
        ));
    }
    // Every job the state has taken is queued, running, refused or
    // finished, once: mark each as the file and the state say.
    let taken = usize::try_from(progress.taken).map_or(jobs.len(), |t| t.min(jobs.len()));
    let mut seen = vec![Seen::Open; taken];
    let mut mark = |id: JobId, as_: Seen| -> Result<(), Seen> {
        match seen.get_mut(id as usize) {
            Some(s) if *s == Seen::Open => {
                *s = as_;
                Ok(())
            }
            Some(s) => Err(*s),
            None => Err(Seen::Open),
        }
    };
    for &id in &restored.unfinished {
        if mark(id, Seen::Unfinished).is_err() {
            return Some(format!(
                "the state holds job {id} twice or past the jobs taken"
            ));
        }
    }
    let why = |id: JobId, was: Seen| match was {
        Seen::Open => format!("job {id} is not one of the {taken} jobs the state has taken"),
        Seen::Unfinished => format!("job {id} is still queued or running in the state"),
        Seen::Refused => format!("job {id} is listed as refused"),
        Seen::Finished => format!("job {id} already has a per-job record"),
    };
    for &(id, _) in &collected.rejected {
        if let Err(was) = mark(id, Seen::Refused) {
            return Some(format!("a refused job: {}", why(id, was)));
        }
    }
    let Some(records) = &collected.records else {
        return None;
    };
    let kept = records.len() as u64;
    if kept != o.finished {
        return Some(format!(
            "{kept} per-job records, the state has finished {} jobs",
            o.finished
        ));
    }
    let mut sums = Metrics::new(m.bounds);
    let mut end = 0;
    for (k, r) in records.iter().enumerate() {
        if let Err(was) = mark(r.job.id, Seen::Finished) {
            return Some(format!("per-job record {k}: {}", why(r.job.id, was)));
        }
        let traced = jobs.get(r.job.id as usize).map(|j| {
            (
                Job {
                    tag: j.runtime,
                    ..j.job
                },
                j.runtime,
            )
        });
        if traced != Some((r.job, r.runtime)) {
            return Some(format!(
                "per-job record {k} (job {}) is not that job as the trace gives it",
                r.job.id
            ));
        }
        if r.end < end {
            return Some(format!(
                "per-job record {k} (job {}) ends at {}, before the one before it ({end})",
                r.job.id, r.end
            ));
        }
        end = r.end;
        sums.add(r);
    }
    let bits = |acc: &Accumulator| {
        let mut w = Vec::with_capacity(130);
        put_accumulator(&mut w, acc);
        w
    };
    let names = std::iter::once("overall").chain(Category::ALL.map(Category::label));
    let ours = std::iter::once(&sums.overall).chain(&sums.by_category);
    let theirs = std::iter::once(&m.overall).chain(&m.by_category);
    names
        .zip(ours.zip(theirs))
        .find(|(_, (a, b))| bits(a) != bits(b))
        .map(|(name, _)| format!("the {name} metrics are not the sums of the per-job records"))
}

/// A file's parts, its checksum checked, with where the category bounds
/// and the records flag are (the checks against the fingerprint name
/// them).
struct Decoded {
    fingerprint: String,
    simulator: Vec<u8>,
    collected: Collected,
    bounds_at: usize,
    records_at: usize,
}

/// The file's bytes.
fn encode(fingerprint: &Fingerprint, simulator: &[u8], collected: &Collected) -> Vec<u8> {
    let mut w = Vec::with_capacity(
        simulator.len() + 1024 + collected.records.as_ref().map_or(0, Vec::len) * RECORD_LEN,
    );
    w.extend_from_slice(&MAGIC);
    w.extend_from_slice(&VERSION.to_le_bytes());
    w.extend_from_slice(&0u16.to_le_bytes());
    // The whole file's length, set below.
    w.extend_from_slice(&0u64.to_le_bytes());
    let text = fingerprint.text();
    put_bytes(&mut w, text.as_bytes());
    put_bytes(&mut w, simulator);
    let m = &collected.metrics;
    w.extend_from_slice(&m.bounds.short_max.to_le_bytes());
    w.extend_from_slice(&m.bounds.narrow_max.to_le_bytes());
    for acc in std::iter::once(&m.overall).chain(&m.by_category) {
        put_accumulator(&mut w, acc);
    }
    w.extend_from_slice(&(collected.rejected.len() as u64).to_le_bytes());
    for (id, error) in &collected.rejected {
        w.extend_from_slice(&id.to_le_bytes());
        w.push(refusal_code(*error));
    }
    match &collected.records {
        None => w.push(0),
        Some(records) => {
            w.push(1);
            w.extend_from_slice(&(records.len() as u64).to_le_bytes());
            for r in records {
                put_record(&mut w, r);
            }
        }
    }
    let len = (w.len() + 4) as u64;
    if let Some(field) = w.get_mut(12..20) {
        field.copy_from_slice(&len.to_le_bytes());
    }
    let crc = crc32(&w);
    w.extend_from_slice(&crc.to_le_bytes());
    w
}

fn decode(bytes: &[u8]) -> Result<Decoded, String> {
    if bytes.get(..MAGIC.len()) != Some(&MAGIC[..]) {
        return Err("not a replay checkpoint of host-cli (wrong magic number)".into());
    }
    if bytes.len() < HEADER_LEN {
        return Err(format!(
            "truncated: {} bytes, shorter than the {HEADER_LEN}-byte header",
            bytes.len()
        ));
    }
    let mut r = Reader { bytes, at: 8 };
    let version = r.u16()?;
    if version != VERSION {
        return Err(if version > VERSION {
            format!("file layout version {version} is newer than this build reads ({VERSION})")
        } else {
            format!("file layout version {version} has no reader in this build")
        });
    }
    let reserved = r.u16()?;
    let len = r.u64()?;
    if usize::try_from(len).map_or(true, |len| len > bytes.len()) {
        return Err(format!(
            "truncated: {} bytes, the checkpoint has {len}",
            bytes.len()
        ));
    }
    if usize::try_from(len).is_ok_and(|len| len < bytes.len()) {
        return Err(format!(
            "{} bytes, but the checkpoint ends after {len}: trailing bytes",
            bytes.len()
        ));
    }
    let Some(split) = bytes.len().checked_sub(4) else {
        return Err(format!("truncated: {} bytes", bytes.len()));
    };
    let (body, trailer) = bytes.split_at(split);
    let stored = u32::from_le_bytes(trailer.try_into().map_err(|_| "truncated".to_owned())?);
    let computed = crc32(body);
    if stored != computed {
        return Err(format!(
            "checksum mismatch (stored {stored:#010x}, computed {computed:#010x}): the file \
             is damaged or truncated"
        ));
    }
    let mut r = Reader {
        bytes: body,
        at: r.at,
    };
    if reserved != 0 {
        return Err(Reader::malformed_at(10, "a reserved field is not zero"));
    }
    let fingerprint = String::from_utf8(r.bytes_with_len()?.to_vec())
        .map_err(|_| r.malformed("the fingerprint is not UTF-8"))?;
    let simulator = r.bytes_with_len()?.to_vec();
    let bounds_at = r.at;
    let bounds = CategoryBounds {
        short_max: r.u32()?,
        narrow_max: r.u32()?,
    };
    let overall = r.accumulator()?;
    let mut by_category = [Accumulator::default(); 4];
    for acc in &mut by_category {
        *acc = r.accumulator()?;
    }
    let rejected_count = r.count(5)?;
    let mut rejected = Vec::with_capacity(rejected_count);
    for _ in 0..rejected_count {
        let id = r.u32()?;
        let at = r.at;
        let error = refusal_of(r.u8()?, id).ok_or_else(|| Reader::malformed_at(at, "refusal"))?;
        rejected.push((id, error));
    }
    let records_at = r.at;
    let records = match r.u8()? {
        0 => None,
        1 => {
            let n = r.count(RECORD_LEN)?;
            let mut records = Vec::with_capacity(n);
            for _ in 0..n {
                records.push(r.record()?);
            }
            Some(records)
        }
        _ => return Err(Reader::malformed_at(records_at, "records flag")),
    };
    if r.at != body.len() {
        return Err(r.malformed("bytes after the last record"));
    }
    Ok(Decoded {
        fingerprint,
        simulator,
        bounds_at,
        records_at,
        collected: Collected {
            metrics: Metrics {
                bounds,
                overall,
                by_category,
            },
            rejected,
            records,
        },
    })
}

fn put_bytes(w: &mut Vec<u8>, bytes: &[u8]) {
    w.extend_from_slice(&(bytes.len() as u64).to_le_bytes());
    w.extend_from_slice(bytes);
}

fn put_option(w: &mut Vec<u8>, value: Option<u32>) {
    w.push(u8::from(value.is_some()));
    w.extend_from_slice(&value.unwrap_or(0).to_le_bytes());
}

fn put_spread(w: &mut Vec<u8>, s: &Spread) {
    let Spread { count, mean, m2 } = *s;
    w.extend_from_slice(&count.to_le_bytes());
    w.extend_from_slice(&mean.to_bits().to_le_bytes());
    w.extend_from_slice(&m2.to_bits().to_le_bytes());
}

/// Every field, bit for bit (the destructuring fails to compile when a
/// field is added, so none is forgotten).
fn put_accumulator(w: &mut Vec<u8>, acc: &Accumulator) {
    let Accumulator {
        count,
        wait,
        turnaround,
        slowdown,
        worst_slowdown,
        work,
        killed,
        first_submit,
        last_end,
        spread:
            Spreads {
                wait: wait_spread,
                slowdown: slowdown_spread,
                log_slowdown,
            },
    } = *acc;
    for v in [count, wait, turnaround] {
        w.extend_from_slice(&v.to_le_bytes());
    }
    for v in [slowdown, worst_slowdown] {
        w.extend_from_slice(&v.to_bits().to_le_bytes());
    }
    w.extend_from_slice(&work.to_le_bytes());
    w.extend_from_slice(&killed.to_le_bytes());
    put_option(w, first_submit);
    put_option(w, last_end);
    put_spread(w, &wait_spread);
    put_spread(w, &slowdown_spread);
    w.extend_from_slice(&log_slowdown.to_bits().to_le_bytes());
}

fn put_record(w: &mut Vec<u8>, r: &JobRecord) {
    let JobRecord {
        job,
        runtime,
        slot,
        end,
        killed,
        guarantee,
    } = *r;
    let Job {
        id,
        submit,
        procs,
        estimate,
        deadline,
        licenses,
        priority,
        tag,
    } = job;
    for v in [id, submit, procs, estimate, deadline, licenses.0] {
        w.extend_from_slice(&v.to_le_bytes());
    }
    w.extend_from_slice(&priority.to_le_bytes());
    w.extend_from_slice(&tag.to_le_bytes());
    w.extend_from_slice(&runtime.to_le_bytes());
    w.extend_from_slice(&slot.start.to_le_bytes());
    w.push(slot.machine);
    w.extend_from_slice(&slot.duration.to_le_bytes());
    w.extend_from_slice(&end.to_le_bytes());
    w.push(u8::from(killed));
    put_option(w, guarantee);
}

/// The code of a refusal the replay records (it records only the refusals
/// of a job for what it is).
const fn refusal_code(error: KernelError) -> u8 {
    match error {
        KernelError::Unrunnable(_) => 1,
        KernelError::InvalidJob(_) => 2,
        _ => 0,
    }
}

const fn refusal_of(code: u8, id: JobId) -> Option<KernelError> {
    match code {
        1 => Some(KernelError::Unrunnable(id)),
        2 => Some(KernelError::InvalidJob(id)),
        _ => None,
    }
}

/// Reads fields in order; every error names the byte.
struct Reader<'a> {
    bytes: &'a [u8],
    at: usize,
}

impl Reader<'_> {
    fn take<const N: usize>(&mut self) -> Result<[u8; N], String> {
        let end = self.at.checked_add(N).filter(|&e| e <= self.bytes.len());
        let taken = end.and_then(|e| self.bytes.get(self.at..e));
        match taken.and_then(|t| <[u8; N]>::try_from(t).ok()) {
            Some(a) => {
                self.at += N;
                Ok(a)
            }
            None => Err(self.malformed("the file ends inside a field")),
        }
    }

    fn u8(&mut self) -> Result<u8, String> {
        self.take::<1>().map(|[b]| b)
    }

    fn u16(&mut self) -> Result<u16, String> {
        self.take().map(u16::from_le_bytes)
    }

    fn u32(&mut self) -> Result<u32, String> {
        self.take().map(u32::from_le_bytes)
    }

    fn u64(&mut self) -> Result<u64, String> {
        self.take().map(u64::from_le_bytes)
    }

    fn f64(&mut self) -> Result<f64, String> {
        self.u64().map(f64::from_bits)
    }

    /// A count of items of `each` bytes that the rest of the file can hold.
    fn count(&mut self, each: usize) -> Result<usize, String> {
        let at = self.at;
        let n = self.u64()?;
        let left = self.bytes.len().saturating_sub(self.at);
        usize::try_from(n)
            .ok()
            .filter(|&n| n.checked_mul(each).is_some_and(|b| b <= left))
            .ok_or_else(|| Self::malformed_at(at, "a count beyond the file's end"))
    }

    fn bytes_with_len(&mut self) -> Result<&[u8], String> {
        let n = self.count(1)?;
        let part = self.bytes.get(self.at..self.at + n).unwrap_or_default();
        self.at += n;
        Ok(part)
    }

    fn option(&mut self) -> Result<Option<u32>, String> {
        let at = self.at;
        let flag = self.u8()?;
        let value = self.u32()?;
        match (flag, value) {
            (0, 0) => Ok(None),
            // Written as zero: any other value would not be written back.
            (0, _) => Err(Self::malformed_at(
                at + 1,
                "an absent optional value is not zero",
            )),
            (1, value) => Ok(Some(value)),
            _ => Err(Self::malformed_at(at, "an optional value's flag")),
        }
    }

    fn spread(&mut self) -> Result<Spread, String> {
        Ok(Spread {
            count: self.u64()?,
            mean: self.f64()?,
            m2: self.f64()?,
        })
    }

    fn accumulator(&mut self) -> Result<Accumulator, String> {
        Ok(Accumulator {
            count: self.u64()?,
            wait: self.u64()?,
            turnaround: self.u64()?,
            slowdown: self.f64()?,
            worst_slowdown: self.f64()?,
            work: self.take().map(u128::from_le_bytes)?,
            killed: self.u64()?,
            first_submit: self.option()?,
            last_end: self.option()?,
            spread: Spreads {
                wait: self.spread()?,
                slowdown: self.spread()?,
                log_slowdown: self.f64()?,
            },
        })
    }

    fn record(&mut self) -> Result<JobRecord, String> {
        let job = Job {
            id: self.u32()?,
            submit: self.u32()?,
            procs: self.u32()?,
            estimate: self.u32()?,
            deadline: self.u32()?,
            licenses: LicenseSet(self.u32()?),
            priority: self.take().map(i32::from_le_bytes)?,
            tag: self.u32()?,
        };
        let runtime = self.u32()?;
        let slot = Slot {
            start: self.u32()?,
            machine: self.u8()?,
            duration: self.u32()?,
        };
        let end = self.u32()?;
        let at = self.at;
        let killed = match self.u8()? {
            0 => false,
            1 => true,
            _ => return Err(Self::malformed_at(at, "a record's killed flag")),
        };
        Ok(JobRecord {
            job,
            runtime,
            slot,
            end,
            killed,
            guarantee: self.option()?,
        })
    }

    fn malformed(&self, what: &str) -> String {
        Self::malformed_at(self.at, what)
    }

    fn malformed_at(at: usize, what: &str) -> String {
        format!("malformed at byte {at}: {what}")
    }
}

/// The events of a replay so far: arrivals (submitted or refused) and
/// completions.
pub(crate) const fn events(outcome: &Outcome) -> u64 {
    outcome
        .submitted
        .saturating_add(outcome.rejected)
        .saturating_add(outcome.finished)
}

#[cfg(test)]
mod tests;
