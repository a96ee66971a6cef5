/* plog_format.h: the on-disk contract of a phasor rank log (.plog), shared by writer and reader.
 *
 * Layout of one file (all integers little-endian):
 *   header   : plog_file_header_t, then header_len - sizeof(plog_file_header_t) bytes of
 *              key=value\0 strings (MPI library version, collective-tuning environment, ...)
 *   frames   : plog_frame_header_t + payload, repeated; each payload is one zstd frame
 *              (with zstd's content checksum) that decodes on its own
 *   end      : a frame of kind PLOG_FRAME_END; a file without it ended early
 * Full description: doc/log-format.md. Any change to a layout here bumps PLOG_VERSION. */
#ifndef PLOG_FORMAT_H
#define PLOG_FORMAT_H

#include <stddef.h>
#include <stdint.h>

#define PLOG_MAGIC "PHASORLG"           /* 8 bytes, no terminator on disk */
#define PLOG_VERSION 11u            /* written; 2: CALLSITES payload defined (plog_sites.h);
                                     * 3: PROBE payload defined (plog_probe.h);
                                     * 4: EVENTS extras: handles and status source/tag
                                     *    stored small (plog_codec.c);
                                     * 5: PROBE entries say one-way or exchange;
                                     * 6: a payload's integrity is an XXH3-64 of its
                                     *    compressed bytes (PLOG_HASH_*), not zstd's
                                     *    checksum of the decompressed ones;
                                     * 7: a quick PROBE's exchange samples are the
                                     *    pair's (the longer side's), same layout;
                                     * 8: and timed from the later posting, on one
                                     *    clock, same layout;
                                     * 9: PLOG_F_RENEWED (Start/Startall whose
                                     *    requests MPI gave new handles);
                                     * 10: PROBE payload says which probe (seq,
                                     *    trigger) and when; a log may hold several
                                     *    (PHASOR_PROBE=...,every=N|pcontrol);
                                     * 11: PLOG_F_POLLS (a run of unsuccessful polls
                                     *    as one event) */
#define PLOG_VERSION_MIN 1u         /* oldest the reader reads (1: no call-site tables) */
#define PLOG_FRAME_MAGIC 0x4d524650u    /* "PFRM" */
#define PLOG_FILE_PATTERN "rank-%06d.plog"
#define PLOG_MAX_FRAME_RAW (64u << 20)  /* reader refuses larger decoded payloads */
#define PLOG_HASH_MAGIC 0x184d2a56u     /* one of zstd's skippable magics, 0x184d2a50..5f */

/* Clock sources: what the raw timestamps were taken with before conversion to ns. */
enum plog_clock {
    PLOG_CLOCK_MONOTONIC = 1, /* clock_gettime(CLOCK_MONOTONIC) */
    PLOG_CLOCK_TSC = 2        /* invariant TSC, converted to CLOCK_MONOTONIC ns at flush */
};

typedef struct plog_file_header {
    char magic[8];          /* PLOG_MAGIC */
    uint32_t version;       /* PLOG_VERSION */
    uint32_t header_len;    /* bytes from file start to the first frame */
    int32_t rank;           /* rank in MPI_COMM_WORLD */
    int32_t world_size;
    int64_t pid;
    uint32_t clock;         /* enum plog_clock */
    uint32_t flags;         /* reserved, 0 */
    uint64_t t_init_ns;     /* CLOCK_MONOTONIC at MPI_Init's return, ns */
    int64_t realtime_init_ns; /* CLOCK_REALTIME at the same moment (wall-clock anchor) */
    uint32_t header_crc;    /* CRC-32 of the whole header with this field zero */
    uint32_t reserved;
} plog_file_header_t;       /* 64 bytes */

enum plog_frame_kind {
    PLOG_FRAME_EVENTS = 1,    /* events of one thread, columnar (see plog_codec.h) */
    PLOG_FRAME_COMMS = 2,     /* communicator definitions */
    PLOG_FRAME_CLOCKSYNC = 3, /* offset samples against rank 0 */
    PLOG_FRAME_META = 4,      /* key=value\0 strings: counters, thread table, notes */
    PLOG_FRAME_CALLSITES = 5, /* call-site and module definitions (plog_sites.h) */
    PLOG_FRAME_PROBE = 6,     /* network-probe quantiles (plog_probe.h; version >= 3), one
                               * per probe (version >= 10: several) */
    PLOG_FRAME_END = 15       /* last frame of a complete log; payload is META-like */
};

typedef struct plog_frame_header {
    uint32_t magic;         /* PLOG_FRAME_MAGIC: lets a reader resynchronise after damage */
    uint16_t kind;          /* enum plog_frame_kind */
    uint16_t thread;        /* thread slot for EVENTS frames, else 0 */
    uint32_t comp_len;      /* bytes of zstd payload that follow */
    uint32_t raw_len;       /* bytes after decompression */
    uint32_t count;         /* records in the payload (events, comms, samples) */
    uint32_t header_crc;    /* CRC-32 of this header with this field zero */
} plog_frame_header_t;      /* 24 bytes */

/* Version >= 6: a frame's payload is one zstd frame without content checksum, then this zstd
 * skippable frame. Hashing the compressed bytes checks what is on disk with a seventh of the
 * work of hashing the decompressed ones. */
typedef struct plog_hash_trailer {
    uint32_t magic;         /* PLOG_HASH_MAGIC */
    uint32_t len;           /* 8: the skippable frame's content, hash */
    uint64_t hash;          /* XXH3-64 (seed 0) of the zstd frame's bytes */
} plog_hash_trailer_t;      /* 16 bytes */

/* What a call does, for the reader's semantics (request linking, statuses, matrices).
 * The per-call ids and their classes come from pmpi/mpi_spec.txt via the generated
 * plog_calls.h; ids are stable once published. */
enum plog_call_class {
    PLOG_CLASS_OTHER = 0,
    PLOG_CLASS_ENV = 1,        /* Init, Init_thread, Finalize, Abort, Pcontrol */
    PLOG_CLASS_SEND = 2,       /* blocking sends */
    PLOG_CLASS_RECV = 3,       /* blocking receives (Recv, Mrecv) */
    PLOG_CLASS_SENDRECV = 4,   /* Sendrecv, Sendrecv_replace */
    PLOG_CLASS_ISEND = 5,      /* nonblocking send starts */
    PLOG_CLASS_IRECV = 6,      /* nonblocking receive starts (Irecv, Imrecv) */
    PLOG_CLASS_PSEND_INIT = 7, /* persistent send set-up */
    PLOG_CLASS_PRECV_INIT = 8, /* persistent receive set-up */
    PLOG_CLASS_START = 9,      /* Start, Startall */
    PLOG_CLASS_COMPLETE = 10,  /* Wait/Test families */
    PLOG_CLASS_REQFREE = 11,   /* Request_free, Cancel */
    PLOG_CLASS_PROBE = 12,     /* Probe, Iprobe, Mprobe, Improbe */
    PLOG_CLASS_COLL = 13,      /* blocking collectives */
    PLOG_CLASS_ICOLL = 14,     /* nonblocking collectives */
    PLOG_CLASS_COMM = 15,      /* communicator constructors and destructors */
    PLOG_CLASS_STEP = 16,      /* version 2: one transfer inside a collective the shim itself
                                  performed (PHASOR_STEPS=measure), not an MPI call */
    PLOG_CLASS__COUNT
};

/* Special values of plog_event_t fields. */
#define PLOG_NONE (-1)             /* peer/root/tag not applicable */
#define PLOG_ANY_SOURCE (-2)       /* MPI_ANY_SOURCE as posted */
#define PLOG_PROC_NULL (-3)        /* MPI_PROC_NULL */
#define PLOG_ROOT_ROOT (-4)        /* MPI_ROOT (intercommunicator root side) */
#define PLOG_ANY_TAG (-2)          /* MPI_ANY_TAG as posted (MPI tags are >= 0) */
#define PLOG_COMM_NONE 0u          /* no communicator (Init, Wait, ...) */
#define PLOG_COMM_WORLD 1u         /* local id of MPI_COMM_WORLD on every rank */
#define PLOG_COMM_SELF 2u          /* local id of MPI_COMM_SELF on every rank */
#define PLOG_COMM_UNKNOWN 0xffffffffu /* a handle phasor never saw created */

/* Event flags. The extras layout (uint64 words after the fixed part) follows from the flags,
 * in this order: RECVSPEC word, HANDLES list, STATUS entries, VSEND list, VRECV list,
 * NEWCOMM word, COLLINFO words, POLLS words. Each list is preceded by its length word. */
enum plog_event_flags {
    PLOG_F_INPLACE = 1u << 0,   /* MPI_IN_PLACE was passed */
    PLOG_F_FLAG_TRUE = 1u << 1, /* Test/Iprobe/Improbe/Testall/Test_cancelled flag result */
    PLOG_F_RECVSPEC = 1u << 2,  /* one word: (uint32)posted source << 32 | (uint32)posted tag */
    PLOG_F_HANDLES = 1u << 3,   /* n, then n request handles (Startall, Waitall's inputs, ...) */
    PLOG_F_STATUS = 1u << 4,    /* n, then n entries of PLOG_STATUS_WORDS words */
    PLOG_F_VSEND = 1u << 5,     /* n, then n per-peer send byte counts */
    PLOG_F_VRECV = 1u << 6,     /* n, then n per-peer receive byte counts */
    PLOG_F_NEWCOMM = 1u << 7,   /* one word: local id of the communicator created (0: NULL) */
    PLOG_F_TRUNCATED = 1u << 8, /* extras did not fit the buffer and were cut */
    PLOG_F_INTER = 1u << 9,     /* communicator is an intercommunicator: peers are remote ranks */
    PLOG_F_MESSAGE = 1u << 10,  /* the HANDLES list holds one MPI_Message (Mprobe, Improbe,
                                 * Mrecv, Imrecv), not requests: links a receive to its probe */
    PLOG_F_MEASURED = 1u << 12, /* version 2: the shim performed this collective itself; its
                                 * transfers are the STEP events just before it on its thread */
    PLOG_F_COLLINFO = 1u << 11, /* version 2: two words a collective's algorithm depends on:
                                 * w0 send type size | recv type size << 32 (bytes, 0: not
                                 * significant here), w1 the op: PLOG_OP_* | commutative << 8 */
    PLOG_F_RENEWED = 1u << 13,  /* version 9, Start/Startall only: MPI gave a request started
                                 * a new handle (Open MPI, a buffered send still in flight):
                                 * HANDLES holds the n handles after the call, then the n
                                 * before it, whole (never cut) */
    PLOG_F_POLLS = 1u << 14     /* version 11: the event stands for a run of n >= 2 polls
                                 * that found nothing (Test*, Iprobe, Improbe,
                                 * Request_get_status: flag false or no index, rc success),
                                 * made on the same arguments by one thread with nothing else
                                 * recorded between them. Two words: n, then the ns spent
                                 * inside the n calls. t_start is the first's start, t_end
                                 * the last's end, callsite the first's */
};

/* Reduction operations in COLLINFO (0: the call has no op). */
enum plog_op {
    PLOG_OP_NONE = 0, PLOG_OP_MAX = 1, PLOG_OP_MIN = 2, PLOG_OP_SUM = 3, PLOG_OP_PROD = 4,
    PLOG_OP_LAND = 5, PLOG_OP_BAND = 6, PLOG_OP_LOR = 7, PLOG_OP_BOR = 8, PLOG_OP_LXOR = 9,
    PLOG_OP_BXOR = 10, PLOG_OP_MAXLOC = 11, PLOG_OP_MINLOC = 12, PLOG_OP_REPLACE = 13,
    PLOG_OP_NO_OP = 14, PLOG_OP_USER = 255
};
#define PLOG_OP_COMMUTATIVE (1u << 8)
/* When Waitany, Waitall or Waitsome fail, their HANDLES list holds the caller's whole input
 * array in order (MPI_REQUEST_NULL as 0), so the reader knows what was waited for. On
 * success the status entries alone say which handle completed and at which index. */

/* A status entry: what a completion or receive really matched.
 *   w0: request handle completed (0 for blocking calls)
 *   w1: (uint32)MPI_SOURCE << 32 | (uint32)MPI_TAG   (as ranks in the call's communicator)
 *   w2: bytes received (MPI_Get_count with MPI_BYTE), bit 63 set if cancelled,
 *       all ones (PLOG_BYTES_UNKNOWN) when the library could not say
 *   w3: index into the caller's request array (Waitany/some/all), else 0 */
#define PLOG_STATUS_WORDS 4
#define PLOG_STATUS_CANCELLED (1ull << 63)
#define PLOG_BYTES_UNKNOWN 0x7fffffffffffffffull

/* The fixed part of one event. Times are ns on the rank's CLOCK_MONOTONIC axis (the writer
 * converts raw TSC ticks before encoding); the reader aligns ranks with the CLOCKSYNC frames. */
typedef struct plog_event {
    uint64_t t_start;
    uint64_t t_end;
    uint64_t bytes;     /* bytes sent/contributed: count x type size */
    uint64_t rbytes;    /* bytes to receive (receive buffer size for receives) */
    uint64_t request;   /* request handle produced (Isend...) or consumed (Wait), 0 = none */
    uint32_t comm;      /* local communicator id, see PLOG_COMM_* */
    int32_t peer;       /* dest or source as a rank in comm, or PLOG_NONE/ANY_SOURCE/PROC_NULL */
    int32_t tag;
    int32_t root;       /* rank in comm, PLOG_ROOT_ROOT, or PLOG_NONE */
    uint32_t callsite;  /* call-site id, 0 = none */
    int32_t rc;         /* the MPI return code handed back to the application */
    uint16_t call;      /* enum plog_call, from plog_calls.h */
    uint16_t flags;     /* enum plog_event_flags */
    uint32_t nextra;    /* uint64 words of extras that follow in memory / in the frame */
} plog_event_t;         /* 72 bytes */

/* A communicator definition. On disk (COMMS payload) each is:
 *   varint local_id, varint parent_id, varint creating call, varint kind,
 *   varint n_local, n_local x varint world rank, varint n_remote, n_remote x varint world rank,
 *   varint topology words n, n x zigzag varint (dims/periods for Cart, reserved otherwise)
 * local_id is unique per rank log for the life of the run: a freed handle's next
 * communicator gets a new id. The reader matches one communicator across ranks by its
 * member lists and the order of creation (see doc/log-format.md). */
enum plog_comm_kind {
    PLOG_COMMK_INTRA = 1,
    PLOG_COMMK_INTER = 2,
    PLOG_COMMK_CART = 3,
    PLOG_COMMK_GRAPH = 4,
    PLOG_COMMK_DIST_GRAPH = 5
};

/* Clock-sync sample (CLOCKSYNC payload, varints): phase (0 = at Init, 1 = at Finalize),
 * the local time at the middle of the best round trip, zigzag offset (rank 0 time minus local
 * time, ns), and the round-trip time of that best exchange. Rank 0 stores offset 0. */
enum plog_sync_phase { PLOG_SYNC_INIT = 0, PLOG_SYNC_FINALIZE = 1 };

typedef struct plog_sync_sample {
    uint32_t phase;     /* enum plog_sync_phase */
    uint64_t local_ns;  /* local time at the middle of the best round trip */
    int64_t offset_ns;  /* rank-0 time minus local time */
    uint64_t rtt_ns;
} plog_sync_sample_t;

/* ---- what the layouts above are on disk ----
 * The file header, frame header and hash trailer are written and read as they are in memory
 * (plog_codec.c, plog_write.c): their sizes and offsets are the format's, on a
 * little-endian host. plog_event_t is not on disk (EVENTS payloads are columnar), but the
 * shim's buffers and the encoder's input hold it with its extras right after it. */
#if defined(__BYTE_ORDER__) && defined(__ORDER_LITTLE_ENDIAN__)
_Static_assert(__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__, "headers are little-endian on disk");
#endif
#define PLOG_AT_(type, field, off)                                                          \
    _Static_assert(offsetof(type, field) == (off), #type "." #field " at byte " #off)
_Static_assert(sizeof(plog_file_header_t) == 64, "plog_file_header_t is 64 bytes");
PLOG_AT_(plog_file_header_t, magic, 0);
PLOG_AT_(plog_file_header_t, version, 8);
PLOG_AT_(plog_file_header_t, header_len, 12);
PLOG_AT_(plog_file_header_t, rank, 16);
PLOG_AT_(plog_file_header_t, world_size, 20);
PLOG_AT_(plog_file_header_t, pid, 24);
PLOG_AT_(plog_file_header_t, clock, 32);
PLOG_AT_(plog_file_header_t, flags, 36);
PLOG_AT_(plog_file_header_t, t_init_ns, 40);
PLOG_AT_(plog_file_header_t, realtime_init_ns, 48);
PLOG_AT_(plog_file_header_t, header_crc, 56);
PLOG_AT_(plog_file_header_t, reserved, 60);
_Static_assert(sizeof(plog_frame_header_t) == 24, "plog_frame_header_t is 24 bytes");
PLOG_AT_(plog_frame_header_t, magic, 0);
PLOG_AT_(plog_frame_header_t, kind, 4);
PLOG_AT_(plog_frame_header_t, thread, 6);
PLOG_AT_(plog_frame_header_t, comp_len, 8);
PLOG_AT_(plog_frame_header_t, raw_len, 12);
PLOG_AT_(plog_frame_header_t, count, 16);
PLOG_AT_(plog_frame_header_t, header_crc, 20);
_Static_assert(sizeof(plog_hash_trailer_t) == 16, "plog_hash_trailer_t is 16 bytes");
PLOG_AT_(plog_hash_trailer_t, magic, 0);
PLOG_AT_(plog_hash_trailer_t, len, 4);
PLOG_AT_(plog_hash_trailer_t, hash, 8);
_Static_assert(sizeof(plog_event_t) == 72 && sizeof(plog_event_t) % sizeof(uint64_t) == 0,
               "an event's extras (uint64 words) follow it aligned");
_Static_assert(PLOG_F_MEASURED <= UINT16_MAX && PLOG_F_COLLINFO <= UINT16_MAX &&
                   PLOG_F_RENEWED <= UINT16_MAX && PLOG_F_POLLS <= UINT16_MAX,
               "the flags fit plog_event_t.flags (uint16)");
_Static_assert(sizeof(PLOG_MAGIC) - 1 == sizeof(((plog_file_header_t *)0)->magic),
               "PLOG_MAGIC fills the header's magic, without a terminator");
#undef PLOG_AT_

#endif
