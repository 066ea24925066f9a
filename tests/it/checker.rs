//! The checker itself: it passes good logs, fails each kind of broken log
//! with the exact [`Violation`], and is fast on 300,000-job logs.
//!
//! Hand-written logs are tables of cases: [`good_logs`] (each passes under
//! the policies it names) and [`broken_logs`] (each fails with one exact
//! violation, of a rule and at a time the row states).

use backfill_core::policy::{Heuristics, Threshold};
use backfill_core::{
    Cluster, JobId, KernelError, LicensePool, LicenseSet, Machine, MachineSet, Policy, SimJob,
    Slot, Time,
};
use backfill_tests::check::{
    check, check_deterministic, compare_replays, replay, run_replay, RunLog, Violation,
};
use backfill_tests::fixtures::{job, sims, AtSpeed, TestJob};
use std::time::Instant;

/// Every hand-written log's cluster type: up to two machines and a license
/// pool (most logs use one machine and no pool).
type Farm = Cluster<2, 1>;

/// A hand-written log: jobs are added with where and when they ran.
#[derive(Clone)]
struct Log {
    cluster: Farm,
    input: Vec<SimJob>,
    run: RunLog,
}

/// Where and when a job of a [`Log`] ran: `at(100)` on machine 0,
/// `at(100).on(1)` on machine 1.
#[derive(Clone, Copy)]
struct Start {
    start: Time,
    machine: u8,
}

fn at(start: Time) -> Start {
    Start { start, machine: 0 }
}

impl Start {
    fn on(self, machine: u8) -> Self {
        Self { machine, ..self }
    }
}

/// An empty log on one machine of `cpus`.
fn one(cpus: u32) -> Log {
    on(Cluster::single(cpus).unwrap())
}

/// An empty log on `cluster`.
fn on(cluster: Farm) -> Log {
    Log {
        cluster,
        input: Vec::new(),
        run: RunLog::default(),
    }
}

impl Log {
    /// Job `j` submitted, and run from `at`, with the end the replay loop
    /// would give it.
    fn ran(mut self, j: TestJob, at: Start) -> Self {
        let input = j.sim();
        self.input.push(input);
        let m = self.cluster.machines()[usize::from(at.machine)];
        let duration = m.scale(input.job.estimate).unwrap();
        let run = m.scale(input.runtime).unwrap();
        let slot = Slot {
            start: at.start,
            machine: at.machine,
            duration,
        };
        let mut job = input.job;
        job.tag = input.runtime;
        self.run.started.push((job.id, slot));
        self.run.finished.push(backfill_core::JobRecord {
            job,
            runtime: input.runtime,
            slot,
            end: at.start + run.min(duration),
            killed: run > duration,
            guarantee: None,
        });
        self
    }

    /// A reservation event `(now, id, start)` on machine 0, with the job's
    /// duration; the first one of a job becomes its record's guarantee.
    fn reserve(mut self, now: Time, id: JobId, start: Time) -> Self {
        let record = self.record(id);
        let slot = Slot {
            start,
            ..record.slot
        };
        if record.guarantee.is_none() {
            record.guarantee = Some(start);
        }
        self.run.reservations.push((now, id, slot));
        self
    }

    fn record(&mut self, id: JobId) -> &mut backfill_core::JobRecord {
        self.run
            .finished
            .iter_mut()
            .find(|r| r.job.id == id)
            .unwrap()
    }

    /// Sorts the start events by time, as a replay logs them.
    fn sorted(mut self) -> Self {
        self.run.started.sort_by_key(|&(id, s)| (s.start, id));
        self
    }

    /// The log after `tamper` changed it.
    fn with(mut self, tamper: impl FnOnce(&mut Self)) -> Self {
        tamper(&mut self);
        self
    }

    fn check(&self, policy: Policy) -> Result<(), Violation> {
        check(&self.cluster, policy, &self.input, &self.run)
    }
}

/// Job 1 holds all 10 processors over [0, 100); job 2 (all 10, estimate
/// 50), submitted at `submit`, starts at 100.
fn behind_a_full_machine(submit: Time) -> Log {
    one(10)
        .ran(job(1).procs(10).estimate(100), at(0))
        .ran(job(2).submit(submit).procs(10).estimate(50), at(100))
        .sorted()
}

/// Job 1 holds 6 of 10 processors over [0, 100); job 2 (8 processors,
/// estimate 50), submitted at 1, starts at `start`.
fn behind_six_of_ten(start: Time) -> Log {
    one(10)
        .ran(job(1).procs(6).estimate(100), at(0))
        .ran(job(2).submit(1).procs(8).estimate(50), at(start))
        .sorted()
}

/// Two 1-processor, 10 s jobs on 4 processors: job 1 at 0, job 2 at its
/// submission, 3.
fn two_small_jobs() -> Log {
    one(4)
        .ran(job(1).estimate(10), at(0))
        .ran(job(2).submit(3).estimate(10), at(3))
        .sorted()
}

/// One 1-processor, 10 s job on 4 processors, run at 0.
fn one_small_job() -> Log {
    one(4).ran(job(1).estimate(10), at(0))
}

/// Job 1 (1 processor, estimate 100, really `runtime`) on 4 processors,
/// run at 0.
fn one_job_running(runtime: u32) -> Log {
    one(4).ran(job(1).estimate(100).runs(runtime), at(0))
}

/// Two machines of `cpus` processors and one license pool of `copies`
/// usable on the machines of `machines`.
fn two_machines(cpus: [u32; 2], machines: MachineSet, copies: u32) -> Farm {
    Cluster::new(
        &[Machine::new(cpus[0]), Machine::new(cpus[1])],
        &[LicensePool {
            count: copies,
            machines,
        }],
    )
    .unwrap()
}

/// On a double-speed machine a 100 s estimate holds the slot for 50 s:
/// job 1 (1 processor, estimate 100) run at 0 there.
fn on_a_double_speed_machine() -> Log {
    let fast = Machine::new(4).at_speed(2000);
    on(Cluster::new(&[fast], &[]).unwrap()).ran(job(1).estimate(100), at(0))
}

/// Job `j`, rejected at submission with `error`, on 4 processors.
fn rejected(j: TestJob, error: KernelError) -> Log {
    let mut log = one(4);
    log.input.push(j.sim());
    log.run.rejected.push((j.job(), error));
    log
}

/// Policies that do not keep reservations (the logs without reservation
/// events are good under them).
fn without_kept_reservations() -> Vec<Policy> {
    Policy::ALL
        .into_iter()
        .filter(|p| !p.keeps_reservations())
        .collect()
}

/// A log the checker must pass under each of `policies`.
struct Good {
    /// What the log shows.
    name: &'static str,
    log: Log,
    policies: Vec<Policy>,
}

fn good_logs() -> Vec<Good> {
    // 1: 6 procs [0, 100); 2: 4 procs [5, 55) killed at its estimate;
    // 3: 10 procs [100, 150).
    let three = one(10)
        .ran(job(1).procs(6).estimate(100), at(0))
        .ran(job(2).submit(5).procs(4).estimate(50).runs(80), at(5))
        .ran(job(3).submit(7).procs(10).estimate(50), at(100))
        .sorted();
    let fast = on_a_double_speed_machine();
    assert_eq!(fast.run.finished[0].end, 50);
    // Ran exactly its estimate: not killed; one second longer: killed at
    // its estimate.
    assert!(!one_job_running(100).run.finished[0].killed);
    assert!(one_job_running(101).run.finished[0].killed);
    vec![
        Good {
            name: "jobs without reservations",
            log: three.clone(),
            policies: without_kept_reservations(),
        },
        Good {
            name: "every job reserved on arrival",
            log: three
                .clone()
                .reserve(0, 1, 0)
                .reserve(5, 2, 5)
                .reserve(7, 3, 100),
            policies: vec![Policy::Conservative],
        },
        // Threshold 2.0: job 3 (estimate 50) is promoted at 7 + 50.
        Good {
            name: "a promotion at the threshold",
            log: three.reserve(57, 3, 100),
            policies: vec![Policy::SELECTIVE_EXAMPLE],
        },
        // Threshold 2.0: job 2 (submitted 50, estimate 50) would be due at
        // 100, when it starts.
        Good {
            name: "a job that starts by its promotion instant needs no promotion",
            log: behind_a_full_machine(50),
            policies: vec![Policy::SELECTIVE_EXAMPLE],
        },
        Good {
            name: "[0, 100) and [100, 200) on all processors: half-open, no overlap",
            log: one(10)
                .ran(job(1).procs(10).estimate(100), at(0))
                .ran(job(2).procs(10).estimate(100), at(100)),
            policies: vec![Policy::Fcfs],
        },
        Good {
            name: "zero-length runs hold nothing",
            log: one(10)
                .ran(job(1).procs(10).estimate(100).runs(0), at(0))
                .ran(job(2).procs(10).estimate(100), at(0)),
            policies: vec![Policy::Fcfs],
        },
        Good {
            name: "a double-speed machine halves the slot",
            log: fast,
            policies: vec![Policy::Easy],
        },
        Good {
            name: "reservations that never move later",
            log: behind_a_full_machine(0).reserve(0, 1, 0).reserve(0, 2, 100),
            policies: vec![Policy::Conservative],
        },
        // SJF-EASY makes no promise to its head, nor BF_MOD (its
        // reservation moves between jobs by design), and their records
        // carry no guarantee.
        Good {
            name: "a reservation that moves later under a policy that promises nothing",
            log: behind_a_full_machine(0)
                .reserve(0, 1, 0)
                .reserve(0, 2, 100)
                .reserve(40, 2, 120)
                .with(|log| {
                    for record in &mut log.run.finished {
                        record.guarantee = None;
                    }
                }),
            policies: vec![Policy::SjfEasy, Policy::BfMod(Heuristics::DEFAULT)],
        },
        // The bound is the shadow time, not the best start: job 1 ending
        // early, at 40, does not make a start at 100 late.
        Good {
            name: "a head that starts by its shadow time",
            log: one(10)
                .ran(job(1).procs(6).estimate(100).runs(40), at(0))
                .ran(job(2).submit(1).procs(8).estimate(50), at(100))
                .sorted(),
            policies: vec![Policy::Easy],
        },
        Good {
            name: "a shorter arrival voids the SJF-EASY head's shadow time",
            log: shorter_arrival(110),
            policies: vec![Policy::SjfEasy],
        },
        Good {
            name: "a job that ran exactly its estimate, not killed",
            log: one_job_running(100),
            policies: vec![Policy::Easy],
        },
        Good {
            name: "a job killed at its estimate",
            log: one_job_running(101),
            policies: vec![Policy::Easy],
        },
        Good {
            name: "a rejection of a job wider than the machine (8 > 4 processors)",
            log: rejected(
                job(1).submit(5).procs(8).estimate(10),
                KernelError::Unrunnable(1),
            ),
            policies: vec![Policy::Easy],
        },
        Good {
            name: "a rejection of a job without processors",
            log: rejected(
                job(1).submit(5).procs(0).estimate(10),
                KernelError::InvalidJob(1),
            ),
            policies: vec![Policy::Easy],
        },
        Good {
            name: "EASY backfills past a waiting head",
            log: overtaken(),
            policies: vec![Policy::Easy],
        },
    ]
}

#[test]
fn good_logs_pass() {
    for case in good_logs() {
        assert!(!case.policies.is_empty(), "{}", case.name);
        for policy in case.policies {
            assert_eq!(case.log.check(policy), Ok(()), "{}: {policy}", case.name);
        }
    }
}

/// A log the checker must fail under `policy` with exactly `violation`.
struct Broken {
    /// What is broken.
    name: &'static str,
    log: Log,
    policy: Policy,
    violation: Violation,
    /// The violation's rule and time ([`Violation::rule`], [`Violation::at`]).
    rule_at: (u8, Time),
    /// Its message, where the case pins it.
    message: Option<&'static str>,
}

/// Job 1 (all 10 processors) runs [0, 100); job 2 (all 10, 50 s) is the
/// head from 1 and starts at `start`; job 3 (all 10, 10 s), shorter,
/// arrives at 50 and starts at 100. Under SJF-EASY job 3 sorts ahead of
/// job 2 and voids its shadow time (100); back at the head at 100 behind
/// job 3, job 2 is due by 110. Under EASY job 2 is due by 100.
fn shorter_arrival(start: Time) -> Log {
    one(10)
        .ran(job(1).procs(10).estimate(100), at(0))
        .ran(job(2).submit(1).procs(10).estimate(50), at(start))
        .ran(job(3).submit(50).procs(10).estimate(10), at(100))
        .sorted()
}

/// Job 3 (2 processors, 10 s, submitted at 2) starts at 90, before job 2
/// (8 processors, submitted at 1) starts at 100, beside job 1 (8 of 10
/// processors until 100).
fn overtaken() -> Log {
    one(10)
        .ran(job(1).procs(8).estimate(100), at(0))
        .ran(job(2).submit(1).procs(8).estimate(50), at(100))
        .ran(job(3).submit(2).procs(2).estimate(10), at(90))
        .sorted()
}

#[allow(clippy::too_many_lines)] // one row per broken log
fn broken_logs() -> Vec<Broken> {
    let one_license = two_machines([4, 4], MachineSet::ALL, 1);
    // Two copies usable on machine 0 (4 processors) only; machine 1 has 8.
    let license_on_m0 = two_machines([4, 8], MachineSet(0b01), 2);
    let moved_later = behind_a_full_machine(0)
        .reserve(0, 1, 0)
        .reserve(0, 2, 100)
        .reserve(40, 2, 120);
    // The checker finds the head itself: no reservation event is needed.
    // Job 2 (8 procs) becomes the head at t=1 behind job 1 (6 of 10
    // processors until 100), so its shadow time is 100.
    let head_late = behind_six_of_ten(130);
    assert!(head_late.run.reservations.is_empty());
    let head_started_late = Violation::HeadStartedLate {
        job: 2,
        at: 130,
        head_since: 1,
        shadow: 100,
    };
    let mut rows = vec![
        // ----- rule 1: capacity -----
        Broken {
            name: "an over-full machine",
            log: one(10)
                .ran(job(3).procs(6).estimate(100), at(100))
                .ran(job(7).procs(6).estimate(100), at(120))
                .sorted(),
            policy: Policy::Easy,
            violation: Violation::MachineOverfull {
                machine: 0,
                at: 120,
                used: 12,
                cpus: 10,
                jobs: vec![3, 7],
            },
            rule_at: (1, 120),
            message: Some(
                "capacity exceeded on machine 0 at t=120: 12 > 10 processors (jobs 3, 7)",
            ),
        },
        Broken {
            name: "an over-used license",
            log: on(one_license)
                .ran(job(1).estimate(100).licenses(LicenseSet(1)), at(0))
                .ran(job(2).estimate(100).licenses(LicenseSet(1)), at(50).on(1))
                .sorted(),
            policy: Policy::Easy,
            violation: Violation::LicenseOverused {
                pool: 0,
                at: 50,
                used: 2,
                count: 1,
                jobs: vec![1, 2],
            },
            rule_at: (1, 50),
            message: Some("license pool 0 over-used at t=50: 2 > 1 copies (jobs 1, 2)"),
        },
        Broken {
            name: "a licensed job on a machine where its license cannot run",
            log: on(license_on_m0.clone()).ran(
                job(1).procs(2).estimate(10).licenses(LicenseSet(1)),
                at(0).on(1),
            ),
            policy: Policy::Easy,
            violation: Violation::Ineligible {
                job: 1,
                machine: 1,
                at: 0,
            },
            rule_at: (1, 0),
            message: None,
        },
        Broken {
            name: "6 processors on a 4-processor machine",
            log: on(license_on_m0).ran(job(1).procs(6).estimate(10), at(0)),
            policy: Policy::Easy,
            violation: Violation::Ineligible {
                job: 1,
                machine: 0,
                at: 0,
            },
            rule_at: (1, 0),
            message: None,
        },
        // ----- rule 2: reservations -----
        Broken {
            name: "a reservation moved later under Conservative",
            log: moved_later.clone(),
            policy: Policy::Conservative,
            violation: Violation::ReservationMovedLater {
                job: 2,
                at: 40,
                from: 100,
                to: 120,
            },
            rule_at: (2, 40),
            message: Some("reservation of job 2 moved later at t=40: from t=100 to t=120"),
        },
        Broken {
            name: "a guarantee missed by the EASY head",
            log: behind_six_of_ten(130).reserve(1, 2, 100),
            policy: Policy::Easy,
            violation: Violation::GuaranteeMissed {
                job: 2,
                at: 130,
                guarantee: 100,
            },
            rule_at: (2, 130),
            message: Some("job 2 started at t=130, after its guaranteed start t=100"),
        },
        Broken {
            name: "a recorded guarantee that is not the first reservation",
            log: behind_six_of_ten(130)
                .reserve(1, 2, 100)
                .with(|log| log.record(2).guarantee = Some(140)),
            policy: Policy::Easy,
            violation: Violation::GuaranteeMismatch {
                job: 2,
                at: 130,
                recorded: Some(140),
                first_reservation: Some(100),
            },
            rule_at: (2, 130),
            message: None,
        },
        // A guarantee must be the job's first reservation ...
        Broken {
            name: "a recorded guarantee without any reservation",
            log: one(10)
                .ran(job(1).procs(6).estimate(100), at(50))
                .with(|log| log.record(1).guarantee = Some(40)),
            policy: Policy::SjfEasy,
            violation: Violation::GuaranteeMismatch {
                job: 1,
                at: 50,
                recorded: Some(40),
                first_reservation: None,
            },
            rule_at: (2, 50),
            message: None,
        },
        // ... and is kept under any policy.
        Broken {
            name: "a recorded guarantee missed under SJF-EASY",
            log: one(10)
                .ran(job(1).procs(6).estimate(100), at(50))
                .with(|log| log.record(1).guarantee = Some(40))
                .reserve(0, 1, 40),
            policy: Policy::SjfEasy,
            violation: Violation::GuaranteeMissed {
                job: 1,
                at: 50,
                guarantee: 40,
            },
            rule_at: (2, 50),
            message: None,
        },
        // A head that fits when it becomes the head must start at once.
        Broken {
            name: "a head that fits but waits",
            log: one(10)
                .ran(job(1).procs(6).estimate(100), at(0))
                .ran(job(2).submit(1).procs(4).estimate(50), at(2))
                .sorted(),
            policy: Policy::Easy,
            violation: Violation::HeadStartedLate {
                job: 2,
                at: 2,
                head_since: 1,
                shadow: 1,
            },
            rule_at: (2, 2),
            message: None,
        },
        Broken {
            name: "a shorter arrival does not void the EASY head's shadow time",
            log: shorter_arrival(110),
            policy: Policy::Easy,
            violation: Violation::HeadStartedLate {
                job: 2,
                at: 110,
                head_since: 1,
                shadow: 100,
            },
            rule_at: (2, 110),
            message: None,
        },
        Broken {
            name: "the SJF-EASY head, back at the head, started after its new shadow time",
            log: shorter_arrival(111),
            policy: Policy::SjfEasy,
            violation: Violation::HeadStartedLate {
                job: 2,
                at: 111,
                head_since: 100,
                shadow: 110,
            },
            rule_at: (2, 111),
            message: None,
        },
        Broken {
            name: "no reservation on arrival under Conservative",
            log: behind_a_full_machine(5).reserve(0, 1, 0),
            policy: Policy::Conservative,
            violation: Violation::MissingReservation { job: 2, at: 5 },
            rule_at: (2, 5),
            message: None,
        },
        Broken {
            name: "a reservation after arrival under Conservative",
            log: behind_a_full_machine(5)
                .reserve(0, 1, 0)
                .reserve(6, 2, 100),
            policy: Policy::Conservative,
            violation: Violation::MissingReservation { job: 2, at: 5 },
            rule_at: (2, 5),
            message: None,
        },
        // Started before its reservation: good for the guarantee, but
        // Conservative starts a job exactly at its (latest) reservation.
        Broken {
            name: "a start before the reservation under Conservative",
            log: behind_a_full_machine(5)
                .reserve(0, 1, 0)
                .reserve(5, 2, 110),
            policy: Policy::Conservative,
            violation: Violation::NotAtReservation {
                job: 2,
                at: 100,
                reserved: 110,
                reserved_machine: 0,
            },
            rule_at: (2, 100),
            message: None,
        },
        Broken {
            name: "a reservation in the past",
            log: behind_a_full_machine(5).reserve(0, 1, 0).reserve(5, 2, 4),
            policy: Policy::Conservative,
            violation: Violation::ReservationInPast {
                job: 2,
                at: 5,
                start: 4,
            },
            rule_at: (2, 5),
            message: None,
        },
        Broken {
            name: "the EASY head's reservation moved one second later",
            log: behind_a_full_machine(5)
                .reserve(0, 1, 0)
                .reserve(5, 2, 100)
                .reserve(50, 2, 101),
            policy: Policy::Easy,
            violation: Violation::ReservationMovedLater {
                job: 2,
                at: 50,
                from: 100,
                to: 101,
            },
            rule_at: (2, 50),
            message: None,
        },
        Broken {
            name: "a reservation made after the job started",
            log: behind_a_full_machine(5)
                .reserve(5, 2, 150)
                .reserve(120, 2, 130),
            policy: Policy::Easy,
            violation: Violation::ReservationAfterStart {
                job: 2,
                at: 120,
                started: 100,
            },
            rule_at: (2, 120),
            message: None,
        },
        // ----- rule 3: starvation and policy order -----
        // Threshold 2.0: job 2 (submitted 5, estimate 50) is due at 55.
        Broken {
            name: "a job never promoted",
            log: behind_a_full_machine(5),
            policy: Policy::SELECTIVE_EXAMPLE,
            violation: Violation::LatePromotion {
                job: 2,
                at: 55,
                promoted: None,
                started: 100,
            },
            rule_at: (3, 55),
            message: None,
        },
        Broken {
            name: "a job promoted late",
            log: behind_a_full_machine(5).reserve(60, 2, 100),
            policy: Policy::SELECTIVE_EXAMPLE,
            violation: Violation::LatePromotion {
                job: 2,
                at: 55,
                promoted: Some(60),
                started: 100,
            },
            rule_at: (3, 55),
            message: Some(
                "job 2 reached its expansion-factor threshold at t=55 and started at t=100, but was promoted at t=60",
            ),
        },
        Broken {
            name: "a job promoted early",
            log: behind_a_full_machine(5).reserve(50, 2, 100),
            policy: Policy::SELECTIVE_EXAMPLE,
            violation: Violation::PromotedEarly {
                job: 2,
                at: 50,
                due: Some(55),
            },
            rule_at: (3, 50),
            message: Some(
                "job 2 was promoted at t=50, before its expansion factor reached its threshold (at t=55)",
            ),
        },
        // Selective-D, default bounds: job 2 is short (50 s) and wide (10 >
        // 8 processors), so its threshold is SW's 8.0: due at 5 + 350.
        Broken {
            name: "a job promoted early by its category's threshold",
            log: behind_a_full_machine(5).reserve(50, 2, 100),
            policy: Policy::SELECTIVE_D_EXAMPLE,
            violation: Violation::PromotedEarly {
                job: 2,
                at: 50,
                due: Some(355),
            },
            rule_at: (3, 50),
            message: None,
        },
        Broken {
            name: "FCFS overtaken",
            log: overtaken(),
            policy: Policy::Fcfs,
            violation: Violation::OutOfOrder {
                job: 3,
                at: 90,
                ahead: 2,
                ahead_start: 100,
            },
            rule_at: (3, 90),
            message: None,
        },
        // ----- rule 4: timing -----
        Broken {
            name: "a start before the submission",
            log: one(4)
                .ran(job(1).estimate(10), at(0))
                .ran(job(2).submit(30).estimate(10), at(20))
                .sorted(),
            policy: Policy::Easy,
            violation: Violation::StartBeforeSubmit {
                job: 2,
                at: 20,
                submit: 30,
            },
            rule_at: (4, 20),
            message: Some("job 2 started at t=20, before its submission at t=30"),
        },
        Broken {
            name: "a run past the estimate",
            log: one_job_running(100).with(|log| log.record(1).end = 120),
            policy: Policy::Easy,
            violation: Violation::PastEstimate {
                job: 1,
                at: 120,
                limit: 100,
            },
            rule_at: (4, 120),
            message: None,
        },
        Broken {
            name: "ran 50 s, but its run time is 40 s",
            log: one_job_running(40).with(|log| log.record(1).end = 50),
            policy: Policy::Easy,
            violation: Violation::WrongEnd {
                job: 1,
                at: 50,
                expected: 40,
            },
            rule_at: (4, 50),
            message: None,
        },
        Broken {
            name: "a slot of the unscaled estimate on a double-speed machine",
            log: on_a_double_speed_machine().with(|log| {
                    log.record(1).slot.duration = 100;
                    log.run.started[0].1.duration = 100;
                }),
            policy: Policy::Easy,
            violation: Violation::WrongDuration {
                job: 1,
                at: 0,
                duration: 100,
                expected: 50,
            },
            rule_at: (4, 0),
            message: None,
        },
        Broken {
            name: "recorded as killed within its estimate",
            log: one_job_running(100).with(|log| log.record(1).killed = true),
            policy: Policy::Easy,
            violation: Violation::WrongKill {
                job: 1,
                at: 100,
                run: 100,
                duration: 100,
                recorded: true,
            },
            rule_at: (4, 100),
            message: Some(
                "job 1 (ended t=100) is recorded as killed, but its run time 100 s is within its estimate 100 s",
            ),
        },
        Broken {
            name: "recorded as not killed past its estimate",
            log: one_job_running(101).with(|log| log.record(1).killed = false),
            policy: Policy::Easy,
            violation: Violation::WrongKill {
                job: 1,
                at: 100,
                run: 101,
                duration: 100,
                recorded: false,
            },
            rule_at: (4, 100),
            message: Some(
                "job 1 (ended t=100) is recorded as not killed, but its run time 101 s is longer than its estimate 100 s",
            ),
        },
        // ----- rule 6: accounting -----
        Broken {
            name: "a job started whose record is gone",
            log: two_small_jobs().with(|log| log.run.finished.retain(|r| r.job.id != 2)),
            policy: Policy::Easy,
            violation: Violation::Lost { job: 2, at: 3 },
            rule_at: (6, 3),
            message: Some("job 2 (submitted t=3) was neither finished nor rejected"),
        },
        Broken {
            name: "a job finished twice",
            log: one_small_job().with(|log| {
                let record = log.run.finished[0];
                log.run.finished.push(record);
            }),
            policy: Policy::Easy,
            violation: Violation::Duplicated { job: 1, at: 10 },
            rule_at: (6, 10),
            message: None,
        },
        Broken {
            name: "a job that is not in the input",
            log: one_small_job().with(|log| log.input.clear()),
            policy: Policy::Easy,
            violation: Violation::UnknownJob { job: 1, at: 10 },
            rule_at: (6, 10),
            message: None,
        },
        Broken {
            name: "two input jobs with one id",
            log: one_small_job().ran(job(1).submit(5).estimate(10), at(10)),
            policy: Policy::Easy,
            violation: Violation::DuplicateInput { job: 1, at: 5 },
            rule_at: (6, 5),
            message: None,
        },
        Broken {
            name: "a job finished and rejected",
            log: one_small_job().with(|log| {
                let job = log.input[0].job;
                log.run.rejected.push((job, KernelError::Unrunnable(1)));
            }),
            policy: Policy::Easy,
            violation: Violation::Duplicated { job: 1, at: 0 },
            rule_at: (6, 0),
            message: None,
        },
        Broken {
            name: "a job altered after its submission",
            log: one_small_job().with(|log| log.input[0].job.procs = 2),
            policy: Policy::Easy,
            violation: Violation::Altered { job: 1, at: 0 },
            rule_at: (6, 0),
            message: None,
        },
        Broken {
            name: "a rejection for a full queue",
            log: rejected(
                job(1).submit(5).procs(8).estimate(10),
                KernelError::QueueFull(1),
            ),
            policy: Policy::Easy,
            violation: Violation::WrongRejection {
                job: 1,
                at: 5,
                error: KernelError::QueueFull(1),
            },
            rule_at: (6, 5),
            message: None,
        },
        Broken {
            name: "a runnable job rejected as unrunnable",
            log: rejected(
                job(1).submit(5).procs(2).estimate(10),
                KernelError::Unrunnable(1),
            ),
            policy: Policy::Easy,
            violation: Violation::WrongRejection {
                job: 1,
                at: 5,
                error: KernelError::Unrunnable(1),
            },
            rule_at: (6, 5),
            message: None,
        },
        Broken {
            name: "a start event that disagrees with the record",
            log: one_small_job().with(|log| log.run.started[0].1.start = 1),
            policy: Policy::Easy,
            violation: Violation::StartMismatch { job: 1, at: 0 },
            rule_at: (6, 0),
            message: None,
        },
        Broken {
            name: "start events out of time order",
            log: one(4)
                .ran(job(1).estimate(10), at(5))
                .ran(job(2).estimate(10), at(0)),
            policy: Policy::Easy,
            violation: Violation::LogOrder {
                job: 2,
                at: 0,
                previous: 5,
            },
            rule_at: (6, 0),
            message: None,
        },
    ];
    // The same late head under FCFS, EASY and SJF-EASY.
    for policy in [Policy::Fcfs, Policy::Easy, Policy::SjfEasy] {
        rows.push(Broken {
            name: "the queue head started after its shadow time",
            log: head_late.clone(),
            policy,
            violation: head_started_late.clone(),
            rule_at: (2, 130),
            message: Some(
                "job 2 became the queue head at t=1 with shadow time t=100, but started at t=130",
            ),
        });
    }
    // BF_FCFS's and BF_UNMOD's head keeps its promise as EASY's does.
    for policy in [
        Policy::Easy,
        Policy::BfFcfs,
        Policy::BfUnmod(Heuristics::DEFAULT),
    ] {
        rows.push(Broken {
            name: "the head's reservation moved later",
            log: moved_later.clone(),
            policy,
            violation: Violation::ReservationMovedLater {
                job: 2,
                at: 40,
                from: 100,
                to: 120,
            },
            rule_at: (2, 40),
            message: None,
        });
    }
    // A job that never started: starved under a starvation-free policy,
    // lost under the others.
    for policy in Policy::ALL {
        let (violation, rule) = if policy.starvation_free() {
            (Violation::Starved { job: 2, at: 3 }, 3)
        } else {
            (Violation::Lost { job: 2, at: 3 }, 6)
        };
        rows.push(Broken {
            name: "a job that never started",
            log: two_small_jobs().with(|log| {
                log.run.finished.retain(|r| r.job.id != 2);
                log.run.started.retain(|&(id, _)| id != 2);
            }),
            policy,
            violation,
            rule_at: (rule, 3),
            message: None,
        });
    }
    rows
}

#[test]
fn broken_logs_are_caught() {
    for case in broken_logs() {
        let name = format!("{} ({})", case.name, case.policy);
        let Err(v) = case.log.check(case.policy) else {
            panic!("{name}: passed");
        };
        assert_eq!(v, case.violation, "{name}");
        assert_eq!((v.rule(), v.at()), case.rule_at, "{name}");
        if let Some(message) = case.message {
            assert_eq!(v.to_string(), message, "{name}");
        }
    }
}

/// Adaptive thresholds, computed by the checker from the ended jobs: with
/// `initial` 5.0 and scale 1.5, job 3 (10 procs, estimate 40, submitted 0)
/// would be due at 160; job 1 ends at 20 with a slowdown of 1.0, the
/// threshold drops to 1.5, and job 3 is due at once, at 20. The kernel's
/// replay agrees; a promotion at any other instant is caught.
#[test]
fn adaptive_promotions_follow_the_running_average() {
    let adaptive = |well_estimated_only| {
        Policy::Selective(Threshold::Adaptive {
            scale: 1500,
            well_estimated_only,
            initial: 5000,
        })
    };
    let cluster: Cluster<1, 0> = Cluster::single(10).unwrap();
    let jobs = sims(&[
        job(1).procs(5).estimate(100).runs(20),
        job(2).procs(5).estimate(200),
        job(3).procs(10).estimate(40),
    ]);
    let (_, run) = replay::<16, 16, 64, 1, 0>(&cluster, adaptive(false), &jobs);
    assert_eq!(
        run.reservations,
        [(
            20,
            3,
            Slot {
                start: 200,
                machine: 0,
                duration: 40
            }
        )]
    );
    assert_eq!(check(&cluster, adaptive(false), &jobs, &run), Ok(()));
    let promoted_at = |at: Time| {
        let mut bad = run.clone();
        bad.reservations[0].0 = at;
        bad
    };
    assert_eq!(
        check(&cluster, adaptive(false), &jobs, &promoted_at(160)),
        Err(Violation::LatePromotion {
            job: 3,
            at: 20,
            promoted: Some(160),
            started: 200
        })
    );
    assert_eq!(
        check(&cluster, adaptive(false), &jobs, &promoted_at(10)),
        Err(Violation::PromotedEarly {
            job: 3,
            at: 10,
            due: Some(20)
        })
    );
    // Over well-estimated jobs only, job 1 (20 s of 100) does not count:
    // the threshold stays 5.0 and job 3 is due at 160.
    assert_eq!(
        check(&cluster, adaptive(true), &jobs, &run),
        Err(Violation::PromotedEarly {
            job: 3,
            at: 20,
            due: Some(160)
        })
    );
    assert_eq!(
        check(&cluster, adaptive(true), &jobs, &promoted_at(160)),
        Ok(())
    );
}

/// The hand-checked EASY schedule of core's kernel tests.
const SHADOW: &[TestJob] = &[
    job(1).procs(6).estimate(100),
    job(2).submit(1).procs(8).estimate(50),
    job(3).submit(2).procs(4).estimate(90),
    job(4).submit(3).procs(2).estimate(200),
];

#[test]
fn real_replays_pass_and_tampering_is_caught() {
    let cluster: Cluster<1, 0> = Cluster::single(10).unwrap();
    let jobs = sims(SHADOW);
    for policy in Policy::ALL {
        let (outcome, log) = replay::<16, 16, 64, 1, 0>(&cluster, policy, &jobs);
        assert_eq!(outcome.finished, 4, "{policy}");
        assert_eq!(check(&cluster, policy, &jobs, &log), Ok(()), "{policy}");
        check_deterministic::<16, 16, 64, 1, 0>(&cluster, policy, &jobs).unwrap();
    }
    let (_, log) = replay::<16, 16, 64, 1, 0>(&cluster, Policy::Easy, &jobs);
    // EASY: job 2 is the head, reserved at 100 (its arrival pass at t=1).
    assert_eq!(
        log.reservations,
        [(
            1,
            2,
            Slot {
                start: 100,
                machine: 0,
                duration: 50
            }
        )]
    );
    // Job 3 (submitted at 2) moved to start at 1.
    let mut bad = log.clone();
    let r = bad.finished.iter_mut().find(|r| r.job.id == 3).unwrap();
    r.slot.start = 1;
    r.end = 91;
    bad.started
        .iter_mut()
        .find(|(id, _)| *id == 3)
        .unwrap()
        .1
        .start = 1;
    assert_eq!(
        check(&cluster, Policy::Easy, &jobs, &bad),
        Err(Violation::StartBeforeSubmit {
            job: 3,
            at: 1,
            submit: 2
        })
    );
    // Job 4 (2 procs) moved onto job 1 + job 3 (6 + 4 processors) at t=50.
    let mut bad = log.clone();
    let r = bad.finished.iter_mut().find(|r| r.job.id == 4).unwrap();
    r.slot.start = 50;
    r.end = 250;
    bad.started.retain(|(id, _)| *id != 4);
    let slot = bad.finished.iter().find(|r| r.job.id == 4).unwrap().slot;
    bad.started.push((4, slot));
    bad.started.sort_by_key(|&(id, s)| (s.start, id));
    assert_eq!(
        check(&cluster, Policy::Easy, &jobs, &bad),
        Err(Violation::MachineOverfull {
            machine: 0,
            at: 50,
            used: 12,
            cpus: 10,
            jobs: vec![1, 3, 4]
        })
    );
}

#[test]
fn different_replays_are_reported_as_nondeterminism() {
    let cluster: Cluster<1, 0> = Cluster::single(10).unwrap();
    let jobs = sims(SHADOW);
    let a = run_replay::<16, 16, 64, 1, 0>(&cluster, Policy::Easy, &jobs);
    let mut b = a.clone();
    assert_eq!(compare_replays(&a, &b), Ok(()));
    b.log.started[2].1.start += 1;
    let v = compare_replays(&a, &b).unwrap_err();
    assert!(
        matches!(v, Violation::Nondeterministic { job: Some(_), .. }),
        "{v}"
    );
    assert_eq!(v.rule(), 5);
    let mut b = a.clone();
    b.log.finished.pop();
    assert!(matches!(
        compare_replays(&a, &b),
        Err(Violation::Nondeterministic { .. })
    ));
    let mut b = a.clone();
    b.left_queued = 1;
    assert!(matches!(
        compare_replays(&a, &b),
        Err(Violation::Nondeterministic { job: None, .. })
    ));
}

#[test]
fn big_kernels_replay_on_a_big_enough_stack() {
    // A kernel far larger than a test thread's default 2 MiB stack.
    let cluster: Cluster<1, 0> = Cluster::single(4).unwrap();
    let jobs = sims(&[
        job(1).procs(4).estimate(10).runs(5),
        job(2).procs(4).estimate(10),
    ]);
    let (outcome, log) = replay::<8192, 8192, 32768, 1, 0>(&cluster, Policy::Conservative, &jobs);
    assert_eq!(outcome.finished, 2);
    assert_eq!(check(&cluster, Policy::Conservative, &jobs, &log), Ok(()));
}

/// A valid log of `n` jobs on one 8-processor machine: job `i` arrives at
/// `3 i` and starts at once on 2 processors for up to 10 s (so up to 4
/// overlap); with `reserved` (Conservative) it is reserved on arrival at its
/// start.
fn synthetic(n: u32, reserved: bool) -> (Farm, Vec<SimJob>, RunLog) {
    let mut log = one(8);
    for i in 0..n {
        let submit = 3 * i;
        let j = job(i + 1).submit(submit).procs(2).estimate(10).runs(i % 13);
        log = log.ran(j, at(submit));
        if reserved {
            let record = log.run.finished.last_mut().unwrap();
            record.guarantee = Some(submit);
            let slot = record.slot;
            log.run.reservations.push((submit, i + 1, slot));
        }
    }
    // Completion order, as a replay reports them.
    log.run.finished.sort_by_key(|r| (r.end, r.start()));
    (log.cluster, log.input, log.run)
}

/// The checker on a large log: 300,000 jobs per policy in release builds
/// (`cargo test --release -p backfill-tests checks_300_000 -- --nocapture`
/// prints the time each check took; speed is measured, never asserted),
/// 30,000 in debug builds to keep the suite quick.
#[test]
fn checks_300_000_jobs() {
    let n = if cfg!(debug_assertions) {
        30_000
    } else {
        300_000
    };
    for policy in Policy::ALL {
        let (cluster, jobs, run) = synthetic(n, policy.reserves_all());
        let started = Instant::now();
        assert_eq!(check(&cluster, policy, &jobs, &run), Ok(()), "{policy}");
        eprintln!("check of {n} jobs under {policy}: {:?}", started.elapsed());
    }
    // A single broken job among them is still found, by name.
    let (cluster, jobs, mut run) = synthetic(n, true);
    let r = run
        .finished
        .iter_mut()
        .find(|r| r.job.id == 12_347)
        .unwrap();
    r.end += 1;
    assert!(matches!(
        check(&cluster, Policy::Conservative, &jobs, &run),
        Err(Violation::WrongEnd { job: 12_347, .. } | Violation::PastEstimate { job: 12_347, .. })
    ));
}
