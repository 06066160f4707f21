/* The MPI tool information interface (MPI-4.1 chapter 15, MPI_T): what a performance tool may
 * read and set of the library, through the MPI_T_* calls (runtime/api/mpit_*.c).
 *
 *   control variables (cvars)   every VBT_* knob of the knob table (runtime/base/vbt_config.c),
 *                               with its type, help text, enumeration where it takes names, and
 *                               scope: the few that take effect when written after MPI_Init are
 *                               writable, the rest read-only (fixed at MPI_Init) or constant
 *                               (read by scripts, never by the library);
 *   performance variables       counters and levels the library keeps anyway, read where they
 *   (pvars)                     live (the point-to-point engine, the transports' interface
 *                               objects, the registration cache, the progress engine), so that
 *                               nothing is counted twice and a rank that runs no tool pays
 *                               only plain increments (vbt_mpit_pvar.c);
 *   categories                  transport-ib, transport-shm, p2p, collectives, rcache,
 *                               progress, onesided, runtime, tests, all under "verbatim";
 *   events                      none: MPI_T_event_get_num and MPI_T_source_get_num say 0
 *                               (runtime/api/mpit_event.c).
 *
 * All of it is usable before MPI_Init and after MPI_Finalize, between MPI_T_init_thread and
 * MPI_T_finalize (reference-counted). Its state is one object, vbt_rt.mpit, created by the
 * first MPI_T_init_thread and destroyed by the last MPI_T_finalize. Performance variables read
 * 0 before the library is first set up, and keep their last values once it is torn down
 * (counters go on from there if it comes up again). The calls return the tools interface's
 * own error classes (MPI_T_ERR_*) directly, never through an error handler, as the standard
 * says; the cause is logged at debug level (VBT_LOG=debug). */
#ifndef VBT_MPIT_H
#define VBT_MPIT_H

#include <mpi.h>
#include <stdint.h>

#include "vbt_compiler.h"
#include "vbt_config.h"

/* The element count of a string control variable: its longest value, NUL included. */
#define VBT_MPIT_STR_MAX 256
/* Items of an enumeration at most. */
#define VBT_MPIT_ENUM_MAX 8

typedef struct {
    char name[48];
    int n;
    const char *items[VBT_MPIT_ENUM_MAX]; /* item i has the value i */
} vbt_mpit_enum_t;

/* ---- control variables (vbt_mpit_cvar.c) ----------------------------------------------------- */
typedef struct {
    const vbt_knob_t *knob;
    MPI_Datatype datatype; /* MPI_INT, MPI_UNSIGNED_LONG_LONG or MPI_CHAR */
    int count;             /* elements: 1, or VBT_MPIT_STR_MAX for a string */
    int enum_index;        /* into vbt_mpit_t.enums, or -1 */
    int verbosity;         /* MPI_T_VERBOSITY_* */
    int scope;             /* MPI_T_SCOPE_* */
    int category;
} vbt_mpit_cvar_t;

/* ---- performance variables (vbt_mpit_pvar.c) ------------------------------------------------ */
typedef struct {
    const char *name;
    const char *desc;
    int var_class; /* MPI_T_PVAR_CLASS_* */
    int verbosity;
    int readonly;
    int continuous;
    int category;
    /* Its current value where it lives (the library is up), in the variable's unit:
     * nanoseconds for a timer (MPI_DOUBLE seconds to the tool), else an unsigned count. */
    uint64_t (*get)(int arg);
    int arg;
} vbt_mpit_pvar_t;

typedef struct vbt_mpit_session vbt_mpit_session_t;

typedef struct vbt_mpit_pvar_handle {
    struct vbt_mpit_pvar_handle *next; /* in its session */
    vbt_mpit_session_t *session;
    int index;
    int started;
    uint64_t accum; /* counter, timer: counted while started, before base */
    uint64_t base;  /* the raw value when last started, reset or written */
} vbt_mpit_pvar_handle_t;

struct vbt_mpit_session {
    struct vbt_mpit_session *next;
    vbt_mpit_pvar_handle_t *handles;
};

typedef struct vbt_mpit_cvar_handle {
    struct vbt_mpit_cvar_handle *next;
    int index;
} vbt_mpit_cvar_handle_t;

/* ---- categories (vbt_mpit_category.c) ---------------------------------------------------- */
enum {
    VBT_MPIT_CAT_ROOT, /* "verbatim": every other category */
    VBT_MPIT_CAT_P2P,
    VBT_MPIT_CAT_IB,
    VBT_MPIT_CAT_SHM,
    VBT_MPIT_CAT_RCACHE,
    VBT_MPIT_CAT_PROGRESS,
    VBT_MPIT_CAT_COLL,
    VBT_MPIT_CAT_ONESIDED,
    VBT_MPIT_CAT_RUNTIME,
    VBT_MPIT_CAT_TESTS,
    VBT_MPIT_NCATS
};

typedef struct {
    const char *name;
    const char *desc;
} vbt_mpit_category_t;

extern const vbt_mpit_category_t vbt_mpit_categories[VBT_MPIT_NCATS];

/* ---- the object ------------------------------------------------------------------------ */
#define VBT_MPIT_PVARS_MAX 64

typedef struct vbt_mpit {
    int refs; /* MPI_T_init_thread calls not yet finalized */
    vbt_mpit_cvar_t *cvars;
    int ncvars;
    vbt_mpit_enum_t *enums;
    int nenums;
    vbt_mpit_session_t *sessions;
    vbt_mpit_cvar_handle_t *cvar_handles;
    /* What the pvars counted in earlier lifetimes of the library (counters, timers: the sum;
     * high-water marks: the highest). */
    uint64_t carry[VBT_MPIT_PVARS_MAX];
} vbt_mpit_t;

/* MPI_T_init_thread and MPI_T_finalize: the first creates vbt_rt.mpit, the last destroys it
 * with every session and handle. MPI_SUCCESS or an MPI_T_ERR_* class. */
int vbt_mpit_init(void);
int vbt_mpit_finalize(void);
/* The library is being torn down (MPI_Finalize or the last session): the pvars' live values
 * are kept in carry before their objects go. Nothing when no tool initialised MPI_T. */
void vbt_mpit_library_down(void);

/* Log the cause at debug level and return code: "call returns CODE: cause". */
int vbt_mpit_error(const char *call, int code, const char *fmt, ...)
    __attribute__((noinline, cold, format(printf, 3, 4)));
/* The MPI_T string convention (MPI-4.1 Sec. 15.3.3): copy src into buf of *len_p characters
 * (nothing when buf is NULL or *len_p is 0), truncated and NUL-terminated; *len_p becomes the
 * length copied, or needed when nothing is, including the NUL. len_p NULL: nothing at all. */
void vbt_mpit_strcpy(char *buf, int *len_p, const char *src);

/* Control variables: built from the knob table at init. */
int vbt_mpit_cvars_build(vbt_mpit_t *t);
int vbt_mpit_cvar_read(const vbt_mpit_t *t, int index, void *buf);
/* MPI_SUCCESS, MPI_T_ERR_CVAR_SET_NEVER (read-only or constant), MPI_T_ERR_CVAR_SET_NOT_NOW
 * (the library is not set up: MPI_Init would overwrite it from the environment) or
 * MPI_T_ERR_INVALID (a value out of range); call names the caller in the log. */
int vbt_mpit_cvar_write(vbt_mpit_t *t, int index, const void *buf, const char *call);
const vbt_mpit_enum_t *vbt_mpit_enum_check(const vbt_mpit_t *t, MPI_T_enum handle);

/* Performance variables: a constant table. */
const vbt_mpit_pvar_t *vbt_mpit_pvars(int *count_p);
MPI_Datatype vbt_mpit_pvar_datatype(const vbt_mpit_pvar_t *p);
/* The variable's value now, including earlier lifetimes of the library. */
uint64_t vbt_mpit_pvar_raw(const vbt_mpit_t *t, int index);
/* What a handle reads now (the variable's unit). */
uint64_t vbt_mpit_pvar_value(const vbt_mpit_t *t, const vbt_mpit_pvar_handle_t *h);
/* A handle's value in buf as the tool sees it (MPI_UNSIGNED_LONG_LONG or MPI_DOUBLE). */
void vbt_mpit_pvar_store(const vbt_mpit_pvar_t *p, uint64_t value, void *buf);
uint64_t vbt_mpit_pvar_load(const vbt_mpit_pvar_t *p, const void *buf);

/* Handles and sessions: are they live (allocated and not freed)? */
vbt_mpit_session_t *vbt_mpit_session_check(const vbt_mpit_t *t, MPI_T_pvar_session s);
vbt_mpit_pvar_handle_t *vbt_mpit_pvar_handle_check(const vbt_mpit_session_t *s,
                                                   MPI_T_pvar_handle h);
vbt_mpit_cvar_handle_t *vbt_mpit_cvar_handle_check(const vbt_mpit_t *t, MPI_T_cvar_handle h);
void vbt_mpit_session_destroy(vbt_mpit_session_t *s);

#endif
