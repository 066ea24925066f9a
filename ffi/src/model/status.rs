//! Status codes: every C call returns one. This is the one place a kernel or
//! cluster error becomes a code, and a code a message.
#![forbid(unsafe_code)]

use backfill_core::{CheckpointError, ClusterError, KernelError, RestoreError};
use core::ffi::CStr;

/// What a call did: `BF_OK`, or why it did nothing.
///
/// Codes 1-9 are misuse of the C interface, 10-19 a bad cluster
/// description, 20-39 the kernel's own refusals (one per kernel error),
/// 40 and up a refused checkpoint (one per reason `bf_kernel_restore`
/// refuses; `docs/checkpoint-format.md` lists them).
/// A call that fails changes nothing, except that a refused kernel call
/// still moves the kernel's clock to `now` (as the Rust kernel does).
/// `bf_status_message` gives each a fixed text; `bf_kernel_last_error_text`
/// gives the kernel's full message, naming the job.
#[repr(i32)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[allow(non_camel_case_types)]
pub enum bf_status {
    /// The call succeeded.
    BF_OK = 0,
    /// A pointer that must not be NULL was NULL.
    BF_ERR_NULL_POINTER = 1,
    /// A buffer is too small: the kernel's memory at init, or an output
    /// array or text buffer (what fits was written).
    BF_ERR_BAD_SIZE = 2,
    /// A pointer is not aligned for its type (the kernel's memory: to
    /// `bf_kernel_*_align()`).
    BF_ERR_BAD_ALIGNMENT = 3,
    /// An option is out of range or unknown: a policy kind or option
    /// (`bf_policy_check` names it), a resource kind, a queue limit above
    /// the capacity.
    BF_ERR_BAD_OPTION = 4,
    /// The handle is not a kernel: never initialised, released, or not a
    /// handle at all.
    BF_ERR_BAD_HANDLE = 5,
    /// The handle is in use: a callback called back into the kernel it was
    /// called from (or two threads used one handle at once).
    BF_ERR_BUSY = 6,
    /// An index is past the end (a queued or running job, a machine, a
    /// license pool).
    BF_ERR_OUT_OF_RANGE = 7,
    /// The cluster has no machine.
    BF_ERR_CLUSTER_EMPTY = 10,
    /// The cluster has more machines or license pools than the kernel holds
    /// (`BF_MAX_MACHINES`, `BF_MAX_POOLS`).
    BF_ERR_CLUSTER_TOO_MANY = 11,
    /// A machine has no processors or a zero speed.
    BF_ERR_BAD_MACHINE = 12,
    /// `now` is earlier than the previous call's.
    BF_ERR_TIME_WENT_BACKWARDS = 20,
    /// A job with this id is already queued or running.
    BF_ERR_DUPLICATE_JOB = 21,
    /// No running job has this id.
    BF_ERR_UNKNOWN_JOB = 22,
    /// The wait queue is full (its capacity, or the limit set by
    /// `bf_kernel_set_queue_limit`).
    BF_ERR_QUEUE_FULL = 23,
    /// The running set is full: the job cannot start now.
    BF_ERR_RUNNING_FULL = 24,
    /// An availability profile ran out of steps.
    BF_ERR_PROFILE_FULL = 25,
    /// No machine can ever run the job (too wide, or its licenses cannot be
    /// had anywhere).
    BF_ERR_UNRUNNABLE = 26,
    /// The job asks for no processors or has a zero estimate.
    BF_ERR_INVALID_JOB = 27,
    /// The job's submit time is after `now`.
    BF_ERR_SUBMIT_IN_FUTURE = 28,
    /// A time computation overflowed 32 bits.
    BF_ERR_TIME_OVERFLOW = 29,
    /// A running job is past its estimate and was not completed.
    BF_ERR_OVERDUE = 30,
    /// The kernel's bookkeeping is inconsistent (a bug; the text says what).
    BF_ERR_INTERNAL = 31,
    /// The checkpoint ends before its length (or before a header).
    BF_ERR_CHECKPOINT_TRUNCATED = 40,
    /// Bytes after the checkpoint's length.
    BF_ERR_CHECKPOINT_TRAILING_BYTES = 41,
    /// Not a checkpoint: the bytes do not begin with its magic number.
    BF_ERR_CHECKPOINT_BAD_MAGIC = 42,
    /// Written in a later format version than this library reads.
    BF_ERR_CHECKPOINT_NEWER_VERSION = 43,
    /// An earlier format version this library has no reader for.
    BF_ERR_CHECKPOINT_UNSUPPORTED_VERSION = 44,
    /// The header's checksum does not match it.
    BF_ERR_CHECKPOINT_HEADER_CHECKSUM = 45,
    /// The checkpoint's checksum does not match its bytes.
    BF_ERR_CHECKPOINT_CHECKSUM = 46,
    /// A replay's checkpoint (from the Rust replay loop), not a kernel's.
    BF_ERR_CHECKPOINT_WRONG_KIND = 47,
    /// The checkpoint comes from a kernel with a larger table than this
    /// one's (a smaller tier's checkpoint restores into a larger tier).
    BF_ERR_CHECKPOINT_CAPACITY = 48,
    /// A field holds a value no writer produces.
    BF_ERR_CHECKPOINT_MALFORMED = 49,
    /// The state breaks a rule of the kernel's (what `bf_kernel_validate`
    /// checks, unique ids, slots that fit their jobs and the cluster).
    BF_ERR_CHECKPOINT_INVALID = 50,
}

use bf_status::*;

impl bf_status {
    /// Every status, in code order (tests, fuzzing).
    #[must_use]
    pub const fn all() -> [Self; 34] {
        [
            BF_OK,
            BF_ERR_NULL_POINTER,
            BF_ERR_BAD_SIZE,
            BF_ERR_BAD_ALIGNMENT,
            BF_ERR_BAD_OPTION,
            BF_ERR_BAD_HANDLE,
            BF_ERR_BUSY,
            BF_ERR_OUT_OF_RANGE,
            BF_ERR_CLUSTER_EMPTY,
            BF_ERR_CLUSTER_TOO_MANY,
            BF_ERR_BAD_MACHINE,
            BF_ERR_TIME_WENT_BACKWARDS,
            BF_ERR_DUPLICATE_JOB,
            BF_ERR_UNKNOWN_JOB,
            BF_ERR_QUEUE_FULL,
            BF_ERR_RUNNING_FULL,
            BF_ERR_PROFILE_FULL,
            BF_ERR_UNRUNNABLE,
            BF_ERR_INVALID_JOB,
            BF_ERR_SUBMIT_IN_FUTURE,
            BF_ERR_TIME_OVERFLOW,
            BF_ERR_OVERDUE,
            BF_ERR_INTERNAL,
            BF_ERR_CHECKPOINT_TRUNCATED,
            BF_ERR_CHECKPOINT_TRAILING_BYTES,
            BF_ERR_CHECKPOINT_BAD_MAGIC,
            BF_ERR_CHECKPOINT_NEWER_VERSION,
            BF_ERR_CHECKPOINT_UNSUPPORTED_VERSION,
            BF_ERR_CHECKPOINT_HEADER_CHECKSUM,
            BF_ERR_CHECKPOINT_CHECKSUM,
            BF_ERR_CHECKPOINT_WRONG_KIND,
            BF_ERR_CHECKPOINT_CAPACITY,
            BF_ERR_CHECKPOINT_MALFORMED,
            BF_ERR_CHECKPOINT_INVALID,
        ]
    }

    /// The status with this code, if any (a C caller may pass any integer).
    #[must_use]
    pub fn from_code(code: i32) -> Option<Self> {
        Self::all().into_iter().find(|s| *s as i32 == code)
    }

    /// The fixed message for this status.
    #[must_use]
    pub const fn message(self) -> &'static CStr {
        match self {
            BF_OK => c"ok",
            BF_ERR_NULL_POINTER => c"a required pointer is NULL",
            BF_ERR_BAD_SIZE => c"buffer too small",
            BF_ERR_BAD_ALIGNMENT => c"pointer not aligned for its type",
            BF_ERR_BAD_OPTION => c"option out of range or unknown",
            BF_ERR_BAD_HANDLE => c"not an initialised kernel handle",
            BF_ERR_BUSY => c"kernel handle in use (a callback called back into it)",
            BF_ERR_OUT_OF_RANGE => c"index out of range",
            BF_ERR_CLUSTER_EMPTY => c"a cluster needs at least one machine",
            BF_ERR_CLUSTER_TOO_MANY => c"more machines or license pools than the kernel holds",
            BF_ERR_BAD_MACHINE => c"a machine has no processors or zero speed",
            BF_ERR_TIME_WENT_BACKWARDS => c"time went backwards",
            BF_ERR_DUPLICATE_JOB => c"job is already in the kernel",
            BF_ERR_UNKNOWN_JOB => c"job is not running",
            BF_ERR_QUEUE_FULL => c"wait queue full",
            BF_ERR_RUNNING_FULL => c"running set full",
            BF_ERR_PROFILE_FULL => c"availability profile full",
            BF_ERR_UNRUNNABLE => c"no machine can ever run the job",
            BF_ERR_INVALID_JOB => c"job has no processors or a zero estimate",
            BF_ERR_SUBMIT_IN_FUTURE => c"job is submitted after now",
            BF_ERR_TIME_OVERFLOW => c"time overflow",
            BF_ERR_OVERDUE => c"a running job is past its estimate",
            BF_ERR_INTERNAL => c"internal inconsistency",
            BF_ERR_CHECKPOINT_TRUNCATED => c"checkpoint truncated",
            BF_ERR_CHECKPOINT_TRAILING_BYTES => c"bytes after the checkpoint",
            BF_ERR_CHECKPOINT_BAD_MAGIC => c"not a checkpoint (wrong magic number)",
            BF_ERR_CHECKPOINT_NEWER_VERSION => c"checkpoint format newer than this library",
            BF_ERR_CHECKPOINT_UNSUPPORTED_VERSION => c"checkpoint format version not readable",
            BF_ERR_CHECKPOINT_HEADER_CHECKSUM => c"checkpoint header checksum mismatch",
            BF_ERR_CHECKPOINT_CHECKSUM => c"checkpoint checksum mismatch",
            BF_ERR_CHECKPOINT_WRONG_KIND => c"a replay's checkpoint, not a kernel's",
            BF_ERR_CHECKPOINT_CAPACITY => c"checkpoint from a kernel with larger tables",
            BF_ERR_CHECKPOINT_MALFORMED => c"malformed checkpoint",
            BF_ERR_CHECKPOINT_INVALID => c"checkpoint holds an invalid state",
        }
    }
}

/// The code of a kernel error.
#[must_use]
pub const fn of_kernel(e: &KernelError) -> bf_status {
    match e {
        KernelError::TimeWentBackwards { .. } => BF_ERR_TIME_WENT_BACKWARDS,
        KernelError::DuplicateJob(_) => BF_ERR_DUPLICATE_JOB,
        KernelError::UnknownJob(_) => BF_ERR_UNKNOWN_JOB,
        KernelError::QueueFull(_) => BF_ERR_QUEUE_FULL,
        KernelError::RunningFull(_) => BF_ERR_RUNNING_FULL,
        KernelError::ProfileFull => BF_ERR_PROFILE_FULL,
        KernelError::Unrunnable(_) => BF_ERR_UNRUNNABLE,
        KernelError::InvalidJob(_) => BF_ERR_INVALID_JOB,
        KernelError::SubmitInFuture(_) => BF_ERR_SUBMIT_IN_FUTURE,
        KernelError::TimeOverflow => BF_ERR_TIME_OVERFLOW,
        KernelError::Overdue(_) => BF_ERR_OVERDUE,
        KernelError::Internal(_) => BF_ERR_INTERNAL,
        // `KernelError` is `#[non_exhaustive]`: a variant added to the
        // kernel gets its own code here in the same change (this arm only
        // keeps the build going until then).
        _ => BF_ERR_INTERNAL,
    }
}

/// The code of a refused restore.
#[must_use]
pub const fn of_restore(e: &RestoreError) -> bf_status {
    match e {
        RestoreError::Truncated { .. } => BF_ERR_CHECKPOINT_TRUNCATED,
        RestoreError::TrailingBytes { .. } => BF_ERR_CHECKPOINT_TRAILING_BYTES,
        RestoreError::BadMagic => BF_ERR_CHECKPOINT_BAD_MAGIC,
        RestoreError::NewerVersion(_) => BF_ERR_CHECKPOINT_NEWER_VERSION,
        RestoreError::UnsupportedVersion(_) => BF_ERR_CHECKPOINT_UNSUPPORTED_VERSION,
        RestoreError::HeaderChecksum { .. } => BF_ERR_CHECKPOINT_HEADER_CHECKSUM,
        RestoreError::Checksum { .. } => BF_ERR_CHECKPOINT_CHECKSUM,
        RestoreError::WrongKind { .. } => BF_ERR_CHECKPOINT_WRONG_KIND,
        RestoreError::Capacity { .. } => BF_ERR_CHECKPOINT_CAPACITY,
        RestoreError::Malformed { .. } => BF_ERR_CHECKPOINT_MALFORMED,
        RestoreError::Invalid(_) => BF_ERR_CHECKPOINT_INVALID,
        // `RestoreError` is `#[non_exhaustive]`: a new reason gets its own
        // code here in the same change.
        _ => BF_ERR_CHECKPOINT_INVALID,
    }
}

/// The code of a checkpoint that could not be written: a buffer too small
/// is `BF_ERR_BAD_SIZE`; a kernel too large for the format cannot be a
/// tier's (the largest tier's checkpoints are under a megabyte).
#[must_use]
pub const fn of_checkpoint(e: &CheckpointError) -> bf_status {
    match e {
        CheckpointError::BufferTooSmall { .. } => BF_ERR_BAD_SIZE,
        _ => BF_ERR_INTERNAL,
    }
}

/// The code of a cluster error.
#[must_use]
pub const fn of_cluster(e: &ClusterError) -> bf_status {
    match e {
        ClusterError::Empty => BF_ERR_CLUSTER_EMPTY,
        ClusterError::TooMany => BF_ERR_CLUSTER_TOO_MANY,
        ClusterError::BadMachine(_) => BF_ERR_BAD_MACHINE,
        // As in `of_kernel`: a new variant gets its own code.
        _ => BF_ERR_BAD_MACHINE,
    }
}

/// The job a kernel error names, if it names one.
#[must_use]
pub const fn job_of(e: &KernelError) -> Option<u32> {
    match *e {
        KernelError::DuplicateJob(id)
        | KernelError::UnknownJob(id)
        | KernelError::QueueFull(id)
        | KernelError::RunningFull(id)
        | KernelError::Unrunnable(id)
        | KernelError::InvalidJob(id)
        | KernelError::SubmitInFuture(id)
        | KernelError::Overdue(id) => Some(id),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_code_has_a_message_and_round_trips() {
        let codes: std::vec::Vec<i32> = bf_status::all().iter().map(|s| *s as i32).collect();
        assert!(
            codes.windows(2).all(|w| w[0] < w[1]),
            "each once, in code order"
        );
        for s in bf_status::all() {
            assert_eq!(bf_status::from_code(s as i32), Some(s));
            assert!(!s.message().is_empty());
        }
        assert_eq!(bf_status::from_code(8), None);
        assert_eq!(bf_status::from_code(-1), None);
    }

    #[test]
    fn kernel_errors_map_to_their_own_codes() {
        let cases = [
            (
                KernelError::TimeWentBackwards { now: 1, current: 2 },
                BF_ERR_TIME_WENT_BACKWARDS,
                None,
            ),
            (KernelError::DuplicateJob(3), BF_ERR_DUPLICATE_JOB, Some(3)),
            (KernelError::UnknownJob(4), BF_ERR_UNKNOWN_JOB, Some(4)),
            (KernelError::QueueFull(5), BF_ERR_QUEUE_FULL, Some(5)),
            (KernelError::RunningFull(6), BF_ERR_RUNNING_FULL, Some(6)),
            (KernelError::ProfileFull, BF_ERR_PROFILE_FULL, None),
            (KernelError::Unrunnable(7), BF_ERR_UNRUNNABLE, Some(7)),
            (KernelError::InvalidJob(8), BF_ERR_INVALID_JOB, Some(8)),
            (
                KernelError::SubmitInFuture(9),
                BF_ERR_SUBMIT_IN_FUTURE,
                Some(9),
            ),
            (KernelError::TimeOverflow, BF_ERR_TIME_OVERFLOW, None),
            (KernelError::Overdue(10), BF_ERR_OVERDUE, Some(10)),
            (KernelError::Internal("x"), BF_ERR_INTERNAL, None),
        ];
        for (e, code, job) in cases {
            assert_eq!((of_kernel(&e), job_of(&e)), (code, job), "{e:?}");
        }
        assert_eq!(of_cluster(&ClusterError::Empty), BF_ERR_CLUSTER_EMPTY);
        assert_eq!(of_cluster(&ClusterError::TooMany), BF_ERR_CLUSTER_TOO_MANY);
        assert_eq!(of_cluster(&ClusterError::BadMachine(2)), BF_ERR_BAD_MACHINE);
    }

    /// Each reason a restore is refused has its own code.
    #[test]
    fn restore_errors_map_to_their_own_codes() {
        use backfill_core::checkpoint::{Kind, Table};
        let cases = [
            (
                RestoreError::Truncated { len: 1, needed: 2 },
                BF_ERR_CHECKPOINT_TRUNCATED,
            ),
            (
                RestoreError::TrailingBytes {
                    len: 3,
                    expected: 2,
                },
                BF_ERR_CHECKPOINT_TRAILING_BYTES,
            ),
            (RestoreError::BadMagic, BF_ERR_CHECKPOINT_BAD_MAGIC),
            (
                RestoreError::NewerVersion(2),
                BF_ERR_CHECKPOINT_NEWER_VERSION,
            ),
            (
                RestoreError::UnsupportedVersion(0),
                BF_ERR_CHECKPOINT_UNSUPPORTED_VERSION,
            ),
            (
                RestoreError::HeaderChecksum {
                    stored: 1,
                    computed: 2,
                },
                BF_ERR_CHECKPOINT_HEADER_CHECKSUM,
            ),
            (
                RestoreError::Checksum {
                    stored: 1,
                    computed: 2,
                },
                BF_ERR_CHECKPOINT_CHECKSUM,
            ),
            (
                RestoreError::WrongKind {
                    expected: Kind::Kernel,
                    found: Kind::Simulator,
                },
                BF_ERR_CHECKPOINT_WRONG_KIND,
            ),
            (
                RestoreError::Capacity {
                    table: Table::Queued,
                    written: 9,
                    room: 8,
                },
                BF_ERR_CHECKPOINT_CAPACITY,
            ),
            (
                RestoreError::Malformed {
                    offset: 0,
                    what: "x",
                },
                BF_ERR_CHECKPOINT_MALFORMED,
            ),
            (RestoreError::Invalid("x"), BF_ERR_CHECKPOINT_INVALID),
        ];
        let mut seen: std::vec::Vec<bf_status> = cases.iter().map(|(e, _)| of_restore(e)).collect();
        for (e, code) in cases {
            assert_eq!(of_restore(&e), code, "{e:?}");
        }
        seen.dedup();
        assert_eq!(seen.len(), 11, "one code each");
        assert_eq!(
            of_checkpoint(&CheckpointError::BufferTooSmall { needed: 2, len: 1 }),
            BF_ERR_BAD_SIZE
        );
        assert_eq!(of_checkpoint(&CheckpointError::TooLarge), BF_ERR_INTERNAL);
    }
}
