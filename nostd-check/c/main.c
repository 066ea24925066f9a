/*
 * A C "firmware" linked against backfill-ffi's firmware static library
 * with no C library and no start files (-nostdlib -ffreestanding -static):
 * if the library needed Rust's std (or anything of libc beyond the
 * memory and string routines a firmware provides itself, below), the link
 * would fail. Built and run by nostd-check/c-link.sh.
 *
 * It sets a small-tier kernel up in a static buffer and, under every
 * policy, submits a few jobs, schedules, completes and validates. On
 * x86_64 Linux it then exits with the number of failed checks (0: all
 * passed) through a raw system call; elsewhere it stops in a loop, as
 * firmware would.
 */
#include "backfill.h"

/* What a firmware's own runtime provides: the compiler and the library
 * call these. */
void *memcpy(void *dst, const void *src, size_t n);
void *memmove(void *dst, const void *src, size_t n);
void *memset(void *dst, int c, size_t n);
int memcmp(const void *a, const void *b, size_t n);
int bcmp(const void *a, const void *b, size_t n);
size_t strlen(const char *s);

void *memcpy(void *dst, const void *src, size_t n) {
    unsigned char *d = dst;
    const unsigned char *s = src;
    while (n--) {
        *d++ = *s++;
    }
    return dst;
}

void *memmove(void *dst, const void *src, size_t n) {
    unsigned char *d = dst;
    const unsigned char *s = src;
    if (d < s) {
        while (n--) {
            *d++ = *s++;
        }
    } else {
        while (n--) {
            d[n] = s[n];
        }
    }
    return dst;
}

void *memset(void *dst, int c, size_t n) {
    unsigned char *d = dst;
    while (n--) {
        *d++ = (unsigned char)c;
    }
    return dst;
}

int memcmp(const void *a, const void *b, size_t n) {
    const unsigned char *x = a, *y = b;
    for (; n--; x++, y++) {
        if (*x != *y) {
            return *x < *y ? -1 : 1;
        }
    }
    return 0;
}

int bcmp(const void *a, const void *b, size_t n) {
    return memcmp(a, b, n);
}

size_t strlen(const char *s) {
    size_t n = 0;
    while (s[n]) {
        n++;
    }
    return n;
}

#ifdef BF_KERNEL_S_SIZE
#define KERNEL_BYTES BF_KERNEL_S_SIZE
#else
#define KERNEL_BYTES (96u * 1024u)
#endif
static unsigned char kernel_memory[KERNEL_BYTES + 64];

static unsigned started;

static void on_started(void *user, const bf_job *job, const bf_slot *slot) {
    (void)user;
    (void)job;
    (void)slot;
    started++;
}

int firmware_main(void);

int firmware_main(void) {
    static const bf_machine nodes[2] = {{8, 1000}, {8, 2000}};
    bf_cluster cluster = {nodes, 2, 0, 0};
    bf_observer observer = {on_started, 0, 0, 0};
    unsigned long align = (unsigned long)bf_kernel_s_align();
    void *memory = (void *)(((unsigned long)kernel_memory + align - 1) / align * align);
    unsigned failures = 0;
    uint32_t kind, id;
    for (kind = BF_POLICY_FCFS; kind <= BF_POLICY_DPSA_W; kind++) {
        bf_policy policy;
        bf_kernel *k = 0;
        uint32_t now = 0;
        started = 0;
        if (bf_policy_default(kind, &policy) != BF_OK ||
            bf_kernel_s_init(memory, KERNEL_BYTES, &cluster, &policy, &k) != BF_OK) {
            failures++;
            continue;
        }
        for (id = 1; id <= 6; id++) {
            bf_job job = {0};
            job.id = id;
            job.procs = 1 + id % 8;
            job.estimate = 100 * id;
            job.deadline = BF_NO_DEADLINE;
            failures += bf_kernel_submit(k, 0, &job, &observer) != BF_OK;
        }
        /* Run until every job has ended, each at its estimate: the one
         * that ends first, then a pass. */
        for (;;) {
            bf_running_job r, first;
            bool has = false;
            uint32_t at = 0;
            size_t i;
            failures += bf_kernel_schedule(k, now, &observer, 0) != BF_OK;
            failures += bf_kernel_validate(k, 0, 0) != BF_OK;
            for (i = 0; bf_kernel_running_job(k, i, &r) == BF_OK; i++) {
                if (i == 0 || r.slot.start + r.slot.duration < first.slot.start + first.slot.duration) {
                    first = r;
                }
            }
            if (i > 0) {
                now = first.slot.start + first.slot.duration;
                failures += bf_kernel_complete(k, now, first.job.id, 0) != BF_OK;
            } else if (bf_kernel_next_wakeup(k, &has, &at) == BF_OK && has) {
                now = at;
            } else {
                break;
            }
        }
        failures += started != 6;
        failures += bf_kernel_release(k) != BF_OK;
    }
    return (int)failures;
}

#if defined(__x86_64__) && defined(__linux__)
/* The entry point: an aligned stack, then exit(firmware_main()). */
__asm__(".globl _start\n"
        "_start:\n"
        "    xor %rbp, %rbp\n"
        "    and $-16, %rsp\n"
        "    call firmware_main\n"
        "    mov %eax, %edi\n"
        "    mov $60, %eax\n"
        "    syscall\n");
#else
void _start(void);
void _start(void) {
    (void)firmware_main();
    for (;;) {
    }
}
#endif
