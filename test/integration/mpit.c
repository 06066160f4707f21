/* The tools interface (MPI_T) under mpirun:
 *   mpit TL [N]   TL: the transport between the ranks (shm or ib). MPI_T before MPI_Init
 *                 (enumeration, reads, writes refused for now, errors), between MPI_Init and
 *                 MPI_Finalize (every pair of ranks in turn sends N messages of several sizes
 *                 while the others wait, and the counters must say exactly N messages and
 *                 N * B bytes, eager or rendezvous as the thresholds read through MPI_T say;
 *                 messages to oneself; queue levels; non-continuous progress variables;
 *                 sessions and handles; writes that change behaviour), and after MPI_Finalize;
 *                 then MPI_T_finalize and NOT_INITIALIZED.
 * Prints "mpit: ok (N ranks)" on rank 0. Writes VBT_LOG=debug for a moment: the shell script
 * checks that a debug line appeared on stderr then, and only then. */
#define MPITEST_NAME "mpit"
#include "mpitest.h"

#include <stdint.h>

#define EXPECT(_call, _code)                                                                       \
    do {                                                                                           \
        int _rc = (_call);                                                                         \
        if (_rc != (_code)) {                                                                      \
            char _s[MPI_MAX_ERROR_STRING] = "?";                                                   \
            int _l;                                                                                \
            MPI_Error_string(_rc, _s, &_l);                                                        \
            fprintf(stderr, "mpit: rank %d: line %d: %s returned %d (%s), expected %s\n", rank,    \
                    __LINE__, #_call, _rc, _s, #_code);                                            \
            exit(2);                                                                               \
        }                                                                                          \
    } while (0)
#define OK(_call) EXPECT(_call, MPI_SUCCESS)

static const char *tl = "shm";
static MPI_T_pvar_session ses;

static int cvar_index(const char *name)
{
    int i;
    OK(MPI_T_cvar_get_index(name, &i));
    return i;
}

static int pvar_index(const char *name, int cls)
{
    int i;
    OK(MPI_T_pvar_get_index(name, cls, &i));
    return i;
}

static unsigned long long cvar_ull(const char *name)
{
    MPI_T_cvar_handle h;
    int count;
    unsigned long long v;

    OK(MPI_T_cvar_handle_alloc(cvar_index(name), NULL, &h, &count));
    CHECK(count == 1);
    OK(MPI_T_cvar_read(h, &v));
    OK(MPI_T_cvar_handle_free(&h));
    return v;
}

static int cvar_int(const char *name)
{
    MPI_T_cvar_handle h;
    int count, v;

    OK(MPI_T_cvar_handle_alloc(cvar_index(name), NULL, &h, &count));
    OK(MPI_T_cvar_read(h, &v));
    OK(MPI_T_cvar_handle_free(&h));
    return v;
}

static int cvar_write_int(const char *name, int v)
{
    MPI_T_cvar_handle h;
    int count, rc;

    OK(MPI_T_cvar_handle_alloc(cvar_index(name), NULL, &h, &count));
    rc = MPI_T_cvar_write(h, &v);
    OK(MPI_T_cvar_handle_free(&h));
    return rc;
}

/* A continuous counter's handle in ses, by name (TL-prefixed when name starts with '_'). */
static MPI_T_pvar_handle counter(const char *name)
{
    char full[64];
    MPI_T_pvar_handle h;
    int count;

    snprintf(full, sizeof(full), "%s%s", name[0] == '_' ? tl : "", name);
    OK(MPI_T_pvar_handle_alloc(ses, pvar_index(full, MPI_T_PVAR_CLASS_COUNTER), NULL, &h, &count));
    CHECK(count == 1);
    return h;
}

static unsigned long long rd(MPI_T_pvar_handle h)
{
    unsigned long long v;
    OK(MPI_T_pvar_read(ses, h, &v));
    return v;
}

/* Enumerate everything and check the invariants: names found back by index, enumerations,
 * categories covering every variable exactly once below the root. */
static void enumerate(void)
{
    int ncvar, npvar, ncat, nev, nsrc, n;
    int *seen_c, *seen_p;

    OK(MPI_T_cvar_get_num(&ncvar));
    OK(MPI_T_pvar_get_num(&npvar));
    OK(MPI_T_category_get_num(&ncat));
    CHECK(ncvar >= 20 && npvar >= 30 && ncat >= 7);
    for (int i = 0; i < ncvar; i++) {
        char name[128], desc[1024];
        int nl = sizeof(name), dl = sizeof(desc), verb, bind, scope, j;
        MPI_Datatype dt;
        MPI_T_enum en;
        OK(MPI_T_cvar_get_info(i, name, &nl, &verb, &dt, &en, desc, &dl, &bind, &scope));
        CHECK(strncmp(name, "VBT_", 4) == 0 && nl == (int)strlen(name) + 1 && dl > 10);
        CHECK(dt == MPI_INT || dt == MPI_UNSIGNED_LONG_LONG || dt == MPI_CHAR);
        CHECK(bind == MPI_T_BIND_NO_OBJECT);
        CHECK(scope >= MPI_T_SCOPE_CONSTANT && scope <= MPI_T_SCOPE_ALL_EQ);
        OK(MPI_T_cvar_get_index(name, &j));
        CHECK(j == i);
        /* length only */
        nl = 0;
        OK(MPI_T_cvar_get_info(i, NULL, &nl, NULL, NULL, NULL, NULL, NULL, NULL, NULL));
        CHECK(nl == (int)strlen(name) + 1);
        /* truncated */
        nl = 4;
        OK(MPI_T_cvar_get_info(i, name, &nl, NULL, NULL, NULL, NULL, NULL, NULL, NULL));
        CHECK(nl == 4 && strcmp(name, "VBT") == 0);
        if (en != MPI_T_ENUM_NULL) {
            int num, val, el = sizeof(desc);
            CHECK(dt == MPI_INT);
            OK(MPI_T_enum_get_info(en, &num, desc, &el));
            CHECK(num >= 2 && num <= 8 && el > 1);
            for (int k = 0; k < num; k++) {
                el = sizeof(desc);
                OK(MPI_T_enum_get_item(en, k, &val, desc, &el));
                CHECK(val == k && el > 1);
            }
            EXPECT(MPI_T_enum_get_item(en, num, &val, desc, &el), MPI_T_ERR_INVALID_INDEX);
        }
    }
    for (int i = 0; i < npvar; i++) {
        char name[128], desc[1024];
        int nl = sizeof(name), dl = sizeof(desc), verb, cls, bind, ro, cont, atomic, j;
        MPI_Datatype dt;
        MPI_T_enum en;
        OK(MPI_T_pvar_get_info(i, name, &nl, &verb, &cls, &dt, &en, desc, &dl, &bind, &ro, &cont,
                               &atomic));
        CHECK(nl == (int)strlen(name) + 1 && dl > 10 && en == MPI_T_ENUM_NULL);
        CHECK(dt == (cls == MPI_T_PVAR_CLASS_TIMER ? MPI_DOUBLE : MPI_UNSIGNED_LONG_LONG));
        CHECK(cls == MPI_T_PVAR_CLASS_COUNTER || cls == MPI_T_PVAR_CLASS_LEVEL ||
              cls == MPI_T_PVAR_CLASS_HIGHWATERMARK || cls == MPI_T_PVAR_CLASS_TIMER);
        CHECK(ro == (cls == MPI_T_PVAR_CLASS_LEVEL || cls == MPI_T_PVAR_CLASS_HIGHWATERMARK));
        OK(MPI_T_pvar_get_index(name, cls, &j));
        CHECK(j == i);
        EXPECT(MPI_T_pvar_get_index(name,
                                    cls == MPI_T_PVAR_CLASS_STATE ? 2 : MPI_T_PVAR_CLASS_STATE, &j),
               MPI_T_ERR_INVALID_NAME);
    }
    seen_c = calloc((size_t)ncvar, sizeof(int));
    seen_p = calloc((size_t)npvar, sizeof(int));
    for (int c = 0; c < ncat; c++) {
        char name[64];
        int nl = sizeof(name), nc, np, ns, j, idx[128];
        OK(MPI_T_category_get_info(c, name, &nl, NULL, NULL, &nc, &np, &ns));
        OK(MPI_T_category_get_index(name, &j));
        CHECK(j == c);
        OK(MPI_T_category_get_num_events(c, &n));
        CHECK(n == 0);
        OK(MPI_T_category_get_events(c, 0, NULL));
        CHECK(nc <= 128 && np <= 128);
        OK(MPI_T_category_get_cvars(c, nc, idx));
        for (int k = 0; k < nc; k++)
            seen_c[idx[k]]++;
        OK(MPI_T_category_get_pvars(c, np, idx));
        for (int k = 0; k < np; k++)
            seen_p[idx[k]]++;
        if (c == 0) {
            CHECK(strcmp(name, "verbatim") == 0 && ns == ncat - 1);
            OK(MPI_T_category_get_categories(c, ns, idx));
            for (int k = 0; k < ns; k++)
                CHECK(idx[k] == k + 1);
        } else {
            CHECK(ns == 0);
        }
    }
    for (int i = 0; i < ncvar; i++)
        CHECK(seen_c[i] == 1);
    for (int i = 0; i < npvar; i++)
        CHECK(seen_p[i] == 1);
    free(seen_c);
    free(seen_p);
    {
        const char *must[] = {"transport-ib", "transport-shm", "p2p",
                              "collectives",  "rcache",        "progress"};
        for (size_t k = 0; k < sizeof(must) / sizeof(must[0]); k++)
            OK(MPI_T_category_get_index(must[k], &n));
    }
    OK(MPI_T_category_changed(&n));
    /* No events, no sources. */
    OK(MPI_T_event_get_num(&nev));
    OK(MPI_T_source_get_num(&nsrc));
    CHECK(nev == 0 && nsrc == 0);
}

/* Errors that need no library: bad indices, names, handles, sessions. */
static void errors(void)
{
    int ncvar, npvar, n, count;
    MPI_T_cvar_handle ch, stale;
    MPI_T_pvar_session s2, stale_s;
    MPI_T_pvar_handle ph, ph2, stale_h;
    MPI_T_event_registration reg;
    MPI_Count ts;
    char buf[MPI_MAX_ERROR_STRING];

    OK(MPI_T_cvar_get_num(&ncvar));
    OK(MPI_T_pvar_get_num(&npvar));
    EXPECT(MPI_T_cvar_get_info(-1, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL),
           MPI_T_ERR_INVALID_INDEX);
    EXPECT(MPI_T_cvar_get_info(ncvar, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL),
           MPI_T_ERR_INVALID_INDEX);
    EXPECT(MPI_T_pvar_get_info(npvar, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL,
                               NULL, NULL),
           MPI_T_ERR_INVALID_INDEX);
    EXPECT(MPI_T_category_get_info(99, NULL, NULL, NULL, NULL, NULL, NULL, NULL),
           MPI_T_ERR_INVALID_INDEX);
    EXPECT(MPI_T_category_get_cvars(-1, 0, NULL), MPI_T_ERR_INVALID_INDEX);
    EXPECT(MPI_T_cvar_get_index("VBT_NO_SUCH_KNOB", &n), MPI_T_ERR_INVALID_NAME);
    EXPECT(MPI_T_cvar_get_index(NULL, &n), MPI_T_ERR_INVALID);
    EXPECT(MPI_T_category_get_index("nope", &n), MPI_T_ERR_INVALID_NAME);
    EXPECT(MPI_T_cvar_handle_alloc(ncvar, NULL, &ch, &count), MPI_T_ERR_INVALID_INDEX);
    EXPECT(MPI_T_enum_get_info((MPI_T_enum)&n, &n, NULL, NULL), MPI_T_ERR_INVALID_HANDLE);

    /* Stale and null cvar handles. */
    OK(MPI_T_cvar_handle_alloc(cvar_index("VBT_EAGER_LIMIT"), NULL, &ch, &count));
    stale = ch;
    OK(MPI_T_cvar_handle_free(&ch));
    CHECK(ch == MPI_T_CVAR_HANDLE_NULL);
    EXPECT(MPI_T_cvar_read(stale, buf), MPI_T_ERR_INVALID_HANDLE);
    EXPECT(MPI_T_cvar_handle_free(&stale), MPI_T_ERR_INVALID_HANDLE);
    EXPECT(MPI_T_cvar_read(MPI_T_CVAR_HANDLE_NULL, buf), MPI_T_ERR_INVALID_HANDLE);

    /* Sessions and pvar handles: stale, wrong session, ALL_HANDLES where it is not allowed,
     * start/stop of a continuous variable, writes of read-only ones. */
    OK(MPI_T_pvar_session_create(&s2));
    EXPECT(MPI_T_pvar_handle_alloc(s2, npvar, NULL, &ph, &count), MPI_T_ERR_INVALID_INDEX);
    OK(MPI_T_pvar_handle_alloc(s2, pvar_index("shm_msgs_sent", MPI_T_PVAR_CLASS_COUNTER), NULL, &ph,
                               &count));
    EXPECT(MPI_T_pvar_read(ses, ph, buf), MPI_T_ERR_INVALID_HANDLE); /* another session's */
    EXPECT(MPI_T_pvar_read(s2, MPI_T_PVAR_ALL_HANDLES, buf), MPI_T_ERR_INVALID_HANDLE);
    EXPECT(MPI_T_pvar_start(s2, ph), MPI_T_ERR_PVAR_NO_STARTSTOP);
    EXPECT(MPI_T_pvar_stop(s2, ph), MPI_T_ERR_PVAR_NO_STARTSTOP);
    OK(MPI_T_pvar_start(s2, MPI_T_PVAR_ALL_HANDLES)); /* applies to none: fine */
    OK(MPI_T_pvar_handle_alloc(s2, pvar_index("p2p_unexpected_length", MPI_T_PVAR_CLASS_LEVEL),
                               NULL, &ph2, &count));
    EXPECT(MPI_T_pvar_reset(s2, ph2), MPI_T_ERR_PVAR_NO_WRITE);
    EXPECT(MPI_T_pvar_write(s2, ph2, buf), MPI_T_ERR_PVAR_NO_WRITE);
    EXPECT(MPI_T_pvar_readreset(s2, ph2, buf), MPI_T_ERR_PVAR_NO_WRITE);
    OK(MPI_T_pvar_reset(s2, MPI_T_PVAR_ALL_HANDLES));
    stale_h = ph;
    OK(MPI_T_pvar_handle_free(s2, &ph));
    CHECK(ph == MPI_T_PVAR_HANDLE_NULL);
    EXPECT(MPI_T_pvar_read(s2, stale_h, buf), MPI_T_ERR_INVALID_HANDLE);
    EXPECT(MPI_T_pvar_handle_free(s2, &stale_h), MPI_T_ERR_INVALID_HANDLE);
    stale_s = s2;
    OK(MPI_T_pvar_session_free(&s2)); /* frees ph2 with it */
    CHECK(s2 == MPI_T_PVAR_SESSION_NULL);
    EXPECT(MPI_T_pvar_read(stale_s, ph2, buf), MPI_T_ERR_INVALID_SESSION);
    EXPECT(MPI_T_pvar_session_free(&stale_s), MPI_T_ERR_INVALID_SESSION);
    EXPECT(MPI_T_pvar_handle_alloc(MPI_T_PVAR_SESSION_NULL, 0, NULL, &ph, &count),
           MPI_T_ERR_INVALID_SESSION);

    /* Read-only and constant control variables are never written. */
    EXPECT(cvar_write_int("VBT_SHM_CMA", 0), MPI_T_ERR_CVAR_SET_NEVER);
    EXPECT(cvar_write_int("VBT_CC", 0), MPI_T_ERR_CVAR_SET_NEVER);

    /* Events: none. */
    EXPECT(
        MPI_T_event_get_info(0, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL),
        MPI_T_ERR_INVALID_INDEX);
    EXPECT(MPI_T_event_handle_alloc(0, NULL, MPI_INFO_NULL, &reg), MPI_T_ERR_INVALID_INDEX);
    EXPECT(MPI_T_event_get_index("anything", &n), MPI_T_ERR_INVALID_NAME);
    EXPECT(MPI_T_event_handle_free(NULL, NULL, NULL), MPI_T_ERR_INVALID_HANDLE);
    EXPECT(MPI_T_event_read(NULL, 0, buf), MPI_T_ERR_INVALID_HANDLE);
    EXPECT(MPI_T_source_get_timestamp(0, &ts), MPI_T_ERR_INVALID_INDEX);

    /* The classes have strings. */
    OK(MPI_Error_string(MPI_T_ERR_INVALID_HANDLE, buf, &n));
    CHECK(strstr(buf, "MPI_T_ERR_INVALID_HANDLE") != NULL);
}

/* Pair (s, d) in turn, the others waiting for the token: exact counts. */
static void traffic(int nmsg)
{
    const size_t sizes[] = {0, 8, 1000, 20000, 100000};
    size_t eager_max =
        strcmp(tl, "ib") == 0 ? cvar_ull("VBT_RNDV_THRESHOLD") : cvar_ull("VBT_SHM_RNDV_THRESHOLD");
    MPI_T_pvar_handle ms = counter("_msgs_sent"), bs = counter("_bytes_sent"),
                      rs = counter("_rndv_sent"), es = counter("_eager_sent"),
                      mr = counter("_msgs_recvd"), br = counter("_bytes_recvd"),
                      rr = counter("_rndv_recvd"), er = counter("_eager_recvd");
    MPI_T_pvar_handle rc_hits = counter("rcache_hits"), rc_misses = counter("rcache_misses");
    char *buf = xmalloc(100000 * (size_t)nmsg);
    MPI_Request *reqs = xmalloc(sizeof(MPI_Request) * (size_t)nmsg);
    int step = 0;

    for (int s = 0; s < size; s++) {
        for (int d = 0; d < size; d++) {
            if (s == d)
                continue;
            for (size_t z = 0; z < sizeof(sizes) / sizeof(sizes[0]); z++, step++) {
                size_t b = sizes[z];
                int rndv = b > eager_max;
                /* The token: the previous pair's receiver lets this pair start (rank 0 starts
                 * the first). Nobody else sends anything meanwhile. */
                if (rank == s || rank == d) {
                    if (step > 0)
                        MPI_Recv(NULL, 0, MPI_BYTE, MPI_ANY_SOURCE, 1, MPI_COMM_WORLD,
                                 MPI_STATUS_IGNORE);
                }
                if (rank == d) {
                    unsigned long long m0 = rd(mr), b0 = rd(br), r0 = rd(rr), e0 = rd(er);
                    for (int i = 0; i < nmsg; i++)
                        MPI_Irecv(buf + b * (size_t)i, (int)b, MPI_BYTE, s, 2, MPI_COMM_WORLD,
                                  &reqs[i]);
                    MPI_Send(NULL, 0, MPI_BYTE, s, 3, MPI_COMM_WORLD); /* go */
                    MPI_Waitall(nmsg, reqs, MPI_STATUSES_IGNORE);
                    for (int i = 0; i < nmsg; i++)
                        verify(buf + b * (size_t)i, b, (unsigned)(step + i), "pair payload");
                    if (rd(mr) - m0 != (unsigned long long)nmsg || rd(br) - b0 != nmsg * b ||
                        rd(rr) - r0 != (unsigned long long)(rndv ? nmsg : 0) ||
                        rd(er) - e0 != (unsigned long long)(rndv ? 0 : nmsg))
                        FAIL("%s: %d -> %d, %d x %zu bytes: received %llu msgs %llu bytes "
                             "(%llu rndv, %llu eager)",
                             tl, s, d, nmsg, b, rd(mr) - m0, rd(br) - b0, rd(rr) - r0, rd(er) - e0);
                } else if (rank == s) {
                    unsigned long long m0, b0, r0, e0;
                    MPI_Recv(NULL, 0, MPI_BYTE, d, 3, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
                    m0 = rd(ms), b0 = rd(bs), r0 = rd(rs), e0 = rd(es);
                    for (int i = 0; i < nmsg; i++) {
                        fill(buf + b * (size_t)i, b, (unsigned)(step + i));
                        MPI_Isend(buf + b * (size_t)i, (int)b, MPI_BYTE, d, 2, MPI_COMM_WORLD,
                                  &reqs[i]);
                    }
                    MPI_Waitall(nmsg, reqs, MPI_STATUSES_IGNORE);
                    if (rd(ms) - m0 != (unsigned long long)nmsg || rd(bs) - b0 != nmsg * b ||
                        rd(rs) - r0 != (unsigned long long)(rndv ? nmsg : 0) ||
                        rd(es) - e0 != (unsigned long long)(rndv ? 0 : nmsg))
                        FAIL("%s: %d -> %d, %d x %zu bytes: sent %llu msgs %llu bytes "
                             "(%llu rndv, %llu eager)",
                             tl, s, d, nmsg, b, rd(ms) - m0, rd(bs) - b0, rd(rs) - r0, rd(es) - e0);
                }
                /* Hand the token on to the next step's pair. */
                if (rank == d) {
                    int ns = s, nd = d, more = 1;
                    if (z + 1 == sizeof(sizes) / sizeof(sizes[0])) {
                        do {
                            if (++nd == size) {
                                nd = 0;
                                if (++ns == size)
                                    more = 0;
                            }
                        } while (more && ns == nd);
                    }
                    if (more) {
                        MPI_Send(NULL, 0, MPI_BYTE, ns, 1, MPI_COMM_WORLD);
                        MPI_Send(NULL, 0, MPI_BYTE, nd, 1, MPI_COMM_WORLD);
                    }
                }
            }
        }
    }
    /* Over ib the rendezvous sends and receives went through the registration cache. */
    if (strcmp(tl, "ib") == 0 && size > 1 && rd(rc_hits) + rd(rc_misses) == 0)
        FAIL("ib rendezvous: the registration cache counted no lookup");
    OK(MPI_T_pvar_handle_free(ses, &rc_hits));
    OK(MPI_T_pvar_handle_free(ses, &rc_misses));
    /* Nobody may enter a collective (whose messages would land in a window) before the last
     * pair is done: its receiver says so. */
    if (size > 1) {
        if (rank == size - 2) {
            for (int r = 0; r < size; r++)
                if (r != rank)
                    MPI_Send(NULL, 0, MPI_BYTE, r, 5, MPI_COMM_WORLD);
        } else {
            MPI_Recv(NULL, 0, MPI_BYTE, size - 2, 5, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        }
    }
    MPI_Barrier(MPI_COMM_WORLD);
    free(buf);
    free(reqs);
    OK(MPI_T_pvar_handle_free(ses, &ms));
    OK(MPI_T_pvar_handle_free(ses, &bs));
    OK(MPI_T_pvar_handle_free(ses, &rs));
    OK(MPI_T_pvar_handle_free(ses, &es));
    OK(MPI_T_pvar_handle_free(ses, &mr));
    OK(MPI_T_pvar_handle_free(ses, &br));
    OK(MPI_T_pvar_handle_free(ses, &rr));
    OK(MPI_T_pvar_handle_free(ses, &er));
}

/* Messages to oneself, handle write/readreset, queue levels. */
static void local(void)
{
    const char *save = tl;
    MPI_T_pvar_handle sm, sb, sr, h;
    unsigned long long v, lvl0, lvl;
    int count, tag0 = 100;
    char data[64];
    MPI_Request reqs[8];

    tl = "self";
    sm = counter("_msgs_sent"), sb = counter("_bytes_sent"), sr = counter("_msgs_recvd");
    tl = save;
    for (int i = 0; i < 5; i++) {
        fill(data, 40, 7u + (unsigned)i);
        MPI_Sendrecv(data, 40, MPI_BYTE, rank, 9, data, 40, MPI_BYTE, rank, 9, MPI_COMM_WORLD,
                     MPI_STATUS_IGNORE);
        verify(data, 40, 7u + (unsigned)i, "self");
    }
    CHECK(rd(sm) == 5 && rd(sb) == 200 && rd(sr) == 5);
    /* write and readreset act on this handle only */
    v = 1000;
    OK(MPI_T_pvar_write(ses, sm, &v));
    MPI_Send(data, 1, MPI_BYTE, rank, 9, MPI_COMM_WORLD);
    MPI_Recv(data, 1, MPI_BYTE, rank, 9, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    OK(MPI_T_pvar_readreset(ses, sm, &v));
    CHECK(v == 1001);
    CHECK(rd(sm) == 0 && rd(sr) == 6);
    OK(MPI_T_pvar_reset(ses, sr));
    CHECK(rd(sr) == 0);

    /* Posted receives: a level that goes up and back down. */
    OK(MPI_T_pvar_handle_alloc(ses, pvar_index("p2p_posted_length", MPI_T_PVAR_CLASS_LEVEL), NULL,
                               &h, &count));
    lvl0 = rd(h);
    for (int i = 0; i < 8; i++)
        MPI_Irecv(data, 1, MPI_BYTE, rank, 555, MPI_COMM_WORLD, &reqs[i]);
    CHECK(rd(h) == lvl0 + 8);
    for (int i = 0; i < 8; i++) {
        MPI_Cancel(&reqs[i]);
        MPI_Wait(&reqs[i], MPI_STATUS_IGNORE);
    }
    CHECK(rd(h) == lvl0);
    OK(MPI_T_pvar_handle_free(ses, &h));

    /* Unexpected messages: 6 to ourselves before any receive, then received. */
    OK(MPI_T_pvar_handle_alloc(ses, pvar_index("p2p_unexpected_length", MPI_T_PVAR_CLASS_LEVEL),
                               NULL, &h, &count));
    lvl0 = rd(h);
    for (int i = 0; i < 6; i++)
        MPI_Send(data, 8, MPI_BYTE, rank, tag0 + i, MPI_COMM_WORLD);
    lvl = rd(h);
    CHECK(lvl == lvl0 + 6);
    {
        MPI_T_pvar_handle hw;
        OK(MPI_T_pvar_handle_alloc(ses,
                                   pvar_index("p2p_unexpected_hwm", MPI_T_PVAR_CLASS_HIGHWATERMARK),
                                   NULL, &hw, &count));
        CHECK(rd(hw) >= lvl);
        for (int i = 5; i >= 0; i--)
            MPI_Recv(data, 8, MPI_BYTE, rank, tag0 + i, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        CHECK(rd(h) == lvl0);
        CHECK(rd(hw) >= lvl);
        OK(MPI_T_pvar_handle_free(ses, &hw));
    }
    OK(MPI_T_pvar_handle_free(ses, &h));
    OK(MPI_T_pvar_handle_free(ses, &sm));
    OK(MPI_T_pvar_handle_free(ses, &sb));
    OK(MPI_T_pvar_handle_free(ses, &sr));
}

/* Send stalls: rank 1 tells rank 0 to go and sleeps outside MPI; rank 0's 300 small sends find
 * the ring (32 cells) or the credits (at most 64) used up and wait in the send queue: each one
 * that waited counts once in <tl>_send_stalls. Rank 1 then receives them all, checked. */
static void stalls(void)
{
    enum { NST = 300, LEN = 64 };
    MPI_T_pvar_handle st = counter("_send_stalls");
    unsigned char *buf = xmalloc((size_t)NST * LEN);
    MPI_Request *reqs = xmalloc(sizeof(MPI_Request) * NST);
    unsigned long long s0;

    MPI_Barrier(MPI_COMM_WORLD);
    s0 = rd(st);
    if (rank == 1) {
        MPI_Send(NULL, 0, MPI_BYTE, 0, 6, MPI_COMM_WORLD);
        sleep_ms(500);
        for (int i = 0; i < NST; i++) {
            MPI_Recv(buf + (size_t)i * LEN, LEN, MPI_BYTE, 0, 7, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            verify(buf + (size_t)i * LEN, LEN, 300u + (unsigned)i, "stalled send");
        }
    } else if (rank == 0 && size > 1) {
        MPI_Recv(NULL, 0, MPI_BYTE, 1, 6, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        for (int i = 0; i < NST; i++) {
            fill(buf + (size_t)i * LEN, LEN, 300u + (unsigned)i);
            MPI_Isend(buf + (size_t)i * LEN, LEN, MPI_BYTE, 1, 7, MPI_COMM_WORLD, &reqs[i]);
        }
        MPI_Waitall(NST, reqs, MPI_STATUSES_IGNORE);
        if (rd(st) - s0 < 1)
            FAIL("%s: %d sends to a sleeping rank: %s_send_stalls counted %llu", tl, NST, tl,
                 rd(st) - s0);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    OK(MPI_T_pvar_handle_free(ses, &st));
    free(buf);
    free(reqs);
}

/* The registration cache over ib (verbs_mpit.sh sets VBT_RCACHE_MAX=256k): rank 0 sends 8
 * slices of 128 KiB of one buffer to rank 1 one after the other, rendezvous both ways
 * registered; over VBT_RCACHE_MAX the unused registrations are evicted: afterwards the pinned
 * bytes are at most VBT_RCACHE_MAX, their high-water mark at least one slice. */
static void rcache(void)
{
    const size_t slice = 128 * 1024, nslice = 8;
    unsigned long long max, e0, m0, lvl, hwm;
    MPI_T_pvar_handle ev, mi, lv, hw;
    unsigned char *buf = NULL;
    int count;

    if (strcmp(tl, "ib") != 0 || size < 2 || slice <= cvar_ull("VBT_RNDV_THRESHOLD"))
        return;
    max = cvar_ull("VBT_RCACHE_MAX");
    ev = counter("rcache_evictions");
    mi = counter("rcache_misses");
    OK(MPI_T_pvar_handle_alloc(ses, pvar_index("rcache_bytes_pinned", MPI_T_PVAR_CLASS_LEVEL), NULL,
                               &lv, &count));
    OK(MPI_T_pvar_handle_alloc(
        ses, pvar_index("rcache_bytes_pinned_hwm", MPI_T_PVAR_CLASS_HIGHWATERMARK), NULL, &hw,
        &count));
    if (posix_memalign((void **)&buf, 4096, slice * nslice) != 0)
        FAIL("posix_memalign of %zu bytes", slice * nslice);
    MPI_Barrier(MPI_COMM_WORLD);
    e0 = rd(ev);
    m0 = rd(mi);
    for (size_t k = 0; k < nslice && rank < 2; k++) {
        unsigned char *p = buf + k * slice;
        if (rank == 0) {
            fill(p, slice, 900u + (unsigned)k);
            MPI_Send(p, (int)slice, MPI_BYTE, 1, 8, MPI_COMM_WORLD);
        } else {
            memset(p, 0, slice);
            MPI_Recv(p, (int)slice, MPI_BYTE, 0, 8, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            verify(p, slice, 900u + (unsigned)k, "rcache slice");
        }
    }
    if (rank < 2) {
        lvl = rd(lv);
        hwm = rd(hw);
        if (rd(mi) - m0 < 1 || lvl > max || hwm < slice || hwm < lvl ||
            (max < slice * nslice && rd(ev) - e0 < 1))
            FAIL("rcache after %zu sends of %zu new bytes (VBT_RCACHE_MAX %llu): %llu misses, "
                 "%llu evictions, %llu bytes pinned, high-water mark %llu",
                 nslice, slice, max, rd(mi) - m0, rd(ev) - e0, lvl, hwm);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    free(buf);
    OK(MPI_T_pvar_handle_free(ses, &ev));
    OK(MPI_T_pvar_handle_free(ses, &mi));
    OK(MPI_T_pvar_handle_free(ses, &lv));
    OK(MPI_T_pvar_handle_free(ses, &hw));
}

/* Non-continuous progress variables: nothing counted until started, frozen once stopped. With
 * VBT_PROGRESS=block (the script sets it) a receive that waits 300 ms sleeps. */
static void progress(void)
{
    MPI_T_pvar_handle sl, tm, wk;
    int count;
    double t0, t1;
    unsigned long long n0, n1, w0, w1;
    char c = 0;

    OK(MPI_T_pvar_handle_alloc(ses, pvar_index("progress_sleeps", MPI_T_PVAR_CLASS_COUNTER), NULL,
                               &sl, &count));
    OK(MPI_T_pvar_handle_alloc(ses, pvar_index("progress_blocked_time", MPI_T_PVAR_CLASS_TIMER),
                               NULL, &tm, &count));
    OK(MPI_T_pvar_handle_alloc(ses, pvar_index("progress_wakeups", MPI_T_PVAR_CLASS_COUNTER), NULL,
                               &wk, &count));
    MPI_Barrier(MPI_COMM_WORLD);
    CHECK(rd(sl) == 0 && rd(wk) == 0);
    OK(MPI_T_pvar_read(ses, tm, &t0));
    CHECK(t0 == 0.0);
    OK(MPI_T_pvar_start(ses, MPI_T_PVAR_ALL_HANDLES));
    if (size > 1) {
        if (rank == 0) {
            sleep_ms(300);
            for (int r = 1; r < size; r++)
                MPI_Send(&c, 1, MPI_BYTE, r, 4, MPI_COMM_WORLD);
        } else {
            MPI_Recv(&c, 1, MPI_BYTE, 0, 4, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        }
    }
    OK(MPI_T_pvar_stop(ses, MPI_T_PVAR_ALL_HANDLES));
    n0 = rd(sl);
    w0 = rd(wk);
    OK(MPI_T_pvar_read(ses, tm, &t0));
    /* The shm doorbell wakes it: a sleep ended by an event, no spin. */
    if (rank > 0 && strcmp(tl, "shm") == 0)
        if (n0 < 1 || w0 < 1 || t0 < 0.1 || t0 > 5)
            FAIL("waiting 300 ms: %llu sleeps, %llu wakeups, %.3f s blocked", n0, w0, t0);
    if (w0 > n0)
        FAIL("%llu wakeups for %llu sleeps: every wakeup ends a sleep", w0, n0);
    MPI_Barrier(MPI_COMM_WORLD);
    sleep_ms(50);
    MPI_Barrier(MPI_COMM_WORLD);
    n1 = rd(sl);
    w1 = rd(wk);
    OK(MPI_T_pvar_read(ses, tm, &t1));
    CHECK(n1 == n0 && w1 == w0 && t1 == t0); /* stopped: frozen */
    OK(MPI_T_pvar_handle_free(ses, &wk));
    OK(MPI_T_pvar_handle_free(ses, &sl));
    OK(MPI_T_pvar_handle_free(ses, &tm));
}

/* Writes that take effect: VBT_COLL_BCAST changes what the root sends. */
static void writes(void)
{
    int bin = -1, sag = -1, num, children = 0;
    MPI_T_enum en;
    MPI_T_pvar_handle ms;
    int *v = xmalloc(65536 * sizeof(int));
    unsigned long long m0, m1;

    OK(MPI_T_cvar_get_info(cvar_index("VBT_COLL_BCAST"), NULL, NULL, NULL, NULL, &en, NULL, NULL,
                           NULL, NULL));
    OK(MPI_T_enum_get_info(en, &num, NULL, NULL));
    for (int i = 0; i < num; i++) {
        char name[64];
        int nl = sizeof(name), val;
        OK(MPI_T_enum_get_item(en, i, &val, name, &nl));
        if (strcmp(name, "binomial") == 0)
            bin = val;
        if (strcmp(name, "scatter_allgather") == 0)
            sag = val;
    }
    CHECK(bin > 0 && sag > 0);
    EXPECT(cvar_write_int("VBT_COLL_BCAST", num), MPI_T_ERR_INVALID);
    for (int m = 1; m < size; m <<= 1)
        children++; /* the root of a binomial tree */
    ms = counter("_msgs_sent");
    for (int round = 0; round < 2; round++) {
        int alg = round == 0 ? bin : sag;
        OK(cvar_write_int("VBT_COLL_BCAST", alg));
        CHECK(cvar_int("VBT_COLL_BCAST") == alg);
        for (int i = 0; i < 65536; i++)
            v[i] = rank == 0 ? i * 3 + round : -1;
        MPI_Barrier(MPI_COMM_WORLD);
        m0 = rd(ms);
        MPI_Bcast(v, 65536, MPI_INT, 0, MPI_COMM_WORLD);
        m1 = rd(ms);
        for (int i = 0; i < 65536; i++)
            if (v[i] != i * 3 + round)
                FAIL("bcast round %d: v[%d] = %d", round, i, v[i]);
        if (rank == 0 && round == 0 && m1 - m0 != (unsigned long long)children)
            FAIL("binomial bcast: the root sent %llu messages, expected %d", m1 - m0, children);
        if (rank == 0 && round == 1 && size > 2 && m1 - m0 == (unsigned long long)children)
            FAIL("scatter_allgather bcast: the root sent as many messages as binomial");
    }
    OK(cvar_write_int("VBT_COLL_BCAST", 0)); /* auto */
    OK(MPI_T_pvar_handle_free(ses, &ms));
    free(v);

    /* VBT_LOG: debug for one bad call (its cause appears on stderr), then warn again. */
    OK(cvar_write_int("VBT_LOG", 3));
    CHECK(cvar_int("VBT_LOG") == 3);
    EXPECT(MPI_T_cvar_get_index("VBT_MPIT_PROBE_WHILE_DEBUG", &num), MPI_T_ERR_INVALID_NAME);
    OK(cvar_write_int("VBT_LOG", 1));
    EXPECT(MPI_T_cvar_get_index("VBT_MPIT_PROBE_WHILE_WARN", &num), MPI_T_ERR_INVALID_NAME);
}

/* Writes that take effect in one-sided communication. VBT_WIN_ALLOCATE_SHM (local) is read at
 * each MPI_Win_allocate: with 1 and shm between the ranks, MPI_Win_shared_query gives the
 * neighbour's memory, which this rank loads (checked element by element); with 0 (or over ib)
 * size 0 and NULL. VBT_RMA_NIC_ATOMICS (all-eq) is read when a window is made: over ib with 1
 * the fetch-and-adds go to the NIC, with 0 each is a message: at least 10 messages more. */
static void rma_writes(void)
{
    unsigned long long sent[2] = {0, 0};
    MPI_T_pvar_handle ms = counter("_msgs_sent");
    int peer = (rank + 1) % size;

    for (int on = 1; on >= 0; on--) {
        MPI_Win w;
        int64_t *base, *qb;
        MPI_Aint qsz;
        int du, shared = on && strcmp(tl, "shm") == 0 && size > 1;

        OK(cvar_write_int("VBT_WIN_ALLOCATE_SHM", on));
        CHECK(cvar_int("VBT_WIN_ALLOCATE_SHM") == on);
        MPI_Win_allocate(64 * sizeof(int64_t), sizeof(int64_t), MPI_INFO_NULL, MPI_COMM_WORLD,
                         &base, &w);
        MPI_Win_lock_all(MPI_MODE_NOCHECK, w);
        for (int i = 0; i < 64; i++)
            base[i] = rank * 1000 + i + on;
        MPI_Win_sync(w);
        MPI_Barrier(MPI_COMM_WORLD);
        MPI_Win_sync(w);
        MPI_Win_shared_query(w, peer, &qsz, &du, &qb);
        if (peer != rank && !shared) {
            if (qsz != 0 || qb != NULL)
                FAIL("VBT_WIN_ALLOCATE_SHM=%d (%s): MPI_Win_shared_query of rank %d gave %ld "
                     "bytes at %p, expected none",
                     on, tl, peer, (long)qsz, (void *)qb);
        } else {
            if (qsz != 64 * (MPI_Aint)sizeof(int64_t) || du != 8 || qb == NULL)
                FAIL("VBT_WIN_ALLOCATE_SHM=%d (%s): MPI_Win_shared_query of rank %d gave %ld "
                     "bytes at %p, expected its 512",
                     on, tl, peer, (long)qsz, (void *)qb);
            for (int i = 0; i < 64; i++)
                if (qb[i] != peer * 1000 + i + on)
                    FAIL("VBT_WIN_ALLOCATE_SHM=%d: rank %d's element %d loaded as %lld", on, peer,
                         i, (long long)qb[i]);
        }
        MPI_Win_unlock_all(w);
        MPI_Barrier(MPI_COMM_WORLD);
        MPI_Win_free(&w);
    }
    OK(cvar_write_int("VBT_WIN_ALLOCATE_SHM", 1));

    for (int on = 1; on >= 0; on--) {
        MPI_Win w;
        int64_t *base, one = 1, old = -1, total = -1;
        unsigned long long m0;

        OK(cvar_write_int("VBT_RMA_NIC_ATOMICS", on));
        CHECK(cvar_int("VBT_RMA_NIC_ATOMICS") == on);
        MPI_Win_allocate(sizeof(int64_t), sizeof(int64_t), MPI_INFO_NULL, MPI_COMM_WORLD, &base,
                         &w);
        MPI_Win_lock(MPI_LOCK_EXCLUSIVE, rank, 0, w);
        *base = 0;
        MPI_Win_unlock(rank, w);
        MPI_Barrier(MPI_COMM_WORLD);
        if (rank > 0) {
            MPI_Win_lock(MPI_LOCK_SHARED, 0, 0, w);
            m0 = rd(ms);
            for (int i = 0; i < 10; i++) {
                MPI_Fetch_and_op(&one, &old, MPI_INT64_T, 0, 0, MPI_SUM, w);
                MPI_Win_flush(0, w);
                if (old < i || old > (int64_t)(size - 1) * 10)
                    FAIL("VBT_RMA_NIC_ATOMICS=%d: fetch-and-add %d fetched %lld", on, i,
                         (long long)old);
            }
            sent[on] = rd(ms) - m0;
            MPI_Win_unlock(0, w);
        }
        MPI_Barrier(MPI_COMM_WORLD);
        if (rank == 0) {
            MPI_Win_lock(MPI_LOCK_SHARED, 0, 0, w);
            MPI_Fetch_and_op(NULL, &total, MPI_INT64_T, 0, 0, MPI_NO_OP, w);
            MPI_Win_unlock(0, w);
            if (total != (int64_t)(size - 1) * 10)
                FAIL("VBT_RMA_NIC_ATOMICS=%d: %d ranks added 10 each: %lld", on, size - 1,
                     (long long)total);
        }
        MPI_Barrier(MPI_COMM_WORLD);
        MPI_Win_free(&w);
    }
    OK(cvar_write_int("VBT_RMA_NIC_ATOMICS", 1));
    if (strcmp(tl, "ib") == 0 && rank > 0 && sent[0] < sent[1] + 10)
        FAIL("VBT_RMA_NIC_ATOMICS: 10 fetch-and-adds sent %llu messages with NIC atomics, %llu "
             "without: expected at least 10 more without",
             sent[1], sent[0]);
    OK(MPI_T_pvar_handle_free(ses, &ms));
}

int main(int argc, char **argv)
{
    int provided, nmsg = 5, n;
    MPI_T_pvar_handle keep;
    unsigned long long before, after;

    if (argc > 1)
        tl = argv[1];
    if (argc > 2)
        nmsg = atoi(argv[2]);
    /* Not initialised yet. */
    EXPECT(MPI_T_cvar_get_num(&n), MPI_T_ERR_NOT_INITIALIZED);
    EXPECT(MPI_T_finalize(), MPI_T_ERR_NOT_INITIALIZED);
    /* Before MPI_Init, twice (reference-counted). */
    OK(MPI_T_init_thread(MPI_THREAD_SINGLE, &provided));
    OK(MPI_T_init_thread(MPI_THREAD_SINGLE, &provided));
    CHECK(provided == MPI_THREAD_SINGLE);
    OK(MPI_T_pvar_session_create(&ses));
    enumerate();
    errors();
    /* Knobs read from the environment before MPI_Init; writable ones cannot be set yet. */
    CHECK(cvar_int("VBT_PROGRESS") == 3); /* block, from the script */
    EXPECT(cvar_write_int("VBT_LOG", 3), MPI_T_ERR_CVAR_SET_NOT_NOW);
    keep = counter("_msgs_sent");
    CHECK(rd(keep) == 0);

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    enumerate();
    traffic(nmsg);
    local();
    stalls();
    rcache();
    progress();
    writes();
    rma_writes();
    MPI_Barrier(MPI_COMM_WORLD);
    before = rd(keep);
    CHECK(size == 1 || before > 0);
    MPI_Finalize();

    /* After MPI_Finalize: the counts stay, the interface works, nothing crashes. */
    after = rd(keep);
    CHECK(after >= before);
    enumerate();
    errors();
    OK(MPI_T_pvar_handle_free(ses, &keep));
    OK(MPI_T_pvar_session_free(&ses));
    OK(MPI_T_finalize());
    OK(MPI_T_cvar_get_num(&n)); /* one reference left */
    OK(MPI_T_finalize());
    EXPECT(MPI_T_cvar_get_num(&n), MPI_T_ERR_NOT_INITIALIZED);
    EXPECT(MPI_T_pvar_session_create(&ses), MPI_T_ERR_NOT_INITIALIZED);
    if (rank == 0)
        printf("mpit: ok (%d ranks)\n", size);
    return 0;
}
