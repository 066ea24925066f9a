/*
 * The C test programs' kernel memory (replay.c, stack.c): one static
 * buffer, as firmware would reserve it, of the large tier's size (8 MB on
 * x86_64), which serves every tier.
 */
#ifndef KERNEL_MEMORY_H
#define KERNEL_MEMORY_H

#include "backfill.h"

#include <stddef.h>
#include <stdint.h>

#ifdef BF_KERNEL_L_SIZE
#define KERNEL_BYTES BF_KERNEL_L_SIZE
#else
#define KERNEL_BYTES (12u * 1024u * 1024u)
#endif
static unsigned char kernel_memory[KERNEL_BYTES + 64];

/* The buffer's first byte aligned to `align`, and in `*room` the bytes
 * from there to the buffer's end. */
static void *kernel_memory_aligned(uintptr_t align, size_t *room) {
    unsigned char *memory =
        (unsigned char *)(((uintptr_t)kernel_memory + align - 1) / align * align);
    *room = sizeof kernel_memory - (size_t)(memory - kernel_memory);
    return memory;
}

#endif
