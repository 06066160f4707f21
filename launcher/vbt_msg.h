/* User-facing messages of the launcher: one line on stderr, prefixed with the name mpirun was
 * invoked as ("mpirun: ..." or "mpiexec: ..."). The logger (vbt_log.h) is for diagnostics with
 * file:line; these are the sentences a user acts on, so they carry no log decoration. */
#ifndef VBT_MSG_H
#define VBT_MSG_H

/* Remember the program name (basename of argv[0]) and the host name for messages. */
void vbt_msg_init(const char *argv0);
const char *vbt_msg_program(void);
const char *vbt_msg_host(void);

/* Print "<program>: <message>\n" on stderr in one write(), so it never interleaves with
 * forwarded rank output inside a line. */
void vbt_msg_print(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

#endif
