//! Checkpoints: a kernel's whole state as bytes, and a kernel restored from
//! them in place, taking from then on exactly the decisions the original
//! would have taken.
//!
//! [`Kernel::checkpoint`](crate::Kernel::checkpoint) writes into a buffer
//! the caller owns (of [`Kernel::checkpoint_size`](crate::Kernel::checkpoint_size)
//! bytes at most, a `const fn` of the capacities) and returns the length
//! written; [`Kernel::restore`](crate::Kernel::restore) reads it back into a
//! kernel of the same capacities or larger ones. The replay loop has the
//! same pair ([`Simulator::checkpoint`](crate::Simulator::checkpoint),
//! [`Simulator::restore`](crate::Simulator::restore)), which adds where the
//! replay stands. Nothing allocates, and a kernel-sized value never crosses
//! the stack.
//!
//! # The format
//!
//! `docs/checkpoint-format.md` gives it byte for byte. In short: a 40-byte
//! header ([`MAGIC`], [`FORMAT_VERSION`], the [`Kind`], the length, the
//! capacities `Q`, `R`, `B`, `M`, `L`, and a CRC-32 of the header), then
//! the state in fixed-width little-endian fields, the variable parts (the
//! cluster's machines and pools, the queued and the running jobs) as a
//! count and that many records, and last a CRC-32 (IEEE, [`crc32`]) of
//! everything before it. Only what decides is written: the plan (or the
//! free-processor tally) follows from the running jobs and the kept
//! reservations and is rebuilt from them, and what a policy keeps only to
//! save work is set up afresh (see `policy/saved.rs`).
//!
//! # Refusals
//!
//! A restore checks everything before it changes anything, and a refused
//! restore leaves the kernel as it was ([`RestoreError`] lists why one is
//! refused): first the bytes (header, length, checksum, each field's
//! range), then the state they describe (every rule
//! [`Kernel::validate`](crate::Kernel::validate) checks, and those it takes
//! for granted: unique ids, the queue's order, slots that fit their jobs),
//! reading the jobs from the bytes. Only two facts need room to check: that
//! no two jobs share an id (the ids are sorted in the plan's memory, when
//! they fit there) and that the jobs' slots fit the machines, pools and
//! profile steps (the plan is rebuilt). Both use nothing but the plan,
//! which follows from the kernel's own jobs: when either fails the plan is
//! rebuilt from those, as it was.

use crate::plan::Slot;
use crate::policy::{
    DpsaOrder, Heuristics, Iterations, Policy, RandomSearch, Saved, SlowdownAverage, Threshold,
};
use crate::state::Counters;
use crate::types::{
    CategoryBounds, Cluster, Job, JobId, LicensePool, LicenseSet, Machine, MachineSet, Time,
};

/// The first eight bytes of every checkpoint. The first byte has its high
/// bit set and the `\r\n`, `\x1a` and `\n` that follow are damaged by text
/// conversions, so a checkpoint mangled as text is told from a corrupt one.
pub const MAGIC: [u8; 8] = [0x89, b'B', b'F', b'C', b'\r', b'\n', 0x1A, b'\n'];

/// The format version this build writes, and the newest it reads.
pub const FORMAT_VERSION: u16 = 1;

/// Bytes in the header (magic, version, kind, length, capacities and the
/// header's own CRC-32).
pub const HEADER_LEN: usize = 40;

/// Bytes after the state: the CRC-32 of everything before it.
pub const TRAILER_LEN: usize = 4;

/// Bytes of one job record (a queued or a running job).
pub(crate) const RECORD_LEN: usize = 45;

/// The fixed part of a kernel's state after the header: time, queue limit,
/// flags, the largest id, the twelve counters, the cluster's two counts,
/// and the two job counts.
pub(crate) const FIXED_LEN: usize = 4 + 4 + 1 + 4 + COUNTERS_LEN + 2 + 2 + 4 + 4;

/// The twelve counters.
const COUNTERS_LEN: usize = 12 * 8;

/// Bytes of one machine and of one license pool.
pub(crate) const MACHINE_LEN: usize = 8;
/// See [`MACHINE_LEN`].
pub(crate) const POOL_LEN: usize = 4 + 16;

/// The most bytes a policy takes (BF_UNMOD and BF_MOD: a tag and nine
/// weights and constants).
pub(crate) const POLICY_MAX: usize = 1 + 9 * 4;

/// The most bytes a policy's decision state takes (EASY's reserved head:
/// a flag and a job).
pub(crate) const SAVED_MAX: usize = 1 + 32;

/// What a checkpoint holds: a kernel, or a replay (its kernel and where the
/// replay stands).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Kind {
    /// [`Kernel::checkpoint`](crate::Kernel::checkpoint).
    Kernel,
    /// [`Simulator::checkpoint`](crate::Simulator::checkpoint).
    Simulator,
}

impl Kind {
    /// The kind's code in the header.
    #[must_use]
    pub const fn code(self) -> u16 {
        match self {
            Self::Kernel => 1,
            Self::Simulator => 2,
        }
    }

    /// The kind with header code `code`.
    #[must_use]
    pub const fn of_code(code: u16) -> Option<Self> {
        match code {
            1 => Some(Self::Kernel),
            2 => Some(Self::Simulator),
            _ => None,
        }
    }
}

/// One of a kernel's tables, as a capacity names it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Table {
    /// Waiting jobs, `Q`.
    Queued,
    /// Running jobs, `R`.
    Running,
    /// Profile steps per resource, `B`.
    Steps,
    /// Machines, `M`.
    Machines,
    /// License pools, `L`.
    Pools,
}

impl Table {
    /// Its name and capacity parameter, for messages.
    #[must_use]
    pub const fn name(self) -> &'static str {
        match self {
            Self::Queued => "waiting jobs (Q)",
            Self::Running => "running jobs (R)",
            Self::Steps => "profile steps (B)",
            Self::Machines => "machines (M)",
            Self::Pools => "license pools (L)",
        }
    }
}

/// The capacities of the kernel a checkpoint was written from.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Capacities {
    /// `Q`.
    pub queued: u32,
    /// `R`.
    pub running: u32,
    /// `B`.
    pub steps: u32,
    /// `M`.
    pub machines: u32,
    /// `L`.
    pub pools: u32,
}

impl Capacities {
    /// The tables and their capacities, in the header's order.
    #[must_use]
    pub const fn tables(&self) -> [(Table, u32); 5] {
        [
            (Table::Queued, self.queued),
            (Table::Running, self.running),
            (Table::Steps, self.steps),
            (Table::Machines, self.machines),
            (Table::Pools, self.pools),
        ]
    }

    /// The first table of these capacities that exceeds `room` (the
    /// capacities of the kernel asked to take the checkpoint), with its
    /// capacity and the room there.
    #[must_use]
    pub fn first_larger_than(&self, room: [usize; 5]) -> Option<(Table, u32, usize)> {
        self.tables()
            .into_iter()
            .zip(room)
            .find(|&((_, written), room)| usize::try_from(written).map_or(true, |w| w > room))
            .map(|((table, written), room)| (table, written, room))
    }
}

/// A checkpoint's header, as [`read_header`] finds it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Header {
    /// The format version it was written in.
    pub version: u16,
    /// What it holds.
    pub kind: Kind,
    /// Its length in bytes, header and trailer included.
    pub len: u32,
    /// The capacities of the kernel it was written from.
    pub capacities: Capacities,
}

/// Why a checkpoint could not be written. The buffer holds nothing usable
/// then.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum CheckpointError {
    /// The buffer holds `len` bytes and the checkpoint needs `needed`
    /// (at most `checkpoint_size()`).
    BufferTooSmall {
        /// Bytes the checkpoint takes.
        needed: usize,
        /// Bytes the buffer holds.
        len: usize,
    },
    /// The checkpoint would be longer than 4 GiB, or a capacity does not
    /// fit in 32 bits: the format's fields cannot say it.
    TooLarge,
}

impl core::fmt::Display for CheckpointError {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        match self {
            Self::BufferTooSmall { needed, len } => {
                write!(f, "checkpoint needs {needed} bytes, the buffer holds {len}")
            }
            Self::TooLarge => f.write_str("the kernel is too large for the checkpoint format"),
        }
    }
}

impl core::error::Error for CheckpointError {}

/// Why a restore was refused. The kernel (or simulator) is unchanged.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum RestoreError {
    /// The bytes end before the checkpoint does: `len` bytes, where the
    /// header (or, before a header is read, a header) needs `needed`.
    Truncated {
        /// Bytes given.
        len: usize,
        /// Bytes the checkpoint has.
        needed: usize,
    },
    /// More bytes than the checkpoint's length: `len` given, `expected` in
    /// the checkpoint.
    TrailingBytes {
        /// Bytes given.
        len: usize,
        /// Bytes the checkpoint has.
        expected: usize,
    },
    /// The bytes do not begin with [`MAGIC`]: not a checkpoint.
    BadMagic,
    /// Written in a later format version than this build reads.
    NewerVersion(u16),
    /// An earlier format version that this build has no reader for.
    UnsupportedVersion(u16),
    /// The header's CRC-32 does not match it.
    HeaderChecksum {
        /// The CRC-32 in the header.
        stored: u32,
        /// The CRC-32 of the header's bytes.
        computed: u32,
    },
    /// The checkpoint's CRC-32 does not match its bytes.
    Checksum {
        /// The CRC-32 in the trailer.
        stored: u32,
        /// The CRC-32 of the bytes before it.
        computed: u32,
    },
    /// A replay's checkpoint given to a kernel, or a kernel's to a replay.
    WrongKind {
        /// What the restore takes.
        expected: Kind,
        /// What the checkpoint holds.
        found: Kind,
    },
    /// The checkpoint comes from a kernel with a larger table than this
    /// one's (a smaller kernel's checkpoint fits a larger kernel).
    Capacity {
        /// The table.
        table: Table,
        /// Its capacity in the checkpoint.
        written: u32,
        /// Its capacity here.
        room: usize,
    },
    /// A field holds a value no writer produces (the checksum matched, so
    /// the bytes were made so): at byte `offset`, what is wrong.
    Malformed {
        /// Offset of the field from the checkpoint's first byte.
        offset: usize,
        /// What is wrong with it.
        what: &'static str,
    },
    /// The bytes are well formed but the state they describe breaks a rule
    /// of the kernel's (what [`Kernel::validate`](crate::Kernel::validate)
    /// would refuse, or what it takes for granted).
    Invalid(&'static str),
}

impl core::fmt::Display for RestoreError {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        match self {
            Self::Truncated { len, needed } => write!(
                f,
                "checkpoint truncated: {len} bytes, the checkpoint has {needed}"
            ),
            Self::TrailingBytes { len, expected } => write!(
                f,
                "{len} bytes, but the checkpoint ends after {expected}: trailing bytes"
            ),
            Self::BadMagic => f.write_str("not a checkpoint (wrong magic number)"),
            Self::NewerVersion(v) => write!(
                f,
                "checkpoint format version {v} is newer than this build reads ({FORMAT_VERSION})"
            ),
            Self::UnsupportedVersion(v) => {
                write!(f, "checkpoint format version {v} has no reader in this build")
            }
            Self::HeaderChecksum { stored, computed } => write!(
                f,
                "checkpoint header checksum mismatch: stored {stored:#010x}, computed {computed:#010x}"
            ),
            Self::Checksum { stored, computed } => write!(
                f,
                "checkpoint checksum mismatch: stored {stored:#010x}, computed {computed:#010x}"
            ),
            Self::WrongKind { expected, found } => write!(
                f,
                "checkpoint of a {} where a {} was expected",
                kind_name(*found),
                kind_name(*expected)
            ),
            Self::Capacity {
                table,
                written,
                room,
            } => write!(
                f,
                "checkpoint from a kernel with {written} {}, this one holds {room}",
                table.name()
            ),
            Self::Malformed { offset, what } => {
                write!(f, "malformed checkpoint at byte {offset}: {what}")
            }
            Self::Invalid(what) => write!(f, "checkpoint holds an invalid state: {what}"),
        }
    }
}

impl core::error::Error for RestoreError {}

const fn kind_name(kind: Kind) -> &'static str {
    match kind {
        Kind::Kernel => "kernel",
        Kind::Simulator => "replay",
    }
}

/// The CRC-32 lookup tables (IEEE 802.3, reflected polynomial
/// `0xEDB88320`) for eight bytes at a time ("slicing by 8": table `k` is
/// the CRC of a byte followed by `k` zero bytes), computed by the
/// compiler; 8 KiB. The indices and the casts stay below 256.
#[allow(clippy::indexing_slicing, clippy::cast_possible_truncation)]
const CRC_TABLES: [[u32; 256]; 8] = {
    let mut tables = [[0u32; 256]; 8];
    let mut n = 0;
    while n < 256 {
        let mut c = n as u32;
        let mut k = 0;
        while k < 8 {
            c = if c & 1 == 1 {
                0xEDB8_8320 ^ (c >> 1)
            } else {
                c >> 1
            };
            k += 1;
        }
        tables[0][n] = c;
        n += 1;
    }
    let mut t = 1;
    while t < 8 {
        let mut n = 0;
        while n < 256 {
            let previous = tables[t - 1][n];
            tables[t][n] = (previous >> 8) ^ tables[0][(previous & 0xFF) as usize];
            n += 1;
        }
        t += 1;
    }
    tables
};

/// Entry `index & 0xFF` of CRC table `table`.
#[inline(always)]
fn crc_entry(table: usize, index: u32) -> u32 {
    let low = usize::from(u8::try_from(index & 0xFF).unwrap_or(0));
    CRC_TABLES
        .get(table)
        .and_then(|t| t.get(low))
        .copied()
        .unwrap_or(0)
}

/// The CRC-32 (IEEE 802.3, as zlib's `crc32` and PNG compute it) of `bytes`.
#[must_use]
pub fn crc32(bytes: &[u8]) -> u32 {
    crc32_continue(0, bytes)
}

/// The CRC-32 of the bytes `crc` is the CRC-32 of, followed by `bytes`
/// (`crc32_continue(crc32(a), b) == crc32(a ++ b)`; start from 0). Eight
/// bytes at a time, the rest one by one.
#[must_use]
pub fn crc32_continue(crc: u32, bytes: &[u8]) -> u32 {
    let mut c = !crc;
    let mut chunks = bytes.chunks_exact(8);
    for chunk in &mut chunks {
        let mut word = [0u8; 8];
        word.copy_from_slice(chunk);
        let [a0, a1, a2, a3, b0, b1, b2, b3] = word;
        let one = u32::from_le_bytes([a0, a1, a2, a3]) ^ c;
        let two = u32::from_le_bytes([b0, b1, b2, b3]);
        c = crc_entry(7, one)
            ^ crc_entry(6, one >> 8)
            ^ crc_entry(5, one >> 16)
            ^ crc_entry(4, one >> 24)
            ^ crc_entry(3, two)
            ^ crc_entry(2, two >> 8)
            ^ crc_entry(1, two >> 16)
            ^ crc_entry(0, two >> 24);
    }
    for &b in chunks.remainder() {
        c = crc_entry(0, c ^ u32::from(b)) ^ (c >> 8);
    }
    !c
}

/// Reads and checks a checkpoint's header: the magic number, the version
/// and the header's CRC-32; the body is not read (`bytes` may hold the
/// header alone). A host reads the capacities here to pick the kernel to
/// restore into.
///
/// # Errors
/// [`RestoreError::BadMagic`], [`RestoreError::NewerVersion`],
/// [`RestoreError::UnsupportedVersion`], [`RestoreError::Truncated`] (fewer
/// than [`HEADER_LEN`] bytes), [`RestoreError::HeaderChecksum`] or
/// [`RestoreError::Malformed`] (an unknown kind, a length shorter than a
/// header and trailer).
pub fn read_header(bytes: &[u8]) -> Result<Header, RestoreError> {
    let magic = bytes.get(..MAGIC.len()).unwrap_or(bytes);
    if MAGIC.get(..magic.len()) != Some(magic) {
        return Err(RestoreError::BadMagic);
    }
    let mut r = Reader::new(bytes, 0);
    let short = RestoreError::Truncated {
        len: bytes.len(),
        needed: HEADER_LEN,
    };
    r.skip(MAGIC.len()).map_err(|_| short)?;
    let version = r.u16().map_err(|_| short)?;
    if version > FORMAT_VERSION {
        return Err(RestoreError::NewerVersion(version));
    }
    if version == 0 {
        return Err(RestoreError::UnsupportedVersion(version));
    }
    let (Some(covered), Some(stored)) = (
        bytes.get(..HEADER_LEN - 4),
        bytes.get(HEADER_LEN - 4..HEADER_LEN),
    ) else {
        return Err(short);
    };
    let stored = u32::from_le_bytes(stored.try_into().map_err(|_| short)?);
    let computed = crc32(covered);
    if stored != computed {
        return Err(RestoreError::HeaderChecksum { stored, computed });
    }
    let kind_at = r.at();
    let kind = Kind::of_code(r.u16()?).ok_or(RestoreError::Malformed {
        offset: kind_at,
        what: "unknown checkpoint kind",
    })?;
    let len_at = r.at();
    let len = r.u32()?;
    if usize::try_from(len).is_ok_and(|len| len < HEADER_LEN + TRAILER_LEN) {
        return Err(RestoreError::Malformed {
            offset: len_at,
            what: "length shorter than a header and trailer",
        });
    }
    let capacities = Capacities {
        queued: r.u32()?,
        running: r.u32()?,
        steps: r.u32()?,
        machines: r.u32()?,
        pools: r.u32()?,
    };
    Ok(Header {
        version,
        kind,
        len,
        capacities,
    })
}

/// Checks a whole checkpoint before its state is read: the header
/// ([`read_header`]), the length against the bytes, the CRC-32, the kind
/// and the capacities against `room` (`Q`, `R`, `B`, `M`, `L` of the kernel
/// restored into). Returns the header and a reader over the state (from the
/// header to the trailer).
pub(crate) fn open(
    bytes: &[u8],
    kind: Kind,
    room: [usize; 5],
) -> Result<(Header, Reader<'_>), RestoreError> {
    let header = read_header(bytes)?;
    let len = usize::try_from(header.len).unwrap_or(usize::MAX);
    if bytes.len() < len {
        return Err(RestoreError::Truncated {
            len: bytes.len(),
            needed: len,
        });
    }
    if bytes.len() > len {
        return Err(RestoreError::TrailingBytes {
            len: bytes.len(),
            expected: len,
        });
    }
    let body_end = len.saturating_sub(TRAILER_LEN);
    let (Some(covered), Some(trailer)) = (bytes.get(..body_end), bytes.get(body_end..)) else {
        return Err(RestoreError::Truncated {
            len: bytes.len(),
            needed: len,
        });
    };
    let mut t = Reader::new(trailer, body_end);
    let stored = t.u32()?;
    let computed = crc32(covered);
    if stored != computed {
        return Err(RestoreError::Checksum { stored, computed });
    }
    if header.kind != kind {
        return Err(RestoreError::WrongKind {
            expected: kind,
            found: header.kind,
        });
    }
    if let Some((table, written, room)) = header.capacities.first_larger_than(room) {
        return Err(RestoreError::Capacity {
            table,
            written,
            room,
        });
    }
    let state = covered.get(HEADER_LEN..).unwrap_or_default();
    Ok((header, Reader::new(state, HEADER_LEN)))
}

/// Writes fixed-width little-endian fields into a buffer the caller sized
/// (a write past its end is noted, not done).
pub(crate) struct Writer<'a> {
    buf: &'a mut [u8],
    at: usize,
    short: bool,
}

impl<'a> Writer<'a> {
    /// A writer at the start of `buf`.
    pub(crate) fn new(buf: &'a mut [u8]) -> Self {
        Self {
            buf,
            at: 0,
            short: false,
        }
    }

    /// Bytes written so far.
    pub(crate) const fn at(&self) -> usize {
        self.at
    }

    /// Whether every write fitted.
    pub(crate) const fn fitted(&self) -> bool {
        !self.short
    }

    /// The bytes written so far.
    pub(crate) fn written(&self) -> &[u8] {
        self.buf.get(..self.at).unwrap_or_default()
    }

    pub(crate) fn bytes(&mut self, bytes: &[u8]) {
        let end = self.at.saturating_add(bytes.len());
        match self.buf.get_mut(self.at..end) {
            Some(out) => {
                out.copy_from_slice(bytes);
                self.at = end;
            }
            None => self.short = true,
        }
    }

    pub(crate) fn u8(&mut self, v: u8) {
        self.bytes(&[v]);
    }

    pub(crate) fn u16(&mut self, v: u16) {
        self.bytes(&v.to_le_bytes());
    }

    pub(crate) fn u32(&mut self, v: u32) {
        self.bytes(&v.to_le_bytes());
    }

    pub(crate) fn u64(&mut self, v: u64) {
        self.bytes(&v.to_le_bytes());
    }

    pub(crate) fn u128(&mut self, v: u128) {
        self.bytes(&v.to_le_bytes());
    }

    pub(crate) fn flag(&mut self, v: bool) {
        self.u8(u8::from(v));
    }

    /// An optional `u32`: whether it is there, then the value (0 when it
    /// is not).
    pub(crate) fn option_u32(&mut self, v: Option<u32>) {
        self.flag(v.is_some());
        self.u32(v.unwrap_or(0));
    }

    /// A count that fits in 32 bits (the caller checked).
    pub(crate) fn count(&mut self, n: usize) {
        self.u32(u32::try_from(n).unwrap_or(u32::MAX));
    }
}

/// Reads fixed-width little-endian fields; running past the end is
/// [`RestoreError::Malformed`] (a section longer than the checkpoint).
#[derive(Clone, Copy, Debug)]
pub(crate) struct Reader<'a> {
    bytes: &'a [u8],
    at: usize,
    /// Offset of `bytes[0]` in the checkpoint, for messages.
    base: usize,
}

impl<'a> Reader<'a> {
    /// A reader of `bytes`, which begin `base` bytes into the checkpoint.
    pub(crate) const fn new(bytes: &'a [u8], base: usize) -> Self {
        Self { bytes, at: 0, base }
    }

    /// Offset of the next field from the checkpoint's first byte.
    pub(crate) const fn at(&self) -> usize {
        self.base.saturating_add(self.at)
    }

    /// Bytes left.
    pub(crate) const fn left(&self) -> usize {
        self.bytes.len().saturating_sub(self.at)
    }

    /// A [`RestoreError::Malformed`] at the next field.
    pub(crate) const fn malformed(&self, what: &'static str) -> RestoreError {
        RestoreError::Malformed {
            offset: self.at(),
            what,
        }
    }

    /// The next `n` bytes.
    pub(crate) fn take(&mut self, n: usize) -> Result<&'a [u8], RestoreError> {
        let end = self.at.saturating_add(n);
        let bytes = self
            .bytes
            .get(self.at..end)
            .ok_or(self.malformed("a section runs past the end of the checkpoint"))?;
        self.at = end;
        Ok(bytes)
    }

    fn skip(&mut self, n: usize) -> Result<(), RestoreError> {
        self.take(n).map(|_| ())
    }

    fn array<const N: usize>(&mut self) -> Result<[u8; N], RestoreError> {
        let bytes = self.take(N)?;
        bytes.try_into().map_err(|_| self.malformed("short field"))
    }

    pub(crate) fn u8(&mut self) -> Result<u8, RestoreError> {
        self.array::<1>().map(|[b]| b)
    }

    pub(crate) fn u16(&mut self) -> Result<u16, RestoreError> {
        self.array().map(u16::from_le_bytes)
    }

    pub(crate) fn u32(&mut self) -> Result<u32, RestoreError> {
        self.array().map(u32::from_le_bytes)
    }

    pub(crate) fn u64(&mut self) -> Result<u64, RestoreError> {
        self.array().map(u64::from_le_bytes)
    }

    pub(crate) fn u128(&mut self) -> Result<u128, RestoreError> {
        self.array().map(u128::from_le_bytes)
    }

    /// A byte that is 0 (false) or 1 (true).
    pub(crate) fn flag(&mut self) -> Result<bool, RestoreError> {
        match self.u8()? {
            0 => Ok(false),
            1 => Ok(true),
            _ => Err(RestoreError::Malformed {
                offset: self.at().saturating_sub(1),
                what: "a flag that is neither 0 nor 1",
            }),
        }
    }

    /// An optional `u32` as [`Writer::option_u32`] writes it; an absent
    /// value that is not 0 is malformed (`what` names it).
    pub(crate) fn option_u32(&mut self, what: &'static str) -> Result<Option<u32>, RestoreError> {
        let present = self.flag()?;
        let offset = self.at();
        let value = self.u32()?;
        if present {
            Ok(Some(value))
        } else if value == 0 {
            Ok(None)
        } else {
            Err(RestoreError::Malformed { offset, what })
        }
    }

    /// A 32-bit count of at most `most` records of `each` bytes, and the
    /// records.
    pub(crate) fn records(
        &mut self,
        most: u32,
        each: usize,
        what: &'static str,
    ) -> Result<(usize, Reader<'a>), RestoreError> {
        let count_at = self.at();
        let count = self.u32()?;
        if count > most {
            return Err(RestoreError::Malformed {
                offset: count_at,
                what,
            });
        }
        let count = usize::try_from(count).map_err(|_| self.malformed(what))?;
        let base = self.at();
        let bytes = self.take(count.saturating_mul(each))?;
        Ok((count, Reader::new(bytes, base)))
    }
}

/// Bytes of a job in a checkpoint.
const JOB_LEN: usize = 32;

/// The little-endian words at `bytes`, in order (`N` words of 4 bytes).
fn words<const N: usize>(bytes: &[u8]) -> [u32; N] {
    let mut out = [0u32; N];
    for (word, b) in out.iter_mut().zip(bytes.chunks_exact(4)) {
        let mut w = [0u8; 4];
        w.copy_from_slice(b);
        *word = u32::from_le_bytes(w);
    }
    out
}

/// A job's 32 bytes: id, submit, processors, estimate, deadline, licenses,
/// priority (two's complement), tag, each four.
fn job_bytes(job: &Job) -> [u8; JOB_LEN] {
    let fields = [
        job.id,
        job.submit,
        job.procs,
        job.estimate,
        job.deadline,
        job.licenses.0,
        u32::from_le_bytes(job.priority.to_le_bytes()),
        job.tag,
    ];
    let mut bytes = [0u8; JOB_LEN];
    for (b, field) in bytes.chunks_exact_mut(4).zip(fields) {
        b.copy_from_slice(&field.to_le_bytes());
    }
    bytes
}

/// The job [`job_bytes`] wrote at the start of `bytes`.
fn job_from(bytes: &[u8]) -> Job {
    let [id, submit, procs, estimate, deadline, licenses, priority, tag] = words(bytes);
    Job {
        id,
        submit,
        procs,
        estimate,
        deadline,
        licenses: LicenseSet(licenses),
        priority: i32::from_le_bytes(priority.to_le_bytes()),
        tag,
    }
}

/// Writes a job ([`job_bytes`]).
pub(crate) fn write_job(w: &mut Writer<'_>, job: &Job) {
    w.bytes(&job_bytes(job));
}

/// Reads what [`write_job`] writes.
pub(crate) fn read_job(r: &mut Reader<'_>) -> Result<Job, RestoreError> {
    r.take(JOB_LEN).map(job_from)
}

/// One job record ([`RECORD_LEN`] bytes): the job, a slot (start, duration,
/// machine; [`Slot::NOTHING`] for a queued job without a reservation) and
/// a guarantee (`Time::MAX` for none).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Record {
    pub(crate) job: Job,
    pub(crate) slot: Slot,
    pub(crate) guarantee: Time,
}

impl Record {
    /// The slot, unless it is [`Slot::NOTHING`]'s start (no reservation).
    pub(crate) const fn slot(&self) -> Option<Slot> {
        if self.slot.start == Time::MAX {
            None
        } else {
            Some(self.slot)
        }
    }

    /// The guarantee, unless it is `Time::MAX` (none).
    pub(crate) const fn guarantee(&self) -> Option<Time> {
        crate::types::unless_max(self.guarantee)
    }
}

/// Writes a record.
pub(crate) fn write_record(
    w: &mut Writer<'_>,
    job: &Job,
    slot: Option<Slot>,
    guarantee: Option<Time>,
) {
    let slot = slot.unwrap_or(Slot::NOTHING);
    let [g0, g1, g2, g3] = guarantee.unwrap_or(Time::MAX).to_le_bytes();
    let [s0, s1, s2, s3] = slot.start.to_le_bytes();
    let [d0, d1, d2, d3] = slot.duration.to_le_bytes();
    let tail = [s0, s1, s2, s3, d0, d1, d2, d3, slot.machine, g0, g1, g2, g3];
    // Filled in place and written at once: one bounds check per record.
    let mut record = [0u8; RECORD_LEN];
    let fields = job_bytes(job).into_iter().chain(tail);
    for (byte, value) in record.iter_mut().zip(fields) {
        *byte = value;
    }
    w.bytes(&record);
}

/// Records read from a section that holds whole ones (its length was
/// checked when it was taken).
#[derive(Clone, Copy, Debug)]
pub(crate) struct Records<'a> {
    section: Reader<'a>,
    count: usize,
}

impl<'a> Records<'a> {
    /// `count` records in `section`.
    pub(crate) const fn new(count: usize, section: Reader<'a>) -> Self {
        Self { section, count }
    }

    /// How many.
    pub(crate) const fn len(&self) -> usize {
        self.count
    }

    /// Offset of record `i` from the checkpoint's first byte.
    pub(crate) const fn offset(&self, i: usize) -> usize {
        self.section
            .at()
            .saturating_add(i.saturating_mul(RECORD_LEN))
    }

    /// The bytes of record `i`.
    fn bytes(&self, i: usize) -> Option<&'a [u8; RECORD_LEN]> {
        let start = i.checked_mul(RECORD_LEN)?;
        let end = start.checked_add(RECORD_LEN)?;
        self.section.bytes.get(start..end)?.try_into().ok()
    }

    /// Record `i` (`None` past the end): decoded from its bytes at fixed
    /// offsets, the fields of [`write_record`].
    pub(crate) fn get(&self, i: usize) -> Option<Record> {
        let b = self.bytes(i)?;
        let (job, tail) = b.split_at_checked(JOB_LEN)?;
        let [start, duration] = words(tail);
        let [guarantee] = words(tail.get(9..)?);
        Some(Record {
            job: job_from(job),
            slot: Slot {
                start,
                duration,
                machine: tail.get(8).copied().unwrap_or(0),
            },
            guarantee,
        })
    }

    /// The id of record `i` (`None` past the end).
    pub(crate) fn id(&self, i: usize) -> Option<JobId> {
        let b = self.bytes(i)?;
        let mut w = [0u8; 4];
        w.copy_from_slice(b.get(..4)?);
        Some(u32::from_le_bytes(w))
    }

    /// Every record, in order (the section holds them all, so none is
    /// left out).
    pub(crate) fn iter(&self) -> impl Iterator<Item = Record> + '_ {
        (0..self.count).filter_map(|i| self.get(i))
    }

    /// Every record's id, in order.
    pub(crate) fn ids(&self) -> impl Iterator<Item = JobId> + '_ {
        (0..self.count).filter_map(|i| self.id(i))
    }
}

/// Writes a cluster: its machine and pool counts (`u16` each), then each
/// machine (processors, speed) and each pool (copies, machine set).
pub(crate) fn write_cluster<const M: usize, const L: usize>(
    w: &mut Writer<'_>,
    cluster: &Cluster<M, L>,
) {
    w.u16(u16::try_from(cluster.machines().len()).unwrap_or(u16::MAX));
    w.u16(u16::try_from(cluster.pools().len()).unwrap_or(u16::MAX));
    for m in cluster.machines() {
        w.u32(m.cpus);
        w.u32(m.speed);
    }
    for p in cluster.pools() {
        w.u32(p.count);
        w.u128(p.machines.0);
    }
}

/// Reads what [`write_cluster`] writes, as [`Cluster::new`] builds it
/// (its machine order follows from the speeds).
pub(crate) fn read_cluster<const M: usize, const L: usize>(
    r: &mut Reader<'_>,
) -> Result<Cluster<M, L>, RestoreError> {
    let at = r.at();
    let machines = usize::from(r.u16()?);
    let pools = usize::from(r.u16()?);
    if machines > M || pools > L {
        return Err(RestoreError::Malformed {
            offset: at,
            what: "more machines or pools than the capacities",
        });
    }
    let mut ms: heapless::Vec<Machine, M> = heapless::Vec::new();
    for _ in 0..machines {
        let machine = Machine {
            cpus: r.u32()?,
            speed: r.u32()?,
        };
        ms.push(machine)
            .map_err(|_| r.malformed("more machines than M"))?;
    }
    let mut ps: heapless::Vec<LicensePool, L> = heapless::Vec::new();
    for _ in 0..pools {
        let pool = LicensePool {
            count: r.u32()?,
            machines: MachineSet(r.u128()?),
        };
        ps.push(pool)
            .map_err(|_| r.malformed("more pools than L"))?;
    }
    Cluster::new(&ms, &ps).map_err(|_| RestoreError::Malformed {
        offset: at,
        what: "not a cluster (no machine, or one with no processors or speed)",
    })
}

/// Bytes [`write_policy`] writes for `policy`.
pub(crate) const fn policy_len(policy: Policy) -> usize {
    // The tag, then the parameters.
    match policy {
        Policy::Selective(Threshold::Fixed(_)) => 1 + 1 + 4,
        Policy::Selective(Threshold::PerCategory { .. }) => 1 + 1 + 4 * 4 + 4 + 4,
        Policy::Selective(Threshold::Adaptive { .. }) => 1 + 1 + 4 + 1 + 4,
        Policy::ConsRs(_) | Policy::ConsRsAlea(_) => 1 + 8 + 1 + 4,
        Policy::BfUnmod(_) | Policy::BfMod(_) => 1 + 9 * 4,
        Policy::Dpsa { .. } => 1 + 1 + 4,
        _ => 1,
    }
}

/// Writes a policy: a tag, then its parameters.
pub(crate) fn write_policy(w: &mut Writer<'_>, policy: Policy) {
    match policy {
        Policy::Fcfs => w.u8(0),
        Policy::Easy => w.u8(1),
        Policy::SjfEasy => w.u8(2),
        Policy::Conservative => w.u8(3),
        Policy::Selective(threshold) => {
            w.u8(4);
            match threshold {
                Threshold::Fixed(t) => {
                    w.u8(0);
                    w.u32(t);
                }
                Threshold::PerCategory { thresholds, bounds } => {
                    w.u8(1);
                    for t in thresholds {
                        w.u32(t);
                    }
                    w.u32(bounds.short_max);
                    w.u32(bounds.narrow_max);
                }
                Threshold::Adaptive {
                    scale,
                    well_estimated_only,
                    initial,
                } => {
                    w.u8(2);
                    w.u32(scale);
                    w.flag(well_estimated_only);
                    w.u32(initial);
                }
            }
        }
        Policy::ConservativeNoCompression => w.u8(5),
        Policy::ConsRs(params) => {
            w.u8(6);
            write_search(w, params);
        }
        Policy::ConservativeRebuild => w.u8(11),
        Policy::ConsRsAlea(params) => {
            w.u8(12);
            write_search(w, params);
        }
        Policy::BfFcfs => w.u8(7),
        Policy::BfUnmod(h) => {
            w.u8(8);
            write_heuristics(w, &h);
        }
        Policy::BfMod(h) => {
            w.u8(9);
            write_heuristics(w, &h);
        }
        Policy::Dpsa { order, nodes } => {
            w.u8(10);
            w.u8(match order {
                DpsaOrder::Priority => 0,
                DpsaOrder::Narrow => 1,
                DpsaOrder::Wide => 2,
            });
            w.u32(nodes);
        }
    }
}

/// A random search's parameters: the seed, the budget's kind and count.
fn write_search(w: &mut Writer<'_>, params: RandomSearch) {
    w.u64(params.seed);
    match params.iterations {
        Iterations::PerQueuedJob(k) => {
            w.u8(0);
            w.u32(k);
        }
        Iterations::Fixed(n) => {
            w.u8(1);
            w.u32(n);
        }
    }
}

/// Reads what [`write_search`] writes.
fn read_search(r: &mut Reader<'_>) -> Result<RandomSearch, RestoreError> {
    let seed = r.u64()?;
    let budget_at = r.at();
    let iterations = match r.u8()? {
        0 => Iterations::PerQueuedJob(r.u32()?),
        1 => Iterations::Fixed(r.u32()?),
        _ => {
            return Err(RestoreError::Malformed {
                offset: budget_at,
                what: "unknown iteration budget",
            })
        }
    };
    Ok(RandomSearch { seed, iterations })
}

fn write_heuristics(w: &mut Writer<'_>, h: &Heuristics) {
    for v in [
        h.aging_weight,
        h.age_factor,
        h.deadline_weight,
        h.deadline_min,
        h.deadline_max,
        h.deadline_k,
        h.license_weight,
        h.wait_weight,
        h.wait_boost,
    ] {
        w.u32(v);
    }
}

fn read_heuristics(r: &mut Reader<'_>) -> Result<Heuristics, RestoreError> {
    Ok(Heuristics {
        aging_weight: r.u32()?,
        age_factor: r.u32()?,
        deadline_weight: r.u32()?,
        deadline_min: r.u32()?,
        deadline_max: r.u32()?,
        deadline_k: r.u32()?,
        license_weight: r.u32()?,
        wait_weight: r.u32()?,
        wait_boost: r.u32()?,
    })
}

/// Reads what [`write_policy`] writes.
pub(crate) fn read_policy(r: &mut Reader<'_>) -> Result<Policy, RestoreError> {
    let tag_at = r.at();
    let unknown = |what| RestoreError::Malformed {
        offset: tag_at,
        what,
    };
    Ok(match r.u8()? {
        0 => Policy::Fcfs,
        1 => Policy::Easy,
        2 => Policy::SjfEasy,
        3 => Policy::Conservative,
        4 => {
            let source_at = r.at();
            Policy::Selective(match r.u8()? {
                0 => Threshold::Fixed(r.u32()?),
                1 => {
                    let mut thresholds = [0u32; 4];
                    for t in &mut thresholds {
                        *t = r.u32()?;
                    }
                    let bounds = CategoryBounds {
                        short_max: r.u32()?,
                        narrow_max: r.u32()?,
                    };
                    Threshold::PerCategory { thresholds, bounds }
                }
                2 => Threshold::Adaptive {
                    scale: r.u32()?,
                    well_estimated_only: r.flag()?,
                    initial: r.u32()?,
                },
                _ => {
                    return Err(RestoreError::Malformed {
                        offset: source_at,
                        what: "unknown threshold source",
                    })
                }
            })
        }
        5 => Policy::ConservativeNoCompression,
        6 => Policy::ConsRs(read_search(r)?),
        7 => Policy::BfFcfs,
        8 => Policy::BfUnmod(read_heuristics(r)?),
        9 => Policy::BfMod(read_heuristics(r)?),
        10 => {
            let order_at = r.at();
            let order = match r.u8()? {
                0 => DpsaOrder::Priority,
                1 => DpsaOrder::Narrow,
                2 => DpsaOrder::Wide,
                _ => {
                    return Err(RestoreError::Malformed {
                        offset: order_at,
                        what: "unknown DPSA order",
                    })
                }
            };
            Policy::Dpsa {
                order,
                nodes: r.u32()?,
            }
        }
        11 => Policy::ConservativeRebuild,
        12 => Policy::ConsRsAlea(read_search(r)?),
        _ => return Err(unknown("unknown policy")),
    })
}

/// Bytes [`write_saved`] writes for `policy`.
pub(crate) const fn saved_len(policy: Policy) -> usize {
    match policy {
        Policy::Easy | Policy::SjfEasy | Policy::Dpsa { .. } => 1 + 32,
        Policy::Conservative | Policy::ConservativeRebuild => 1,
        Policy::Selective(_) => 1 + 8 + 8,
        Policy::ConsRs(_) => 1 + 1 + 8,
        Policy::ConsRsAlea(_) => 1 + 1 + 4 + 8,
        Policy::BfFcfs | Policy::BfUnmod(_) | Policy::BfMod(_) => 1 + 4,
        _ => 0,
    }
}

/// Writes the decision state `policy` reads (see [`Saved`]).
pub(crate) fn write_saved(w: &mut Writer<'_>, policy: Policy, saved: &Saved) {
    match policy {
        Policy::Easy | Policy::SjfEasy | Policy::Dpsa { .. } => {
            w.flag(saved.reserved_head.is_some());
            write_job(w, &saved.reserved_head.unwrap_or(Job::new(0, 0, 0, 0)));
        }
        Policy::Conservative | Policy::ConservativeRebuild => w.flag(saved.compression_due),
        Policy::Selective(_) => {
            w.flag(saved.compression_due);
            w.u64(saved.average.count);
            w.u64(saved.average.sum);
        }
        Policy::ConsRs(_) => {
            w.flag(saved.compression_due);
            w.flag(saved.search_due);
            w.u64(saved.rng);
        }
        Policy::ConsRsAlea(_) => {
            w.flag(saved.search_due);
            w.option_u32(saved.next_search);
            w.u64(saved.rng);
        }
        Policy::BfFcfs | Policy::BfUnmod(_) | Policy::BfMod(_) => w.option_u32(saved.holder),
        _ => {}
    }
}

/// Reads what [`write_saved`] writes; a value the policy cannot hold (an
/// absent job or id that is not all zeros, an average of no jobs that is
/// not zero, or one where the threshold reads none) is malformed.
pub(crate) fn read_saved(r: &mut Reader<'_>, policy: Policy) -> Result<Saved, RestoreError> {
    let mut saved = Saved::default();
    match policy {
        Policy::Easy | Policy::SjfEasy | Policy::Dpsa { .. } => {
            let present = r.flag()?;
            let at = r.at();
            let job = read_job(r)?;
            if present {
                saved.reserved_head = Some(job);
            } else if job != Job::new(0, 0, 0, 0) {
                return Err(RestoreError::Malformed {
                    offset: at,
                    what: "an absent reserved head that is not zero",
                });
            }
        }
        Policy::Conservative | Policy::ConservativeRebuild => saved.compression_due = r.flag()?,
        Policy::Selective(threshold) => {
            saved.compression_due = r.flag()?;
            let at = r.at();
            saved.average = SlowdownAverage {
                count: r.u64()?,
                sum: r.u64()?,
            };
            let adaptive = matches!(threshold, Threshold::Adaptive { .. });
            let empty = saved.average == SlowdownAverage::default();
            if (saved.average.count == 0 || !adaptive) && !empty {
                return Err(RestoreError::Malformed {
                    offset: at,
                    what: "a slowdown average the threshold cannot have",
                });
            }
        }
        Policy::ConsRs(_) => {
            saved.compression_due = r.flag()?;
            saved.search_due = r.flag()?;
            saved.rng = r.u64()?;
        }
        Policy::ConsRsAlea(_) => {
            saved.search_due = r.flag()?;
            saved.next_search = r.option_u32("an absent periodic search time that is not zero")?;
            saved.rng = r.u64()?;
        }
        Policy::BfFcfs | Policy::BfUnmod(_) | Policy::BfMod(_) => {
            saved.holder = r.option_u32("an absent holder that is not zero")?;
        }
        _ => {}
    }
    Ok(saved)
}

/// The counters, in declaration order.
const fn counter_values(c: &Counters) -> [u64; 12] {
    [
        c.dpsa_searches,
        c.dpsa_nodes,
        c.dpsa_budget_hits,
        c.dpsa_overflows,
        c.rs_searches,
        c.rs_iterations,
        c.rs_accepted,
        c.rs_rejected_guarantee,
        c.rs_rejected_objective,
        c.rs_no_gap,
        c.rs_too_crowded,
        c.reservation_handovers,
    ]
}

/// Writes the twelve counters ([`COUNTERS_LEN`] bytes).
pub(crate) fn write_counters(w: &mut Writer<'_>, c: &Counters) {
    for v in counter_values(c) {
        w.u64(v);
    }
}

/// Reads what [`write_counters`] writes.
pub(crate) fn read_counters(r: &mut Reader<'_>) -> Result<Counters, RestoreError> {
    let mut v = [0u64; 12];
    for x in &mut v {
        *x = r.u64()?;
    }
    let [dpsa_searches, dpsa_nodes, dpsa_budget_hits, dpsa_overflows, rs_searches, rs_iterations, rs_accepted, rs_rejected_guarantee, rs_rejected_objective, rs_no_gap, rs_too_crowded, reservation_handovers] =
        v;
    Ok(Counters {
        dpsa_searches,
        dpsa_nodes,
        dpsa_budget_hits,
        dpsa_overflows,
        rs_searches,
        rs_iterations,
        rs_accepted,
        rs_rejected_guarantee,
        rs_rejected_objective,
        rs_no_gap,
        rs_too_crowded,
        reservation_handovers,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The check values of CRC-32/ISO-HDLC (the IEEE CRC-32 of zlib and
    /// PNG), and chaining.
    #[test]
    fn crc32_is_the_ieee_one() {
        assert_eq!(crc32(b""), 0);
        assert_eq!(crc32(b"123456789"), 0xCBF4_3926);
        assert_eq!(
            crc32(b"The quick brown fox jumps over the lazy dog"),
            0x414F_A339
        );
        assert_eq!(
            crc32_continue(crc32(b"12345"), b"6789"),
            crc32(b"123456789")
        );
        // Eight at a time gives what one at a time gives, at every length
        // and split.
        let data: std::vec::Vec<u8> = (0..100u32).map(|i| (i * 37 + 11) as u8).collect();
        for len in 0..data.len() {
            let mut bitwise = !0u32;
            for &b in &data[..len] {
                bitwise ^= u32::from(b);
                for _ in 0..8 {
                    bitwise = if bitwise & 1 == 1 {
                        0xEDB8_8320 ^ (bitwise >> 1)
                    } else {
                        bitwise >> 1
                    };
                }
            }
            assert_eq!(crc32(&data[..len]), !bitwise, "length {len}");
            let split = len / 3;
            assert_eq!(
                crc32_continue(crc32(&data[..split]), &data[split..len]),
                crc32(&data[..len])
            );
        }
    }

    /// Every policy of `Policy::ALL`, and variants with other parameters,
    /// reads back as written, in the length `policy_len` says, at most
    /// `POLICY_MAX`; the decision state likewise.
    #[test]
    fn policies_round_trip() {
        let more = [
            Policy::Selective(Threshold::Adaptive {
                scale: 1234,
                well_estimated_only: true,
                initial: 1500,
            }),
            Policy::ConsRs(RandomSearch {
                seed: u64::MAX,
                iterations: Iterations::Fixed(7),
            }),
            Policy::Dpsa {
                order: DpsaOrder::Wide,
                nodes: 0,
            },
            Policy::ConsRsAlea(RandomSearch {
                seed: 11,
                iterations: Iterations::Fixed(2),
            }),
        ];
        for policy in Policy::ALL
            .into_iter()
            .chain(Policy::OPTION_VARIANTS)
            .chain(more)
        {
            let mut buf = [0u8; POLICY_MAX + SAVED_MAX];
            let mut w = Writer::new(&mut buf);
            write_policy(&mut w, policy);
            assert_eq!(w.at(), policy_len(policy), "{policy:?}");
            assert!(policy_len(policy) <= POLICY_MAX);
            let saved = Saved {
                reserved_head: Some(Job::new(1, 2, 3, 4)),
                compression_due: true,
                average: SlowdownAverage {
                    count: 1,
                    sum: 1000,
                },
                rng: 42,
                search_due: true,
                next_search: Some(300),
                holder: Some(9),
            };
            let saved = crate::policy::Engine::restored(policy, &saved).saved();
            write_saved(&mut w, policy, &saved);
            assert!(w.fitted());
            assert_eq!(w.at(), policy_len(policy) + saved_len(policy));
            assert!(saved_len(policy) <= SAVED_MAX);
            let len = w.at();
            let mut r = Reader::new(&buf[..len], 0);
            assert_eq!(read_policy(&mut r).unwrap(), policy);
            assert_eq!(read_saved(&mut r, policy).unwrap(), saved, "{policy:?}");
            assert_eq!(r.left(), 0);
        }
    }

    /// Every error says what went wrong, with its figures.
    #[test]
    fn errors_say_what_and_where() {
        use std::string::ToString;
        let cases = [
            (RestoreError::Truncated { len: 7, needed: 40 }, "7 bytes"),
            (
                RestoreError::TrailingBytes {
                    len: 41,
                    expected: 40,
                },
                "trailing",
            ),
            (RestoreError::BadMagic, "magic"),
            (RestoreError::NewerVersion(3), "version 3 is newer"),
            (
                RestoreError::UnsupportedVersion(0),
                "version 0 has no reader",
            ),
            (
                RestoreError::HeaderChecksum {
                    stored: 1,
                    computed: 2,
                },
                "header checksum",
            ),
            (
                RestoreError::Checksum {
                    stored: 0xAB,
                    computed: 2,
                },
                "0x000000ab",
            ),
            (
                RestoreError::WrongKind {
                    expected: Kind::Kernel,
                    found: Kind::Simulator,
                },
                "replay where a kernel",
            ),
            (
                RestoreError::Capacity {
                    table: Table::Pools,
                    written: 9,
                    room: 8,
                },
                "9 license pools (L), this one holds 8",
            ),
            (
                RestoreError::Malformed {
                    offset: 77,
                    what: "odd",
                },
                "byte 77: odd",
            ),
            (RestoreError::Invalid("two jobs"), "invalid state: two jobs"),
        ];
        for (e, part) in cases {
            let text = e.to_string();
            assert!(text.contains(part), "{text:?} lacks {part:?}");
        }
        let small = CheckpointError::BufferTooSmall { needed: 9, len: 3 };
        assert_eq!(
            small.to_string(),
            "checkpoint needs 9 bytes, the buffer holds 3"
        );
        assert!(CheckpointError::TooLarge.to_string().contains("too large"));
        for table in [
            Table::Queued,
            Table::Running,
            Table::Steps,
            Table::Machines,
            Table::Pools,
        ] {
            assert!(!table.name().is_empty());
        }
        assert_eq!(Kind::of_code(Kind::Simulator.code()), Some(Kind::Simulator));
        assert_eq!(Kind::of_code(3), None);
    }

    /// A header reads back; short, foreign, newer and damaged headers are
    /// each their own error.
    #[test]
    fn headers_are_checked_field_by_field() {
        let mut buf = [0u8; HEADER_LEN];
        let mut w = Writer::new(&mut buf);
        w.bytes(&MAGIC);
        w.u16(FORMAT_VERSION);
        w.u16(Kind::Kernel.code());
        w.u32(500);
        for c in [1, 2, 3, 4, 5] {
            w.u32(c);
        }
        let crc = crc32(w.written());
        w.u32(crc);
        let header = read_header(&buf).unwrap();
        assert_eq!(header.len, 500);
        assert_eq!(header.kind, Kind::Kernel);
        assert_eq!(
            header.capacities.first_larger_than([1, 2, 3, 4, 5]),
            None,
            "the same capacities fit"
        );
        assert_eq!(
            header.capacities.first_larger_than([9, 9, 2, 9, 9]),
            Some((Table::Steps, 3, 2))
        );
        assert_eq!(
            read_header(&buf[..20]),
            Err(RestoreError::Truncated {
                len: 20,
                needed: HEADER_LEN
            })
        );
        assert_eq!(
            read_header(&buf[..3]),
            Err(RestoreError::Truncated {
                len: 3,
                needed: HEADER_LEN
            })
        );
        assert_eq!(read_header(b"\x89BFX"), Err(RestoreError::BadMagic));
        assert_eq!(read_header(b"hello, world"), Err(RestoreError::BadMagic));
        let mut newer = buf;
        newer[8] = 2;
        assert_eq!(read_header(&newer), Err(RestoreError::NewerVersion(2)));
        newer[8] = 0;
        assert_eq!(
            read_header(&newer),
            Err(RestoreError::UnsupportedVersion(0))
        );
        let mut flipped = buf;
        flipped[20] ^= 4;
        assert!(matches!(
            read_header(&flipped),
            Err(RestoreError::HeaderChecksum { .. })
        ));
    }
}
