/*
 * Proof that the kernel needs no large stack: each tier's kernel is set up
 * in a static buffer by a thread with a 16 KiB stack (the large tier's
 * kernel is 8 MB), then a workload is replayed under every policy, each on
 * a stack of its own: 64 KiB, plus 16 bytes per queued-job slot for the
 * flexible kinds (bf-fcfs, bf-unmod, bf-mod sort the queue by priority
 * with their keys on the stack: 320 KiB for the large tier). Every stack
 * is this program's own memory with an inaccessible guard page below it,
 * so running past it is a crash (the compiled Rust touches every page of a
 * large frame in order); every stack is filled with a pattern first, and
 * the bytes found changed afterwards are the stack the calls wrote,
 * printed per tier and policy. Each replay also checkpoints its kernel
 * every 100 instants and restores it in place from those bytes, on the
 * pass's stack; and the longest Conservative checkpoint (the deepest queue
 * of reservations) is restored again on the init stack, 16 KiB.
 *
 *   stack [INIT_STACK_KIB [PASS_STACK_KIB]]   (defaults: 16 and 64)
 *
 * Exit status 0 when every run finished with a valid kernel.
 */
#define _DEFAULT_SOURCE /* mmap's MAP_ANONYMOUS */
#include "backfill.h"
#include "kernel_memory.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#define PATTERN 0xA5
#define JOBS 2000

typedef bf_status (*init_fn)(void *, size_t, const bf_cluster *, const bf_policy *, bf_kernel **);

typedef struct tier {
    const char *name;
    size_t (*size)(void);
    size_t (*align)(void);
    init_fn init;
} tier;

static const tier tiers[3] = {
    {"S", bf_kernel_s_size, bf_kernel_s_align, bf_kernel_s_init},
    {"M", bf_kernel_m_size, bf_kernel_m_align, bf_kernel_m_init},
    {"L", bf_kernel_l_size, bf_kernel_l_align, bf_kernel_l_init},
};

static const bf_machine machine = {64, BF_REFERENCE_SPEED};
static bf_job jobs[JOBS];
static uint32_t runtime_of[JOBS];

/* What a run does and how it went. */
typedef struct work {
    const tier *t;
    uint32_t kind; /* a bf_policy_kind; ignored by the init run */
    bf_kernel *k;
    int ok;
    unsigned long started, refused;
    char why[160];
} work;

/* A checkpoint taken in a replay, and the Conservative one kept. */
static uint8_t checkpoint_bytes[BF_CHECKPOINT_L_SIZE];
static uint8_t deep_checkpoint[BF_CHECKPOINT_L_SIZE];
static size_t deep_len;

/* Pending completions: end times by job, scanned (a test, not firmware). */
static uint32_t end_of[JOBS];
static unsigned char running_now[JOBS];

static void started(void *user, const bf_job *job, const bf_slot *slot) {
    work *w = user;
    uint32_t run = runtime_of[job->id] < slot->duration ? runtime_of[job->id] : slot->duration;
    end_of[job->id] = slot->start + run;
    running_now[job->id] = 1;
    w->started++;
}

static void *init_kernel(void *arg) {
    work *w = arg;
    bf_cluster cluster = {&machine, 1, NULL, 0};
    bf_policy policy;
    size_t room;
    void *memory = kernel_memory_aligned((uintptr_t)w->t->align(), &room);
    w->ok = bf_policy_default(BF_POLICY_EASY, &policy) == BF_OK &&
            w->t->init(memory, room, &cluster, &policy, &w->k) == BF_OK;
    return NULL;
}

/* Resets the kernel for `w->kind` and replays the jobs: completions, then
 * arrivals, then a pass, at the earliest of the next arrival, end and
 * wakeup (a full queue drops the job: the small tiers cannot hold them
 * all). */
static void *replay(void *arg) {
    work *w = arg;
    bf_cluster cluster = {&machine, 1, NULL, 0};
    bf_policy policy;
    bf_observer observer = {started, NULL, NULL, NULL};
    size_t next = 0, i, instants = 0, len = 0;
    observer.user = w;
    memset(running_now, 0, sizeof running_now);
    if (bf_policy_default(w->kind, &policy) != BF_OK ||
        bf_kernel_reset(w->k, &cluster, &policy) != BF_OK) {
        return NULL;
    }
    for (;;) {
        uint32_t now = 0, at = 0;
        bool has = false;
        int any = 0;
        if (next < JOBS) {
            now = jobs[next].submit;
            any = 1;
        }
        for (i = 0; i < JOBS; i++) {
            if (running_now[i] && (!any || end_of[i] < now)) {
                now = end_of[i];
                any = 1;
            }
        }
        if (bf_kernel_next_wakeup(w->k, &has, &at) != BF_OK) {
            return NULL;
        }
        if (has && (!any || at < now)) {
            now = at;
            any = 1;
        }
        if (!any) {
            break;
        }
        for (i = 0; i < JOBS; i++) {
            if (running_now[i] && end_of[i] <= now) {
                running_now[i] = 0;
                if (bf_kernel_complete(w->k, now, (uint32_t)i, NULL) != BF_OK) {
                    return NULL;
                }
            }
        }
        for (; next < JOBS && jobs[next].submit <= now; next++) {
            bf_status s = bf_kernel_submit(w->k, now, &jobs[next], NULL);
            if (s == BF_ERR_QUEUE_FULL) {
                w->refused++;
            } else if (s != BF_OK) {
                return NULL;
            }
        }
        if (bf_kernel_schedule(w->k, now, &observer, NULL) != BF_OK) {
            bf_kernel_last_error_text(w->k, w->why, sizeof w->why, NULL);
            return NULL;
        }
        if (++instants % 100 == 0) {
            /* Checkpoint and restore in place: the replay goes on as it was. */
            if (bf_kernel_checkpoint(w->k, checkpoint_bytes, sizeof checkpoint_bytes, &len) !=
                    BF_OK ||
                bf_kernel_restore(w->k, checkpoint_bytes, len) != BF_OK) {
                strcpy(w->why, "checkpoint or restore failed");
                return NULL;
            }
            if (w->kind == BF_POLICY_CONSERVATIVE && len > deep_len) {
                memcpy(deep_checkpoint, checkpoint_bytes, len);
                deep_len = len;
            }
        }
    }
    w->ok = bf_kernel_validate(w->k, w->why, sizeof w->why) == BF_OK;
    return NULL;
}

/* Restores the Conservative checkpoint kept by `replay` into `w->k`. */
static void *restore_deep(void *arg) {
    work *w = arg;
    w->ok = bf_kernel_restore(w->k, deep_checkpoint, deep_len) == BF_OK &&
            bf_kernel_validate(w->k, w->why, sizeof w->why) == BF_OK;
    return NULL;
}

/* Runs `f(w)` on a thread with a stack of `bytes` (and a guard page below
 * it), painted first; returns the bytes of it that were written, or 0 when
 * the thread could not run. */
static size_t on_stack(size_t bytes, void *(*f)(void *), work *w) {
    size_t page = (size_t)sysconf(_SC_PAGESIZE), used = 0, i;
    unsigned char *base, *stack;
    pthread_attr_t attr;
    pthread_t thread;
    base = mmap(NULL, bytes + page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (base == MAP_FAILED) {
        return 0;
    }
    if (mprotect(base, page, PROT_NONE) != 0) {
        munmap(base, bytes + page);
        return 0;
    }
    stack = base + page;
    memset(stack, PATTERN, bytes);
    if (pthread_attr_init(&attr) == 0 && pthread_attr_setstack(&attr, stack, bytes) == 0 &&
        pthread_create(&thread, &attr, f, w) == 0) {
        pthread_join(thread, NULL);
        for (i = 0; i < bytes && stack[i] == PATTERN; i++) {
        }
        used = bytes - i;
    }
    pthread_attr_destroy(&attr);
    munmap(base, bytes + page);
    return used;
}

int main(int argc, char **argv) {
    size_t init_stack = (size_t)(argc > 1 ? atoi(argv[1]) : 16) * 1024;
    size_t pass_stack = (size_t)(argc > 2 ? atoi(argv[2]) : 64) * 1024;
    uint64_t seed = 1;
    uint32_t t = 0, kind;
    size_t i, j;
    int failed = 0;

    /* A deterministic workload: bursts of arrivals on 64 processors. */
    for (i = 0; i < JOBS; i++) {
        uint32_t r;
        seed = seed * 6364136223846793005u + 1442695040888963407u;
        r = (uint32_t)(seed >> 33);
        t += r % 97 < 60 ? 0 : r % 5500; /* a load of about 0.9 */
        memset(&jobs[i], 0, sizeof jobs[i]);
        jobs[i].id = (uint32_t)i;
        jobs[i].submit = t;
        jobs[i].procs = 1 + (r >> 7) % 64;
        jobs[i].estimate = 60 + (r >> 13) % 3600;
        jobs[i].deadline = BF_NO_DEADLINE;
        runtime_of[i] = (r >> 3) % (jobs[i].estimate + jobs[i].estimate / 4);
    }

    printf("tier  kernel bytes  policy                       stack bytes  written  jobs started  refused\n");
    for (j = 0; j < 3; j++) {
        bf_capacity capacity;
        work w;
        size_t used;
        memset(&w, 0, sizeof w);
        w.t = &tiers[j];
        used = on_stack(init_stack, init_kernel, &w);
        printf("%-4s  %12lu  %-28s %11lu  %7lu\n", w.t->name, (unsigned long)w.t->size(),
               "(init)", (unsigned long)init_stack, (unsigned long)used);
        if (!w.ok || used == 0) {
            printf("FAILED: init\n");
            failed = 1;
            continue;
        }
        if (bf_kernel_capacity(w.k, &capacity) != BF_OK) {
            failed = 1;
            continue;
        }
        for (kind = BF_POLICY_FCFS; kind <= BF_POLICY_DPSA_W; kind++) {
            int flexible =
                kind == BF_POLICY_BF_FCFS || kind == BF_POLICY_BF_UNMOD || kind == BF_POLICY_BF_MOD;
            size_t stack = pass_stack + (flexible ? 16 * capacity.queued : 0);
            w.kind = kind;
            w.ok = 0;
            w.started = w.refused = 0;
            w.why[0] = '\0';
            used = on_stack(stack, replay, &w);
            printf("%-4s  %12lu  %-28s %11lu  %7lu  %12lu  %7lu%s%s\n", w.t->name,
                   (unsigned long)w.t->size(), bf_policy_kind_name(kind), (unsigned long)stack,
                   (unsigned long)used, w.started, w.refused, w.ok ? "" : "  FAILED ", w.why);
            failed |= !w.ok;
        }
        w.ok = 0;
        used = on_stack(init_stack, restore_deep, &w);
        printf("%-4s  %12lu  %-28s %11lu  %7lu  %lu bytes%s%s\n", w.t->name,
               (unsigned long)w.t->size(), "(restore, conservative)", (unsigned long)init_stack,
               (unsigned long)used, (unsigned long)deep_len, w.ok ? "" : "  FAILED ", w.why);
        failed |= !w.ok || used == 0;
        deep_len = 0;
    }
    return failed;
}
