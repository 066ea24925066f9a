//! Checkpoints through the C functions: the sizes, a kernel restored in
//! another tier's memory going on as the original, the Rust kernel's bytes
//! read by C and the other way round, and each refusal a status that
//! changes nothing.
#![allow(unsafe_code)]
#![allow(clippy::undocumented_unsafe_blocks)]

mod common;

use backfill_core::{Cluster, Job, Kernel, Machine, Policy};
use backfill_ffi::abi::calls::*;
use backfill_ffi::abi::checkpoint::*;
use backfill_ffi::abi::memory::*;
use backfill_ffi::abi::queries::*;
use backfill_ffi::model::policy::to_c;
use backfill_ffi::model::status::bf_status::{self, *};
use backfill_ffi::model::types::*;
use backfill_ffi::{bf_kernel, bf_observer};
use common::{Init, Mem, TIERS};
use std::ptr::{null, null_mut};

/// The tests' two machines (the second twice as fast); the Rust kernels
/// get the same ones.
const MACHINES: [bf_machine; 2] = [
    bf_machine {
        cpus: 8,
        speed: 1000,
    },
    bf_machine {
        cpus: 8,
        speed: 2000,
    },
];

/// A kernel of the tier `init` sets up, in `mem`, on two machines.
fn kernel(mem: &mut Mem, init: Init, policy: Policy) -> *mut bf_kernel {
    common::kernel(mem, init, &MACHINES, policy)
}

/// `k`'s checkpoint.
fn checkpoint(k: *const bf_kernel) -> Vec<u8> {
    let mut size = 0;
    assert_eq!(unsafe { bf_kernel_checkpoint_size(k, &mut size) }, BF_OK);
    let mut buf = vec![0_u8; size];
    let mut n = 0;
    assert_eq!(
        unsafe { bf_kernel_checkpoint(k, buf.as_mut_ptr(), size, &mut n) },
        BF_OK
    );
    buf.truncate(n);
    buf
}

/// The state part (between the header and the trailer).
fn state(c: &[u8]) -> &[u8] {
    &c[40..c.len() - 4]
}

/// Drives `k` through `steps` more instants of a fixed workload: jobs
/// arrive every 7 seconds, each ends after half its estimate.
fn drive(k: *mut bf_kernel, from: u32, steps: u32) {
    for t in from..from + steps {
        let now = t * 7;
        let mut n = 0;
        assert_eq!(unsafe { bf_kernel_running_count(k, &mut n) }, BF_OK);
        let mut due = Vec::new();
        for i in 0..n {
            let mut r = bf_running_job::default();
            assert_eq!(unsafe { bf_kernel_running_job(k, i, &mut r) }, BF_OK);
            let end = r.slot.start + r.slot.duration / 2;
            if end <= now {
                due.push(r.job.id);
            }
        }
        for id in due {
            assert_eq!(unsafe { bf_kernel_complete(k, now, id, null_mut()) }, BF_OK);
        }
        let job = bf_job::from(&Job::new(t, now, 1 + t % 8, 20 + (t * 13) % 90));
        let s = unsafe { bf_kernel_submit(k, now, &job, null()) };
        assert!(matches!(s, BF_OK | BF_ERR_QUEUE_FULL), "{s:?}");
        assert_eq!(
            unsafe { bf_kernel_schedule(k, now, null::<bf_observer>(), null_mut()) },
            BF_OK
        );
    }
}

/// Each tier's checkpoint size is its constant, the Rust kernel's.
#[test]
fn sizes_are_the_tiers_constants() {
    let checkpoint_sizes = [
        BF_CHECKPOINT_S_SIZE,
        BF_CHECKPOINT_M_SIZE,
        BF_CHECKPOINT_L_SIZE,
    ];
    for ((size, init), expected) in TIERS.into_iter().zip(checkpoint_sizes) {
        let mut mem = Mem::new(size());
        let k = kernel(&mut mem, init, Policy::Easy);
        let mut size = 0;
        assert_eq!(unsafe { bf_kernel_checkpoint_size(k, &mut size) }, BF_OK);
        assert_eq!(size, expected);
        // An empty kernel's checkpoint is small.
        assert!(checkpoint(k).len() < 400);
    }
    assert_eq!(
        BF_CHECKPOINT_S_SIZE,
        Kernel::<64, 64, 193, 16, 8>::checkpoint_size()
    );
}

/// A small-tier kernel checkpointed part way, under every policy, restores
/// into a small, a medium and a large kernel set up for something else;
/// all go on as the original (the same state, step for step); a medium
/// kernel's checkpoint is refused by the small tier, which stays as it was.
#[test]
fn a_kernel_restored_in_any_larger_tier_goes_on_as_the_original() {
    for policy in Policy::ALL {
        let mut mem_s = Mem::new(bf_kernel_s_size());
        let original = kernel(&mut mem_s, bf_kernel_s_init, policy);
        drive(original, 0, 30);
        let bytes = checkpoint(original);
        let mut others: Vec<(Mem, *mut bf_kernel)> = Vec::new();
        for (size, init) in TIERS {
            let mut mem = Mem::new(size());
            let k = kernel(&mut mem, init, Policy::Fcfs);
            drive(k, 0, 3);
            assert_eq!(
                unsafe { bf_kernel_restore(k, bytes.as_ptr(), bytes.len()) },
                BF_OK
            );
            others.push((mem, k));
        }
        drive(original, 30, 40);
        for (_, k) in &others {
            drive(*k, 30, 40);
            assert_eq!(
                state(&checkpoint(*k)),
                state(&checkpoint(original)),
                "{policy}"
            );
        }
        // A medium kernel's checkpoint does not fit the small tier.
        let medium = checkpoint(others[1].1);
        let before = checkpoint(original);
        let s = unsafe { bf_kernel_restore(original, medium.as_ptr(), medium.len()) };
        assert_eq!(s, BF_ERR_CHECKPOINT_CAPACITY);
        assert_eq!(checkpoint(original), before);
    }
}

/// The Rust kernel of the S tier's capacities on `cluster` under `policy`
/// after ten arrivals, and its checkpoint.
fn rust_kernel(
    cluster: Cluster<16, 8>,
    policy: Policy,
) -> (Box<Kernel<64, 64, 193, 16, 8>>, Vec<u8>) {
    let mut rust: Box<Kernel<64, 64, 193, 16, 8>> = Box::new(Kernel::new(cluster, policy));
    for id in 0..10 {
        rust.submit(id, Job::new(id, id, 4, 100), &mut ()).unwrap();
        rust.schedule(id, &mut ()).unwrap();
    }
    let mut buf = vec![0_u8; Kernel::<64, 64, 193, 16, 8>::checkpoint_size()];
    let len = rust.checkpoint(&mut buf).unwrap();
    buf.truncate(len);
    (rust, buf)
}

/// The Rust kernel's checkpoint restores through C, and C's into the Rust
/// kernel of the tier's capacities.
#[test]
fn rust_and_c_read_each_others_checkpoints() {
    let machines = MACHINES.map(|m| Machine {
        cpus: m.cpus,
        speed: m.speed,
    });
    let cluster: Cluster<16, 8> = Cluster::new(&machines, &[]).unwrap();
    let (mut rust, bytes) = rust_kernel(cluster, Policy::Conservative);
    let mut mem = Mem::new(bf_kernel_s_size());
    let k = kernel(&mut mem, bf_kernel_s_init, Policy::Easy);
    assert_eq!(
        unsafe { bf_kernel_restore(k, bytes.as_ptr(), bytes.len()) },
        BF_OK
    );
    assert_eq!(checkpoint(k), bytes);
    drive(k, 10, 5);
    let from_c = checkpoint(k);
    rust.restore(&from_c).unwrap();
    rust.validate().unwrap();
}

/// A Rust host's checkpoint under one of the kernel's option variants
/// (Conservative with the rebuild compression, the Alea flavour of
/// CONS+RS) restores through C and runs, but C has no kind for its
/// policy: `bf_kernel_policy` says so with `BF_ERR_BAD_OPTION` and leaves
/// its output alone (never another policy's form), and
/// `bf_policy_from_name` refuses the variants' names.
#[test]
fn option_variants_restore_but_have_no_c_policy() {
    for policy in Policy::OPTION_VARIANTS {
        let (mut rust, bytes) = rust_kernel(Cluster::single(8).unwrap(), policy);
        let mut mem = Mem::new(bf_kernel_s_size());
        let k = kernel(&mut mem, bf_kernel_s_init, Policy::Easy);
        assert_eq!(
            unsafe { bf_kernel_restore(k, bytes.as_ptr(), bytes.len()) },
            BF_OK
        );
        assert_eq!(checkpoint(k), bytes, "{policy}");
        let mut out = to_c(Policy::Easy).unwrap();
        let before = out;
        assert_eq!(
            unsafe { bf_kernel_policy(k, &mut out) },
            BF_ERR_BAD_OPTION,
            "{policy}"
        );
        assert_eq!(out, before, "{policy}: the output changed");
        let name = std::ffi::CString::new(policy.name()).unwrap();
        assert_eq!(
            unsafe { backfill_ffi::abi::policy::bf_policy_from_name(name.as_ptr(), &mut out) },
            BF_ERR_BAD_OPTION,
            "{policy}"
        );
        assert_eq!(out, before);
        drive(k, 10, 5);
        rust.restore(&checkpoint(k)).unwrap();
        rust.validate().unwrap();
    }
}

/// Misuse and damage are statuses; a refused restore leaves the kernel and
/// its last error as they were, and a restore clears the last error.
#[test]
fn refusals_are_statuses_and_change_nothing() {
    let mut mem = Mem::new(bf_kernel_s_size());
    let k = kernel(&mut mem, bf_kernel_s_init, Policy::Conservative);
    drive(k, 0, 20);
    let good = checkpoint(k);
    // A refused call leaves an error to read.
    let s = unsafe { bf_kernel_complete(k, 1000, 9999, null_mut()) };
    assert_eq!(s, BF_ERR_UNKNOWN_JOB);
    let last = || {
        let mut e = bf_error::default();
        assert_eq!(unsafe { bf_kernel_last_error(k, &mut e) }, BF_OK);
        (e.status, e.job)
    };
    let unknown = last();
    assert_eq!(unknown, (BF_ERR_UNKNOWN_JOB as i32, 9999));
    let before = checkpoint(k);
    let mut flipped = good.clone();
    flipped[60] ^= 1;
    let mut newer = good.clone();
    newer[8] = 2;
    let cases: [(&[u8], bf_status); 6] = [
        (&good[..good.len() - 1], BF_ERR_CHECKPOINT_TRUNCATED),
        (
            &[good.as_slice(), &[0]].concat(),
            BF_ERR_CHECKPOINT_TRAILING_BYTES,
        ),
        (
            b"not a checkpoint at all, just some text",
            BF_ERR_CHECKPOINT_BAD_MAGIC,
        ),
        (&newer, BF_ERR_CHECKPOINT_NEWER_VERSION),
        (&flipped, BF_ERR_CHECKPOINT_CHECKSUM),
        (&[], BF_ERR_CHECKPOINT_TRUNCATED),
    ];
    for (bytes, status) in cases {
        let s = unsafe { bf_kernel_restore(k, bytes.as_ptr(), bytes.len()) };
        assert_eq!(s, status);
        assert_eq!(checkpoint(k), before);
        assert_eq!(last(), unknown);
    }
    let mut header = good.clone();
    header[20] ^= 1;
    assert_eq!(
        unsafe { bf_kernel_restore(k, header.as_ptr(), header.len()) },
        BF_ERR_CHECKPOINT_HEADER_CHECKSUM
    );
    // Pointers.
    assert_eq!(
        unsafe { bf_kernel_restore(k, null(), 10) },
        BF_ERR_NULL_POINTER
    );
    assert_eq!(
        unsafe { bf_kernel_restore(null_mut(), good.as_ptr(), good.len()) },
        BF_ERR_NULL_POINTER
    );
    let mut n = 0;
    let mut small = [0_u8; 100];
    assert_eq!(
        unsafe { bf_kernel_checkpoint(k, small.as_mut_ptr(), small.len(), &mut n) },
        BF_ERR_BAD_SIZE
    );
    assert_eq!(small, [0; 100], "nothing written");
    assert_eq!(
        unsafe { bf_kernel_checkpoint(k, null_mut(), 10, &mut n) },
        BF_ERR_NULL_POINTER
    );
    assert_eq!(
        unsafe { bf_kernel_checkpoint(k, small.as_mut_ptr(), 100, null_mut()) },
        BF_ERR_NULL_POINTER
    );
    assert_eq!(
        unsafe { bf_kernel_checkpoint_size(k, null_mut()) },
        BF_ERR_NULL_POINTER
    );
    // Every refusal has its message.
    for code in 40..=50 {
        let s = bf_status::from_code(code).expect("a checkpoint code");
        assert!(!s.message().is_empty());
    }
    // The good one restores, and the last error is cleared.
    assert_eq!(
        unsafe { bf_kernel_restore(k, good.as_ptr(), good.len()) },
        BF_OK
    );
    assert_eq!(last(), (BF_OK as i32, 0));
    assert_eq!(checkpoint(k), good);
}
