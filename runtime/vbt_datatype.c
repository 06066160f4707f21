#include "vbt_datatype.h"

#include <complex.h>
#include <stdbool.h>
#include <stddef.h>
#include <wchar.h>

vbt_dtype_info_t vbt_dtype_table[256];

/* Pair types are structs: their extent includes the padding the C compiler puts in them. */
#define PAIR(_a, _b)                                                                               \
    struct {                                                                                       \
        _a v;                                                                                      \
        _b i;                                                                                      \
    }

static void set(MPI_Datatype dt, size_t size, size_t extent, int nelements)
{
    vbt_dtype_info_t *e = &vbt_dtype_table[(uintptr_t)dt - 0x200];
    e->size = (uint32_t)size;
    e->extent = (uint32_t)extent;
    e->nelements = (uint8_t)nelements;
}

#define BASIC(_dt, _ctype) set(_dt, sizeof(_ctype), sizeof(_ctype), 1)
#define PAIRT(_dt, _a, _b) set(_dt, sizeof(_a) + sizeof(_b), sizeof(PAIR(_a, _b)), 2)

void vbt_datatype_init(void)
{
    /* Fixed-size types (bit 6 of the handle set) encode log2 of their size in bits 5:3. */
    static const unsigned fixed[] = {0x240, 0x241, 0x243, 0x244, 0x245, 0x247, 0x248, 0x249,
                                     0x250, 0x251, 0x258, 0x259, 0x2c0, 0x2c1, 0x2c8, 0x2c9,
                                     0x2ca, 0x2d0, 0x2d1, 0x2d2, 0x2d3, 0x2d8, 0x2d9, 0x2da,
                                     0x2db, 0x2e0, 0x2e1, 0x2e2, 0x2e3, 0x2eb};
    for (size_t i = 0; i < sizeof(fixed) / sizeof(fixed[0]); i++) {
        size_t bytes = (size_t)1 << ((fixed[i] >> 3) & 7);
        set((MPI_Datatype)(uintptr_t)fixed[i], bytes, bytes, 1);
    }

    BASIC(MPI_AINT, MPI_Aint);
    BASIC(MPI_COUNT, MPI_Count);
    BASIC(MPI_OFFSET, MPI_Offset);
    set(MPI_PACKED, 1, 1, 1);
    BASIC(MPI_SHORT, short);
    BASIC(MPI_INT, int);
    BASIC(MPI_LONG, long);
    BASIC(MPI_LONG_LONG_INT, long long);
    BASIC(MPI_UNSIGNED_SHORT, unsigned short);
    BASIC(MPI_UNSIGNED, unsigned);
    BASIC(MPI_UNSIGNED_LONG, unsigned long);
    BASIC(MPI_UNSIGNED_LONG_LONG, unsigned long long);
    BASIC(MPI_FLOAT, float);
    BASIC(MPI_C_COMPLEX, float _Complex);
    BASIC(MPI_CXX_FLOAT_COMPLEX, float _Complex);
    BASIC(MPI_DOUBLE, double);
    BASIC(MPI_C_DOUBLE_COMPLEX, double _Complex);
    BASIC(MPI_CXX_DOUBLE_COMPLEX, double _Complex);
    /* Fortran types as gfortran lays them out by default. */
    set(MPI_LOGICAL, 4, 4, 1);
    set(MPI_INTEGER, 4, 4, 1);
    set(MPI_REAL, 4, 4, 1);
    set(MPI_COMPLEX, 8, 8, 1);
    set(MPI_DOUBLE_PRECISION, 8, 8, 1);
    set(MPI_DOUBLE_COMPLEX, 16, 16, 1);
    set(MPI_CHARACTER, 1, 1, 1);
    BASIC(MPI_LONG_DOUBLE, long double);
    BASIC(MPI_C_LONG_DOUBLE_COMPLEX, long double _Complex);
    BASIC(MPI_CXX_LONG_DOUBLE_COMPLEX, long double _Complex);
    PAIRT(MPI_FLOAT_INT, float, int);
    PAIRT(MPI_DOUBLE_INT, double, int);
    PAIRT(MPI_LONG_INT, long, int);
    PAIRT(MPI_2INT, int, int);
    PAIRT(MPI_SHORT_INT, short, int);
    PAIRT(MPI_LONG_DOUBLE_INT, long double, int);
    set(MPI_2REAL, 8, 8, 2);
    set(MPI_2DOUBLE_PRECISION, 16, 16, 2);
    set(MPI_2INTEGER, 8, 8, 2);
    BASIC(MPI_C_BOOL, bool);
    BASIC(MPI_CXX_BOOL, bool);
    BASIC(MPI_WCHAR, wchar_t);
}
