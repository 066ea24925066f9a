//! The bodies of the fuzz targets in `fuzz/`, runnable on stable.
//!
//! Each function takes raw bytes, decodes them with
//! [`arbitrary::Unstructured`], and panics only when it finds a bug. The
//! nightly fuzz binaries (`fuzz/fuzz_targets/*.rs`) are three-line wrappers
//! around these; `tests/it/fuzz_twins.rs` runs the same bodies under
//! `cargo test` over the committed corpus and seeded random bytes.
//!
//! | target | what it drives | what it asserts |
//! | --- | --- | --- |
//! | [`kernel_api`] | arbitrary submit / complete / schedule / time steps, valid or not, on a small kernel (capacities small enough to overflow) under every policy | never a panic; every misuse is the documented [`KernelError`] (never `Internal`); a refused call changes no job; [`Kernel::validate`] after every call; starts are feasible now and nothing that fits now is left waiting; the wake-up is in the future; kept reservations never move later (under CONS+RS, never past the guarantee) |
//! | [`replay_invariants`] | a small random cluster and workload replayed under every policy | [`Scenario::verify`](crate::scenario::Scenario::verify): the checker's invariants, validate, determinism |
//! | [`profile_ops`] | reserve / release / `earliest_fit` / `earliest_fit_before` / advance / reset / queries on a `Profile<8>` | every answer and the exact step list equal a per-second reference model; validate |
//! | [`checkpoint_restore`] | arbitrary bytes into `Kernel::restore` and `Simulator::restore` (resealed or not), and real checkpoints of random replays under every policy, damaged | never a panic; what is accepted validates and writes the same bytes back; what is refused is left unchanged (`Debug`); an undamaged checkpoint is accepted and the restored replay goes on as the original |
//! | [`resume_file`] | host-cli's replay checkpoint files (`replay --checkpoint` / `--resume`): real ones written by replays of a small trace, damaged (bytes, fingerprint lines), resealed or not, and raw bytes, into `replay::checkpoint::check` for several replays | never a panic; every refusal is one line of a known shape naming the file; an accepted file is written back byte for byte and agrees with the replay's bounds and records; a file is resumed by at most one replay, an undamaged one by its own only |
//! | [`swf_parse`] | bytes into `SwfRecord::parse_line` (per line) and `swf::load_reader` | never a panic; every rejection names a field or a line; parse, print, parse gives the same record |
//! | [`plan_parse`] | plan files, raw or built from the format's keys, into `plan::format::parse` | never a panic; refusals name the file, a line in it and a non-empty field when they name one, on one line; accepted plans: cells numbered in order, unique ids that hash their parameters, parameters that read back from JSON, the same cells and fingerprint on a second parse |
//! | [`farm_parse`] | farm descriptions and job lists, raw or built from the formats' keys, into `parse_farm` and `parse_jobs` | never a panic; refusals as for `plan_parse`; accepted farms and job lists keep the documented rules and read back the same after `farm_toml` / `jobs_csv` |

use crate::reference::{RefProfile, HORIZON};
use crate::scenario::{
    arbitrary_cluster, build_cluster, take_up_to, MachineSpec, PoolSpec, ScenarioSpec,
    SmallCluster, Width,
};
use arbitrary::{Arbitrary, Unstructured};
use backfill_cli::swf::{load_reader, SwfErrorKind, SwfRecord};
use backfill_core::{
    Job, JobId, Kernel, KernelError, LicenseSet, Observer, Policy, Profile, ProfileError, Slot,
    Time,
};

// ---------------------------------------------------------------------------
// kernel_api
// ---------------------------------------------------------------------------

/// Queue capacity of the `kernel_api` kernel (small, so it fills up).
const API_Q: usize = 6;
/// Running capacity of the `kernel_api` kernel.
const API_R: usize = 5;
/// Profile capacity of the `kernel_api` kernel: below `2 * Q + R + 1`, so
/// Conservative can run out of steps.
const API_B: usize = 14;
/// The kernel `kernel_api` drives.
type ApiKernel = Kernel<API_Q, API_R, API_B, 3, 2>;

/// When a submitted job says it was submitted, relative to the call's `now`.
#[derive(Clone, Copy, Debug, Arbitrary)]
enum SubmitAt {
    Now,
    Past(u16),
    Future(u16),
}

/// A submitted job's estimate.
#[derive(Clone, Copy, Debug, Arbitrary)]
enum Estimate {
    Small(u8),
    Medium(u16),
    Zero,
    /// `u32::MAX - x`: overflows any start.
    Huge(u16),
}

#[derive(Clone, Copy, Debug, Arbitrary)]
struct ApiJob {
    id: u8,
    submit: SubmitAt,
    width: Width,
    estimate: Estimate,
    licenses: u8,
    deadline: Option<u32>,
    priority: i32,
    tag: u32,
}

#[derive(Clone, Copy, Debug, Arbitrary)]
enum ApiOp {
    /// Advance by `dt` and submit.
    Submit { dt: u8, job: ApiJob },
    /// Advance by `dt` and complete running job number `pick` (modulo the
    /// running count), or an unknown id when nothing runs.
    Complete { dt: u8, pick: u8 },
    /// Advance by `dt` and complete job `id % 16`, running or not.
    CompleteId { dt: u8, id: u8 },
    /// Complete every job whose estimate has expired, at its expiry (or now,
    /// if later) — what a well-behaved host does.
    CompleteDue,
    /// Advance by `dt` and schedule.
    Schedule { dt: u8 },
    /// Jump to the kernel's next wake-up and schedule there.
    Wakeup,
    /// Set the host's clock to any value (backwards, or near the end of time).
    Jump { to: u32 },
    /// Move the host's clock back.
    Back { by: u8 },
}

#[derive(Debug)]
struct ApiInput {
    machines: Vec<MachineSpec>,
    pools: Vec<PoolSpec>,
    policy: u8,
    ops: Vec<ApiOp>,
}

impl<'a> Arbitrary<'a> for ApiInput {
    fn arbitrary(u: &mut Unstructured<'a>) -> arbitrary::Result<Self> {
        let (machines, pools) = arbitrary_cluster(u)?;
        Ok(Self {
            machines,
            pools,
            policy: u.arbitrary()?,
            ops: take_up_to(u, MAX_OPS),
        })
    }
}

/// Most operations one `kernel_api` or `profile_ops` input is decoded into.
const MAX_OPS: usize = 2000;

/// What a twin mismatch means: `kernel_api` drives a second kernel, built
/// with [`Kernel::new_with_plan`], through the same calls.
const TWIN: &str = "the kernel that keeps its plan decided otherwise";

/// Records what the kernel reports during one call.
#[derive(Debug, Default, PartialEq, Eq)]
struct Events {
    started: Vec<(Job, Slot)>,
    reserved: Vec<(Job, Slot)>,
}

impl Observer for Events {
    fn started(&mut self, job: &Job, slot: Slot) {
        self.started.push((*job, slot));
    }
    fn reserved(&mut self, job: &Job, slot: Slot) {
        self.reserved.push((*job, slot));
    }
}

/// The jobs a kernel holds: queued ids in queue order, running `(id, slot)`.
#[derive(Clone, Debug, PartialEq, Eq)]
struct Holding {
    queued: Vec<JobId>,
    running: Vec<(JobId, Slot)>,
    reservations: Vec<(JobId, Option<Slot>)>,
}

fn holding(k: &ApiKernel) -> Holding {
    Holding {
        queued: k.queued().iter().map(|q| q.job.id).collect(),
        running: k.running().iter().map(|r| (r.job.id, r.slot)).collect(),
        reservations: k
            .queued()
            .iter()
            .map(|q| (q.job.id, q.reservation()))
            .collect(),
    }
}

fn api_job(spec: &ApiJob, now: Time, cluster: &SmallCluster) -> Job {
    let widest = cluster.machines().iter().map(|m| m.cpus).max().unwrap_or(1);
    let procs = match spec.width {
        Width::Exact(p) => 1 + u32::from(p % 16),
        Width::Full(m) => cluster.machines()[usize::from(m) % cluster.machines().len()].cpus,
        Width::Zero => 0,
        Width::TooWide => widest + 1,
    };
    let estimate = match spec.estimate {
        Estimate::Small(e) => u32::from(e),
        Estimate::Medium(e) => u32::from(e),
        Estimate::Zero => 0,
        Estimate::Huge(x) => u32::MAX - u32::from(x),
    };
    let submit = match spec.submit {
        SubmitAt::Now => now,
        SubmitAt::Past(d) => now.saturating_sub(u32::from(d)),
        SubmitAt::Future(d) => now.saturating_add(1 + u32::from(d)),
    };
    Job {
        id: u32::from(spec.id % 16),
        submit,
        procs,
        estimate,
        deadline: spec.deadline.unwrap_or(Job::NO_DEADLINE),
        licenses: LicenseSet(u32::from(spec.licenses)),
        priority: spec.priority,
        tag: spec.tag,
    }
}

/// Checks that hold after every call. With `FUZZ_TRACE` set in the
/// environment, prints each call and the kernel's jobs after it.
fn after_every_call(k: &ApiKernel, what: &str) {
    if std::env::var_os("FUZZ_TRACE").is_some() {
        eprintln!(
            "{what}\n  now {} queued {:?}\n  running {:?}",
            k.now(),
            k.queued(),
            k.running()
        );
    }
    if let Err(e) = k.validate() {
        panic!("Kernel::validate after {what}: {e}");
    }
    if let Some(w) = k.next_wakeup() {
        assert!(
            w > k.now(),
            "next_wakeup {w} not after now {} ({what})",
            k.now()
        );
    }
}

/// Whether some eligible machine can express `job`'s scaled estimate.
fn representable(cluster: &SmallCluster, job: &Job) -> bool {
    cluster
        .machines()
        .iter()
        .enumerate()
        .any(|(m, machine)| cluster.eligible(job, m) && machine.scale(job.estimate).is_some())
}

/// The documented error of a submit that must fail before touching the plan.
fn expected_submit_error(k: &ApiKernel, now: Time, job: &Job) -> Option<KernelError> {
    if now < k.now() {
        return Some(KernelError::TimeWentBackwards {
            now,
            current: k.now(),
        });
    }
    if job.procs == 0 || job.estimate == 0 {
        return Some(KernelError::InvalidJob(job.id));
    }
    if job.submit > now {
        return Some(KernelError::SubmitInFuture(job.id));
    }
    if !k.cluster().runnable(job) {
        return Some(KernelError::Unrunnable(job.id));
    }
    let held = k
        .queued()
        .iter()
        .map(|q| q.job.id)
        .chain(k.running().iter().map(|r| r.job.id));
    if held.clone().any(|id| id == job.id) {
        return Some(KernelError::DuplicateJob(job.id));
    }
    if k.queued().len() == API_Q {
        return Some(KernelError::QueueFull(job.id));
    }
    None
}

fn api_submit(k: &mut ApiKernel, twin: &mut ApiKernel, now: Time, job: Job) {
    let before = holding(k);
    let expected = expected_submit_error(k, now, &job);
    let mut events = Events::default();
    let result = k.submit(now, job, &mut events);
    let what = format!("submit({now}, {job:?}) = {result:?}");
    let mut twin_events = Events::default();
    let twin_result = twin.submit(now, job, &mut twin_events);
    assert_eq!(
        (twin_result, &twin_events),
        (result, &events),
        "{what}: {TWIN}"
    );
    assert!(events.started.is_empty(), "{what} started a job");
    let after = holding(k);
    match (expected, result) {
        (Some(e), r) => assert_eq!(r, Err(e), "{what}: expected {e:?}"),
        (None, Ok(())) => {
            let mut want = before.queued.clone();
            want.push(job.id);
            let mut got = after.queued.clone();
            want.sort_unstable();
            got.sort_unstable();
            assert_eq!(got, want, "{what}: queue");
            assert_eq!(after.running, before.running, "{what}: running set");
            if k.policy().reserves_all() {
                let entry = k
                    .queued()
                    .iter()
                    .find(|q| q.job.id == job.id)
                    .expect("queued");
                let slot = entry
                    .reservation()
                    .expect("Conservative reserves on arrival");
                assert!(slot.start >= now, "{what}: reservation in the past");
                assert_eq!(entry.guarantee(), Some(slot.start), "{what}: guarantee");
            }
        }
        // A job whose scaled estimate overflows `Time` on every eligible
        // machine can never be placed: Conservative refuses it as unrunnable.
        (None, Err(KernelError::Unrunnable(id)))
            if id == job.id && !representable(k.cluster(), &job) =>
        {
            // (Compression may have run first: reservations can move earlier.)
            assert_eq!(
                after.queued, before.queued,
                "{what}: a refused job changed the queue"
            );
            assert_eq!(after.running, before.running, "{what}: running set");
        }
        (None, Err(KernelError::ProfileFull | KernelError::TimeOverflow)) => {
            assert_eq!(
                after.queued, before.queued,
                "{what}: a refused job changed the queue"
            );
            assert_eq!(after.running, before.running, "{what}: running set");
        }
        (None, Err(e)) => panic!("{what}: unexpected error {e:?}"),
    }
    never_later(k, &before, &after, &what);
    after_every_call(k, &what);
}

/// Conservative: a reservation still in the future never moves later.
/// CONS+RS's search may move one later, but never past the job's guarantee
/// (`docs/design.md`, "Invariants", 2).
fn never_later(k: &ApiKernel, before: &Holding, after: &Holding, what: &str) {
    if !k.policy().keeps_reservations() {
        return;
    }
    let displaces = matches!(k.policy(), Policy::ConsRs(_));
    for &(id, new) in &after.reservations {
        let old = before
            .reservations
            .iter()
            .find(|(b, _)| *b == id)
            .and_then(|(_, s)| *s);
        if let (Some(old), Some(new)) = (old, new) {
            if old.start < k.now() {
                continue;
            }
            if !displaces {
                assert!(
                    new.start <= old.start,
                    "{what}: job {id} moved later: {old:?} -> {new:?}"
                );
            } else if new.start > old.start {
                let guarantee = k
                    .queued()
                    .iter()
                    .find(|q| q.job.id == id)
                    .and_then(|q| q.guarantee());
                assert!(
                    guarantee.is_some_and(|g| new.start <= g),
                    "{what}: job {id} moved past its guarantee {guarantee:?}: {old:?} -> {new:?}"
                );
            }
        }
    }
}

fn api_complete(k: &mut ApiKernel, twin: &mut ApiKernel, now: Time, id: JobId) {
    let before = holding(k);
    let current = k.now();
    let running = before.running.iter().find(|(r, _)| *r == id).copied();
    let result = k.complete(now, id);
    let what = format!("complete({now}, {id}) = {result:?}");
    assert_eq!(twin.complete(now, id), result, "{what}: {TWIN}");
    let after = holding(k);
    let expected = if now < current {
        Some(KernelError::TimeWentBackwards { now, current })
    } else if running.is_none() {
        Some(KernelError::UnknownJob(id))
    } else {
        None
    };
    match (expected, result) {
        (Some(e), r) => {
            assert_eq!(r.map(|d| d.job.id), Err(e), "{what}");
            assert_eq!(after, before, "{what}: a refused call changed the jobs");
        }
        (None, Ok(done)) => {
            let (_, slot) = running.expect("checked");
            assert_eq!((done.job.id, done.slot), (id, slot), "{what}");
            let mut want = before.running.clone();
            want.retain(|(r, _)| *r != id);
            assert_eq!(after.running, want, "{what}: running set");
            assert_eq!(after.queued, before.queued, "{what}: queue");
        }
        (None, Err(e)) => panic!("{what}: unexpected error {e:?}"),
    }
    after_every_call(k, &what);
}

fn api_schedule(k: &mut ApiKernel, twin: &mut ApiKernel, now: Time) {
    let before = holding(k);
    let current = k.now();
    let overdue = k
        .running()
        .iter()
        .find(|r| r.slot.end() <= now && r.slot.duration > 0)
        .map(|r| r.job.id);
    let mut events = Events::default();
    let result = k.schedule(now, &mut events);
    let what = format!("schedule({now}) = {result:?}");
    let mut twin_events = Events::default();
    let twin_result = twin.schedule(now, &mut twin_events);
    assert_eq!(
        (twin_result, &twin_events),
        (result, &events),
        "{what}: {TWIN}"
    );
    let after = holding(k);
    if now < current {
        assert_eq!(
            result,
            Err(KernelError::TimeWentBackwards { now, current }),
            "{what}"
        );
        assert_eq!(after, before, "{what}: changed the jobs");
        after_every_call(k, &what);
        return;
    }
    if let Some(id) = overdue {
        assert_eq!(result, Err(KernelError::Overdue(id)), "{what}");
        assert_eq!(after, before, "{what}: changed the jobs");
        after_every_call(k, &what);
        return;
    }
    match result {
        Ok(pass) => assert_eq!(pass.started as usize, events.started.len(), "{what}: count"),
        Err(KernelError::RunningFull(_) | KernelError::ProfileFull | KernelError::TimeOverflow) => {
        }
        // A queued job that can never be placed (its scaled estimate
        // overflows `Time` on every eligible machine).
        Err(KernelError::Unrunnable(id))
            if k.queued()
                .iter()
                .any(|q| q.job.id == id && !representable(k.cluster(), &q.job)) => {}
        Err(e) => panic!("{what}: unexpected error {e:?}"),
    }
    // Every start: a queued job, now, its scaled estimate, an eligible machine.
    let cluster = k.cluster();
    for (job, slot) in &events.started {
        assert!(
            before.queued.contains(&job.id),
            "{what}: started job {} was not queued",
            job.id
        );
        assert_eq!(
            slot.start, now,
            "{what}: job {} starts at {}",
            job.id, slot.start
        );
        let machine = usize::from(slot.machine);
        assert!(
            cluster.eligible(job, machine),
            "{what}: job {} on machine {machine}",
            job.id
        );
        let scaled = cluster.machines()[machine].scale(job.estimate);
        assert_eq!(
            Some(slot.duration),
            scaled,
            "{what}: duration of job {}",
            job.id
        );
    }
    let started: Vec<JobId> = events.started.iter().map(|(j, _)| j.id).collect();
    let mut want_running = before.running.clone();
    want_running.extend(events.started.iter().map(|(j, s)| (j.id, *s)));
    assert_eq!(after.running, want_running, "{what}: running set");
    let want_queued: Vec<JobId> = before
        .queued
        .iter()
        .copied()
        .filter(|id| !started.contains(id))
        .collect();
    if matches!(
        k.policy(),
        Policy::BfFcfs | Policy::BfUnmod(_) | Policy::BfMod(_)
    ) {
        // Flexible backfilling puts the queue in its order at every pass
        // (priority; BF_FCFS and BF_UNMOD keep the job holding the
        // reservation first, even behind a backdated arrival), so only the
        // set of waiting jobs is fixed.
        let (mut got, mut want) = (after.queued.clone(), want_queued);
        got.sort_unstable();
        want.sort_unstable();
        assert_eq!(got, want, "{what}: queue");
    } else {
        assert_eq!(after.queued, want_queued, "{what}: queue");
    }
    capacity_now(k, now, &what);
    if result.is_ok() {
        if k.policy().keeps_reservations() {
            // Reserved jobs start at their reservation; the others (Selective's
            // entry queue) start whenever they fit now beside the reservations.
            for q in k.queued() {
                match q.reservation() {
                    Some(slot) => assert!(
                        slot.start > now,
                        "{what}: job {} still reserved at {}",
                        q.job.id,
                        slot.start
                    ),
                    None => {
                        let fit = k.plan().fit_now(cluster, &q.job, now);
                        assert!(
                            matches!(fit, Ok(None)),
                            "{what}: job {} fits now: {fit:?}",
                            q.job.id
                        );
                    }
                }
            }
        } else if let Some(head) = k.queued().first() {
            // The pass stopped at a head that does not fit now (asked of
            // the twin's plan when this kernel keeps none).
            let plan = if k.keeps_plan() {
                k.plan()
            } else {
                twin.plan()
            };
            let fit = plan.fit_now(cluster, &head.job, now);
            assert!(
                matches!(fit, Ok(None)),
                "{what}: head {} fits now: {fit:?}",
                head.job.id
            );
        }
    }
    never_later(k, &before, &after, &what);
    after_every_call(k, &what);
}

/// Processors and license copies held right now never exceed the cluster.
fn capacity_now(k: &ApiKernel, now: Time, what: &str) {
    let cluster = k.cluster();
    let live = || {
        k.running()
            .iter()
            .filter(|r| r.slot.start <= now && now < r.slot.end())
    };
    for (m, machine) in cluster.machines().iter().enumerate() {
        let used: u64 = live()
            .filter(|r| usize::from(r.slot.machine) == m)
            .map(|r| u64::from(r.job.procs))
            .sum();
        assert!(
            used <= u64::from(machine.cpus),
            "{what}: machine {m} holds {used} processors"
        );
    }
    for (l, pool) in cluster.pools().iter().enumerate() {
        let used = live().filter(|r| r.job.licenses.contains(l)).count() as u64;
        assert!(
            used <= u64::from(pool.count),
            "{what}: pool {l} lends {used} copies"
        );
    }
}

/// Fuzz body: arbitrary kernel API call sequences under every policy.
pub fn kernel_api(data: &[u8]) {
    let Ok(input) = ApiInput::arbitrary(&mut Unstructured::new(data)) else {
        return;
    };
    let cluster = build_cluster(&input.machines, &input.pools);
    let policy = Policy::ALL[usize::from(input.policy) % Policy::ALL.len()];
    let mut k: ApiKernel = Kernel::new(cluster.clone(), policy);
    let mut twin: ApiKernel = Kernel::new_with_plan(cluster.clone(), policy);
    let mut now: Time = 0;
    for op in &input.ops {
        match *op {
            ApiOp::Submit { dt, job } => {
                now = now.saturating_add(u32::from(dt));
                api_submit(&mut k, &mut twin, now, api_job(&job, now, &cluster));
            }
            ApiOp::Complete { dt, pick } => {
                now = now.saturating_add(u32::from(dt));
                let id = match k.running().len() {
                    0 => u32::from(pick),
                    n => k.running()[usize::from(pick) % n].job.id,
                };
                api_complete(&mut k, &mut twin, now, id);
            }
            ApiOp::CompleteId { dt, id } => {
                now = now.saturating_add(u32::from(dt));
                api_complete(&mut k, &mut twin, now, u32::from(id % 16));
            }
            ApiOp::CompleteDue => {
                let due: Vec<(JobId, Time)> = k
                    .running()
                    .iter()
                    .filter(|r| r.slot.end() <= now)
                    .map(|r| (r.job.id, r.slot.end().max(k.now())))
                    .collect();
                let mut due = due;
                due.sort_unstable_by_key(|&(id, t)| (t, id));
                for (id, t) in due {
                    api_complete(&mut k, &mut twin, t, id);
                }
            }
            ApiOp::Schedule { dt } => {
                now = now.saturating_add(u32::from(dt));
                api_schedule(&mut k, &mut twin, now);
            }
            ApiOp::Wakeup => {
                assert_eq!(k.next_wakeup(), twin.next_wakeup(), "next_wakeup: {TWIN}");
                if let Some(w) = k.next_wakeup() {
                    now = w;
                    api_schedule(&mut k, &mut twin, now);
                }
            }
            ApiOp::Jump { to } => now = to,
            ApiOp::Back { by } => now = now.saturating_sub(u32::from(by)),
        }
    }
}

/// What `data` decodes to for target `target` (`kernel_api`,
/// `replay_invariants` or `profile_ops`), pretty-printed: for reading a
/// crashing input. `None` for an unknown target or undecodable data.
#[must_use]
pub fn describe(target: &str, data: &[u8]) -> Option<String> {
    let mut u = Unstructured::new(data);
    match target {
        "kernel_api" => ApiInput::arbitrary(&mut u).ok().map(|i| {
            let cluster = build_cluster(&i.machines, &i.pools);
            let policy = Policy::ALL[usize::from(i.policy) % Policy::ALL.len()];
            format!("policy {policy}\n{cluster:#?}\n{:#?}", i.ops)
        }),
        "replay_invariants" => ScenarioSpec::arbitrary(&mut u)
            .ok()
            .map(|s| format!("{:#?}", s.build())),
        "profile_ops" => ProfileInput::arbitrary(&mut u)
            .ok()
            .map(|i| format!("{i:#?}")),
        _ => None,
    }
}

// ---------------------------------------------------------------------------
// replay_invariants
// ---------------------------------------------------------------------------

/// Fuzz body: a small arbitrary cluster and workload, replayed and checked
/// under every policy ([`Scenario::verify`](crate::scenario::Scenario::verify)(crate::scenario::Scenario::verify)).
pub fn replay_invariants(data: &[u8]) {
    let Ok(spec) = ScenarioSpec::arbitrary(&mut Unstructured::new(data)) else {
        return;
    };
    let scenario = spec.build();
    if let Err(e) = scenario.verify() {
        panic!(
            "{e}\ncluster: {:?}\njobs: {:?}",
            scenario.cluster, scenario.jobs
        );
    }
}

// ---------------------------------------------------------------------------
// profile_ops
// ---------------------------------------------------------------------------

/// Step capacity of the fuzzed profile: small, so it fills up.
const PROFILE_B: usize = 8;

#[derive(Clone, Copy, Debug, Arbitrary)]
enum ProfileOp {
    Reserve {
        start: u8,
        duration: u8,
        amount: u8,
    },
    Release {
        start: u8,
        duration: u8,
        amount: u8,
    },
    EarliestFit {
        from: u8,
        duration: u8,
        need: u8,
    },
    Advance {
        now: u8,
    },
    Query {
        at: u8,
        duration: u8,
        need: u8,
    },
    MaxFree {
        start: u8,
        end: u8,
    },
    FitBefore {
        from: u8,
        duration: u8,
        need: u8,
        held_from: u8,
        limit: u8,
    },
    Reset {
        origin: u8,
    },
    /// Holds a slot, then moves the holding to an earlier one (overlapping
    /// it, mostly), as compression does.
    ShiftEarlier {
        start: u8,
        duration: u8,
        back: u8,
        amount: u8,
    },
    /// Intervals whose end overflows [`Time`].
    Overflow {
        back: u8,
        duration: u32,
        amount: u8,
        which: u8,
    },
}

#[derive(Debug)]
struct ProfileInput {
    capacity: u8,
    ops: Vec<ProfileOp>,
}

impl<'a> Arbitrary<'a> for ProfileInput {
    fn arbitrary(u: &mut Unstructured<'a>) -> arbitrary::Result<Self> {
        Ok(Self {
            capacity: u.arbitrary()?,
            ops: take_up_to(u, MAX_OPS),
        })
    }
}

/// Fuzz body: profile operations against the per-second reference model.
pub fn profile_ops(data: &[u8]) {
    let Ok(input) = ProfileInput::arbitrary(&mut Unstructured::new(data)) else {
        return;
    };
    let capacity = u32::from(input.capacity % 7);
    let mut p: Profile<PROFILE_B> = Profile::new(capacity);
    let mut r = RefProfile::new(capacity);
    // Keep every reservation inside the model's horizon.
    let time = |x: u8| u32::from(x) % (HORIZON / 2);
    let units = |x: u8| u32::from(x) % (capacity + 2);
    for op in &input.ops {
        let what = format!("{op:?} on {:?}", p.steps());
        match *op {
            ProfileOp::Reserve {
                start,
                duration,
                amount,
            }
            | ProfileOp::Release {
                start,
                duration,
                amount,
            } => {
                let (s, d, a) = (time(start), time(duration), units(amount));
                let (got, want) = if matches!(op, ProfileOp::Reserve { .. }) {
                    (p.reserve(s, d, a), r.reserve(s, d, a, PROFILE_B))
                } else {
                    (p.release(s, d, a), r.release(s, d, a, PROFILE_B))
                };
                assert_eq!(got, want, "{what}");
            }
            ProfileOp::EarliestFit {
                from,
                duration,
                need,
            } => {
                let (f, d, n) = (time(from), time(duration), units(need));
                assert_eq!(
                    p.earliest_fit(f, d, n),
                    Ok(r.earliest_fit(f, d, n)),
                    "{what}"
                );
            }
            ProfileOp::Advance { now } => {
                let now = u32::from(now) % (HORIZON / 2 + 8);
                p.advance(now);
                r.advance(now);
                assert_eq!(p.origin(), r.origin(), "{what}");
            }
            ProfileOp::Query { at, duration, need } => {
                let (t, d, n) = (u32::from(at) % HORIZON, time(duration), units(need));
                assert_eq!(p.free_at(t), r.free(t), "{what}: free_at({t})");
                assert_eq!(p.min_free(t, d), Ok(r.min_free(t, d)), "{what}: min_free");
                assert_eq!(p.fits(t, d, n), Ok(r.min_free(t, d) >= n), "{what}: fits");
            }
            ProfileOp::MaxFree { start, end } => {
                let (s, e) = (u32::from(start) % HORIZON, u32::from(end) % HORIZON);
                assert_eq!(p.max_free(s, e), r.max_free(s, e), "{what}");
            }
            ProfileOp::FitBefore {
                from,
                duration,
                need,
                held_from,
                limit,
            } => {
                let (f, d, n) = (time(from), time(duration), units(need));
                // Mostly "held from the limit on", as compression asks.
                let limit = u32::from(limit) % HORIZON;
                let held = match held_from % 4 {
                    0 => Time::MAX,
                    1 => limit,
                    _ => u32::from(held_from) % HORIZON,
                };
                let got = p.earliest_fit_before(f, d, n, held, limit);
                let want = r.earliest_fit_before(f, d, n, held, limit);
                assert_eq!(got, Ok(want), "{what}");
            }
            ProfileOp::Reset { origin } => {
                let origin = time(origin);
                p.reset(origin);
                r.reset(origin);
            }
            ProfileOp::ShiftEarlier {
                start,
                duration,
                back,
                amount,
            } => {
                let (old, d, a) = (time(start), time(duration), units(amount));
                let new = old.saturating_sub(u32::from(back) % (d + 2));
                let held = p.reserve(old, d, a);
                assert_eq!(held, r.reserve(old, d, a, PROFILE_B), "{what}: hold");
                let got = p.shift_earlier(old, new, d, a);
                assert_eq!(got, r.shift_earlier(old, new, d, a, PROFILE_B), "{what}");
            }
            ProfileOp::Overflow {
                back,
                duration,
                amount,
                which,
            } => {
                let start = u32::MAX - u32::from(back);
                let duration = duration.max(u32::from(back) + 1);
                let a = units(amount);
                let got = match which % 4 {
                    0 => p.reserve(start, duration, a).map(|()| None),
                    1 => p.release(start, duration, a).map(|()| None),
                    2 => p.min_free(start, duration).map(|_| None),
                    _ => p.earliest_fit(start, duration, a),
                };
                let expected = if which % 4 == 3 && a > capacity {
                    Ok(None)
                } else {
                    Err(ProfileError::TimeOverflow)
                };
                assert_eq!(got, expected, "{what}");
            }
        }
        assert_eq!(p.validate(), Ok(()), "{what}");
        assert_eq!(
            p.steps(),
            r.steps().as_slice(),
            "{what}: steps differ from the model"
        );
    }
}

// ---------------------------------------------------------------------------
// swf_parse
// ---------------------------------------------------------------------------

/// Parses one line; checks the error names a field, or the record
/// round-trips through its printed form.
fn swf_line(line: &str) {
    match SwfRecord::parse_line(line) {
        Ok(record) => {
            let printed = record.to_string();
            assert_eq!(
                SwfRecord::parse_line(&printed),
                Ok(record),
                "{line:?} parsed to {record:?}, printed as {printed:?}"
            );
            assert_eq!(printed.split(' ').count(), 18, "{printed:?}");
        }
        Err(e) => {
            let field = e
                .field
                .unwrap_or_else(|| panic!("{line:?}: error names no field: {e:?}"));
            assert!((1..=19).contains(&field), "{line:?}: field {field}");
            let message = e.to_string();
            assert!(message.starts_with(&format!("field {field}")), "{message}");
        }
    }
}

/// Fuzz body: arbitrary bytes into the SWF line parser and file reader.
pub fn swf_parse(data: &[u8]) {
    let text = String::from_utf8_lossy(data);
    for line in text.split('\n') {
        swf_line(line);
    }
    swf_line(&text);

    let gzip = data.starts_with(&[0x1f, 0x8b]);
    // Lines as the reader sees them: split after '\n'; a final piece without
    // '\n' is a line when not empty.
    let mut lines: Vec<&[u8]> = data.split(|&b| b == b'\n').collect();
    if lines.last().is_some_and(|l| l.is_empty()) {
        lines.pop();
    }
    match load_reader("fuzz.swf", data) {
        Ok(trace) => {
            assert_eq!(trace.name, "fuzz.swf");
            let mut previous = 0;
            for (line_no, record) in &trace.records {
                assert!(
                    *line_no > previous,
                    "line numbers not increasing: {line_no}"
                );
                previous = *line_no;
                assert_eq!(SwfRecord::parse_line(&record.to_string()), Ok(*record));
                if !gzip {
                    let index = usize::try_from(*line_no - 1).expect("small");
                    let mut bytes = lines[index];
                    bytes = bytes.strip_suffix(b"\r").unwrap_or(bytes);
                    if index == 0 {
                        bytes = bytes.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(bytes);
                    }
                    let line = std::str::from_utf8(bytes).expect("an accepted line is UTF-8");
                    assert_eq!(
                        SwfRecord::parse_line(line.trim_start_matches([' ', '\t'])),
                        Ok(*record)
                    );
                }
            }
            if !gzip {
                assert_eq!(
                    trace.total_lines(),
                    lines.len() as u64,
                    "every line is counted once"
                );
            }
        }
        Err(e) => {
            let message = e.to_string();
            assert!(message.starts_with("fuzz.swf"), "{message}");
            match &e.kind {
                SwfErrorKind::Line(_) => {
                    assert!(
                        e.line.is_some() && e.field.is_some(),
                        "{message}: no line or field"
                    );
                }
                SwfErrorKind::InvalidUtf8 | SwfErrorKind::LineTooLong { .. } => {
                    assert!(e.line.is_some(), "{message}: no line");
                }
                // Whole-stream errors (gzip, I/O) have no line to name.
                _ => assert!(gzip, "{message}: a plain-text error without a line"),
            }
            if let (false, Some(line_no)) = (gzip, e.line) {
                assert!(
                    line_no >= 1 && line_no <= lines.len() as u64,
                    "{message}: line out of range"
                );
            }
        }
    }
}

// ---------------------------------------------------------------------------
// checkpoint_restore
// ---------------------------------------------------------------------------

/// One damage to a checkpoint's bytes (`checkpoint_restore`, `resume_file`).
#[derive(Clone, Copy, Debug, Arbitrary)]
enum Edit {
    Xor {
        at: u16,
        bits: u8,
    },
    Set {
        at: u16,
        value: u8,
    },
    Insert {
        at: u16,
        value: u8,
    },
    Remove {
        at: u16,
    },
    /// A little-endian 32-bit word set (counts, times, ids, sizes).
    Word {
        at: u16,
        value: u32,
    },
}

/// `edit` applied to `bytes`, its offset taken modulo their length plus one.
fn apply(bytes: &mut Vec<u8>, edit: Edit) {
    let at = |a: u16| usize::from(a) % (bytes.len() + 1);
    match edit {
        Edit::Xor { at: a, bits } => {
            let i = at(a);
            if let Some(b) = bytes.get_mut(i) {
                *b ^= bits;
            }
        }
        Edit::Set { at: a, value } => {
            let i = at(a);
            if let Some(b) = bytes.get_mut(i) {
                *b = value;
            }
        }
        Edit::Insert { at: a, value } => {
            let i = at(a);
            bytes.insert(i, value);
        }
        Edit::Remove { at: a } => {
            let i = at(a);
            if i < bytes.len() {
                bytes.remove(i);
            }
        }
        Edit::Word { at: a, value } => {
            let i = at(a);
            if let Some(w) = bytes.get_mut(i..i + 4) {
                w.copy_from_slice(&value.to_le_bytes());
            }
        }
    }
}

pub use checkpoint_body::{checkpoint_restore, checkpoint_restore_seeds};

/// The `checkpoint_restore` body and what it needs (kept in its own module,
/// with its own imports).
mod checkpoint_body {
    use super::{apply, Edit};
    use crate::checkpoints::{checkpoint_policies, cluster_for, reseal, Recorder};
    use crate::rng::SplitMix64;
    use crate::scenario::{
        ScenarioSpec, SmallCluster, MAX_MACHINES, MAX_POOLS, VERIFY_B, VERIFY_Q, VERIFY_R,
    };
    use arbitrary::{Arbitrary, Unstructured};
    use backfill_core::checkpoint::{read_header, Kind, HEADER_LEN, TRAILER_LEN};
    use backfill_core::{Kernel, Policy, SimJob, Simulator};

    type CkKernel = Kernel<VERIFY_Q, VERIFY_R, VERIFY_B, MAX_MACHINES, MAX_POOLS>;
    type CkSim = Simulator<VERIFY_Q, VERIFY_R, VERIFY_B, MAX_MACHINES, MAX_POOLS>;

    /// A real checkpoint of a replay stopped after instant `stop` (of the
    /// kernel alone, or of the replay), then damaged by `edits`, with the
    /// checksums made right again when `reseal`.
    #[derive(Debug)]
    struct Real {
        scenario: ScenarioSpec,
        policy: u8,
        stop: u8,
        kernel: bool,
        reseal: bool,
        edits: Vec<Edit>,
    }

    impl<'a> Arbitrary<'a> for Real {
        fn arbitrary(u: &mut Unstructured<'a>) -> arbitrary::Result<Self> {
            let policy = u.arbitrary()?;
            let stop = u.arbitrary()?;
            let kernel = u.arbitrary()?;
            let reseal = u.arbitrary()?;
            let edits = usize::from(u.arbitrary::<u8>()? % 8);
            let edits = crate::scenario::take_up_to(u, edits);
            Ok(Self {
                scenario: ScenarioSpec::arbitrary(u)?,
                policy,
                stop,
                kernel,
                reseal,
                edits,
            })
        }
    }

    /// A kernel or simulator to restore into: fresh, or busy with a state
    /// of its own (a scenario replayed part way), so that a refusal that
    /// changed it shows.
    fn target(busy: bool) -> Box<CkSim> {
        let scenario = ScenarioSpec::random(&mut SplitMix64::new(77), 30).build();
        let mut sim = Box::new(CkSim::new(CkKernel::new(
            scenario.cluster.clone(),
            Policy::Conservative,
        )));
        if busy {
            let mut n = 0;
            let _ = sim.resume_with(
                scenario.jobs.iter().copied(),
                &mut Recorder::default(),
                |_, _| {},
                |_, _| {
                    n += 1;
                    n == 6
                },
            );
        }
        sim
    }

    fn checkpoint_of(sim: &CkSim, kind: Kind) -> Vec<u8> {
        let mut buf = vec![0u8; CkSim::checkpoint_size()];
        let len = match kind {
            Kind::Kernel => sim.kernel().checkpoint(&mut buf),
            Kind::Simulator => sim.checkpoint(&mut buf),
        }
        .expect("a buffer of checkpoint_size() holds any checkpoint");
        buf.truncate(len);
        buf
    }

    /// Restores `bytes` into a kernel and into a simulator (each fresh or
    /// busy): what either accepts validates and is written back the same
    /// (the header's capacities are the restoring kernel's); what either
    /// refuses left it as it was. Returns whether each accepted.
    fn restore_both(bytes: &[u8], busy: bool) -> (bool, bool) {
        let same_state = |again: &[u8]| {
            let header = |b: &[u8]| (b.get(..16).map(<[u8]>::to_vec), b.len());
            let state = |b: &[u8]| {
                b.get(HEADER_LEN..b.len().saturating_sub(TRAILER_LEN))
                    .map(<[u8]>::to_vec)
            };
            header(again) == header(bytes) && state(again) == state(bytes)
        };
        let mut sim = target(busy);
        let debug = format!("{sim:?}");
        let own = checkpoint_of(&sim, Kind::Simulator);
        let simulator = match sim.restore(bytes) {
            Ok(()) => {
                if let Err(e) = sim.kernel().validate() {
                    panic!("a restored replay's kernel does not validate: {e}");
                }
                let again = checkpoint_of(&sim, Kind::Simulator);
                assert!(same_state(&again), "a restored replay writes other bytes");
                true
            }
            Err(_) => {
                assert_eq!(
                    format!("{sim:?}"),
                    debug,
                    "a refused restore changed the replay"
                );
                assert!(checkpoint_of(&sim, Kind::Simulator) == own);
                false
            }
        };
        let mut kernel = Box::new(target(busy).kernel().clone());
        let debug = format!("{kernel:?}");
        let kernel_ok = match kernel.restore(bytes) {
            Ok(()) => {
                if let Err(e) = kernel.validate() {
                    panic!("a restored kernel does not validate: {e}");
                }
                let mut buf = vec![0u8; CkKernel::checkpoint_size()];
                let len = kernel.checkpoint(&mut buf).expect("room");
                assert!(
                    same_state(&buf[..len]),
                    "a restored kernel writes other bytes"
                );
                // And it takes calls as any kernel does.
                let now = kernel.now();
                let _ = kernel.schedule(now, &mut ());
                let _ = kernel.next_wakeup();
                if let Err(e) = kernel.validate() {
                    panic!("a restored kernel broke after a pass: {e}");
                }
                true
            }
            Err(_) => {
                assert_eq!(
                    format!("{kernel:?}"),
                    debug,
                    "a refused restore changed the kernel"
                );
                false
            }
        };
        (simulator, kernel_ok)
    }

    /// Bytes into restore (see `fuzz/fuzz_targets/checkpoint_restore.rs`).
    /// The first byte chooses: bit 0 set, the rest describe a real
    /// checkpoint of a random replay and damage to it (`Real`); clear,
    /// the rest are the bytes, resealed (checksums made right) when bit 1
    /// is set; bit 2, restore into busy targets rather than fresh ones.
    ///
    /// Never a panic; whatever a restore accepts validates and writes the
    /// same bytes back; whatever it refuses is left as it was; an undamaged
    /// real checkpoint is accepted, and a replay restored from one goes on
    /// as the replay that never stopped.
    pub fn checkpoint_restore(data: &[u8]) {
        let Some((&mode, rest)) = data.split_first() else {
            return;
        };
        let busy = mode & 4 != 0;
        if mode & 1 == 0 {
            let mut bytes = rest.to_vec();
            if mode & 2 != 0 {
                reseal(&mut bytes);
            }
            let _ = read_header(&bytes);
            restore_both(&bytes, busy);
            return;
        }
        let Ok(real) = Real::arbitrary(&mut Unstructured::new(rest)) else {
            return;
        };
        let scenario = real.scenario.build();
        let policies = checkpoint_policies();
        let policy = policies[usize::from(real.policy) % policies.len()];
        let (sim, paused, jobs) =
            paused_replay(&scenario.cluster, policy, &scenario.jobs, real.stop);
        let kind = if real.kernel {
            Kind::Kernel
        } else {
            Kind::Simulator
        };
        let mut bytes = checkpoint_of(&sim, kind);
        let genuine = real.edits.is_empty();
        for &edit in &real.edits {
            apply(&mut bytes, edit);
        }
        if real.reseal {
            reseal(&mut bytes);
        }
        let (simulator, kernel) = restore_both(&bytes, busy);
        if genuine {
            match kind {
                Kind::Kernel => assert!(kernel, "an undamaged kernel checkpoint was refused"),
                Kind::Simulator if paused => {
                    assert!(simulator, "an undamaged replay checkpoint was refused");
                    same_continuation(sim, &bytes, &jobs);
                }
                Kind::Simulator => {}
            }
        }
    }

    /// `jobs` replayed under `policy` on `cluster` until after instant
    /// `stop` (or its end, or its first error); whether it paused there.
    fn paused_replay(
        cluster: &SmallCluster,
        policy: Policy,
        jobs: &[SimJob],
        stop: u8,
    ) -> (Box<CkSim>, bool, Vec<SimJob>) {
        let cluster = cluster_for(policy, cluster);
        let mut sim = Box::new(CkSim::new(CkKernel::new(cluster, policy)));
        let mut n = 0u8;
        let ended = sim.resume_with(
            jobs.iter().copied(),
            &mut Recorder::default(),
            |_, _| {},
            |_, _| {
                n = n.saturating_add(1);
                n > stop
            },
        );
        (sim, matches!(ended, Ok(None)), jobs.to_vec())
    }

    /// The replay paused in `sim` and the one restored from its checkpoint
    /// `bytes` report the same from here to the end.
    fn same_continuation(mut sim: Box<CkSim>, bytes: &[u8], jobs: &[SimJob]) {
        let mut restored = Box::new(CkSim::new(CkKernel::new(
            SmallCluster::single(2).expect("a machine"),
            Policy::Fcfs,
        )));
        restored.restore(bytes).expect("accepted above");
        let (a, b) = (Recorder::default(), Recorder::default());
        let (mut sa, mut sb) = (a, b);
        let ea = sim.resume_with(jobs.iter().copied(), &mut sa, |_, _| {}, |_, _| false);
        let eb = restored.resume_with(jobs.iter().copied(), &mut sb, |_, _| {}, |_, _| false);
        assert_eq!(ea, eb, "the restored replay ended otherwise");
        assert_eq!(
            sa.take(),
            sb.take(),
            "the restored replay went on otherwise"
        );
        assert_eq!(sim.kernel().counters(), restored.kernel().counters());
    }

    /// The seed corpus of `fuzz/corpus/checkpoint_restore/`: real
    /// checkpoints of replays under several policies, each at the instant
    /// with the most jobs held, as raw bytes (mode 0, a replay's; mode 6, a
    /// kernel's, resealed after any mutation, into busy targets), named by
    /// policy and mode.
    pub fn checkpoint_restore_seeds() -> Vec<(String, Vec<u8>)> {
        let mut seeds = Vec::new();
        for (seed, policy) in [
            (1, Policy::Conservative),
            (2, Policy::Easy),
            (3, Policy::SELECTIVE_D_EXAMPLE),
            (
                4,
                Policy::ConsRs(backfill_core::policy::RandomSearch::DEFAULT),
            ),
            (5, Policy::BfMod(backfill_core::policy::Heuristics::DEFAULT)),
            (6, Policy::DPSA_N),
            (7, Policy::ConservativeRebuild),
            (
                8,
                Policy::ConsRsAlea(backfill_core::policy::RandomSearch::DEFAULT),
            ),
        ] {
            let scenario = ScenarioSpec::random(&mut SplitMix64::new(seed), 40).build();
            // The instant with the most jobs queued and running.
            let held = |sim: &CkSim| sim.kernel().queued().len() + sim.kernel().running().len();
            let sim = (0..60)
                .map(|stop| paused_replay(&scenario.cluster, policy, &scenario.jobs, stop))
                .filter(|(_, paused, _)| *paused)
                .map(|(sim, _, _)| sim)
                .max_by_key(|sim| held(sim))
                .expect("a replay with an instant");
            for (mode, kind) in [(0u8, Kind::Simulator), (6, Kind::Kernel)] {
                let mut data = vec![mode];
                data.extend(checkpoint_of(&sim, kind));
                seeds.push((format!("{}-{mode}", policy.name()), data));
            }
        }
        seeds
    }
}

// ---------------------------------------------------------------------------
// resume_file
// ---------------------------------------------------------------------------

pub use resume_body::{resume_file, resume_file_seeds};

/// The `resume_file` body: host-cli's replay checkpoint files (the wrapper
/// around core's checkpoint that `replay --checkpoint` writes and `replay
/// --resume` reads) into `backfill_cli::replay::checkpoint::check`.
mod resume_body {
    use super::{apply, Edit};
    use crate::rng::{Draws, SplitMix64};
    use arbitrary::{Arbitrary, Unstructured};
    use backfill_cli::error::CliError;
    use backfill_cli::replay::checkpoint::{check, resume_from, write_last, Fingerprint};
    use backfill_cli::replay::{prepare, run, Estimates, Prepared, RunResult, Shaping, Window};
    use backfill_cli::swf::load_reader;
    use backfill_core::checkpoint::{crc32, read_header};
    use backfill_core::policy::RandomSearch;
    use backfill_core::{CategoryBounds, Policy};
    use std::fmt::Write as _;
    use std::path::Path;
    use std::sync::OnceLock;

    /// The file every refusal names.
    const FILE: &str = "fuzz-replay.ckpt";

    /// Where the fingerprint starts: after the 20-byte header and its
    /// 8-byte length.
    const FINGERPRINT_AT: usize = 28;

    /// A replay a file may be resumed by: its fingerprint, the category
    /// bounds and whether it keeps per-job records; its jobs and policy,
    /// to continue it, and what it gives when it never stops.
    struct Replay {
        fingerprint: Fingerprint,
        bounds: CategoryBounds,
        records: bool,
        prepared: Prepared,
        policy: Policy,
        whole: RunResult,
    }

    /// The replays tried on every input, and the files the first ones
    /// wrote (`files[i]` is the last checkpoint of `replays[i]`).
    struct World {
        replays: Vec<Replay>,
        files: Vec<Vec<u8>>,
    }

    /// An SWF trace of `jobs` jobs on 16 processors, drawn from `seed`.
    fn trace(seed: u64, jobs: u32) -> String {
        let mut rng = SplitMix64::new(seed);
        let mut out = String::from("; MaxProcs: 16\n");
        let mut submit = 0;
        for id in 1..=jobs {
            submit += rng.range_u32(0, 120);
            let procs = rng.range_u32(1, 16);
            let requested = rng.range_u32(60, 3600);
            let run = rng.range_u32(1, requested);
            let _ = writeln!(
                out,
                "{id} {submit} -1 {run} {procs} -1 -1 {procs} {requested} -1 1 1 1 1 1 -1 -1 -1"
            );
        }
        out
    }

    /// The replays: four that write a file (policies with and without
    /// parameters, records kept or not, other category bounds), then one
    /// differing from the first in each other fingerprint field (trace,
    /// window, estimates).
    fn world() -> &'static World {
        static WORLD: OnceLock<World> = OnceLock::new();
        WORLD.get_or_init(|| {
            let load = |seed| load_reader("fuzz.swf", trace(seed, 40).as_bytes()).expect("a trace");
            let (main, other) = (load(1), load(2));
            let whole = Window::WHOLE;
            let first = Window {
                first: Some(30),
                ..Window::WHOLE
            };
            let exact = Shaping {
                estimates: Estimates::Exact,
                ..Shaping::AS_RECORDED
            };
            let small = CategoryBounds {
                short_max: 600,
                narrow_max: 4,
            };
            let default = CategoryBounds::DEFAULT;
            let as_recorded = Shaping::AS_RECORDED;
            // The first trace, whole, as recorded.
            let main_with =
                |policy, bounds, records| (&main, whole, as_recorded, policy, bounds, records);
            let runs = [
                main_with(Policy::Easy, default, true),
                main_with(Policy::Conservative, default, false),
                main_with(Policy::ConsRs(RandomSearch::DEFAULT), small, true),
                main_with(Policy::SELECTIVE_D_EXAMPLE, default, false),
                (&other, whole, as_recorded, Policy::Easy, default, true),
                (&main, first, as_recorded, Policy::Easy, default, true),
                (&main, whole, exact, Policy::Easy, default, true),
            ];
            let dir =
                std::env::temp_dir().join(format!("backfill-fuzz-resume-{}", std::process::id()));
            std::fs::create_dir_all(&dir).expect("a scratch folder");
            let mut world = World {
                replays: Vec::new(),
                files: Vec::new(),
            };
            for (i, (loaded, window, shaping, policy, bounds, records)) in
                runs.into_iter().enumerate()
            {
                let prepared = prepare(loaded, &window, shaping).expect("a prepared trace");
                let fingerprint = if i < 4 {
                    // 80 events (arrivals and completions): one checkpoint
                    // part way.
                    let path = dir.join(format!("{i}.ckpt"));
                    let fingerprint = write_last(&prepared, policy, bounds, records, 45, &path)
                        .expect("a replay that writes its checkpoint");
                    world
                        .files
                        .push(std::fs::read(&path).expect("the checkpoint written"));
                    fingerprint
                } else {
                    Fingerprint::of(&prepared, policy, bounds, records)
                };
                let whole = run(&prepared, policy, bounds, records, None).expect("a replay");
                world.replays.push(Replay {
                    fingerprint,
                    bounds,
                    records,
                    prepared,
                    policy,
                    whole,
                });
            }
            let _ = std::fs::remove_dir_all(&dir);
            world
        })
    }

    /// `bytes` with the length field and the CRC-32 trailer made right.
    fn reseal(bytes: &mut [u8]) {
        let len = bytes.len() as u64;
        if let Some(field) = bytes.get_mut(12..20) {
            field.copy_from_slice(&len.to_le_bytes());
        }
        if let Some(body) = bytes.len().checked_sub(4) {
            let crc = crc32(&bytes[..body]);
            bytes[body..].copy_from_slice(&crc.to_le_bytes());
        }
    }

    /// The real file `file` with its fingerprint replaced by `text`, its
    /// length and CRC made right.
    fn with_fingerprint(file: &[u8], text: &[u8]) -> Vec<u8> {
        let len = |b: &[u8]| u64::from_le_bytes(b.try_into().expect("8 bytes"));
        let old = usize::try_from(len(&file[20..FINGERPRINT_AT])).expect("a length");
        let mut out = file[..20].to_vec();
        out.extend_from_slice(&(text.len() as u64).to_le_bytes());
        out.extend_from_slice(text);
        out.extend_from_slice(&file[FINGERPRINT_AT + old..]);
        reseal(&mut out);
        out
    }

    /// One change to a fingerprint's lines.
    #[derive(Clone, Copy, Debug, Arbitrary)]
    enum Rewrite {
        /// Two lines swapped.
        Swap(u8, u8),
        /// A line written twice.
        Repeat(u8),
        /// A line left out.
        Drop(u8),
        /// A byte put into a line (a line break, a `\r`, a byte that is
        /// not UTF-8).
        Insert { line: u8, at: u8, byte: u8 },
        /// A line of another replay's fingerprint in place of this one's.
        Borrow { replay: u8, line: u8 },
        /// Every line ended by `\r\n`.
        Crlf,
        /// The last line without its line end.
        Unterminated,
    }

    fn rewrite(text: &[u8], rewrites: &[Rewrite], world: &World) -> Vec<u8> {
        let split = |t: &[u8]| -> Vec<Vec<u8>> {
            t.split_inclusive(|&b| b == b'\n')
                .map(<[u8]>::to_vec)
                .collect()
        };
        let mut lines = split(text);
        for &r in rewrites {
            let n = lines.len().max(1);
            let at = |i: u8| usize::from(i) % n;
            match r {
                Rewrite::Swap(a, b) if !lines.is_empty() => lines.swap(at(a), at(b)),
                Rewrite::Repeat(a) if !lines.is_empty() => {
                    let line = lines[at(a)].clone();
                    lines.insert(at(a), line);
                }
                Rewrite::Drop(a) if !lines.is_empty() => {
                    lines.remove(at(a));
                }
                Rewrite::Insert { line, at: k, byte } if !lines.is_empty() => {
                    let l = &mut lines[at(line)];
                    let k = usize::from(k) % (l.len() + 1);
                    l.insert(k, byte);
                }
                Rewrite::Borrow { replay, line } if !lines.is_empty() => {
                    let other = &world.replays[usize::from(replay) % world.replays.len()];
                    let theirs = split(other.fingerprint.text().as_bytes());
                    let i = at(line);
                    lines[i] = theirs[i % theirs.len()].clone();
                }
                Rewrite::Crlf => {
                    for l in &mut lines {
                        if l.last() == Some(&b'\n') {
                            l.insert(l.len() - 1, b'\r');
                        }
                    }
                }
                Rewrite::Unterminated => {
                    if let Some(l) = lines.last_mut() {
                        l.pop();
                    }
                }
                _ => {}
            }
        }
        lines.concat()
    }

    /// A real file damaged: its fingerprint rewritten (and the file
    /// resealed), bytes edited, the file resealed or not.
    #[derive(Debug)]
    struct Damage {
        file: u8,
        reseal: bool,
        rewrites: Vec<Rewrite>,
        edits: Vec<Edit>,
    }

    impl<'a> Arbitrary<'a> for Damage {
        fn arbitrary(u: &mut Unstructured<'a>) -> arbitrary::Result<Self> {
            let file = u.arbitrary()?;
            let reseal = u.arbitrary()?;
            let rewrites = usize::from(u.arbitrary::<u8>()? % 4);
            let rewrites = crate::scenario::take_up_to(u, rewrites);
            let edits = usize::from(u.arbitrary::<u8>()? % 8);
            let edits = crate::scenario::take_up_to(u, edits);
            Ok(Self {
                file,
                reseal,
                rewrites,
                edits,
            })
        }
    }

    /// The reasons a refusal may give, as the module words them (each the
    /// start of one, but the trailing bytes', which starts with a count).
    const REASONS: [&str; 10] = [
        "not a replay checkpoint of host-cli (wrong magic number)",
        "truncated: ",
        "file layout version ",
        "checksum mismatch (stored ",
        "malformed at byte ",
        "the checkpoint is of another replay: its ",
        "the replay's state: ",
        "the replay's state comes from a kernel of ",
        "the replay's state is of other jobs: ",
        "the collected results disagree with the replay's state: ",
    ];

    /// Checks a refusal: exit status 2, one line, `--resume FILE: cannot
    /// resume: ` and a reason worded as the module words them; a byte it
    /// names is in the file. Returns the reason.
    fn refusal(e: &CliError, bytes: &[u8]) -> String {
        let shown = e.to_string();
        assert!(
            matches!(e, CliError::Usage(_)),
            "not a usage error: {shown}"
        );
        assert!(
            !shown.contains(['\n', '\r']),
            "a refusal of several lines: {shown:?}"
        );
        let why = shown
            .strip_prefix(&format!("--resume {FILE}: cannot resume: "))
            .unwrap_or_else(|| panic!("a refusal that does not name the file: {shown}"));
        let trailing = why.ends_with(": trailing bytes")
            && why.contains(" bytes, but the checkpoint ends after ");
        assert!(
            trailing || REASONS.iter().any(|r| why.starts_with(r)),
            "a reason of no known shape: {why}"
        );
        if let Some(rest) = why.strip_prefix("malformed at byte ") {
            let (at, what) = rest.split_once(": ").expect("malformed at byte N: what");
            let at: usize = at.parse().expect("a byte offset");
            assert!(at <= bytes.len(), "byte {at} of {}: {why}", bytes.len());
            assert!(!what.is_empty(), "{why}");
        }
        why.to_owned()
    }

    /// `bytes` resumed by every replay of the world: a refusal is one line
    /// of a known shape, the same twice; an accepted file is written back
    /// the same, its metrics and records agree with the replay's bounds and
    /// records, its state is a core replay checkpoint of one machine; at
    /// most one replay accepts it, and when it is the undamaged file of
    /// replay `genuine`, that one does and the others refuse it as another
    /// replay's.
    fn resume_everywhere(bytes: &[u8], genuine: Option<usize>) {
        let world = world();
        let path = Path::new(FILE);
        let mut accepted = Vec::new();
        for (i, replay) in world.replays.iter().enumerate() {
            match check(path, bytes, &replay.fingerprint) {
                Ok(resumed) => {
                    let again = resumed.file(&replay.fingerprint);
                    if let Some(at) =
                        (0..again.len().max(bytes.len())).find(|&k| again.get(k) != bytes.get(k))
                    {
                        panic!("replay {i} accepted a file it writes otherwise from byte {at}");
                    }
                    assert_eq!(resumed.path, path);
                    assert_eq!(
                        resumed.collected.metrics.bounds, replay.bounds,
                        "replay {i}"
                    );
                    assert_eq!(
                        resumed.collected.records.is_some(),
                        replay.records,
                        "replay {i}"
                    );
                    let header = read_header(&resumed.simulator).expect("a checked header");
                    assert_eq!(header.capacities, resumed.capacities);
                    assert_eq!(
                        (resumed.capacities.machines, resumed.capacities.pools),
                        (1, 0)
                    );
                    accepted.push(i);
                    continued(replay, resumed, bytes, genuine == Some(i));
                }
                Err(e) => {
                    let why = refusal(&e, bytes);
                    if i == 0 {
                        let again = check(path, bytes, &replay.fingerprint).err();
                        assert_eq!(again.map(|e| e.to_string()), Some(e.to_string()));
                    }
                    if genuine.is_some() && genuine != Some(i) {
                        assert!(
                            why.starts_with("the checkpoint is of another replay: its "),
                            "replay {i} refused replay {genuine:?}'s file: {why}"
                        );
                    }
                }
            }
        }
        assert!(
            accepted.len() <= 1,
            "replays {accepted:?} all accept one file"
        );
        if let Some(g) = genuine {
            assert_eq!(accepted, [g], "replay {g}'s own file");
        }
    }

    /// The replay `replay` continued from the file `bytes` it accepted
    /// (`resumed`): refused on one line of a known shape (the simulator
    /// refuses the state, or what the file has collected disagrees with
    /// it), or it loses no job and counts none twice: every job finished or
    /// refused, the metrics and the refused jobs counting them, one record
    /// for each finished job when kept. From an undamaged file, it ends as
    /// the replay that never stopped.
    fn continued(
        replay: &Replay,
        resumed: backfill_cli::replay::checkpoint::Resumed,
        bytes: &[u8],
        undamaged: bool,
    ) {
        let Replay {
            prepared,
            policy,
            bounds,
            records,
            whole,
            ..
        } = replay;
        let result = match resume_from(prepared, *policy, *bounds, *records, resumed) {
            Ok(result) => result,
            Err(e) => {
                assert!(!undamaged, "an undamaged file not resumed: {e}");
                refusal(&e, bytes);
                return;
            }
        };
        let o = result.outcome;
        let jobs = prepared.jobs.len() as u64;
        assert_eq!(o.finished + o.rejected, jobs, "jobs lost: {o:?}");
        assert_eq!(o.submitted, o.finished, "{o:?}");
        assert_eq!(result.metrics.overall.count, o.finished, "{o:?}");
        assert_eq!(result.rejected.len() as u64, o.rejected, "{o:?}");
        if let Some(kept) = result.records() {
            assert!(*records);
            let mut ids: Vec<_> = kept.iter().map(|r| r.job.id).collect();
            ids.sort_unstable();
            ids.dedup();
            assert_eq!(ids.len() as u64, o.finished, "records lost or repeated");
        } else {
            assert!(!*records);
        }
        if undamaged {
            assert_eq!(result.metrics, whole.metrics);
            assert_eq!(result.outcome, whole.outcome);
            assert_eq!(result.records(), whole.records());
            assert_eq!(result.rejected, whole.rejected);
        }
    }

    /// Fuzz body (see `fuzz/fuzz_targets/resume_file.rs`). The first byte
    /// chooses: bit 0 clear, the rest are the file, its length and CRC
    /// made right when bit 1 is set; bit 0 set, the rest describe damage
    /// to a real file (`Damage`). Whatever the bytes, `resume_everywhere`'s
    /// checks hold; a real file undamaged (or given whole as raw bytes) is
    /// resumed by its own replay only.
    pub fn resume_file(data: &[u8]) {
        let Some((&mode, rest)) = data.split_first() else {
            return;
        };
        let world = world();
        if mode & 1 == 0 {
            let mut bytes = rest.to_vec();
            if mode & 2 != 0 {
                reseal(&mut bytes);
            }
            let genuine = world.files.iter().position(|f| *f == bytes);
            resume_everywhere(&bytes, genuine);
            return;
        }
        let Ok(damage) = Damage::arbitrary(&mut Unstructured::new(rest)) else {
            return;
        };
        let i = usize::from(damage.file) % world.files.len();
        let file = &world.files[i];
        let mut bytes = if damage.rewrites.is_empty() {
            file.clone()
        } else {
            let old =
                &file[FINGERPRINT_AT..FINGERPRINT_AT + world.replays[i].fingerprint.text().len()];
            with_fingerprint(file, &rewrite(old, &damage.rewrites, world))
        };
        for &edit in &damage.edits {
            apply(&mut bytes, edit);
        }
        if damage.reseal {
            reseal(&mut bytes);
        }
        let genuine = (bytes == *file).then_some(i);
        resume_everywhere(&bytes, genuine);
    }

    /// The seed corpus of `fuzz/corpus/resume_file/`: each real file
    /// (`real-N`, mode 0) and broken ones: cut short, a bit flipped,
    /// another magic number, a newer layout, a reserved field set, a
    /// records flag the fingerprint does not say, a record left out,
    /// another replay's fingerprint, the fingerprint's lines ended by
    /// `\r\n` (mode 2: the body makes the length and CRC right).
    pub fn resume_file_seeds() -> Vec<(String, Vec<u8>)> {
        let world = world();
        let raw = |mode: u8, bytes: &[u8]| [&[mode][..], bytes].concat();
        let mut seeds: Vec<(String, Vec<u8>)> = world
            .files
            .iter()
            .enumerate()
            .map(|(i, f)| (format!("real-{i}"), raw(0, f)))
            .collect();
        let file = &world.files[0];
        let edited = |at: usize, value: u8| {
            let mut b = file.clone();
            b[at] = value;
            b
        };
        let fingerprint = |i: usize| world.replays[i].fingerprint.text();
        // Replay 1 keeps no records: its flag is the last byte before the
        // CRC. Set, with a count of none after it.
        let unkept = &world.files[1];
        let mut records = unkept[..unkept.len() - 4].to_vec();
        *records.last_mut().expect("a flag") = 1;
        records.extend_from_slice(&[0; 12]);
        let crlf = fingerprint(0).replace('\n', "\r\n");
        // Replay 0 keeps records: the last one left out and their count
        // made one less, which the file's checks accept and the restored
        // state refuses (its jobs finished are one more).
        let body = &file[..file.len() - 4];
        let count_at = |n: usize| body.len().checked_sub(55 * n + 8);
        let n = (1..=body.len() / 55)
            .find(|&n| {
                count_at(n).is_some_and(|at| {
                    body[at - 1] == 1 && body[at..at + 8] == (n as u64).to_le_bytes()
                })
            })
            .expect("replay 0's records");
        let at = count_at(n).expect("the count");
        let mut fewer = body[..body.len() - 55].to_vec();
        fewer[at..at + 8].copy_from_slice(&(n as u64 - 1).to_le_bytes());
        fewer.extend_from_slice(&[0; 4]);
        seeds.extend([
            ("broken-short".to_owned(), raw(0, &file[..file.len() / 2])),
            (
                "broken-flipped".to_owned(),
                raw(0, &edited(100, file[100] ^ 4)),
            ),
            ("broken-magic".to_owned(), raw(0, &edited(3, b'C'))),
            ("broken-newer".to_owned(), raw(2, &edited(8, 2))),
            ("broken-reserved".to_owned(), raw(2, &edited(10, 1))),
            (
                "broken-another-replay".to_owned(),
                raw(2, &with_fingerprint(file, fingerprint(1).as_bytes())),
            ),
            ("broken-records-flag".to_owned(), raw(2, &records)),
            ("broken-fewer-records".to_owned(), raw(2, &fewer)),
            (
                "broken-crlf".to_owned(),
                raw(2, &with_fingerprint(file, crlf.as_bytes())),
            ),
            ("damage-empty".to_owned(), vec![1]),
            (
                "damage-rewrites".to_owned(),
                vec![1, 2, 0, 3, 0, 1, 2, 5, 6, 0, 0, 1, 7],
            ),
        ]);
        seeds
    }
}

// ---------------------------------------------------------------------------
// plan_parse and farm_parse
// ---------------------------------------------------------------------------

pub use host_files_body::{farm_parse, plan_parse};

/// The bodies of `plan_parse` (plan files) and `farm_parse` (farm
/// descriptions and job lists): each decodes either raw text or a
/// structured input written out in the format's syntax, then mutated.
mod host_files_body {
    use arbitrary::{Arbitrary, Unstructured};
    use backfill_cli::farm::format::{farm_toml, jobs_csv, parse_farm, parse_jobs, FormatError};
    use backfill_cli::farm::Farm;
    use backfill_cli::plan::format::parse;
    use backfill_cli::plan::spec::{cell_id, Parameters, Plan};
    use backfill_core::Policy;
    use std::collections::HashSet;
    use std::fmt::Write as _;
    use std::path::{Path, PathBuf};
    use std::sync::OnceLock;

    /// The name the plan is parsed under.
    const PLAN_FILE: &str = "fuzz-plan.toml";
    /// The name the farm description is parsed under.
    const FARM_FILE: &str = "fuzz-farm.toml";
    /// The name the job list is parsed under.
    const JOBS_FILE: &str = "fuzz-jobs.csv";

    /// Checks the shape of a refusal of `text` parsed as `file`: the file
    /// first, a line inside the text when one is named, a field that is
    /// not empty, a message; `file:line: field F: message` as displayed,
    /// on one line, field included (names, keys and values from the text
    /// are shown escaped), which it returns.
    fn refusal(e: &FormatError, file: &str, text: &[u8]) -> String {
        let shown = e.to_string();
        assert_eq!(e.file, file, "{shown}");
        assert!(shown.starts_with(file), "{shown}");
        let lines = text.split(|&b| b == b'\n').count() as u64;
        if let Some(line) = e.line {
            assert!(
                line >= 1 && line <= lines,
                "{shown}: line out of 1..={lines}"
            );
        }
        if let Some(field) = &e.field {
            assert!(!field.is_empty(), "{shown}: an empty field name");
            assert!(shown.contains(&format!("field {field}: ")), "{shown}");
        }
        assert!(!e.message.trim().is_empty(), "{shown}: no message");
        assert!(
            !shown.contains('\n'),
            "{shown:?}: a refusal of several lines"
        );
        shown
    }

    /// [`refusal`] of a farm file or job list, which shows no carriage
    /// return either (every text from the file is escaped, the TOML
    /// reader's messages included).
    fn farm_refusal(e: &FormatError, file: &str, text: &[u8]) {
        let shown = refusal(e, file, text);
        assert!(!shown.contains('\r'), "{shown:?}: a carriage return");
    }

    /// Picks one of `list` (an index taken modulo its length).
    fn pick<'a>(u: &mut Unstructured<'_>, list: &[&'a str]) -> arbitrary::Result<&'a str> {
        Ok(list[usize::from(u8::arbitrary(u)?) % list.len()])
    }

    /// A list of up to `max` entries drawn by `f`.
    fn some<T>(
        u: &mut Unstructured<'_>,
        max: u8,
        mut f: impl FnMut(&mut Unstructured<'_>) -> arbitrary::Result<T>,
    ) -> arbitrary::Result<Vec<T>> {
        let n = u8::arbitrary(u)? % (max + 1);
        (0..n).map(|_| f(u)).collect()
    }

    /// An integer as TOML text: mostly the edges of the formats' ranges.
    fn int(u: &mut Unstructured<'_>) -> arbitrary::Result<String> {
        const EDGES: [&str; 12] = [
            "0",
            "1",
            "2",
            "8",
            "100",
            "-1",
            "3600",
            "4294967295",
            "4294967296",
            "9223372036854775807",
            "-9223372036854775808",
            "1_000",
        ];
        if bool::arbitrary(u)? {
            Ok(pick(u, &EDGES)?.to_owned())
        } else {
            Ok(i64::from(i16::arbitrary(u)?).to_string())
        }
    }

    /// A float as TOML text.
    fn float(u: &mut Unstructured<'_>) -> arbitrary::Result<String> {
        const EDGES: [&str; 12] = [
            "1.0", "1.2", "0.5", "0.0", "-1.0", "26.69", "1e9", "1e-9", "nan", "inf", "-inf",
            "0.0005",
        ];
        if bool::arbitrary(u)? {
            Ok(pick(u, &EDGES)?.to_owned())
        } else {
            Ok(format!("{:?}", f64::from(u16::arbitrary(u)?) / 100.0))
        }
    }

    /// `key = [a, b, ...]` with entries drawn by `f`, or nothing.
    fn list_key(
        out: &mut String,
        u: &mut Unstructured<'_>,
        key: &str,
        max: u8,
        f: impl FnMut(&mut Unstructured<'_>) -> arbitrary::Result<String>,
    ) -> arbitrary::Result<()> {
        if bool::arbitrary(u)? {
            let items = some(u, max, f)?;
            let _ = writeln!(out, "{key} = [{}]", items.join(", "));
        }
        Ok(())
    }

    /// One time in four, applies one to four byte edits (flip, set,
    /// insert, delete) to `text`; otherwise leaves it as written.
    fn mutate(u: &mut Unstructured<'_>, text: String) -> arbitrary::Result<Vec<u8>> {
        let mut data = text.into_bytes();
        let edits = match u8::arbitrary(u)? {
            n if n % 4 == 0 => 1 + n / 4 % 4,
            _ => 0,
        };
        for _ in 0..edits {
            let at = usize::from(u16::arbitrary(u)?) % (data.len() + 1);
            let byte = u8::arbitrary(u)?;
            match u8::arbitrary(u)? % 4 {
                0 if at < data.len() => data[at] ^= byte,
                1 if at < data.len() => data[at] = byte,
                3 if at < data.len() => {
                    data.remove(at);
                }
                _ => data.insert(at, byte),
            }
        }
        Ok(data)
    }

    // -- plan_parse ---------------------------------------------------------

    /// A folder of empty trace files for the plans to name: `a.swf`,
    /// `b.swf`, `c.swf.gz` and `sub/d.swf` (parsing a plan only checks
    /// that its traces are files).
    fn traces_dir() -> &'static Path {
        static DIR: OnceLock<PathBuf> = OnceLock::new();
        DIR.get_or_init(|| {
            let dir = std::env::temp_dir().join("backfill-fuzz-plan-traces");
            std::fs::create_dir_all(dir.join("sub")).expect("create the traces folder");
            for name in ["a.swf", "b.swf", "c.swf.gz", "sub/d.swf"] {
                std::fs::write(dir.join(name), "").expect("write a trace file");
            }
            dir
        })
    }

    /// Whether `text` could name a path outside the traces folder (a
    /// string starting with `/`, `..`, or an escape that could spell
    /// either): such plans are not parsed, so the target never globs the
    /// whole file system.
    fn leaves_the_folder(text: &[u8]) -> bool {
        text.windows(2)
            .any(|w| w == b".." || w == b"\\u" || w == b"\\U")
            || text.windows(2).any(|w| {
                w[1] == b'/' && !(w[0].is_ascii_alphanumeric() || b"_-.*?]".contains(&w[0]))
            })
            || text.first() == Some(&b'/')
    }

    /// A policy entry: a name, or a table with a name and options.
    fn policy_entry(u: &mut Unstructured<'_>) -> arbitrary::Result<String> {
        let mut names: Vec<&str> = Policy::ALL.iter().map(|p| p.name()).collect();
        names.extend(["no-such-policy", ""]);
        let name = names[usize::from(u8::arbitrary(u)?) % names.len()];
        if bool::arbitrary(u)? {
            return Ok(format!("{name:?}"));
        }
        let mut fields = vec![format!("name = {name:?}")];
        if u8::arbitrary(u)? % 8 == 0 {
            fields.clear();
        }
        for _ in 0..u8::arbitrary(u)? % 3 {
            let key = pick(
                u,
                &[
                    "threshold",
                    "thresholds",
                    "threshold_from",
                    "scale",
                    "well_estimated_only",
                    "nodes",
                    "iterations",
                    "no_compression",
                    "license_weight",
                    "colour",
                ],
            )?;
            let value = match u8::arbitrary(u)? % 6 {
                0 => int(u)?,
                1 => float(u)?,
                2 => pick(u, &["true", "false"])?.to_owned(),
                3 => pick(u, &["\"conservative\"", "\"easy\"", "\"\""])?.to_owned(),
                _ => format!("[{}]", some(u, 5, float)?.join(", ")),
            };
            fields.push(format!("{key} = {value}"));
        }
        Ok(format!("{{ {} }}", fields.join(", ")))
    }

    /// One `[[experiment]]` table.
    fn experiment(out: &mut String, u: &mut Unstructured<'_>) -> arbitrary::Result<()> {
        out.push_str("\n[[experiment]]\n");
        list_key(out, u, "traces", 3, |u| {
            Ok(format!(
                "{:?}",
                pick(
                    u,
                    &[
                        "a.swf",
                        "b.swf",
                        "c.swf.gz",
                        "sub/d.swf",
                        "*.swf",
                        "*",
                        "[ab].swf",
                        "sub/*",
                        "missing.swf",
                        "",
                        "[",
                        "**/*.swf",
                        "?.swf"
                    ]
                )?
            ))
        })?;
        list_key(out, u, "builtin", 2, |u| {
            let mut fields = Vec::new();
            if bool::arbitrary(u)? {
                fields.push(format!("jobs = {}", int(u)?));
            }
            if bool::arbitrary(u)? {
                fields.push(format!("seed = {}", int(u)?));
            }
            Ok(format!("{{ {} }}", fields.join(", ")))
        })?;
        if u8::arbitrary(u)? % 4 == 0 {
            list_key(out, u, "farms", 2, |u| {
                let mut fields = Vec::new();
                if bool::arbitrary(u)? {
                    fields.push(format!("jobs = {}", int(u)?));
                }
                if bool::arbitrary(u)? {
                    fields.push(format!("seeds = [{}]", some(u, 2, int)?.join(", ")));
                }
                if bool::arbitrary(u)? {
                    fields.push(format!(
                        "mean_interarrivals = [{}]",
                        some(u, 2, float)?.join(", ")
                    ));
                }
                if bool::arbitrary(u)? {
                    let ratios = some(u, 2, |u| Ok(format!("[{}]", some(u, 3, int)?.join(", "))))?;
                    fields.push(format!("license_ratios = [{}]", ratios.join(", ")));
                }
                Ok(format!("{{ {} }}", fields.join(", ")))
            })?;
        }
        list_key(out, u, "windows", 2, |u| {
            let mut fields = Vec::new();
            for key in ["skip", "first", "procs"] {
                if bool::arbitrary(u)? {
                    fields.push(format!("{key} = {}", int(u)?));
                }
            }
            Ok(format!("{{ {} }}", fields.join(", ")))
        })?;
        list_key(out, u, "estimates", 2, |u| {
            Ok(format!(
                "{:?}",
                pick(u, &["user", "exact", "user", "guess"])?
            ))
        })?;
        list_key(out, u, "loads", 2, float)?;
        if u8::arbitrary(u)? % 16 != 0 {
            let policies = some(u, 3, policy_entry)?;
            let _ = writeln!(out, "policies = [{}]", policies.join(", "));
        }
        list_key(out, u, "seeds", 2, int)?;
        for key in ["short_max", "narrow_max"] {
            if u8::arbitrary(u)? % 4 == 0 {
                let _ = writeln!(out, "{key} = {}", int(u)?);
            }
        }
        if u8::arbitrary(u)? % 16 == 0 {
            out.push_str("unknown_key = 1\n");
        }
        Ok(())
    }

    /// A plan file built from the keys the format knows (values mostly in
    /// range, sometimes not), then mutated; or, when the first byte is odd,
    /// the bytes themselves.
    fn plan_text(data: &[u8]) -> Vec<u8> {
        let mut u = Unstructured::new(data.get(1..).unwrap_or_default());
        let mut structured = || -> arbitrary::Result<Vec<u8>> {
            let u = &mut u;
            let mut out = String::new();
            list_key(&mut out, u, "metrics", 4, |u| {
                Ok(format!(
                    "{:?}",
                    pick(
                        u,
                        &[
                            "jobs",
                            "mean_wait",
                            "mean_bounded_slowdown",
                            "utilisation",
                            "mean_wait.SN",
                            "cons_rs.iterations",
                            "farm.utilisation",
                            "farm.missed_deadlines",
                            "no_such_metric",
                        ]
                    )?
                ))
            })?;
            if u8::arbitrary(u)? % 4 == 0 {
                let _ = writeln!(out, "latency = {}", bool::arbitrary(u)?);
            }
            for _ in 0..u8::arbitrary(u)? % 4 {
                experiment(&mut out, u)?;
            }
            mutate(u, out)
        };
        match data.first() {
            Some(mode) if mode % 2 == 0 => structured().unwrap_or_default(),
            _ => data.get(1..).unwrap_or_default().to_vec(),
        }
    }

    /// The checks on an accepted plan: cells numbered in order, ids
    /// unique and each the hash of its cell's parameters, parameters that
    /// read back (as a result file holds them) to the same parameters and
    /// id, and the same text expanding to the same cells and fingerprint.
    fn accepted_plan(plan: &Plan, text: &str) {
        assert!(!plan.cells.is_empty(), "a plan without cells");
        assert_eq!(plan.fingerprint.len(), 16, "{}", plan.fingerprint);
        let mut ids = HashSet::new();
        for (i, cell) in plan.cells.iter().enumerate() {
            assert_eq!(cell.index, i);
            assert!(ids.insert(cell.id.clone()), "id {} twice", cell.id);
            let parameters = cell.spec.parameters();
            assert_eq!(cell.id, cell_id(&parameters), "cell {i}");
            let json = serde_json::to_string(&parameters).expect("parameters as JSON");
            let back: Parameters = serde_json::from_str(&json)
                .unwrap_or_else(|e| panic!("cell {i}: {json} does not read back: {e}"));
            assert_eq!(back, parameters, "cell {i}: {json}");
            assert_eq!(cell_id(&back), cell.id, "cell {i}: {json}");
            assert_eq!(
                parameters.canonical().lines().count(),
                11,
                "cell {i}: {}",
                parameters.canonical()
            );
        }
        let again = parse("another-name.toml", text, traces_dir())
            .unwrap_or_else(|e| panic!("accepted once, refused the second time: {e}"));
        assert_eq!(again.cells, plan.cells, "two expansions of one text differ");
        assert_eq!(again.fingerprint, plan.fingerprint);
    }

    /// Fuzz body: a plan file (raw or built from the format's keys) into
    /// `plan::format::parse`; refusals must name the file (and a line in
    /// it) on one line, accepted plans must expand deterministically.
    pub fn plan_parse(data: &[u8]) {
        let bytes = plan_text(data);
        if leaves_the_folder(&bytes) {
            return;
        }
        let text = String::from_utf8_lossy(&bytes);
        match parse(PLAN_FILE, &text, traces_dir()) {
            Ok(plan) => accepted_plan(&plan, &text),
            Err(e) => {
                refusal(&e, PLAN_FILE, text.as_bytes());
                let again = parse(PLAN_FILE, &text, traces_dir()).err();
                assert_eq!(again.as_ref(), Some(&e), "two parses of one text differ");
            }
        }
    }

    // -- farm_parse ---------------------------------------------------------

    /// Names for machines and license pools, some refused, some that need
    /// quoting in TOML or CSV.
    const NAMES: [&str; 14] = [
        "m0", "m1", "m2", "matlab", "abaqus", "x", "", "a b", "a,b", "q\"x", "#c", "é", "tab\t",
        "m0",
    ];

    /// A farm description built from the format's keys, longhand or not.
    fn farm_text(u: &mut Unstructured<'_>) -> arbitrary::Result<String> {
        let mut out = String::new();
        let longhand = bool::arbitrary(u)?;
        let machines = some(u, 4, |u| {
            let mut fields = Vec::new();
            if bool::arbitrary(u)? {
                fields.push(format!("name = {:?}", pick(u, &NAMES)?));
            }
            if u8::arbitrary(u)? % 8 != 0 {
                fields.push(format!("cpus = {}", int(u)?));
            }
            if bool::arbitrary(u)? {
                fields.push(format!("speed = {}", float(u)?));
            }
            Ok(fields)
        })?;
        let licenses = some(u, 3, |u| {
            let mut fields = vec![format!("name = {:?}", pick(u, &NAMES)?)];
            if u8::arbitrary(u)? % 8 != 0 {
                fields.push(format!("copies = {}", int(u)?));
            }
            for key in ["machines", "except"] {
                if u8::arbitrary(u)? % 3 == 0 {
                    let names = some(u, 3, |u| Ok(format!("{:?}", pick(u, &NAMES)?)))?;
                    fields.push(format!("{key} = [{}]", names.join(", ")));
                }
            }
            Ok(fields)
        })?;
        for (key, entries) in [("machine", machines), ("license", licenses)] {
            if longhand {
                for fields in entries {
                    let _ = writeln!(out, "[[{key}]]\n{}", fields.join("\n"));
                }
            } else {
                let tables: Vec<String> = entries
                    .iter()
                    .map(|f| format!("{{ {} }}", f.join(", ")))
                    .collect();
                let _ = writeln!(out, "{key} = [\n  {}\n]", tables.join(",\n  "));
            }
        }
        Ok(out)
    }

    /// A job list built from the format's columns (some left out, some
    /// unknown, in any order).
    fn jobs_text(u: &mut Unstructured<'_>) -> arbitrary::Result<String> {
        const COLUMNS: [&str; 8] = [
            "id", "submit", "cpus", "estimate", "runtime", "deadline", "licenses", "colour",
        ];
        let mut header: Vec<&str> = COLUMNS[..7].to_vec();
        for _ in 0..u8::arbitrary(u)? % 4 {
            let i = usize::from(u8::arbitrary(u)?) % header.len();
            match u8::arbitrary(u)? % 3 {
                0 => {
                    header.remove(i);
                }
                1 => header.swap(i, 0),
                _ => header.insert(i, pick(u, &COLUMNS)?),
            }
            if header.is_empty() {
                break;
            }
        }
        let mut out = String::new();
        if bool::arbitrary(u)? {
            out.push_str("# a comment\n");
        }
        let _ = writeln!(out, "{}", header.join(","));
        for _ in 0..u8::arbitrary(u)? % 6 {
            let mut fields = Vec::new();
            for &column in &header {
                let value = match (column, u8::arbitrary(u)? % 8) {
                    (_, 0) => String::new(),
                    ("licenses", _) => {
                        let names = some(u, 3, |u| pick(u, &NAMES))?.join(" ");
                        if bool::arbitrary(u)? {
                            // Quoted as CSV quotes, for names with commas.
                            format!("\"{}\"", names.replace('"', "\"\""))
                        } else {
                            names
                        }
                    }
                    (_, 1) => pick(u, &["-1", "x", "1.5", " 7 ", "4294967296"])?.to_owned(),
                    _ => u16::arbitrary(u)?.to_string(),
                };
                fields.push(value);
            }
            if u8::arbitrary(u)? % 16 == 0 {
                fields.pop();
            }
            let _ = writeln!(out, "{}", fields.join(","));
        }
        Ok(out)
    }

    /// The checks on an accepted farm: the limits and rules of the module
    /// docs, and written out by `farm_toml`, it reads back the same.
    fn accepted_farm(farm: &Farm) {
        assert!((1..=128).contains(&farm.machines.len()));
        assert!(farm.licenses.len() <= 32);
        let mut names = HashSet::new();
        for m in &farm.machines {
            assert!(!m.name.is_empty() && !m.name.contains(char::is_whitespace));
            assert!(names.insert(m.name.as_str()), "machine {} twice", m.name);
            assert!(m.cpus >= 1 && (1..=1_000_000_000).contains(&m.speed));
        }
        let mut names = HashSet::new();
        for l in &farm.licenses {
            assert!(!l.name.is_empty() && !l.name.contains(char::is_whitespace));
            assert!(names.insert(l.name.as_str()), "license {} twice", l.name);
            assert!(l.machines.windows(2).all(|w| w[0] < w[1]), "{l:?}");
            assert!(l.machines.iter().all(|&m| m < farm.machines.len()), "{l:?}");
        }
        let written = farm_toml(farm, "written back");
        match parse_farm(FARM_FILE, &written) {
            Ok(back) => assert_eq!(&back, farm, "{written}"),
            Err(e) => panic!("{written}\ndoes not read back: {e}"),
        }
    }

    /// Fuzz body: a farm description and a job list (raw, or built from
    /// the formats' keys and columns, then mutated) into `parse_farm` and
    /// `parse_jobs`; refusals name the file (and a line in it), accepted
    /// farms and job lists keep the documented rules and read back the
    /// same after `farm_toml` / `jobs_csv`.
    pub fn farm_parse(data: &[u8]) {
        let mut u = Unstructured::new(data);
        let Ok(mode) = u8::arbitrary(&mut u) else {
            return;
        };
        let (farm, jobs) = if mode % 2 == 0 {
            let texts = (|| -> arbitrary::Result<(Vec<u8>, Vec<u8>)> {
                let farm = farm_text(&mut u)?;
                let jobs = jobs_text(&mut u)?;
                Ok((mutate(&mut u, farm)?, mutate(&mut u, jobs)?))
            })();
            let Ok(texts) = texts else {
                return;
            };
            texts
        } else {
            // Raw: the farm text up to the first NUL, the job list after it.
            let rest = u.take_rest();
            let cut = rest.iter().position(|&b| b == 0).unwrap_or(rest.len());
            (
                rest[..cut].to_vec(),
                rest.get(cut + 1..).unwrap_or_default().to_vec(),
            )
        };
        let farm_text = String::from_utf8_lossy(&farm);
        let farm = match parse_farm(FARM_FILE, &farm_text) {
            Ok(farm) => farm,
            Err(e) => {
                farm_refusal(&e, FARM_FILE, farm_text.as_bytes());
                return;
            }
        };
        accepted_farm(&farm);
        match parse_jobs(JOBS_FILE, &jobs, &farm) {
            Ok(list) => {
                let mut ids = HashSet::new();
                for j in &list {
                    assert!(ids.insert(j.id), "job {} twice", j.id);
                    assert!(j.cpus >= 1 && j.estimate >= 1, "{j:?}");
                    assert!(j.deadline.is_none_or(|d| d >= j.submit), "{j:?}");
                    assert!(j.licenses.windows(2).all(|w| w[0] < w[1]), "{j:?}");
                    assert!(j.licenses.iter().all(|&l| l < farm.licenses.len()), "{j:?}");
                }
                let written = jobs_csv(&farm, &list, "written back");
                match parse_jobs(JOBS_FILE, written.as_bytes(), &farm) {
                    Ok(back) => assert_eq!(back, list, "{written}"),
                    Err(e) => panic!("{written}\ndoes not read back: {e}"),
                }
            }
            Err(e) => farm_refusal(&e, JOBS_FILE, &jobs),
        }
    }
}
