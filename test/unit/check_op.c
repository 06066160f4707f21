/* Reduction ops: every predefined op on every predefined datatype. The pairs MPI-3.1 (sec.
 * 5.9.2) allows are computed against a plain scalar reference over every combination of a set
 * of values chosen to expose sign, width and tie mistakes; the others are refused with a
 * sentence naming the op and the type. Also: op handles, user ops (argument order, chunks of
 * at most INT_MAX elements), MPI_Op_free's lifetime rules. */
#include <check.h>
#include "vbt_check.h"
#include <limits.h>
#include <mpi.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <wchar.h>

#include "vbt_datatype.h"
#include "vbt_op.h"

/* ---- The standard's groups, spelled out independently of the implementation's table ---- */

static const MPI_Datatype c_integer[] = {
    MPI_INT,         MPI_LONG,          MPI_SHORT,         MPI_UNSIGNED_SHORT,
    MPI_UNSIGNED,    MPI_UNSIGNED_LONG, MPI_LONG_LONG_INT, MPI_UNSIGNED_LONG_LONG,
    MPI_SIGNED_CHAR, MPI_UNSIGNED_CHAR, MPI_INT8_T,        MPI_INT16_T,
    MPI_INT32_T,     MPI_INT64_T,       MPI_UINT8_T,       MPI_UINT16_T,
    MPI_UINT32_T,    MPI_UINT64_T};
/* MPI-3.1 lists MPI_AINT, MPI_OFFSET and MPI_COUNT with the Fortran integers (MPI-4.0 calls
 * them multi-language types; the ops allowed are the same). */
static const MPI_Datatype f_integer[] = {MPI_INTEGER,  MPI_AINT,     MPI_OFFSET,
                                         MPI_COUNT,    MPI_INTEGER1, MPI_INTEGER2,
                                         MPI_INTEGER4, MPI_INTEGER8, MPI_INTEGER16};
static const MPI_Datatype floating[] = {
    MPI_FLOAT, MPI_DOUBLE, MPI_REAL,  MPI_DOUBLE_PRECISION, MPI_LONG_DOUBLE, MPI_REAL2,
    MPI_REAL4, MPI_REAL8,  MPI_REAL16};
static const MPI_Datatype logical[] = {MPI_LOGICAL,  MPI_C_BOOL,   MPI_CXX_BOOL, MPI_LOGICAL1,
                                       MPI_LOGICAL2, MPI_LOGICAL4, MPI_LOGICAL8, MPI_LOGICAL16};
static const MPI_Datatype complex_[] = {MPI_COMPLEX,
                                        MPI_C_COMPLEX,
                                        MPI_C_DOUBLE_COMPLEX,
                                        MPI_C_LONG_DOUBLE_COMPLEX,
                                        MPI_CXX_FLOAT_COMPLEX,
                                        MPI_CXX_DOUBLE_COMPLEX,
                                        MPI_CXX_LONG_DOUBLE_COMPLEX,
                                        MPI_DOUBLE_COMPLEX,
                                        MPI_COMPLEX4,
                                        MPI_COMPLEX8,
                                        MPI_COMPLEX16,
                                        MPI_COMPLEX32};
static const MPI_Datatype byte_[] = {MPI_BYTE};
/* Not the standard's: the character types, which Verbatim reduces as MPICH does (vbt_op_int.h). */
static const MPI_Datatype chars[] = {MPI_CHAR, MPI_WCHAR, MPI_CHARACTER};
static const MPI_Datatype pairs[] = {MPI_FLOAT_INT, MPI_DOUBLE_INT,        MPI_LONG_INT,
                                     MPI_2INT,      MPI_SHORT_INT,         MPI_LONG_DOUBLE_INT,
                                     MPI_2REAL,     MPI_2DOUBLE_PRECISION, MPI_2INTEGER};

typedef struct {
    const MPI_Datatype *types;
    size_t n;
} group_t;
#define GROUP(_a)                                                                                  \
    {                                                                                              \
        _a, sizeof(_a) / sizeof(_a[0])                                                             \
    }
enum { G_CINT, G_FINT, G_FLOAT, G_LOGICAL, G_COMPLEX, G_BYTE, G_PAIR, G_CHAR, G_COUNT };
static const group_t groups[G_COUNT] = {GROUP(c_integer), GROUP(f_integer), GROUP(floating),
                                        GROUP(logical),   GROUP(complex_),  GROUP(byte_),
                                        GROUP(pairs),     GROUP(chars)};

typedef struct {
    MPI_Op op;
    const char *name;
    unsigned groups; /* 1 << G_*; ~0u: any type */
} op_desc_t;

#define G(_g) (1u << (_g))
static const op_desc_t ops[] = {
    {MPI_SUM, "MPI_SUM", G(G_CINT) | G(G_FINT) | G(G_FLOAT) | G(G_COMPLEX) | G(G_CHAR)},
    {MPI_PROD, "MPI_PROD", G(G_CINT) | G(G_FINT) | G(G_FLOAT) | G(G_COMPLEX) | G(G_CHAR)},
    {MPI_MAX, "MPI_MAX", G(G_CINT) | G(G_FINT) | G(G_FLOAT) | G(G_CHAR)},
    {MPI_MIN, "MPI_MIN", G(G_CINT) | G(G_FINT) | G(G_FLOAT) | G(G_CHAR)},
    {MPI_LAND, "MPI_LAND", G(G_CINT) | G(G_LOGICAL)},
    {MPI_LOR, "MPI_LOR", G(G_CINT) | G(G_LOGICAL)},
    {MPI_LXOR, "MPI_LXOR", G(G_CINT) | G(G_LOGICAL)},
    {MPI_BAND, "MPI_BAND", G(G_CINT) | G(G_FINT) | G(G_BYTE) | G(G_CHAR)},
    {MPI_BOR, "MPI_BOR", G(G_CINT) | G(G_FINT) | G(G_BYTE) | G(G_CHAR)},
    {MPI_BXOR, "MPI_BXOR", G(G_CINT) | G(G_FINT) | G(G_BYTE) | G(G_CHAR)},
    {MPI_MAXLOC, "MPI_MAXLOC", G(G_PAIR)},
    {MPI_MINLOC, "MPI_MINLOC", G(G_PAIR)},
    {MPI_REPLACE, "MPI_REPLACE", ~0u},
    {MPI_NO_OP, "MPI_NO_OP", ~0u},
};
#define NOPS (sizeof(ops) / sizeof(ops[0]))

/* ---- Every predefined datatype, and how the reference reads and writes its elements ---- */

typedef enum { K_SINT, K_UINT, K_REAL, K_CPLX, K_PAIR, K_NONE } kind_t;
/* The character types are integers of the platform's signedness. */
#define K_CHAR  ((char)-1 < 0 ? K_SINT : K_UINT)
#define K_WCHAR ((wchar_t)-1 < 0 ? K_SINT : K_UINT)
typedef enum { R_F16, R_F32, R_F64, R_LD, R_F128 } real_t;
typedef enum {
    P_FLOAT_INT,
    P_DOUBLE_INT,
    P_LONG_INT,
    P_2INT,
    P_SHORT_INT,
    P_LD_INT,
    P_2F32,
    P_2F64
} pair_t;

typedef struct {
    MPI_Datatype dt;
    const char *name;
    kind_t kind;
    int sub;       /* real_t for K_REAL and K_CPLX, pair_t for K_PAIR */
    int available; /* the compiler has arithmetic for it */
} type_desc_t;

#ifdef __FLT16_MANT_DIG__
#define HAVE_F16 1
#else
#define HAVE_F16 0
#endif
#ifdef __FLT128_MANT_DIG__
#define HAVE_F128 1
#else
#define HAVE_F128 0
#endif
#ifdef __SIZEOF_INT128__
#define HAVE_I128 1
typedef __int128 wide_t;
typedef unsigned __int128 uwide_t;
#else
#define HAVE_I128 0
typedef long long wide_t;
typedef unsigned long long uwide_t;
#endif

#define T(_dt, _kind, _sub)                                                                        \
    {                                                                                              \
        _dt, #_dt, _kind, _sub, 1                                                                  \
    }
#define TA(_dt, _kind, _sub, _avail)                                                               \
    {                                                                                              \
        _dt, #_dt, _kind, _sub, _avail                                                             \
    }
static const type_desc_t types[] = {
    T(MPI_AINT, K_SINT, 0),
    T(MPI_COUNT, K_SINT, 0),
    T(MPI_OFFSET, K_SINT, 0),
    T(MPI_PACKED, K_NONE, 0),
    T(MPI_SHORT, K_SINT, 0),
    T(MPI_INT, K_SINT, 0),
    T(MPI_LONG, K_SINT, 0),
    T(MPI_LONG_LONG_INT, K_SINT, 0),
    T(MPI_UNSIGNED_SHORT, K_UINT, 0),
    T(MPI_UNSIGNED, K_UINT, 0),
    T(MPI_UNSIGNED_LONG, K_UINT, 0),
    T(MPI_UNSIGNED_LONG_LONG, K_UINT, 0),
    T(MPI_FLOAT, K_REAL, R_F32),
    T(MPI_C_COMPLEX, K_CPLX, R_F32),
    T(MPI_CXX_FLOAT_COMPLEX, K_CPLX, R_F32),
    T(MPI_DOUBLE, K_REAL, R_F64),
    T(MPI_C_DOUBLE_COMPLEX, K_CPLX, R_F64),
    T(MPI_CXX_DOUBLE_COMPLEX, K_CPLX, R_F64),
    T(MPI_LOGICAL, K_UINT, 0),
    T(MPI_INTEGER, K_SINT, 0),
    T(MPI_REAL, K_REAL, R_F32),
    T(MPI_COMPLEX, K_CPLX, R_F32),
    T(MPI_DOUBLE_PRECISION, K_REAL, R_F64),
    T(MPI_DOUBLE_COMPLEX, K_CPLX, R_F64),
    T(MPI_CHARACTER, K_CHAR, 0),
    T(MPI_LONG_DOUBLE, K_REAL, R_LD),
    T(MPI_C_LONG_DOUBLE_COMPLEX, K_CPLX, R_LD),
    T(MPI_CXX_LONG_DOUBLE_COMPLEX, K_CPLX, R_LD),
    T(MPI_FLOAT_INT, K_PAIR, P_FLOAT_INT),
    T(MPI_DOUBLE_INT, K_PAIR, P_DOUBLE_INT),
    T(MPI_LONG_INT, K_PAIR, P_LONG_INT),
    T(MPI_2INT, K_PAIR, P_2INT),
    T(MPI_SHORT_INT, K_PAIR, P_SHORT_INT),
    T(MPI_LONG_DOUBLE_INT, K_PAIR, P_LD_INT),
    T(MPI_2REAL, K_PAIR, P_2F32),
    T(MPI_2DOUBLE_PRECISION, K_PAIR, P_2F64),
    T(MPI_2INTEGER, K_PAIR, P_2INT),
    T(MPI_C_BOOL, K_UINT, 0),
    T(MPI_CXX_BOOL, K_UINT, 0),
    T(MPI_WCHAR, K_WCHAR, 0),
    T(MPI_INT8_T, K_SINT, 0),
    T(MPI_UINT8_T, K_UINT, 0),
    T(MPI_CHAR, K_CHAR, 0),
    T(MPI_SIGNED_CHAR, K_SINT, 0),
    T(MPI_UNSIGNED_CHAR, K_UINT, 0),
    T(MPI_BYTE, K_UINT, 0),
    T(MPI_INT16_T, K_SINT, 0),
    T(MPI_UINT16_T, K_UINT, 0),
    T(MPI_INT32_T, K_SINT, 0),
    T(MPI_UINT32_T, K_UINT, 0),
    T(MPI_INT64_T, K_SINT, 0),
    T(MPI_UINT64_T, K_UINT, 0),
    T(MPI_LOGICAL1, K_UINT, 0),
    T(MPI_INTEGER1, K_SINT, 0),
    T(MPI_LOGICAL2, K_UINT, 0),
    T(MPI_INTEGER2, K_SINT, 0),
    TA(MPI_REAL2, K_REAL, R_F16, HAVE_F16),
    T(MPI_LOGICAL4, K_UINT, 0),
    T(MPI_INTEGER4, K_SINT, 0),
    T(MPI_REAL4, K_REAL, R_F32),
    TA(MPI_COMPLEX4, K_CPLX, R_F16, HAVE_F16),
    T(MPI_LOGICAL8, K_UINT, 0),
    T(MPI_INTEGER8, K_SINT, 0),
    T(MPI_REAL8, K_REAL, R_F64),
    T(MPI_COMPLEX8, K_CPLX, R_F32),
    TA(MPI_LOGICAL16, K_UINT, 0, HAVE_I128),
    TA(MPI_INTEGER16, K_SINT, 0, HAVE_I128),
    TA(MPI_REAL16, K_REAL, R_F128, HAVE_F128),
    T(MPI_COMPLEX16, K_CPLX, R_F64),
    TA(MPI_COMPLEX32, K_CPLX, R_F128, HAVE_F128),
};
#define NTYPES (sizeof(types) / sizeof(types[0]))

static int in_group(MPI_Datatype dt, int g)
{
    for (size_t i = 0; i < groups[g].n; i++) {
        if (groups[g].types[i] == dt)
            return 1;
    }
    return 0;
}

static int allowed(const op_desc_t *op, MPI_Datatype dt)
{
    for (int g = 0; g < G_COUNT; g++) {
        if ((op->groups & G(g)) && in_group(dt, g))
            return 1;
    }
    return op->groups == ~0u;
}

/* Integers: stored truncated to the type's width (two's complement), read back extended. */
static void iput(const type_desc_t *t, void *p, wide_t v)
{
    switch (vbt_dtype_get(t->dt)->size) {
    case 1:
        *(uint8_t *)p = (uint8_t)v;
        break;
    case 2:
        *(uint16_t *)p = (uint16_t)v;
        break;
    case 4:
        *(uint32_t *)p = (uint32_t)v;
        break;
    case 8:
        *(uint64_t *)p = (uint64_t)v;
        break;
    default:
        memcpy(p, &v, sizeof(v));
        break;
    }
}

static wide_t iget(const type_desc_t *t, const void *p)
{
    int s = t->kind == K_SINT;
    switch (vbt_dtype_get(t->dt)->size) {
    case 1:
        return s ? (wide_t) * (const int8_t *)p : (wide_t) * (const uint8_t *)p;
    case 2:
        return s ? (wide_t) * (const int16_t *)p : (wide_t) * (const uint16_t *)p;
    case 4:
        return s ? (wide_t) * (const int32_t *)p : (wide_t) * (const uint32_t *)p;
    case 8:
        return s ? (wide_t) * (const int64_t *)p : (wide_t) * (const uint64_t *)p;
    default: {
        wide_t v;
        memcpy(&v, p, sizeof(v));
        return v;
    }
    }
}

static void rput(int r, void *p, double v)
{
    switch (r) {
#if HAVE_F16
    case R_F16:
        *(_Float16 *)p = (_Float16)v;
        break;
#endif
    case R_F32:
        *(float *)p = (float)v;
        break;
    case R_F64:
        *(double *)p = v;
        break;
    case R_LD:
        *(long double *)p = v;
        break;
#if HAVE_F128
    case R_F128:
        *(_Float128 *)p = v;
        break;
#endif
    default:
        ck_abort_msg("no real type %d", r);
    }
}

static double rget(int r, const void *p)
{
    switch (r) {
#if HAVE_F16
    case R_F16:
        return *(const _Float16 *)p;
#endif
    case R_F32:
        return *(const float *)p;
    case R_F64:
        return *(const double *)p;
    case R_LD:
        return (double)*(const long double *)p;
#if HAVE_F128
    case R_F128:
        return (double)*(const _Float128 *)p;
#endif
    default:
        ck_abort_msg("no real type %d", r);
    }
    return 0;
}

static size_t rsize(int r)
{
    static const size_t sizes[] = {2, sizeof(float), sizeof(double), sizeof(long double), 16};
    return sizes[r];
}

/* Pairs: the C struct {value; index}, value and index read as double (exact for our values). */
#define PAIR(_V, _I)                                                                               \
    struct {                                                                                       \
        _V v;                                                                                      \
        _I i;                                                                                      \
    }
#define PAIR_ACCESS(_V, _I)                                                                        \
    if (put) {                                                                                     \
        ((PAIR(_V, _I) *)p)->v = (_V)*v;                                                           \
        ((PAIR(_V, _I) *)p)->i = (_I)*i;                                                           \
    } else {                                                                                       \
        *v = (double)((PAIR(_V, _I) *)p)->v;                                                       \
        *i = (double)((PAIR(_V, _I) *)p)->i;                                                       \
    }                                                                                              \
    break;
static void pair_access(int sub, void *p, double *v, double *i, int put)
{
    switch (sub) {
    case P_FLOAT_INT:
        PAIR_ACCESS(float, int)
    case P_DOUBLE_INT:
        PAIR_ACCESS(double, int)
    case P_LONG_INT:
        PAIR_ACCESS(long, int)
    case P_2INT:
        PAIR_ACCESS(int, int)
    case P_SHORT_INT:
        PAIR_ACCESS(short, int)
    case P_LD_INT:
        PAIR_ACCESS(long double, int)
    case P_2F32:
        PAIR_ACCESS(float, float)
    case P_2F64:
        PAIR_ACCESS(double, double)
    }
}

/* ---- The reference ---- */

/* Small integers, zeros (for the logical ops), values that differ signed and unsigned in every
 * width (-1, -100, INT64_MIN), bit patterns. Every pair (in, inout) is one element. */
static const int64_t ivals[] = {0,
                                1,
                                2,
                                -1,
                                0,
                                -3,
                                5,
                                100,
                                -100,
                                127,
                                7,
                                INT64_MIN,
                                0x5a5a5a5a5a5a5a5aLL,
                                0x3333333333333333LL,
                                (int64_t)0xf0f0f0f0f0f0f0f0ULL};
#define NIV (sizeof(ivals) / sizeof(ivals[0]))
/* Exact in every floating type, and so are their sums and complex products. */
static const double fvals[] = {0, 1, -1, 0.5, -2.5, 3, 4, -0.5, 2, -4, 1.5, -2, 0};
#define NFV (sizeof(fvals) / sizeof(fvals[0]))
/* Pairs: few values, so that most elements tie; indices in both orders. */
static const double pvals[] = {-2, 1, 3};
static const double pidx[] = {5, 2, 9};
#define NPV 9 /* (value, index) combinations */

static size_t nelems(const type_desc_t *t)
{
    switch (t->kind) {
    case K_SINT:
    case K_UINT:
        return NIV * NIV;
    case K_REAL:
    case K_CPLX:
        return NFV * NFV;
    case K_PAIR:
        return NPV * NPV;
    default:
        return 64;
    }
}

static void *elem(const type_desc_t *t, void *buf, size_t i)
{
    return (char *)buf + i * vbt_dtype_get(t->dt)->extent;
}

/* Fill in and inout with element i = (value a, value b), and expected with the result. */
static void fill_and_expect(const type_desc_t *t, MPI_Op op, void *in, void *inout, void *expect)
{
    size_t n = nelems(t);

    for (size_t k = 0; k < n; k++) {
        void *pa = elem(t, in, k), *pb = elem(t, inout, k), *pe = elem(t, expect, k);
        switch (t->kind) {
        case K_SINT:
        case K_UINT: {
            wide_t a, b, r = 0;
            iput(t, pa, ivals[k / NIV]);
            iput(t, pb, ivals[k % NIV]);
            a = iget(t, pa); /* as the type sees them: truncated, then extended */
            b = iget(t, pb);
            if (op == MPI_SUM)
                r = (wide_t)((uwide_t)a + (uwide_t)b);
            else if (op == MPI_PROD)
                r = (wide_t)((uwide_t)a * (uwide_t)b);
            else if (op == MPI_MAX)
                r = a > b ? a : b;
            else if (op == MPI_MIN)
                r = a < b ? a : b;
            else if (op == MPI_LAND)
                r = (a != 0 && b != 0) ? 1 : 0;
            else if (op == MPI_LOR)
                r = (a != 0 || b != 0) ? 1 : 0;
            else if (op == MPI_LXOR)
                r = ((a != 0) != (b != 0)) ? 1 : 0;
            else if (op == MPI_BAND)
                r = a & b;
            else if (op == MPI_BOR)
                r = a | b;
            else if (op == MPI_BXOR)
                r = a ^ b;
            iput(t, pe, r);
            break;
        }
        case K_REAL: {
            double a = fvals[k / NFV], b = fvals[k % NFV], r = 0;
            rput(t->sub, pa, a);
            rput(t->sub, pb, b);
            if (op == MPI_SUM)
                r = a + b;
            else if (op == MPI_PROD)
                r = a * b;
            else if (op == MPI_MAX)
                r = a > b ? a : b;
            else if (op == MPI_MIN)
                r = a < b ? a : b;
            rput(t->sub, pe, r);
            break;
        }
        case K_CPLX: {
            size_t s = rsize(t->sub);
            double ar = fvals[k / NFV], ai = fvals[(k / NFV + 5) % NFV];
            double br = fvals[k % NFV], bi = fvals[(k % NFV + 3) % NFV];
            double rr = op == MPI_SUM ? ar + br : ar * br - ai * bi;
            double ri = op == MPI_SUM ? ai + bi : ar * bi + ai * br;
            rput(t->sub, pa, ar);
            rput(t->sub, (char *)pa + s, ai);
            rput(t->sub, pb, br);
            rput(t->sub, (char *)pb + s, bi);
            rput(t->sub, pe, rr);
            rput(t->sub, (char *)pe + s, ri);
            break;
        }
        case K_PAIR: {
            double av = pvals[(k / NPV) / 3], ai = pidx[(k / NPV) % 3];
            double bv = pvals[(k % NPV) / 3], bi = pidx[(k % NPV) % 3];
            double rv, ri;
            int a_wins = op == MPI_MAXLOC ? av > bv : av < bv;
            if (av == bv) { /* the standard's tie rule: the smaller index */
                rv = av;
                ri = ai < bi ? ai : bi;
            } else {
                rv = a_wins ? av : bv;
                ri = a_wins ? ai : bi;
            }
            pair_access(t->sub, pa, &av, &ai, 1);
            pair_access(t->sub, pb, &bv, &bi, 1);
            pair_access(t->sub, pe, &rv, &ri, 1);
            break;
        }
        default:
            break;
        }
    }
}

/* Compare result and expected element by element, by value (long double has padding bytes). */
static void compare(const type_desc_t *t, const char *opname, void *got, void *expect)
{
    size_t n = nelems(t), size = vbt_dtype_get(t->dt)->size;

    for (size_t k = 0; k < n; k++) {
        void *pg = elem(t, got, k), *pe = elem(t, expect, k);
        switch (t->kind) {
        case K_SINT:
        case K_UINT:
            ck_assert_msg(memcmp(pg, pe, size) == 0,
                          "%s on %s: element %zu (%lld op %lld) is %lld, expected %lld", opname,
                          t->name, k, (long long)ivals[k / NIV], (long long)ivals[k % NIV],
                          (long long)iget(t, pg), (long long)iget(t, pe));
            break;
        case K_REAL:
            ck_assert_msg(rget(t->sub, pg) == rget(t->sub, pe),
                          "%s on %s: element %zu (%g op %g) is %g, expected %g", opname, t->name, k,
                          fvals[k / NFV], fvals[k % NFV], rget(t->sub, pg), rget(t->sub, pe));
            break;
        case K_CPLX: {
            size_t s = rsize(t->sub);
            ck_assert_msg(rget(t->sub, pg) == rget(t->sub, pe) &&
                              rget(t->sub, (char *)pg + s) == rget(t->sub, (char *)pe + s),
                          "%s on %s: element %zu is (%g, %g), expected (%g, %g)", opname, t->name,
                          k, rget(t->sub, pg), rget(t->sub, (char *)pg + s), rget(t->sub, pe),
                          rget(t->sub, (char *)pe + s));
            break;
        }
        case K_PAIR: {
            double gv, gi, ev, ei;
            pair_access(t->sub, pg, &gv, &gi, 0);
            pair_access(t->sub, pe, &ev, &ei, 0);
            ck_assert_msg(gv == ev && gi == ei,
                          "%s on %s: element %zu is (%g, %g), expected (%g, %g)", opname, t->name,
                          k, gv, gi, ev, ei);
            break;
        }
        default:
            break;
        }
    }
}

static void *xcalloc(size_t n)
{
    void *p = calloc(1, n);
    ck_assert_ptr_nonnull(p);
    return p;
}

/* ---- Tests ---- */

START_TEST(test_names)
{
    for (size_t i = 0; i < NTYPES; i++) {
        const char *name = vbt_op_dtype_name(types[i].dt);
        ck_assert_msg(name != NULL && strcmp(name, types[i].name) == 0, "%s is named %s",
                      types[i].name, name ? name : "(null)");
        ck_assert_ptr_nonnull(vbt_dtype_get(types[i].dt));
    }
    for (size_t i = 0; i < NOPS; i++) {
        vbt_op_t *op = vbt_op_get(ops[i].op);
        ck_assert_ptr_nonnull(op);
        ck_assert_str_eq(vbt_op_name(op), ops[i].name);
        ck_assert_int_eq(vbt_op_commutative(op), 1);
        ck_assert_int_eq(vbt_op_is_predefined(op), 1);
    }
    ck_assert_ptr_null(vbt_op_dtype_name(MPI_DATATYPE_NULL));
    ck_assert_ptr_null(vbt_op_dtype_name((MPI_Datatype)0x2ff));
}
END_TEST

/* The whole matrix: every op on every type, allowed or refused as the standard says. */
START_TEST(test_matrix)
{
    size_t checked = 0, refused = 0;

    for (size_t ti = 0; ti < NTYPES; ti++) {
        const type_desc_t *t = &types[ti];
        size_t bytes = nelems(t) * vbt_dtype_get(t->dt)->extent;
        for (size_t oi = 0; oi < NOPS; oi++) {
            const op_desc_t *o = &ops[oi];
            vbt_op_t *op = vbt_op_get(o->op);
            const char *why = NULL;
            vbt_status_t st = vbt_op_check(op, t->dt, &why);

            if (!allowed(o, t->dt)) {
                ck_assert_msg(st == VBT_ERR_INVALID_PARAM, "%s on %s: accepted (status %d)",
                              o->name, t->name, st);
                ck_assert_ptr_nonnull(why);
                ck_assert_msg(strstr(why, o->name) && strstr(why, t->name) &&
                                  strstr(why, "not defined"),
                              "%s on %s: refused with \"%s\"", o->name, t->name, why);
                refused++;
                continue;
            }
            if (!t->available && o->groups != ~0u) {
                ck_assert_msg(st == VBT_ERR_UNSUPPORTED, "%s on %s: status %d", o->name, t->name,
                              st);
                continue;
            }
            ck_assert_msg(st == VBT_OK, "%s on %s: refused (%s)", o->name, t->name, why ? why : "");
            if (o->groups == ~0u)
                continue; /* REPLACE and NO_OP: test_replace_noop */
            void *in = xcalloc(bytes), *inout = xcalloc(bytes), *expect = xcalloc(bytes);
            fill_and_expect(t, o->op, in, inout, expect);
            vbt_op_apply(op, in, inout, nelems(t), t->dt);
            compare(t, o->name, inout, expect);
            free(in);
            free(inout);
            free(expect);
            checked++;
        }
    }
    /* Not vacuous. */
    ck_assert_uint_ge(checked, 200);
    ck_assert_uint_ge(refused, 400);
}
END_TEST

static unsigned char pat(size_t i, unsigned seed)
{
    return (unsigned char)(i * 7 + seed * 131 + 1);
}

START_TEST(test_replace_noop)
{
    for (size_t ti = 0; ti < NTYPES; ti++) {
        size_t count = 13, bytes = count * vbt_dtype_get(types[ti].dt)->extent;
        unsigned char *in = xcalloc(bytes + 8), *io = xcalloc(bytes + 8);
        for (size_t i = 0; i < bytes + 8; i++) {
            in[i] = pat(i, 1);
            io[i] = pat(i, 2);
        }
        vbt_op_apply(vbt_op_get(MPI_NO_OP), in, io, count, types[ti].dt);
        for (size_t i = 0; i < bytes + 8; i++)
            ck_assert_msg(io[i] == pat(i, 2), "MPI_NO_OP on %s changed byte %zu", types[ti].name,
                          i);
        vbt_op_apply(vbt_op_get(MPI_REPLACE), in, io, count, types[ti].dt);
        for (size_t i = 0; i < bytes + 8; i++)
            ck_assert_msg(io[i] == (i < bytes ? pat(i, 1) : pat(i, 2)),
                          "MPI_REPLACE on %s: byte %zu of %zu wrong", types[ti].name, i, bytes);
        free(in);
        free(io);
    }
}
END_TEST

/* Every count from 0 to past a few vector lengths: the loops' tails, and nothing written past
 * count elements. */
START_TEST(test_counts)
{
    for (size_t count = 0; count <= 70; count++) {
        int in[80], io[80];
        double din[80], dio[80];
        for (size_t i = 0; i < 80; i++) {
            in[i] = (int)i - 40;
            io[i] = 3 * (int)i;
            din[i] = (double)i * 0.5;
            dio[i] = 20.0 - (double)i;
        }
        vbt_op_apply(vbt_op_get(MPI_SUM), in, io, count, MPI_INT);
        vbt_op_apply(vbt_op_get(MPI_MAX), din, dio, count, MPI_DOUBLE);
        for (size_t i = 0; i < 80; i++) {
            int ei = i < count ? (int)i - 40 + 3 * (int)i : 3 * (int)i;
            double ed = i < count && (double)i * 0.5 > 20.0 - (double)i ? (double)i * 0.5
                                                                        : 20.0 - (double)i;
            ck_assert_int_eq(io[i], ei);
            ck_assert(dio[i] == ed);
        }
    }
}
END_TEST

START_TEST(test_refusal_sentence)
{
    const char *why = NULL;

    ck_assert_int_eq(vbt_op_check(vbt_op_get(MPI_BAND), MPI_DOUBLE, &why), VBT_ERR_INVALID_PARAM);
    ck_assert_pstr_eq(why, "MPI_BAND is not defined on MPI_DOUBLE: it takes integer and character "
                           "(MPI_CHAR, MPI_WCHAR, MPI_CHARACTER) types and MPI_BYTE");
    ck_assert_int_eq(vbt_op_check(vbt_op_get(MPI_MAXLOC), MPI_INT, NULL), VBT_ERR_INVALID_PARAM);
    ck_assert_int_eq(vbt_op_check(vbt_op_get(MPI_SUM), MPI_DATATYPE_NULL, &why),
                     VBT_ERR_INVALID_PARAM);
    ck_assert_ptr_nonnull(strstr(why, "MPI_DATATYPE_NULL"));
    ck_assert_int_eq(vbt_op_check(vbt_op_get(MPI_REPLACE), (MPI_Datatype)0x2f0, &why),
                     VBT_ERR_INVALID_PARAM);
}
END_TEST

START_TEST(test_handles)
{
    static const uintptr_t bad[] = {0, 0x20, 0x25, 0x2e, 0x3f, 0x40, 0x101, 0x209, 4095};
    uint64_t zeros[8] = {0};
    vbt_op_t *op;

    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
        ck_assert_msg(vbt_op_get((MPI_Op)bad[i]) == NULL, "handle %#lx accepted",
                      (unsigned long)bad[i]);
    /* Memory that is not an op, and a misaligned address. */
    ck_assert_ptr_null(vbt_op_get((MPI_Op)zeros));
    ck_assert_ptr_null(vbt_op_get((MPI_Op)((char *)zeros + 1)));
    /* A user op is valid until freed; a predefined op cannot be freed. */
    ck_assert_int_eq(vbt_op_create((MPI_User_function *)1, NULL, 0, &op), VBT_OK);
    ck_assert_ptr_eq(vbt_op_get((MPI_Op)op), op);
    ck_assert_int_eq(vbt_op_is_predefined(op), 0);
    ck_assert_int_eq(vbt_op_commutative(op), 0);
    ck_assert_str_eq(vbt_op_name(op), "user op");
    ck_assert_int_eq(vbt_op_check(op, MPI_CHAR, NULL), VBT_OK);
    ck_assert_int_eq(vbt_op_free(op), VBT_OK);
    ck_assert_int_eq(vbt_op_free(vbt_op_get(MPI_SUM)), VBT_ERR_INVALID_PARAM);
    ck_assert_ptr_nonnull(vbt_op_get(MPI_SUM));
}
END_TEST

/* A user function records its calls instead of touching memory, so counts beyond INT_MAX cost
 * nothing. */
typedef struct {
    void *in, *inout;
    MPI_Count len;
    MPI_Datatype dt;
} call_t;
static call_t calls[8];
static int ncalls;

static void record(void *in, void *inout, int *len, MPI_Datatype *dt)
{
    ck_assert_int_lt(ncalls, 8);
    calls[ncalls++] = (call_t){in, inout, *len, *dt};
    *len = 1; /* a function may scribble on it: the library must not care */
}

static void record_c(void *in, void *inout, MPI_Count *len, MPI_Datatype *dt)
{
    ck_assert_int_lt(ncalls, 8);
    calls[ncalls++] = (call_t){in, inout, *len, *dt};
}

START_TEST(test_user_chunks)
{
    static const MPI_Datatype dts[] = {MPI_BYTE, MPI_INT, MPI_DOUBLE_INT};
    size_t count = 2 * (size_t)INT_MAX + 5;
    char *in = (char *)0x100000, *io = (char *)0x900000;
    vbt_op_t *op, *op_c;

    ck_assert_int_eq(vbt_op_create(record, NULL, 1, &op), VBT_OK);
    ck_assert_int_eq(vbt_op_create(NULL, record_c, 1, &op_c), VBT_OK);
    ck_assert_int_eq(vbt_op_commutative(op), 1);
    for (size_t d = 0; d < 3; d++) {
        size_t ext = vbt_dtype_get(dts[d])->extent;
        ncalls = 0;
        vbt_op_apply(op, in, io, count, dts[d]);
        ck_assert_int_eq(ncalls, 3);
        for (int c = 0; c < 3; c++) {
            size_t first = (size_t)c * INT_MAX;
            ck_assert_ptr_eq(calls[c].in, in + first * ext);
            ck_assert_ptr_eq(calls[c].inout, io + first * ext);
            ck_assert_int_eq(calls[c].len, c < 2 ? INT_MAX : 5);
            ck_assert_ptr_eq(calls[c].dt, dts[d]);
        }
        ncalls = 0;
        vbt_op_apply(op_c, in, io, count, dts[d]);
        ck_assert_int_eq(ncalls, 1);
        ck_assert_int_eq(calls[0].len, (MPI_Count)count);
        ck_assert_ptr_eq(calls[0].in, in);
        /* Zero elements: no call at all. */
        ncalls = 0;
        vbt_op_apply(op, in, io, 0, dts[d]);
        ck_assert_int_eq(ncalls, 0);
    }
    vbt_op_free(op);
    vbt_op_free(op_c);
}
END_TEST

/* Non-commutative: the library must pass in as the left operand. */
static void left_minus_right(void *in, void *inout, int *len, MPI_Datatype *dt)
{
    for (int i = 0; i < *len; i++)
        ((int *)inout)[i] = ((int *)in)[i] * 10 - ((int *)inout)[i];
}

START_TEST(test_user_order_and_lifetime)
{
    int in[5] = {1, 2, 3, 4, 5}, io[5] = {10, 20, 30, 40, 50};
    vbt_op_t *op;

    ck_assert_int_eq(vbt_op_create(left_minus_right, NULL, 0, &op), VBT_OK);
    /* in * 10 - inout is 0 everywhere; the other order would give 99, 198, ... */
    vbt_op_apply(op, in, io, 5, MPI_INT);
    for (int i = 0; i < 5; i++)
        ck_assert_int_eq(io[i], 0);
    vbt_op_apply(op, in, io, 5, MPI_INT);
    for (int i = 0; i < 5; i++)
        ck_assert_int_eq(io[i], (i + 1) * 10);
    /* A pending operation keeps the op alive past MPI_Op_free; the handle dies at once. */
    vbt_op_retain(op);
    ck_assert_int_eq(vbt_op_free(op), VBT_OK);
    ck_assert_ptr_null(vbt_op_get((MPI_Op)op));
    vbt_op_apply(op, in, io, 5, MPI_INT);
    for (int i = 0; i < 5; i++)
        ck_assert_int_eq(io[i], 0);
    vbt_op_release(op);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("op");
    TCase *tc = tcase_create("predefined");
    TCase *tu = tcase_create("user");

    vbt_datatype_init();
    tcase_add_test(tc, test_names);
    tcase_add_test(tc, test_matrix);
    tcase_add_test(tc, test_replace_noop);
    tcase_add_test(tc, test_counts);
    tcase_add_test(tc, test_refusal_sentence);
    tcase_add_test(tu, test_handles);
    tcase_add_test(tu, test_user_chunks);
    tcase_add_test(tu, test_user_order_and_lifetime);
    suite_add_tcase(s, tc);
    suite_add_tcase(s, tu);
    return vbt_check_run(s);
}
