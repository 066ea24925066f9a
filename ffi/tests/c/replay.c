/*
 * Replays a job list through the C interface, the way the kernel's own
 * replay loop (backfill_core::Simulator, behind `host-cli replay`) does,
 * and writes the schedule, so that .ci/run can compare it with host-cli's
 * job for job.
 *
 *   replay PROCS POLICY JOBS.csv [OPTION=VALUE ...] > schedule.csv
 *
 * PROCS: the machine's processors (one machine, reference speed).
 * POLICY: a policy name as host-cli takes it ("easy", "selective-d",
 * "conservative-no-compression", ...), with its kind's defaults, changed by
 * the options: threshold=, scale=, well_estimated_only=, seed=,
 * iterations= (a fixed count per search), nodes= (bf_policy fields;
 * thresholds in thousandths), and queue_at=T: instead of the schedule,
 * write the queue as bf_kernel_waiting gives it once every event at or
 * before T is done (position from 1, job_id, procs, estimate, reason,
 * expected_start: what `host-cli replay --queue-at T` reports).
 * JOBS.csv: what `host-cli replay --jobs-out` writes (columns job_id,
 * submit, start, end, wait, run, estimate, procs, bounded_slowdown,
 * category, killed, guarantee): each row is a job in replay order; its
 * actual run time is `run`, or longer than its estimate when `killed`.
 *
 * The loop: the next instant is the earliest of the next arrival, the next
 * end of a running job and the kernel's next wakeup; at it, every
 * completion (by end time, then start order), then every arrival (input
 * order), then one scheduling pass. A job runs min(run time, estimate).
 * Output: job_id, submit, start, end, wait, run, estimate, procs, killed,
 * guarantee, in input order: host-cli's columns without the two derived
 * ones (bounded_slowdown, category).
 *
 * The kernel is the large tier, in a static buffer (8 MB on x86_64).
 */
#include "backfill.h"
#include "kernel_memory.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A job of the list, and what became of it. */
typedef struct row {
    char label[32];    /* the list's job_id */
    bf_job job;        /* id: its index */
    uint32_t runtime;  /* actual run time on the reference machine */
    int finished;
    uint32_t start, end, guarantee;
    bool killed, has_guarantee;
} row;

/* A pending completion: (end, start order), earliest first. */
typedef struct pending {
    uint32_t end;
    uint64_t order;
    uint32_t id;
} pending;

static row *rows;
static size_t n_rows;
static pending *heap;
static size_t n_heap;
static uint64_t starts;

static int before(const pending *a, const pending *b) {
    return a->end != b->end ? a->end < b->end : a->order < b->order;
}

static void heap_push(pending p) {
    size_t i = n_heap++;
    heap[i] = p;
    while (i > 0 && before(&heap[i], &heap[(i - 1) / 2])) {
        pending t = heap[i];
        heap[i] = heap[(i - 1) / 2];
        heap[(i - 1) / 2] = t;
        i = (i - 1) / 2;
    }
}

static pending heap_pop(void) {
    pending top = heap[0];
    size_t i = 0;
    heap[0] = heap[--n_heap];
    for (;;) {
        size_t l = 2 * i + 1, r = l + 1, m = i;
        pending t;
        if (l < n_heap && before(&heap[l], &heap[m])) {
            m = l;
        }
        if (r < n_heap && before(&heap[r], &heap[m])) {
            m = r;
        }
        if (m == i) {
            break;
        }
        t = heap[i];
        heap[i] = heap[m];
        heap[m] = t;
        i = m;
    }
    return top;
}

static void started(void *user, const bf_job *job, const bf_slot *slot) {
    uint32_t run = job->tag < slot->duration ? job->tag : slot->duration;
    pending p;
    (void)user;
    p.end = slot->start > UINT32_MAX - run ? UINT32_MAX : slot->start + run;
    p.order = ++starts;
    p.id = job->id;
    heap_push(p);
}

static int fail(const char *what, bf_status s) {
    fprintf(stderr, "replay: %s: %s\n", what, bf_status_message(s));
    return 1;
}

/* Reads a field of `line` (comma-separated) as an unsigned number. */
static int field_u32(char **cursor, uint32_t *out) {
    char *end;
    unsigned long v;
    errno = 0;
    v = strtoul(*cursor, &end, 10);
    if (end == *cursor || errno != 0 || v > UINT32_MAX || (*end != ',' && *end != '\n' && *end != '\0')) {
        return -1;
    }
    *out = (uint32_t)v;
    *cursor = *end == ',' ? end + 1 : end;
    return 0;
}

static void skip_field(char **cursor) {
    char *comma = strchr(*cursor, ',');
    *cursor = comma ? comma + 1 : *cursor + strlen(*cursor);
}

static int read_jobs(const char *path) {
    FILE *f = fopen(path, "r");
    char line[512];
    size_t cap = 1024, number = 0;
    if (!f) {
        fprintf(stderr, "replay: %s: %s\n", path, strerror(errno));
        return -1;
    }
    rows = malloc(cap * sizeof *rows);
    while (rows && fgets(line, sizeof line, f)) {
        char *c = line, *comma;
        uint32_t submit, run, estimate, procs, skip;
        row *r;
        number++;
        if (number == 1) {
            continue; /* header */
        }
        if (n_rows == cap) {
            row *bigger = realloc(rows, 2 * cap * sizeof *rows);
            if (!bigger) {
                break;
            }
            rows = bigger;
            cap *= 2;
        }
        r = &rows[n_rows];
        memset(r, 0, sizeof *r);
        comma = strchr(c, ',');
        if (!comma || (size_t)(comma - c) >= sizeof r->label) {
            goto bad;
        }
        memcpy(r->label, c, (size_t)(comma - c));
        c = comma + 1;
        if (field_u32(&c, &submit) || field_u32(&c, &skip) || field_u32(&c, &skip) ||
            field_u32(&c, &skip) || field_u32(&c, &run) || field_u32(&c, &estimate) ||
            field_u32(&c, &procs)) {
            goto bad;
        }
        skip_field(&c); /* bounded_slowdown */
        skip_field(&c); /* category */
        r->job.id = (uint32_t)n_rows;
        r->job.submit = submit;
        r->job.procs = procs;
        r->job.estimate = estimate;
        r->job.deadline = BF_NO_DEADLINE;
        if (strncmp(c, "true", 4) == 0) {
            /* Killed at its estimate: it would have run longer. */
            r->runtime = estimate == UINT32_MAX ? estimate : estimate + 1;
        } else if (strncmp(c, "false", 5) == 0) {
            r->runtime = run;
        } else {
            goto bad;
        }
        r->job.tag = r->runtime;
        n_rows++;
    }
    fclose(f);
    if (!rows) {
        fprintf(stderr, "replay: out of memory\n");
        return -1;
    }
    return 0;
bad:
    fprintf(stderr, "replay: %s line %lu: not a host-cli jobs row\n", path, (unsigned long)number);
    fclose(f);
    return -1;
}

/* The instant of queue_at=, and whether it was given. */
static uint32_t queue_at;
static int has_queue_at;

/* host-cli's names of the bf_reason values. */
static const char *const reason_names[] = {
    "pending",  "processors", "license",      "machine",       "behind",
    "would-delay", "reserved", "not-promoted", "search-budget", "never",
};

/* Writes the queue as it stands (the `queue_at=` output). */
static int print_queue(const bf_kernel *k) {
    size_t count = 0, i;
    bf_waiting *w;
    bf_status s = bf_kernel_waiting(k, NULL, 0, &count);
    if (s != BF_OK && s != BF_ERR_BAD_SIZE) {
        return fail("waiting", s);
    }
    w = malloc((count + 1) * sizeof *w);
    if (!w) {
        return fail("waiting", BF_ERR_BAD_SIZE);
    }
    s = bf_kernel_waiting(k, w, count, &count);
    if (s != BF_OK) {
        free(w);
        return fail("waiting", s);
    }
    printf("position,job_id,procs,estimate,reason,expected_start\n");
    for (i = 0; i < count; i++) {
        const char *name = w[i].reason < sizeof reason_names / sizeof *reason_names
                               ? reason_names[w[i].reason]
                               : "?";
        printf("%lu,%s,%" PRIu32 ",%" PRIu32 ",%s,", (unsigned long)(w[i].position + 1),
               rows[w[i].job.id].label, w[i].job.procs, w[i].job.estimate, name);
        if (w[i].expected != BF_EXPECTED_NONE) {
            printf("%" PRIu32, w[i].expected_slot.start);
        }
        putchar('\n');
    }
    free(w);
    return 0;
}

/* Applies OPTION=VALUE to `p`. */
static int option(bf_policy *p, const char *arg) {
    const char *eq = strchr(arg, '=');
    char *end;
    unsigned long long v;
    if (!eq) {
        return -1;
    }
    errno = 0;
    v = strtoull(eq + 1, &end, 10);
    if (*end != '\0' || errno != 0) {
        return -1;
    }
#define IS(name) (strncmp(arg, name "=", sizeof name) == 0)
    if (IS("threshold")) {
        p->selective.threshold = (uint32_t)v;
    } else if (IS("scale")) {
        p->selective.scale = (uint32_t)v;
    } else if (IS("well_estimated_only")) {
        p->selective.well_estimated_only = (uint32_t)v;
    } else if (IS("seed")) {
        p->cons_rs.seed = (uint64_t)v;
    } else if (IS("iterations")) {
        p->cons_rs.iterations_mode = BF_RS_FIXED;
        p->cons_rs.iterations = (uint32_t)v;
    } else if (IS("nodes")) {
        p->dpsa.nodes = (uint32_t)v;
    } else if (IS("queue_at")) {
        queue_at = (uint32_t)v;
        has_queue_at = 1;
    } else {
        return -1;
    }
#undef IS
    return 0;
}

int main(int argc, char **argv) {
    bf_machine machine;
    bf_cluster cluster;
    bf_policy policy;
    bf_kernel *k = NULL;
    bf_observer reserve_only = {NULL, NULL, NULL, NULL};
    bf_observer start = {started, NULL, NULL, NULL};
    const char *why = "";
    size_t room;
    void *memory = kernel_memory_aligned((uintptr_t)bf_kernel_l_align(), &room);
    size_t next = 0, i, rejected = 0;
    bf_capacity capacity;
    bf_status s;
    int a;
    char text[160];

    if (argc < 4) {
        fprintf(stderr, "usage: replay PROCS POLICY JOBS.csv [OPTION=VALUE ...]\n");
        return 2;
    }
    machine.cpus = (uint32_t)strtoul(argv[1], NULL, 10);
    machine.speed = BF_REFERENCE_SPEED;
    cluster.machines = &machine;
    cluster.machine_count = 1;
    cluster.pools = NULL;
    cluster.pool_count = 0;
    s = bf_policy_from_name(argv[2], &policy);
    if (s != BF_OK) {
        fprintf(stderr, "replay: policy %s: %s\n", argv[2], bf_status_message(s));
        return 2;
    }
    for (a = 4; a < argc; a++) {
        if (option(&policy, argv[a]) != 0) {
            fprintf(stderr, "replay: bad option %s\n", argv[a]);
            return 2;
        }
    }
    s = bf_policy_check(&policy, &why);
    if (s != BF_OK) {
        fprintf(stderr, "replay: %s\n", why);
        return 2;
    }
    if (read_jobs(argv[3]) != 0) {
        return 2;
    }
    s = bf_kernel_l_init(memory, room, &cluster, &policy, &k);
    if (s != BF_OK) {
        return fail("init", s);
    }
    s = bf_kernel_capacity(k, &capacity);
    if (s != BF_OK) {
        return fail("capacity", s);
    }
    heap = malloc((capacity.running + 1) * sizeof *heap);
    if (!heap) {
        return fail("heap", BF_ERR_BAD_SIZE);
    }

    for (;;) {
        uint32_t now = 0, at = 0;
        bool has_wakeup = false;
        int any = 0;
        if (next < n_rows) {
            now = rows[next].job.submit;
            any = 1;
        }
        if (n_heap > 0 && (!any || heap[0].end < now)) {
            now = heap[0].end;
            any = 1;
        }
        s = bf_kernel_next_wakeup(k, &has_wakeup, &at);
        if (s != BF_OK) {
            return fail("next_wakeup", s);
        }
        if (has_wakeup && (!any || at < now)) {
            now = at;
            any = 1;
        }
        /* The queue at queue_at: the state the last pass at or before it left. */
        if (has_queue_at == 1 && (!any || now > queue_at)) {
            if (print_queue(k) != 0) {
                return 1;
            }
            has_queue_at = 2;
        }
        if (!any) {
            break;
        }
        /* 1. Completions at `now`. */
        while (n_heap > 0 && heap[0].end <= now) {
            pending done = heap_pop();
            bf_running_job r;
            row *j = &rows[done.id];
            s = bf_kernel_complete(k, now, done.id, &r);
            if (s != BF_OK) {
                return fail("complete", s);
            }
            j->finished = 1;
            j->start = r.slot.start;
            j->end = now;
            j->killed = j->runtime > r.slot.duration;
            j->has_guarantee = r.has_guarantee;
            j->guarantee = r.guarantee;
        }
        /* 2-3. Arrivals at `now`. */
        while (next < n_rows && rows[next].job.submit <= now) {
            s = bf_kernel_submit(k, now, &rows[next].job, &reserve_only);
            if (s == BF_ERR_UNRUNNABLE || s == BF_ERR_INVALID_JOB) {
                rejected++;
            } else if (s != BF_OK) {
                bf_kernel_last_error_text(k, text, sizeof text, NULL);
                fprintf(stderr, "replay: submit at %" PRIu32 ": %s\n", now, text);
                return 1;
            }
            next++;
        }
        /* 4. One scheduling pass. */
        s = bf_kernel_schedule(k, now, &start, NULL);
        if (s != BF_OK) {
            bf_kernel_last_error_text(k, text, sizeof text, NULL);
            fprintf(stderr, "replay: schedule at %" PRIu32 ": %s\n", now, text);
            return 1;
        }
    }
    s = bf_kernel_validate(k, text, sizeof text);
    if (s != BF_OK) {
        fprintf(stderr, "replay: invalid kernel: %s\n", text);
        return 1;
    }
    if (has_queue_at) {
        n_rows = 0; /* the queue was written instead of the schedule */
    } else {
        printf("job_id,submit,start,end,wait,run,estimate,procs,killed,guarantee\n");
    }
    for (i = 0; i < n_rows; i++) {
        const row *r = &rows[i];
        if (!r->finished) {
            continue;
        }
        printf("%s,%" PRIu32 ",%" PRIu32 ",%" PRIu32 ",%" PRIu32 ",%" PRIu32 ",%" PRIu32
               ",%" PRIu32 ",%s,",
               r->label, r->job.submit, r->start, r->end, r->start - r->job.submit,
               r->end - r->start, r->job.estimate, r->job.procs, r->killed ? "true" : "false");
        if (r->has_guarantee) {
            printf("%" PRIu32, r->guarantee);
        }
        putchar('\n');
    }
    if (rejected > 0) {
        fprintf(stderr, "replay: %lu jobs refused\n", (unsigned long)rejected);
    }
    free(heap);
    free(rows);
    return 0;
}
