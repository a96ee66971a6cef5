/* chan_table.h: the point-to-point channels of a run, (communicator, source, destination,
 * tag), numbered 0, 1, 2... as they are first met, for every analysis that keeps a queue per
 * channel (msg_match.c matching messages, whole_replay.c replaying them). The caller keeps
 * its own state per channel in an array indexed by the number. A channel met again is found
 * in a direct-mapped cache first (a rank's few neighbours), else by hash. Never prints. */
#ifndef CHAN_TABLE_H
#define CHAN_TABLE_H

#include <stddef.h>
#include <stdint.h>

#include "hmap.h"

#define CT_CACHE 4096

typedef struct ct_key {
    int32_t comm, src, dst, tag;
} ct_key_t;

typedef struct ct {
    int32_t cache[CT_CACHE]; /* a channel whose hash has these low bits, or -1 */
    hmap_t map;              /* hash of the channel -> first channel of that hash, + 1 */
    ct_key_t *key;           /* per channel */
    int32_t *hnext;          /* per channel: the next of the same hash, or -1 */
    size_t n, cap, hcap;
} ct_t;

void ct_init(ct_t *t);
void ct_free(ct_t *t);
/* The channel's number; a new one gets t->n - 1 after the call (the caller's arrays grow to
 * t->n). -1 out of memory. */
int32_t ct_get(ct_t *t, int32_t comm, int32_t src, int32_t dst, int32_t tag);

#endif
