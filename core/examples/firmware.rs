//! A firmware-style controller around the kernel, on a simulated clock.
//!
//! `cargo run -p backfill-core --example firmware [-- --crash-at N] [--checkpoint FILE]`
//!
//! The appliance has two 16-processor nodes, the second twice as fast. A
//! producer thread stands for the network: it sends job arrivals (the
//! moment each arrives, the job, and how long it will really run, which only
//! the "hardware" knows) over a `std::sync::mpsc` channel. The controller
//! loop is what firmware would run:
//!
//! 1. set the timer for the earliest of: the next arrival, the kernel's
//!    `next_wakeup()`, and the next end or kill of a running job; "sleep"
//!    until then (the clock is simulated: it jumps, nothing sleeps);
//! 2. finish every job that ended by now, and kill every job that reached
//!    its estimate (its slot's end), calling `complete` for each, before
//!    `schedule` would refuse with `Overdue`;
//! 3. submit what arrived by now, after any jobs held back earlier because
//!    the wait queue was full;
//! 4. call `schedule`; the observer prints each start and each reservation
//!    and puts started jobs on the hardware. Starts make room in the queue:
//!    held jobs are submitted then and get a pass of their own.
//!
//! After each batch of events (one wake of the timer) the controller writes
//! the kernel's checkpoint to a file (`--checkpoint FILE`, default
//! `firmware.ckpt` in the current directory, removed at the end), to a
//! temporary file first and then renamed over the old one, so that a crash
//! leaves the old checkpoint or the new one, never a torn file. With
//! `--crash-at N` the controller crashes after the `N`th batch: the kernel's
//! memory is lost (a kernel set up afresh, for another policy, takes its
//! place), and the restarted controller restores the kernel from the file
//! and carries on. What lies outside the controller carries on by itself:
//! the hardware runs its jobs, the network holds the arrivals the kernel
//! has not accepted yet (the held jobs among them), the clock runs. The
//! schedule goes on unchanged: the lines printed are those of a run without
//! the crash, and two more saying where it happened.
//!
//! Every `KernelError` is handled: a full queue (or plan) holds the job back
//! and submits it again once a job has left the queue, a job that can never run (too
//! wide, zero estimate, duplicate id, submitted in the future) is reported
//! and dropped, a full running set or plan waits for a completion, an
//! overdue job is killed, and the rest (time going backwards, an
//! overflowing time, an internal inconsistency) stop the controller with
//! the error.

use backfill_core::{Cluster, Duration, Job, JobId, Kernel, KernelError, Machine, Observer};
use backfill_core::{Policy, Slot, Time};
use std::collections::VecDeque;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::mpsc;
use std::thread;

/// Waiting jobs the kernel holds (small, to show a full queue).
const Q: usize = 4;
/// Running jobs.
const R: usize = 8;
/// Profile steps: Conservative needs at most `2Q + R + 1`.
const B: usize = 2 * Q + R + 1;
/// The kernel.
type Controlled = Kernel<Q, R, B, 2, 0>;
/// The most bytes its checkpoint takes: a buffer sized at compile time.
const CHECKPOINT_SIZE: usize = Controlled::checkpoint_size();

/// A job arriving over the "network".
#[derive(Clone, Copy, Debug)]
struct Arrival {
    /// When it arrives.
    at: Time,
    /// What the scheduler sees.
    job: Job,
    /// How long it really runs on a reference-speed node (hidden from the
    /// kernel).
    runtime: Duration,
}

/// A job on the hardware.
#[derive(Clone, Copy, Debug)]
struct OnNode {
    id: JobId,
    /// When it ends by itself.
    ends: Time,
    /// When its estimate runs out and the controller kills it.
    kill_at: Time,
}

/// The simulated hardware: what runs where, and the hidden run times.
#[derive(Debug)]
struct Hardware {
    cluster: Cluster<2, 0>,
    running: Vec<OnNode>,
    /// Actual run times of jobs submitted but not started.
    runtimes: Vec<(JobId, Duration)>,
}

impl Hardware {
    /// The earliest moment a running job ends or must be killed.
    fn next_event(&self) -> Option<Time> {
        self.running.iter().map(|r| r.ends.min(r.kill_at)).min()
    }
}

/// The observer: prints the kernel's decisions and starts jobs on the
/// hardware.
struct Controller<'a> {
    now: Time,
    hw: &'a mut Hardware,
}

impl Observer for Controller<'_> {
    fn started(&mut self, job: &Job, slot: Slot) {
        let machine = self.hw.cluster.machines()[usize::from(slot.machine)];
        let runtime = self
            .hw
            .runtimes
            .iter()
            .position(|(id, _)| *id == job.id)
            .map_or(0, |i| self.hw.runtimes.swap_remove(i).1);
        // The node's speed scales the real run time as it scales the
        // estimate.
        let run = machine.scale(runtime).unwrap_or(Duration::MAX);
        let on = OnNode {
            id: job.id,
            ends: slot.start.saturating_add(run),
            kill_at: slot.end(),
        };
        log(
            self.now,
            &format!(
                "start   job {} on node {} ({} of {} processors), killed at {} unless it ends",
                job.id,
                slot.machine,
                job.procs,
                machine.cpus,
                hms(on.kill_at)
            ),
        );
        self.hw.running.push(on);
    }

    fn reserved(&mut self, job: &Job, slot: Slot) {
        log(
            self.now,
            &format!(
                "reserve job {} on node {} from {} to {}",
                job.id,
                slot.machine,
                hms(slot.start),
                hms(slot.end())
            ),
        );
    }
}

/// `t` seconds as `h:mm:ss`.
fn hms(t: Time) -> String {
    format!("{}:{:02}:{:02}", t / 3600, t / 60 % 60, t % 60)
}

fn log(now: Time, what: &str) {
    println!("{:>8}  {what}", hms(now));
}

/// The jobs the producer sends, in arrival order.
fn arrivals() -> Vec<Arrival> {
    let min = 60;
    let job = |id, at, procs, estimate, runtime| Arrival {
        at,
        job: Job::new(id, at, procs, estimate),
        runtime,
    };
    vec![
        job(1, 0, 16, 60 * min, 40 * min),
        job(2, 0, 16, 120 * min, 150 * min), // runs past its estimate: killed
        job(3, 5 * min, 8, 30 * min, 10 * min),
        job(4, 5 * min, 16, 60 * min, 60 * min),
        job(5, 5 * min, 4, 15 * min, 5 * min),
        job(6, 5 * min, 8, 45 * min, 20 * min),
        job(7, 5 * min, 2, 10 * min, 10 * min), // the queue is full by now
        job(8, 10 * min, 64, 30 * min, 30 * min), // wider than any node
        job(5, 10 * min, 4, 15 * min, 5 * min), // a duplicate id
        job(9, 12 * min, 4, 0, 60),             // a zero estimate
        job(10, 20 * min, 12, 30 * min, 25 * min),
    ]
}

/// Submits `job`, handling every refusal. Returns the job if it must be
/// retried later.
fn submit(
    kernel: &mut Controlled,
    hw: &mut Hardware,
    now: Time,
    job: Job,
    runtime: Duration,
) -> Result<Option<(Job, Duration)>, KernelError> {
    match kernel.submit(now, job, &mut Controller { now, hw }) {
        Ok(()) => {
            hw.runtimes.push((job.id, runtime));
            Ok(None)
        }
        Err(e @ (KernelError::QueueFull(_) | KernelError::ProfileFull)) => {
            log(
                now,
                &format!(
                    "hold    job {}: {e}; submitted again when a job starts",
                    job.id
                ),
            );
            Ok(Some((job, runtime)))
        }
        Err(
            e @ (KernelError::Unrunnable(_)
            | KernelError::InvalidJob(_)
            | KernelError::DuplicateJob(_)
            | KernelError::SubmitInFuture(_)),
        ) => {
            log(now, &format!("refuse  {e}: dropped"));
            Ok(None)
        }
        Err(e) => Err(e),
    }
}

/// Ends or kills every job due by `now`.
fn finish_due(kernel: &mut Controlled, hw: &mut Hardware, now: Time) -> Result<(), KernelError> {
    let mut i = 0;
    while i < hw.running.len() {
        let r = hw.running[i];
        if r.ends.min(r.kill_at) > now {
            i += 1;
            continue;
        }
        hw.running.swap_remove(i);
        match kernel.complete(now, r.id) {
            Ok(_) if r.ends <= r.kill_at => log(now, &format!("end     job {}", r.id)),
            Ok(_) => log(now, &format!("kill    job {}: its estimate ran out", r.id)),
            // The hardware and the kernel disagree: trust the kernel.
            Err(KernelError::UnknownJob(id)) => {
                log(
                    now,
                    &format!("warn    job {id} was not running in the kernel"),
                );
            }
            Err(e) => return Err(e),
        }
    }
    Ok(())
}

/// Submits held jobs, oldest first, while the wait queue has room.
/// Returns whether any was submitted.
fn retry_held(
    kernel: &mut Controlled,
    hw: &mut Hardware,
    now: Time,
    held: &mut VecDeque<(Job, Duration)>,
) -> Result<bool, KernelError> {
    let mut any = false;
    while kernel.queued().len() < Q {
        let Some((job, runtime)) = held.pop_front() else {
            break;
        };
        log(now, &format!("retry   job {}", job.id));
        match submit(kernel, hw, now, job, runtime)? {
            Some(again) => {
                held.push_front(again);
                break;
            }
            None => any = true,
        }
    }
    Ok(any)
}

/// One scheduling pass, handling every refusal.
fn pass(kernel: &mut Controlled, hw: &mut Hardware, now: Time) -> Result<(), KernelError> {
    match kernel.schedule(now, &mut Controller { now, hw }) {
        Ok(_) => Ok(()),
        Err(KernelError::Overdue(id)) => {
            // Not reached here (ends and kills come first); a controller
            // that missed a deadline kills the job now and passes again.
            log(now, &format!("kill    job {id}: found past its estimate"));
            hw.running.retain(|r| r.id != id);
            kernel.complete(now, id)?;
            pass(kernel, hw, now)
        }
        Err(e @ (KernelError::RunningFull(_) | KernelError::ProfileFull)) => {
            // The jobs started before the refusal stay started.
            log(
                now,
                &format!("wait    {e}: passing again at the next event"),
            );
            Ok(())
        }
        Err(e) => Err(e),
    }
}

/// Writes the kernel's checkpoint to `path`, atomically: into a temporary
/// file beside it, flushed to the disk, then renamed over it.
fn save(kernel: &Controlled, path: &Path) -> std::io::Result<usize> {
    let mut buf = [0u8; CHECKPOINT_SIZE];
    let len = kernel.checkpoint(&mut buf).map_err(std::io::Error::other)?;
    let mut tmp = path.as_os_str().to_owned();
    tmp.push(".tmp");
    let mut file = std::fs::File::create(&tmp)?;
    file.write_all(&buf[..len])?;
    file.sync_all()?;
    drop(file);
    std::fs::rename(&tmp, path)?;
    Ok(len)
}

/// The command line: `--crash-at N`, `--checkpoint FILE`.
fn options() -> Result<(Option<u32>, PathBuf), String> {
    let mut crash_at = None;
    let mut path = PathBuf::from("firmware.ckpt");
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        let value = args.next().ok_or(format!("{arg} needs a value"))?;
        match arg.as_str() {
            "--crash-at" => {
                let n = value
                    .parse()
                    .map_err(|_| format!("--crash-at {value}: not a number"))?;
                crash_at = Some(n);
            }
            "--checkpoint" => path = PathBuf::from(value),
            _ => return Err(format!("unknown option {arg}")),
        }
    }
    Ok((crash_at, path))
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let (crash_at, path) = options().unwrap_or_else(|e| {
        eprintln!("firmware: {e}\nusage: firmware [--crash-at N] [--checkpoint FILE]");
        std::process::exit(2)
    });
    let cluster: Cluster<2, 0> = Cluster::new(
        &[
            Machine::new(16),
            Machine {
                cpus: 16,
                speed: 2000,
            },
        ],
        &[],
    )?;
    let mut kernel: Controlled = Kernel::new(cluster.clone(), Policy::Conservative);
    let mut hw = Hardware {
        cluster,
        running: Vec::new(),
        runtimes: Vec::new(),
    };

    // The network: a thread sending arrivals, then hanging up.
    let (tx, rx) = mpsc::channel();
    let producer = thread::spawn(move || {
        for a in arrivals() {
            if tx.send(a).is_err() {
                break;
            }
        }
    });

    println!("    time  event (Conservative; two 16-processor nodes, node 1 twice as fast)");
    let mut next: Option<Arrival> = rx.recv().ok();
    let mut held: VecDeque<(Job, Duration)> = VecDeque::new();
    let mut clock: Time = 0;
    let mut batch = 0;
    // 1. The timer: the earliest thing that needs the controller; none left
    //    means every job is done.
    while let Some(wake) = [next.map(|a| a.at), kernel.next_wakeup(), hw.next_event()]
        .into_iter()
        .flatten()
        .min()
    {
        clock = clock.max(wake); // simulated: the clock jumps, nothing sleeps

        // 2. Ends and kills first, so schedule never sees an overdue job.
        finish_due(&mut kernel, &mut hw, clock)?;

        // 3. Arrivals: jobs held back first, then what came in by now.
        retry_held(&mut kernel, &mut hw, clock, &mut held)?;
        while let Some(a) = next.filter(|a| a.at <= clock) {
            log(
                clock,
                &format!(
                    "arrive  job {} ({} processors, estimate {})",
                    a.job.id,
                    a.job.procs,
                    hms(a.job.estimate)
                ),
            );
            if let Some(again) = submit(&mut kernel, &mut hw, clock, a.job, a.runtime)? {
                held.push_back(again);
            }
            next = rx.recv().ok();
        }

        // 4. A scheduling pass; starts make room in the queue for held jobs,
        //    which then get a pass of their own.
        pass(&mut kernel, &mut hw, clock)?;
        if retry_held(&mut kernel, &mut hw, clock, &mut held)? {
            pass(&mut kernel, &mut hw, clock)?;
        }

        // 5. The batch is done: checkpoint. A crash loses the kernel's
        //    memory; the restarted controller restores it from the file.
        batch += 1;
        save(&kernel, &path)?;
        if crash_at == Some(batch) {
            log(
                clock,
                "crash   the controller stops: the kernel's memory is lost",
            );
            // The kernel's memory is lost: a kernel set up afresh (for
            // another policy: the restore sets everything) takes its place.
            kernel = Kernel::new(hw.cluster.clone(), Policy::Fcfs);
            let bytes = std::fs::read(&path)?;
            kernel.restore(&bytes)?;
            log(
                clock,
                &format!(
                    "restart kernel restored from the checkpoint ({} bytes)",
                    bytes.len()
                ),
            );
        }
    }
    std::fs::remove_file(&path)?;
    producer
        .join()
        .map_err(|_| "the producer thread panicked")?;
    for (job, _) in &held {
        log(clock, &format!("drop    job {}: never found room", job.id));
    }
    log(
        clock,
        "idle: every job has ended, been killed or been refused",
    );
    Ok(())
}
