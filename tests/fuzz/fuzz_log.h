/* fuzz_log.h: the input format of the log fuzz target, shared with its seed maker. A fuzz
 * input is what a rank file holds once decompressed, so that the fuzzer works on the
 * decoders rather than dying at the checksums: the harness packs it into a valid file.
 *   byte 0        world size - 1 (mod 4): 1..4; rank 0 is written, read alone
 *   byte 1        0: an END frame closes the file as the last record says; else none
 *   then records: kind (1 byte), thread (2, LE), count (4, LE), len (4, LE), len bytes
 * The header's key=value strings are the payload of a record of kind 0 (at most one). */
#ifndef FUZZ_LOG_H
#define FUZZ_LOG_H

#include <stddef.h>
#include <stdint.h>

#define FUZZ_REC_HEAD 11 /* kind, thread, count, len */

#endif
