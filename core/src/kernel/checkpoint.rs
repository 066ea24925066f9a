//! [`Kernel::checkpoint`] and [`Kernel::restore`]: the kernel's state in
//! the format of [`crate::checkpoint`], and back.
//!
//! A restore runs in three steps, so that a refused one changes nothing:
//!
//! 1. [`Kernel::decode`] reads and checks the bytes and the state they
//!    describe without touching the kernel: everything but two facts that
//!    need room to check;
//! 2. `Kernel::rebuild_plan` checks those two (the ids are unique; the jobs'
//!    slots fit the machines, pools and profile steps) using the plan's
//!    memory, which holds nothing that does not follow from the kernel's
//!    own jobs: on a refusal the plan is rebuilt from them, as it was;
//! 3. `Kernel::install` writes the rest, which cannot fail.

use super::Kernel;
use crate::checkpoint::{
    open, policy_len, read_counters, read_policy, read_saved, saved_len, write_counters,
    write_policy, write_record, write_saved, CheckpointError, Kind, Reader, Records, RestoreError,
    Writer, FIXED_LEN, FORMAT_VERSION, HEADER_LEN, MACHINE_LEN, MAGIC, POLICY_MAX, POOL_LEN,
    RECORD_LEN, SAVED_MAX, TRAILER_LEN,
};
use crate::checkpoint::{read_cluster, write_cluster};
use crate::plan::Slot;
use crate::policy::{Engine, Policy, Saved};
use crate::state::{Counters, QueuedJob, RunningJob};
use crate::types::{Cluster, Job, JobId, Time};

/// The header's flag bits: the kernel keeps a tally instead of the plan;
/// a late host had a missed reservation re-planned; a job id has been seen
/// (the largest follows).
const TALLY: u8 = 1;
const REPLANNED_LATE: u8 = 2;
const HAS_MAX_ID: u8 = 4;

/// A checkpoint's state, read and checked ([`Kernel::decode`]) but not yet
/// restored: the jobs are still bytes.
pub(crate) struct Decoded<'a, const M: usize, const L: usize> {
    now: Time,
    queue_limit: usize,
    tally: bool,
    replanned_late: bool,
    max_id: Option<JobId>,
    counters: Counters,
    cluster: Cluster<M, L>,
    policy: Policy,
    saved: Saved,
    queue: Records<'a>,
    running: Records<'a>,
    /// What follows the kernel's state (the replay's part of a
    /// [`Kind::Simulator`] checkpoint).
    pub(crate) tail: Reader<'a>,
}

impl<const M: usize, const L: usize> Decoded<'_, M, L> {
    /// The checkpoint's time.
    pub(crate) const fn now(&self) -> Time {
        self.now
    }

    /// The cluster.
    pub(crate) const fn cluster(&self) -> &Cluster<M, L> {
        &self.cluster
    }

    /// Queued jobs.
    pub(crate) const fn queued(&self) -> usize {
        self.queue.len()
    }

    /// The running jobs, in start order.
    pub(crate) fn running(&self) -> impl Iterator<Item = RunningJob> + '_ {
        self.running.iter().map(|r| RunningJob {
            job: r.job,
            slot: r.slot,
            guarantee: r.guarantee(),
        })
    }

    /// The jobs the plan holds for: the running ones and, under the
    /// policies that keep reservations, the reserved ones.
    fn holdings(&self) -> impl Iterator<Item = (Job, Slot)> + '_ {
        let keeps = !self.tally && self.policy.keeps_reservations();
        let running = self.running.iter().filter(|_| !self.tally);
        let reserved = self.queue.iter().filter(move |_| keeps);
        running
            .map(|r| (r.job, r.slot))
            .chain(reserved.filter_map(|q| q.slot().map(|s| (q.job, s))))
    }
}

/// `Invalid(what)` unless `ok`.
fn require(ok: bool, what: &'static str) -> Result<(), RestoreError> {
    if ok {
        Ok(())
    } else {
        Err(RestoreError::Invalid(what))
    }
}

/// A job's guarantee is one `policy` records: none under a policy that
/// keeps reservations without promising them (CONS+RS's Alea flavour).
fn check_guarantee(policy: Policy, guarantee: Option<Time>) -> Result<(), RestoreError> {
    require(
        guarantee.is_none() || policy.reservation_is_guarantee() || !policy.keeps_reservations(),
        "a guarantee under a policy whose reservations promise nothing",
    )
}

/// What every job in a checkpoint must be: one [`Kernel::submit`] accepts
/// at the checkpoint's time `now`, on `cluster`, with an id the kernel has
/// seen.
fn check_job<const M: usize, const L: usize>(
    cluster: &Cluster<M, L>,
    job: &Job,
    now: Time,
    max_id: Option<JobId>,
) -> Result<(), RestoreError> {
    require(
        job.procs > 0 && job.estimate > 0,
        "a job with no processors or a zero estimate",
    )?;
    require(
        job.submit <= now,
        "a job submitted after the checkpoint's time",
    )?;
    require(
        cluster.runnable(job),
        "a job no machine of the cluster can run",
    )?;
    require(
        max_id.is_some_and(|max| job.id <= max),
        "a job id above the largest the kernel has seen",
    )
}

/// What a job's slot (running, or reserved) must be: on a machine that can
/// run it, as long as its estimate there, ending within [`Time`].
fn check_slot<const M: usize, const L: usize>(
    cluster: &Cluster<M, L>,
    job: &Job,
    slot: &Slot,
) -> Result<(), RestoreError> {
    let machine = usize::from(slot.machine);
    require(
        cluster.eligible(job, machine),
        "a job placed on a machine that cannot run it",
    )?;
    let scaled = cluster.duration_on(job, machine);
    require(
        scaled == Some(slot.duration),
        "a slot that is not the job's estimate on its machine",
    )?;
    require(
        slot.start.checked_add(slot.duration).is_some(),
        "a slot that ends past the end of time",
    )
}

/// The key the queue of `policy` is sorted by, strictly (ids are unique);
/// `None` for flexible backfilling, which orders its queue by priority at
/// every pass.
fn queue_key(policy: Policy, job: &Job) -> Option<(Time, Time, JobId)> {
    match policy {
        Policy::BfFcfs | Policy::BfUnmod(_) | Policy::BfMod(_) => None,
        Policy::SjfEasy => Some((job.estimate, job.submit, job.id)),
        _ => Some((0, job.submit, job.id)),
    }
}

impl<const Q: usize, const R: usize, const B: usize, const M: usize, const L: usize>
    Kernel<Q, R, B, M, L>
{
    /// The most bytes a checkpoint of a kernel of these capacities takes
    /// (full queue and running set, the most machines and pools, the
    /// longest policy): a buffer this large always holds one. A `const fn`,
    /// so a firmware sizes a static buffer with it; the format is the same
    /// on every target, and so is the size.
    #[must_use]
    pub const fn checkpoint_size() -> usize {
        HEADER_LEN
            .saturating_add(FIXED_LEN)
            .saturating_add(M.saturating_mul(MACHINE_LEN))
            .saturating_add(L.saturating_mul(POOL_LEN))
            .saturating_add(POLICY_MAX)
            .saturating_add(SAVED_MAX)
            .saturating_add(Q.saturating_add(R).saturating_mul(RECORD_LEN))
            .saturating_add(TRAILER_LEN)
    }

    /// The length of this kernel's checkpoint now, which
    /// [`Kernel::checkpoint`] writes: the variable parts (machines, pools,
    /// queued and running jobs) take room for what is there only.
    #[must_use]
    pub fn checkpoint_len(&self) -> usize {
        HEADER_LEN
            .saturating_add(self.state_len())
            .saturating_add(TRAILER_LEN)
    }

    /// Bytes of the state between the header and the trailer.
    fn state_len(&self) -> usize {
        let cluster = &self.st.cluster;
        FIXED_LEN
            .saturating_add(cluster.machines().len().saturating_mul(MACHINE_LEN))
            .saturating_add(cluster.pools().len().saturating_mul(POOL_LEN))
            .saturating_add(policy_len(self.policy))
            .saturating_add(saved_len(self.policy))
            .saturating_add(
                (self.st.queue.len())
                    .saturating_add(self.st.running.len())
                    .saturating_mul(RECORD_LEN),
            )
    }

    /// Writes the kernel's whole state into `buf` (see
    /// [`crate::checkpoint`] and `docs/checkpoint-format.md`) and returns
    /// the bytes written, [`Kernel::checkpoint_len`]; the rest of `buf` is
    /// untouched. A kernel restored from them ([`Kernel::restore`]) takes
    /// the decisions this one would take, call for call. Allocates nothing;
    /// costs a pass over the jobs and a CRC-32 of the bytes.
    ///
    /// # Errors
    /// [`CheckpointError::BufferTooSmall`] (nothing is written then) or
    /// [`CheckpointError::TooLarge`].
    pub fn checkpoint(&self, buf: &mut [u8]) -> Result<usize, CheckpointError> {
        self.write_checkpoint(buf, Kind::Kernel, 0, |_| {})
    }

    /// [`Kernel::checkpoint`] as `kind`, with `tail_len` bytes that `tail`
    /// writes after the kernel's state.
    pub(crate) fn write_checkpoint(
        &self,
        buf: &mut [u8],
        kind: Kind,
        tail_len: usize,
        tail: impl FnOnce(&mut Writer<'_>),
    ) -> Result<usize, CheckpointError> {
        let len = self.checkpoint_len().saturating_add(tail_len);
        let capacities = [Q, R, B, M, L].map(u32::try_from);
        let (Ok(len32), [Ok(q), Ok(r), Ok(b), Ok(m), Ok(l)]) = (u32::try_from(len), capacities)
        else {
            return Err(CheckpointError::TooLarge);
        };
        let too_small = CheckpointError::BufferTooSmall {
            needed: len,
            len: buf.len(),
        };
        let out = buf.get_mut(..len).ok_or(too_small)?;
        let mut w = Writer::new(out);
        w.bytes(&MAGIC);
        w.u16(FORMAT_VERSION);
        w.u16(kind.code());
        w.u32(len32);
        for capacity in [q, r, b, m, l] {
            w.u32(capacity);
        }
        let header_crc = crate::checkpoint::crc32(w.written());
        w.u32(header_crc);
        self.write_state(&mut w);
        tail(&mut w);
        let crc = crate::checkpoint::crc32(w.written());
        w.u32(crc);
        if !w.fitted() || w.at() != len {
            // The lengths above are those of the fields written: not reached.
            return Err(too_small);
        }
        Ok(len)
    }

    /// The state between the header and the trailer.
    fn write_state(&self, w: &mut Writer<'_>) {
        let st = &self.st;
        w.u32(st.now);
        w.count(self.queue_limit);
        let mut flags = 0;
        if st.tally().is_some() {
            flags |= TALLY;
        }
        if st.replanned_late {
            flags |= REPLANNED_LATE;
        }
        if st.max_id.is_some() {
            flags |= HAS_MAX_ID;
        }
        w.u8(flags);
        w.u32(st.max_id.unwrap_or(0));
        write_counters(w, &st.counters);
        write_cluster(w, &st.cluster);
        write_policy(w, self.policy);
        write_saved(w, self.policy, &self.engine.saved());
        w.count(st.queue.len());
        for q in st.queue.iter() {
            write_record(w, &q.job, q.reservation(), q.guarantee());
        }
        w.count(st.running.len());
        for r in &st.running {
            write_record(w, &r.job, Some(r.slot), r.guarantee);
        }
    }

    /// Replaces the kernel's state with the checkpoint in `bytes`, in place
    /// (nothing kernel-sized is built outside the kernel). The checkpoint
    /// may come from a kernel with the same capacities or smaller ones
    /// (each of `Q`, `R`, `B`, `M`, `L` at most this kernel's); from then
    /// on the kernel takes the decisions the checkpointed kernel would have
    /// taken (with larger capacities, it refuses nothing the smaller one
    /// took, and where the smaller one would have run out of room it does
    /// not, as any larger kernel). Allocates nothing.
    ///
    /// The state is checked before it is used, against every rule
    /// [`Kernel::validate`] checks and those the kernel takes for granted
    /// (unique ids, a sorted queue, slots on machines that can run their
    /// jobs for their estimates, submit times not after the checkpoint's
    /// time, the capacities of every table), so a restored kernel
    /// validates.
    ///
    /// Costs a CRC-32 of the bytes, a pass over the jobs, a sort of their
    /// ids and the rebuilding of the plan, which a checkpoint does not hold
    /// (it follows from the running jobs and the reservations).
    ///
    /// # Errors
    /// A [`RestoreError`] saying why; the kernel is then unchanged.
    pub fn restore(&mut self, bytes: &[u8]) -> Result<(), RestoreError> {
        let decoded = Self::decode(bytes, Kind::Kernel)?;
        if decoded.tail.left() > 0 {
            return Err(decoded
                .tail
                .malformed("bytes after the running jobs, before the checksum"));
        }
        self.install(decoded)
    }

    /// Reads and checks the checkpoint in `bytes` of kind `kind` without
    /// touching the kernel: the header and checksum, every field, and
    /// every rule of the state but unique ids and the fit of the jobs'
    /// slots (see [`Kernel::install`]).
    pub(crate) fn decode(bytes: &[u8], kind: Kind) -> Result<Decoded<'_, M, L>, RestoreError> {
        let (header, mut r) = open(bytes, kind, [Q, R, B, M, L])?;
        let now = r.u32()?;
        let limit_at = r.at();
        let queue_limit = r.u32()?;
        if queue_limit > header.capacities.queued {
            return Err(RestoreError::Malformed {
                offset: limit_at,
                what: "a queue limit above the queue's capacity",
            });
        }
        let flags_at = r.at();
        let flags = r.u8()?;
        if flags & !(TALLY | REPLANNED_LATE | HAS_MAX_ID) != 0 {
            return Err(RestoreError::Malformed {
                offset: flags_at,
                what: "unknown flags",
            });
        }
        let max_id_at = r.at();
        let max_id = r.u32()?;
        if flags & HAS_MAX_ID == 0 && max_id != 0 {
            return Err(RestoreError::Malformed {
                offset: max_id_at,
                what: "a largest id without the flag that says there is one",
            });
        }
        let max_id = (flags & HAS_MAX_ID != 0).then_some(max_id);
        let counters = read_counters(&mut r)?;
        let cluster: Cluster<M, L> = read_cluster(&mut r)?;
        let policy = read_policy(&mut r)?;
        let saved = read_saved(&mut r, policy)?;
        let (queued, section) = r.records(
            header.capacities.queued,
            RECORD_LEN,
            "more queued jobs than the queue holds",
        )?;
        let queue = Records::new(queued, section);
        let (running, section) = r.records(
            header.capacities.running,
            RECORD_LEN,
            "more running jobs than the running set holds",
        )?;
        let running = Records::new(running, section);
        let decoded = Decoded {
            now,
            queue_limit: usize::try_from(queue_limit).unwrap_or(Q).min(Q),
            tally: flags & TALLY != 0,
            replanned_late: flags & REPLANNED_LATE != 0,
            max_id,
            counters,
            cluster,
            policy,
            saved,
            queue,
            running,
            tail: r,
        };
        Self::check_queue(&decoded)?;
        Self::check_running(&decoded)?;
        Ok(decoded)
    }

    /// The queue's rules (on the bytes): each job and reservation as
    /// [`check_job`] and [`check_slot`] say; an absent reservation written
    /// as [`Slot::NOTHING`]; the policy's order; a reservation under every
    /// job where the policy reserves for all, and at most one where it
    /// keeps none between passes; no reservation after its guarantee
    /// unless a late host had one re-planned (as [`Kernel::validate`]), and
    /// no guarantee under a policy whose reservations promise nothing.
    fn check_queue(d: &Decoded<'_, M, L>) -> Result<(), RestoreError> {
        let mut previous = None;
        let mut reserved = 0usize;
        for (i, q) in d.queue.iter().enumerate() {
            check_job(&d.cluster, &q.job, d.now, d.max_id)?;
            check_guarantee(d.policy, q.guarantee())?;
            if q.slot.start == Time::MAX && q.slot != Slot::NOTHING {
                return Err(RestoreError::Malformed {
                    offset: d.queue.offset(i),
                    what: "an absent reservation that is not zero",
                });
            }
            if let Some(slot) = q.slot() {
                check_slot(&d.cluster, &q.job, &slot)?;
                reserved = reserved.saturating_add(1);
                if let Some(g) = q.guarantee() {
                    require(
                        slot.start <= g || d.replanned_late,
                        "a reservation later than its guarantee",
                    )?;
                }
                require(
                    d.policy.keeps_reservations() || unkept_holder(d) == Some(q.job.id),
                    "a reservation held by a job the policy's state does not name",
                )?;
            }
            require(
                q.slot().is_some() || !d.policy.reserves_all(),
                "a queued job without a reservation under a policy that reserves for all",
            )?;
            let key = queue_key(d.policy, &q.job);
            if let (Some(key), Some(previous)) = (key, previous) {
                require(previous < key, "a queue out of the policy's order")?;
            }
            previous = key;
        }
        require(
            reserved <= 1 || d.policy.keeps_reservations(),
            "more than one job holds the reservation",
        )
    }

    /// The running set's rules (on the bytes): each job and slot as
    /// [`check_job`] and [`check_slot`] say, started at or before the
    /// checkpoint's time and not before it was submitted, in start order;
    /// with a tally, the policy and cluster a tally is kept for, and no more
    /// processors held than the machine has.
    fn check_running(d: &Decoded<'_, M, L>) -> Result<(), RestoreError> {
        let mut previous = 0;
        let mut held = 0u64;
        for r in d.running.iter() {
            check_job(&d.cluster, &r.job, d.now, d.max_id)?;
            check_guarantee(d.policy, r.guarantee())?;
            check_slot(&d.cluster, &r.job, &r.slot)?;
            require(
                r.job.submit <= r.slot.start && r.slot.start <= d.now,
                "a running job started before its submission or after the checkpoint's time",
            )?;
            require(previous <= r.slot.start, "running jobs out of start order")?;
            previous = r.slot.start;
            held = held.saturating_add(u64::from(r.job.procs));
        }
        if d.tally {
            let single = match d.cluster.machines() {
                [machine] => d.cluster.pools().is_empty().then_some(machine.cpus),
                _ => None,
            };
            require(
                d.policy.needs_only_free_and_ends() && single.is_some(),
                "a tally kept for a policy or cluster that needs a plan",
            )?;
            require(
                single.is_some_and(|cpus| held <= u64::from(cpus)),
                "the running jobs hold more processors than the machine has",
            )?;
        }
        Ok(())
    }

    /// Restores the checked state `d`: first the two checks that need room
    /// ([`Kernel::rebuild_plan`]), then the rest, which cannot fail.
    pub(crate) fn install(&mut self, d: Decoded<'_, M, L>) -> Result<(), RestoreError> {
        if let Err(refused) = self.rebuild_plan(&d) {
            self.rebuild_own_plan();
            return Err(refused);
        }
        let st = &mut self.st;
        st.now = d.now;
        st.queue.refill(
            d.queue.len(),
            d.queue.iter().map(|q| {
                let mut entry = QueuedJob::new(q.job);
                entry.set_reservation(q.slot());
                entry.set_guarantee(q.guarantee());
                entry
            }),
        );
        st.running.clear();
        for r in d.running() {
            // Room for every one: the checkpoint's `R` is at most this one's.
            let _ = st.running.push(r);
        }
        st.cluster = d.cluster;
        st.replanned_late = d.replanned_late;
        st.max_id = d.max_id;
        st.counters = d.counters;
        // Checked in `check_running`: the tally holds the running jobs.
        let counted = st.count_running(d.tally);
        self.policy = d.policy;
        self.engine = Engine::restored(d.policy, &d.saved);
        self.queue_limit = d.queue_limit;
        counted.map_err(|_| RestoreError::Invalid("the tally cannot hold the running jobs"))
    }

    /// Checks that no two jobs of `d` share an id and that their slots fit
    /// the machines, pools and profile steps, and sets the plan up for `d`
    /// (for a tally, the cluster's plan, unused): both use the plan's memory
    /// alone. On a refusal the caller rebuilds the kernel's own plan.
    fn rebuild_plan(&mut self, d: &Decoded<'_, M, L>) -> Result<(), RestoreError> {
        let ids = || d.queue.ids().chain(d.running.ids());
        let jobs = d.queue.len().saturating_add(d.running.len());
        let twice = RestoreError::Invalid("two jobs with one id");
        match self.st.plan.scratch() {
            // Sorted in the first profile's steps, when they have room.
            Some(scratch) if jobs <= B => {
                scratch.clear();
                for id in ids() {
                    let _ = scratch.push(crate::profile::Step { at: id, free: 0 });
                }
                scratch.sort_unstable_by_key(|s| s.at);
                let repeated = scratch
                    .windows(2)
                    .any(|w| matches!(w, [a, b] if a.at == b.at));
                require(!repeated, "two jobs with one id")?;
            }
            // Otherwise each against those before it.
            _ => {
                for (i, id) in ids().enumerate() {
                    if ids().take(i).any(|other| other == id) {
                        return Err(twice);
                    }
                }
            }
        }
        let origin = if d.tally { 0 } else { d.now };
        self.st
            .plan
            .rebuild(&d.cluster, origin, || d.holdings())
            .map_err(|e| match e {
                crate::profile::ProfileError::Full => {
                    RestoreError::Invalid("the plan needs more profile steps than the kernel has")
                }
                crate::profile::ProfileError::TimeOverflow => {
                    RestoreError::Invalid("a slot that ends past the end of time")
                }
                _ => RestoreError::Invalid(
                    "the jobs hold more processors or licenses than the cluster has",
                ),
            })?;
        self.check_unkept_reservation(d)
    }

    /// A reservation the plan does not keep (the policy makes it again at
    /// each pass: EASY's head, DPSA's, flexible backfilling's holder) must
    /// fit beside the running jobs at its start, as every reservation such
    /// a policy makes does: else the next pass would find the job's
    /// earliest start later, past its guarantee. Reads the plan just
    /// rebuilt (the running jobs alone) or, with a tally, the running jobs.
    fn check_unkept_reservation(&self, d: &Decoded<'_, M, L>) -> Result<(), RestoreError> {
        if d.policy.keeps_reservations() {
            return Ok(());
        }
        for q in d.queue.iter() {
            let Some(slot) = q.slot() else {
                continue;
            };
            let fits = if d.tally {
                let cpus = d.cluster.machines().first().map_or(0, |m| m.cpus);
                let held = d
                    .running
                    .iter()
                    .filter(|r| r.slot.end() > slot.start)
                    .fold(0u64, |sum, r| sum.saturating_add(u64::from(r.job.procs)));
                held.saturating_add(u64::from(q.job.procs)) <= u64::from(cpus)
            } else {
                let limit = slot.start.saturating_add(1);
                matches!(
                    self.st.plan.earliest_before(
                        &d.cluster,
                        &q.job,
                        &Slot::NOTHING,
                        slot.start,
                        limit
                    ),
                    Ok(Some(_))
                )
            };
            require(
                fits,
                "a reservation that does not fit beside the running jobs",
            )?;
        }
        Ok(())
    }

    /// Rebuilds the plan from the kernel's own jobs (after a refused
    /// restore used its memory): the plan is then what it was, since it
    /// holds exactly the running jobs to their estimated ends and the kept
    /// reservations, from the kernel's time on (the unused plan of a kernel
    /// with a tally: the cluster's, from time 0).
    fn rebuild_own_plan(&mut self) {
        let st = &mut self.st;
        let tally = st.tally().is_some();
        let keeps = !tally && self.policy.keeps_reservations();
        let (running, queue) = (&st.running, &st.queue);
        let holdings = || {
            let running = running.iter().filter(|_| !tally).map(|r| (r.job, r.slot));
            let reserved = queue.iter().filter(move |_| keeps);
            running.chain(reserved.filter_map(|q| q.reservation().map(|s| (q.job, s))))
        };
        let origin = if tally { 0 } else { st.now };
        // The kernel's jobs fitted this plan before: rebuilding it cannot fail.
        let _ = st.plan.rebuild(&st.cluster, origin, holdings);
    }
}

/// The job whose reservation a policy that keeps none between passes
/// remembers (EASY's, SJF-EASY's and DPSA's head, flexible backfilling's
/// holder; FCFS reserves for no job): a queued job with a reservation must
/// be that one, or the next pass would reserve for another and leave two.
fn unkept_holder<const M: usize, const L: usize>(d: &Decoded<'_, M, L>) -> Option<JobId> {
    match d.policy {
        Policy::Easy | Policy::SjfEasy | Policy::Dpsa { .. } => d.saved.reserved_head.map(|j| j.id),
        Policy::BfFcfs | Policy::BfUnmod(_) | Policy::BfMod(_) => d.saved.holder,
        _ => None,
    }
}

#[cfg(test)]
mod tests;
