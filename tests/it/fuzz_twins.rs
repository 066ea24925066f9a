//! Stable twins of the fuzz targets: each body in
//! `backfill_tests::fuzz_bodies` runs here over the committed seed corpus
//! (`fuzz/corpus/<target>/`), over mutations of those seeds, and over
//! seeded random bytes. A failing input is written to
//! `target/fuzz-twin-failures/<target>-<n>.bin`, ready for
//! `cargo +nightly fuzz run <target> <file>` in `fuzz/`.

use backfill_tests::fuzz_bodies;
use backfill_tests::rng::{Draws, SplitMix64};
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::{Path, PathBuf};

fn workspace() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .unwrap()
        .to_path_buf()
}

/// The committed seeds of `target`, sorted by name.
fn corpus(target: &str) -> Vec<(PathBuf, Vec<u8>)> {
    let dir = workspace().join("fuzz").join("corpus").join(target);
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|e| e.unwrap().path())
        .filter(|p| p.is_file())
        .collect();
    files.sort();
    assert!(!files.is_empty(), "no seeds in {}", dir.display());
    files
        .into_iter()
        .map(|p| {
            let data = std::fs::read(&p).unwrap();
            (p, data)
        })
        .collect()
}

/// Runs `body` on `data`; on a panic saves the input and fails naming it.
fn run(target: &str, body: fn(&[u8]), data: &[u8], origin: &str) {
    if catch_unwind(AssertUnwindSafe(|| body(data))).is_err() {
        let dir = workspace().join("target").join("fuzz-twin-failures");
        std::fs::create_dir_all(&dir).unwrap();
        let n = std::fs::read_dir(&dir).map(|d| d.count()).unwrap_or(0);
        let path = dir.join(format!("{target}-{n}.bin"));
        std::fs::write(&path, data).unwrap();
        panic!(
            "{target} failed on {origin}; input saved to {} (reproduce: cd fuzz && cargo +nightly fuzz run {target} {})",
            path.display(),
            path.display()
        );
    }
}

/// A copy of `seed` with a few random byte edits (flip, set, insert, delete).
fn mutate(rng: &mut SplitMix64, seed: &[u8]) -> Vec<u8> {
    let mut data = seed.to_vec();
    for _ in 0..rng.range_u32(1, 8) {
        let len = data.len() as u64;
        let at = usize::try_from(rng.below(len + 1)).unwrap();
        let byte = u8::try_from(rng.below(256)).unwrap();
        match rng.below(4) {
            0 if at < data.len() => data[at] ^= 1 << rng.below(8),
            1 if at < data.len() => data[at] = byte,
            2 => data.insert(at, byte),
            _ if at < data.len() => {
                data.remove(at);
            }
            _ => data.push(byte),
        }
    }
    data
}

/// Seeds, then `mutations` mutated seeds, then `random` random inputs of up
/// to `max_len` bytes.
fn twin(target: &str, body: fn(&[u8]), mutations: usize, random: usize, max_len: u64) {
    let seeds = corpus(target);
    for (path, data) in &seeds {
        run(target, body, data, &path.display().to_string());
    }
    let mut rng = SplitMix64::new(0x5EED_0000 ^ target.len() as u64);
    for i in 0..mutations {
        let (path, seed) = &seeds[i % seeds.len()];
        let data = mutate(&mut rng, seed);
        run(
            target,
            body,
            &data,
            &format!("mutation {i} of {}", path.display()),
        );
    }
    for i in 0..random {
        let len = usize::try_from(rng.below(max_len + 1)).unwrap();
        let data = rng.bytes(len);
        run(target, body, &data, &format!("random input {i}"));
    }
}

#[test]
fn kernel_api_twin() {
    twin("kernel_api", fuzz_bodies::kernel_api, 1500, 1500, 1024);
}

#[test]
fn replay_invariants_twin() {
    twin(
        "replay_invariants",
        fuzz_bodies::replay_invariants,
        600,
        600,
        512,
    );
}

#[test]
fn profile_ops_twin() {
    twin("profile_ops", fuzz_bodies::profile_ops, 2000, 2000, 512);
}

#[test]
fn swf_parse_twin() {
    twin("swf_parse", fuzz_bodies::swf_parse, 3000, 1000, 512);
    // Text in the SWF alphabet reaches the accepting paths far more often.
    let mut rng = SplitMix64::new(42);
    let alphabet = b"0123456789 -+.eE\t\r\n;\n\n:x";
    for i in 0..3000 {
        let len = usize::try_from(rng.below(300)).unwrap();
        let data: Vec<u8> = (0..len)
            .map(|_| alphabet[usize::try_from(rng.below(alphabet.len() as u64)).unwrap()])
            .collect();
        run(
            "swf_parse",
            fuzz_bodies::swf_parse,
            &data,
            &format!("SWF-alphabet input {i}"),
        );
    }
}

#[test]
fn plan_parse_twin() {
    twin("plan_parse", fuzz_bodies::plan_parse, 1500, 1500, 600);
}

#[test]
fn farm_parse_twin() {
    twin("farm_parse", fuzz_bodies::farm_parse, 2000, 2000, 600);
}

/// Reads one input, prints what it decodes to and runs its body on stable:
/// `FUZZ_TARGET=kernel_api FUZZ_INPUT=fuzz/artifacts/kernel_api/crash-... \
///  cargo test -p backfill-tests --test it replay_fuzz_input -- --ignored --nocapture`
#[test]
#[ignore = "needs FUZZ_TARGET and FUZZ_INPUT"]
fn replay_fuzz_input() {
    let target = std::env::var("FUZZ_TARGET").expect("FUZZ_TARGET");
    let path = PathBuf::from(std::env::var("FUZZ_INPUT").expect("FUZZ_INPUT"));
    // Tests run in tests/: a relative path is taken from the workspace root.
    let path = if path.is_absolute() {
        path
    } else {
        workspace().join(path)
    };
    let data = std::fs::read(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    match fuzz_bodies::describe(&target, &data) {
        Some(text) => println!("{text}"),
        None => println!("{} bytes: {:?}", data.len(), String::from_utf8_lossy(&data)),
    }
    let body: fn(&[u8]) = match target.as_str() {
        "kernel_api" => fuzz_bodies::kernel_api,
        "replay_invariants" => fuzz_bodies::replay_invariants,
        "profile_ops" => fuzz_bodies::profile_ops,
        "swf_parse" => fuzz_bodies::swf_parse,
        "checkpoint_restore" => fuzz_bodies::checkpoint_restore,
        "plan_parse" => fuzz_bodies::plan_parse,
        "farm_parse" => fuzz_bodies::farm_parse,
        "resume_file" => fuzz_bodies::resume_file,
        other => panic!("unknown target {other}"),
    };
    body(&data);
}

#[test]
fn checkpoint_restore_twin() {
    twin(
        "checkpoint_restore",
        fuzz_bodies::checkpoint_restore,
        1500,
        1500,
        600,
    );
    // Mutations with the checksums made right again reach the state's own
    // checks.
    resealed_mutations(
        "checkpoint_restore",
        fuzz_bodies::checkpoint_restore,
        0xC4EC_4901,
    );
}

/// 200 mutations of each seed of `target`, each with bit 0 of its first
/// byte cleared and bit 1 set: to both checkpoint targets, raw bytes with
/// their checksums made right (mode 2), which reach the checks past them.
fn resealed_mutations(target: &str, body: fn(&[u8]), rng_seed: u64) {
    let mut rng = SplitMix64::new(rng_seed);
    for (path, seed) in corpus(target) {
        for n in 0..200 {
            let mut data = mutate(&mut rng, &seed);
            if let Some(mode) = data.first_mut() {
                *mode = (*mode & !1) | 2;
            }
            let origin = format!("resealed mutation {n} of {}", path.display());
            run(target, body, &data, &origin);
        }
    }
}

/// Writes `seeds` (name, bytes) into `fuzz/corpus/<target>/`.
fn write_seeds(target: &str, seeds: Vec<(String, Vec<u8>)>) {
    let dir = workspace().join("fuzz/corpus").join(target);
    std::fs::create_dir_all(&dir).unwrap();
    for (name, data) in seeds {
        std::fs::write(dir.join(name), data).unwrap();
    }
}

/// Writes the seed corpus of `checkpoint_restore`
/// (`fuzz_bodies::checkpoint_restore_seeds`) into
/// `fuzz/corpus/checkpoint_restore/`:
/// `cargo test -p backfill-tests --test it write_checkpoint_seeds -- --ignored`.
#[test]
#[ignore = "writes the checkpoint_restore seed corpus"]
fn write_checkpoint_seeds() {
    let seeds = fuzz_bodies::checkpoint_restore_seeds();
    let named = seeds.into_iter().map(|(n, d)| (format!("seed-{n}"), d));
    write_seeds("checkpoint_restore", named.collect());
}

#[test]
fn resume_file_twin() {
    twin("resume_file", fuzz_bodies::resume_file, 1500, 1500, 600);
    // Mutations with the length and CRC made right again reach the fields
    // past the checksum.
    resealed_mutations("resume_file", fuzz_bodies::resume_file, 0x2E5E_4901);
}

/// The committed real files of `resume_file` are the ones host-cli writes
/// now (otherwise they test only the refusals).
#[test]
fn resume_file_seeds_are_current() {
    let dir = workspace().join("fuzz/corpus/resume_file");
    for (name, data) in fuzz_bodies::resume_file_seeds() {
        let path = dir.join(&name);
        let committed = std::fs::read(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        assert!(
            committed == data,
            "{} is not what host-cli writes now: cargo test -p backfill-tests --test it \
             write_resume_seeds -- --ignored",
            path.display()
        );
    }
}

/// Writes the seed corpus of `resume_file`
/// (`fuzz_bodies::resume_file_seeds`) into `fuzz/corpus/resume_file/`:
/// `cargo test -p backfill-tests --test it write_resume_seeds -- --ignored`.
#[test]
#[ignore = "writes the resume_file seed corpus"]
fn write_resume_seeds() {
    write_seeds("resume_file", fuzz_bodies::resume_file_seeds());
}
