/* ofile.h: every file phasor writes (the command's outputs, the model file), created so that
 * nothing planted at its name or at its temporary name is followed: a new file is written
 * under a temporary name beside it, created O_EXCL|O_NOFOLLOW, and renamed over the name only
 * when complete. A symbolic link at the name is replaced, never written through; a file
 * already there stays whole until the new one is complete; a failed write leaves nothing.
 * An existing FIFO or character device (not a link to one) is written directly: a user who
 * names /dev/null or a pipe means it. doc/design.md, "Files phasor writes". */
#ifndef OFILE_H
#define OFILE_H

#include <stdio.h>

typedef struct ofile {
    FILE *f;     /* write here */
    int dirfd;   /* the directory name and tmp are in (AT_FDCWD: relative to the cwd) */
    char *name;  /* the name given (relative to dirfd) */
    char *tmp;   /* the temporary name, NULL when written directly (stdout, FIFO, device) */
} ofile_t;

/* An output directory: created if missing (mode 0777 & ~umask; its parent must exist), then
 * opened without following a symbolic link at its last component unless that link belongs
 * to the user running phasor (the rule of the kernel's fs.protected_symlinks). Returns the
 * directory's fd, or -1 with errno set (ELOOP: a link that is someone else's; ENOTDIR). */
int ofile_dir_open(const char *dir);

/* Open name (relative to dirfd, or AT_FDCWD; "-": standard output) for writing a complete
 * new file. 0, or -1 with errno set and o->f NULL. */
int ofile_open(ofile_t *o, int dirfd, const char *name);

/* Flush, fsync (a new file) and close; keep: the file takes its name (renamed into place),
 * else it is removed.
 * 0, or -1 with errno set when a byte did not get out or the rename failed (nothing kept).
 * Always frees o. Standard output is flushed, not closed. */
int ofile_close(ofile_t *o, int keep);

#endif
