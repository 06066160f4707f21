#include "config.h"

#include "vbt_iof.h"
#include "vbt_log.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define VBT_IOF_STDIN_BUF  (64 * 1024)
#define VBT_IOF_PREFIX_MAX 48

vbt_status_t vbt_iof_init(vbt_iof_t *iof, vbt_tag_style_t tag, int nprocs)
{
    memset(iof, 0, sizeof(*iof));
    iof->tag = tag;
    /* One untagged rank is passed through as it comes, so a prompt without a newline shows
     * at once; with several ranks whole lines are what keeps their output readable. */
    iof->line_mode = tag != VBT_TAG_NONE || nprocs > 1;
    iof->in_fd = -1;
    iof->to_rank0 = -1;
    iof->in_buf = malloc(VBT_IOF_STDIN_BUF);
    if (iof->in_buf == NULL)
        return VBT_ERR_NO_MEMORY;
    return VBT_OK;
}

void vbt_iof_cleanup(vbt_iof_t *iof)
{
    vbt_iof_stdin_stop(iof);
    free(iof->in_buf);
    free(iof->out);
    iof->in_buf = NULL;
    iof->out = NULL;
}

/* Write all of buf to mpirun's stdout or stderr. Those descriptors are shared with the shell,
 * so they stay blocking; if someone made them non-blocking, wait for room. */
static void iof_write_all(vbt_iof_t *iof, int stream, const char *buf, size_t len)
{
    while (len > 0 && !iof->broken[stream]) {
        ssize_t w = write(stream, buf, len);

        if (w > 0) {
            buf += w;
            len -= (size_t)w;
        } else if (w < 0 && errno == EINTR) {
            continue;
        } else if (w < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
            struct pollfd pfd = {.fd = stream, .events = POLLOUT};
            (void)poll(&pfd, 1, 100);
        } else {
            /* EPIPE (a "| head" that has quit) or worse: stop forwarding this stream. The
             * ranks' pipes get closed, so they see EPIPE or SIGPIPE as without mpirun. */
            vbt_debug("forwarding to fd %d stopped: %m", stream);
            iof->broken[stream] = 1;
        }
    }
}

static size_t iof_prefix(const vbt_iof_t *iof, const vbt_iof_source_t *src, char *prefix)
{
    int n = 0;

    if (iof->tag == VBT_TAG_OUTPUT)
        n = snprintf(prefix, VBT_IOF_PREFIX_MAX, "[1,%d]<%s>: ", src->rank,
                     src->stream == STDERR_FILENO ? "stderr" : "stdout");
    else if (iof->tag == VBT_TAG_RANK)
        n = snprintf(prefix, VBT_IOF_PREFIX_MAX, "[%d] ", src->rank);
    return n > 0 ? (size_t)n : 0;
}

/* Forward data[0..len), which holds whole lines, except that the last one lacks its newline
 * when add_newline is set (a forced flush); each line gets the rank prefix. */
static void iof_emit(vbt_iof_t *iof, const vbt_iof_source_t *src, const char *data, size_t len,
                     int add_newline)
{
    char prefix[VBT_IOF_PREFIX_MAX];
    size_t plen = iof_prefix(iof, src, prefix);
    size_t nlines = add_newline, need, o = 0;

    if (len == 0)
        return;
    if (plen == 0 && !add_newline) {
        iof_write_all(iof, src->stream, data, len);
        return;
    }
    for (size_t i = 0; i < len; i++)
        nlines += data[i] == '\n';
    need = len + nlines * plen + 1;
    if (need > iof->out_cap) {
        char *grown = realloc(iof->out, need);
        if (grown == NULL) {
            /* Out of memory: the bytes matter more than the prefixes. */
            iof_write_all(iof, src->stream, data, len);
            return;
        }
        iof->out = grown;
        iof->out_cap = need;
    }
    for (size_t start = 0; start < len;) {
        const char *nl = memchr(data + start, '\n', len - start);
        size_t end = nl != NULL ? (size_t)(nl - data) + 1 : len;

        memcpy(iof->out + o, prefix, plen);
        o += plen;
        memcpy(iof->out + o, data + start, end - start);
        o += end - start;
        start = end;
    }
    if (add_newline)
        iof->out[o++] = '\n';
    iof_write_all(iof, src->stream, iof->out, o);
}

static void iof_source_close(vbt_iof_t *iof, vbt_iof_source_t *src)
{
    if (src->len > 0) {
        /* The last line had no newline. Untagged output keeps its exact bytes; a tagged line
         * is ended so the next prefix starts a line of its own. */
        iof_emit(iof, src, src->buf, src->len, iof->tag != VBT_TAG_NONE);
        src->len = 0;
    }
    if (src->fd >= 0)
        close(src->fd);
    src->fd = -1;
    free(src->buf);
    src->buf = NULL;
}

void vbt_iof_source_init(vbt_iof_source_t *src, int fd, int rank, int stream)
{
    memset(src, 0, sizeof(*src));
    src->fd = fd;
    src->rank = rank;
    src->stream = stream;
}

/* One read; returns the byte count, 0 at end of file, -1 when nothing is there (EAGAIN). */
static ssize_t iof_source_read_once(vbt_iof_t *iof, vbt_iof_source_t *src)
{
    char raw[VBT_IOF_LINE_MAX];
    char *room = raw;
    size_t cap = sizeof(raw);
    ssize_t n;

    if (iof->broken[src->stream]) {
        iof_source_close(iof, src);
        return 0;
    }
    if (iof->line_mode) {
        if (src->buf == NULL && (src->buf = malloc(VBT_IOF_LINE_MAX)) == NULL) {
            vbt_error("no memory for the output buffer of rank %d", src->rank);
            iof_source_close(iof, src);
            return 0;
        }
        room = src->buf + src->len;
        cap = VBT_IOF_LINE_MAX - src->len;
    }
    do {
        n = read(src->fd, room, cap);
    } while (n < 0 && errno == EINTR);
    if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
        return -1;
    if (n < 0) {
        vbt_debug("reading the output of rank %d: %m", src->rank);
        n = 0;
    }
    if (n == 0) {
        iof_source_close(iof, src);
        return 0;
    }
    if (!iof->line_mode) {
        iof_emit(iof, src, raw, (size_t)n, 0);
        return n;
    }
    src->len += (size_t)n;
    for (size_t i = src->len; i > 0; i--) {
        if (src->buf[i - 1] == '\n') {
            iof_emit(iof, src, src->buf, i, 0);
            memmove(src->buf, src->buf + i, src->len - i);
            src->len -= i;
            return n;
        }
    }
    if (src->len == VBT_IOF_LINE_MAX) {
        /* A line longer than the buffer: forward this piece as a line of its own. */
        iof_emit(iof, src, src->buf, src->len, iof->tag != VBT_TAG_NONE);
        src->len = 0;
    }
    return n;
}

void vbt_iof_source_read(vbt_iof_t *iof, vbt_iof_source_t *src)
{
    if (src->fd >= 0)
        (void)iof_source_read_once(iof, src);
}

void vbt_iof_source_drain(vbt_iof_t *iof, vbt_iof_source_t *src)
{
    /* What the rank wrote fits in the pipe; the bound stops a child of the rank that keeps
     * writing from holding mpirun here. */
    for (int i = 0; i < 64 && src->fd >= 0 && iof_source_read_once(iof, src) > 0; i++)
        ;
    iof_source_close(iof, src);
}

void vbt_iof_stdin_start(vbt_iof_t *iof, int to_rank0)
{
    iof->to_rank0 = to_rank0;
    /* mpirun may have been started with stdin closed: rank 0 then sees end of file. */
    iof->in_fd = fcntl(STDIN_FILENO, F_GETFL) != -1 ? STDIN_FILENO : -1;
    if (iof->in_fd < 0)
        vbt_iof_stdin_stop(iof);
}

int vbt_iof_stdin_wants_read(const vbt_iof_t *iof)
{
    return iof->in_fd >= 0 && iof->to_rank0 >= 0 && iof->in_len == 0;
}

int vbt_iof_stdin_wants_write(const vbt_iof_t *iof)
{
    return iof->to_rank0 >= 0 && iof->in_off < iof->in_len;
}

void vbt_iof_stdin_read(vbt_iof_t *iof)
{
    ssize_t n;

    if (!vbt_iof_stdin_wants_read(iof))
        return;
    /* stdin stays blocking (it is shared with the shell); poll said it is readable, and a
     * read then returns at once. A background job reading the terminal gets EIO, since
     * SIGTTIN is ignored: stop forwarding then instead of stopping mpirun. */
    n = read(iof->in_fd, iof->in_buf, VBT_IOF_STDIN_BUF);
    if (n < 0 && (errno == EINTR || errno == EAGAIN || errno == EWOULDBLOCK))
        return;
    if (n <= 0) {
        if (n < 0)
            vbt_debug("reading stdin: %m; rank 0 gets end of file");
        vbt_iof_stdin_stop(iof);
        return;
    }
    iof->in_off = 0;
    iof->in_len = (size_t)n;
    vbt_iof_stdin_write(iof);
}

void vbt_iof_stdin_write(vbt_iof_t *iof)
{
    while (vbt_iof_stdin_wants_write(iof)) {
        ssize_t w = write(iof->to_rank0, iof->in_buf + iof->in_off, iof->in_len - iof->in_off);

        if (w > 0) {
            iof->in_off += (size_t)w;
            continue;
        }
        if (w < 0 && errno == EINTR)
            continue;
        if (w < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
            return;
        /* EPIPE: rank 0 closed its stdin; the rest of ours is not for anyone. */
        vbt_debug("writing to rank 0's stdin: %m");
        vbt_iof_stdin_stop(iof);
        return;
    }
    iof->in_off = iof->in_len = 0;
}

void vbt_iof_stdin_stop(vbt_iof_t *iof)
{
    if (iof->to_rank0 >= 0)
        close(iof->to_rank0);
    iof->to_rank0 = -1;
    iof->in_fd = -1;
    iof->in_off = iof->in_len = 0;
}
