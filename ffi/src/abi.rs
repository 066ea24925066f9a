//! The C functions, one module per area. Each is a thin `extern "C"`
//! wrapper: it checks its pointers (NULL, alignment), reads what C passed,
//! and goes through the handle dispatch ([`handle::call`],
//! [`handle::inspect`]) to the kernel; the logic lives in the safe `model`
//! modules.
//!
//! Every function here is `extern "C"` (not `"C-unwind"`): since Rust 1.81
//! a panic that tried to unwind out of one aborts the process instead of
//! entering C. Nothing here or in the kernel panics (their lints forbid
//! the ways to), so that is a backstop, not a path.
//!
//! # Adding a call
//!
//! A new kernel call gets its C twin in the same change: a method of
//! [`crate::model::tiers::Tiered`] (one line in its impl), a function in
//! the module of its area that goes through [`handle::call`] (changes the
//! kernel, may run callbacks) or [`handle::inspect`] (reads it), a test in
//! `ffi/tests/`, and the regenerated `include/backfill.h`.
#![allow(unsafe_code)]
#![allow(non_camel_case_types)]
#![deny(
    clippy::undocumented_unsafe_blocks,
    clippy::multiple_unsafe_ops_per_block,
    unsafe_op_in_unsafe_fn
)]

// In the header's order (cbindgen keeps the source order):
// memory first,
pub mod memory;
// the calls that change a kernel,
pub mod calls;
// the queries,
pub mod queries;
// checkpoints,
pub mod checkpoint;
// policies, statuses.
pub mod policy;
pub mod status;

pub mod handle;
pub mod observer;

use crate::model::policy::{bf_policy, of_c};
use crate::model::status::{bf_status, of_cluster};
use crate::model::types::{cluster_of, FarmCluster, BF_MAX_MACHINES, BF_MAX_POOLS};
use backfill_core::Policy;

/// A kernel in the caller's memory (opaque): what `bf_kernel_*_init`
/// returns and every `bf_kernel_*` call takes.
pub struct bf_kernel {
    _opaque: [u8; 0],
}

/// A cluster's machines and license pools, as C passes them to
/// `bf_kernel_*_init` and `bf_kernel_reset` (read during the call only).
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct bf_cluster {
    /// `machine_count` machines (at least 1, at most `BF_MAX_MACHINES`).
    pub machines: *const crate::model::types::bf_machine,
    /// How many.
    pub machine_count: usize,
    /// `pool_count` license pools (NULL when there are none).
    pub pools: *const crate::model::types::bf_license_pool,
    /// How many (at most `BF_MAX_POOLS`).
    pub pool_count: usize,
}

/// `Ok` as `BF_OK`, an error as itself.
fn code(result: Result<(), bf_status>) -> bf_status {
    result.err().unwrap_or(bf_status::BF_OK)
}

/// The cluster C describes at `cluster`.
///
/// # Safety
/// `cluster` is NULL or points to a `bf_cluster` whose arrays hold their
/// counts of elements.
unsafe fn read_cluster(cluster: *const bf_cluster) -> Result<FarmCluster, bf_status> {
    // SAFETY: the caller's promise.
    let c = unsafe { handle::input(cluster) }?;
    if c.machine_count > BF_MAX_MACHINES || c.pool_count > BF_MAX_POOLS {
        return Err(bf_status::BF_ERR_CLUSTER_TOO_MANY);
    }
    // SAFETY: the caller's promise; the count is small (checked above).
    let machines = unsafe { handle::input_array(c.machines, c.machine_count) }?;
    // SAFETY: as above.
    let pools = unsafe { handle::input_array(c.pools, c.pool_count) }?;
    cluster_of(machines, pools).map_err(|e| of_cluster(&e))
}

/// The policy C describes at `policy`.
///
/// # Safety
/// `policy` is NULL or points to a `bf_policy`.
unsafe fn read_policy(policy: *const bf_policy) -> Result<Policy, bf_status> {
    // SAFETY: the caller's promise.
    let p = unsafe { handle::input(policy) }?;
    of_c(p).map_err(|_| bf_status::BF_ERR_BAD_OPTION)
}
