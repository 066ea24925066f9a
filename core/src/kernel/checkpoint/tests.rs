//! Checkpoint and restore of the kernel: the continuation of a restored
//! kernel is the original's, the bytes round-trip, and every refusal
//! leaves the kernel as it was.

use super::super::Kernel;
use crate::checkpoint::{crc32, RestoreError, Table, HEADER_LEN, RECORD_LEN, TRAILER_LEN};
use crate::plan::Slot;
use crate::policy::{DpsaOrder, Iterations, Policy, RandomSearch};
use crate::rng::SplitMix64;
use crate::state::Observer;
use crate::types::{Cluster, Job, LicensePool, LicenseSet, Machine, MachineSet, Time};
use std::boxed::Box;
use std::format;
use std::string::String;
use std::vec::Vec;

const Q: usize = 24;
const R: usize = 16;
const B: usize = 2 * Q + R + 1;
type K = Kernel<Q, R, B, 3, 2>;
type Small = Kernel<8, 8, 25, 3, 2>;

/// Every policy and option variant, and the variants the checkpoint must
/// carry besides: CONS+RS (both flavours) with other seeds and a fixed
/// budget, DPSA with small budgets.
fn policies() -> Vec<Policy> {
    let mut all = Vec::from(Policy::ALL);
    all.extend(Policy::OPTION_VARIANTS);
    all.push(Policy::ConsRsAlea(RandomSearch {
        seed: 7,
        iterations: Iterations::Fixed(5),
    }));
    for seed in [1, 7, u64::MAX] {
        all.push(Policy::ConsRs(RandomSearch {
            seed,
            iterations: Iterations::PerQueuedJob(4),
        }));
    }
    all.push(Policy::ConsRs(RandomSearch {
        seed: 3,
        iterations: Iterations::Fixed(5),
    }));
    for (order, nodes) in [
        (DpsaOrder::Priority, 0),
        (DpsaOrder::Narrow, 3),
        (DpsaOrder::Wide, 17),
    ] {
        all.push(Policy::Dpsa { order, nodes });
    }
    all
}

fn single() -> Cluster<3, 2> {
    Cluster::single(16).unwrap()
}

/// Two machines (the second twice as fast) and two license pools, one of
/// them usable on the first machine only.
fn farm() -> Cluster<3, 2> {
    Cluster::new(
        &[
            Machine::new(8),
            Machine {
                cpus: 12,
                speed: 2000,
            },
        ],
        &[
            LicensePool {
                count: 2,
                machines: MachineSet::ALL,
            },
            LicensePool {
                count: 1,
                machines: MachineSet(1),
            },
        ],
    )
    .unwrap()
}

/// A random workload for `cluster`: bursts of arrivals, run times below,
/// at and past the estimate (killed), some zero; licenses on a farm.
fn workload(seed: u64, cluster: &Cluster<3, 2>, n: u32) -> Vec<(Job, Time)> {
    let mut rng = SplitMix64::new(seed);
    let widest = cluster.machines().iter().map(|m| m.cpus).max().unwrap();
    let mut submit = 0;
    (1..=n)
        .map(|id| {
            if rng.below(3) != 0 {
                submit += rng.below(400) as Time;
            }
            let procs = 1 + rng.below(u64::from(widest)) as u32;
            let estimate = 10 + rng.below(900) as Time;
            let run = match rng.below(6) {
                0 => 0,
                1 => estimate + 5,
                2 => estimate,
                _ => rng.below(u64::from(estimate)) as Time,
            };
            let mut job = Job::new(id, submit, procs, estimate);
            if !cluster.pools().is_empty() && rng.below(3) == 0 {
                job.licenses = LicenseSet(1 + rng.below(3) as u32);
                job.procs = job.procs.min(8);
            }
            if rng.below(4) == 0 {
                job.deadline = submit + 2 * estimate;
            }
            job.tag = run;
            (job, run)
        })
        .collect()
}

/// What a kernel reports: starts and reservations, with the time.
#[derive(Default)]
struct Log {
    now: Time,
    lines: Vec<String>,
}

impl Observer for Log {
    fn started(&mut self, job: &Job, slot: Slot) {
        self.lines
            .push(format!("{} start {} {slot:?}", self.now, job.id));
    }
    fn reserved(&mut self, job: &Job, slot: Slot) {
        self.lines
            .push(format!("{} reserve {} {slot:?}", self.now, job.id));
    }
}

/// A firmware-style driver: at each instant every completion (run time or
/// estimate, whichever first), then every arrival, then one pass.
struct Driver {
    jobs: Vec<(Job, Time)>,
    next: usize,
}

impl Driver {
    /// A driver before the first of `jobs`.
    const fn new(jobs: Vec<(Job, Time)>) -> Self {
        Self { jobs, next: 0 }
    }

    fn end_of(r: &crate::RunningJob, machines: &[Machine]) -> Time {
        let m = machines[usize::from(r.slot.machine)];
        let run = m.scale(r.job.tag).unwrap_or(Time::MAX);
        r.slot.start.saturating_add(run.min(r.slot.duration))
    }

    /// One instant; `false` when nothing is left.
    fn instant<const QQ: usize, const RR: usize, const BB: usize>(
        &mut self,
        k: &mut Kernel<QQ, RR, BB, 3, 2>,
        log: &mut Log,
    ) -> bool {
        let machines: Vec<Machine> = k.cluster().machines().to_vec();
        let next_end = k.running().iter().map(|r| Self::end_of(r, &machines)).min();
        let next_submit = self.jobs.get(self.next).map(|j| j.0.submit);
        let Some(now) = [next_submit, next_end, k.next_wakeup()]
            .into_iter()
            .flatten()
            .min()
        else {
            return false;
        };
        log.now = now;
        while let Some(id) = k
            .running()
            .iter()
            .find(|r| Self::end_of(r, &machines) <= now)
            .map(|r| r.job.id)
        {
            k.complete(now, id).unwrap();
            log.lines.push(format!("{now} end {id}"));
        }
        while let Some(&(job, _)) = self.jobs.get(self.next).filter(|j| j.0.submit <= now) {
            self.next += 1;
            if let Err(e) = k.submit(now, job, log) {
                log.lines.push(format!("{now} refused {}: {e}", job.id));
            }
        }
        if let Err(e) = k.schedule(now, log) {
            log.lines.push(format!("{now} pass failed: {e}"));
        }
        true
    }
}

/// `kernel`'s checkpoint, as a vector.
fn bytes_of<const QQ: usize, const RR: usize, const BB: usize>(
    kernel: &Kernel<QQ, RR, BB, 3, 2>,
) -> Vec<u8> {
    let mut buf = std::vec![0u8; Kernel::<QQ, RR, BB, 3, 2>::checkpoint_size()];
    let len = kernel.checkpoint(&mut buf).unwrap();
    assert_eq!(len, kernel.checkpoint_len());
    buf.truncate(len);
    buf
}

/// The plan follows from the jobs: rebuilding it from them gives it back.
fn plan_follows_from_jobs<const QQ: usize, const RR: usize, const BB: usize>(
    k: &Kernel<QQ, RR, BB, 3, 2>,
) {
    let mut copy = k.clone();
    copy.rebuild_own_plan();
    assert_eq!(format!("{:?}", copy.st.plan), format!("{:?}", k.st.plan));
}

/// At every instant of replays under every policy, on one machine and on
/// a farm with licenses: checkpoint, restore into a kernel that held
/// something else, and go on; the restored kernel reports what the
/// original reports from then on, event for event, ends with the same
/// counters and state, writes the same bytes, and validates. The plan the
/// kernel keeps is always the one its jobs give.
#[test]
fn a_restored_kernel_continues_as_the_original() {
    let mut restores = 0;
    for policy in policies() {
        for (cluster, seed) in [(single(), 1), (farm(), 2), (single(), 3)] {
            if !policy.runs_on(&cluster) {
                continue;
            }
            let jobs = workload(seed, &cluster, 40);
            let mut original = Box::new(K::new(cluster.clone(), policy));
            let mut driver = Driver::new(jobs.clone());
            let mut step = 0;
            loop {
                step += 1;
                let bytes = bytes_of(&original);
                let mut restored = Box::new(K::new(farm(), Policy::DPSA_W));
                let mut warm = Driver::new(workload(9, &farm(), 10));
                for _ in 0..5 {
                    warm.instant(&mut restored, &mut Log::default());
                }
                restored.restore(&bytes).unwrap();
                restores += 1;
                restored.validate().unwrap();
                assert_eq!(bytes_of(&restored), bytes, "{policy} step {step}");
                assert_eq!(restored.keeps_plan(), original.keeps_plan());
                plan_follows_from_jobs(&original);
                assert_eq!(
                    format!("{:?}", restored.st.plan),
                    format!("{:?}", original.st.plan)
                );
                // Both go on for a while; every few steps, to the end.
                let mut a = (
                    original.clone(),
                    Driver {
                        jobs: jobs.clone(),
                        next: driver.next,
                    },
                );
                let mut b = (
                    restored,
                    Driver {
                        jobs: jobs.clone(),
                        next: driver.next,
                    },
                );
                let (mut la, mut lb) = (Log::default(), Log::default());
                let horizon = if step % 7 == 0 { usize::MAX } else { 12 };
                for _ in 0..horizon {
                    let more = a.1.instant(&mut a.0, &mut la);
                    assert_eq!(more, b.1.instant(&mut b.0, &mut lb));
                    if !more {
                        break;
                    }
                }
                assert_eq!(la.lines, lb.lines, "{policy} from step {step}");
                assert_eq!(a.0.counters(), b.0.counters(), "{policy}");
                assert_eq!(bytes_of(&a.0), bytes_of(&b.0), "{policy} step {step}");
                b.0.validate().unwrap();
                if !driver.instant(&mut original, &mut Log::default()) {
                    break;
                }
            }
        }
    }
    assert!(restores > 1000, "{restores}");
}

/// EASY with a plan (`new_with_plan`) and with a tally checkpoint each
/// their own kind of kernel, and each restores into a kernel of the other
/// kind as its own.
#[test]
fn plan_and_tally_kernels_restore_as_themselves() {
    let jobs = workload(5, &single(), 30);
    for policy in [Policy::Fcfs, Policy::Easy, Policy::SjfEasy] {
        let mut counted = Box::new(K::new(single(), policy));
        let mut planned = Box::new(K::new_with_plan(single(), policy));
        let (mut dc, mut dp) = (Driver::new(jobs.clone()), Driver::new(jobs.clone()));
        for _ in 0..15 {
            dc.instant(&mut counted, &mut Log::default());
            dp.instant(&mut planned, &mut Log::default());
        }
        assert!(!counted.keeps_plan() && planned.keeps_plan());
        let (c, p) = (bytes_of(&counted), bytes_of(&planned));
        let mut into = Box::new(K::new_with_plan(single(), policy));
        into.restore(&c).unwrap();
        assert!(!into.keeps_plan());
        assert_eq!(
            format!("{:?}", into.st.plan),
            format!("{:?}", counted.st.plan)
        );
        let mut into = Box::new(K::new(single(), policy));
        into.restore(&p).unwrap();
        assert!(into.keeps_plan());
        into.validate().unwrap();
        assert_eq!(
            format!("{:?}", into.st.plan),
            format!("{:?}", planned.st.plan)
        );
    }
}

/// A checkpoint of a smaller kernel restores into a larger one, which
/// goes on as the smaller one does while neither runs out of room; the
/// other way round is refused, naming the table.
#[test]
fn a_smaller_kernels_checkpoint_fits_a_larger_kernel() {
    for policy in Policy::ALL.into_iter().chain(Policy::OPTION_VARIANTS) {
        let cluster = if policy.runs_on(&farm()) {
            farm()
        } else {
            single()
        };
        let jobs = workload(11, &cluster, 14);
        let mut small = Box::new(Small::new(cluster.clone(), policy));
        let mut d = Driver::new(jobs);
        for _ in 0..6 {
            d.instant(&mut small, &mut Log::default());
        }
        let bytes = bytes_of(&small);
        let mut large = Box::new(K::new(single(), Policy::Easy));
        large.restore(&bytes).unwrap();
        large.validate().unwrap();
        // The state is the same: the bytes differ only in the header's
        // capacities (and so in the checksums).
        let again = bytes_of(&large);
        assert_eq!(
            again[HEADER_LEN..again.len() - TRAILER_LEN],
            bytes[HEADER_LEN..bytes.len() - TRAILER_LEN]
        );
        let back = bytes_of(&large);
        let before = format!("{small:?}");
        assert_eq!(
            small.restore(&back),
            Err(RestoreError::Capacity {
                table: Table::Queued,
                written: Q as u32,
                room: 8
            })
        );
        assert_eq!(format!("{small:?}"), before);
    }
}

/// Recomputes the header's and the trailer's checksums after an edit.
fn reseal(bytes: &mut [u8]) {
    let h = crc32(&bytes[..HEADER_LEN - 4]);
    bytes[HEADER_LEN - 4..HEADER_LEN].copy_from_slice(&h.to_le_bytes());
    let end = bytes.len() - TRAILER_LEN;
    let c = crc32(&bytes[..end]);
    bytes[end..].copy_from_slice(&c.to_le_bytes());
}

/// A busy Conservative kernel on the farm, and where its first queued and
/// first running records begin in its checkpoint.
fn busy() -> (Box<K>, Vec<u8>, usize, usize) {
    let mut k = Box::new(K::new(farm(), Policy::Conservative));
    let mut d = Driver::new(workload(21, &farm(), 40));
    while k.queued().len() < 3 || k.running().len() < 2 {
        assert!(d.instant(&mut k, &mut Log::default()));
    }
    let bytes = bytes_of(&k);
    let queue = bytes.len() - TRAILER_LEN - RECORD_LEN * (k.queued().len() + k.running().len()) - 8;
    let queue_records = queue + 4;
    let running_records = queue_records + RECORD_LEN * k.queued().len() + 4;
    (k, bytes, queue_records, running_records)
}

/// Every damage is its own error, and the kernel restored into (busy with
/// another state) is unchanged: its `Debug` and its checkpoint are what
/// they were.
#[test]
fn refused_restores_change_nothing() {
    let (source, good, q0, r0) = busy();
    // The records are where `busy` says: the first queued job's id.
    assert_eq!(
        u32::from_le_bytes(good[q0..q0 + 4].try_into().unwrap()),
        source.queued()[0].job.id
    );
    assert_eq!(
        u32::from_le_bytes(good[r0..r0 + 4].try_into().unwrap()),
        source.running()[0].job.id
    );
    let mut targets: Vec<Box<K>> = Vec::new();
    for policy in [
        Policy::Conservative,
        Policy::Easy,
        Policy::SELECTIVE_EXAMPLE,
    ] {
        for cluster in [single(), farm()] {
            let mut k = Box::new(K::new(cluster.clone(), policy));
            let mut d = Driver::new(workload(31, &cluster, 30));
            for _ in 0..12 {
                d.instant(&mut k, &mut Log::default());
            }
            targets.push(k);
        }
    }
    let edit = |f: &dyn Fn(&mut Vec<u8>)| {
        let mut b = good.clone();
        f(&mut b);
        b
    };
    let sealed = |f: &dyn Fn(&mut Vec<u8>)| {
        let mut b = good.clone();
        f(&mut b);
        reseal(&mut b);
        b
    };
    let set_u32 =
        |b: &mut Vec<u8>, at: usize, v: u32| b[at..at + 4].copy_from_slice(&v.to_le_bytes());
    let get_u32 = |b: &[u8], at: usize| u32::from_le_bytes(b[at..at + 4].try_into().unwrap());
    type Case = (&'static str, Vec<u8>, fn(&RestoreError) -> bool);
    let cases: Vec<Case> = std::vec![
        ("magic", edit(&|b| b[1] = b'X'), |e| *e
            == RestoreError::BadMagic),
        ("newer", edit(&|b| b[8] = 9), |e| *e
            == RestoreError::NewerVersion(9)),
        ("version 0", edit(&|b| b[8] = 0), |e| *e
            == RestoreError::UnsupportedVersion(0)),
        ("header", edit(&|b| b[17] ^= 1), |e| matches!(
            e,
            RestoreError::HeaderChecksum { .. }
        )),
        ("body", edit(&|b| b[HEADER_LEN + 1] ^= 0x10), |e| matches!(
            e,
            RestoreError::Checksum { .. }
        )),
        (
            "trailer",
            edit(&|b| *b.last_mut().unwrap() ^= 1),
            |e| matches!(e, RestoreError::Checksum { .. })
        ),
        (
            "truncated",
            edit(&|b| {
                b.pop();
            }),
            |e| matches!(e, RestoreError::Truncated { .. })
        ),
        (
            "header only",
            edit(&|b| b.truncate(HEADER_LEN)),
            |e| matches!(e, RestoreError::Truncated { .. })
        ),
        ("empty", Vec::new(), |e| matches!(
            e,
            RestoreError::Truncated { len: 0, .. }
        )),
        ("trailing", edit(&|b| b.push(0)), |e| matches!(
            e,
            RestoreError::TrailingBytes { .. }
        )),
        ("kind", sealed(&|b| b[10] = 2), |e| matches!(
            e,
            RestoreError::WrongKind { .. }
        )),
        (
            "capacity",
            sealed(&|b| set_u32(b, 24, B as u32 + 1)),
            |e| matches!(
                e,
                RestoreError::Capacity {
                    table: Table::Steps,
                    ..
                }
            )
        ),
        (
            "flags",
            sealed(&|b| b[HEADER_LEN + 8] = 0x80),
            |e| matches!(e, RestoreError::Malformed { .. })
        ),
        (
            "queue limit",
            sealed(&|b| set_u32(b, HEADER_LEN + 4, Q as u32 + 1)),
            |e| matches!(e, RestoreError::Malformed { .. })
        ),
        (
            "queue count",
            sealed(&|b| set_u32(b, q0 - 4, 1000)),
            |e| matches!(e, RestoreError::Malformed { .. })
        ),
        (
            "zero procs",
            sealed(&|b| set_u32(b, q0 + 8, 0)),
            |e| matches!(e, RestoreError::Invalid(_))
        ),
        (
            "too wide",
            sealed(&|b| set_u32(b, q0 + 8, 99)),
            |e| matches!(e, RestoreError::Invalid(_))
        ),
        (
            "future submit",
            sealed(&|b| set_u32(b, q0 + 4, Time::MAX - 1)),
            |e| matches!(e, RestoreError::Invalid(_))
        ),
        (
            "bad duration",
            sealed(&|b| {
                let d = get_u32(b, q0 + 36);
                set_u32(b, q0 + 36, d + 1)
            }),
            |e| matches!(e, RestoreError::Invalid(_))
        ),
        ("bad machine", sealed(&|b| b[q0 + 40] = 7), |e| matches!(
            e,
            RestoreError::Invalid(_)
        )),
        (
            "no reservation",
            sealed(&|b| {
                set_u32(b, q0 + 32, Time::MAX);
                set_u32(b, q0 + 36, 0);
                b[q0 + 40] = 0
            }),
            |e| matches!(e, RestoreError::Invalid(_))
        ),
        (
            "half a reservation",
            sealed(&|b| set_u32(b, q0 + 32, Time::MAX)),
            |e| matches!(e, RestoreError::Malformed { .. })
        ),
        (
            "after its guarantee",
            sealed(&|b| set_u32(b, q0 + 41, 0)),
            |e| matches!(e, RestoreError::Invalid(_))
        ),
        (
            "id above the largest",
            sealed(&|b| set_u32(b, q0, 4000)),
            |e| matches!(e, RestoreError::Invalid(_))
        ),
        (
            "duplicate id",
            sealed(&|b| {
                let id = get_u32(b, r0);
                set_u32(b, q0, id)
            }),
            |e| *e == RestoreError::Invalid("two jobs with one id")
        ),
        (
            "out of order",
            sealed(&|b| set_u32(b, q0 + RECORD_LEN + 4, 0)),
            |e| matches!(e, RestoreError::Invalid(_))
        ),
        (
            "started later",
            sealed(&|b| set_u32(b, r0 + 32, Time::MAX / 2)),
            |e| matches!(e, RestoreError::Invalid(_))
        ),
        (
            "overcommitted",
            sealed(&|b| {
                let s = get_u32(b, r0 + 32);
                set_u32(b, q0 + 32, s);
                set_u32(b, q0 + 41, s)
            }),
            |e| matches!(e, RestoreError::Invalid(_))
        ),
        (
            "policy",
            sealed(&|b| {
                let at = HEADER_LEN + 13 + 96 + 4 + 2 * 8 + 2 * 20;
                b[at] = 77
            }),
            |e| matches!(e, RestoreError::Malformed { .. })
        ),
    ];
    for (what, bytes, expected) in &cases {
        for target in &mut targets {
            let debug = format!("{target:?}");
            let own = bytes_of(target);
            let refused = target.restore(bytes).expect_err(what);
            assert!(expected(&refused), "{what}: {refused:?}");
            assert_eq!(format!("{target:?}"), debug, "{what}: the kernel changed");
            assert_eq!(bytes_of(target), own, "{what}");
            target.validate().unwrap();
        }
    }
    // And the undamaged bytes restore.
    for target in &mut targets {
        target.restore(&good).unwrap();
        assert_eq!(bytes_of(target), good);
    }
}

/// A plan that fits the kernel's profile steps, but that reserving its
/// jobs one by one in queue order cannot rebuild (a step a later
/// reservation merges away would be needed on the way), is swept in time
/// order instead, and the kernel restores it.
#[test]
fn a_tight_plan_is_rebuilt_by_a_sweep() {
    // One 4-processor machine and one license: a 4-wide job runs over
    // [0, 10); two 2-wide jobs needing the license are reserved back to
    // back, [10, 20) and [20, 30): 0 free, 2 free until 30, all free.
    let cluster: Cluster<1, 1> = Cluster::with_one_license(&[Machine::new(4)], 1);
    let mut big: Kernel<4, 2, 64, 1, 1> = Kernel::new(cluster.clone(), Policy::Conservative);
    big.submit(0, Job::new(1, 0, 4, 10), &mut ()).unwrap();
    big.schedule(0, &mut ()).unwrap();
    let licensed = |id, submit| {
        let mut job = Job::new(id, submit, 2, 10);
        job.licenses = LicenseSet(1);
        job
    };
    big.submit(1, licensed(2, 1), &mut ()).unwrap();
    big.submit(1, licensed(3, 1), &mut ()).unwrap();
    big.schedule(1, &mut ()).unwrap();
    let starts: Vec<_> = big
        .queued()
        .iter()
        .map(|q| q.reservation().unwrap().start)
        .collect();
    assert_eq!(starts, [10, 20]);
    assert_eq!(big.plan().machine(0).unwrap().steps().len(), 3);
    // The same state, as a kernel with three profile steps would write it.
    let mut full = std::vec![0u8; Kernel::<4, 2, 64, 1, 1>::checkpoint_size()];
    let len = big.checkpoint(&mut full).unwrap();
    let mut buf = full[..len].to_vec();
    buf[24..28].copy_from_slice(&3u32.to_le_bytes());
    reseal(&mut buf);
    let mut tight: Kernel<4, 2, 3, 1, 1> = Kernel::new(cluster, Policy::Easy);
    // One by one, the first reservation would take a fourth step.
    let mut copy = tight.clone();
    let jobs: Vec<(Job, Slot)> = big
        .running()
        .iter()
        .map(|r| (r.job, r.slot))
        .chain(
            big.queued()
                .iter()
                .map(|q| (q.job, q.reservation().unwrap())),
        )
        .collect();
    copy.st.plan.advance(1);
    let one_by_one = jobs.iter().try_for_each(|(job, slot)| {
        let from = slot.start.max(1);
        let held = Slot {
            start: from,
            duration: slot.end() - from,
            ..*slot
        };
        copy.st.plan.reserve(job, &held)
    });
    assert_eq!(one_by_one, Err(crate::profile::ProfileError::Full));
    tight.restore(&buf).unwrap();
    tight.validate().unwrap();
    assert_eq!(format!("{:?}", tight.plan()), format!("{:?}", big.plan()));
    // A plan that needs more steps than the kernel has is refused.
    big.submit(2, Job::new(4, 2, 1, 50), &mut ()).unwrap();
    assert!(big.plan().machine(0).unwrap().steps().len() > 3);
    let len = big.checkpoint(&mut full).unwrap();
    let mut buf = full[..len].to_vec();
    buf[24..28].copy_from_slice(&3u32.to_le_bytes());
    reseal(&mut buf);
    let before = format!("{tight:?}");
    assert_eq!(
        tight.restore(&buf),
        Err(RestoreError::Invalid(
            "the plan needs more profile steps than the kernel has"
        ))
    );
    assert_eq!(format!("{tight:?}"), before);
}

/// The option variants' own bytes: Conservative's rebuild writes whether
/// a rebuild is due, the Alea flavour of CONS+RS its search state; an
/// absent periodic search written with a time, and a guarantee under the
/// Alea flavour (whose reservations promise nothing), are refused.
#[test]
fn option_variants_write_their_state_and_refuse_what_no_writer_writes() {
    // The policy's tag sits after the fixed fields and one machine.
    let tag_at = HEADER_LEN + 13 + 96 + 4 + 8;
    let rebuild = {
        let mut k = Box::new(K::new(single(), Policy::ConservativeRebuild));
        let mut d = Driver::new(workload(4, &single(), 30));
        for _ in 0..10 {
            d.instant(&mut k, &mut Log::default());
        }
        bytes_of(&k)
    };
    assert_eq!(rebuild[tag_at], 11);
    assert!(rebuild[tag_at + 1] <= 1);
    let alea = Policy::ConsRsAlea(RandomSearch {
        seed: 3,
        iterations: Iterations::Fixed(4),
    });
    let mut k = Box::new(K::new(single(), alea));
    let mut d = Driver::new(workload(4, &single(), 30));
    while k.queued().len() < 2 {
        assert!(d.instant(&mut k, &mut Log::default()));
    }
    let good = bytes_of(&k);
    assert_eq!(good[tag_at], 12);
    assert_eq!(good[tag_at + 1..tag_at + 9], 3u64.to_le_bytes());
    assert_eq!(good[tag_at + 9..tag_at + 14], [1, 4, 0, 0, 0]);
    // The state: search due, a periodic search scheduled, its time, the
    // generator; then the queue.
    let state = tag_at + 14;
    assert_eq!(
        good[state + 1],
        1,
        "a periodic search after the first arrival"
    );
    let q0 = state + 14 + 4;
    let mut into = Box::new(K::new(single(), Policy::Easy));
    into.restore(&good).unwrap();
    assert_eq!(bytes_of(&into), good);
    let mut absent = good.clone();
    absent[state + 1] = 0;
    reseal(&mut absent);
    assert!(matches!(
        into.restore(&absent),
        Err(RestoreError::Malformed { .. })
    ));
    let mut promised = good.clone();
    let start = promised[q0 + 32..q0 + 36].to_vec();
    promised[q0 + 41..q0 + 45].copy_from_slice(&start);
    reseal(&mut promised);
    assert_eq!(
        into.restore(&promised),
        Err(RestoreError::Invalid(
            "a guarantee under a policy whose reservations promise nothing"
        ))
    );
    assert_eq!(bytes_of(&into), good);
}
