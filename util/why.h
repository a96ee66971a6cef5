/* why.h: the one-line reason a library function gives its caller in an optional buffer
 * (CONTRIBUTING.md, "Errors, per layer": util/ and models/ return a status and fill why). */
#ifndef WHY_H
#define WHY_H

#include <stdarg.h>
#include <stddef.h>

/* The message into why[0..n) when why is given (and n > 0), truncated to fit. */
void why_vset(char *why, size_t n, const char *fmt, va_list ap);
/* The same from arguments; returns -1, the failure status of util/ and models/. */
int why_fail(char *why, size_t n, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

#endif
