//! The schedule back as SWF (`replay --jobs-out FILE --jobs-format swf`):
//! the input trace's data lines, one per scheduled job in trace order,
//! with the fields the replay decides replaced and every other field as
//! the input has it, so that any SWF tool (and `host-cli info` and
//! `replay` themselves) reads the simulated schedule.
//!
//! Replaced: field 2 (submit time, as replayed: divided by `--load`),
//! field 3 (wait: simulated start - submit), field 4 (run time: end -
//! start, shorter than the input's when the job was killed at its
//! estimate) and field 5 (allocated processors: those it ran on). The
//! header is `; MaxProcs:` (the machine replayed) and notes saying so;
//! the job lines of the input that were not scheduled (skipped, outside
//! the window) are left out, and a note counts them.

use crate::replay::Prepared;
use crate::swf::{self, SwfRecord};
use backfill_core::JobRecord;
use std::collections::HashMap;
use std::io::Write;
use std::path::Path;

/// Writes the schedule of `records` (a replay of `prepared`, read from
/// `trace`, under `policy`) as SWF to `out`.
///
/// # Errors
/// The trace cannot be read again, or writing fails.
pub(crate) fn write_swf<W: Write>(
    mut out: W,
    trace: &Path,
    prepared: &Prepared,
    records: &[JobRecord],
    policy: &str,
) -> std::io::Result<()> {
    let loaded = swf::load(trace).map_err(|e| std::io::Error::other(e.to_string()))?;
    let lines: HashMap<u64, &SwfRecord> = loaded.records.iter().map(|(l, r)| (*l, r)).collect();
    let mut sorted: Vec<&JobRecord> = records.iter().collect();
    sorted.sort_by_key(|r| r.job.id);
    writeln!(out, "; Version: 2.2")?;
    writeln!(
        out,
        "; Computer: simulated schedule of {} under {policy} (host-cli replay)",
        prepared.name
    )?;
    writeln!(out, "; MaxProcs: {}", prepared.machine_procs)?;
    writeln!(
        out,
        "; Note: fields 2 (submit, as replayed), 3 (wait), 4 (run time) and 5 (allocated \
         processors) are the replay's; every other field is the input's"
    )?;
    let left_out = loaded.records.len().saturating_sub(sorted.len());
    writeln!(
        out,
        "; Note: {left_out} data lines of the input were not scheduled (skipped or outside \
         the window) and are left out"
    )?;
    for r in sorted {
        let Some(record) = prepared
            .trace_jobs
            .get(r.job.id as usize)
            .and_then(|t| lines.get(&t.line))
        else {
            continue;
        };
        let mut fields = record.fields();
        for (i, v) in [
            (1, r.job.submit),
            (2, r.wait()),
            (3, r.run()),
            (4, r.job.procs),
        ] {
            if let Some(f) = fields.get_mut(i) {
                *f = i64::from(v);
            }
        }
        let text: Vec<String> = fields.iter().map(i64::to_string).collect();
        writeln!(out, "{}", text.join(" "))?;
    }
    out.flush()
}
