/* The "external32" representation (MPI-4.1 Sec. 14.5.2): every basic value big-endian, in the
 * standard's sizes (long is 4 bytes, wchar_t 2, long double a 16-byte IEEE quad, ...). The
 * type's runs say which predefined type each packed value is, so a conversion walks the native
 * packed form (vbt_dtype_pack) run by run. */
#include "vbt_dtype_external.h"

#include <float.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* How a basic type converts: bytes as they are, integers (two's complement, signed or not),
 * IEEE floats of the same size (byte order only), long double, C bool. Complex types are two
 * parts of their kind. */
enum { X_RAW, X_SINT, X_UINT, X_FLOAT, X_LDOUBLE, X_BOOL };

typedef struct {
    int kind;
    int parts;    /* 2 for complex */
    size_t xsize; /* external32 bytes of one part */
} xtype_t;

static xtype_t classify(MPI_Datatype dt)
{
    uintptr_t h = (uintptr_t)dt;

    /* Fixed-size types encode log2 of their size in bits 5:3 (mpi.h). */
    if (dt == MPI_CHAR || dt == MPI_SIGNED_CHAR || dt == MPI_UNSIGNED_CHAR || dt == MPI_BYTE ||
        dt == MPI_PACKED || dt == MPI_CHARACTER)
        return (xtype_t){X_RAW, 1, 1};
    if (dt == MPI_C_BOOL || dt == MPI_CXX_BOOL)
        return (xtype_t){X_BOOL, 1, 1};
    if (dt == MPI_SHORT || dt == MPI_INT || dt == MPI_LONG || dt == MPI_LONG_LONG_INT ||
        dt == MPI_AINT || dt == MPI_COUNT || dt == MPI_OFFSET || dt == MPI_INTEGER ||
        dt == MPI_LOGICAL)
        return (xtype_t){X_SINT, 1,
                         dt == MPI_SHORT ? 2
                         : dt == MPI_INT || dt == MPI_LONG || dt == MPI_INTEGER || dt == MPI_LOGICAL
                             ? 4
                             : 8};
    if (dt == MPI_UNSIGNED_SHORT || dt == MPI_UNSIGNED || dt == MPI_UNSIGNED_LONG ||
        dt == MPI_UNSIGNED_LONG_LONG || dt == MPI_WCHAR)
        return (xtype_t){X_UINT, 1,
                         dt == MPI_UNSIGNED_SHORT || dt == MPI_WCHAR     ? 2
                         : dt == MPI_UNSIGNED || dt == MPI_UNSIGNED_LONG ? 4
                                                                         : 8};
    if (dt == MPI_FLOAT || dt == MPI_REAL)
        return (xtype_t){X_FLOAT, 1, 4};
    if (dt == MPI_DOUBLE || dt == MPI_DOUBLE_PRECISION)
        return (xtype_t){X_FLOAT, 1, 8};
    if (dt == MPI_C_COMPLEX || dt == MPI_CXX_FLOAT_COMPLEX || dt == MPI_COMPLEX)
        return (xtype_t){X_FLOAT, 2, 4};
    if (dt == MPI_C_DOUBLE_COMPLEX || dt == MPI_CXX_DOUBLE_COMPLEX || dt == MPI_DOUBLE_COMPLEX)
        return (xtype_t){X_FLOAT, 2, 8};
    if (dt == MPI_LONG_DOUBLE)
        return (xtype_t){X_LDOUBLE, 1, 16};
    if (dt == MPI_C_LONG_DOUBLE_COMPLEX || dt == MPI_CXX_LONG_DOUBLE_COMPLEX)
        return (xtype_t){X_LDOUBLE, 2, 16};
    if (h >= 0x240 && h <= 0x2ff) {
        size_t bytes = (size_t)1 << ((h >> 3) & 7);
        switch (h & 7) {
        case 0: /* INTn_T, LOGICALn */
            return (xtype_t){h >= 0x2c0 ? X_UINT : X_SINT, 1, bytes};
        case 1: /* UINTn_T, INTEGERn */
            return (xtype_t){h >= 0x2c0 ? X_SINT : X_UINT, 1, bytes};
        case 2: /* REALn */
            return (xtype_t){X_FLOAT, 1, bytes};
        case 3: /* COMPLEXn: two REALs of half the size */
            return (xtype_t){X_FLOAT, 2, bytes / 2};
        }
    }
    /* Not reached for the types runs can hold (the basic types above); bytes as they are. */
    return (xtype_t){X_RAW, 1, 0};
}

size_t vbt_dtype_external_basic_size(MPI_Datatype dt, size_t native_size)
{
    xtype_t x = classify(dt);
    return x.xsize == 0 ? native_size : x.parts * x.xsize;
}

size_t vbt_dtype_external_size(const vbt_dtype_t *t)
{
    size_t bytes = 0;

    for (size_t i = 0; i < t->nruns; i++)
        bytes += t->runs[i].count * vbt_dtype_external_basic_size(t->runs[i].type, t->runs[i].size);
    return bytes;
}

static int host_big_endian(void)
{
    const uint16_t one = 1;
    return *(const unsigned char *)&one == 0;
}

/* Byte i (0: least significant) of the n-byte native integer at p. */
static unsigned char le_byte(const unsigned char *p, size_t n, size_t i)
{
    return host_big_endian() ? p[n - 1 - i] : p[i];
}

static void set_le_byte(unsigned char *p, size_t n, size_t i, unsigned char v)
{
    if (host_big_endian())
        p[n - 1 - i] = v;
    else
        p[i] = v;
}

/* An integer (or the bits of a float) of from bytes to to bytes, from and to in the given byte
 * orders; narrowing checks the value fits. Returns 0, or -1 when it does not fit. */
static int convert_int(const unsigned char *in, size_t from, int in_be, unsigned char *out,
                       size_t to, int out_be, int is_signed)
{
    unsigned char top = in_be ? in[0] : in[from - 1];
    unsigned char ext = is_signed && (top & 0x80) ? 0xff : 0x00;

    for (size_t i = 0; i < to; i++) {
        unsigned char b = i < from ? (in_be ? in[from - 1 - i] : in[i]) : ext;
        out[out_be ? to - 1 - i : i] = b;
    }
    if (to < from) {
        /* The bytes dropped must be the extension of the kept ones. */
        unsigned char kept_top = out[out_be ? 0 : to - 1];
        unsigned char want = is_signed && (kept_top & 0x80) ? 0xff : 0x00;
        for (size_t i = to; i < from; i++)
            if ((in_be ? in[from - 1 - i] : in[i]) != want)
                return -1;
    }
    return 0;
}

/* long double <-> the 16-byte IEEE quad external32 uses, as (hi, lo) 64-bit halves. */
#if LDBL_MANT_DIG == 64
/* x87 extended: a 64-bit significand with an explicit integer bit, then sign and exponent
 * (the same 15-bit exponent and bias as the quad). */
static void ld_to_quad(const unsigned char *p, uint64_t *hi, uint64_t *lo)
{
    uint64_t mant = 0;
    unsigned se;

    for (int i = 7; i >= 0; i--)
        mant = mant << 8 | le_byte(p, 10, (size_t)i);
    se = (unsigned)le_byte(p, 10, 9) << 8 | le_byte(p, 10, 8);
    /* A pseudo-denormal (exponent 0, integer bit set) is the normal of exponent 1. */
    if ((se & 0x7fff) == 0 && (mant >> 63))
        se |= 1;
    mant &= ~(UINT64_C(1) << 63);
    *hi = (uint64_t)se << 48 | mant >> 15;
    *lo = mant << 49;
}

static void quad_to_ld(uint64_t hi, uint64_t lo, unsigned char *p)
{
    unsigned se = (unsigned)(hi >> 48), exp = se & 0x7fff;
    uint64_t mant = (hi & ((UINT64_C(1) << 48) - 1)) << 15 | lo >> 49;
    uint64_t dropped = lo & ((UINT64_C(1) << 49) - 1), half = UINT64_C(1) << 48;

    if (exp == 0x7fff) {
        /* Infinity stays one; a NaN keeps a nonzero (quiet) significand. */
        if (mant == 0 && (dropped != 0))
            mant = UINT64_C(1) << 62;
    } else if (dropped > half || (dropped == half && (mant & 1))) {
        /* Round to nearest even; a carry out of the 63 fraction bits bumps the exponent. */
        if (++mant >> 63) {
            mant = 0;
            exp++;
            se++;
        }
    }
    if (exp != 0)
        mant |= UINT64_C(1) << 63;
    memset(p, 0, sizeof(long double));
    for (size_t i = 0; i < 8; i++)
        set_le_byte(p, 10, i, (unsigned char)(mant >> (8 * i)));
    set_le_byte(p, 10, 8, (unsigned char)se);
    set_le_byte(p, 10, 9, (unsigned char)(se >> 8));
}
#elif LDBL_MANT_DIG == 113
/* long double is the IEEE quad already. */
static void ld_to_quad(const unsigned char *p, uint64_t *hi, uint64_t *lo)
{
    *hi = *lo = 0;
    for (int i = 15; i >= 8; i--)
        *hi = *hi << 8 | le_byte(p, 16, (size_t)i);
    for (int i = 7; i >= 0; i--)
        *lo = *lo << 8 | le_byte(p, 16, (size_t)i);
}

static void quad_to_ld(uint64_t hi, uint64_t lo, unsigned char *p)
{
    for (size_t i = 0; i < 8; i++) {
        set_le_byte(p, 16, i, (unsigned char)(lo >> (8 * i)));
        set_le_byte(p, 16, 8 + i, (unsigned char)(hi >> (8 * i)));
    }
}
#else
#error "external32 long double: this platform's long double is neither x87 extended nor IEEE quad"
#endif

/* One part of a basic value, native -> external32 (pack) or back; 0, or -1 when the value does
 * not fit the destination. */
static int convert_part(const xtype_t *x, size_t nsize, const unsigned char *in, unsigned char *out,
                        int pack)
{
    uint64_t hi, lo;

    switch (x->kind) {
    case X_RAW:
        memcpy(out, in, nsize);
        return 0;
    case X_BOOL:
        *out = *in != 0;
        return 0;
    case X_LDOUBLE:
        if (pack) {
            ld_to_quad(in, &hi, &lo);
            for (size_t i = 0; i < 8; i++) {
                out[i] = (unsigned char)(hi >> (56 - 8 * i));
                out[8 + i] = (unsigned char)(lo >> (56 - 8 * i));
            }
        } else {
            hi = lo = 0;
            for (size_t i = 0; i < 8; i++) {
                hi = hi << 8 | in[i];
                lo = lo << 8 | in[8 + i];
            }
            quad_to_ld(hi, lo, out);
        }
        return 0;
    default: /* integers and floats: the byte order, and the size for integers */
        if (pack)
            return convert_int(in, nsize, host_big_endian(), out, x->xsize, 1, x->kind == X_SINT);
        return convert_int(in, x->xsize, 1, out, nsize, host_big_endian(), x->kind == X_SINT);
    }
}

/* Walk count elements of t's packed native form (native) and its external32 form (ext),
 * converting every value in the direction pack says. */
static vbt_status_t walk(const vbt_dtype_t *t, size_t count, unsigned char *native,
                         unsigned char *ext, int pack, size_t *bad_p)
{
    size_t value = 0;

    for (size_t e = 0; e < count; e++) {
        for (size_t r = 0; r < t->nruns; r++) {
            const vbt_dtype_run_t *run = &t->runs[r];
            xtype_t x = classify(run->type);
            size_t npart = run->size / (size_t)x.parts;
            if (x.xsize == 0)
                x.xsize = npart;
            for (size_t i = 0; i < run->count; i++, value++) {
                for (int p = 0; p < x.parts; p++) {
                    int rc = pack ? convert_part(&x, npart, native, ext, 1)
                                  : convert_part(&x, npart, ext, native, 0);
                    if (rc != 0) {
                        *bad_p = value;
                        return VBT_ERR_INVALID_PARAM;
                    }
                    native += npart;
                    ext += x.xsize;
                }
            }
        }
    }
    return VBT_OK;
}

vbt_status_t vbt_dtype_external_pack(const vbt_dtype_t *t, const void *buf, size_t count, void *out,
                                     size_t *bad_p)
{
    unsigned char *native = malloc(count * t->size > 0 ? count * t->size : 1);
    vbt_status_t st;

    if (native == NULL)
        return VBT_ERR_NO_MEMORY;
    vbt_dtype_pack(t, buf, count, 0, native, count * t->size);
    st = walk(t, count, native, out, 1, bad_p);
    free(native);
    return st;
}

vbt_status_t vbt_dtype_external_unpack(const vbt_dtype_t *t, const void *in, size_t count,
                                       void *buf, size_t *bad_p)
{
    unsigned char *native = malloc(count * t->size > 0 ? count * t->size : 1);
    vbt_status_t st;

    if (native == NULL)
        return VBT_ERR_NO_MEMORY;
    st = walk(t, count, native, (unsigned char *)(uintptr_t)in, 0, bad_p);
    if (st == VBT_OK)
        vbt_dtype_unpack(t, buf, count, 0, native, count * t->size);
    free(native);
    return st;
}
