//! The fuzz target's body (`fuzz/fuzz_targets/c_abi.rs`): arbitrary call
//! sequences on the C functions, the misuse included (NULL pointers,
//! buffers too small or misaligned, handles never initialised or released,
//! garbage memory passed as a handle, options out of range, callbacks that
//! call back into their kernel), and checkpoints written and restored
//! across tiers, damaged or not, on all three tiers. Checks: nothing
//! crashes; every call returns a known status, and each misuse exactly the
//! status that names it; every live kernel validates after every call; a
//! refused restore changes nothing, an undamaged one from a tier no larger
//! succeeds and gives back the state it was given.
//! Built for tests and with the `fuzzing` feature.
#![allow(unsafe_code)]
#![allow(
    clippy::undocumented_unsafe_blocks,
    clippy::multiple_unsafe_ops_per_block,
    clippy::indexing_slicing,
    clippy::arithmetic_side_effects,
    clippy::cast_possible_truncation,
    clippy::panic,
    clippy::unwrap_used,
    clippy::expect_used,
    missing_docs
)]

use crate::abi::calls::*;
use crate::abi::checkpoint::*;
use crate::abi::memory::*;
use crate::abi::policy::*;
use crate::abi::queries::*;
use crate::abi::status::*;
use crate::abi::{bf_cluster, bf_kernel};
use crate::bf_observer;
use crate::model::policy::bf_policy;
use crate::model::status::bf_status::{self, *};
use crate::model::types::*;
use core::ffi::{c_char, c_void};
use core::ptr::{null, null_mut};
use std::vec::Vec;

/// The fuzzer's bytes, read front to back; zeros once they run out.
struct Bytes<'a>(&'a [u8]);

impl Bytes<'_> {
    fn u8(&mut self) -> u8 {
        match self.0.split_first() {
            Some((b, rest)) => {
                self.0 = rest;
                *b
            }
            None => 0,
        }
    }
    fn u32(&mut self) -> u32 {
        u32::from_le_bytes([self.u8(), self.u8(), self.u8(), self.u8()])
    }
    fn below(&mut self, n: u32) -> u32 {
        if n == 0 {
            0
        } else {
            u32::from(self.u8()) % n
        }
    }
    fn small(&mut self, n: u32) -> u32 {
        self.u32() % n.max(1)
    }
    fn done(&self) -> bool {
        self.0.is_empty()
    }
}

/// Memory for one tier's kernel (aligned to 16, with slack to misalign).
struct Slot {
    mem: Vec<u128>,
    size: usize,
    init: Init,
    handle: Option<*mut bf_kernel>,
    now: u32,
}

type Init = unsafe extern "C" fn(
    *mut c_void,
    usize,
    *const bf_cluster,
    *const bf_policy,
    *mut *mut bf_kernel,
) -> bf_status;

/// What the callbacks see.
struct Seen {
    handle: *mut bf_kernel,
    started: Vec<u32>,
    reserved: u32,
    reenter: bool,
    stop_searching: bool,
}

unsafe extern "C" fn started(user: *mut c_void, job: *const bf_job, _: *const bf_slot) {
    let seen = unsafe { &mut *user.cast::<Seen>() };
    seen.started.push(unsafe { (*job).id });
    reenter(seen);
}

unsafe extern "C" fn reserved(user: *mut c_void, _: *const bf_job, _: *const bf_slot) {
    let seen = unsafe { &mut *user.cast::<Seen>() };
    seen.reserved += 1;
    reenter(seen);
}

unsafe extern "C" fn keep_searching(user: *mut c_void) -> bool {
    let seen = unsafe { &mut *user.cast::<Seen>() };
    !seen.stop_searching
}

/// A callback calling back into its kernel: always refused.
fn reenter(seen: &Seen) {
    if seen.reenter {
        let mut n = 0;
        let s = unsafe { bf_kernel_queued_count(seen.handle, &mut n) };
        assert_eq!(s, BF_ERR_BUSY);
        let s = unsafe { bf_kernel_schedule(seen.handle, 0, null(), null_mut()) };
        assert_eq!(s, BF_ERR_BUSY);
    }
}

fn known(s: bf_status) -> bf_status {
    assert!(bf_status::from_code(s as i32).is_some(), "{s:?}");
    s
}

/// Which handle a call gets.
enum Target {
    Live(usize),
    Null,
    Misaligned(usize),
    Garbage,
}

/// A cluster of 1-3 machines and 0-2 pools, or a broken one.
fn cluster(
    b: &mut Bytes<'_>,
    machines: &mut Vec<bf_machine>,
    pools: &mut Vec<bf_license_pool>,
) -> bf_cluster {
    machines.clear();
    pools.clear();
    let broken = b.below(16);
    let n = match broken {
        0 => 0,
        1 => 17,
        _ => 1 + b.below(3) as usize,
    };
    for _ in 0..n {
        machines.push(bf_machine {
            cpus: if broken == 2 { 0 } else { 1 + b.below(16) },
            speed: [500, 1000, 2000, 1][b.below(4) as usize],
        });
    }
    for _ in 0..b.below(3) {
        pools.push(bf_license_pool {
            count: b.below(3),
            machines: u32::from(b.u8()),
        });
    }
    bf_cluster {
        machines: if broken == 3 {
            null()
        } else {
            machines.as_ptr()
        },
        machine_count: machines.len(),
        pools: pools.as_ptr(),
        pool_count: pools.len(),
    }
}

/// A policy: a kind's defaults, sometimes with an option changed (in or
/// out of range, read by the kind or not), sometimes an unknown kind.
fn policy(b: &mut Bytes<'_>) -> bf_policy {
    let mut p = bf_policy_zero();
    let kind = b.below(17);
    if unsafe { bf_policy_default(kind, &mut p) } != BF_OK {
        assert_eq!(kind, 16);
        p = bf_policy_zero();
        p.kind = kind;
        return p;
    }
    match b.below(30) {
        0 => p.selective.threshold = b.u32() % 4000,
        1 => p.selective.thresholds[b.below(4) as usize] = b.u32() % 9000,
        2 => p.selective.scale = b.u32() % 3000,
        3 => p.selective.initial = b.u32() % 3000,
        4 => p.selective.well_estimated_only = b.below(3),
        5 => p.cons_rs.seed = u64::from(b.u32()),
        6 => (p.cons_rs.iterations_mode, p.cons_rs.iterations) = (b.below(3), b.small(30)),
        7 => p.dpsa.nodes = b.small(2000),
        8 => p.heuristics.deadline_weight = b.small(3000),
        9 => p.selective.short_max = b.small(10_000),
        _ => {}
    }
    p
}

fn bf_policy_zero() -> bf_policy {
    // FCFS (kind 0) with every option at its default.
    crate::model::policy::BASE
}

/// A job: mostly a fresh id that fits, now and then a duplicate id, too
/// wide, no processors, a zero estimate, submitted in the future.
fn job(b: &mut Bytes<'_>, now: u32, fresh: &mut u32) -> bf_job {
    let id = if b.below(8) == 0 {
        b.below(24)
    } else {
        *fresh = fresh.wrapping_add(1);
        *fresh
    };
    bf_job {
        id,
        submit: now
            .saturating_sub(b.below(50))
            .saturating_add(u32::from(b.below(16) == 0)),
        procs: if b.below(8) == 0 {
            b.below(40)
        } else {
            1 + b.below(8)
        },
        estimate: if b.below(32) == 0 {
            0
        } else {
            1 + b.small(500)
        },
        deadline: if b.below(2) == 0 {
            BF_NO_DEADLINE
        } else {
            now.saturating_add(b.small(2000))
        },
        licenses: if b.below(4) == 0 { b.below(8) } else { 0 },
        priority: 0,
        tag: 0,
    }
}

/// Runs the call sequence `data` describes.
pub fn c_abi(data: &[u8]) {
    let mut b = Bytes(data);
    let tiers: [(usize, Init); 3] = [
        (bf_kernel_s_size(), bf_kernel_s_init),
        (bf_kernel_m_size(), bf_kernel_m_init),
        (bf_kernel_l_size(), bf_kernel_l_init),
    ];
    let mut slots: Vec<Slot> = tiers
        .iter()
        .map(|&(size, init)| Slot {
            mem: std::vec![0; size.div_ceil(16) + 2],
            size,
            init,
            handle: None,
            now: 0,
        })
        .collect();
    // Garbage "handles": the fuzzer's bytes, never the magic number.
    let mut garbage: Vec<u128> = std::vec![0; 16];
    for word in &mut garbage {
        *word = u128::from(b.u32()) | (u128::from(b.u32()) << 64);
    }
    if garbage[0] as u64 == crate::abi::handle::MAGIC {
        garbage[0] ^= 1;
    }
    let (mut machines, mut pools) = (Vec::new(), Vec::new());
    let mut seen = Seen {
        handle: null_mut(),
        started: Vec::new(),
        reserved: 0,
        reenter: false,
        stop_searching: false,
    };
    // Kernels to work on from the start: the small and medium tiers, and
    // now and then the large one (8 MB to set up).
    for (t, slot) in slots.iter_mut().enumerate() {
        if t == 2 && b.below(8) != 0 {
            continue;
        }
        machines.clear();
        for _ in 0..=b.below(3) {
            machines.push(bf_machine {
                cpus: 1 + b.below(16),
                speed: [1000, 2000, 500][b.below(3) as usize],
            });
        }
        let c = bf_cluster {
            machines: machines.as_ptr(),
            machine_count: machines.len(),
            pools: null(),
            pool_count: 0,
        };
        let mut p = bf_policy_zero();
        assert_eq!(unsafe { bf_policy_default(b.below(16), &mut p) }, BF_OK);
        let mut out = null_mut();
        let s = unsafe { (slot.init)(slot.mem.as_mut_ptr().cast(), slot.size, &c, &p, &mut out) };
        assert_eq!(s, BF_OK);
        slot.handle = Some(out);
    }
    let mut fresh = 100;
    // The kernel's refusals (codes 20-39), but an inconsistency.
    let kernel_errors: Vec<bf_status> = bf_status::all()
        .into_iter()
        .filter(|s| (20..40).contains(&(*s as i32)) && *s != BF_ERR_INTERNAL)
        .collect();
    // A refused restore (codes 40 and up).
    let restore_errors: Vec<bf_status> = bf_status::all()
        .into_iter()
        .filter(|s| *s as i32 >= 40)
        .collect();
    // Checkpoints written so far: the tier written from, the bytes.
    let mut saved: Vec<(usize, Vec<u8>)> = Vec::new();
    let mut steps = 0;
    while !b.done() && steps < 400 {
        steps += 1;
        // The large tier costs 8 MB of zeroing per init: used rarely.
        let tier = match b.below(16) {
            0 => 2,
            n => (n % 2) as usize,
        };
        let target = match b.below(10) {
            0 => Target::Null,
            1 => Target::Misaligned(tier),
            2 => Target::Garbage,
            _ => Target::Live(tier),
        };
        let handle = |slots: &mut Vec<Slot>| -> (*mut bf_kernel, Option<bf_status>) {
            match target {
                Target::Null => (null_mut(), Some(BF_ERR_NULL_POINTER)),
                Target::Garbage => (garbage.as_ptr().cast_mut().cast(), Some(BF_ERR_BAD_HANDLE)),
                Target::Misaligned(t) => match slots[t].handle {
                    Some(h) => (h.wrapping_byte_add(8), Some(BF_ERR_BAD_ALIGNMENT)),
                    None => (null_mut(), Some(BF_ERR_NULL_POINTER)),
                },
                Target::Live(t) => match slots[t].handle {
                    Some(h) => (h, None),
                    // Memory never set up (or released): not a handle.
                    None => (slots[t].mem.as_mut_ptr().cast(), Some(BF_ERR_BAD_HANDLE)),
                },
            }
        };
        let (k, misuse) = handle(&mut slots);
        let expect = |s: bf_status, ok: &[bf_status]| {
            let s = known(s);
            match misuse {
                Some(m) => assert_eq!(s, m),
                None => assert!(ok.contains(&s) || s == BF_OK, "{s:?} not in {ok:?}"),
            }
        };
        let advance = |slots: &mut Vec<Slot>, b: &mut Bytes<'_>| -> u32 {
            let slot = &mut slots[tier];
            match b.below(12) {
                0 => slot.now.saturating_sub(b.small(100)),
                _ => {
                    slot.now = slot.now.saturating_add(b.small(300));
                    slot.now
                }
            }
        };
        seen.handle = k;
        seen.reenter = b.below(4) == 0;
        seen.stop_searching = b.below(2) == 0;
        let observer = bf_observer {
            started: (b.below(8) != 0).then_some(started as _),
            reserved: (b.below(8) != 0).then_some(reserved as _),
            keep_searching: (b.below(2) == 0).then_some(keep_searching as _),
            user: (&raw mut seen).cast(),
        };
        let observer_ptr: *const bf_observer = if b.below(8) == 0 { null() } else { &observer };
        // Other arguments are broken only when the handle is right, so that
        // each misuse has exactly one status to expect.
        let break_args = misuse.is_none() && b.below(8) == 0;
        match b.below(14) {
            0 => {
                // Init: right, too small, misaligned, NULL, broken cluster
                // or policy.
                let c = cluster(&mut b, &mut machines, &mut pools);
                let p = policy(&mut b);
                let slot = &mut slots[tier];
                let base: *mut u8 = slot.mem.as_mut_ptr().cast();
                let (mem, size) = match b.below(8) {
                    0 => (base.wrapping_add(1 + b.below(15) as usize), slot.size + 16),
                    1 => (base, b.small(slot.size as u32) as usize),
                    2 => (null_mut(), slot.size),
                    _ => (base, slot.size),
                };
                let mut out = null_mut();
                let out_ptr: *mut *mut bf_kernel = if b.below(16) == 0 {
                    null_mut()
                } else {
                    &mut out
                };
                let s = known(unsafe { (slot.init)(mem.cast(), size, &c, &p, out_ptr) });
                if s == BF_OK {
                    assert_eq!(out.cast::<u8>(), base);
                    slot.handle = Some(out);
                    slot.now = 0;
                } else if mem == base && size >= slot.size && !out_ptr.is_null() {
                    // Refused for the cluster or the policy (a live kernel
                    // there stays live: checked below).
                    let checked = unsafe { bf_policy_check(&p, null_mut()) };
                    let cluster_error = matches!(
                        s,
                        BF_ERR_CLUSTER_EMPTY
                            | BF_ERR_CLUSTER_TOO_MANY
                            | BF_ERR_BAD_MACHINE
                            | BF_ERR_NULL_POINTER
                    );
                    assert!(
                        cluster_error || (s == BF_ERR_BAD_OPTION && checked == s),
                        "{s:?}"
                    );
                }
            }
            1..=3 => {
                let now = advance(&mut slots, &mut b);
                let j = job(&mut b, now, &mut fresh);
                let job_ptr: *const bf_job = if break_args { null() } else { &j };
                let s = unsafe { bf_kernel_submit(k, now, job_ptr, observer_ptr) };
                if job_ptr.is_null() {
                    assert_eq!(s, BF_ERR_NULL_POINTER);
                } else {
                    expect(s, &kernel_errors);
                }
            }
            4 | 5 => {
                let now = advance(&mut slots, &mut b);
                let mut n = 0;
                let mut out = bf_running_job::default();
                let id = if b.below(4) != 0 && misuse.is_none() {
                    let mut r = bf_running_job::default();
                    let count = unsafe { bf_kernel_running_count(k, &mut n) };
                    assert_eq!(count, BF_OK);
                    if n > 0
                        && unsafe { bf_kernel_running_job(k, b.small(n as u32) as usize, &mut r) }
                            == BF_OK
                    {
                        r.job.id
                    } else {
                        b.below(24)
                    }
                } else {
                    b.below(24)
                };
                let want = b.below(2) == 0;
                let s = unsafe {
                    bf_kernel_complete(k, now, id, if want { &mut out } else { null_mut() })
                };
                expect(s, &kernel_errors);
                if s == BF_OK && want {
                    assert_eq!(out.job.id, id);
                }
            }
            6 | 7 => {
                let now = advance(&mut slots, &mut b);
                let mut n = 0;
                seen.started.clear();
                let s = unsafe { bf_kernel_schedule(k, now, observer_ptr, &mut n) };
                expect(s, &kernel_errors);
                if s == BF_OK && !observer_ptr.is_null() && observer.started.is_some() {
                    assert_eq!(n as usize, seen.started.len());
                }
            }
            8 => {
                // The queries, with bad output pointers now and then.
                let mut u = 0_u32;
                let mut z = 0_usize;
                let mut flag = false;
                let null_out = break_args;
                let s = unsafe { bf_kernel_now(k, if null_out { null_mut() } else { &mut u }) };
                expect(s, &[BF_ERR_NULL_POINTER]);
                let s = unsafe {
                    bf_kernel_next_wakeup(k, &mut flag, if null_out { null_mut() } else { &mut u })
                };
                expect(s, &[BF_ERR_NULL_POINTER]);
                let mut cap = bf_capacity::default();
                expect(unsafe { bf_kernel_capacity(k, &mut cap) }, &[]);
                let mut p = bf_policy_zero();
                expect(unsafe { bf_kernel_policy(k, &mut p) }, &[]);
                if misuse.is_none() {
                    assert_eq!(unsafe { bf_policy_check(&p, null_mut()) }, BF_OK);
                }
                expect(unsafe { bf_kernel_keeps_plan(k, &mut flag) }, &[]);
                expect(unsafe { bf_kernel_queued_count(k, &mut z) }, &[]);
                let mut q = bf_queued_job::default();
                expect(
                    unsafe { bf_kernel_queued_job(k, b.below(8) as usize, &mut q) },
                    &[BF_ERR_OUT_OF_RANGE],
                );
                let mut r = bf_running_job::default();
                expect(
                    unsafe { bf_kernel_running_job(k, b.below(8) as usize, &mut r) },
                    &[BF_ERR_OUT_OF_RANGE],
                );
                let mut c = bf_counters::default();
                expect(unsafe { bf_kernel_counters(k, &mut c) }, &[]);
                let j = job(&mut b, 0, &mut fresh);
                expect(unsafe { bf_kernel_promotion_time(k, &j, &mut u) }, &[]);
                let mut a = bf_slowdown_average::default();
                expect(unsafe { bf_kernel_slowdown_average(k, &mut a) }, &[]);
                let mut steps_out = [bf_step::default(); 8];
                let cap_steps = b.below(9) as usize;
                let resource = b.below(if break_args { 3 } else { 2 });
                let s = unsafe {
                    bf_kernel_plan_steps(
                        k,
                        resource,
                        b.below(4),
                        steps_out.as_mut_ptr(),
                        cap_steps,
                        &mut z,
                    )
                };
                expect(
                    s,
                    &[BF_ERR_BAD_OPTION, BF_ERR_OUT_OF_RANGE, BF_ERR_BAD_SIZE],
                );
                let mut waiting_out = [bf_waiting::default(); 8];
                let cap_waiting = b.below(9) as usize;
                let s =
                    unsafe { bf_kernel_waiting(k, waiting_out.as_mut_ptr(), cap_waiting, &mut z) };
                expect(s, &[BF_ERR_BAD_SIZE]);
                if s == BF_OK && misuse.is_none() {
                    // As many as wait, in queue order.
                    let mut queued = 0_usize;
                    assert_eq!(unsafe { bf_kernel_queued_count(k, &mut queued) }, BF_OK);
                    assert_eq!(z, queued);
                    for (i, w) in waiting_out.iter().take(z).enumerate() {
                        assert_eq!(w.position, i);
                    }
                }
                let mut e = bf_error::default();
                expect(unsafe { bf_kernel_last_error(k, &mut e) }, &[]);
                let mut text = [0 as c_char; 24];
                let len = b.below(25) as usize;
                let s = unsafe { bf_kernel_last_error_text(k, text.as_mut_ptr(), len, &mut z) };
                expect(s, &[BF_ERR_BAD_SIZE]);
            }
            9 => {
                let limit = b.small(80) as usize;
                expect(
                    unsafe { bf_kernel_set_queue_limit(k, limit) },
                    &[BF_ERR_BAD_OPTION],
                );
            }
            10 => {
                let c = cluster(&mut b, &mut machines, &mut pools);
                let p = policy(&mut b);
                let s = known(unsafe { bf_kernel_reset(k, &c, &p) });
                if s == BF_OK {
                    slots[tier].now = 0;
                }
                if let Some(m) = misuse {
                    // The cluster and policy are read before the handle.
                    assert!(s == m || !matches!(s, BF_OK | BF_ERR_BUSY), "{s:?}");
                }
            }
            11 | 12 => {
                checkpoint_op(
                    &mut b,
                    &mut slots,
                    tier,
                    k,
                    misuse,
                    break_args,
                    &mut saved,
                    &restore_errors,
                );
            }
            _ => match b.below(6) {
                0 => {
                    let s = unsafe { bf_kernel_release(k) };
                    expect(s, &[]);
                    if s == BF_OK {
                        if let Target::Live(t) = target {
                            slots[t].handle = None;
                        }
                    }
                }
                1 => {
                    let _ = bf_status_message(b.u32() as i32);
                    let _ = bf_policy_kind_name(b.u32() % 20);
                }
                2 => {
                    let mut name = [0_u8; 12];
                    for c in name.iter_mut().take(11) {
                        *c = b"abcdefilmnoprstuvw-"[b.below(19) as usize];
                    }
                    let mut p = bf_policy_zero();
                    let s = known(unsafe { bf_policy_from_name(name.as_ptr().cast(), &mut p) });
                    assert!(matches!(s, BF_OK | BF_ERR_BAD_OPTION));
                }
                3 => {
                    let m = bf_machine {
                        cpus: b.u32(),
                        speed: b.u32() % 3000,
                    };
                    let mut u = 0;
                    let s = known(unsafe { bf_machine_scale(&m, b.u32(), &mut u) });
                    assert!(matches!(
                        s,
                        BF_OK | BF_ERR_TIME_OVERFLOW | BF_ERR_BAD_MACHINE
                    ));
                }
                _ => {
                    let p = policy(&mut b);
                    let mut why = null();
                    let s = known(unsafe { bf_policy_check(&p, &mut why) });
                    assert!(matches!(s, BF_OK | BF_ERR_BAD_OPTION));
                    assert!(!why.is_null());
                }
            },
        }
        // Every live kernel is valid after every call.
        for slot in &slots {
            if let Some(h) = slot.handle {
                let mut why = [0 as c_char; 96];
                let s = unsafe { bf_kernel_validate(h, why.as_mut_ptr(), why.len()) };
                let text = unsafe { core::ffi::CStr::from_ptr(why.as_ptr()) };
                assert_eq!(s, BF_OK, "{text:?}");
            }
        }
    }
}

/// A kernel's checkpoint through the C functions (`None` when refused).
fn checkpoint_bytes(k: *const bf_kernel) -> Option<Vec<u8>> {
    let mut size = 0;
    if unsafe { bf_kernel_checkpoint_size(k, &mut size) } != BF_OK {
        return None;
    }
    let mut buf = std::vec![0_u8; size];
    let mut n = 0;
    let s = unsafe { bf_kernel_checkpoint(k, buf.as_mut_ptr(), size, &mut n) };
    (s == BF_OK).then(|| {
        buf.truncate(n);
        buf
    })
}

/// Checkpoint size, checkpoint (into a buffer of any size, or NULL), or
/// restore (a checkpoint written before, damaged or not, or bytes from the
/// fuzzer) on `k`, handle `tier`'s. A refused restore leaves the kernel's
/// checkpoint and last error as they were; an undamaged checkpoint of a
/// tier no larger restores; a larger tier's is refused for its capacity;
/// a restored kernel writes the state it was given back.
#[allow(clippy::too_many_arguments)]
fn checkpoint_op(
    b: &mut Bytes<'_>,
    slots: &mut [Slot],
    tier: usize,
    k: *mut bf_kernel,
    misuse: Option<bf_status>,
    break_args: bool,
    saved: &mut Vec<(usize, Vec<u8>)>,
    restore_errors: &[bf_status],
) {
    let expect = |s: bf_status, ok: &[bf_status]| {
        let s = known(s);
        match misuse {
            Some(m) => assert_eq!(s, m),
            None => assert!(ok.contains(&s) || s == BF_OK, "{s:?} not in {ok:?}"),
        }
    };
    let sizes = [
        BF_CHECKPOINT_S_SIZE,
        BF_CHECKPOINT_M_SIZE,
        BF_CHECKPOINT_L_SIZE,
    ];
    match b.below(3) {
        0 => {
            let mut size = 0;
            let out: *mut usize = if break_args { null_mut() } else { &mut size };
            let s = unsafe { bf_kernel_checkpoint_size(k, out) };
            if break_args {
                assert_eq!(s, BF_ERR_NULL_POINTER);
            } else {
                expect(s, &[]);
                if s == BF_OK {
                    assert_eq!(size, sizes[tier]);
                }
            }
        }
        1 => {
            let cap = match b.below(4) {
                0 => b.small(600) as usize,
                _ => sizes[tier],
            };
            let mut buf = std::vec![0_u8; cap + 1];
            let mut n = 0;
            let buf_ptr = if break_args {
                null_mut()
            } else {
                buf.as_mut_ptr()
            };
            let s = unsafe { bf_kernel_checkpoint(k, buf_ptr, cap, &mut n) };
            if break_args {
                assert_eq!(s, BF_ERR_NULL_POINTER);
                return;
            }
            expect(s, &[BF_ERR_BAD_SIZE]);
            if s == BF_OK {
                assert!(n <= cap);
                assert_eq!(buf[cap], 0, "written past the length given");
                buf.truncate(n);
                if saved.len() == 8 {
                    saved.remove(0);
                }
                saved.push((tier, buf));
            }
        }
        _ => {
            let (from, mut bytes) = match saved.len() {
                0 => (3, Vec::new()),
                n => saved[b.small(n as u32) as usize].clone(),
            };
            let damaged = match b.below(6) {
                0 => {
                    let at = b.small(bytes.len().max(1) as u32) as usize;
                    if let Some(byte) = bytes.get_mut(at) {
                        *byte ^= 1 << b.below(8);
                    }
                    true
                }
                1 => {
                    let keep = b.small(bytes.len().max(1) as u32) as usize;
                    bytes.truncate(keep);
                    true
                }
                2 => {
                    bytes = (0..b.below(80)).map(|_| b.u8()).collect();
                    true
                }
                _ => false,
            } || from == 3;
            let before = (misuse.is_none()).then(|| checkpoint_bytes(k));
            let mut e_before = bf_error::default();
            let _ = unsafe { bf_kernel_last_error(k, &mut e_before) };
            let bytes_ptr = if break_args { null() } else { bytes.as_ptr() };
            let len = if break_args {
                bytes.len().max(1)
            } else {
                bytes.len()
            };
            let s = unsafe { bf_kernel_restore(k, bytes_ptr, len) };
            if break_args {
                assert_eq!(s, BF_ERR_NULL_POINTER);
                return;
            }
            expect(s, restore_errors);
            if misuse.is_some() {
                return;
            }
            if !damaged {
                let fits = from <= tier;
                assert_eq!(s == BF_OK, fits, "{s:?} restoring tier {from} into {tier}");
                if !fits {
                    assert_eq!(s, BF_ERR_CHECKPOINT_CAPACITY);
                }
            }
            if s == BF_OK {
                let again = checkpoint_bytes(k).expect("a restored kernel checkpoints");
                // The state, between header and trailer, is what was given.
                let state = |c: &[u8]| c.get(40..c.len().saturating_sub(4)).map(<[u8]>::to_vec);
                assert_eq!(state(&again), state(&bytes), "written back otherwise");
                let mut e = bf_error::default();
                assert_eq!(unsafe { bf_kernel_last_error(k, &mut e) }, BF_OK);
                assert_eq!(e.status, BF_OK as i32, "a restore clears the last error");
                let mut now = 0;
                assert_eq!(unsafe { bf_kernel_now(k, &mut now) }, BF_OK);
                slots[tier].now = now;
            } else {
                assert_eq!(
                    Some(checkpoint_bytes(k)),
                    before,
                    "a refused restore changed the kernel"
                );
                let mut e = bf_error::default();
                assert_eq!(unsafe { bf_kernel_last_error(k, &mut e) }, BF_OK);
                assert_eq!(
                    (e.status, e.job),
                    (e_before.status, e_before.job),
                    "a refused restore changed the last error"
                );
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use backfill_core::rng::SplitMix64;

    /// The fuzz body on seeded random inputs (the fuzzer explores further).
    #[test]
    fn random_call_sequences() {
        let mut rng = SplitMix64::new(5);
        for _ in 0..150 {
            let len = 64 + rng.below(2048) as usize;
            let data: std::vec::Vec<u8> = (0..len).map(|_| rng.next_u64() as u8).collect();
            super::c_abi(&data);
        }
    }
}
