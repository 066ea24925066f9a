//! Pending reasons, start kinds and expected starts (`docs/design.md`,
//! "Pending reasons" and "Expected starts") on the random small workloads
//! of `reference`:
//!
//! * every pass's reasons and start kinds are the naive reference's
//!   ([`backfill_tests::naive::simulate_explained`]), every policy it models
//!   (CONS+RS also on longer jobs, where its moves are common);
//! * every policy (DPSA and the option variants too): each pass reports
//!   exactly one reason for every job it leaves waiting, in queue order,
//!   and they are what [`Kernel::waiting`] says right after the pass;
//! * the promises: under the Conservative family a job never starts later
//!   than an expected start reported for it (CONS+RS: than the first), and
//!   with exact estimates Conservative's jobs start at every expected start
//!   reported; under EASY, DPSA, BF_FCFS and BF_UNMOD the head starts no
//!   later than any shadow time reported for it while it stays the head.

use crate::reference::{
    listing, policies, scaled_workload, workload, Workload, B, Q, R, RS_POLICIES,
};
use backfill_core::{
    Call, Cluster, ExpectedStart, Job, JobId, JobRecord, Kernel, Observer, Policy, SimJob,
    Simulator, Sink, Slot, StartKind, Time, Waiting,
};
use backfill_tests::naive::{models, simulate_explained, PassLog};
use backfill_tests::proptest_cases;
use proptest::prelude::*;
use proptest::strategy::ValueTree;
use std::collections::HashMap;

/// A replay sink that asks for reasons and keeps every pass's.
#[derive(Default)]
struct Explained {
    passes: Vec<PassLog>,
    current: PassLog,
    finished: Vec<JobRecord>,
}

impl Sink for Explained {
    fn finished(&mut self, record: &JobRecord) {
        self.finished.push(*record);
    }
    fn wants_reasons(&self) -> bool {
        true
    }
    fn waiting(&mut self, now: Time, waiting: &Waiting) {
        self.current.at = now;
        self.current
            .waiting
            .push((waiting.job.id, waiting.reason, waiting.expected));
    }
    fn start_kind(&mut self, now: Time, job: &Job, kind: StartKind) {
        self.current.at = now;
        self.current.starts.push((job.id, kind));
    }
    fn after_call(&mut self, call: Call) {
        if call == Call::Schedule {
            self.passes.push(std::mem::take(&mut self.current));
        }
    }
}

/// The passes that started or left a job (an empty pass has nothing to
/// compare, and the two simulators may run a different number of them).
fn eventful(passes: Vec<PassLog>) -> Vec<PassLog> {
    passes
        .into_iter()
        .filter(|p| !p.starts.is_empty() || !p.waiting.is_empty())
        .collect()
}

/// `w` replayed under `policy` with a sink that wants reasons.
fn explained(w: &Workload, policy: Policy) -> Explained {
    let cluster = Cluster::<1, 0>::single(w.procs).expect("a machine");
    let mut sim: Simulator<Q, R, B> = Simulator::new(Kernel::new(cluster, policy));
    let mut sink = Explained::default();
    sim.run(w.jobs.iter().copied(), &mut sink)
        .expect("the replay runs");
    sink
}

/// The kernel's passes against the reference's; `Err` names the first
/// pass that differs.
fn agree(w: &Workload, policy: Policy) -> Result<(), String> {
    let ours = eventful(explained(w, policy).passes);
    let (_, theirs) = simulate_explained(w.procs, policy, &w.jobs);
    let theirs = eventful(theirs);
    for (i, (a, b)) in ours.iter().zip(&theirs).enumerate() {
        if a != b {
            return Err(format!(
                "{policy:?} on {} processors, pass {i}:\nkernel    {a:?}\nreference {b:?}\njobs: [{}]",
                w.procs,
                listing(&w.jobs)
            ));
        }
    }
    if ours.len() != theirs.len() {
        return Err(format!(
            "{policy:?}: {} passes in the kernel, {} in the reference; jobs: [{}]",
            ours.len(),
            theirs.len(),
            listing(&w.jobs)
        ));
    }
    Ok(())
}

/// Records what a pass reports.
#[derive(Default)]
struct Log {
    waiting: Vec<Waiting>,
    started: Vec<(Job, Slot)>,
    kinds: Vec<(JobId, StartKind)>,
}

impl Observer for Log {
    fn started(&mut self, job: &Job, slot: Slot) {
        self.started.push((*job, slot));
    }
    fn wants_reasons(&self) -> bool {
        true
    }
    fn waiting(&mut self, waiting: &Waiting) {
        self.waiting.push(*waiting);
    }
    fn start_kind(&mut self, job: &Job, kind: StartKind) {
        self.kinds.push((job.id, kind));
    }
}

/// Drives a kernel under `policy` through `jobs` as the replay loop does
/// (completions at their actual ends, arrivals, one pass; again at the
/// next event or wakeup) and checks every pass: one reason per waiting
/// job, in queue order, as the query gives them, and one start kind per
/// start.
fn every_pass_explains_every_waiting_job(w: &Workload, policy: Policy) -> Result<(), String> {
    let cluster = Cluster::<1, 0>::single(w.procs).expect("a machine");
    let mut k: Kernel<Q, R, B> = Kernel::new(cluster, policy);
    let mut running: Vec<(Time, JobId)> = Vec::new();
    let mut next = 0;
    loop {
        let arrival = w.jobs.get(next).map(|j| j.job.submit);
        let end = running.iter().map(|r| r.0).min();
        let Some(t) = [arrival, end, k.next_wakeup()].into_iter().flatten().min() else {
            break;
        };
        running.sort_unstable();
        while let Some(&(end, id)) = running.first().filter(|r| r.0 <= t) {
            k.complete(end.max(k.now()), id)
                .map_err(|e| e.to_string())?;
            running.remove(0);
        }
        while let Some(j) = w.jobs.get(next).filter(|j| j.job.submit <= t) {
            let mut job = j.job;
            job.tag = j.runtime;
            // Refused jobs (too wide) never wait.
            let _ = k.submit(t, job, &mut ());
            next += 1;
        }
        let mut log = Log::default();
        k.schedule(t, &mut log).map_err(|e| e.to_string())?;
        for (job, slot) in &log.started {
            running.push((slot.start + job.tag.min(slot.duration), job.id));
        }
        let queued: Vec<JobId> = k.queued().iter().map(|q| q.job.id).collect();
        let reported: Vec<JobId> = log.waiting.iter().map(|w| w.job.id).collect();
        let positions: Vec<usize> = log.waiting.iter().map(|w| w.position).collect();
        let query: Vec<Waiting> = k.waiting().collect();
        let started: Vec<JobId> = log.started.iter().map(|s| s.0.id).collect();
        let kinds: Vec<JobId> = log.kinds.iter().map(|s| s.0).collect();
        if reported != queued
            || positions != (0..queued.len()).collect::<Vec<_>>()
            || query != log.waiting
            || started != kinds
        {
            return Err(format!(
                "{policy:?} at {t}: queue {queued:?}\npass  {:?}\nquery {query:?}\nstarts {started:?} kinds {:?}\njobs: [{}]",
                log.waiting,
                log.kinds,
                listing(&w.jobs)
            ));
        }
    }
    if !k.queued().is_empty() || !k.running().is_empty() {
        return Err(format!("{policy:?}: jobs left in the kernel"));
    }
    Ok(())
}

/// Every job's expected starts, in the order reported, with whether each
/// was reported while the job was the head (positions 0).
fn expected_starts(passes: &[PassLog]) -> HashMap<JobId, Vec<(ExpectedStart, bool)>> {
    let mut all: HashMap<JobId, Vec<(ExpectedStart, bool)>> = HashMap::new();
    for pass in passes {
        for (position, (id, _, expected)) in pass.waiting.iter().enumerate() {
            all.entry(*id).or_default().push((*expected, position == 0));
        }
    }
    all
}

/// The promises of "Expected starts" for `policy` on `w`.
fn promises_hold(w: &Workload, policy: Policy, exact: bool) -> Result<(), String> {
    let sink = explained(w, policy);
    let expected = expected_starts(&sink.passes);
    for record in &sink.finished {
        let id = record.job.id;
        let start = record.slot.start;
        let reported = expected.get(&id).map_or(&[][..], Vec::as_slice);
        let fail = |what: &str| {
            Err(format!(
                "{policy:?}: job {id} started at {start}, {what}; reported {reported:?}; jobs: [{}]",
                listing(&w.jobs)
            ))
        };
        if policy.reservation_is_guarantee() {
            let times: Vec<Time> = reported.iter().filter_map(|e| e.0.time()).collect();
            let bound = if policy.reservations_may_move_later() {
                times.first().copied()
            } else {
                times.iter().copied().min()
            };
            if bound.is_some_and(|b| start > b) {
                return fail("later than an expected start");
            }
            let exactly = matches!(
                policy,
                Policy::Conservative
                    | Policy::ConservativeNoCompression
                    | Policy::ConservativeRebuild
                    | Policy::ConsRs(_)
            );
            if exact && exactly && times.iter().any(|&t| t != start) {
                return fail("not at every expected start (exact estimates)");
            }
        }
        if policy.head_guaranteed() {
            // The shadow times reported since the job last became the head.
            let mut bound: Option<Time> = None;
            for (e, head) in reported {
                match (e, head) {
                    (ExpectedStart::Shadow(slot), true) => {
                        bound = Some(bound.map_or(slot.start, |b| b.min(slot.start)));
                    }
                    (_, false) => bound = None,
                    _ => {}
                }
            }
            if bound.is_some_and(|b| start > b) {
                return fail("later than a shadow time reported while it was the head");
            }
        }
    }
    Ok(())
}

/// Every policy the tests cover: the reference's, DPSA's three, and the
/// option variants.
fn every_policy() -> Vec<Policy> {
    let mut all = policies();
    all.extend(Policy::ALL.into_iter().filter(|&p| !models(p)));
    all
}

/// `w` with every run time at least its estimate (killed at it): the plan
/// is exact.
fn exact(w: &Workload) -> Workload {
    let jobs = w
        .jobs
        .iter()
        .map(|j| SimJob {
            runtime: j.runtime.max(j.job.estimate),
            ..*j
        })
        .collect();
    Workload {
        procs: w.procs,
        jobs,
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(proptest_cases(256)))]

    /// Every policy the reference models: each pass's start kinds and
    /// reasons are the reference's.
    #[test]
    fn reasons_match_the_naive_reference(w in workload()) {
        for policy in policies() {
            agree(&w, policy).map_err(TestCaseError::fail)?;
        }
    }

    /// CONS+RS on the longer jobs where its moves are common: its starts
    /// moved up by the random search are the reference's.
    #[test]
    fn cons_rs_reasons_match_the_naive_reference(w in scaled_workload(7)) {
        for policy in RS_POLICIES {
            agree(&w, policy).map_err(TestCaseError::fail)?;
        }
    }

    /// Every policy: one reason per waiting job after every pass, equal to
    /// the query's.
    #[test]
    fn every_waiting_job_has_exactly_one_reason(w in workload()) {
        for policy in every_policy() {
            every_pass_explains_every_waiting_job(&w, policy).map_err(TestCaseError::fail)?;
        }
    }

    /// Expected starts bound actual starts, with user estimates and with
    /// exact ones.
    #[test]
    fn expected_starts_keep_their_promises(w in workload()) {
        for policy in every_policy() {
            for (workload, is_exact) in [(w.clone(), false), (exact(&w), true)] {
                promises_hold(&workload, policy, is_exact).map_err(TestCaseError::fail)?;
            }
        }
    }
}

/// The CONS+RS comparison is not vacuous: over 100 generated workloads
/// some jobs start moved up by the random search.
#[test]
fn the_random_search_moves_some_starts_up() {
    let mut runner = proptest::test_runner::TestRunner::deterministic();
    let strategy = scaled_workload(7);
    let mut moved = 0;
    for _ in 0..100 {
        let w = strategy
            .new_tree(&mut runner)
            .expect("a workload")
            .current();
        let sink = explained(&w, RS_POLICIES[0]);
        moved += sink
            .passes
            .iter()
            .flat_map(|p| &p.starts)
            .filter(|s| s.1 == StartKind::RandomSearch)
            .count();
    }
    assert!(moved > 0, "no start moved up by the random search");
}
