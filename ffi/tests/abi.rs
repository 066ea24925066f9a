//! The C functions driven from Rust the way a C program drives them
//! (through the `rlib`): replays equal the kernel's own `Simulator`, every
//! misuse is a status, callbacks cannot re-enter their kernel, and the
//! queries read what the kernel holds.
#![allow(unsafe_code)]
#![allow(clippy::undocumented_unsafe_blocks)]

mod common;

use backfill_core::rng::SplitMix64;
use backfill_core::{
    Cluster, Job, JobRecord, Kernel, KernelError, LicensePool, LicenseSet, Machine, MachineSet,
    Policy, SimJob, Simulator, Sink, Slot, Time,
};
use backfill_ffi::abi::calls::*;
use backfill_ffi::abi::memory::*;
use backfill_ffi::abi::policy::*;
use backfill_ffi::abi::queries::*;
use backfill_ffi::abi::status::*;
use backfill_ffi::model::policy::{bf_policy_kind, to_c};
use backfill_ffi::model::status::bf_status::{self, *};
use backfill_ffi::model::types::*;
use backfill_ffi::{bf_cluster, bf_kernel, bf_observer, bf_policy};
use common::{c_cluster, kernel, Mem, TIERS};
use std::cmp::Reverse;
use std::collections::BinaryHeap;
use std::ffi::{c_void, CStr};
use std::ptr::{null, null_mut};

/// A kernel of the small tier on `machines`, under `policy`.
fn small(mem: &mut Mem, machines: &[bf_machine], policy: Policy) -> *mut bf_kernel {
    kernel(mem, bf_kernel_s_init, machines, policy)
}

fn valid(k: *const bf_kernel) {
    let mut why = [0 as std::ffi::c_char; 128];
    let s = unsafe { bf_kernel_validate(k, why.as_mut_ptr(), why.len()) };
    let text = unsafe { CStr::from_ptr(why.as_ptr()) };
    assert_eq!(s, BF_OK, "{text:?}");
}

fn job(id: u32, submit: Time, procs: u32, estimate: u32) -> bf_job {
    bf_job::from(&Job::new(id, submit, procs, estimate))
}

/// A random farm (1-4 machines of various speeds, 0-2 license pools) and
/// jobs (some killed at their estimate, some with deadlines, licenses,
/// unrunnable or invalid ones).
fn random_workload(rng: &mut SplitMix64) -> (Vec<Machine>, Vec<LicensePool>, Vec<SimJob>) {
    let n_machines = 1 + rng.below(4) as usize;
    let machines: Vec<Machine> = (0..n_machines)
        .map(|_| Machine {
            cpus: 1 + rng.below(16) as u32,
            speed: [500, 1000, 1000, 1500, 2000][rng.below(5) as usize],
        })
        .collect();
    let pools: Vec<LicensePool> = (0..rng.below(3))
        .map(|_| LicensePool {
            count: 1 + rng.below(3) as u32,
            machines: MachineSet(u128::from(rng.below(1 << n_machines) as u32 | 1)),
        })
        .collect();
    let mut t = 0;
    let jobs = (0..5 + rng.below(60) as u32)
        .map(|id| {
            t += rng.below(40) as u32;
            let estimate = 1 + rng.below(300) as u32;
            let runtime = rng.below(u64::from(estimate) * 3 / 2) as u32;
            let mut job = Job::new(id, t, 1 + rng.below(18) as u32, estimate);
            if rng.below(4) == 0 {
                job.licenses = LicenseSet(rng.below(4) as u32);
            }
            if rng.below(3) == 0 {
                job.deadline = t + estimate + rng.below(500) as u32;
            }
            if rng.below(50) == 0 {
                job.estimate = 0;
            }
            SimJob { job, runtime }
        })
        .collect();
    (machines, pools, jobs)
}

/// What a replay gives: the finished jobs (id, start, machine, end,
/// killed, guarantee) in completion order, every reservation event (time,
/// id, start, machine), and the refused jobs.
#[derive(Debug, Default, PartialEq)]
struct Replay {
    finished: Vec<(u32, Time, u32, Time, bool, Option<Time>)>,
    reserved: Vec<(Time, u32, Time, u32)>,
    rejected: Vec<u32>,
}

impl Sink for Replay {
    fn finished(&mut self, r: &JobRecord) {
        self.finished.push((
            r.job.id,
            r.start(),
            u32::from(r.slot.machine),
            r.end,
            r.killed,
            r.guarantee,
        ));
    }
    fn rejected(&mut self, job: &Job, _: KernelError) {
        self.rejected.push(job.id);
    }
    fn reserved(&mut self, now: Time, job: &Job, slot: Slot) {
        self.reserved
            .push((now, job.id, slot.start, u32::from(slot.machine)));
    }
}

/// The C side's replay state, reached through the callbacks' `user`.
struct Driver {
    now: Time,
    machines: Vec<bf_machine>,
    /// (end, start order, id), earliest first.
    pending: BinaryHeap<Reverse<(Time, u64, u32)>>,
    starts: u64,
    out: Replay,
}

unsafe extern "C" fn on_started(user: *mut c_void, job: *const bf_job, slot: *const bf_slot) {
    let d = unsafe { &mut *user.cast::<Driver>() };
    let (job, slot) = unsafe { (*job, *slot) };
    let mut run = 0;
    let s = unsafe { bf_machine_scale(&d.machines[slot.machine as usize], job.tag, &mut run) };
    if s != BF_OK {
        run = u32::MAX;
    }
    d.starts += 1;
    let end = slot.start.saturating_add(run.min(slot.duration));
    d.pending.push(Reverse((end, d.starts, job.id)));
}

unsafe extern "C" fn on_reserved(user: *mut c_void, job: *const bf_job, slot: *const bf_slot) {
    let d = unsafe { &mut *user.cast::<Driver>() };
    let (job, slot) = unsafe { (*job, *slot) };
    d.out
        .reserved
        .push((d.now, job.id, slot.start, slot.machine));
}

/// One machine of 4 processors at the reference speed, the tests' usual
/// cluster.
const FOUR_CPUS: [bf_machine; 1] = [bf_machine {
    cpus: 4,
    speed: 1000,
}];

/// `m` as C describes it.
fn c_machine(m: &Machine) -> bf_machine {
    bf_machine {
        cpus: m.cpus,
        speed: m.speed,
    }
}

/// The `Simulator`'s loop, through the C functions: completions, then
/// arrivals, then one pass; the next instant is the earliest of the next
/// arrival, the next end and the kernel's next wakeup.
fn replay_c(k: *mut bf_kernel, machines: &[Machine], jobs: &[SimJob]) -> Replay {
    let mut d = Driver {
        now: 0,
        machines: machines.iter().map(c_machine).collect(),
        pending: BinaryHeap::new(),
        starts: 0,
        out: Replay::default(),
    };
    let user: *mut c_void = (&raw mut d).cast();
    let both = bf_observer {
        started: Some(on_started),
        reserved: Some(on_reserved),
        keep_searching: None,
        user,
    };
    let reserve_only = bf_observer {
        started: None,
        ..both
    };
    let mut next = 0;
    loop {
        let (mut has, mut at) = (false, 0);
        assert_eq!(
            unsafe { bf_kernel_next_wakeup(k, &mut has, &mut at) },
            BF_OK
        );
        let d = unsafe { &mut *user.cast::<Driver>() };
        let candidates = [
            jobs.get(next).map(|j| j.job.submit),
            d.pending.peek().map(|p| p.0 .0),
            has.then_some(at),
        ];
        let Some(now) = candidates.into_iter().flatten().min() else {
            break;
        };
        d.now = now;
        while let Some(&Reverse((end, _, id))) = d.pending.peek() {
            if end > now {
                break;
            }
            d.pending.pop();
            let mut r = bf_running_job::default();
            assert_eq!(unsafe { bf_kernel_complete(k, now, id, &mut r) }, BF_OK);
            let mut run = 0;
            let scaled = unsafe {
                bf_machine_scale(&d.machines[r.slot.machine as usize], r.job.tag, &mut run)
            };
            let killed = scaled != BF_OK || run > r.slot.duration;
            d.out.finished.push((
                id,
                r.slot.start,
                r.slot.machine,
                now,
                killed,
                r.has_guarantee.then_some(r.guarantee),
            ));
        }
        while let Some(j) = jobs.get(next).filter(|j| j.job.submit <= now) {
            next += 1;
            let mut c = bf_job::from(&j.job);
            c.tag = j.runtime;
            match unsafe { bf_kernel_submit(k, now, &c, &reserve_only) } {
                BF_OK => {}
                BF_ERR_UNRUNNABLE | BF_ERR_INVALID_JOB => {
                    unsafe { &mut *user.cast::<Driver>() }
                        .out
                        .rejected
                        .push(c.id);
                }
                s => panic!("submit {}: {s:?}", c.id),
            }
        }
        let mut started = 0;
        assert_eq!(
            unsafe { bf_kernel_schedule(k, now, &both, &mut started) },
            BF_OK
        );
        valid(k);
    }
    d.out
}

/// Every policy, on random farms: a replay through the C functions is the
/// kernel's own `Simulator` replay, start for start, reservation for
/// reservation.
#[test]
fn replays_through_c_equal_the_simulator() {
    let mut rng = SplitMix64::new(23);
    let mut mem = Mem::new(bf_kernel_s_size());
    let mut compared = 0;
    for case in 0..120 {
        let (machines, pools, jobs) = random_workload(&mut rng);
        let policy = Policy::ALL[case % Policy::ALL.len()];
        let cluster: Cluster<16, 8> = Cluster::new(&machines, &pools).unwrap();
        let mut sim: Box<Simulator<64, 64, 193, 16, 8>> =
            Box::new(Simulator::new(Kernel::new(cluster, policy)));
        let mut expected = Replay::default();
        sim.run(jobs.iter().copied(), &mut expected).unwrap();

        let c_machines: Vec<bf_machine> = machines.iter().map(c_machine).collect();
        let c_pools: Vec<bf_license_pool> = pools
            .iter()
            .map(|p| bf_license_pool {
                count: p.count,
                machines: p.machines.0 as u32,
            })
            .collect();
        let cluster = c_cluster(&c_machines, &c_pools);
        let c_policy = to_c(policy).unwrap();
        let mut k = null_mut();
        let s = unsafe { bf_kernel_s_init(mem.ptr(), mem.bytes(), &cluster, &c_policy, &mut k) };
        assert_eq!(s, BF_OK);
        let got = replay_c(k, &machines, &jobs);
        assert_eq!(got, expected, "case {case}, {policy}");
        compared += usize::from(!got.finished.is_empty());
    }
    assert!(compared > 100, "{compared}");
}

/// Every misuse of memory, pointers and handles is a status, and leaves
/// everything as it was.
#[test]
fn misuse_is_a_status() {
    let machines = FOUR_CPUS;
    let cluster = c_cluster(&machines, &[]);
    let mut policy = bf_policy_zeroed();
    assert_eq!(
        unsafe { bf_policy_default(bf_policy_kind::BF_POLICY_EASY as u32, &mut policy) },
        BF_OK
    );
    for (size, init) in TIERS {
        let mut mem = Mem::new(size() + 32);
        let mut k = null_mut();
        let n = mem.bytes();
        let p = mem.ptr();
        let cases: [(
            bf_status,
            *mut c_void,
            usize,
            *const bf_cluster,
            *const bf_policy,
        ); 6] = [
            (BF_ERR_NULL_POINTER, null_mut(), n, &cluster, &policy),
            (BF_ERR_NULL_POINTER, p, n, null(), &policy),
            (BF_ERR_NULL_POINTER, p, n, &cluster, null()),
            (BF_ERR_BAD_SIZE, p, size() - 1, &cluster, &policy),
            (
                BF_ERR_BAD_ALIGNMENT,
                p.wrapping_byte_add(8),
                n - 16,
                &cluster,
                &policy,
            ),
            (BF_OK, p.wrapping_byte_add(16), n - 16, &cluster, &policy),
        ];
        for (expected, mem, size, cluster, policy) in cases {
            assert_eq!(
                unsafe { init(mem, size, cluster, policy, &mut k) },
                expected
            );
        }
        assert_eq!(
            unsafe { init(p, n, &cluster, &policy, null_mut()) },
            BF_ERR_NULL_POINTER
        );
        let empty = c_cluster(&[], &[]);
        assert_eq!(
            unsafe { init(p, n, &empty, &policy, &mut k) },
            BF_ERR_CLUSTER_EMPTY
        );
        let many = [machines[0]; 17];
        let too_many = c_cluster(&many, &[]);
        assert_eq!(
            unsafe { init(p, n, &too_many, &policy, &mut k) },
            BF_ERR_CLUSTER_TOO_MANY
        );
        let lying = bf_cluster {
            machine_count: usize::MAX,
            ..cluster
        };
        assert_eq!(
            unsafe { init(p, n, &lying, &policy, &mut k) },
            BF_ERR_CLUSTER_TOO_MANY
        );
        let nothing = bf_cluster {
            machines: null(),
            ..cluster
        };
        assert_eq!(
            unsafe { init(p, n, &nothing, &policy, &mut k) },
            BF_ERR_NULL_POINTER
        );
        let zero = [bf_machine {
            cpus: 0,
            speed: 1000,
        }];
        assert_eq!(
            unsafe { init(p, n, &c_cluster(&zero, &[]), &policy, &mut k) },
            BF_ERR_BAD_MACHINE
        );
        let bad_policy = bf_policy { kind: 99, ..policy };
        assert_eq!(
            unsafe { init(p, n, &cluster, &bad_policy, &mut k) },
            BF_ERR_BAD_OPTION
        );
        // The memory is still not a kernel: every refusal left it alone.
        assert_eq!(
            unsafe { bf_kernel_validate(p.cast(), null_mut(), 0) },
            BF_ERR_BAD_HANDLE
        );
        // Now a kernel, and the calls on handles that are not.
        assert_eq!(unsafe { init(p, n, &cluster, &policy, &mut k) }, BF_OK);
        assert_eq!(k.cast::<c_void>(), p);
        valid(k);
        let j = job(1, 0, 2, 10);
        let misaligned = k.wrapping_byte_add(4);
        assert_eq!(
            unsafe { bf_kernel_submit(null_mut(), 0, &j, null()) },
            BF_ERR_NULL_POINTER
        );
        assert_eq!(
            unsafe { bf_kernel_submit(misaligned, 0, &j, null()) },
            BF_ERR_BAD_ALIGNMENT
        );
        assert_eq!(
            unsafe { bf_kernel_submit(k, 0, null(), null()) },
            BF_ERR_NULL_POINTER
        );
        let mut garbage = Mem::new(256);
        garbage
            .0
            .iter_mut()
            .for_each(|w| *w = 0x5A5A_5A5A_5A5A_5A5A_5A5A_5A5A_5A5A_5A5A);
        assert_eq!(
            unsafe { bf_kernel_submit(garbage.ptr().cast(), 0, &j, null()) },
            BF_ERR_BAD_HANDLE
        );
        let mut count = 0;
        assert_eq!(
            unsafe { bf_kernel_queued_count(k, null_mut()) },
            BF_ERR_NULL_POINTER
        );
        assert_eq!(unsafe { bf_kernel_queued_count(k, &mut count) }, BF_OK);
        assert_eq!(count, 0);
        let mut q = bf_queued_job::default();
        assert_eq!(
            unsafe { bf_kernel_queued_job(k, 0, &mut q) },
            BF_ERR_OUT_OF_RANGE
        );
        let mut cap = bf_capacity::default();
        assert_eq!(unsafe { bf_kernel_capacity(k, &mut cap) }, BF_OK);
        assert_eq!(
            unsafe { bf_kernel_set_queue_limit(k, cap.queued + 1) },
            BF_ERR_BAD_OPTION
        );
        let mut steps = [bf_step::default(); 2];
        let mut total = 0;
        assert_eq!(
            unsafe { bf_kernel_plan_steps(k, 7, 0, steps.as_mut_ptr(), 2, &mut total) },
            BF_ERR_BAD_OPTION
        );
        assert_eq!(
            unsafe { bf_kernel_plan_steps(k, 0, 1, steps.as_mut_ptr(), 2, &mut total) },
            BF_ERR_OUT_OF_RANGE
        );
        assert_eq!(
            unsafe { bf_kernel_plan_steps(k, 0, 0, null_mut(), 0, &mut total) },
            BF_ERR_BAD_SIZE
        );
        assert_eq!(total, 1);
        valid(k);
        // Released: no longer a kernel.
        assert_eq!(unsafe { bf_kernel_release(k) }, BF_OK);
        assert_eq!(unsafe { bf_kernel_release(k) }, BF_ERR_BAD_HANDLE);
        assert_eq!(
            unsafe { bf_kernel_submit(k, 0, &j, null()) },
            BF_ERR_BAD_HANDLE
        );
        assert_eq!(
            unsafe { bf_kernel_validate(k, null_mut(), 0) },
            BF_ERR_BAD_HANDLE
        );
    }
}

fn bf_policy_zeroed() -> bf_policy {
    let mut p = to_c(Policy::Fcfs).unwrap();
    p.kind = 0;
    p
}

/// A callback that calls back into its own kernel: every such call is
/// refused with `BF_ERR_BUSY` (a second reference to the kernel is never
/// made), and the kernel is fine afterwards.
#[test]
fn callbacks_cannot_reenter_their_kernel() {
    struct Probe {
        k: *mut bf_kernel,
        mem: *mut c_void,
        size: usize,
        statuses: Vec<bf_status>,
    }
    unsafe extern "C" fn reenter(user: *mut c_void, _: *const bf_job, _: *const bf_slot) {
        let p = unsafe { &mut *user.cast::<Probe>() };
        let mut n = 0;
        let j = job(99, 0, 1, 1);
        let policy = to_c(Policy::Easy).unwrap();
        let cluster = c_cluster(&FOUR_CPUS, &[]);
        let mut k = null_mut();
        p.statuses.extend([
            unsafe { bf_kernel_queued_count(p.k, &mut n) },
            unsafe { bf_kernel_submit(p.k, 0, &j, null()) },
            unsafe { bf_kernel_validate(p.k, null_mut(), 0) },
            unsafe { bf_kernel_reset(p.k, &cluster, &policy) },
            unsafe { bf_kernel_release(p.k) },
            unsafe { bf_kernel_s_init(p.mem, p.size, &cluster, &policy, &mut k) },
        ]);
    }
    let mut mem = Mem::new(bf_kernel_s_size());
    let k = small(&mut mem, &FOUR_CPUS, Policy::Conservative);
    let mut probe = Probe {
        k,
        mem: mem.ptr(),
        size: mem.bytes(),
        statuses: Vec::new(),
    };
    let observer = bf_observer {
        started: Some(reenter),
        reserved: Some(reenter),
        keep_searching: None,
        user: (&raw mut probe).cast(),
    };
    assert_eq!(
        unsafe { bf_kernel_submit(k, 0, &job(1, 0, 4, 10), &observer) },
        BF_OK
    );
    assert_eq!(
        unsafe { bf_kernel_schedule(k, 0, &observer, null_mut()) },
        BF_OK
    );
    assert_eq!(probe.statuses, vec![BF_ERR_BUSY; 12]);
    valid(k);
    let mut n = 0;
    assert_eq!(unsafe { bf_kernel_running_count(k, &mut n) }, BF_OK);
    assert_eq!(n, 1);
}

/// The kernel's refusals come back as their codes, with the kernel's own
/// message (naming the job) and the job in `bf_kernel_last_error`.
#[test]
fn kernel_errors_keep_their_job_and_message() {
    let mut mem = Mem::new(bf_kernel_s_size());
    let k = small(&mut mem, &FOUR_CPUS, Policy::Easy);
    let text = |k| {
        let mut buf = [0 as std::ffi::c_char; 64];
        let mut len = 0;
        let s = unsafe { bf_kernel_last_error_text(k, buf.as_mut_ptr(), buf.len(), &mut len) };
        assert_eq!(s, BF_OK);
        let t = unsafe { CStr::from_ptr(buf.as_ptr()) }
            .to_str()
            .unwrap()
            .to_owned();
        assert_eq!(t.len(), len);
        t
    };
    assert_eq!(text(k), "ok");
    assert_eq!(
        unsafe { bf_kernel_submit(k, 5, &job(3, 0, 8, 10), null()) },
        BF_ERR_UNRUNNABLE
    );
    assert_eq!(text(k), "no machine can ever run job 3");
    let mut e = bf_error::default();
    assert_eq!(unsafe { bf_kernel_last_error(k, &mut e) }, BF_OK);
    assert_eq!(
        (e.status, e.has_job, e.job),
        (BF_ERR_UNRUNNABLE as i32, true, 3)
    );
    assert_eq!(
        unsafe { bf_kernel_submit(k, 4, &job(4, 0, 1, 10), null()) },
        BF_ERR_TIME_WENT_BACKWARDS
    );
    assert_eq!(text(k), "time went backwards: 4 < 5");
    assert_eq!(unsafe { bf_kernel_last_error(k, &mut e) }, BF_OK);
    assert_eq!((e.has_job, e.now, e.current), (false, 4, 5));
    // Truncated: what fits, a NUL, the full length, and BF_ERR_BAD_SIZE.
    let mut buf = [0x7f as std::ffi::c_char; 8];
    let mut len = 0;
    assert_eq!(
        unsafe { bf_kernel_last_error_text(k, buf.as_mut_ptr(), buf.len(), &mut len) },
        BF_ERR_BAD_SIZE
    );
    assert_eq!(
        unsafe { CStr::from_ptr(buf.as_ptr()) }.to_str().unwrap(),
        "time we"
    );
    assert_eq!(len, "time went backwards: 4 < 5".len());
    assert_eq!(
        unsafe { bf_kernel_complete(k, 6, 42, null_mut()) },
        BF_ERR_UNKNOWN_JOB
    );
    assert_eq!(text(k), "job 42 is not running");
    assert_eq!(
        unsafe { bf_kernel_submit(k, 6, &job(5, 0, 1, 10), null()) },
        BF_OK
    );
    assert_eq!(text(k), "ok");
    // The fixed messages.
    for s in bf_status::all() {
        let m = unsafe { CStr::from_ptr(bf_status_message(s as i32)) };
        assert!(!m.is_empty());
    }
    let unknown = unsafe { CStr::from_ptr(bf_status_message(1234)) };
    assert_eq!(unknown.to_str().unwrap(), "unknown status");
}

/// The queries read what the kernel holds; the queue limit refuses as a
/// full queue does.
#[test]
fn queries_read_the_kernel() {
    let mut mem = Mem::new(bf_kernel_s_size());
    let machines = [
        FOUR_CPUS[0],
        bf_machine {
            cpus: 4,
            speed: 2000,
        },
    ];
    let k = small(&mut mem, &machines, Policy::Conservative);
    assert_eq!(unsafe { bf_kernel_set_queue_limit(k, 2) }, BF_OK);
    for id in 1..=3 {
        let s = unsafe { bf_kernel_submit(k, 0, &job(id, 0, 4, 100), null()) };
        assert_eq!(s, if id <= 2 { BF_OK } else { BF_ERR_QUEUE_FULL });
    }
    let mut cap = bf_capacity::default();
    assert_eq!(unsafe { bf_kernel_capacity(k, &mut cap) }, BF_OK);
    assert_eq!(
        (cap.queued, cap.queue_limit, cap.running, cap.steps),
        (64, 2, 64, 193)
    );
    let mut q = bf_queued_job::default();
    assert_eq!(unsafe { bf_kernel_queued_job(k, 1, &mut q) }, BF_OK);
    // Job 2 is reserved on the slower machine 0, as job 1 takes machine 1.
    assert_eq!(
        (q.job.id, q.has_reservation, q.reservation.machine),
        (2, true, 0)
    );
    let mut started = 0;
    assert_eq!(
        unsafe { bf_kernel_schedule(k, 0, null(), &mut started) },
        BF_OK
    );
    assert_eq!(started, 2);
    let mut r = bf_running_job::default();
    assert_eq!(unsafe { bf_kernel_running_job(k, 0, &mut r) }, BF_OK);
    assert_eq!((r.job.id, r.slot.machine, r.slot.duration), (1, 1, 50));
    let (mut has, mut at) = (false, 0);
    assert_eq!(
        unsafe { bf_kernel_next_wakeup(k, &mut has, &mut at) },
        BF_OK
    );
    assert_eq!((has, at), (true, 50));
    let mut steps = [bf_step::default(); 4];
    let mut total = 0;
    assert_eq!(
        unsafe { bf_kernel_plan_steps(k, 0, 1, steps.as_mut_ptr(), 4, &mut total) },
        BF_OK
    );
    assert_eq!(
        &steps[..total],
        &[bf_step { at: 0, free: 0 }, bf_step { at: 50, free: 4 }]
    );
    let mut policy = bf_policy_zeroed();
    assert_eq!(unsafe { bf_kernel_policy(k, &mut policy) }, BF_OK);
    assert_eq!(policy.kind, bf_policy_kind::BF_POLICY_CONSERVATIVE as u32);
    let mut keeps = false;
    assert_eq!(unsafe { bf_kernel_keeps_plan(k, &mut keeps) }, BF_OK);
    assert!(keeps);
    let mut now = 7;
    assert_eq!(unsafe { bf_kernel_now(k, &mut now) }, BF_OK);
    assert_eq!(now, 0);
    let mut promotion = 0;
    assert_eq!(
        unsafe { bf_kernel_promotion_time(k, &job(9, 0, 1, 10), &mut promotion) },
        BF_OK
    );
    assert_eq!(promotion, u32::MAX);
    let mut avg = bf_slowdown_average::default();
    assert_eq!(unsafe { bf_kernel_slowdown_average(k, &mut avg) }, BF_OK);
    let mut counters = bf_counters::default();
    assert_eq!(unsafe { bf_kernel_counters(k, &mut counters) }, BF_OK);
    assert_eq!(counters, bf_counters::default());
    // A reset empties it in place and restores the capacity as the limit.
    let cluster = c_cluster(&machines, &[]);
    let easy = to_c(Policy::Easy).unwrap();
    assert_eq!(unsafe { bf_kernel_reset(k, &cluster, &easy) }, BF_OK);
    assert_eq!(unsafe { bf_kernel_capacity(k, &mut cap) }, BF_OK);
    assert_eq!(cap.queue_limit, 64);
    assert_eq!(unsafe { bf_kernel_running_count(k, &mut total) }, BF_OK);
    assert_eq!(total, 0);
    valid(k);
}

/// The queue query as a controller reads it: one machine of 4 processors,
/// job 1 (4 processors) running until 100, job 2 (4) and job 3 (1)
/// waiting; each policy's reasons and expected starts, by its rules.
#[test]
fn the_waiting_query_gives_each_policys_reasons() {
    let machines = FOUR_CPUS;
    let none = bf_slot::default();
    let at = |start, duration| bf_slot {
        start,
        duration,
        machine: 0,
    };
    let processors = bf_reason::BF_REASON_PROCESSORS as u32;
    let expected_none = bf_expected::BF_EXPECTED_NONE as u32;
    // (policy, [(reason, reason_job, has_reason_time, reason_time,
    // expected, expected_slot)] of jobs 2 and 3)
    let cases = [
        (
            Policy::Fcfs,
            [
                (processors, 0, false, 0, expected_none, none),
                (
                    bf_reason::BF_REASON_BEHIND as u32,
                    2,
                    false,
                    0,
                    expected_none,
                    none,
                ),
            ],
        ),
        (
            Policy::Easy,
            [
                (
                    processors,
                    0,
                    true,
                    100,
                    bf_expected::BF_EXPECTED_SHADOW as u32,
                    at(100, 50),
                ),
                (processors, 0, false, 0, expected_none, none),
            ],
        ),
        (
            Policy::Conservative,
            [
                (
                    bf_reason::BF_REASON_RESERVED as u32,
                    0,
                    true,
                    100,
                    bf_expected::BF_EXPECTED_RESERVATION as u32,
                    at(100, 50),
                ),
                (
                    bf_reason::BF_REASON_RESERVED as u32,
                    0,
                    true,
                    150,
                    bf_expected::BF_EXPECTED_RESERVATION as u32,
                    at(150, 10),
                ),
            ],
        ),
    ];
    for (policy, expected) in cases {
        let mut mem = Mem::new(bf_kernel_s_size());
        let k = small(&mut mem, &machines, policy);
        for (id, procs, estimate) in [(1, 4, 100), (2, 4, 50), (3, 1, 10)] {
            let s = unsafe { bf_kernel_submit(k, 0, &job(id, 0, procs, estimate), null()) };
            assert_eq!(s, BF_OK);
        }
        assert_eq!(
            unsafe { bf_kernel_schedule(k, 0, null(), null_mut()) },
            BF_OK
        );
        let mut out = [bf_waiting::default(); 4];
        let mut count = 0;
        assert_eq!(
            unsafe { bf_kernel_waiting(k, out.as_mut_ptr(), out.len(), &mut count) },
            BF_OK
        );
        assert_eq!(count, 2, "{policy:?}");
        let got: Vec<_> = out[..count]
            .iter()
            .map(|w| {
                (
                    w.reason,
                    w.reason_job,
                    w.has_reason_time,
                    w.reason_time,
                    w.expected,
                    w.expected_slot,
                )
            })
            .collect();
        assert_eq!(got, expected, "{policy:?}");
        let ids: Vec<(usize, u32)> = out[..count]
            .iter()
            .map(|w| (w.position, w.job.id))
            .collect();
        assert_eq!(ids, [(0, 2), (1, 3)], "{policy:?}");
        // Too little room: the first ones, the count, BF_ERR_BAD_SIZE.
        let mut one = [bf_waiting::default(); 1];
        assert_eq!(
            unsafe { bf_kernel_waiting(k, one.as_mut_ptr(), 1, &mut count) },
            BF_ERR_BAD_SIZE
        );
        assert_eq!((count, one[0]), (2, out[0]));
        assert_eq!(
            unsafe { bf_kernel_waiting(k, null_mut(), 0, &mut count) },
            BF_ERR_BAD_SIZE
        );
        assert_eq!(
            unsafe { bf_kernel_waiting(k, null_mut(), 0, null_mut()) },
            BF_ERR_NULL_POINTER
        );
        assert_eq!(
            unsafe { bf_kernel_waiting(null(), null_mut(), 0, &mut count) },
            BF_ERR_NULL_POINTER
        );
        valid(k);
    }
}

/// `keep_searching` returning false stops CONS+RS's searches before their
/// first iteration; the schedule stays valid.
#[test]
fn keep_searching_bounds_the_random_search() {
    unsafe extern "C" fn stop(_: *mut c_void) -> bool {
        false
    }
    let iterations = |keep: Option<unsafe extern "C" fn(*mut c_void) -> bool>| {
        let mut mem = Mem::new(bf_kernel_s_size());
        let k = small(
            &mut mem,
            &[bf_machine {
                cpus: 8,
                speed: 1000,
            }],
            Policy::ConsRs(Default::default()),
        );
        let observer = bf_observer {
            keep_searching: keep,
            ..bf_observer::NONE
        };
        for id in 0..12 {
            let s = unsafe {
                bf_kernel_submit(k, 0, &job(id, 0, 1 + id % 5, 100 + 10 * id), &observer)
            };
            assert_eq!(s, BF_OK);
        }
        let mut now = 0;
        assert_eq!(
            unsafe { bf_kernel_schedule(k, now, &observer, null_mut()) },
            BF_OK
        );
        // End every running job early, one instant at a time.
        loop {
            let mut n = 0;
            assert_eq!(unsafe { bf_kernel_running_count(k, &mut n) }, BF_OK);
            if n == 0 {
                break;
            }
            let mut r = bf_running_job::default();
            assert_eq!(unsafe { bf_kernel_running_job(k, 0, &mut r) }, BF_OK);
            now = now.max(r.slot.start + 1);
            assert_eq!(
                unsafe { bf_kernel_complete(k, now, r.job.id, null_mut()) },
                BF_OK
            );
            assert_eq!(
                unsafe { bf_kernel_schedule(k, now, &observer, null_mut()) },
                BF_OK
            );
            valid(k);
        }
        let mut c = bf_counters::default();
        assert_eq!(unsafe { bf_kernel_counters(k, &mut c) }, BF_OK);
        (c.rs_searches, c.rs_iterations)
    };
    let (searches, free) = iterations(None);
    let (_, stopped) = iterations(Some(stop));
    assert!(
        searches > 0 && free > 0,
        "{searches} searches, {free} iterations"
    );
    assert_eq!(stopped, 0);
}

/// Policies from names and kinds, checked with their reasons.
#[test]
fn policies_by_name_kind_and_check() {
    let mut p = bf_policy_zeroed();
    for policy in Policy::ALL {
        let name = std::ffi::CString::new(policy.name()).unwrap();
        assert_eq!(unsafe { bf_policy_from_name(name.as_ptr(), &mut p) }, BF_OK);
        assert_eq!(p, to_c(policy).unwrap());
        let kind_name = unsafe { CStr::from_ptr(bf_policy_kind_name(p.kind)) };
        assert_eq!(kind_name.to_str().unwrap(), policy.name());
        let mut why = null();
        assert_eq!(unsafe { bf_policy_check(&p, &mut why) }, BF_OK);
        assert_eq!(unsafe { CStr::from_ptr(why) }.to_str().unwrap(), "ok");
    }
    assert!(bf_policy_kind_name(16).is_null());
    assert_eq!(
        unsafe { bf_policy_from_name(c"nope".as_ptr(), &mut p) },
        BF_ERR_BAD_OPTION
    );
    assert_eq!(
        unsafe { bf_policy_from_name(null(), &mut p) },
        BF_ERR_NULL_POINTER
    );
    assert_eq!(unsafe { bf_policy_default(16, &mut p) }, BF_ERR_BAD_OPTION);
    assert_eq!(
        unsafe { bf_policy_default(0, null_mut()) },
        BF_ERR_NULL_POINTER
    );
    assert_eq!(
        unsafe { bf_policy_default(bf_policy_kind::BF_POLICY_EASY as u32, &mut p) },
        BF_OK
    );
    p.dpsa.nodes = 1;
    let mut why = null();
    assert_eq!(unsafe { bf_policy_check(&p, &mut why) }, BF_ERR_BAD_OPTION);
    let why = unsafe { CStr::from_ptr(why) }.to_str().unwrap();
    assert!(why.starts_with("dpsa.nodes"), "{why}");
    let mut out = 0;
    let fast = bf_machine {
        cpus: 1,
        speed: 2000,
    };
    assert_eq!(unsafe { bf_machine_scale(&fast, 11, &mut out) }, BF_OK);
    assert_eq!(out, 6);
    let slow = bf_machine { cpus: 1, speed: 1 };
    assert_eq!(
        unsafe { bf_machine_scale(&slow, u32::MAX, &mut out) },
        BF_ERR_TIME_OVERFLOW
    );
    let stopped = bf_machine { cpus: 1, speed: 0 };
    assert_eq!(
        unsafe { bf_machine_scale(&stopped, 1, &mut out) },
        BF_ERR_BAD_MACHINE
    );
    let v = unsafe { CStr::from_ptr(bf_version()) };
    assert_eq!(v.to_str().unwrap(), env!("CARGO_PKG_VERSION"));
}
