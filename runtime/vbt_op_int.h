/* Private to the op module: what each predefined datatype is to a reduction, and the generated
 * element-wise kernels (vbt_op_kernels.c), which vbt_op.c checks against and dispatches on. */
#ifndef VBT_OP_INT_H
#define VBT_OP_INT_H

#include <stddef.h>
#include <stdint.h>

/* Predefined ops by their handle value minus 0x20 (mpi.h), so a handle indexes the tables. */
enum {
    VBT_OPI_USER = 0x00, /* the slot of MPI_OP_NULL: user ops carry it */
    VBT_OPI_SUM = 0x01,
    VBT_OPI_MIN = 0x02,
    VBT_OPI_MAX = 0x03,
    VBT_OPI_PROD = 0x04,
    VBT_OPI_BAND = 0x08,
    VBT_OPI_BOR = 0x09,
    VBT_OPI_BXOR = 0x0a,
    VBT_OPI_LAND = 0x10,
    VBT_OPI_LOR = 0x11,
    VBT_OPI_LXOR = 0x12,
    VBT_OPI_MINLOC = 0x18,
    VBT_OPI_MAXLOC = 0x19,
    VBT_OPI_REPLACE = 0x1c,
    VBT_OPI_NO_OP = 0x1d,
    VBT_OPI_COUNT = 0x20
};

/* The element types kernels exist for. Signed integers have MIN and MAX of their own only: the
 * other integer ops give the same bits signed or unsigned, so they run the unsigned kernel, whose
 * overflow is defined. Types the compiler lacks (128-bit integers, _Float16, _Float128) keep
 * their slot with no kernels. */
typedef enum {
    VBT_OPK_NONE = 0, /* no arithmetic: REPLACE and NO_OP only */
    VBT_OPK_U8,
    VBT_OPK_U16,
    VBT_OPK_U32,
    VBT_OPK_U64,
    VBT_OPK_U128,
    VBT_OPK_I8,
    VBT_OPK_I16,
    VBT_OPK_I32,
    VBT_OPK_I64,
    VBT_OPK_I128,
    VBT_OPK_F16,
    VBT_OPK_F32,
    VBT_OPK_F64,
    VBT_OPK_LDBL,
    VBT_OPK_F128,
    VBT_OPK_C16, /* complex: a pair (re, im) of the real type */
    VBT_OPK_C32,
    VBT_OPK_C64,
    VBT_OPK_CLDBL,
    VBT_OPK_C128,
    VBT_OPK_FLOAT_INT, /* value-index pairs, laid out as the C struct {value; index} */
    VBT_OPK_DOUBLE_INT,
    VBT_OPK_LONG_INT,
    VBT_OPK_2INT,
    VBT_OPK_SHORT_INT,
    VBT_OPK_LDBL_INT,
    VBT_OPK_2F32, /* Fortran pairs: the index has the value's type */
    VBT_OPK_2F64,
    VBT_OPK_COUNT
} vbt_opk_t;

/* The groups of MPI-3.1 sec. 5.9.2 that decide which predefined ops a datatype takes. */
enum {
    VBT_OPC_CINT = 1u << 0,    /* C integer */
    VBT_OPC_FINT = 1u << 1,    /* Fortran integer, and MPI_AINT, MPI_OFFSET, MPI_COUNT */
    VBT_OPC_FLOAT = 1u << 2,   /* floating point */
    VBT_OPC_COMPLEX = 1u << 3, /* complex */
    VBT_OPC_LOGICAL = 1u << 4, /* logical: MPI_C_BOOL, MPI_CXX_BOOL, Fortran LOGICAL */
    VBT_OPC_BYTE = 1u << 5,    /* MPI_BYTE */
    VBT_OPC_PAIR = 1u << 6,    /* the MINLOC/MAXLOC pair types */
    /* MPI_CHAR, MPI_WCHAR, MPI_CHARACTER: not for reductions in the standard, but MPICH (and
     * so the OSU benchmarks, which reduce MPI_CHAR by default) computes on them as the
     * platform's character types; the arithmetic and bitwise ops take them here too. */
    VBT_OPC_CHAR = 1u << 7,
};

typedef struct {
    const char *name; /* "MPI_INT"; NULL where no predefined datatype has this handle */
    uint8_t groups;   /* VBT_OPC_* */
    uint8_t kind;     /* vbt_opk_t */
} vbt_op_dtype_t;

/* Indexed by the datatype's handle value minus 0x200. */
extern const vbt_op_dtype_t vbt_op_dtypes[256];

/* inout[i] = in[i] op inout[i] for count elements; NULL where the op is not defined. */
typedef void (*vbt_op_kernel_t)(const void *in, void *inout, size_t count);
extern const vbt_op_kernel_t vbt_op_kernels[VBT_OPI_COUNT][VBT_OPK_COUNT];

#endif
