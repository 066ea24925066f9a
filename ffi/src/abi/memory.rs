//! The kernel's memory: how much each tier needs, setting a kernel up in
//! the caller's memory, and giving the memory back.
//!
//! Each tier has its own three functions (`bf_kernel_s_*`, `_m_`, `_l_`);
//! everything else takes the `bf_kernel` they return, whatever its tier.

use crate::abi::handle::{self, size_of_tier, ALIGN};
use crate::abi::{bf_cluster, bf_kernel, code, read_cluster, read_policy};
use crate::model::policy::bf_policy;
use crate::model::status::bf_status;
use crate::model::tiers::Tier;
use core::ffi::c_void;

/// Bytes of a small-tier kernel on x86_64: `bf_kernel_s_size()` there
/// (checked when the library is built), for a static buffer. Other targets
/// (32-bit ones differ): ask `bf_kernel_s_size()`; init refuses a buffer
/// too small with `BF_ERR_BAD_SIZE`.
#[cfg(target_arch = "x86_64")]
pub const BF_KERNEL_S_SIZE: usize = 45_344;
/// Bytes of a medium-tier kernel on x86_64 (see `BF_KERNEL_S_SIZE`).
#[cfg(target_arch = "x86_64")]
pub const BF_KERNEL_M_SIZE: usize = 701_984;
/// Bytes of a large-tier kernel on x86_64 (see `BF_KERNEL_S_SIZE`).
#[cfg(target_arch = "x86_64")]
pub const BF_KERNEL_L_SIZE: usize = 8_111_648;
/// Alignment of every tier's kernel on x86_64 (see `BF_KERNEL_S_SIZE`).
#[cfg(target_arch = "x86_64")]
pub const BF_KERNEL_ALIGN: usize = 16;

#[cfg(target_arch = "x86_64")]
const _: () = assert!(
    BF_KERNEL_S_SIZE == size_of_tier(Tier::S)
        && BF_KERNEL_M_SIZE == size_of_tier(Tier::M)
        && BF_KERNEL_L_SIZE == size_of_tier(Tier::L)
        && BF_KERNEL_ALIGN == ALIGN,
    "the kernel's layout changed: set BF_KERNEL_*_SIZE to bf_kernel_*_size() \
     (cargo test -p backfill-ffi --test sizes -- --nocapture prints them) \
     and regenerate include/backfill.h"
);

/// Sets a kernel of `tier` up in `mem`.
///
/// # Safety
/// As the `bf_kernel_*_init` functions.
unsafe fn init(
    tier: Tier,
    mem: *mut c_void,
    size: usize,
    cluster: *const bf_cluster,
    policy: *const bf_policy,
    out: *mut *mut bf_kernel,
) -> bf_status {
    let run = || {
        if mem.is_null() || out.is_null() {
            return Err(bf_status::BF_ERR_NULL_POINTER);
        }
        if size < size_of_tier(tier) {
            return Err(bf_status::BF_ERR_BAD_SIZE);
        }
        if (mem as usize) % ALIGN != 0 || !out.is_aligned() {
            return Err(bf_status::BF_ERR_BAD_ALIGNMENT);
        }
        // SAFETY: the caller's promise about `cluster`; it is read in full
        // before `mem` is touched (it may lie in it), as is `policy`.
        let cluster = unsafe { read_cluster(cluster) }?;
        // SAFETY: the caller's promise about `policy`.
        let policy = unsafe { read_policy(policy) }?;
        // SAFETY: `mem` holds at least a tier's size, more than a header.
        if unsafe { handle::is_busy(mem.cast()) } {
            return Err(bf_status::BF_ERR_BUSY);
        }
        // SAFETY: not NULL, aligned, `size` bytes the caller owns (its
        // promise), at least the tier's; not a busy handle's.
        let kernel = unsafe { handle::build(tier, mem.cast(), cluster, policy) };
        // SAFETY: checked above: not NULL, aligned; the caller's to write.
        unsafe { handle::output(out, kernel) }
    };
    code(run())
}

/// Bytes of memory a small-tier kernel needs (64 queued jobs, 64 running,
/// 193 profile steps, 16 machines, 8 license pools). The figure depends on
/// the target (pointer width, alignment): reserve it as this function
/// gives it on the target (on x86_64: `BF_KERNEL_S_SIZE`).
#[no_mangle]
pub extern "C" fn bf_kernel_s_size() -> usize {
    size_of_tier(Tier::S)
}

/// Alignment, in bytes, of a small-tier kernel's memory.
#[no_mangle]
pub extern "C" fn bf_kernel_s_align() -> usize {
    ALIGN
}

/// Sets a small-tier kernel up in `mem` for `cluster` and `policy`, at
/// time 0 with nothing queued or running, and stores its handle in `*out`.
/// Builds nothing on the stack: the kernel is made where it lies (any
/// previous content of `mem`, a kernel included, is overwritten).
///
/// Needs: `mem` of at least `bf_kernel_s_size()` bytes, aligned to
/// `bf_kernel_s_align()`, owned by the caller and used for nothing else
/// while the kernel lives; `cluster` and `policy` are read during the call
/// only. Returns `BF_OK`; `BF_ERR_NULL_POINTER`, `BF_ERR_BAD_SIZE`,
/// `BF_ERR_BAD_ALIGNMENT`, a cluster error or `BF_ERR_BAD_OPTION` (see
/// `bf_policy_check`) with `mem` untouched; `BF_ERR_BUSY` when `mem` holds
/// a kernel whose call is running a callback.
///
/// # Safety
/// `mem` points to `size` writable bytes the caller owns; `cluster`,
/// `policy` and `out` are NULL or valid for their types, `cluster`'s arrays
/// for their counts.
#[no_mangle]
pub unsafe extern "C" fn bf_kernel_s_init(
    mem: *mut c_void,
    size: usize,
    cluster: *const bf_cluster,
    policy: *const bf_policy,
    out: *mut *mut bf_kernel,
) -> bf_status {
    // SAFETY: the caller's promise, passed on.
    unsafe { init(Tier::S, mem, size, cluster, policy, out) }
}

/// Bytes of memory a medium-tier kernel needs (1,024 queued jobs, 1,024
/// running, 3,073 profile steps, 16 machines, 8 license pools); see
/// `bf_kernel_s_size` (on x86_64: `BF_KERNEL_M_SIZE`).
#[no_mangle]
pub extern "C" fn bf_kernel_m_size() -> usize {
    size_of_tier(Tier::M)
}

/// Alignment, in bytes, of a medium-tier kernel's memory.
#[no_mangle]
pub extern "C" fn bf_kernel_m_align() -> usize {
    ALIGN
}

/// As `bf_kernel_s_init`, a medium-tier kernel (`mem` of at least
/// `bf_kernel_m_size()` bytes aligned to `bf_kernel_m_align()`).
///
/// # Safety
/// As `bf_kernel_s_init`.
#[no_mangle]
pub unsafe extern "C" fn bf_kernel_m_init(
    mem: *mut c_void,
    size: usize,
    cluster: *const bf_cluster,
    policy: *const bf_policy,
    out: *mut *mut bf_kernel,
) -> bf_status {
    // SAFETY: the caller's promise, passed on.
    unsafe { init(Tier::M, mem, size, cluster, policy, out) }
}

/// Bytes of memory a large-tier kernel needs (16,384 queued jobs, 4,096
/// running, 36,865 profile steps, 16 machines, 8 license pools); see
/// `bf_kernel_s_size` (on x86_64: `BF_KERNEL_L_SIZE`).
#[no_mangle]
pub extern "C" fn bf_kernel_l_size() -> usize {
    size_of_tier(Tier::L)
}

/// Alignment, in bytes, of a large-tier kernel's memory.
#[no_mangle]
pub extern "C" fn bf_kernel_l_align() -> usize {
    ALIGN
}

/// As `bf_kernel_s_init`, a large-tier kernel (`mem` of at least
/// `bf_kernel_l_size()` bytes aligned to `bf_kernel_l_align()`).
///
/// # Safety
/// As `bf_kernel_s_init`.
#[no_mangle]
pub unsafe extern "C" fn bf_kernel_l_init(
    mem: *mut c_void,
    size: usize,
    cluster: *const bf_cluster,
    policy: *const bf_policy,
    out: *mut *mut bf_kernel,
) -> bf_status {
    // SAFETY: the caller's promise, passed on.
    unsafe { init(Tier::L, mem, size, cluster, policy, out) }
}

/// Ends the kernel: later calls on `k` return `BF_ERR_BAD_HANDLE`, and its
/// memory is the caller's again (nothing else to free). Returns `BF_OK`,
/// or `BF_ERR_NULL_POINTER`, `BF_ERR_BAD_ALIGNMENT`, `BF_ERR_BAD_HANDLE`,
/// `BF_ERR_BUSY` (from a callback of a call on `k`).
///
/// # Safety
/// `k` is NULL or points to memory the caller owns (a handle, normally).
#[no_mangle]
pub unsafe extern "C" fn bf_kernel_release(k: *mut bf_kernel) -> bf_status {
    // SAFETY: the caller's promise.
    code(unsafe { handle::forget(k) })
}
