/* ofile.c: files written whole, never through a planted link (ofile.h). */
#define _GNU_SOURCE
#include "ofile.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

int ofile_dir_open(const char *dir)
{
    if (mkdir(dir, 0777) != 0 && errno != EEXIST)
        return -1;
    struct stat ls;
    if (lstat(dir, &ls) != 0)
        return -1;
    int flags = O_RDONLY | O_DIRECTORY | O_CLOEXEC;
    if (S_ISLNK(ls.st_mode)) {
        if (ls.st_uid != geteuid()) {
            errno = ELOOP;
            return -1;
        }
    } else {
        flags |= O_NOFOLLOW; /* swapped for a link since the lstat: refused, not followed */
    }
    return open(dir, flags);
}

static void ofile_free(ofile_t *o)
{
    free(o->name);
    free(o->tmp);
    o->name = o->tmp = NULL;
    o->f = NULL;
}

int ofile_open(ofile_t *o, int dirfd, const char *name)
{
    memset(o, 0, sizeof(*o));
    o->dirfd = dirfd;
    if (strcmp(name, "-") == 0) {
        o->f = stdout;
        return 0;
    }
    if ((o->name = strdup(name)) == NULL)
        return -1;
    struct stat st;
    int fd;
    if (fstatat(dirfd, name, &st, AT_SYMLINK_NOFOLLOW) == 0 && !S_ISREG(st.st_mode) &&
        !S_ISLNK(st.st_mode)) {
        if (S_ISDIR(st.st_mode)) {
            errno = EISDIR;
            ofile_free(o);
            return -1;
        }
        /* a FIFO or device the user named: written as it is (O_NOFOLLOW: still not a link) */
        fd = openat(dirfd, name, O_WRONLY | O_NOFOLLOW | O_CLOEXEC);
    } else {
        size_t cap = strlen(name) + 40;
        if ((o->tmp = malloc(cap)) == NULL) {
            ofile_free(o);
            return -1;
        }
        /* O_EXCL fails on anything already at the name, a dangling link included, so a
         * predictable name is safe: another is tried */
        static unsigned serial;
        fd = -1;
        for (int i = 0; i < 100 && fd < 0; i++) {
            snprintf(o->tmp, cap, "%s.tmp%ld.%u", name, (long)getpid(), serial++);
            fd = openat(dirfd, o->tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC,
                        0666);
            if (fd < 0 && errno != EEXIST)
                break;
        }
    }
    if (fd < 0 || (o->f = fdopen(fd, "w")) == NULL) {
        int e = errno;
        if (fd >= 0)
            close(fd);
        if (o->tmp)
            unlinkat(dirfd, o->tmp, 0);
        ofile_free(o);
        errno = e;
        return -1;
    }
    return 0;
}

int ofile_close(ofile_t *o, int keep)
{
    int e = 0;
    if (o->f == NULL)
        return 0;
    if (fflush(o->f) != 0 || ferror(o->f))
        e = errno ? errno : EIO;
    /* on disk before it takes the name: a crash leaves the old file or the new, never an
     * empty one (EIO from writeback is reported here, not lost) */
    if (e == 0 && o->tmp && fsync(fileno(o->f)) != 0)
        e = errno;
    if (o->f != stdout && fclose(o->f) != 0 && e == 0)
        e = errno ? errno : EIO;
    if (o->tmp) {
        if (keep && e == 0 && renameat(o->dirfd, o->tmp, o->dirfd, o->name) != 0)
            e = errno;
        if (!keep || e != 0)
            unlinkat(o->dirfd, o->tmp, 0);
    }
    ofile_free(o);
    errno = e;
    return e ? -1 : 0;
}
