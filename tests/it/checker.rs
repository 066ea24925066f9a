//! The checker itself: it passes good logs, fails each kind of broken log
//! with the exact [`Violation`], and is fast on 300,000-job logs.

use backfill_core::policy::Threshold;
use backfill_core::{
    Cluster, Job, JobId, JobRecord, KernelError, LicensePool, LicenseSet, Machine, MachineSet,
    Policy, SimJob, Slot, Time,
};
use backfill_tests::check::{
    check, check_deterministic, compare_replays, replay, run_replay, RunLog, Violation,
};
use std::time::Instant;

/// A hand-written log: jobs are added with where and when they ran.
struct Log<const M: usize, const L: usize> {
    cluster: Cluster<M, L>,
    input: Vec<SimJob>,
    run: RunLog,
}

impl<const M: usize, const L: usize> Log<M, L> {
    fn new(cluster: Cluster<M, L>) -> Self {
        Self {
            cluster,
            input: Vec::new(),
            run: RunLog::default(),
        }
    }

    /// Job `id` submitted at `submit`, run on `machine` from `start`, with
    /// the end the replay loop would give it.
    #[allow(clippy::too_many_arguments)]
    fn job(
        &mut self,
        id: JobId,
        submit: Time,
        procs: u32,
        estimate: u32,
        runtime: u32,
        machine: u8,
        start: Time,
    ) -> &mut Self {
        self.licensed(
            id,
            submit,
            procs,
            estimate,
            runtime,
            machine,
            start,
            LicenseSet::EMPTY,
        )
    }

    #[allow(clippy::too_many_arguments)]
    fn licensed(
        &mut self,
        id: JobId,
        submit: Time,
        procs: u32,
        estimate: u32,
        runtime: u32,
        machine: u8,
        start: Time,
        licenses: LicenseSet,
    ) -> &mut Self {
        let mut job = Job::new(id, submit, procs, estimate);
        job.licenses = licenses;
        self.input.push(SimJob { job, runtime });
        let m = self.cluster.machines()[usize::from(machine)];
        let duration = m.scale(estimate).unwrap();
        let run = m.scale(runtime).unwrap();
        let slot = Slot {
            start,
            machine,
            duration,
        };
        job.tag = runtime;
        self.run.started.push((id, slot));
        self.run.finished.push(JobRecord {
            job,
            runtime,
            slot,
            end: start + run.min(duration),
            killed: run > duration,
            guarantee: None,
        });
        self
    }

    /// A reservation event `(now, id, start)` on machine 0, with the job's
    /// duration; the first one of a job becomes its record's guarantee.
    fn reserve(&mut self, now: Time, id: JobId, start: Time) -> &mut Self {
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

    fn record(&mut self, id: JobId) -> &mut JobRecord {
        self.run
            .finished
            .iter_mut()
            .find(|r| r.job.id == id)
            .unwrap()
    }

    /// Sorts the start events by time, as a replay logs them.
    fn sorted(&mut self) -> &mut Self {
        self.run.started.sort_by_key(|&(id, s)| (s.start, id));
        self
    }

    fn check(&self, policy: Policy) -> Result<(), Violation> {
        check(&self.cluster, policy, &self.input, &self.run)
    }
}

fn one(cpus: u32) -> Log<1, 0> {
    Log::new(Cluster::single(cpus).unwrap())
}

#[test]
fn a_good_log_passes_under_every_policy() {
    let mut log = one(10);
    // 1: 6 procs [0, 100); 2: 4 procs [5, 55) killed at its estimate;
    // 3: 10 procs [100, 150).
    log.job(1, 0, 6, 100, 100, 0, 0)
        .job(2, 5, 4, 50, 80, 0, 5)
        .job(3, 7, 10, 50, 50, 0, 100)
        .sorted();
    for policy in Policy::ALL {
        if policy.keeps_reservations() {
            continue; // needs reservations, below
        }
        assert_eq!(log.check(policy), Ok(()), "{policy}");
    }
    let mut selective = one(10);
    selective
        .job(1, 0, 6, 100, 100, 0, 0)
        .job(2, 5, 4, 50, 80, 0, 5)
        .job(3, 7, 10, 50, 50, 0, 100)
        .sorted();
    log.reserve(0, 1, 0).reserve(5, 2, 5).reserve(7, 3, 100);
    assert_eq!(log.check(Policy::Conservative), Ok(()));
    // Selective, threshold 2.0: job 3 (estimate 50) is promoted at 7 + 50.
    selective.reserve(57, 3, 100);
    assert_eq!(selective.check(Policy::SELECTIVE_EXAMPLE), Ok(()));
}

#[test]
fn selective_promotes_when_the_threshold_is_reached() {
    // Threshold 2.0: job 2 (submitted 5, estimate 50) is due at 55.
    let mut log = one(10);
    log.job(1, 0, 10, 100, 100, 0, 0)
        .job(2, 5, 10, 50, 50, 0, 100)
        .sorted();
    let late = |promoted| Violation::LatePromotion {
        job: 2,
        at: 55,
        promoted,
        started: 100,
    };
    assert_eq!(log.check(Policy::SELECTIVE_EXAMPLE), Err(late(None)));
    log.reserve(60, 2, 100);
    let v = log.check(Policy::SELECTIVE_EXAMPLE).unwrap_err();
    assert_eq!(v, late(Some(60)));
    assert_eq!(v.rule(), 3);
    assert_eq!(
        v.to_string(),
        "job 2 reached its expansion-factor threshold at t=55 and started at t=100, but was promoted at t=60"
    );
    // A job that starts by its promotion instant needs no promotion.
    let mut log = one(10);
    log.job(1, 0, 10, 100, 100, 0, 0)
        .job(2, 50, 10, 50, 50, 0, 100)
        .sorted();
    assert_eq!(log.check(Policy::SELECTIVE_EXAMPLE), Ok(()));
}

#[test]
fn over_full_machine() {
    let mut log = one(10);
    log.job(3, 0, 6, 100, 100, 0, 100)
        .job(7, 0, 6, 100, 100, 0, 120)
        .sorted();
    let v = log.check(Policy::Easy).unwrap_err();
    assert_eq!(
        v,
        Violation::MachineOverfull {
            machine: 0,
            at: 120,
            used: 12,
            cpus: 10,
            jobs: vec![3, 7]
        }
    );
    assert_eq!(
        v.to_string(),
        "capacity exceeded on machine 0 at t=120: 12 > 10 processors (jobs 3, 7)"
    );
    assert_eq!((v.rule(), v.at()), (1, 120));
}

#[test]
fn touching_intervals_do_not_overlap() {
    // [0, 100) and [100, 200) on all processors: half-open, no overlap.
    let mut log = one(10);
    log.job(1, 0, 10, 100, 100, 0, 0)
        .job(2, 0, 10, 100, 100, 0, 100);
    assert_eq!(log.check(Policy::Fcfs), Ok(()));
    // Zero-length runs hold nothing.
    let mut log = one(10);
    log.job(1, 0, 10, 100, 0, 0, 0)
        .job(2, 0, 10, 100, 100, 0, 0);
    assert_eq!(log.check(Policy::Fcfs), Ok(()));
}

#[test]
fn over_used_license() {
    let cluster: Cluster<2, 1> = Cluster::new(
        &[Machine::new(4), Machine::new(4)],
        &[LicensePool {
            count: 1,
            machines: MachineSet::ALL,
        }],
    )
    .unwrap();
    let mut log = Log::new(cluster);
    log.licensed(1, 0, 1, 100, 100, 0, 0, LicenseSet(1))
        .licensed(2, 0, 1, 100, 100, 1, 50, LicenseSet(1))
        .sorted();
    let v = log.check(Policy::Easy).unwrap_err();
    assert_eq!(
        v,
        Violation::LicenseOverused {
            pool: 0,
            at: 50,
            used: 2,
            count: 1,
            jobs: vec![1, 2]
        }
    );
    assert_eq!(
        v.to_string(),
        "license pool 0 over-used at t=50: 2 > 1 copies (jobs 1, 2)"
    );
}

#[test]
fn job_on_a_machine_where_it_is_not_eligible() {
    let cluster: Cluster<2, 1> = Cluster::new(
        &[Machine::new(4), Machine::new(8)],
        &[LicensePool {
            count: 2,
            machines: MachineSet(0b01),
        }],
    )
    .unwrap();
    let mut log = Log::new(cluster.clone());
    log.licensed(1, 0, 2, 10, 10, 1, 0, LicenseSet(1));
    assert_eq!(
        log.check(Policy::Easy),
        Err(Violation::Ineligible {
            job: 1,
            machine: 1,
            at: 0
        })
    );
    let mut log = Log::new(cluster);
    log.job(1, 0, 6, 10, 10, 0, 0); // 6 processors on a 4-processor machine
    assert_eq!(
        log.check(Policy::Easy),
        Err(Violation::Ineligible {
            job: 1,
            machine: 0,
            at: 0
        })
    );
}

#[test]
fn start_before_submit() {
    let mut log = one(4);
    log.job(1, 0, 1, 10, 10, 0, 0)
        .job(2, 30, 1, 10, 10, 0, 20)
        .sorted();
    let v = log.check(Policy::Easy).unwrap_err();
    assert_eq!(
        v,
        Violation::StartBeforeSubmit {
            job: 2,
            at: 20,
            submit: 30
        }
    );
    assert_eq!(v.rule(), 4);
    assert_eq!(
        v.to_string(),
        "job 2 started at t=20, before its submission at t=30"
    );
}

#[test]
fn run_past_estimate() {
    let mut log = one(4);
    log.job(1, 0, 1, 100, 100, 0, 0);
    log.record(1).end = 120;
    let v = log.check(Policy::Easy).unwrap_err();
    assert_eq!(
        v,
        Violation::PastEstimate {
            job: 1,
            at: 120,
            limit: 100
        }
    );
    assert_eq!(v.rule(), 4);
}

#[test]
fn wrong_end_and_wrong_duration() {
    let mut log = one(4);
    log.job(1, 0, 1, 100, 40, 0, 0);
    log.record(1).end = 50; // ran 50 s, but its run time is 40 s
    assert_eq!(
        log.check(Policy::Easy),
        Err(Violation::WrongEnd {
            job: 1,
            at: 50,
            expected: 40
        })
    );
    // On a double-speed machine a 100 s estimate holds the slot for 50 s.
    let cluster: Cluster<1, 0> = Cluster::new(
        &[Machine {
            cpus: 4,
            speed: 2000,
        }],
        &[],
    )
    .unwrap();
    let mut log = Log::new(cluster);
    log.job(1, 0, 1, 100, 100, 0, 0);
    assert_eq!(log.run.finished[0].end, 50);
    assert_eq!(log.check(Policy::Easy), Ok(()));
    log.record(1).slot.duration = 100;
    log.run.started[0].1.duration = 100;
    assert_eq!(
        log.check(Policy::Easy),
        Err(Violation::WrongDuration {
            job: 1,
            at: 0,
            duration: 100,
            expected: 50
        })
    );
}

#[test]
fn reservation_moved_later() {
    let mut log = one(10);
    log.job(1, 0, 10, 100, 100, 0, 0)
        .job(2, 0, 10, 50, 50, 0, 100)
        .sorted();
    log.reserve(0, 1, 0).reserve(0, 2, 100);
    assert_eq!(log.check(Policy::Conservative), Ok(()));
    log.reserve(40, 2, 120);
    let v = log.check(Policy::Conservative).unwrap_err();
    assert_eq!(
        v,
        Violation::ReservationMovedLater {
            job: 2,
            at: 40,
            from: 100,
            to: 120
        }
    );
    assert_eq!(v.rule(), 2);
    assert_eq!(
        v.to_string(),
        "reservation of job 2 moved later at t=40: from t=100 to t=120"
    );
    // The same for EASY's head; SJF-EASY makes no such promise (and its
    // records carry no guarantee).
    assert!(matches!(
        log.check(Policy::Easy),
        Err(Violation::ReservationMovedLater { job: 2, .. })
    ));
    for record in &mut log.run.finished {
        record.guarantee = None;
    }
    assert_eq!(log.check(Policy::SjfEasy), Ok(()));
}

#[test]
fn easy_head_delayed_past_its_guarantee() {
    let mut log = one(10);
    log.job(1, 0, 6, 100, 100, 0, 0)
        .job(2, 1, 8, 50, 50, 0, 130)
        .sorted();
    log.reserve(1, 2, 100);
    let v = log.check(Policy::Easy).unwrap_err();
    assert_eq!(
        v,
        Violation::GuaranteeMissed {
            job: 2,
            at: 130,
            guarantee: 100
        }
    );
    assert_eq!(
        v.to_string(),
        "job 2 started at t=130, after its guaranteed start t=100"
    );
    // A record whose guarantee is not its first reservation is caught too.
    log.record(2).guarantee = Some(140);
    assert!(matches!(
        log.check(Policy::Easy),
        Err(Violation::GuaranteeMismatch { job: 2, .. })
    ));
}

#[test]
fn any_recorded_guarantee_is_kept() {
    let mut log = one(10);
    log.job(1, 0, 6, 100, 100, 0, 50);
    // A guarantee must be the job's first reservation ...
    log.record(1).guarantee = Some(40);
    assert_eq!(
        log.check(Policy::SjfEasy),
        Err(Violation::GuaranteeMismatch {
            job: 1,
            at: 50,
            recorded: Some(40),
            first_reservation: None
        })
    );
    // ... and is kept under any policy.
    log.reserve(0, 1, 40);
    assert_eq!(
        log.check(Policy::SjfEasy),
        Err(Violation::GuaranteeMissed {
            job: 1,
            at: 50,
            guarantee: 40
        })
    );
}

/// The checker finds the head itself: no reservation event is needed.
/// Job 2 (8 procs) becomes the head at t=1 behind job 1 (6 of 10
/// processors until 100), so its shadow time is 100.
#[test]
fn queue_head_started_after_its_shadow_time() {
    let mut log = one(10);
    log.job(1, 0, 6, 100, 100, 0, 0)
        .job(2, 1, 8, 50, 50, 0, 130)
        .sorted();
    assert!(log.run.reservations.is_empty());
    let late = Violation::HeadStartedLate {
        job: 2,
        at: 130,
        head_since: 1,
        shadow: 100,
    };
    for policy in [Policy::Fcfs, Policy::Easy, Policy::SjfEasy] {
        assert_eq!(log.check(policy), Err(late.clone()), "{policy}");
    }
    assert_eq!(late.rule(), 2);
    assert_eq!(
        late.to_string(),
        "job 2 became the queue head at t=1 with shadow time t=100, but started at t=130"
    );
    // The bound is the shadow time, not the best start: job 1 ending early,
    // at 40, does not make a start at 100 late.
    let mut log = one(10);
    log.job(1, 0, 6, 100, 40, 0, 0)
        .job(2, 1, 8, 50, 50, 0, 100)
        .sorted();
    assert_eq!(log.check(Policy::Easy), Ok(()));
    // A head that fits when it becomes the head must start at once.
    let mut log = one(10);
    log.job(1, 0, 6, 100, 100, 0, 0)
        .job(2, 1, 4, 50, 50, 0, 2)
        .sorted();
    assert_eq!(
        log.check(Policy::Easy),
        Err(Violation::HeadStartedLate {
            job: 2,
            at: 2,
            head_since: 1,
            shadow: 1
        })
    );
}

/// SJF-EASY: a shorter job that arrives later sorts ahead of the head and
/// voids its shadow time; the old head gets a new one when it is the head
/// again. Under EASY the same schedule is a broken promise.
#[test]
fn a_shorter_arrival_voids_the_sjf_head_shadow() {
    let mut log = one(10);
    log.job(1, 0, 10, 100, 100, 0, 0)
        .job(2, 1, 10, 50, 50, 0, 110)
        .job(3, 50, 10, 10, 10, 0, 100)
        .sorted();
    assert_eq!(log.check(Policy::SjfEasy), Ok(()));
    assert_eq!(
        log.check(Policy::Easy),
        Err(Violation::HeadStartedLate {
            job: 2,
            at: 110,
            head_since: 1,
            shadow: 100
        })
    );
    // Back at the head at 100 behind job 3 (10 s), job 2 is due by 110.
    let mut log = one(10);
    log.job(1, 0, 10, 100, 100, 0, 0)
        .job(2, 1, 10, 50, 50, 0, 111)
        .job(3, 50, 10, 10, 10, 0, 100)
        .sorted();
    assert_eq!(
        log.check(Policy::SjfEasy),
        Err(Violation::HeadStartedLate {
            job: 2,
            at: 111,
            head_since: 100,
            shadow: 110
        })
    );
}

#[test]
fn killed_flag_must_match_the_run_time() {
    // Ran exactly its estimate: not killed.
    let mut log = one(4);
    log.job(1, 0, 1, 100, 100, 0, 0);
    assert_eq!(log.check(Policy::Easy), Ok(()));
    log.record(1).killed = true;
    let v = log.check(Policy::Easy).unwrap_err();
    assert_eq!(
        v,
        Violation::WrongKill {
            job: 1,
            at: 100,
            run: 100,
            duration: 100,
            recorded: true
        }
    );
    assert_eq!(v.rule(), 4);
    assert_eq!(
        v.to_string(),
        "job 1 (ended t=100) is recorded as killed, but its run time 100 s is within its estimate 100 s"
    );
    // One second longer: killed at its estimate.
    let mut log = one(4);
    log.job(1, 0, 1, 100, 101, 0, 0);
    assert!(log.run.finished[0].killed);
    assert_eq!(log.check(Policy::Easy), Ok(()));
    log.record(1).killed = false;
    assert_eq!(
        log.check(Policy::Easy).unwrap_err().to_string(),
        "job 1 (ended t=100) is recorded as not killed, but its run time 101 s is longer than its estimate 100 s"
    );
}

#[test]
fn selective_never_promotes_early() {
    // Threshold 2.0: job 2 (submitted 5, estimate 50) is due at 55.
    let mut log = one(10);
    log.job(1, 0, 10, 100, 100, 0, 0)
        .job(2, 5, 10, 50, 50, 0, 100)
        .sorted();
    log.reserve(50, 2, 100);
    let v = log.check(Policy::SELECTIVE_EXAMPLE).unwrap_err();
    assert_eq!(
        v,
        Violation::PromotedEarly {
            job: 2,
            at: 50,
            due: Some(55)
        }
    );
    assert_eq!(v.rule(), 3);
    assert_eq!(
        v.to_string(),
        "job 2 was promoted at t=50, before its expansion factor reached its threshold (at t=55)"
    );
    // Selective-D, default bounds: job 2 is short (50 s) and wide (10 > 8
    // processors), so its threshold is SW's 8.0: due at 5 + 350.
    let v = log.check(Policy::SELECTIVE_D_EXAMPLE).unwrap_err();
    assert_eq!(
        v,
        Violation::PromotedEarly {
            job: 2,
            at: 50,
            due: Some(355)
        }
    );
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
    let jobs = input(&[(1, 0, 5, 100, 20), (2, 0, 5, 200, 200), (3, 0, 10, 40, 40)]);
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

#[test]
fn conservative_needs_a_reservation_on_arrival_and_starts_at_it() {
    let mut log = one(10);
    log.job(1, 0, 10, 100, 100, 0, 0)
        .job(2, 5, 10, 50, 50, 0, 100)
        .sorted();
    log.reserve(0, 1, 0);
    assert_eq!(
        log.check(Policy::Conservative),
        Err(Violation::MissingReservation { job: 2, at: 5 })
    );
    log.reserve(6, 2, 100); // a reservation, but not at arrival
    assert_eq!(
        log.check(Policy::Conservative),
        Err(Violation::MissingReservation { job: 2, at: 5 })
    );
    let mut log = one(10);
    log.job(1, 0, 10, 100, 100, 0, 0)
        .job(2, 5, 10, 50, 50, 0, 100)
        .sorted();
    log.reserve(0, 1, 0).reserve(5, 2, 110);
    // Started before its reservation: good for the guarantee, but
    // Conservative starts a job exactly at its (latest) reservation.
    assert_eq!(
        log.check(Policy::Conservative),
        Err(Violation::NotAtReservation {
            job: 2,
            at: 100,
            reserved: 110,
            reserved_machine: 0
        })
    );
}

#[test]
fn reservations_in_the_past_or_after_the_start() {
    let mut log = one(10);
    log.job(1, 0, 10, 100, 100, 0, 0)
        .job(2, 5, 10, 50, 50, 0, 100)
        .sorted();
    log.reserve(0, 1, 0).reserve(5, 2, 4);
    assert_eq!(
        log.check(Policy::Conservative),
        Err(Violation::ReservationInPast {
            job: 2,
            at: 5,
            start: 4
        })
    );
    let mut log = one(10);
    log.job(1, 0, 10, 100, 100, 0, 0)
        .job(2, 5, 10, 50, 50, 0, 100)
        .sorted();
    log.reserve(0, 1, 0).reserve(5, 2, 100).reserve(50, 2, 101);
    assert_eq!(
        log.check(Policy::Easy),
        Err(Violation::ReservationMovedLater {
            job: 2,
            at: 50,
            from: 100,
            to: 101
        })
    );
    let mut log = one(10);
    log.job(1, 0, 10, 100, 100, 0, 0)
        .job(2, 5, 10, 50, 50, 0, 100)
        .sorted();
    log.reserve(5, 2, 150).reserve(120, 2, 130);
    assert_eq!(
        log.check(Policy::Easy),
        Err(Violation::ReservationAfterStart {
            job: 2,
            at: 120,
            started: 100
        })
    );
}

#[test]
fn a_lost_job() {
    let mut log = one(4);
    log.job(1, 0, 1, 10, 10, 0, 0)
        .job(2, 3, 1, 10, 10, 0, 3)
        .sorted();
    // Job 2 started but its record is gone.
    log.run.finished.retain(|r| r.job.id != 2);
    let v = log.check(Policy::Easy).unwrap_err();
    assert_eq!(v, Violation::Lost { job: 2, at: 3 });
    assert_eq!(v.rule(), 6);
    assert_eq!(
        v.to_string(),
        "job 2 (submitted t=3) was neither finished nor rejected"
    );
}

#[test]
fn a_starved_job() {
    let mut log = one(4);
    log.job(1, 0, 1, 10, 10, 0, 0)
        .job(2, 3, 1, 10, 10, 0, 3)
        .sorted();
    log.run.finished.retain(|r| r.job.id != 2);
    log.run.started.retain(|&(id, _)| id != 2);
    for policy in Policy::ALL {
        let want = if policy.starvation_free() {
            Violation::Starved { job: 2, at: 3 }
        } else {
            Violation::Lost { job: 2, at: 3 }
        };
        assert_eq!(log.check(policy), Err(want), "{policy}");
    }
}

#[test]
fn duplicated_and_unknown_jobs() {
    let mut log = one(4);
    log.job(1, 0, 1, 10, 10, 0, 0);
    let record = log.run.finished[0];
    log.run.finished.push(record);
    assert_eq!(
        log.check(Policy::Easy),
        Err(Violation::Duplicated { job: 1, at: 10 })
    );
    let mut log = one(4);
    log.job(1, 0, 1, 10, 10, 0, 0);
    log.input.clear();
    assert_eq!(
        log.check(Policy::Easy),
        Err(Violation::UnknownJob { job: 1, at: 10 })
    );
    let mut log = one(4);
    log.job(1, 0, 1, 10, 10, 0, 0).job(1, 5, 1, 10, 10, 0, 10);
    assert_eq!(
        log.check(Policy::Easy),
        Err(Violation::DuplicateInput { job: 1, at: 5 })
    );
    // Finished and rejected.
    let mut log = one(4);
    log.job(1, 0, 1, 10, 10, 0, 0);
    let job = log.input[0].job;
    log.run.rejected.push((job, KernelError::Unrunnable(1)));
    assert_eq!(
        log.check(Policy::Easy),
        Err(Violation::Duplicated { job: 1, at: 0 })
    );
}

#[test]
fn an_altered_job() {
    let mut log = one(4);
    log.job(1, 0, 1, 10, 10, 0, 0);
    log.input[0].job.procs = 2;
    assert_eq!(
        log.check(Policy::Easy),
        Err(Violation::Altered { job: 1, at: 0 })
    );
}

#[test]
fn rejections_must_be_justified() {
    let mut log = one(4);
    log.input.push(SimJob {
        job: Job::new(1, 5, 8, 10),
        runtime: 10,
    });
    log.run
        .rejected
        .push((Job::new(1, 5, 8, 10), KernelError::Unrunnable(1)));
    assert_eq!(log.check(Policy::Easy), Ok(()), "8 > 4 processors");
    log.run.rejected[0].1 = KernelError::QueueFull(1);
    assert_eq!(
        log.check(Policy::Easy),
        Err(Violation::WrongRejection {
            job: 1,
            at: 5,
            error: KernelError::QueueFull(1)
        })
    );
    let mut log = one(4);
    log.input.push(SimJob {
        job: Job::new(1, 5, 2, 10),
        runtime: 10,
    });
    log.run
        .rejected
        .push((Job::new(1, 5, 2, 10), KernelError::Unrunnable(1)));
    assert!(matches!(
        log.check(Policy::Easy),
        Err(Violation::WrongRejection { job: 1, .. })
    ));
    let mut log = one(4);
    log.input.push(SimJob {
        job: Job::new(1, 5, 0, 10),
        runtime: 10,
    });
    log.run
        .rejected
        .push((Job::new(1, 5, 0, 10), KernelError::InvalidJob(1)));
    assert_eq!(log.check(Policy::Easy), Ok(()), "no processors");
}

#[test]
fn start_event_and_record_must_agree() {
    let mut log = one(4);
    log.job(1, 0, 1, 10, 10, 0, 0);
    log.run.started[0].1.start = 1;
    assert_eq!(
        log.check(Policy::Easy),
        Err(Violation::StartMismatch { job: 1, at: 0 })
    );
    let mut log = one(4);
    log.job(1, 0, 1, 10, 10, 0, 5).job(2, 0, 1, 10, 10, 0, 0);
    assert_eq!(
        log.check(Policy::Easy),
        Err(Violation::LogOrder {
            job: 2,
            at: 0,
            previous: 5
        })
    );
}

#[test]
fn fcfs_never_overtakes() {
    let mut log = one(10);
    log.job(1, 0, 8, 100, 100, 0, 0)
        .job(2, 1, 8, 50, 50, 0, 100)
        .job(3, 2, 2, 10, 10, 0, 90)
        .sorted();
    assert_eq!(log.check(Policy::Easy), Ok(()));
    assert_eq!(
        log.check(Policy::Fcfs),
        Err(Violation::OutOfOrder {
            job: 3,
            at: 90,
            ahead: 2,
            ahead_start: 100
        })
    );
}

/// The hand-checked EASY schedule of core's kernel tests.
const SHADOW: &[(JobId, Time, u32, u32, u32)] = &[
    (1, 0, 6, 100, 100),
    (2, 1, 8, 50, 50),
    (3, 2, 4, 90, 90),
    (4, 3, 2, 200, 200),
];

fn input(jobs: &[(JobId, Time, u32, u32, u32)]) -> Vec<SimJob> {
    jobs.iter()
        .map(|&(id, submit, procs, estimate, runtime)| SimJob {
            job: Job::new(id, submit, procs, estimate),
            runtime,
        })
        .collect()
}

#[test]
fn real_replays_pass_and_tampering_is_caught() {
    let cluster: Cluster<1, 0> = Cluster::single(10).unwrap();
    let jobs = input(SHADOW);
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
    let jobs = input(SHADOW);
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
    let jobs = input(&[(1, 0, 4, 10, 5), (2, 0, 4, 10, 10)]);
    let (outcome, log) = replay::<8192, 8192, 32768, 1, 0>(&cluster, Policy::Conservative, &jobs);
    assert_eq!(outcome.finished, 2);
    assert_eq!(check(&cluster, Policy::Conservative, &jobs, &log), Ok(()));
}

/// A valid log of `n` jobs on one 8-processor machine: job `i` arrives at
/// `3 i` and starts at once on 2 processors for up to 10 s (so up to 4
/// overlap); with `reserved` (Conservative) it is reserved on arrival at its
/// start.
fn synthetic(n: u32, reserved: bool) -> (Cluster<1, 0>, Vec<SimJob>, RunLog) {
    let mut log = one(8);
    for i in 0..n {
        let submit = 3 * i;
        log.job(i + 1, submit, 2, 10, i % 13, 0, submit);
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

/// 300,000 jobs in well under a second per policy in release builds
/// (`cargo test --release -p backfill-tests checks_300_000`); debug builds
/// check 30,000 to keep the suite quick.
#[test]
fn checks_300_000_jobs_fast() {
    let n = if cfg!(debug_assertions) {
        30_000
    } else {
        300_000
    };
    for policy in Policy::ALL {
        let (cluster, jobs, run) = synthetic(n, policy.reserves_all());
        let started = Instant::now();
        assert_eq!(check(&cluster, policy, &jobs, &run), Ok(()), "{policy}");
        let took = started.elapsed();
        eprintln!("check of {n} jobs under {policy}: {took:?}");
        if !cfg!(debug_assertions) {
            assert!(took.as_secs_f64() < 1.0, "{policy}: {took:?}");
        }
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
