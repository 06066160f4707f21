/* Standard I/O forwarding. Every rank's stdout and stderr arrive on pipes and leave mpirun on
 * its own stdout and stderr one whole line at a time (one write per batch of complete lines,
 * from one thread), so lines of different ranks never mix inside a line; --tag-output and -l
 * put the rank in front of each line. mpirun's stdin is copied to rank 0. */
#ifndef VBT_IOF_H
#define VBT_IOF_H

#include <stddef.h>

#include "vbt_opts.h"
#include "vbt_status.h"

/* Longest line kept whole; a longer one is forwarded in pieces of this size. */
#define VBT_IOF_LINE_MAX (64 * 1024)

/* One rank's stdout or stderr. */
typedef struct {
    int fd; /* read end of the rank's pipe; -1 once closed */
    int rank;
    int stream; /* where it goes: STDOUT_FILENO or STDERR_FILENO */
    char *buf;  /* a partial line waiting for its end (line mode) */
    size_t len;
} vbt_iof_source_t;

typedef struct {
    vbt_tag_style_t tag;
    int line_mode; /* hold output until lines are complete (several ranks, or tagged) */
    int broken[3]; /* mpirun's stdout/stderr gave EPIPE: stop forwarding that stream */
    char *out;     /* scratch for prefixed lines */
    size_t out_cap;
    /* stdin -> rank 0 */
    int in_fd;    /* mpirun's stdin; -1 when not (or no longer) forwarding */
    int to_rank0; /* write end of rank 0's stdin pipe; -1 once closed */
    char *in_buf;
    size_t in_off, in_len;
} vbt_iof_t;

vbt_status_t vbt_iof_init(vbt_iof_t *iof, vbt_tag_style_t tag, int nprocs);
void vbt_iof_cleanup(vbt_iof_t *iof);

void vbt_iof_source_init(vbt_iof_source_t *src, int fd, int rank, int stream);
/* The pipe is readable: read once and forward the complete lines; at end of file forward the
 * partial last line and close. */
void vbt_iof_source_read(vbt_iof_t *iof, vbt_iof_source_t *src);
/* The rank has exited: forward everything left in the pipe without waiting for end of file
 * (a child of the rank may still hold the write end), then close. */
void vbt_iof_source_drain(vbt_iof_t *iof, vbt_iof_source_t *src);

/* Start copying mpirun's stdin to to_rank0 (the write end of rank 0's stdin pipe). */
void vbt_iof_stdin_start(vbt_iof_t *iof, int to_rank0);
int vbt_iof_stdin_wants_read(const vbt_iof_t *iof);
int vbt_iof_stdin_wants_write(const vbt_iof_t *iof);
void vbt_iof_stdin_read(vbt_iof_t *iof);
void vbt_iof_stdin_write(vbt_iof_t *iof);
/* Rank 0 is gone, or the job ends: stop reading stdin, close rank 0's pipe. */
void vbt_iof_stdin_stop(vbt_iof_t *iof);

#endif
