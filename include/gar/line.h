/* gar/line.h — the completion line, slots and memory descriptors.
 *
 * A line is eight 64-bit words in one 64-byte-aligned cache line.  A device
 * stores a stream's sequence number into its slot; a host waits on the whole
 * line, so one hardware park watches up to eight streams.  The host only ever
 * touches the words through atomics.  Lines are caller-owned: gar never
 * allocates one (backends that need device-mapped memory place it themselves). */
#ifndef GAR_LINE_H
#define GAR_LINE_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include <gar/api.h>
#include <gar/error.h>

#define GAR_LINE_WORDS 8
#define GAR_LINE_BYTES 64

typedef struct gar_line {
    _Alignas(GAR_LINE_BYTES) _Atomic uint64_t words[GAR_LINE_WORDS];
} gar_line;

_Static_assert(sizeof(gar_line) == GAR_LINE_BYTES, "a line is exactly one 64-byte line");
_Static_assert(_Alignof(gar_line) == GAR_LINE_BYTES, "a line is 64-byte aligned");

/* A word index, checked once when made: holding a gar_slot means 0..7. */
typedef struct gar_slot {
    uint8_t index;
} gar_slot;

/* "Word `slot` of `line` reaches `target`." */
typedef struct gar_descriptor {
    gar_line *line;
    gar_slot slot;
    uint64_t target;
} gar_descriptor;

/* Sets every word of `line` to 0 (a new line). */
GAR_API void gar_line_init(gar_line *line);

/* Makes a slot.  Returns 0, or -GAR_E_INVALID_ARGUMENT for index >= 8. */
GAR_API int gar_slot_make(unsigned index, gar_slot *out, gar_error *err);

/* Reached in wrapping order: the word is at or past the target, counting
 * forward less than half the u64 circle.  So 0 has reached 0, UINT64_MAX has
 * not reached 5, and 3 has reached UINT64_MAX. */
static inline bool gar_seq_reached(uint64_t word, uint64_t target)
{
    return word - target < (UINT64_C(1) << 63);
}

/* The slot's word, read with acquire order: the device's writes before its
 * store are visible once this returns the stored value. */
static inline uint64_t gar_line_load(gar_line *line, gar_slot slot)
{
    return atomic_load_explicit(&line->words[slot.index], memory_order_acquire);
}

/* Stores `value` into the slot with release order (what a device, or an
 * emulated device thread, does behind its work). */
static inline void gar_line_store(gar_line *line, gar_slot slot, uint64_t value)
{
    atomic_store_explicit(&line->words[slot.index], value, memory_order_release);
}

/* Whether the descriptor's word has reached its target (acquire load). */
static inline bool gar_descriptor_reached(const gar_descriptor *d)
{
    return gar_seq_reached(gar_line_load(d->line, d->slot), d->target);
}

#endif
