//! [`Simulator::checkpoint`] and [`Simulator::restore`]: a replay's
//! checkpoint is its kernel's (of [`Kind::Simulator`]) followed by where the
//! replay stands ([`Progress`], [`PROGRESS_LEN`] bytes).
//!
//! The pending completions are not written: at an instant's end they are
//! exactly the running jobs, each ending after its run time (kept in the
//! job's tag) or at its estimate, in start order among equal ends, which
//! is the running set's order. A restore rebuilds them so.

use super::{actual_end, machines_of, Outcome, Pending, Progress, Simulator};
use crate::checkpoint::{CheckpointError, Kind, Reader, RestoreError, Writer};
use crate::kernel::Kernel;

/// Bytes of the replay's part: jobs taken, last submit time, fingerprint,
/// then the outcome so far (submitted, refused, finished, killed, longest
/// queue, calls, last instant).
pub const PROGRESS_LEN: usize = 8 + 4 + 8 + 6 * 8 + 4;

fn write_progress(w: &mut Writer<'_>, p: &Progress) {
    w.u64(p.taken);
    w.u32(p.last_submit);
    w.u64(p.digest);
    let o = &p.outcome;
    for v in [o.submitted, o.rejected, o.finished, o.killed] {
        w.u64(v);
    }
    w.u64(u64::try_from(o.max_queue).unwrap_or(u64::MAX));
    w.u64(o.calls);
    w.u32(o.last_time);
}

fn read_progress(r: &mut Reader<'_>) -> Result<Progress, RestoreError> {
    let taken = r.u64()?;
    let last_submit = r.u32()?;
    let digest = r.u64()?;
    let submitted = r.u64()?;
    let rejected = r.u64()?;
    let finished = r.u64()?;
    let killed = r.u64()?;
    let max_queue_at = r.at();
    let max_queue = usize::try_from(r.u64()?).map_err(|_| RestoreError::Malformed {
        offset: max_queue_at,
        what: "a longest queue beyond this machine's memory",
    })?;
    let calls = r.u64()?;
    let last_time = r.u32()?;
    Ok(Progress {
        taken,
        last_submit,
        digest,
        outcome: Outcome {
            submitted,
            rejected,
            finished,
            killed,
            max_queue,
            calls,
            last_time,
        },
    })
}

/// `Invalid(what)` unless `ok`.
fn require(ok: bool, what: &'static str) -> Result<(), RestoreError> {
    if ok {
        Ok(())
    } else {
        Err(RestoreError::Invalid(what))
    }
}

impl<const Q: usize, const R: usize, const B: usize, const M: usize, const L: usize>
    Simulator<Q, R, B, M, L>
{
    /// The most bytes a checkpoint of such a simulator takes:
    /// [`Kernel::checkpoint_size`] and the replay's [`PROGRESS_LEN`].
    #[must_use]
    pub const fn checkpoint_size() -> usize {
        Kernel::<Q, R, B, M, L>::checkpoint_size().saturating_add(PROGRESS_LEN)
    }

    /// The length of this simulator's checkpoint now.
    #[must_use]
    pub fn checkpoint_len(&self) -> usize {
        self.kernel.checkpoint_len().saturating_add(PROGRESS_LEN)
    }

    /// Writes the replay's state into `buf`: its kernel's, as
    /// [`Kernel::checkpoint`] does, and where the replay stands. Take it
    /// between instants (when [`Simulator::resume_with`]'s `pause` is
    /// asked, or before or after a replay); [`Simulator::restore`] and
    /// [`Simulator::resume_with`] then continue the replay exactly. Returns
    /// the bytes written.
    ///
    /// # Errors
    /// As [`Kernel::checkpoint`].
    pub fn checkpoint(&self, buf: &mut [u8]) -> Result<usize, CheckpointError> {
        self.kernel
            .write_checkpoint(buf, Kind::Simulator, PROGRESS_LEN, |w| {
                write_progress(w, &self.progress);
            })
    }

    /// Replaces the simulator's state with the replay checkpoint in `bytes`
    /// (its kernel as [`Kernel::restore`] does, which may be larger than the
    /// checkpoint's, and where the replay stood); [`Simulator::resume_with`]
    /// then continues the replay, given the same input. Besides the
    /// kernel's, the replay's figures must agree with its kernel (jobs
    /// taken are submitted or refused; the submitted ones are queued,
    /// running or finished; no running job should have ended already).
    ///
    /// # Errors
    /// A [`RestoreError`]; the simulator is then unchanged.
    pub fn restore(&mut self, bytes: &[u8]) -> Result<(), RestoreError> {
        let mut decoded = Kernel::<Q, R, B, M, L>::decode(bytes, Kind::Simulator)?;
        let progress = read_progress(&mut decoded.tail)?;
        if decoded.tail.left() > 0 {
            return Err(decoded
                .tail
                .malformed("bytes after the replay's progress, before the checksum"));
        }
        let o = &progress.outcome;
        require(
            o.submitted.checked_add(o.rejected) == Some(progress.taken),
            "jobs taken that were neither submitted nor refused",
        )?;
        let running = decoded.running().count();
        let held = u64::try_from(decoded.queued().saturating_add(running)).unwrap_or(u64::MAX);
        require(
            o.submitted.checked_sub(o.finished) == Some(held),
            "submitted jobs that are not queued, running or finished",
        )?;
        require(o.killed <= o.finished, "more jobs killed than finished")?;
        require(
            o.max_queue >= decoded.queued(),
            "a longest queue shorter than the queue",
        )?;
        let now = decoded.now();
        require(
            o.last_time == now && progress.last_submit <= now,
            "a replay whose last instant is not its kernel's time",
        )?;
        let machines = machines_of(decoded.cluster());
        require(
            decoded
                .running()
                .all(|r| actual_end(&machines, &r.job, &r.slot) >= now),
            "a running job that should have ended before the checkpoint",
        )?;
        self.kernel.install(decoded)?;
        self.pending.clear();
        self.starts = 0;
        for r in self.kernel.running() {
            self.starts = self.starts.saturating_add(1);
            let pending = Pending {
                end: actual_end(&machines, &r.job, &r.slot),
                order: self.starts,
                id: r.job.id,
            };
            // Room for every one: the heap holds `R`, as the running set.
            let _ = self.pending.push(pending);
        }
        self.machines = machines;
        self.progress = progress;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::checkpoint::{crc32, HEADER_LEN, TRAILER_LEN};
    use crate::plan::Slot;
    use crate::rng::SplitMix64;
    use crate::sim::{JobRecord, SimError, SimErrorKind, SimJob, Sink};
    use crate::types::{Cluster, Job, Machine, Time};
    use crate::Policy;
    use std::format;
    use std::string::String;
    use std::vec::Vec;

    type Sim = Simulator<32, 16, 81, 2, 0>;

    /// Everything a sink hears, with the time.
    #[derive(Default)]
    struct Heard(Vec<String>);

    impl Sink for Heard {
        fn finished(&mut self, r: &JobRecord) {
            self.0.push(format!("finished {r:?}"));
        }
        fn rejected(&mut self, job: &Job, e: crate::KernelError) {
            self.0.push(format!("rejected {} {e}", job.id));
        }
        fn started(&mut self, job: &Job, slot: Slot) {
            self.0.push(format!("started {} {slot:?}", job.id));
        }
        fn reserved(&mut self, now: Time, job: &Job, slot: Slot) {
            self.0.push(format!("{now} reserved {} {slot:?}", job.id));
        }
    }

    fn cluster() -> Cluster<2, 0> {
        Cluster::new(
            &[
                Machine::new(8),
                Machine {
                    cpus: 8,
                    speed: 1500,
                },
            ],
            &[],
        )
        .unwrap()
    }

    fn jobs(seed: u64) -> Vec<SimJob> {
        let mut rng = SplitMix64::new(seed);
        let mut submit = 0;
        (0..40)
            .map(|id| {
                submit += rng.below(200) as Time;
                let estimate = 20 + rng.below(600) as Time;
                let runtime = match rng.below(5) {
                    0 => 0,
                    1 => estimate + 1,
                    _ => rng.below(u64::from(estimate)) as Time,
                };
                let procs = if id == 7 { 99 } else { 1 + rng.below(8) as u32 };
                SimJob {
                    job: Job::new(id, submit, procs, estimate),
                    runtime,
                }
            })
            .collect()
    }

    fn checkpoint_of(sim: &Sim) -> Vec<u8> {
        let mut buf = std::vec![0u8; Sim::checkpoint_size()];
        let len = sim.checkpoint(&mut buf).unwrap();
        assert_eq!(len, sim.checkpoint_len());
        buf.truncate(len);
        buf
    }

    /// A replay paused after any instant, checkpointed, restored into
    /// another simulator and resumed reports, from the pause on, what the
    /// replay that never stopped reports, and ends with the same outcome;
    /// under every policy and option variant.
    #[test]
    fn a_restored_replay_resumes_exactly() {
        for policy in Policy::ALL.into_iter().chain(Policy::OPTION_VARIANTS) {
            // The Alea flavour of CONS+RS runs on one machine only.
            let cluster = || {
                let two = cluster();
                if policy.runs_on(&two) {
                    two
                } else {
                    Cluster::new(&[Machine::new(8)], &[]).unwrap()
                }
            };
            let input = jobs(3);
            let mut whole = Sim::new(Kernel::new(cluster(), policy));
            let mut heard = Heard::default();
            let outcome = whole.run(input.iter().copied(), &mut heard).unwrap();
            assert_eq!(whole.progress().outcome, outcome);
            assert_eq!(whole.progress().taken, 40);
            let mut instants = 0;
            let mut sim = Sim::new(Kernel::new(cluster(), policy));
            sim.run_with(core::iter::empty(), &mut Heard::default(), |_, _| {})
                .unwrap();
            for stop in 1.. {
                let mut first = Sim::new(Kernel::new(cluster(), policy));
                let mut before = Heard::default();
                let mut seen = 0;
                first.progress = Progress::default();
                let paused = first
                    .resume_with(
                        input.iter().copied(),
                        &mut before,
                        |_, _| {},
                        |_, _| {
                            seen += 1;
                            seen == stop
                        },
                    )
                    .unwrap();
                if paused.is_some() {
                    instants = stop - 1;
                    break;
                }
                let bytes = checkpoint_of(&first);
                let mut second = Sim::new(Kernel::new(cluster(), Policy::DPSA_N));
                second.restore(&bytes).unwrap();
                assert_eq!(checkpoint_of(&second), bytes);
                let mut after = Heard::default();
                let ended = second
                    .resume_with(input.iter().copied(), &mut after, |_, _| {}, |_, _| false)
                    .unwrap();
                assert_eq!(ended, Some(outcome), "{policy} stop {stop}");
                before.0.extend(after.0);
                assert_eq!(before.0, heard.0, "{policy} stop {stop}");
            }
            assert!(instants > 20, "{policy}: {instants} instants");
        }
    }

    /// A host checkpoints inside `pause`, with the sink at hand, and goes
    /// on: a replay restored from any of those checkpoints ends as the one
    /// that went on, and its sink hears the rest of what that one's heard.
    #[test]
    fn checkpoints_taken_in_pause_resume_exactly() {
        let input = jobs(5);
        let mut sim = Sim::new(Kernel::new(cluster(), Policy::ConsRs(Default::default())));
        let mut taken: Vec<(usize, Vec<u8>)> = Vec::new();
        let mut heard = Heard::default();
        let outcome = sim
            .resume_with(
                input.iter().copied(),
                &mut heard,
                |_, _| {},
                |sim, sink| {
                    if sink.0.len() % 3 == 0 {
                        taken.push((sink.0.len(), checkpoint_of(sim)));
                    }
                    false
                },
            )
            .unwrap();
        assert!(taken.len() > 5, "{} checkpoints", taken.len());
        for (at, bytes) in &taken {
            let mut again = Sim::new(Kernel::new(cluster(), Policy::Easy));
            again.restore(bytes).unwrap();
            let mut rest = Heard::default();
            let ended = again
                .resume_with(input.iter().copied(), &mut rest, |_, _| {}, |_, _| false)
                .unwrap();
            assert_eq!(ended, outcome);
            assert_eq!(rest.0, heard.0[*at..]);
        }
    }

    /// A resumed replay needs its input back: another one is refused, and
    /// the progress must agree with the kernel, or the restore is refused
    /// and the simulator unchanged.
    #[test]
    fn resuming_checks_the_input_and_the_progress() {
        let input = jobs(4);
        let mut sim = Sim::new(Kernel::new(cluster(), Policy::Conservative));
        let mut n = 0;
        let paused = sim
            .resume_with(
                input.iter().copied(),
                &mut Heard::default(),
                |_, _| {},
                |_, _| {
                    n += 1;
                    n == 12
                },
            )
            .unwrap();
        assert_eq!(paused, None);
        let bytes = checkpoint_of(&sim);
        let mut other = input.clone();
        other[2].runtime += 1;
        let mut again = Sim::new(Kernel::new(cluster(), Policy::Easy));
        again.restore(&bytes).unwrap();
        // Another input, and the same one cut short.
        let short: Vec<SimJob> = input.iter().copied().take(3).collect();
        for wrong in [&other, &short] {
            let refused = again.resume_with(
                wrong.iter().copied(),
                &mut Heard::default(),
                |_, _| {},
                |_, _| false,
            );
            assert!(matches!(
                refused,
                Err(SimError {
                    kind: SimErrorKind::InputMismatch,
                    ..
                })
            ));
        }
        // The kernel's checkpoint is not a replay's, and the other way round.
        let mut kernel_bytes = std::vec![0u8; Kernel::<32, 16, 81, 2, 0>::checkpoint_size()];
        let len = sim.kernel().checkpoint(&mut kernel_bytes).unwrap();
        let before = format!("{again:?}");
        assert!(matches!(
            again.restore(&kernel_bytes[..len]),
            Err(RestoreError::WrongKind { .. })
        ));
        let mut k = sim.kernel().clone();
        assert!(matches!(
            k.restore(&bytes),
            Err(RestoreError::WrongKind { .. })
        ));
        // Progress that does not agree with the kernel.
        let progress_at = bytes.len() - TRAILER_LEN - PROGRESS_LEN;
        // Jobs taken, finished, killed (8 bytes each), the last instant (4).
        type Edit = (usize, usize, fn(u64) -> u64);
        let edits: [Edit; 4] = [
            (0, 8, |v| v + 1),
            (36, 8, |v| v + 1),
            (44, 8, |_| u64::MAX),
            (68, 4, |v| v + 1),
        ];
        for (field, width, change) in edits {
            let mut b = bytes.clone();
            let at = progress_at + field;
            let mut word = [0u8; 8];
            word[..width].copy_from_slice(&b[at..at + width]);
            let v = change(u64::from_le_bytes(word)).to_le_bytes();
            b[at..at + width].copy_from_slice(&v[..width]);
            let h = crc32(&b[..HEADER_LEN - 4]);
            b[HEADER_LEN - 4..HEADER_LEN].copy_from_slice(&h.to_le_bytes());
            let end = b.len() - TRAILER_LEN;
            let c = crc32(&b[..end]);
            b[end..].copy_from_slice(&c.to_le_bytes());
            let refused = again.restore(&b);
            assert!(
                matches!(refused, Err(RestoreError::Invalid(_))),
                "{field}: {refused:?}"
            );
            assert_eq!(format!("{again:?}"), before, "{field}");
        }
        // The undamaged checkpoint resumes with the right input.
        let ended = again
            .resume_with(
                input.iter().copied(),
                &mut Heard::default(),
                |_, _| {},
                |_, _| false,
            )
            .unwrap();
        let whole = Sim::new(Kernel::new(cluster(), Policy::Conservative))
            .run(input.iter().copied(), &mut Heard::default())
            .unwrap();
        assert_eq!(ended, Some(whole));
    }
}
