/*
 * A firmware-style controller around the kernel, in C, on a simulated
 * clock: what core/examples/firmware.rs does, line for line the same
 * output (.ci/run compares them).
 *
 *   cargo build --release -p backfill-ffi
 *   cc -std=c99 -Wall -Wextra -Werror -pedantic -Iinclude ffi/examples/firmware.c \
 *      target/release/libbackfill_ffi.a -lpthread -ldl -lm -o firmware && ./firmware
 *   ./firmware --crash-at 5 --checkpoint /tmp/firmware.ckpt
 *
 * The appliance has two 16-processor nodes, the second twice as fast. Jobs
 * arrive over the "network" (here a table read in order: the moment each
 * arrives, the job, and how long it will really run, which only the
 * "hardware" knows). The controller loop is what firmware would run:
 *
 * 1. set the timer for the earliest of: the next arrival, the kernel's
 *    next wakeup, and the next end or kill of a running job; "sleep" until
 *    then (the clock is simulated: it jumps, nothing sleeps);
 * 2. finish every job that ended by now, and kill every job that reached
 *    its estimate (its slot's end), calling bf_kernel_complete for each,
 *    before bf_kernel_schedule would refuse with BF_ERR_OVERDUE;
 * 3. submit what arrived by now, after any jobs held back earlier because
 *    the wait queue was full;
 * 4. call bf_kernel_schedule; the callbacks print each start and each
 *    reservation and put started jobs on the hardware. Starts make room in
 *    the queue: held jobs are submitted then and get a pass of their own.
 *
 * After each batch of events (one wake of the timer) the controller writes
 * the kernel's checkpoint to a file (--checkpoint FILE, default
 * firmware.ckpt in the current directory, removed at the end): to a
 * temporary file first, then renamed over the old one, so that a crash
 * leaves the old checkpoint or the new one, never a torn file (rename
 * replaces the file atomically on POSIX systems; a firmware writing flash
 * alternates two slots instead). With --crash-at N the controller crashes
 * after the Nth batch: the kernel's memory is lost (overwritten, and a
 * kernel set up afresh for another policy), and the restarted controller
 * restores the kernel from the file and carries on. What lies outside the
 * controller carries on by itself: the hardware runs its jobs, the network
 * holds the arrivals the kernel has not accepted yet (the held jobs among
 * them), the clock runs. The schedule goes on unchanged: the lines are
 * those of a run without the crash, and two more saying where it happened.
 *
 * The kernel lives in a static buffer this program owns (the small tier,
 * its queue limited to 4 jobs, as the Rust example's kernel holds 4). Every
 * status is handled: a full queue (or plan) holds the job back and submits
 * it again once a job has left the queue; a job that can never run (too
 * wide, zero estimate, duplicate id, submitted in the future) is reported
 * and dropped; a full running set or plan waits for a completion; an
 * overdue job is killed; anything else stops the controller with the
 * kernel's message.
 */
#include "backfill.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Waiting jobs the kernel accepts (small, to show a full queue). */
#define QUEUE_LIMIT 4
/* Room for the hardware's tables (more than this scenario needs). */
#define MAX_JOBS 32

/* The kernel's memory: the small tier's size (exact on x86_64; elsewhere
 * a generous figure, which init checks), plus room to align it. */
#ifdef BF_KERNEL_S_SIZE
#define KERNEL_BYTES BF_KERNEL_S_SIZE
#else
#define KERNEL_BYTES (96u * 1024u)
#endif
#define KERNEL_SLACK 64u
static unsigned char kernel_memory[KERNEL_BYTES + KERNEL_SLACK];

/* A job arriving over the "network". */
typedef struct arrival {
    uint32_t at;      /* when it arrives */
    bf_job job;       /* what the scheduler sees */
    uint32_t runtime; /* how long it really runs on a reference-speed node */
} arrival;

/* A job on the hardware. */
typedef struct on_node {
    uint32_t id;
    uint32_t ends;    /* when it ends by itself */
    uint32_t kill_at; /* when its estimate runs out and the controller kills it */
} on_node;

/* A job's actual run time, known to the hardware until it starts. */
typedef struct runtime_of {
    uint32_t id;
    uint32_t runtime;
} runtime_of;

/* The simulated hardware: what runs where, and the hidden run times. */
static const bf_machine nodes[2] = {{16, 1000}, {16, 2000}};
static on_node running[MAX_JOBS];
static size_t n_running;
static runtime_of runtimes[MAX_JOBS];
static size_t n_runtimes;

/* Jobs held back by a full queue, oldest first. */
static arrival held[MAX_JOBS];
static size_t n_held;

/* The clock, as the callbacks see it. */
static uint32_t clock_now;

static bf_kernel *kernel;

/* The kernel's checkpoint: the most the small tier's takes. */
static uint8_t checkpoint_bytes[BF_CHECKPOINT_S_SIZE];

/* `t` seconds as h:mm:ss. */
static const char *hms(uint32_t t, char out[24]) {
    sprintf(out, "%" PRIu32 ":%02" PRIu32 ":%02" PRIu32, t / 3600, t / 60 % 60, t % 60);
    return out;
}

static void say(uint32_t now, const char *format, ...) {
    char when[24];
    va_list args;
    printf("%8s  ", hms(now, when));
    va_start(args, format);
    vprintf(format, args);
    va_end(args);
    putchar('\n');
}

/* The kernel's message for its latest error. */
static const char *last_error(void) {
    static char text[160];
    if (bf_kernel_last_error_text(kernel, text, sizeof text, NULL) != BF_OK) {
        strcpy(text, "(message unavailable)");
    }
    return text;
}

static uint32_t saturating_add(uint32_t a, uint32_t b) {
    return a > UINT32_MAX - b ? UINT32_MAX : a + b;
}

/* The earliest moment a running job ends or must be killed; 0 if none. */
static int next_event(uint32_t *at) {
    size_t i;
    int any = 0;
    for (i = 0; i < n_running; i++) {
        uint32_t t = running[i].ends < running[i].kill_at ? running[i].ends : running[i].kill_at;
        if (!any || t < *at) {
            *at = t;
            any = 1;
        }
    }
    return any;
}

/* Callback: the kernel starts `job` now at `slot`. */
static void started(void *user, const bf_job *job, const bf_slot *slot) {
    const bf_machine *machine = &nodes[slot->machine];
    uint32_t runtime = 0, run = 0;
    char kill[24];
    size_t i;
    on_node on;
    (void)user;
    for (i = 0; i < n_runtimes; i++) {
        if (runtimes[i].id == job->id) {
            runtime = runtimes[i].runtime;
            runtimes[i] = runtimes[--n_runtimes]; /* swap-remove */
            break;
        }
    }
    /* The node's speed scales the real run time as it scales the estimate. */
    if (bf_machine_scale(machine, runtime, &run) != BF_OK) {
        run = UINT32_MAX;
    }
    on.id = job->id;
    on.ends = saturating_add(slot->start, run);
    on.kill_at = saturating_add(slot->start, slot->duration);
    say(clock_now,
        "start   job %" PRIu32 " on node %" PRIu32 " (%" PRIu32 " of %" PRIu32
        " processors), killed at %s unless it ends",
        job->id, slot->machine, job->procs, machine->cpus, hms(on.kill_at, kill));
    running[n_running++] = on;
}

/* Callback: `job` got, or moved, a reservation at `slot`. */
static void reserved(void *user, const bf_job *job, const bf_slot *slot) {
    char from[24], to[24];
    (void)user;
    say(clock_now, "reserve job %" PRIu32 " on node %" PRIu32 " from %s to %s", job->id,
        slot->machine, hms(slot->start, from),
        hms(saturating_add(slot->start, slot->duration), to));
}

static const bf_observer observer = {started, reserved, NULL, NULL};

enum outcome { DONE, HOLD, FAILED };

/* Submits `a`, handling every refusal: HOLD when it must be retried later. */
static enum outcome submit(uint32_t now, const arrival *a) {
    bf_status s = bf_kernel_submit(kernel, now, &a->job, &observer);
    switch (s) {
    case BF_OK:
        runtimes[n_runtimes].id = a->job.id;
        runtimes[n_runtimes].runtime = a->runtime;
        n_runtimes++;
        return DONE;
    case BF_ERR_QUEUE_FULL:
    case BF_ERR_PROFILE_FULL:
        say(now, "hold    job %" PRIu32 ": %s; submitted again when a job starts", a->job.id,
            last_error());
        return HOLD;
    case BF_ERR_UNRUNNABLE:
    case BF_ERR_INVALID_JOB:
    case BF_ERR_DUPLICATE_JOB:
    case BF_ERR_SUBMIT_IN_FUTURE:
        say(now, "refuse  %s: dropped", last_error());
        return DONE;
    default:
        fprintf(stderr, "error: submit: %s (%s)\n", last_error(), bf_status_message(s));
        return FAILED;
    }
}

/* Ends or kills every job due by `now`. */
static int finish_due(uint32_t now) {
    size_t i = 0;
    while (i < n_running) {
        on_node r = running[i];
        bf_status s;
        if ((r.ends < r.kill_at ? r.ends : r.kill_at) > now) {
            i++;
            continue;
        }
        running[i] = running[--n_running]; /* swap-remove */
        s = bf_kernel_complete(kernel, now, r.id, NULL);
        if (s == BF_OK && r.ends <= r.kill_at) {
            say(now, "end     job %" PRIu32, r.id);
        } else if (s == BF_OK) {
            say(now, "kill    job %" PRIu32 ": its estimate ran out", r.id);
        } else if (s == BF_ERR_UNKNOWN_JOB) {
            /* The hardware and the kernel disagree: trust the kernel. */
            say(now, "warn    job %" PRIu32 " was not running in the kernel", r.id);
        } else {
            fprintf(stderr, "error: complete: %s\n", last_error());
            return -1;
        }
    }
    return 0;
}

/* Submits held jobs, oldest first, while the wait queue has room. Returns
 * 1 when any was submitted, 0 when none, -1 on a failure. */
static int retry_held(uint32_t now) {
    int any = 0;
    size_t queued = 0;
    while (n_held > 0) {
        arrival a;
        enum outcome o;
        if (bf_kernel_queued_count(kernel, &queued) != BF_OK || queued >= QUEUE_LIMIT) {
            break;
        }
        a = held[0];
        memmove(&held[0], &held[1], (n_held - 1) * sizeof held[0]);
        n_held--;
        say(now, "retry   job %" PRIu32, a.job.id);
        o = submit(now, &a);
        if (o == FAILED) {
            return -1;
        }
        if (o == HOLD) {
            memmove(&held[1], &held[0], n_held * sizeof held[0]);
            held[0] = a;
            n_held++;
            break;
        }
        any = 1;
    }
    return any;
}

/* One scheduling pass, handling every refusal. */
static int pass(uint32_t now) {
    bf_status s = bf_kernel_schedule(kernel, now, &observer, NULL);
    bf_error e;
    size_t i, kept;
    switch (s) {
    case BF_OK:
        return 0;
    case BF_ERR_OVERDUE:
        /* Not reached here (ends and kills come first); a controller that
         * missed a deadline kills the job now and passes again. */
        if (bf_kernel_last_error(kernel, &e) != BF_OK) {
            return -1;
        }
        say(now, "kill    job %" PRIu32 ": found past its estimate", e.job);
        for (i = 0, kept = 0; i < n_running; i++) {
            if (running[i].id != e.job) {
                running[kept++] = running[i];
            }
        }
        n_running = kept;
        if (bf_kernel_complete(kernel, now, e.job, NULL) != BF_OK) {
            fprintf(stderr, "error: complete: %s\n", last_error());
            return -1;
        }
        return pass(now);
    case BF_ERR_RUNNING_FULL:
    case BF_ERR_PROFILE_FULL:
        /* The jobs started before the refusal stay started. */
        say(now, "wait    %s: passing again at the next event", last_error());
        return 0;
    default:
        fprintf(stderr, "error: schedule: %s (%s)\n", last_error(), bf_status_message(s));
        return -1;
    }
}

/* Writes the kernel's checkpoint to `path`, atomically: into a temporary
 * file beside it, then renamed over it. Returns 0, or -1 on a failure. */
static int save(const char *path) {
    char tmp[512];
    size_t n = 0;
    FILE *f;
    int ok;
    if (strlen(path) + 5 > sizeof tmp ||
        bf_kernel_checkpoint(kernel, checkpoint_bytes, sizeof checkpoint_bytes, &n) != BF_OK) {
        return -1;
    }
    sprintf(tmp, "%s.tmp", path);
    f = fopen(tmp, "wb");
    if (f == NULL) {
        return -1;
    }
    ok = fwrite(checkpoint_bytes, 1, n, f) == n;
    ok = fflush(f) == 0 && ok;
    ok = fclose(f) == 0 && ok;
    return ok && rename(tmp, path) == 0 ? 0 : -1;
}

/* The crash and the restart: the kernel's memory is lost, a kernel is set
 * up afresh (for another policy: the restore sets everything), and the
 * checkpoint in `path` restored into it. Returns 0, or -1 on a failure. */
static int crash_and_restart(uint32_t now, void *memory, size_t room, const bf_cluster *cluster,
                             const char *path) {
    bf_policy fcfs;
    bf_status s;
    size_t n;
    FILE *f;
    say(now, "crash   the controller stops: the kernel's memory is lost");
    memset(memory, 0xA5, room);
    if (bf_policy_default(BF_POLICY_FCFS, &fcfs) != BF_OK ||
        bf_kernel_s_init(memory, room, cluster, &fcfs, &kernel) != BF_OK) {
        return -1;
    }
    f = fopen(path, "rb");
    if (f == NULL) {
        return -1;
    }
    n = fread(checkpoint_bytes, 1, sizeof checkpoint_bytes, f);
    fclose(f);
    s = bf_kernel_restore(kernel, checkpoint_bytes, n);
    if (s != BF_OK) {
        fprintf(stderr, "error: restore: %s\n", bf_status_message(s));
        return -1;
    }
    say(now, "restart kernel restored from the checkpoint (%lu bytes)", (unsigned long)n);
    return 0;
}

/* A job arriving at `at` (submitted then). */
static arrival job(uint32_t id, uint32_t at, uint32_t procs, uint32_t estimate, uint32_t runtime) {
    arrival a;
    memset(&a, 0, sizeof a);
    a.at = at;
    a.job.id = id;
    a.job.submit = at;
    a.job.procs = procs;
    a.job.estimate = estimate;
    a.job.deadline = BF_NO_DEADLINE;
    a.runtime = runtime;
    return a;
}

int main(int argc, char **argv) {
    const uint32_t min = 60;
    const char *path = "firmware.ckpt";
    unsigned long crash_at = 0, batch = 0;
    int a;
    arrival arrivals[11];
    size_t n_arrivals = sizeof arrivals / sizeof arrivals[0], next = 0, i;
    bf_cluster cluster;
    bf_policy policy;
    bf_status s;
    uintptr_t align = (uintptr_t)bf_kernel_s_align();
    void *memory = (void *)(((uintptr_t)kernel_memory + align - 1) / align * align);
    size_t room = sizeof kernel_memory - (size_t)((unsigned char *)memory - kernel_memory);
    uint32_t clock = 0;

    for (a = 1; a < argc; a += 2) {
        char *end = NULL;
        if (a + 1 >= argc) {
            fprintf(stderr, "firmware: %s needs a value\n", argv[a]);
            return 2;
        }
        if (strcmp(argv[a], "--crash-at") == 0) {
            crash_at = strtoul(argv[a + 1], &end, 10);
            if (end == argv[a + 1] || *end != '\0') {
                fprintf(stderr, "firmware: --crash-at %s: not a number\n", argv[a + 1]);
                return 2;
            }
        } else if (strcmp(argv[a], "--checkpoint") == 0) {
            path = argv[a + 1];
        } else {
            fprintf(stderr, "firmware: unknown option %s\nusage: firmware [--crash-at N] "
                            "[--checkpoint FILE]\n",
                    argv[a]);
            return 2;
        }
    }

    arrivals[0] = job(1, 0, 16, 60 * min, 40 * min);
    arrivals[1] = job(2, 0, 16, 120 * min, 150 * min); /* runs past its estimate: killed */
    arrivals[2] = job(3, 5 * min, 8, 30 * min, 10 * min);
    arrivals[3] = job(4, 5 * min, 16, 60 * min, 60 * min);
    arrivals[4] = job(5, 5 * min, 4, 15 * min, 5 * min);
    arrivals[5] = job(6, 5 * min, 8, 45 * min, 20 * min);
    arrivals[6] = job(7, 5 * min, 2, 10 * min, 10 * min);   /* the queue is full by now */
    arrivals[7] = job(8, 10 * min, 64, 30 * min, 30 * min); /* wider than any node */
    arrivals[8] = job(5, 10 * min, 4, 15 * min, 5 * min);   /* a duplicate id */
    arrivals[9] = job(9, 12 * min, 4, 0, 60);               /* a zero estimate */
    arrivals[10] = job(10, 20 * min, 12, 30 * min, 25 * min);

    cluster.machines = nodes;
    cluster.machine_count = 2;
    cluster.pools = NULL;
    cluster.pool_count = 0;
    s = bf_policy_default(BF_POLICY_CONSERVATIVE, &policy);
    if (s == BF_OK) {
        s = bf_kernel_s_init(memory, room, &cluster, &policy, &kernel);
    }
    if (s == BF_OK) {
        s = bf_kernel_set_queue_limit(kernel, QUEUE_LIMIT);
    }
    if (s != BF_OK) {
        fprintf(stderr, "error: setting the kernel up: %s\n", bf_status_message(s));
        return 1;
    }

    printf("    time  event (Conservative; two 16-processor nodes, node 1 twice as fast)\n");
    for (;;) {
        /* 1. The timer: the earliest thing that needs the controller; none
         *    left means every job is done. */
        uint32_t wake = 0, t = 0;
        int any = 0;
        bool has_wakeup = false;
        if (next < n_arrivals) {
            wake = arrivals[next].at;
            any = 1;
        }
        if (bf_kernel_next_wakeup(kernel, &has_wakeup, &t) != BF_OK) {
            return 1;
        }
        if (has_wakeup && (!any || t < wake)) {
            wake = t;
            any = 1;
        }
        if (next_event(&t) && (!any || t < wake)) {
            wake = t;
            any = 1;
        }
        if (!any) {
            break;
        }
        clock = clock > wake ? clock : wake; /* simulated: the clock jumps, nothing sleeps */
        clock_now = clock;

        /* 2. Ends and kills first, so schedule never sees an overdue job. */
        if (finish_due(clock) != 0) {
            return 1;
        }

        /* 3. Arrivals: jobs held back first, then what came in by now. */
        if (retry_held(clock) < 0) {
            return 1;
        }
        while (next < n_arrivals && arrivals[next].at <= clock) {
            const arrival *a = &arrivals[next];
            char estimate[24];
            enum outcome o;
            say(clock, "arrive  job %" PRIu32 " (%" PRIu32 " processors, estimate %s)", a->job.id,
                a->job.procs, hms(a->job.estimate, estimate));
            o = submit(clock, a);
            if (o == FAILED) {
                return 1;
            }
            if (o == HOLD) {
                held[n_held++] = *a;
            }
            next++;
        }

        /* 4. A scheduling pass; starts make room in the queue for held
         *    jobs, which then get a pass of their own. */
        if (pass(clock) != 0) {
            return 1;
        }
        switch (retry_held(clock)) {
        case 1:
            if (pass(clock) != 0) {
                return 1;
            }
            break;
        case 0:
            break;
        default:
            return 1;
        }

        /* 5. The batch is done: checkpoint. A crash loses the kernel's
         *    memory; the restarted controller restores it from the file. */
        batch++;
        if (save(path) != 0) {
            fprintf(stderr, "error: writing the checkpoint to %s\n", path);
            return 1;
        }
        if (batch == crash_at && crash_and_restart(clock, memory, room, &cluster, path) != 0) {
            return 1;
        }
    }
    if (remove(path) != 0) {
        fprintf(stderr, "error: removing %s\n", path);
        return 1;
    }
    for (i = 0; i < n_held; i++) {
        say(clock, "drop    job %" PRIu32 ": never found room", held[i].job.id);
    }
    say(clock, "idle: every job has ended, been killed or been refused");
    return 0;
}
