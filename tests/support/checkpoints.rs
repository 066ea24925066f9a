//! Checkpoint helpers for the tests (`tests/it/checkpoint.rs`) and the
//! `checkpoint_restore` fuzz body: replays that stop after an instant,
//! checkpoint, restore into another simulator and resume, compared with
//! the replay that never stopped.
//!
//! The promise under test (`docs/checkpoint-format.md`): at any instant of
//! any replay, a checkpoint restored into a fresh simulator continues as
//! the replay that never stopped, event for event (starts, reservations
//! reported, ends, refusals), with the same totals and counters.

use crate::check::with_stack;
use backfill_core::checkpoint::{crc32, HEADER_LEN, TRAILER_LEN};
use backfill_core::policy::{DpsaOrder, Iterations, RandomSearch};
use backfill_core::{
    Cluster, Counters, Job, JobRecord, Kernel, KernelError, Outcome, Policy, SimJob, Simulator,
    Sink, Slot, Time,
};
use std::cell::RefCell;
use std::rc::Rc;

/// Every policy of [`Policy::ALL`] (Conservative without compression among
/// them) and of [`Policy::OPTION_VARIANTS`] (Conservative's rebuild, the
/// Alea flavour of CONS+RS), and the variants whose own state a checkpoint
/// carries: CONS+RS (both flavours) with other seeds and budgets, DPSA
/// with small node budgets.
#[must_use]
pub fn checkpoint_policies() -> Vec<Policy> {
    let mut all = Policy::ALL.to_vec();
    all.extend(Policy::OPTION_VARIANTS);
    all.push(Policy::ConsRsAlea(RandomSearch {
        seed: 42,
        iterations: Iterations::Fixed(3),
    }));
    for seed in [1, 42, u64::MAX] {
        all.push(Policy::ConsRs(RandomSearch {
            seed,
            iterations: Iterations::PerQueuedJob(4),
        }));
    }
    all.push(Policy::ConsRs(RandomSearch {
        seed: 9,
        iterations: Iterations::Fixed(3),
    }));
    for (order, nodes) in [
        (DpsaOrder::Priority, 0),
        (DpsaOrder::Narrow, 2),
        (DpsaOrder::Wide, 5),
        (DpsaOrder::Priority, 40),
    ] {
        all.push(Policy::Dpsa { order, nodes });
    }
    all
}

/// `cluster`, or for a policy that cannot run on it (the Alea flavour of
/// CONS+RS needs one machine without license pools) its first machine
/// alone: the jobs that machine cannot run are refused, which a replay
/// reports like any other event.
#[must_use]
pub fn cluster_for<const M: usize, const L: usize>(
    policy: Policy,
    cluster: &Cluster<M, L>,
) -> Cluster<M, L> {
    if policy.runs_on(cluster) {
        return cluster.clone();
    }
    cluster
        .machines()
        .first()
        .and_then(|m| Cluster::new(&[*m], &[]).ok())
        .unwrap_or_else(|| cluster.clone())
}

/// A sink that writes down everything it hears, in order (the lines are
/// shared, so that a replay's `pause` callback can count them).
#[derive(Debug, Default)]
pub struct Recorder {
    /// One line per event.
    pub lines: Rc<RefCell<Vec<String>>>,
}

impl Recorder {
    fn say(&self, line: String) {
        self.lines.borrow_mut().push(line);
    }

    /// The lines heard so far.
    #[must_use]
    pub fn take(&self) -> Vec<String> {
        std::mem::take(&mut self.lines.borrow_mut())
    }
}

impl Sink for Recorder {
    fn finished(&mut self, r: &JobRecord) {
        self.say(format!(
            "end {} at {} (start {:?}, killed {}, guarantee {:?})",
            r.job.id, r.end, r.slot, r.killed, r.guarantee
        ));
    }
    fn rejected(&mut self, job: &Job, e: KernelError) {
        self.say(format!("refused {}: {e}", job.id));
    }
    fn started(&mut self, job: &Job, slot: Slot) {
        self.say(format!("start {} {slot:?}", job.id));
    }
    fn reserved(&mut self, now: Time, job: &Job, slot: Slot) {
        self.say(format!("{now}: reserve {} {slot:?}", job.id));
    }
}

/// A replay that never stopped.
#[derive(Debug)]
pub struct Whole {
    /// What the sink heard.
    pub lines: Vec<String>,
    /// How many lines it had heard after each instant.
    pub after_instant: Vec<usize>,
    /// The totals, or how the replay stopped.
    pub outcome: Result<Outcome, String>,
    /// The kernel's counters at the end.
    pub counters: Counters,
}

/// What a replay stopped after an instant, checkpointed, restored and
/// resumed did after the restore.
#[derive(Debug)]
pub struct Resumed {
    /// What the sink heard after the restore.
    pub lines: Vec<String>,
    /// The totals, or how the replay stopped.
    pub outcome: Result<Outcome, String>,
    /// The kernel's counters at the end.
    pub counters: Counters,
    /// Bytes of the checkpoint.
    pub bytes: usize,
}

/// The stack a replay here asks for beyond eight simulators: 3 MiB, to
/// which [`with_stack`] adds 1 MiB.
const MORE_STACK: usize = 3 << 20;

/// Replays `jobs` under `policy` on `cluster` without stopping.
#[must_use]
pub fn whole<const Q: usize, const R: usize, const B: usize, const M: usize, const L: usize>(
    cluster: &Cluster<M, L>,
    policy: Policy,
    jobs: &[SimJob],
) -> Whole {
    let stack = 8 * size_of::<Simulator<Q, R, B, M, L>>() + MORE_STACK;
    with_stack(stack, || {
        let mut sim = Box::new(Simulator::new(Kernel::<Q, R, B, M, L>::new(
            cluster.clone(),
            policy,
        )));
        let mut sink = Recorder::default();
        let heard = Rc::clone(&sink.lines);
        let mut after_instant = Vec::new();
        let ended = sim.resume_with(
            jobs.iter().copied(),
            &mut sink,
            |_, _| {},
            |_, _| {
                after_instant.push(heard.borrow().len());
                false
            },
        );
        let outcome = match ended {
            Ok(Some(o)) => Ok(o),
            Ok(None) => Err("paused without being asked".to_owned()),
            Err(e) => Err(e.to_string()),
        };
        Whole {
            lines: sink.take(),
            after_instant,
            outcome,
            counters: *sim.kernel().counters(),
        }
    })
}

/// Replays `jobs` under `policy` on `cluster`, stops after instant `stop`
/// (counted from 1), writes the replay's checkpoint, restores it into a
/// simulator set up for another policy and cluster, and resumes; `None`
/// when the replay has fewer instants. The restored simulator must write
/// the same checkpoint back.
///
/// # Panics
/// When the checkpoint cannot be written or restored, or is not written
/// back the same: test failures.
#[must_use]
pub fn resumed<const Q: usize, const R: usize, const B: usize, const M: usize, const L: usize>(
    cluster: &Cluster<M, L>,
    policy: Policy,
    jobs: &[SimJob],
    stop: usize,
) -> Option<Resumed> {
    let stack = 8 * size_of::<Simulator<Q, R, B, M, L>>() + MORE_STACK;
    with_stack(stack, || {
        let mut first = Box::new(Simulator::new(Kernel::<Q, R, B, M, L>::new(
            cluster.clone(),
            policy,
        )));
        let mut seen = 0;
        let paused = first.resume_with(
            jobs.iter().copied(),
            &mut Recorder::default(),
            |_, _| {},
            |_, _| {
                seen += 1;
                seen == stop
            },
        );
        if !matches!(paused, Ok(None)) {
            return None;
        }
        let mut buf = vec![0u8; Simulator::<Q, R, B, M, L>::checkpoint_size()];
        let len = first
            .checkpoint(&mut buf)
            .unwrap_or_else(|e| panic!("{policy}: checkpoint: {e}"));
        let bytes = &buf[..len];
        drop(first);
        // Another policy and a one-machine cluster, busy with nothing.
        let other = if policy == Policy::Easy {
            Policy::DPSA_W
        } else {
            Policy::Easy
        };
        let one = Cluster::<M, L>::single(1).expect("a one-processor machine");
        let mut second = Box::new(Simulator::new(Kernel::<Q, R, B, M, L>::new(one, other)));
        second
            .restore(bytes)
            .unwrap_or_else(|e| panic!("{policy} after instant {stop}: restore: {e}"));
        second
            .kernel()
            .validate()
            .unwrap_or_else(|e| panic!("{policy}: restored kernel: {e}"));
        let mut again = vec![0u8; len];
        assert_eq!(second.checkpoint(&mut again), Ok(len), "{policy}");
        assert!(
            again == bytes,
            "{policy}: the restored replay writes other bytes"
        );
        let mut sink = Recorder::default();
        let ended = second.resume_with(jobs.iter().copied(), &mut sink, |_, _| {}, |_, _| false);
        Some(Resumed {
            lines: sink.take(),
            outcome: match ended {
                Ok(Some(o)) => Ok(o),
                Ok(None) => Err("paused without being asked".to_owned()),
                Err(e) => Err(e.to_string()),
            },
            counters: *second.kernel().counters(),
            bytes: len,
        })
    })
}

/// Checks that `resumed`, stopped after instant `stop`, continued as
/// `whole`.
///
/// # Errors
/// A message naming the first difference.
pub fn same_continuation(whole: &Whole, resumed: &Resumed, stop: usize) -> Result<(), String> {
    let from = whole
        .after_instant
        .get(stop - 1)
        .copied()
        .ok_or_else(|| format!("the whole replay has no instant {stop}"))?;
    let expected = &whole.lines[from..];
    if let Some((i, (a, b))) = expected
        .iter()
        .zip(&resumed.lines)
        .enumerate()
        .find(|(_, (a, b))| a != b)
    {
        return Err(format!(
            "event {i} after instant {stop}: never stopped `{a}`, restored `{b}`"
        ));
    }
    if expected.len() != resumed.lines.len() {
        return Err(format!(
            "after instant {stop}: never stopped {} events, restored {}",
            expected.len(),
            resumed.lines.len()
        ));
    }
    if whole.outcome != resumed.outcome {
        return Err(format!(
            "outcome: never stopped {:?}, restored {:?}",
            whole.outcome, resumed.outcome
        ));
    }
    if whole.counters != resumed.counters {
        return Err(format!(
            "counters: never stopped {:?}, restored {:?}",
            whole.counters, resumed.counters
        ));
    }
    Ok(())
}

/// Writes the header's and the trailer's CRC-32 of `bytes` again, after an
/// edit (a no-op on bytes shorter than a header and trailer).
pub fn reseal(bytes: &mut [u8]) {
    if bytes.len() < HEADER_LEN + TRAILER_LEN {
        return;
    }
    let header = crc32(&bytes[..HEADER_LEN - 4]);
    bytes[HEADER_LEN - 4..HEADER_LEN].copy_from_slice(&header.to_le_bytes());
    let end = bytes.len() - TRAILER_LEN;
    let all = crc32(&bytes[..end]);
    bytes[end..].copy_from_slice(&all.to_le_bytes());
}
