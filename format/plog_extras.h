/* plog_extras.h: the extras of an event, written once: the uint64 words after an event's
 * fixed part (plog_event_t.nextra of them) that its flags announce. Every writer of them --
 * the generated C and Fortran wrappers, the hand-written ones (pmpi/wrappers.h turns MPI's
 * arguments into the values below) -- goes through these encoders; doc/log-format.md
 * ("Flags and extras") describes the same layout.
 *
 * In this order, each part present only with its flag:
 *   PLOG_F_RECVSPEC  1 word   posted source << 32 | posted tag   (plog_extras_pair)
 *   PLOG_F_HANDLES   list     n, then n handles (PLOG_F_MESSAGE: one MPI_Message;
 *                             PLOG_F_RENEWED: the handles after a Start(all), then before)
 *   PLOG_F_STATUS    list     n, then n entries of PLOG_STATUS_WORDS words (plog_format.h)
 *   PLOG_F_VSEND     list     n, then n byte counts, one per peer
 *   PLOG_F_VRECV     list     n, then n byte counts, one per peer
 *   PLOG_F_NEWCOMM   1 word   local id of the communicator created (0: MPI_COMM_NULL)
 *   PLOG_F_COLLINFO  2 words  send type size | receive type size << 32 (bytes, 0: not
 *                             significant here), then enum plog_op | commutative << 8
 *   PLOG_F_POLLS     2 words  the polls in the run (>= 2), then ns inside them (the shim
 *                             keeps raw clock ticks; the encoder converts, as for times)
 * A part that does not fit the room the event has is cut (a list keeps its length word and
 * the entries that fit) or left out, and the event gets PLOG_F_TRUNCATED.
 *
 * Each encoder takes the event (for its flags), where the part goes and the words of room
 * there, and returns the words it wrote. Pure: no MPI, no I/O; inlined into the wrappers. */
#ifndef PLOG_EXTRAS_H
#define PLOG_EXTRAS_H

#include <stddef.h>
#include <stdint.h>

#include "plog_format.h"

/* The flags that announce extras (the others only describe the event). */
#define PLOG_EXTRAS_FLAGS                                                                   \
    (PLOG_F_RECVSPEC | PLOG_F_HANDLES | PLOG_F_STATUS | PLOG_F_VSEND | PLOG_F_VRECV |       \
     PLOG_F_NEWCOMM | PLOG_F_COLLINFO | PLOG_F_POLLS)
_Static_assert(PLOG_STATUS_WORDS == 4, "a status entry: handle, source/tag, bytes, index");
#define PLOG_COLLINFO_WORDS 2
#define PLOG_COLLINFO_OP_MASK 0xffu /* word 1: enum plog_op; PLOG_OP_COMMUTATIVE above it */
#define PLOG_POLLS_WORDS 2

/* Two 32-bit values in one word, hi << 32 | lo: RECVSPEC, and word 1 of a status entry
 * (source, tag; each a rank or tag as in plog_event_t, specials included). */
static inline uint64_t plog_extras_pair(int32_t hi, int32_t lo)
{
    return ((uint64_t)(uint32_t)hi << 32) | (uint32_t)lo;
}

/* The two halves of such a word, as the signed values they were. */
static inline int32_t plog_extras_hi(uint64_t w) { return (int32_t)(uint32_t)(w >> 32); }
static inline int32_t plog_extras_lo(uint64_t w) { return (int32_t)(uint32_t)w; }

/* A one-word part: RECVSPEC or NEWCOMM (flag). */
static inline size_t plog_extras_word(plog_event_t *ev, uint64_t *x, size_t room, unsigned flag,
                                      uint64_t w)
{
    if (room < 1) {
        ev->flags |= PLOG_F_TRUNCATED;
        return 0;
    }
    x[0] = w;
    ev->flags |= flag;
    return 1;
}

/* COLLINFO: the send and receive datatype sizes (32 bits each: elements of 4 GiB or more
 * saturate) and the op word. */
static inline size_t plog_extras_collinfo(plog_event_t *ev, uint64_t *x, size_t room,
                                          uint64_t ssz, uint64_t rsz, uint64_t op)
{
    if (room < PLOG_COLLINFO_WORDS) {
        ev->flags |= PLOG_F_TRUNCATED;
        return 0;
    }
    ssz = ssz < UINT32_MAX ? ssz : UINT32_MAX;
    rsz = rsz < UINT32_MAX ? rsz : UINT32_MAX;
    x[0] = ssz | (rsz << 32);
    x[1] = op;
    ev->flags |= PLOG_F_COLLINFO;
    return PLOG_COLLINFO_WORDS;
}

/* Opens a list (HANDLES, STATUS, VSEND or VRECV: flag) of `want` entries of `words` words:
 * writes its length word, how many entries fit, and sets flag (PLOG_F_TRUNCATED too when
 * fewer than want fit). Returns the entries the caller writes from x + 1 on; 0 with nothing
 * written when not even the length word fits. */
static inline size_t plog_extras_list(plog_event_t *ev, uint64_t *x, size_t room, unsigned flag,
                                      size_t want, size_t words)
{
    if (room < 1) {
        ev->flags |= PLOG_F_TRUNCATED;
        return 0;
    }
    size_t fit = (room - 1) / words;
    if (fit < want)
        ev->flags |= PLOG_F_TRUNCATED;
    else
        fit = want;
    x[0] = fit;
    ev->flags |= flag;
    return fit;
}

/* A list of one entry of `words` words, whole or not at all: writes its length word and
 * sets flag; returns 1 when the entry fits (the caller writes it at x + 1), else 0 with
 * nothing written. */
static inline size_t plog_extras_list1(plog_event_t *ev, uint64_t *x, size_t room,
                                       unsigned flag, size_t words)
{
    if (room < 1 + words) {
        ev->flags |= PLOG_F_TRUNCATED;
        return 0;
    }
    x[0] = 1;
    ev->flags |= flag;
    return 1;
}

/* One status entry (PLOG_STATUS_WORDS words at x): the request completed (0 for blocking
 * calls), the source and tag matched, the bytes received (PLOG_BYTES_UNKNOWN when the
 * library could not say; at most 63 bits: bit 63 says cancelled), the index in the
 * caller's request array. */
static inline void plog_extras_status(uint64_t *x, uint64_t handle, int32_t source, int32_t tag,
                                      uint64_t bytes, uint32_t index, int cancelled)
{
    x[0] = handle;
    x[1] = plog_extras_pair(source, tag);
    x[2] = bytes | (cancelled ? PLOG_STATUS_CANCELLED : 0);
    x[3] = index;
}

#endif
