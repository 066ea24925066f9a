//! Timing helpers: the medians of the criterion benches (`cargo xtask
//! medians`), and whole commands timed side by side (`cargo xtask
//! side-by-side`).

use crate::repo;
use crate::text::g;
use glob::Pattern;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Instant;

/// A duration in nanoseconds as `1.23 ms`.
fn human(ns: f64) -> String {
    for (unit, scale) in [("s", 1e9), ("ms", 1e6), ("µs", 1e3)] {
        if ns >= scale {
            return format!("{} {unit}", g(ns / scale, 3));
        }
    }
    format!("{} ns", g(ns, 3))
}

/// Every file named `name` below `dir`.
fn find(dir: &Path, name: &str, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        if path.is_dir() {
            find(&path, name, out);
        } else if path.file_name().is_some_and(|n| n == name) {
            out.push(path);
        }
    }
}

/// A JSON file, parsed.
fn json(path: &Path) -> Result<serde_json::Value, String> {
    serde_json::from_str(&repo::read_text(path)?).map_err(|e| format!("{}: {e}", path.display()))
}

/// Prints the median of every criterion benchmark under `dir` (default
/// `$CARGO_TARGET_DIR/criterion`, else the repository's
/// `target/criterion`), its 95% interval, and the fastest sample per
/// iteration (the best guide on a machine shared with other work).
/// Criterion's console output shows the mean (or slope); the medians live
/// in `<bench>/new/estimates.json`.
pub fn medians(dir: Option<&Path>) -> Result<(), String> {
    let dir = dir.map_or_else(
        || {
            std::env::var_os("CARGO_TARGET_DIR")
                .map_or_else(|| repo::root().join("target"), PathBuf::from)
                .join("criterion")
        },
        Path::to_path_buf,
    );
    let mut estimates = Vec::new();
    find(&dir, "estimates.json", &mut estimates);
    let mut rows = Vec::new();
    for path in estimates {
        let Some(folder) = path.parent().filter(|f| f.ends_with("new")) else {
            continue;
        };
        let median = json(&path)?["median"].clone();
        let name = json(&folder.join("benchmark.json"))?["full_id"]
            .as_str()
            .unwrap_or("?")
            .to_owned();
        let sample = json(&folder.join("sample.json"))?;
        let numbers = |key: &str| -> Vec<f64> {
            sample[key]
                .as_array()
                .map(|v| v.iter().filter_map(serde_json::Value::as_f64).collect())
                .unwrap_or_default()
        };
        let fastest = numbers("times")
            .iter()
            .zip(numbers("iters"))
            .map(|(t, n)| t / n)
            .fold(f64::INFINITY, f64::min);
        let f = |p: &str| {
            median
                .pointer(p)
                .and_then(serde_json::Value::as_f64)
                .unwrap_or(f64::NAN)
        };
        rows.push((
            name,
            f("/point_estimate"),
            f("/confidence_interval/lower_bound"),
            f("/confidence_interval/upper_bound"),
            fastest,
        ));
    }
    if rows.is_empty() {
        return Err(format!(
            "no criterion results under {} (run `cargo bench -p backfill-benches` first)",
            dir.display()
        ));
    }
    rows.sort_by(|a, b| a.0.cmp(&b.0));
    println!(
        "{:40} {:>10}  {:24} {:>10}",
        "benchmark", "median", "95% interval", "fastest"
    );
    for (name, point, low, high, fastest) in rows {
        let interval = format!("[{} .. {}]", human(low), human(high));
        println!(
            "{name:40} {:>10}  {interval:24} {:>10}",
            human(point),
            human(fastest)
        );
    }
    Ok(())
}

/// The files `glob` names, sorted: a folder and a file-name pattern (`*`,
/// `?`, `[...]` as [`Pattern`] reads them).
fn glob(glob: &str) -> Result<Vec<PathBuf>, String> {
    let path = Path::new(glob);
    let dir = path
        .parent()
        .filter(|p| !p.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy())
        .unwrap_or_default();
    let pattern = Pattern::new(&name).map_err(|e| format!("{glob}: {e}"))?;
    let mut found: Vec<PathBuf> = std::fs::read_dir(dir)
        .map_err(|e| format!("{}: {e}", dir.display()))?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| {
            p.file_name()
                .is_some_and(|n| pattern.matches(&n.to_string_lossy()))
        })
        .collect();
    found.sort();
    Ok(found)
}

/// The median of `v` (the mean of the middle two for an even count).
fn median(v: &mut [f64]) -> f64 {
    v.sort_by(f64::total_cmp);
    let n = v.len();
    match n {
        0 => f64::NAN,
        _ if n % 2 == 1 => v[n / 2],
        _ => (v[n / 2 - 1] + v[n / 2]) / 2.0,
    }
}

/// Times whole commands side by side: for each trace `traces` names, every
/// command (`LABEL=BIN:ARGS`, `{t}` in ARGS standing for the trace) runs
/// `n` times, interleaved, and the median wall time of each is printed in
/// milliseconds, one line per trace.
pub fn side_by_side(n: usize, traces: &str, specs: &[String]) -> Result<(), String> {
    let specs: Vec<(&str, &str, &str)> = specs
        .iter()
        .map(|s| {
            let (label, rest) = s
                .split_once('=')
                .ok_or_else(|| format!("{s}: expected LABEL=BIN:ARGS"))?;
            let (bin, args) = rest
                .split_once(':')
                .ok_or_else(|| format!("{s}: expected LABEL=BIN:ARGS"))?;
            Ok((label, bin, args))
        })
        .collect::<Result<_, String>>()?;
    let traces = glob(traces)?;
    if traces.is_empty() {
        return Err("no trace matches".into());
    }
    let labels: Vec<&str> = specs.iter().map(|s| s.0).collect();
    println!("trace\t{}", labels.join("\t"));
    for trace in traces {
        let t = trace.to_string_lossy();
        let mut times = vec![Vec::new(); specs.len()];
        for _ in 0..n {
            for (i, (label, bin, args)) in specs.iter().enumerate() {
                let started = Instant::now();
                let status = Command::new(bin)
                    .args(args.replace("{t}", &t).split_whitespace())
                    .stdout(Stdio::null())
                    .stderr(Stdio::null())
                    .status()
                    .map_err(|e| format!("{label}: {bin}: {e}"))?;
                if !status.success() {
                    return Err(format!("{label} on {t} failed ({status})"));
                }
                times[i].push(started.elapsed().as_secs_f64());
            }
        }
        let name = repo::stem(&trace).replace("-cln", "");
        let medians: Vec<String> = times
            .iter_mut()
            .map(|v| format!("{:.1}", 1000.0 * median(v)))
            .collect();
        println!("{name}\t{}", medians.join("\t"));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn durations_and_patterns() {
        assert_eq!(human(1_234_567.0), "1.23 ms");
        assert_eq!(human(999.0), "999 ns");
        assert_eq!(human(2.5e9), "2.5 s");
        let dir = tempfile::tempdir().unwrap();
        for name in ["CTC.swf.gz", "CTC.swf", "KTH.swf.gz"] {
            std::fs::write(dir.path().join(name), "").unwrap();
        }
        let names = |pattern: &str| -> Vec<String> {
            glob(&dir.path().join(pattern).to_string_lossy())
                .unwrap()
                .iter()
                .map(|p| p.file_name().unwrap().to_string_lossy().into_owned())
                .collect()
        };
        assert_eq!(names("*.gz"), ["CTC.swf.gz", "KTH.swf.gz"]);
        assert_eq!(names("C?C*"), ["CTC.swf", "CTC.swf.gz"]);
        assert!(glob(&dir.path().join("[").to_string_lossy()).is_err());
        assert_eq!(median(&mut [3.0, 1.0, 2.0]), 2.0);
        assert_eq!(median(&mut [4.0, 1.0, 2.0, 3.0]), 2.5);
    }
}
