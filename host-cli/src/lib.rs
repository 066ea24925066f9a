//! Host side of the backfill kernel: SWF reading, replay driving, reports.
//!
//! Modules, bottom-up: each uses only modules listed above it (a test
//! checks the `crate::` paths of every source file against this order).
//!
//! * [`swf`]: the Standard Workload Format reader (plain and gzip), with
//!   errors naming file, line and field, and counted skip reasons;
//! * [`rng`], [`lublin`], [`estimates`]: the seeded generator, the
//!   Lublin-Feitelson job model and Tsafrir-Etsion-Feitelson user estimates
//!   drawn from it;
//! * [`synth`]: the seeded synthetic workload used when no trace is given;
//! * [`progress`]: progress bars on stderr for the phases of a command;
//! * [`replay`]: windowing, estimates, load scaling, and the replay driver
//!   around `backfill_core::Simulator`;
//! * [`output`]: stdout without panics, and output files checked before a
//!   run and renamed into place only when complete;
//! * [`thresholds`]: Selective's starvation thresholds: parsing them,
//!   deriving them from a Conservative run, and saying which were used;
//! * [`report`]: tables, JSON and the per-job CSV;
//! * [`plot`]: SVG figures (plotters, SVG backend only; uses no other module);
//! * [`generate`]: `host-cli generate`, the model workloads as SWF files;
//! * [`analysis`]: the selective-reservation analyses (category
//!   comparisons, load sweeps, fairness), run over several policies;
//! * [`cli`]: the `host-cli` command line (clap).
#![forbid(unsafe_code)]

pub mod analysis;
pub mod cli;
pub mod estimates;
pub mod generate;
pub mod lublin;
pub mod output;
pub mod plot;
pub mod progress;
pub mod replay;
pub mod report;
pub mod rng;
pub mod swf;
pub mod synth;
pub mod thresholds;

#[cfg(test)]
mod tests {
    use std::path::{Path, PathBuf};

    /// The modules bottom-up, as listed above: a module may use only the
    /// modules before it.
    const LAYERS: [&str; 14] = [
        "swf",
        "rng",
        "lublin",
        "estimates",
        "synth",
        "progress",
        "replay",
        "output",
        "thresholds",
        "report",
        "plot",
        "generate",
        "analysis",
        "cli",
    ];

    fn sources(dir: &Path, out: &mut Vec<PathBuf>) {
        for entry in std::fs::read_dir(dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                sources(&path, out);
            } else if path.extension().is_some_and(|e| e == "rs") {
                out.push(path);
            }
        }
    }

    /// Every `crate::name` outside comments in the files of module `layer`
    /// names a module below it: the module graph is a DAG in `LAYERS` order.
    #[test]
    fn modules_use_only_lower_layers() {
        let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
        let mut files = Vec::new();
        sources(&src, &mut files);
        let mut checked = 0;
        for file in files {
            let rel = file.strip_prefix(&src).unwrap();
            let top = rel
                .components()
                .next()
                .unwrap()
                .as_os_str()
                .to_string_lossy();
            let module = top.trim_end_matches(".rs");
            if matches!(module, "lib" | "main") {
                continue;
            }
            let level = LAYERS
                .iter()
                .position(|m| *m == module)
                .unwrap_or_else(|| panic!("module {module} ({}) is not in LAYERS", rel.display()));
            let text = std::fs::read_to_string(&file).unwrap();
            for (n, line) in text.lines().enumerate() {
                let code = line.trim_start();
                if code.starts_with("//") {
                    continue;
                }
                for (at, _) in code.match_indices("crate::") {
                    let used: String = code[at + 7..]
                        .chars()
                        .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
                        .collect();
                    let Some(used_level) = LAYERS.iter().position(|m| *m == used) else {
                        continue;
                    };
                    assert!(
                        used_level < level || used == module,
                        "{}:{}: {module} uses crate::{used}, which is not below it",
                        rel.display(),
                        n + 1
                    );
                    checked += 1;
                }
            }
        }
        assert!(checked > 20, "only {checked} crate:: paths found");
    }
}
