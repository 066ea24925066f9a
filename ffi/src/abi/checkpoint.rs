//! Checkpoints: a kernel's whole state written to a buffer the caller
//! owns, and a kernel restored from one in place (`docs/checkpoint-format.md`
//! gives the bytes; they are the Rust kernel's, on every target).
//!
//! A controller checkpoints after each batch of events (to a file written
//! atomically, or flash) and restores after a restart: the kernel then
//! takes exactly the decisions it would have taken. A checkpoint of a
//! smaller tier restores into a larger one.

use crate::abi::handle::{self, inspect, restore_call};
use crate::abi::{bf_kernel, code};
use crate::model::status::{bf_status, of_checkpoint};
use crate::model::tiers::{KernelL, KernelM, KernelS};

/// The most bytes a small-tier kernel's checkpoint takes (a full queue and
/// running set, 16 machines and 8 pools, the longest policy): a static
/// buffer this large always holds one. The same on every target.
pub const BF_CHECKPOINT_S_SIZE: usize = 6_283;
/// The most bytes a medium-tier kernel's checkpoint takes.
pub const BF_CHECKPOINT_M_SIZE: usize = 92_683;
/// The most bytes a large-tier kernel's checkpoint takes.
pub const BF_CHECKPOINT_L_SIZE: usize = 922_123;

const _: () = assert!(
    BF_CHECKPOINT_S_SIZE == KernelS::checkpoint_size()
        && BF_CHECKPOINT_M_SIZE == KernelM::checkpoint_size()
        && BF_CHECKPOINT_L_SIZE == KernelL::checkpoint_size(),
    "the checkpoint format changed: set BF_CHECKPOINT_*_SIZE to \
     Kernel::checkpoint_size() of each tier and regenerate include/backfill.h"
);

/// The most bytes a checkpoint of kernel `k` takes (its tier's
/// `BF_CHECKPOINT_*_SIZE`), written to `*size`. A checkpoint takes room
/// for the jobs there are only: `bf_kernel_checkpoint` tells the length.
///
/// # Safety
/// `k` is NULL or a handle; `size` is NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn bf_kernel_checkpoint_size(
    k: *const bf_kernel,
    size: *mut usize,
) -> bf_status {
    // SAFETY: the caller's promise.
    let bytes = unsafe { inspect(k, |kernel, _| kernel.checkpoint_size()) };
    // SAFETY: the caller's promise.
    code(bytes.and_then(|b| unsafe { handle::output(size, b) }))
}

/// Writes kernel `k`'s whole state to `buf` (`len` bytes), and the bytes
/// written to `*written`: a checkpoint, versioned and checksummed, that
/// `bf_kernel_restore` reads back. Nothing changes in the kernel; nothing
/// past the checkpoint's length is written.
///
/// Returns `BF_OK`; `BF_ERR_BAD_SIZE` when `buf` is smaller than this
/// checkpoint (nothing written; at most `bf_kernel_checkpoint_size` bytes
/// are ever needed); or a pointer or handle error.
///
/// # Safety
/// `k` is NULL or a handle; `buf` is NULL or holds `len` writable bytes
/// (outside the kernel's memory); `written` is NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn bf_kernel_checkpoint(
    k: *const bf_kernel,
    buf: *mut u8,
    len: usize,
    written: *mut usize,
) -> bf_status {
    let run = || {
        if buf.is_null() || written.is_null() {
            return Err(bf_status::BF_ERR_NULL_POINTER);
        }
        if !written.is_aligned() {
            return Err(bf_status::BF_ERR_BAD_ALIGNMENT);
        }
        // SAFETY: not NULL; the caller promises `len` writable bytes that
        // are not the kernel's (bytes need no alignment).
        let out = unsafe { core::slice::from_raw_parts_mut(buf, len) };
        // SAFETY: the caller's promise.
        let result = unsafe { inspect(k, |kernel, _| kernel.checkpoint(out)) }?;
        let n = result.map_err(|e| of_checkpoint(&e))?;
        // SAFETY: checked above.
        unsafe { handle::output(written, n) }
    };
    code(run())
}

/// Replaces kernel `k`'s state with the checkpoint in `bytes` (`len`
/// bytes), in place: from then on the kernel takes the decisions the
/// checkpointed kernel would have taken. The checkpoint may come from this
/// tier or a smaller one. It is checked before it is used, and a refusal
/// changes nothing (the kernel, and `bf_kernel_last_error`, are as they
/// were); a restore that succeeds clears the last error.
///
/// Returns `BF_OK`; one of the `BF_ERR_CHECKPOINT_*` codes saying why the
/// checkpoint was refused (truncated, trailing bytes, bad magic, newer or
/// unsupported version, a header or body checksum mismatch, a replay's
/// checkpoint, a larger tier's, malformed, an invalid state); or a pointer
/// or handle error.
///
/// # Safety
/// `k` is NULL or a handle; `bytes` is NULL or holds `len` readable bytes
/// (outside the kernel's memory).
#[no_mangle]
pub unsafe extern "C" fn bf_kernel_restore(
    k: *mut bf_kernel,
    bytes: *const u8,
    len: usize,
) -> bf_status {
    let run = || {
        // SAFETY: the caller's promise (bytes need no alignment).
        let bytes = unsafe { handle::input_array(bytes, len) }?;
        // SAFETY: the caller's promise.
        unsafe { restore_call(k, |kernel| kernel.restore(bytes)) }
    };
    code(run())
}
