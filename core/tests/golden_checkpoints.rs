//! The compatibility promise: checkpoints written by an earlier build of
//! the same format version are read by this one. `core/tests/checkpoints/`
//! holds replay checkpoints (and one kernel checkpoint) of deterministic
//! scenarios under several policies, written when the format was made;
//! each is restored, written back byte for byte, and resumed, and the
//! continuation must be that of a replay of the same scenario that never
//! stopped.
//!
//! When the kernel's decisions change on purpose (a policy's rules), the
//! scenarios no longer reach the states in the files and the test says
//! so; write them again with
//! `BACKFILL_WRITE_CHECKPOINTS=1 cargo test -p backfill-core --test golden_checkpoints`
//! (the format's version stays, and so must its reader). A new format
//! version keeps the old files, and this test keeps reading them.

use backfill_core::checkpoint::{read_header, Kind, FORMAT_VERSION};
use backfill_core::policy::{DpsaOrder, Heuristics, Iterations, RandomSearch, Threshold};
use backfill_core::{
    Cluster, Job, JobRecord, Kernel, KernelError, LicensePool, LicenseSet, Machine, MachineSet,
    Policy, SimJob, Simulator, Sink, Slot, Time,
};
use std::cell::RefCell;
use std::path::PathBuf;
use std::rc::Rc;

const Q: usize = 96;
const R: usize = 64;
const B: usize = 2 * Q + R + 1;
type Sim = Simulator<Q, R, B, 4, 2>;
type K = Kernel<Q, R, B, 4, 2>;

/// A deterministic generator (SplitMix64), so the scenarios need nothing
/// outside this file.
struct Rng(u64);

impl Rng {
    fn below(&mut self, n: u64) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        ((u128::from(z ^ (z >> 31)) * u128::from(n)) >> 64) as u64
    }
}

/// One machine of 32 processors.
fn machine() -> Cluster<4, 2> {
    Cluster::single(32).unwrap()
}

/// Three machines (16, 16 at double speed, 8) and two license pools, one
/// of them on the first machine only.
fn farm() -> Cluster<4, 2> {
    Cluster::new(
        &[
            Machine::new(16),
            Machine {
                cpus: 16,
                speed: 2000,
            },
            Machine::new(8),
        ],
        &[
            LicensePool {
                count: 3,
                machines: MachineSet::ALL,
            },
            LicensePool {
                count: 1,
                machines: MachineSet(0b001),
            },
        ],
    )
    .unwrap()
}

/// 80 jobs in bursts, run times below, at and past the estimate, some
/// zero; on a farm some need licenses, some have deadlines.
fn jobs(seed: u64, cluster: &Cluster<4, 2>) -> Vec<SimJob> {
    let mut rng = Rng(seed);
    let farm = !cluster.pools().is_empty();
    let mut submit = 0;
    (1..=80)
        .map(|id| {
            if rng.below(3) > 0 {
                submit += rng.below(900) as Time;
            }
            let procs = 1 + rng.below(if farm { 8 } else { 32 }) as u32;
            let estimate = 60 + rng.below(7200) as Time;
            let runtime = match rng.below(6) {
                0 => 0,
                1 => estimate + 30,
                2 => estimate,
                _ => rng.below(u64::from(estimate)) as Time,
            };
            let mut job = Job::new(id, submit, procs, estimate);
            if farm {
                job.licenses = LicenseSet(rng.below(4) as u32);
                if rng.below(3) == 0 {
                    job.deadline = submit + 3 * estimate;
                }
            }
            SimJob { job, runtime }
        })
        .collect()
}

/// The files: name, cluster, policy, workload seed, the instant after
/// which the checkpoint was taken, and whether it is a kernel's (else a
/// replay's).
fn scenarios() -> Vec<(&'static str, Cluster<4, 2>, Policy, u64, usize, Kind)> {
    vec![
        (
            "conservative",
            machine(),
            Policy::Conservative,
            1,
            40,
            Kind::Simulator,
        ),
        ("easy", machine(), Policy::Easy, 2, 35, Kind::Simulator),
        (
            "sjf-easy",
            machine(),
            Policy::SjfEasy,
            2,
            30,
            Kind::Simulator,
        ),
        (
            "selective-scaled",
            machine(),
            Policy::Selective(Threshold::SCALED_ADAPTIVE),
            3,
            45,
            Kind::Simulator,
        ),
        (
            "cons-rs-seed-7",
            machine(),
            Policy::ConsRs(RandomSearch {
                seed: 7,
                iterations: Iterations::PerQueuedJob(4),
            }),
            4,
            50,
            Kind::Simulator,
        ),
        (
            "dpsa-n-50",
            machine(),
            Policy::Dpsa {
                order: DpsaOrder::Narrow,
                nodes: 50,
            },
            5,
            40,
            Kind::Simulator,
        ),
        (
            "bf-mod-farm",
            farm(),
            Policy::BfMod(Heuristics::DEFAULT),
            6,
            45,
            Kind::Simulator,
        ),
        (
            "bf-unmod-farm",
            farm(),
            Policy::BfUnmod(Heuristics::DEFAULT),
            7,
            30,
            Kind::Simulator,
        ),
        (
            "conservative-rebuild",
            machine(),
            Policy::ConservativeRebuild,
            9,
            40,
            Kind::Simulator,
        ),
        (
            "cons-rs-alea-seed-7",
            machine(),
            Policy::ConsRsAlea(RandomSearch {
                seed: 7,
                iterations: Iterations::PerQueuedJob(4),
            }),
            4,
            50,
            Kind::Simulator,
        ),
        (
            "conservative-farm-kernel",
            farm(),
            Policy::Conservative,
            8,
            35,
            Kind::Kernel,
        ),
    ]
}

/// Everything a sink hears, shared so a `pause` callback can count it.
#[derive(Default)]
struct Heard(Rc<RefCell<Vec<String>>>);

impl Sink for Heard {
    fn finished(&mut self, r: &JobRecord) {
        self.0.borrow_mut().push(format!("end {r:?}"));
    }
    fn rejected(&mut self, job: &Job, e: KernelError) {
        self.0.borrow_mut().push(format!("refused {} {e}", job.id));
    }
    fn started(&mut self, job: &Job, slot: Slot) {
        self.0
            .borrow_mut()
            .push(format!("start {} {slot:?}", job.id));
    }
    fn reserved(&mut self, now: Time, job: &Job, slot: Slot) {
        self.0
            .borrow_mut()
            .push(format!("{now} reserve {} {slot:?}", job.id));
    }
}

fn dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/checkpoints")
}

/// The scenario replayed without stopping: what the sink heard, how much
/// of it by the end of instant `stop`, and the checkpoint (of `kind`)
/// taken there.
fn never_stopped(
    cluster: &Cluster<4, 2>,
    policy: Policy,
    input: &[SimJob],
    stop: usize,
    kind: Kind,
) -> (Vec<String>, usize, Vec<u8>) {
    let mut sim = Box::new(Sim::new(K::new(cluster.clone(), policy)));
    let mut sink = Heard::default();
    let heard = Rc::clone(&sink.0);
    let (mut instant, mut at, mut bytes) = (0, 0, Vec::new());
    let ended = sim.resume_with(
        input.iter().copied(),
        &mut sink,
        |_, _| {},
        |sim, _| {
            instant += 1;
            if instant == stop {
                at = heard.borrow().len();
                let mut buf = vec![0u8; Sim::checkpoint_size()];
                let len = match kind {
                    Kind::Kernel => sim.kernel().checkpoint(&mut buf),
                    Kind::Simulator => sim.checkpoint(&mut buf),
                };
                buf.truncate(len.unwrap());
                bytes = buf;
            }
            false
        },
    );
    ended.unwrap().unwrap();
    assert!(instant > stop, "the replay has {instant} instants");
    let lines = heard.borrow().clone();
    (lines, at, bytes)
}

#[test]
fn checkpoints_of_earlier_builds_restore_and_continue() {
    let write = std::env::var_os("BACKFILL_WRITE_CHECKPOINTS").is_some();
    for (name, cluster, policy, seed, stop, kind) in scenarios() {
        let input = jobs(seed, &cluster);
        let (lines, at, fresh) = never_stopped(&cluster, policy, &input, stop, kind);
        let path = dir().join(format!("{name}.bin"));
        if write {
            std::fs::create_dir_all(dir()).unwrap();
            std::fs::write(&path, &fresh).unwrap();
        }
        let golden = std::fs::read(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        let header = read_header(&golden).unwrap();
        assert_eq!(header.kind, kind, "{name}");
        // An older format's file stays as it was written; one of this
        // format is what this build writes at that instant.
        if header.version == FORMAT_VERSION {
            assert!(
                fresh == golden,
                "{name}: the scenario no longer reaches the state in {} (the kernel's \
                 decisions changed?); if on purpose, write the files again (see the module docs)",
                path.display()
            );
        }
        match kind {
            Kind::Simulator => {
                let mut sim = Box::new(Sim::new(K::new(farm(), Policy::Fcfs)));
                sim.restore(&golden)
                    .unwrap_or_else(|e| panic!("{name}: {e}"));
                let mut again = vec![0u8; golden.len()];
                if header.version == FORMAT_VERSION {
                    assert_eq!(sim.checkpoint(&mut again), Ok(golden.len()), "{name}");
                    assert!(again == golden, "{name}: written back differently");
                }
                eprintln!(
                    "{name}: {} queued, {} running, {:?}",
                    sim.kernel().queued().len(),
                    sim.kernel().running().len(),
                    sim.kernel().counters()
                );
                let mut sink = Heard::default();
                let ended =
                    sim.resume_with(input.iter().copied(), &mut sink, |_, _| {}, |_, _| false);
                ended.unwrap().unwrap();
                let after = sink.0.borrow().clone();
                assert_eq!(after, lines[at..], "{name}: the continuation differs");
            }
            Kind::Kernel => {
                let mut k = Box::new(K::new(machine(), Policy::Easy));
                k.restore(&golden).unwrap_or_else(|e| panic!("{name}: {e}"));
                k.validate().unwrap();
                assert_eq!(k.policy(), policy);
                let mut again = vec![0u8; golden.len()];
                if header.version == FORMAT_VERSION {
                    assert_eq!(k.checkpoint(&mut again), Ok(golden.len()), "{name}");
                    assert!(again == golden, "{name}: written back differently");
                }
            }
        }
        eprintln!("{name}: {} bytes, version {}", golden.len(), header.version);
    }
}
