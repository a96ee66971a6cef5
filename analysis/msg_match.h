/* msg_match.h: point-to-point messages matched sender to receiver from a run's events, for
 * every analysis that follows messages (`phasor health`, `phasor export`'s flows and -m).
 *
 * A channel is (communicator, source, destination, tag): MPI delivers the messages of one
 * channel in the order they were sent, to the receives in the order they were posted
 * (non-overtaking). Each channel keeps a queue of sends not yet received and one of receives
 * not yet paired; a pair is formed from both heads. Receives with a specified source and tag
 * join their channel when posted; wildcard receives when they complete (their status names
 * the channel), which is exact unless a wildcard receive completes after a later-posted
 * receive of its channel. A message is handed over when both its send is posted and its
 * receive completed. Sends: Send family, Isend family, Sendrecv, persistent sends at each
 * Start. Receives: Recv, Mrecv, Sendrecv, Irecv, Imrecv, persistent receives at each Start,
 * completed by the Wait and Test families. Messages to or from the rank itself, to
 * MPI_PROC_NULL and cancelled receives are not messages. Feed the events of every rank
 * merged by time (plog_iter_open(run, PLOG_ALL_RANKS)); memory holds the messages in flight.
 * Never prints. */
#ifndef MSG_MATCH_H
#define MSG_MATCH_H

#include <stdint.h>

#include "plog_reader.h"

enum mm_flags {
    MM_PROBED = 1,  /* the receive took a message its Mprobe/Improbe had already matched */
    MM_TESTED = 2   /* the receive completed in a Test-family call (not waiting in it) */
};

/* One side of a message: the event that posted the send, or that completed the receive. */
typedef struct mm_end {
    int64_t post;       /* send: its posting (the event's start); receive: its posting */
    int64_t start, end; /* the event: the send's posting call, the receive's completing call */
    uint64_t bytes;     /* send: bytes sent; receive: bytes its status gives, else posted */
    int32_t rank;       /* world rank */
    uint16_t thread;
    uint32_t flags;     /* receive: enum mm_flags */
} mm_end_t;

typedef struct mm_msg {
    int32_t comm, src, dst, tag; /* global communicator id, world ranks, tag */
    mm_end_t send, recv;
} mm_msg_t;

typedef struct mm_counts {
    uint64_t sends, recvs;     /* sides seen (receives: completed) */
    uint64_t matched;          /* messages handed over */
    uint64_t skipped_recvs;    /* cancelled, from itself, or a completion without its start */
    uint64_t in_flight, peak;  /* sides waiting for their other side: now, and the most */
} mm_counts_t;

typedef struct mm mm_t;
/* 0 to go on, nonzero to stop (mm_event returns it) */
typedef int (*mm_fn)(void *arg, const mm_msg_t *m);

mm_t *mm_new(int32_t world); /* NULL: out of memory */
void mm_free(mm_t *m);
/* One event (anything: what is not a message is ignored; failed calls too). fn for every
 * message this event completes. 0; -1 out of memory; or what fn returned. */
int mm_event(mm_t *m, const plog_rec_t *e, mm_fn fn, void *arg);
/* The counts so far; at the end, sends and receives left unmatched with *left_sends and
 * *left_recvs (either may be NULL). */
void mm_counts(const mm_t *m, mm_counts_t *c, uint64_t *left_sends, uint64_t *left_recvs);

#endif
