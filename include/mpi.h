/*
 * mpi.h -- Verbatim's public header, following the MPI-5.0 standard ABI.
 *
 * Every value here is a wire contract: applications compiled against any standard-ABI mpi.h must
 * run against libmpi_abi from Verbatim, so no value may be "improved". Sources (MPI-5.0, June 9
 * 2025, HTML edition at mpi-forum.org/docs/mpi-5.0/mpi50-report/):
 *   - Sec. 21.2   MPI_Abi_get_version / MPI_Abi_get_info, MPI_ABI_VERSION 1, MPI_ABI_SUBVERSION 0.
 *   - Sec. 21.2.1 The header must be mpi.h; the C library must be named "mpi_abi" with platform
 *                 prefix/suffix (Linux: libmpi_abi.so) and be the application's sole direct MPI
 *                 dependency. Features deprecated in MPI-3.1 or earlier are NOT part of this API.
 *                 The standard leaves the version suffix to platform convention; the MPI Forum
 *                 stubs (mpi-forum/mpi-abi-stubs Makefile: SOVERSION = MPI_ABI_VERSION), MPICH
 *                 (pmodels/mpich#7867) and Open MPI (open-mpi/ompi#13280) all use
 *                 SONAME libmpi_abi.so.1, so Verbatim does too. Fortran: mpifort_abi (Sec. 21.4.2).
 *   - Sec. 21.3.3 Predefined handles are compile-time integers 1..4095 (12 bits) cast to the handle
 *                 type; they are never dereferenced. 0 is never a valid handle. The runtime must
 *                 never hand out a handle in 1..4095, so "(uintptr_t)h <= 4095" identifies a
 *                 predefined (or invalid-zero) handle and anything above is a runtime object.
 *   - Sec. 21.5   Huffman layout inside that range (bit 11:0):
 *                   0x020..0x03f  MPI_Op          (0b00_00_001_xx_xxx)
 *                   0x100..0x1ff  other handles   (0b00_01_xxxxx_xxx; bits 7:3 = kind:
 *                                 comm 0x100, group 0x108, win 0x110, file 0x118, session 0x120,
 *                                 message 0x128, info 0x130, errhandler 0x140, request 0x180)
 *                   0x200..0x2ff  MPI_Datatype    (0b00_10_xxxxx_xxx; bits 7:3 = category).
 *                 Datatypes with bit 6 set are fixed-size; bits 5:3 then hold log2(size in bytes).
 *                 Null handles have all bits zero except those naming the handle kind.
 *   - Sec. 21.3.4 Integer constants: all unused values up to 16384 are reserved; implementation
 *                 extensions (e.g. extra split types) must use values above 16384.
 *   - Sec. 22.1.1 Tables of ABI values (the values used below).
 *
 * Known erratum: Sec. 21.5 Table 40 encodes MPI_ERRORS_RETURN as 0x142 and MPI_ERRORS_ABORT as
 * 0x143, but Sec. 22.1.1 gives ERRORS_ABORT = 322 (0x142) and ERRORS_RETURN = 323 (0x143). The
 * reference stubs (mpi-forum/mpi-abi-stubs#72) and MPICH (pmodels/mpich#7633) settled on the
 * Sec. 22.1.1 values, which are used here so binaries interoperate with those libraries.
 */
#ifndef MPI_H_ABI
#define MPI_H_ABI

#include <stdint.h>

#if defined(__cplusplus)
extern "C" {
#endif

/* ---- Versions (Sec. 21.2, 22.1.1) ------------------------------------------------------------ */

#define MPI_VERSION        5
#define MPI_SUBVERSION     0
#define MPI_ABI_VERSION    1
#define MPI_ABI_SUBVERSION 0

/* ---- Integer types (Sec. 21.3.5) ------------------------------------------------------------- */

/* The ABI fixes these so the same binary works on every LP64/ILP32 platform. MPI_Fint and the
 * f2c/c2f functions are deliberately absent: Sec. 21.4 excludes them from the C ABI because the
 * Fortran INTEGER size is a compiler option; MPI_Xxx_toint/fromint replace them. */
typedef intptr_t MPI_Aint;
typedef int64_t MPI_Offset;
typedef int64_t MPI_Count;

/* ---- Status (Sec. 21.3.1): exactly eight ints, member names fixed by the ABI ----------------- */

typedef struct {
    int MPI_SOURCE;
    int MPI_TAG;
    int MPI_ERROR;
    int MPI_internal[5];
} MPI_Status;

/* Fortran status layout as seen from C (Sec. 21.4.3); indices are 0-based. */
#define MPI_F_STATUS_SIZE 8
#define MPI_F_SOURCE      0
#define MPI_F_TAG         1
#define MPI_F_ERROR       2

/* ---- Opaque handles (Sec. 21.3.2) ------------------------------------------------------------ */

/* Incomplete struct pointers give type safety; the struct tags are part of the ABI because C++
 * name mangling of user functions taking handles depends on them. */
typedef struct MPI_ABI_Comm *MPI_Comm;
typedef struct MPI_ABI_Datatype *MPI_Datatype;
typedef struct MPI_ABI_Errhandler *MPI_Errhandler;
typedef struct MPI_ABI_File *MPI_File;
typedef struct MPI_ABI_Group *MPI_Group;
typedef struct MPI_ABI_Info *MPI_Info;
typedef struct MPI_ABI_Message *MPI_Message;
typedef struct MPI_ABI_Op *MPI_Op;
typedef struct MPI_ABI_Request *MPI_Request;
typedef struct MPI_ABI_Session *MPI_Session;
typedef struct MPI_ABI_Win *MPI_Win;

/* ---- Predefined handles (Sec. 21.5 / 22.1.1) ------------------------------------------------- */

/* Reduction operators: 0x20..0x3f. */
#define MPI_OP_NULL ((MPI_Op)0x020)
#define MPI_SUM     ((MPI_Op)0x021)
#define MPI_MIN     ((MPI_Op)0x022)
#define MPI_MAX     ((MPI_Op)0x023)
#define MPI_PROD    ((MPI_Op)0x024)
#define MPI_BAND    ((MPI_Op)0x028)
#define MPI_BOR     ((MPI_Op)0x029)
#define MPI_BXOR    ((MPI_Op)0x02a)
#define MPI_LAND    ((MPI_Op)0x030)
#define MPI_LOR     ((MPI_Op)0x031)
#define MPI_LXOR    ((MPI_Op)0x032)
#define MPI_MINLOC  ((MPI_Op)0x038)
#define MPI_MAXLOC  ((MPI_Op)0x039)
#define MPI_REPLACE ((MPI_Op)0x03c)
#define MPI_NO_OP   ((MPI_Op)0x03d)

/* Other handle kinds: 0x100..0x1ff. */
#define MPI_COMM_NULL  ((MPI_Comm)0x100)
#define MPI_COMM_WORLD ((MPI_Comm)0x101)
#define MPI_COMM_SELF  ((MPI_Comm)0x102)

#define MPI_GROUP_NULL  ((MPI_Group)0x108)
#define MPI_GROUP_EMPTY ((MPI_Group)0x109)

#define MPI_WIN_NULL ((MPI_Win)0x110)

#define MPI_FILE_NULL ((MPI_File)0x118)

#define MPI_SESSION_NULL ((MPI_Session)0x120)

#define MPI_MESSAGE_NULL    ((MPI_Message)0x128)
#define MPI_MESSAGE_NO_PROC ((MPI_Message)0x129)

#define MPI_INFO_NULL ((MPI_Info)0x130)
#define MPI_INFO_ENV  ((MPI_Info)0x131)

/* ABORT/RETURN follow Sec. 22.1.1, not Table 40; see the erratum note at the top. */
#define MPI_ERRHANDLER_NULL  ((MPI_Errhandler)0x140)
#define MPI_ERRORS_ARE_FATAL ((MPI_Errhandler)0x141)
#define MPI_ERRORS_ABORT     ((MPI_Errhandler)0x142)
#define MPI_ERRORS_RETURN    ((MPI_Errhandler)0x143)

#define MPI_REQUEST_NULL ((MPI_Request)0x180)

/* Datatypes: 0x200..0x2ff. Language-independent (category 00000). */
#define MPI_DATATYPE_NULL ((MPI_Datatype)0x200)
#define MPI_AINT          ((MPI_Datatype)0x201)
#define MPI_COUNT         ((MPI_Datatype)0x202)
#define MPI_OFFSET        ((MPI_Datatype)0x203)
#define MPI_PACKED        ((MPI_Datatype)0x207)

/* C integers whose size varies by platform (category 00001). */
#define MPI_SHORT              ((MPI_Datatype)0x208)
#define MPI_INT                ((MPI_Datatype)0x209)
#define MPI_LONG               ((MPI_Datatype)0x20a)
#define MPI_LONG_LONG_INT      ((MPI_Datatype)0x20b)
#define MPI_LONG_LONG          MPI_LONG_LONG_INT /* synonym: same handle */
#define MPI_UNSIGNED_SHORT     ((MPI_Datatype)0x20c)
#define MPI_UNSIGNED           ((MPI_Datatype)0x20d)
#define MPI_UNSIGNED_LONG      ((MPI_Datatype)0x20e)
#define MPI_UNSIGNED_LONG_LONG ((MPI_Datatype)0x20f)

/* C/C++ floating point and complex (category 00010). */
#define MPI_FLOAT              ((MPI_Datatype)0x210)
#define MPI_C_COMPLEX          ((MPI_Datatype)0x212)
#define MPI_C_FLOAT_COMPLEX    MPI_C_COMPLEX /* synonym: same handle */
#define MPI_CXX_FLOAT_COMPLEX  ((MPI_Datatype)0x213)
#define MPI_DOUBLE             ((MPI_Datatype)0x214)
#define MPI_C_DOUBLE_COMPLEX   ((MPI_Datatype)0x216)
#define MPI_CXX_DOUBLE_COMPLEX ((MPI_Datatype)0x217)

/* Fortran types of compiler-dependent size (category 00011). */
#define MPI_LOGICAL          ((MPI_Datatype)0x218)
#define MPI_INTEGER          ((MPI_Datatype)0x219)
#define MPI_REAL             ((MPI_Datatype)0x21a)
#define MPI_COMPLEX          ((MPI_Datatype)0x21b)
#define MPI_DOUBLE_PRECISION ((MPI_Datatype)0x21c)
#define MPI_DOUBLE_COMPLEX   ((MPI_Datatype)0x21d)
#define MPI_CHARACTER        ((MPI_Datatype)0x21e)

/* long double family (category 00100). */
#define MPI_LONG_DOUBLE             ((MPI_Datatype)0x220)
#define MPI_C_LONG_DOUBLE_COMPLEX   ((MPI_Datatype)0x224)
#define MPI_CXX_LONG_DOUBLE_COMPLEX ((MPI_Datatype)0x225)

/* Pair types for MINLOC/MAXLOC: C (00101) and Fortran (00110). */
#define MPI_FLOAT_INT         ((MPI_Datatype)0x228)
#define MPI_DOUBLE_INT        ((MPI_Datatype)0x229)
#define MPI_LONG_INT          ((MPI_Datatype)0x22a)
#define MPI_2INT              ((MPI_Datatype)0x22b)
#define MPI_SHORT_INT         ((MPI_Datatype)0x22c)
#define MPI_LONG_DOUBLE_INT   ((MPI_Datatype)0x22d)
#define MPI_2REAL             ((MPI_Datatype)0x230)
#define MPI_2DOUBLE_PRECISION ((MPI_Datatype)0x231)
#define MPI_2INTEGER          ((MPI_Datatype)0x232)

/* Other C/C++ types (category 00111). */
#define MPI_C_BOOL   ((MPI_Datatype)0x238)
#define MPI_CXX_BOOL ((MPI_Datatype)0x239)
#define MPI_WCHAR    ((MPI_Datatype)0x23c)

/* Fixed-size C/C++ types (bit 6 set, bits 5:3 = log2 bytes). */
#define MPI_INT8_T        ((MPI_Datatype)0x240)
#define MPI_UINT8_T       ((MPI_Datatype)0x241)
#define MPI_CHAR          ((MPI_Datatype)0x243)
#define MPI_SIGNED_CHAR   ((MPI_Datatype)0x244)
#define MPI_UNSIGNED_CHAR ((MPI_Datatype)0x245)
#define MPI_BYTE          ((MPI_Datatype)0x247)
#define MPI_INT16_T       ((MPI_Datatype)0x248)
#define MPI_UINT16_T      ((MPI_Datatype)0x249)
#define MPI_INT32_T       ((MPI_Datatype)0x250)
#define MPI_UINT32_T      ((MPI_Datatype)0x251)
#define MPI_INT64_T       ((MPI_Datatype)0x258)
#define MPI_UINT64_T      ((MPI_Datatype)0x259)

/* Fixed-size (optional) Fortran types; support is reported at run time, so every one has a value
 * even if the library lacks it (Sec. 21.4: MPI_Type_size gives MPI_UNDEFINED then). */
#define MPI_LOGICAL1  ((MPI_Datatype)0x2c0)
#define MPI_INTEGER1  ((MPI_Datatype)0x2c1)
#define MPI_LOGICAL2  ((MPI_Datatype)0x2c8)
#define MPI_INTEGER2  ((MPI_Datatype)0x2c9)
#define MPI_REAL2     ((MPI_Datatype)0x2ca)
#define MPI_LOGICAL4  ((MPI_Datatype)0x2d0)
#define MPI_INTEGER4  ((MPI_Datatype)0x2d1)
#define MPI_REAL4     ((MPI_Datatype)0x2d2)
#define MPI_COMPLEX4  ((MPI_Datatype)0x2d3)
#define MPI_LOGICAL8  ((MPI_Datatype)0x2d8)
#define MPI_INTEGER8  ((MPI_Datatype)0x2d9)
#define MPI_REAL8     ((MPI_Datatype)0x2da)
#define MPI_COMPLEX8  ((MPI_Datatype)0x2db)
#define MPI_LOGICAL16 ((MPI_Datatype)0x2e0)
#define MPI_INTEGER16 ((MPI_Datatype)0x2e1)
#define MPI_REAL16    ((MPI_Datatype)0x2e2)
#define MPI_COMPLEX16 ((MPI_Datatype)0x2e3)
#define MPI_COMPLEX32 ((MPI_Datatype)0x2eb)

/* ---- Integer constants (Sec. 22.1.1) --------------------------------------------------------- */

/* Macros rather than enum members so applications can feature-test with #ifdef, which the
 * standard permits ("literal integer constants ... or (where possible) as enum members"). */

/* Error classes. */
#define MPI_SUCCESS                   0
#define MPI_ERR_BUFFER                1
#define MPI_ERR_COUNT                 2
#define MPI_ERR_TYPE                  3
#define MPI_ERR_TAG                   4
#define MPI_ERR_COMM                  5
#define MPI_ERR_RANK                  6
#define MPI_ERR_REQUEST               7
#define MPI_ERR_ROOT                  8
#define MPI_ERR_GROUP                 9
#define MPI_ERR_OP                    10
#define MPI_ERR_TOPOLOGY              11
#define MPI_ERR_DIMS                  12
#define MPI_ERR_ARG                   13
#define MPI_ERR_UNKNOWN               14
#define MPI_ERR_TRUNCATE              15
#define MPI_ERR_OTHER                 16
#define MPI_ERR_INTERN                17
#define MPI_ERR_PENDING               18
#define MPI_ERR_IN_STATUS             19
#define MPI_ERR_ACCESS                20
#define MPI_ERR_AMODE                 21
#define MPI_ERR_ASSERT                22
#define MPI_ERR_BAD_FILE              23
#define MPI_ERR_BASE                  24
#define MPI_ERR_CONVERSION            25
#define MPI_ERR_DISP                  26
#define MPI_ERR_DUP_DATAREP           27
#define MPI_ERR_FILE_EXISTS           28
#define MPI_ERR_FILE_IN_USE           29
#define MPI_ERR_FILE                  30
#define MPI_ERR_INFO_KEY              31
#define MPI_ERR_INFO_NOKEY            32
#define MPI_ERR_INFO_VALUE            33
#define MPI_ERR_INFO                  34
#define MPI_ERR_IO                    35
#define MPI_ERR_KEYVAL                36
#define MPI_ERR_LOCKTYPE              37
#define MPI_ERR_NAME                  38
#define MPI_ERR_NO_MEM                39
#define MPI_ERR_NOT_SAME              40
#define MPI_ERR_NO_SPACE              41
#define MPI_ERR_NO_SUCH_FILE          42
#define MPI_ERR_PORT                  43
#define MPI_ERR_QUOTA                 44
#define MPI_ERR_READ_ONLY             45
#define MPI_ERR_RMA_ATTACH            46
#define MPI_ERR_RMA_CONFLICT          47
#define MPI_ERR_RMA_RANGE             48
#define MPI_ERR_RMA_SHARED            49
#define MPI_ERR_RMA_SYNC              50
#define MPI_ERR_SERVICE               51
#define MPI_ERR_SIZE                  52
#define MPI_ERR_SPAWN                 53
#define MPI_ERR_UNSUPPORTED_DATAREP   54
#define MPI_ERR_UNSUPPORTED_OPERATION 55
#define MPI_ERR_WIN                   56
#define MPI_ERR_RMA_FLAVOR            57
#define MPI_ERR_PROC_ABORTED          58
#define MPI_ERR_VALUE_TOO_LARGE       59
#define MPI_ERR_SESSION               60
#define MPI_ERR_ERRHANDLER            61
#define MPI_ERR_ABI                   62
#define MPI_T_ERR_CANNOT_INIT         1001
#define MPI_T_ERR_NOT_ACCESSIBLE      1002
#define MPI_T_ERR_NOT_INITIALIZED     1003
#define MPI_T_ERR_NOT_SUPPORTED       1004
#define MPI_T_ERR_MEMORY              1005
#define MPI_T_ERR_INVALID             1006
#define MPI_T_ERR_INVALID_INDEX       1007
#define MPI_T_ERR_INVALID_ITEM        1008 /* deprecated in MPI-4.0, still ABI */
#define MPI_T_ERR_INVALID_SESSION     1009
#define MPI_T_ERR_INVALID_HANDLE      1010
#define MPI_T_ERR_INVALID_NAME        1011
#define MPI_T_ERR_OUT_OF_HANDLES      1012
#define MPI_T_ERR_OUT_OF_SESSIONS     1013
#define MPI_T_ERR_CVAR_SET_NOT_NOW    1014
#define MPI_T_ERR_CVAR_SET_NEVER      1015
#define MPI_T_ERR_PVAR_NO_WRITE       1016
#define MPI_T_ERR_PVAR_NO_STARTSTOP   1017
#define MPI_T_ERR_PVAR_NO_ATOMIC      1018
/* 16383: half the smallest INT_MAX C allows, leaving room for user codes above it. */
#define MPI_ERR_LASTCODE 16383

/* Maximum string sizes (fixed by the ABI so user buffers are portable). */
#define MPI_MAX_DATAREP_STRING         128
#define MPI_MAX_ERROR_STRING           512
#define MPI_MAX_INFO_KEY               256
#define MPI_MAX_INFO_VAL               1024
#define MPI_MAX_LIBRARY_VERSION_STRING 8192
#define MPI_MAX_OBJECT_NAME            128
#define MPI_MAX_PORT_NAME              1024
#define MPI_MAX_PROCESSOR_NAME         256
#define MPI_MAX_STRINGTAG_LEN          1024
#define MPI_MAX_PSET_NAME_LEN          1024

/* Mode constants: powers of two so they can be OR-ed. */
#define MPI_MODE_APPEND          1
#define MPI_MODE_CREATE          2
#define MPI_MODE_DELETE_ON_CLOSE 4
#define MPI_MODE_EXCL            8
#define MPI_MODE_RDONLY          16
#define MPI_MODE_RDWR            32
#define MPI_MODE_SEQUENTIAL      64
#define MPI_MODE_UNIQUE_OPEN     128
#define MPI_MODE_WRONLY          256
#define MPI_MODE_NOCHECK         1024
#define MPI_MODE_NOPRECEDE       2048
#define MPI_MODE_NOPUT           4096
#define MPI_MODE_NOSTORE         8192
#define MPI_MODE_NOSUCCEED       16384

/* Assorted constants; sentinels are negative because any non-negative int may be a rank/tag. */
#define MPI_ANY_SOURCE     (-1)
#define MPI_ANY_TAG        (-2)
#define MPI_PROC_NULL      (-3)
#define MPI_ROOT           (-4)
#define MPI_UNDEFINED      (-32766)
#define MPI_BSEND_OVERHEAD 512

/* Thread levels: monotonic, SINGLE < FUNNELED < SERIALIZED < MULTIPLE. */
#define MPI_THREAD_SINGLE     0
#define MPI_THREAD_FUNNELED   1024
#define MPI_THREAD_SERIALIZED 2048
#define MPI_THREAD_MULTIPLE   4096

/* Array order and distribution (MPI_Type_create_subarray/darray). */
#define MPI_ORDER_C              12
#define MPI_ORDER_FORTRAN        15
#define MPI_DISTRIBUTE_NONE      16
#define MPI_DISTRIBUTE_BLOCK     17
#define MPI_DISTRIBUTE_CYCLIC    18
#define MPI_DISTRIBUTE_DFLT_DARG 19

/* Datatype decoding combiners. F90 REAL/COMPLEX/INTEGER order is as in Sec. 22.1.1 (older
 * drafts and stubs had INTEGER first; do not "fix" it back). */
#define MPI_COMBINER_NAMED          101
#define MPI_COMBINER_DUP            102
#define MPI_COMBINER_CONTIGUOUS     103
#define MPI_COMBINER_VECTOR         104
#define MPI_COMBINER_HVECTOR        105
#define MPI_COMBINER_INDEXED        106
#define MPI_COMBINER_HINDEXED       107
#define MPI_COMBINER_INDEXED_BLOCK  108
#define MPI_COMBINER_HINDEXED_BLOCK 109
#define MPI_COMBINER_STRUCT         110
#define MPI_COMBINER_SUBARRAY       111
#define MPI_COMBINER_DARRAY         112
#define MPI_COMBINER_F90_REAL       113
#define MPI_COMBINER_F90_COMPLEX    114
#define MPI_COMBINER_F90_INTEGER    115
#define MPI_COMBINER_RESIZED        116
#define MPI_COMBINER_VALUE_INDEX    117

/* F90 datatype matching (MPI_Type_match_size). */
#define MPI_TYPECLASS_INTEGER 192
#define MPI_TYPECLASS_REAL    193
#define MPI_TYPECLASS_COMPLEX 194

/* Communicator and group comparison results. */
#define MPI_IDENT     201
#define MPI_CONGRUENT 202
#define MPI_SIMILAR   203
#define MPI_UNEQUAL   204

/* Topology kinds (MPI_Topo_test). */
#define MPI_CART       211
#define MPI_GRAPH      212
#define MPI_DIST_GRAPH 213

/* Communicator split types; implementation extensions must be > 16384 (Sec. 21.3.4). */
#define MPI_COMM_TYPE_SHARED          221
#define MPI_COMM_TYPE_HW_UNGUIDED     222
#define MPI_COMM_TYPE_HW_GUIDED       223
#define MPI_COMM_TYPE_RESOURCE_GUIDED 224

/* One-sided: lock types, window flavors, memory models. */
#define MPI_LOCK_EXCLUSIVE      301
#define MPI_LOCK_SHARED         302
#define MPI_WIN_FLAVOR_CREATE   311
#define MPI_WIN_FLAVOR_ALLOCATE 312
#define MPI_WIN_FLAVOR_DYNAMIC  313
#define MPI_WIN_FLAVOR_SHARED   314
#define MPI_WIN_UNIFIED         321
#define MPI_WIN_SEPARATE        322

/* File positioning; CUR/END/SET as in Sec. 22.1.1 (not POSIX order, not the old stubs' order). */
#define MPI_SEEK_CUR             401
#define MPI_SEEK_END             402
#define MPI_SEEK_SET             403
#define MPI_DISPLACEMENT_CURRENT ((MPI_Offset)-1)

/* Predefined attribute keys. MPI_HOST is deprecated (MPI-4.1) but still in the ABI. */
#define MPI_KEYVAL_INVALID    0
#define MPI_TAG_UB            501
#define MPI_IO                502
#define MPI_HOST              503
#define MPI_WTIME_IS_GLOBAL   504
#define MPI_APPNUM            505
#define MPI_LASTUSEDCODE      506
#define MPI_UNIVERSE_SIZE     507
#define MPI_WIN_BASE          601
#define MPI_WIN_DISP_UNIT     602
#define MPI_WIN_SIZE          603
#define MPI_WIN_CREATE_FLAVOR 604
#define MPI_WIN_MODEL         605

/* ---- Buffer address and ignored-input constants (Sec. 22.1.1) -------------------------------- */

/* Small integers cast to pointers: all but BOTTOM/IN_PLACE/AUTOMATIC are distinguished by type,
 * so several legitimately share 0. The MPI_F_* / MPI_F08_* ignore sentinels are not in the C
 * header (Sec. 21.4.4). */
#define MPI_BOTTOM           ((void *)0)
#define MPI_IN_PLACE         ((void *)1)
#define MPI_BUFFER_AUTOMATIC ((void *)2)

#define MPI_ARGV_NULL       ((char **)0)
#define MPI_ARGVS_NULL      ((char ***)0)
#define MPI_ERRCODES_IGNORE ((int *)0)
#define MPI_STATUS_IGNORE   ((MPI_Status *)0)
#define MPI_STATUSES_IGNORE ((MPI_Status *)0)
#define MPI_UNWEIGHTED      ((int *)10)
#define MPI_WEIGHTS_EMPTY   ((int *)11)

/* ---- Callback types (Sec. 22.1.3.1) ---------------------------------------------------------- */

/* Function types (not pointer types), as the standard spells them; APIs take "MPI_X_function *".
 * The MPI-2.0 MPI_Copy_function/MPI_Delete_function and the MPI-2.2 *_errhandler_fn names are
 * omitted: features deprecated in MPI-3.1 or earlier are not part of the ABI API (Sec. 21.2.1). */
typedef void(MPI_User_function)(void *invec, void *inoutvec, int *len, MPI_Datatype *datatype);
typedef void(MPI_User_function_c)(void *invec, void *inoutvec, MPI_Count *len,
                                  MPI_Datatype *datatype);

typedef int(MPI_Comm_copy_attr_function)(MPI_Comm oldcomm, int comm_keyval, void *extra_state,
                                         void *attribute_val_in, void *attribute_val_out,
                                         int *flag);
typedef int(MPI_Comm_delete_attr_function)(MPI_Comm comm, int comm_keyval, void *attribute_val,
                                           void *extra_state);
typedef int(MPI_Win_copy_attr_function)(MPI_Win oldwin, int win_keyval, void *extra_state,
                                        void *attribute_val_in, void *attribute_val_out, int *flag);
typedef int(MPI_Win_delete_attr_function)(MPI_Win win, int win_keyval, void *attribute_val,
                                          void *extra_state);
typedef int(MPI_Type_copy_attr_function)(MPI_Datatype oldtype, int type_keyval, void *extra_state,
                                         void *attribute_val_in, void *attribute_val_out,
                                         int *flag);
typedef int(MPI_Type_delete_attr_function)(MPI_Datatype datatype, int type_keyval,
                                           void *attribute_val, void *extra_state);

typedef void(MPI_Comm_errhandler_function)(MPI_Comm *comm, int *error_code, ...);
typedef void(MPI_Win_errhandler_function)(MPI_Win *win, int *error_code, ...);
typedef void(MPI_File_errhandler_function)(MPI_File *file, int *error_code, ...);
typedef void(MPI_Session_errhandler_function)(MPI_Session *session, int *error_code, ...);

typedef int(MPI_Grequest_query_function)(void *extra_state, MPI_Status *status);
typedef int(MPI_Grequest_free_function)(void *extra_state);
typedef int(MPI_Grequest_cancel_function)(void *extra_state, int complete);

typedef int(MPI_Datarep_extent_function)(MPI_Datatype datatype, MPI_Aint *extent,
                                         void *extra_state);
typedef int(MPI_Datarep_conversion_function)(void *userbuf, MPI_Datatype datatype, int count,
                                             void *filebuf, MPI_Offset position, void *extra_state);
typedef int(MPI_Datarep_conversion_function_c)(void *userbuf, MPI_Datatype datatype,
                                               MPI_Count count, void *filebuf, MPI_Offset position,
                                               void *extra_state);

/* Predefined callbacks are the integers 0 (null) and 1 (dup) cast to the callback type, so the
 * runtime recognises them by value rather than by symbol address. */
#define MPI_COMM_NULL_COPY_FN    ((MPI_Comm_copy_attr_function *)0)
#define MPI_COMM_DUP_FN          ((MPI_Comm_copy_attr_function *)1)
#define MPI_COMM_NULL_DELETE_FN  ((MPI_Comm_delete_attr_function *)0)
#define MPI_WIN_NULL_COPY_FN     ((MPI_Win_copy_attr_function *)0)
#define MPI_WIN_DUP_FN           ((MPI_Win_copy_attr_function *)1)
#define MPI_WIN_NULL_DELETE_FN   ((MPI_Win_delete_attr_function *)0)
#define MPI_TYPE_NULL_COPY_FN    ((MPI_Type_copy_attr_function *)0)
#define MPI_TYPE_DUP_FN          ((MPI_Type_copy_attr_function *)1)
#define MPI_TYPE_NULL_DELETE_FN  ((MPI_Type_delete_attr_function *)0)
#define MPI_CONVERSION_FN_NULL   ((MPI_Datarep_conversion_function *)0)
#define MPI_CONVERSION_FN_NULL_C ((MPI_Datarep_conversion_function_c *)0)

/* MPI-1's attribute callbacks and their predefined values: deprecated since MPI-2.0, not part
 * of the MPI-5.0 ABI, but MPI-4.1 still lists them and old programs use them (an addition to the
 * ABI's header that changes no value in it). */
typedef MPI_Comm_copy_attr_function MPI_Copy_function;
typedef MPI_Comm_delete_attr_function MPI_Delete_function;
#define MPI_NULL_COPY_FN   MPI_COMM_NULL_COPY_FN
#define MPI_DUP_FN         MPI_COMM_DUP_FN
#define MPI_NULL_DELETE_FN MPI_COMM_NULL_DELETE_FN

/* ---- Tool information interface types and constants (Sec. 22.1.1) ---------------------------- */

/* The standard fixes only the handle values; the struct tags follow mpi-forum/mpi-abi-stubs so
 * C++ mangling of tool code matches other standard-ABI builds. */
typedef struct MPI_T_enum_t *MPI_T_enum;
typedef struct MPI_T_cvar_handle_t *MPI_T_cvar_handle;
typedef struct MPI_T_pvar_handle_t *MPI_T_pvar_handle;
typedef struct MPI_T_pvar_session_t *MPI_T_pvar_session;
typedef struct MPI_T_event_registration_t *MPI_T_event_registration;
typedef struct MPI_T_event_instance_t *MPI_T_event_instance;

#define MPI_T_ENUM_NULL         ((MPI_T_enum)0)
#define MPI_T_CVAR_HANDLE_NULL  ((MPI_T_cvar_handle)0)
#define MPI_T_PVAR_HANDLE_NULL  ((MPI_T_pvar_handle)0)
#define MPI_T_PVAR_SESSION_NULL ((MPI_T_pvar_session)0)
#define MPI_T_PVAR_ALL_HANDLES  ((MPI_T_pvar_handle)1)

/* These two are C types in the standard, so they are real enums (int-sized on every ABI). */
typedef enum MPI_T_cb_safety {
    MPI_T_CB_REQUIRE_NONE = 0x00,
    MPI_T_CB_REQUIRE_MPI_RESTRICTED = 0x03,
    MPI_T_CB_REQUIRE_THREAD_SAFE = 0x0F,
    MPI_T_CB_REQUIRE_ASYNC_SIGNAL_SAFE = 0x3F
} MPI_T_cb_safety;

typedef enum MPI_T_source_order {
    MPI_T_SOURCE_ORDERED = 1,
    MPI_T_SOURCE_UNORDERED = 2
} MPI_T_source_order;

/* Verbosity: bit 3/4/5 = user/tuner/mpidev audience, low bits = basic/detail/all. */
#define MPI_T_VERBOSITY_USER_BASIC    0x09
#define MPI_T_VERBOSITY_USER_DETAIL   0x0a
#define MPI_T_VERBOSITY_USER_ALL      0x0c
#define MPI_T_VERBOSITY_TUNER_BASIC   0x11
#define MPI_T_VERBOSITY_TUNER_DETAIL  0x12
#define MPI_T_VERBOSITY_TUNER_ALL     0x14
#define MPI_T_VERBOSITY_MPIDEV_BASIC  0x21
#define MPI_T_VERBOSITY_MPIDEV_DETAIL 0x22
#define MPI_T_VERBOSITY_MPIDEV_ALL    0x24

#define MPI_T_BIND_NO_OBJECT      1
#define MPI_T_BIND_MPI_COMM       2
#define MPI_T_BIND_MPI_DATATYPE   3
#define MPI_T_BIND_MPI_ERRHANDLER 4
#define MPI_T_BIND_MPI_FILE       5
#define MPI_T_BIND_MPI_GROUP      6
#define MPI_T_BIND_MPI_OP         7
#define MPI_T_BIND_MPI_REQUEST    8
#define MPI_T_BIND_MPI_WIN        9
#define MPI_T_BIND_MPI_MESSAGE    10
#define MPI_T_BIND_MPI_INFO       11
#define MPI_T_BIND_MPI_SESSION    12

#define MPI_T_SCOPE_CONSTANT 1
#define MPI_T_SCOPE_READONLY 2
#define MPI_T_SCOPE_LOCAL    3
#define MPI_T_SCOPE_GROUP    4
#define MPI_T_SCOPE_GROUP_EQ 5
#define MPI_T_SCOPE_ALL      6
#define MPI_T_SCOPE_ALL_EQ   7

#define MPI_T_PVAR_CLASS_STATE         1
#define MPI_T_PVAR_CLASS_LEVEL         2
#define MPI_T_PVAR_CLASS_SIZE          3
#define MPI_T_PVAR_CLASS_PERCENTAGE    4
#define MPI_T_PVAR_CLASS_HIGHWATERMARK 5
#define MPI_T_PVAR_CLASS_LOWWATERMARK  6
#define MPI_T_PVAR_CLASS_COUNTER       7
#define MPI_T_PVAR_CLASS_AGGREGATE     8
#define MPI_T_PVAR_CLASS_TIMER         9
#define MPI_T_PVAR_CLASS_GENERIC       10

typedef void(MPI_T_event_cb_function)(MPI_T_event_instance event_instance,
                                      MPI_T_event_registration event_registration,
                                      MPI_T_cb_safety cb_safety, void *user_data);
typedef void(MPI_T_event_free_cb_function)(MPI_T_event_registration event_registration,
                                           MPI_T_cb_safety cb_safety, void *user_data);
typedef void(MPI_T_event_dropped_cb_function)(MPI_Count count,
                                              MPI_T_event_registration event_registration,
                                              int source_index, MPI_T_cb_safety cb_safety,
                                              void *user_data);

/* ---- Function prototypes --------------------------------------------------------------------- */

/* Every routine exists as MPI_X and PMPI_X (profiling interface); one macro declares both so the
 * two signatures can never drift apart. Undefined again at the end of this header. */
#define VBT_MPI_DECL(ret, name, params)                                                            \
    ret MPI_##name params;                                                                         \
    ret PMPI_##name params

/* clang-format reads a lone "(T *p)" macro argument as a multiplication and would print
 * "T * p", so the prototype block below is laid out by hand (still 4-space, 100 columns). */
/* clang-format off */
/* Group "environment": init/finalize, threading, timers, identification, errors, ABI queries. */
VBT_MPI_DECL(int, Init, (int *argc, char ***argv));
VBT_MPI_DECL(int, Init_thread, (int *argc, char ***argv, int required, int *provided));
VBT_MPI_DECL(int, Finalize, (void));
VBT_MPI_DECL(int, Initialized, (int *flag));
VBT_MPI_DECL(int, Finalized, (int *flag));
VBT_MPI_DECL(int, Query_thread, (int *provided));
VBT_MPI_DECL(int, Is_thread_main, (int *flag));
VBT_MPI_DECL(int, Abort, (MPI_Comm comm, int errorcode));
VBT_MPI_DECL(double, Wtime, (void));
VBT_MPI_DECL(double, Wtick, (void));
VBT_MPI_DECL(int, Get_processor_name, (char *name, int *resultlen));
VBT_MPI_DECL(int, Get_version, (int *version, int *subversion));
VBT_MPI_DECL(int, Get_library_version, (char *version, int *resultlen));
/* Profiling control (MPI-4.1 Sec. 15.2.4): for tools that intercept it; the library ignores it. */
VBT_MPI_DECL(int, Pcontrol, (const int level, ...));
VBT_MPI_DECL(int, Comm_rank, (MPI_Comm comm, int *rank));
VBT_MPI_DECL(int, Comm_size, (MPI_Comm comm, int *size));
VBT_MPI_DECL(int, Error_string, (int errorcode, char *string, int *resultlen));
VBT_MPI_DECL(int, Error_class, (int errorcode, int *errorclass));
VBT_MPI_DECL(int, Comm_set_errhandler, (MPI_Comm comm, MPI_Errhandler errhandler));
VBT_MPI_DECL(int, Comm_get_errhandler, (MPI_Comm comm, MPI_Errhandler *errhandler));
VBT_MPI_DECL(int, Comm_create_errhandler,
             (MPI_Comm_errhandler_function *comm_errhandler_fn, MPI_Errhandler *errhandler));
VBT_MPI_DECL(int, Comm_call_errhandler, (MPI_Comm comm, int errorcode));
VBT_MPI_DECL(int, Errhandler_free, (MPI_Errhandler *errhandler));
VBT_MPI_DECL(int, Add_error_class, (int *errorclass));
VBT_MPI_DECL(int, Add_error_code, (int errorclass, int *errorcode));
VBT_MPI_DECL(int, Add_error_string, (int errorcode, const char *string));
VBT_MPI_DECL(int, Remove_error_class, (int errorclass));
VBT_MPI_DECL(int, Remove_error_code, (int errorcode));
VBT_MPI_DECL(int, Remove_error_string, (int errorcode));
/* ABI queries (Sec. 21.2) and Fortran type registration (Sec. 21.4.1). */
VBT_MPI_DECL(int, Abi_get_version, (int *abi_major, int *abi_minor));
VBT_MPI_DECL(int, Abi_get_info, (MPI_Info *info));
VBT_MPI_DECL(int, Abi_get_fortran_info, (MPI_Info *info));
VBT_MPI_DECL(int, Abi_set_fortran_info, (MPI_Info info));
VBT_MPI_DECL(int, Abi_get_fortran_booleans,
             (int logical_size, void *logical_true, void *logical_false, int *is_set));
VBT_MPI_DECL(int, Abi_set_fortran_booleans,
             (int logical_size, void *logical_true, void *logical_false));

/* Group "sessions" (Sec. 11.3): the Sessions model, with or without MPI_Init; process sets,
 * their groups, communicators from groups, session error handlers. (MPI_Session_c2f/f2c are
 * not in the C ABI, Sec. 21.4; MPI_Session_toint/fromint would replace them.) */
VBT_MPI_DECL(int, Session_init, (MPI_Info info, MPI_Errhandler errhandler, MPI_Session *session));
VBT_MPI_DECL(int, Session_finalize, (MPI_Session *session));
VBT_MPI_DECL(int, Session_get_num_psets, (MPI_Session session, MPI_Info info, int *npset_names));
VBT_MPI_DECL(int, Session_get_nth_pset,
             (MPI_Session session, MPI_Info info, int n, int *pset_len, char *pset_name));
VBT_MPI_DECL(int, Session_get_info, (MPI_Session session, MPI_Info *info_used));
VBT_MPI_DECL(int, Session_get_pset_info,
             (MPI_Session session, const char *pset_name, MPI_Info *info));
VBT_MPI_DECL(int, Group_from_session_pset,
             (MPI_Session session, const char *pset_name, MPI_Group *newgroup));
VBT_MPI_DECL(int, Comm_create_from_group,
             (MPI_Group group, const char *stringtag, MPI_Info info, MPI_Errhandler errhandler,
              MPI_Comm *newcomm));
VBT_MPI_DECL(int, Session_create_errhandler,
             (MPI_Session_errhandler_function *session_errhandler_fn, MPI_Errhandler *errhandler));
VBT_MPI_DECL(int, Session_set_errhandler, (MPI_Session session, MPI_Errhandler errhandler));
VBT_MPI_DECL(int, Session_get_errhandler, (MPI_Session session, MPI_Errhandler *errhandler));
VBT_MPI_DECL(int, Session_call_errhandler, (MPI_Session session, int errorcode));

/* Group "point-to-point": sends, receives, completion, probes, status queries. */
VBT_MPI_DECL(int, Send,
             (const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm));
VBT_MPI_DECL(int, Send_c,
             (const void *buf, MPI_Count count, MPI_Datatype datatype, int dest, int tag,
              MPI_Comm comm));
VBT_MPI_DECL(int, Recv,
             (void *buf, int count, MPI_Datatype datatype, int source, int tag, MPI_Comm comm,
              MPI_Status *status));
VBT_MPI_DECL(int, Recv_c,
             (void *buf, MPI_Count count, MPI_Datatype datatype, int source, int tag, MPI_Comm comm,
              MPI_Status *status));
VBT_MPI_DECL(int, Isend,
             (const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm,
              MPI_Request *request));
VBT_MPI_DECL(int, Isend_c,
             (const void *buf, MPI_Count count, MPI_Datatype datatype, int dest, int tag,
              MPI_Comm comm, MPI_Request *request));
VBT_MPI_DECL(int, Irecv,
             (void *buf, int count, MPI_Datatype datatype, int source, int tag, MPI_Comm comm,
              MPI_Request *request));
VBT_MPI_DECL(int, Irecv_c,
             (void *buf, MPI_Count count, MPI_Datatype datatype, int source, int tag, MPI_Comm comm,
              MPI_Request *request));
VBT_MPI_DECL(int, Ssend,
             (const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm));
VBT_MPI_DECL(int, Ssend_c,
             (const void *buf, MPI_Count count, MPI_Datatype datatype, int dest, int tag,
              MPI_Comm comm));
VBT_MPI_DECL(int, Issend,
             (const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm,
              MPI_Request *request));
VBT_MPI_DECL(int, Issend_c,
             (const void *buf, MPI_Count count, MPI_Datatype datatype, int dest, int tag,
              MPI_Comm comm, MPI_Request *request));
VBT_MPI_DECL(int, Rsend,
             (const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm));
VBT_MPI_DECL(int, Rsend_c,
             (const void *buf, MPI_Count count, MPI_Datatype datatype, int dest, int tag,
              MPI_Comm comm));
VBT_MPI_DECL(int, Irsend,
             (const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm,
              MPI_Request *request));
VBT_MPI_DECL(int, Irsend_c,
             (const void *buf, MPI_Count count, MPI_Datatype datatype, int dest, int tag,
              MPI_Comm comm, MPI_Request *request));
VBT_MPI_DECL(int, Bsend,
             (const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm));
VBT_MPI_DECL(int, Bsend_c,
             (const void *buf, MPI_Count count, MPI_Datatype datatype, int dest, int tag,
              MPI_Comm comm));
VBT_MPI_DECL(int, Ibsend,
             (const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm,
              MPI_Request *request));
VBT_MPI_DECL(int, Ibsend_c,
             (const void *buf, MPI_Count count, MPI_Datatype datatype, int dest, int tag,
              MPI_Comm comm, MPI_Request *request));
/* buffer_addr is really a void ** passed as void * (standard C binding). */
VBT_MPI_DECL(int, Buffer_attach, (void *buffer, int size));
VBT_MPI_DECL(int, Buffer_attach_c, (void *buffer, MPI_Count size));
VBT_MPI_DECL(int, Buffer_detach, (void *buffer_addr, int *size));
VBT_MPI_DECL(int, Buffer_detach_c, (void *buffer_addr, MPI_Count *size));
VBT_MPI_DECL(int, Buffer_flush, (void));
VBT_MPI_DECL(int, Buffer_iflush, (MPI_Request *request));
VBT_MPI_DECL(int, Comm_attach_buffer, (MPI_Comm comm, void *buffer, int size));
VBT_MPI_DECL(int, Comm_detach_buffer, (MPI_Comm comm, void *buffer_addr, int *size));
VBT_MPI_DECL(int, Comm_flush_buffer, (MPI_Comm comm));
VBT_MPI_DECL(int, Comm_iflush_buffer, (MPI_Comm comm, MPI_Request *request));
VBT_MPI_DECL(int, Session_attach_buffer, (MPI_Session session, void *buffer, int size));
VBT_MPI_DECL(int, Session_detach_buffer, (MPI_Session session, void *buffer_addr, int *size));
VBT_MPI_DECL(int, Session_flush_buffer, (MPI_Session session));
VBT_MPI_DECL(int, Session_iflush_buffer, (MPI_Session session, MPI_Request *request));
VBT_MPI_DECL(int, Comm_attach_buffer_c, (MPI_Comm comm, void *buffer, MPI_Count size));
VBT_MPI_DECL(int, Comm_detach_buffer_c, (MPI_Comm comm, void *buffer_addr, MPI_Count *size));
VBT_MPI_DECL(int, Session_attach_buffer_c, (MPI_Session session, void *buffer, MPI_Count size));
VBT_MPI_DECL(int, Session_detach_buffer_c,
             (MPI_Session session, void *buffer_addr, MPI_Count *size));
VBT_MPI_DECL(int, Sendrecv,
             (const void *sendbuf, int sendcount, MPI_Datatype sendtype, int dest, int sendtag,
              void *recvbuf, int recvcount, MPI_Datatype recvtype, int source, int recvtag,
              MPI_Comm comm, MPI_Status *status));
VBT_MPI_DECL(int, Sendrecv_c,
             (const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, int dest,
              int sendtag, void *recvbuf, MPI_Count recvcount, MPI_Datatype recvtype, int source,
              int recvtag, MPI_Comm comm, MPI_Status *status));
VBT_MPI_DECL(int, Sendrecv_replace,
             (void *buf, int count, MPI_Datatype datatype, int dest, int sendtag, int source,
              int recvtag, MPI_Comm comm, MPI_Status *status));
VBT_MPI_DECL(int, Sendrecv_replace_c,
             (void *buf, MPI_Count count, MPI_Datatype datatype, int dest, int sendtag, int source,
              int recvtag, MPI_Comm comm, MPI_Status *status));
VBT_MPI_DECL(int, Wait, (MPI_Request *request, MPI_Status *status));
VBT_MPI_DECL(int, Waitall,
             (int count, MPI_Request array_of_requests[], MPI_Status *array_of_statuses));
VBT_MPI_DECL(int, Waitany,
             (int count, MPI_Request array_of_requests[], int *indx, MPI_Status *status));
VBT_MPI_DECL(int, Waitsome,
             (int incount, MPI_Request array_of_requests[], int *outcount, int array_of_indices[],
              MPI_Status *array_of_statuses));
VBT_MPI_DECL(int, Test, (MPI_Request *request, int *flag, MPI_Status *status));
VBT_MPI_DECL(int, Testall,
             (int count, MPI_Request array_of_requests[], int *flag,
              MPI_Status *array_of_statuses));
VBT_MPI_DECL(int, Testany,
             (int count, MPI_Request array_of_requests[], int *indx, int *flag,
              MPI_Status *status));
VBT_MPI_DECL(int, Testsome,
             (int incount, MPI_Request array_of_requests[], int *outcount, int array_of_indices[],
              MPI_Status *array_of_statuses));
VBT_MPI_DECL(int, Probe, (int source, int tag, MPI_Comm comm, MPI_Status *status));
VBT_MPI_DECL(int, Iprobe, (int source, int tag, MPI_Comm comm, int *flag, MPI_Status *status));
VBT_MPI_DECL(int, Mprobe,
             (int source, int tag, MPI_Comm comm, MPI_Message *message, MPI_Status *status));
VBT_MPI_DECL(int, Improbe,
             (int source, int tag, MPI_Comm comm, int *flag, MPI_Message *message,
              MPI_Status *status));
VBT_MPI_DECL(int, Mrecv,
             (void *buf, int count, MPI_Datatype datatype, MPI_Message *message,
              MPI_Status *status));
VBT_MPI_DECL(int, Mrecv_c,
             (void *buf, MPI_Count count, MPI_Datatype datatype, MPI_Message *message,
              MPI_Status *status));
VBT_MPI_DECL(int, Imrecv,
             (void *buf, int count, MPI_Datatype datatype, MPI_Message *message,
              MPI_Request *request));
VBT_MPI_DECL(int, Imrecv_c,
             (void *buf, MPI_Count count, MPI_Datatype datatype, MPI_Message *message,
              MPI_Request *request));
VBT_MPI_DECL(int, Request_free, (MPI_Request *request));
VBT_MPI_DECL(int, Cancel, (MPI_Request *request));
VBT_MPI_DECL(int, Test_cancelled, (const MPI_Status *status, int *flag));
/* Persistent point-to-point (MPI-4.1 3.9). */
VBT_MPI_DECL(int, Send_init,
             (const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm,
              MPI_Request *request));
VBT_MPI_DECL(int, Send_init_c,
             (const void *buf, MPI_Count count, MPI_Datatype datatype, int dest, int tag,
              MPI_Comm comm, MPI_Request *request));
VBT_MPI_DECL(int, Bsend_init,
             (const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm,
              MPI_Request *request));
VBT_MPI_DECL(int, Bsend_init_c,
             (const void *buf, MPI_Count count, MPI_Datatype datatype, int dest, int tag,
              MPI_Comm comm, MPI_Request *request));
VBT_MPI_DECL(int, Ssend_init,
             (const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm,
              MPI_Request *request));
VBT_MPI_DECL(int, Ssend_init_c,
             (const void *buf, MPI_Count count, MPI_Datatype datatype, int dest, int tag,
              MPI_Comm comm, MPI_Request *request));
VBT_MPI_DECL(int, Rsend_init,
             (const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm,
              MPI_Request *request));
VBT_MPI_DECL(int, Rsend_init_c,
             (const void *buf, MPI_Count count, MPI_Datatype datatype, int dest, int tag,
              MPI_Comm comm, MPI_Request *request));
VBT_MPI_DECL(int, Recv_init,
             (void *buf, int count, MPI_Datatype datatype, int source, int tag, MPI_Comm comm,
              MPI_Request *request));
VBT_MPI_DECL(int, Recv_init_c,
             (void *buf, MPI_Count count, MPI_Datatype datatype, int source, int tag, MPI_Comm comm,
              MPI_Request *request));
VBT_MPI_DECL(int, Start, (MPI_Request *request));
VBT_MPI_DECL(int, Startall, (int count, MPI_Request array_of_requests[]));
VBT_MPI_DECL(int, Isendrecv,
             (const void *sendbuf, int sendcount, MPI_Datatype sendtype, int dest, int sendtag,
              void *recvbuf, int recvcount, MPI_Datatype recvtype, int source, int recvtag,
              MPI_Comm comm, MPI_Request *request));
VBT_MPI_DECL(int, Isendrecv_c,
             (const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, int dest,
              int sendtag, void *recvbuf, MPI_Count recvcount, MPI_Datatype recvtype, int source,
              int recvtag, MPI_Comm comm, MPI_Request *request));
VBT_MPI_DECL(int, Isendrecv_replace,
             (void *buf, int count, MPI_Datatype datatype, int dest, int sendtag, int source,
              int recvtag, MPI_Comm comm, MPI_Request *request));
VBT_MPI_DECL(int, Isendrecv_replace_c,
             (void *buf, MPI_Count count, MPI_Datatype datatype, int dest, int sendtag, int source,
              int recvtag, MPI_Comm comm, MPI_Request *request));
VBT_MPI_DECL(int, Request_get_status, (MPI_Request request, int *flag, MPI_Status *status));
VBT_MPI_DECL(int, Request_get_status_any,
             (int count, const MPI_Request array_of_requests[], int *indx, int *flag,
              MPI_Status *status));
VBT_MPI_DECL(int, Request_get_status_all,
             (int count, const MPI_Request array_of_requests[], int *flag,
              MPI_Status array_of_statuses[]));
VBT_MPI_DECL(int, Request_get_status_some,
             (int incount, const MPI_Request array_of_requests[], int *outcount,
              int array_of_indices[], MPI_Status array_of_statuses[]));
/* Generalized requests (MPI-4.1 13.2) and the status setters (13.3). */
VBT_MPI_DECL(int, Grequest_start,
             (MPI_Grequest_query_function *query_fn, MPI_Grequest_free_function *free_fn,
              MPI_Grequest_cancel_function *cancel_fn, void *extra_state, MPI_Request *request));
VBT_MPI_DECL(int, Grequest_complete, (MPI_Request request));
VBT_MPI_DECL(int, Status_set_elements, (MPI_Status *status, MPI_Datatype datatype, int count));
VBT_MPI_DECL(int, Status_set_elements_x,
             (MPI_Status *status, MPI_Datatype datatype, MPI_Count count));
VBT_MPI_DECL(int, Status_set_cancelled, (MPI_Status *status, int flag));
/* Partitioned communication (MPI-4.1 chapter 4). */
VBT_MPI_DECL(int, Psend_init,
             (const void *buf, int partitions, MPI_Count count, MPI_Datatype datatype, int dest,
              int tag, MPI_Comm comm, MPI_Info info, MPI_Request *request));
VBT_MPI_DECL(int, Precv_init,
             (void *buf, int partitions, MPI_Count count, MPI_Datatype datatype, int source,
              int tag, MPI_Comm comm, MPI_Info info, MPI_Request *request));
VBT_MPI_DECL(int, Pready, (int partition, MPI_Request request));
VBT_MPI_DECL(int, Pready_range, (int partition_low, int partition_high, MPI_Request request));
VBT_MPI_DECL(int, Pready_list, (int length, const int array_of_partitions[], MPI_Request request));
VBT_MPI_DECL(int, Parrived, (MPI_Request request, int partition, int *flag));
VBT_MPI_DECL(int, Get_count, (const MPI_Status *status, MPI_Datatype datatype, int *count));
VBT_MPI_DECL(int, Get_count_c, (const MPI_Status *status, MPI_Datatype datatype, MPI_Count *count));
VBT_MPI_DECL(int, Get_elements, (const MPI_Status *status, MPI_Datatype datatype, int *count));
VBT_MPI_DECL(int, Get_elements_c,
             (const MPI_Status *status, MPI_Datatype datatype, MPI_Count *count));
/* Deprecated in MPI-4.1 (use the _c variant); still part of the ABI. */
VBT_MPI_DECL(int, Get_elements_x,
             (const MPI_Status *status, MPI_Datatype datatype, MPI_Count *count));
VBT_MPI_DECL(int, Type_size, (MPI_Datatype datatype, int *size));
VBT_MPI_DECL(int, Type_size_c, (MPI_Datatype datatype, MPI_Count *size));
VBT_MPI_DECL(int, Barrier, (MPI_Comm comm));

/* Group "collectives": blocking collectives on intracommunicators (MPI_Barrier is above). */
VBT_MPI_DECL(int, Bcast,
             (void *buffer, int count, MPI_Datatype datatype, int root, MPI_Comm comm));
VBT_MPI_DECL(int, Bcast_c,
             (void *buffer, MPI_Count count, MPI_Datatype datatype, int root, MPI_Comm comm));
VBT_MPI_DECL(int, Reduce,
             (const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
              int root, MPI_Comm comm));
VBT_MPI_DECL(int, Reduce_c,
             (const void *sendbuf, void *recvbuf, MPI_Count count, MPI_Datatype datatype, MPI_Op op,
              int root, MPI_Comm comm));
VBT_MPI_DECL(int, Allreduce,
             (const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
              MPI_Comm comm));
VBT_MPI_DECL(int, Allreduce_c,
             (const void *sendbuf, void *recvbuf, MPI_Count count, MPI_Datatype datatype, MPI_Op op,
              MPI_Comm comm));
VBT_MPI_DECL(int, Gather,
             (const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
              int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm));
VBT_MPI_DECL(int, Gather_c,
             (const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void *recvbuf,
              MPI_Count recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm));
VBT_MPI_DECL(int, Gatherv,
             (const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
              const int recvcounts[], const int displs[], MPI_Datatype recvtype, int root,
              MPI_Comm comm));
VBT_MPI_DECL(int, Gatherv_c,
             (const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void *recvbuf,
              const MPI_Count recvcounts[], const MPI_Aint displs[], MPI_Datatype recvtype,
              int root, MPI_Comm comm));
VBT_MPI_DECL(int, Scatter,
             (const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
              int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm));
VBT_MPI_DECL(int, Scatter_c,
             (const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void *recvbuf,
              MPI_Count recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm));
VBT_MPI_DECL(int, Scatterv,
             (const void *sendbuf, const int sendcounts[], const int displs[],
              MPI_Datatype sendtype, void *recvbuf, int recvcount, MPI_Datatype recvtype,
              int root, MPI_Comm comm));
VBT_MPI_DECL(int, Scatterv_c,
             (const void *sendbuf, const MPI_Count sendcounts[], const MPI_Aint displs[],
              MPI_Datatype sendtype, void *recvbuf, MPI_Count recvcount, MPI_Datatype recvtype,
              int root, MPI_Comm comm));
VBT_MPI_DECL(int, Allgather,
             (const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
              int recvcount, MPI_Datatype recvtype, MPI_Comm comm));
VBT_MPI_DECL(int, Allgather_c,
             (const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void *recvbuf,
              MPI_Count recvcount, MPI_Datatype recvtype, MPI_Comm comm));
VBT_MPI_DECL(int, Allgatherv,
             (const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
              const int recvcounts[], const int displs[], MPI_Datatype recvtype,
              MPI_Comm comm));
VBT_MPI_DECL(int, Allgatherv_c,
             (const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void *recvbuf,
              const MPI_Count recvcounts[], const MPI_Aint displs[], MPI_Datatype recvtype,
              MPI_Comm comm));
VBT_MPI_DECL(int, Alltoall,
             (const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
              int recvcount, MPI_Datatype recvtype, MPI_Comm comm));
VBT_MPI_DECL(int, Alltoall_c,
             (const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void *recvbuf,
              MPI_Count recvcount, MPI_Datatype recvtype, MPI_Comm comm));
VBT_MPI_DECL(int, Alltoallv,
             (const void *sendbuf, const int sendcounts[], const int sdispls[],
              MPI_Datatype sendtype, void *recvbuf, const int recvcounts[], const int rdispls[],
              MPI_Datatype recvtype, MPI_Comm comm));
VBT_MPI_DECL(int, Alltoallv_c,
             (const void *sendbuf, const MPI_Count sendcounts[], const MPI_Aint sdispls[],
              MPI_Datatype sendtype, void *recvbuf, const MPI_Count recvcounts[],
              const MPI_Aint rdispls[], MPI_Datatype recvtype, MPI_Comm comm));
VBT_MPI_DECL(int, Alltoallw,
             (const void *sendbuf, const int sendcounts[], const int sdispls[],
              const MPI_Datatype sendtypes[], void *recvbuf, const int recvcounts[],
              const int rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm));
VBT_MPI_DECL(int, Alltoallw_c,
             (const void *sendbuf, const MPI_Count sendcounts[], const MPI_Aint sdispls[],
              const MPI_Datatype sendtypes[], void *recvbuf, const MPI_Count recvcounts[],
              const MPI_Aint rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm));
VBT_MPI_DECL(int, Reduce_scatter,
             (const void *sendbuf, void *recvbuf, const int recvcounts[], MPI_Datatype datatype,
              MPI_Op op, MPI_Comm comm));
VBT_MPI_DECL(int, Reduce_scatter_c,
             (const void *sendbuf, void *recvbuf, const MPI_Count recvcounts[],
              MPI_Datatype datatype, MPI_Op op, MPI_Comm comm));
VBT_MPI_DECL(int, Reduce_scatter_block,
             (const void *sendbuf, void *recvbuf, int recvcount, MPI_Datatype datatype,
              MPI_Op op, MPI_Comm comm));
VBT_MPI_DECL(int, Reduce_scatter_block_c,
             (const void *sendbuf, void *recvbuf, MPI_Count recvcount, MPI_Datatype datatype,
              MPI_Op op, MPI_Comm comm));
VBT_MPI_DECL(int, Scan,
             (const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
              MPI_Comm comm));
VBT_MPI_DECL(int, Scan_c,
             (const void *sendbuf, void *recvbuf, MPI_Count count, MPI_Datatype datatype, MPI_Op op,
              MPI_Comm comm));
VBT_MPI_DECL(int, Exscan,
             (const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
              MPI_Comm comm));
VBT_MPI_DECL(int, Exscan_c,
             (const void *sendbuf, void *recvbuf, MPI_Count count, MPI_Datatype datatype, MPI_Op op,
              MPI_Comm comm));
/* Neighborhood collectives: over a communicator's Cartesian, graph or distributed graph
 * topology. */
VBT_MPI_DECL(int, Neighbor_allgather,
             (const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
              int recvcount, MPI_Datatype recvtype, MPI_Comm comm));
VBT_MPI_DECL(int, Neighbor_allgather_c,
             (const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void *recvbuf,
              MPI_Count recvcount, MPI_Datatype recvtype, MPI_Comm comm));
VBT_MPI_DECL(int, Neighbor_allgatherv,
             (const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
              const int recvcounts[], const int displs[], MPI_Datatype recvtype,
              MPI_Comm comm));
VBT_MPI_DECL(int, Neighbor_allgatherv_c,
             (const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void *recvbuf,
              const MPI_Count recvcounts[], const MPI_Aint displs[], MPI_Datatype recvtype,
              MPI_Comm comm));
VBT_MPI_DECL(int, Neighbor_alltoall,
             (const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
              int recvcount, MPI_Datatype recvtype, MPI_Comm comm));
VBT_MPI_DECL(int, Neighbor_alltoall_c,
             (const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void *recvbuf,
              MPI_Count recvcount, MPI_Datatype recvtype, MPI_Comm comm));
VBT_MPI_DECL(int, Neighbor_alltoallv,
             (const void *sendbuf, const int sendcounts[], const int sdispls[],
              MPI_Datatype sendtype, void *recvbuf, const int recvcounts[], const int rdispls[],
              MPI_Datatype recvtype, MPI_Comm comm));
VBT_MPI_DECL(int, Neighbor_alltoallv_c,
             (const void *sendbuf, const MPI_Count sendcounts[], const MPI_Aint sdispls[],
              MPI_Datatype sendtype, void *recvbuf, const MPI_Count recvcounts[],
              const MPI_Aint rdispls[], MPI_Datatype recvtype, MPI_Comm comm));
VBT_MPI_DECL(int, Neighbor_alltoallw,
             (const void *sendbuf, const int sendcounts[], const MPI_Aint sdispls[],
              const MPI_Datatype sendtypes[], void *recvbuf, const int recvcounts[],
              const MPI_Aint rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm));
VBT_MPI_DECL(int, Neighbor_alltoallw_c,
             (const void *sendbuf, const MPI_Count sendcounts[], const MPI_Aint sdispls[],
              const MPI_Datatype sendtypes[], void *recvbuf, const MPI_Count recvcounts[],
              const MPI_Aint rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm));

/* Nonblocking collectives (MPI-4.1 Sec. 6.12) and persistent collectives (Sec. 6.13). */
VBT_MPI_DECL(int, Ibarrier, (MPI_Comm comm, MPI_Request *request));
VBT_MPI_DECL(int, Barrier_init, (MPI_Comm comm, MPI_Info info, MPI_Request *request));
VBT_MPI_DECL(int, Ibcast,
             (void *buffer, int count, MPI_Datatype datatype, int root, MPI_Comm comm, MPI_Request *request));
VBT_MPI_DECL(int, Ibcast_c,
             (void *buffer, MPI_Count count, MPI_Datatype datatype, int root, MPI_Comm comm,
              MPI_Request *request));
VBT_MPI_DECL(int, Bcast_init,
             (void *buffer, int count, MPI_Datatype datatype, int root, MPI_Comm comm, MPI_Info info,
              MPI_Request *request));
VBT_MPI_DECL(int, Bcast_init_c,
             (void *buffer, MPI_Count count, MPI_Datatype datatype, int root, MPI_Comm comm,
              MPI_Info info, MPI_Request *request));
VBT_MPI_DECL(int, Ireduce,
             (const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
              int root, MPI_Comm comm, MPI_Request *request));
VBT_MPI_DECL(int, Ireduce_c,
             (const void *sendbuf, void *recvbuf, MPI_Count count, MPI_Datatype datatype, MPI_Op op,
              int root, MPI_Comm comm, MPI_Request *request));
VBT_MPI_DECL(int, Reduce_init,
             (const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
              int root, MPI_Comm comm, MPI_Info info,
              MPI_Request *request));
VBT_MPI_DECL(int, Reduce_init_c,
             (const void *sendbuf, void *recvbuf, MPI_Count count, MPI_Datatype datatype, MPI_Op op,
              int root, MPI_Comm comm, MPI_Info info, MPI_Request *request));
VBT_MPI_DECL(int, Iallreduce,
             (const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
              MPI_Comm comm, MPI_Request *request));
VBT_MPI_DECL(int, Iallreduce_c,
             (const void *sendbuf, void *recvbuf, MPI_Count count, MPI_Datatype datatype, MPI_Op op,
              MPI_Comm comm, MPI_Request *request));
VBT_MPI_DECL(int, Allreduce_init,
             (const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
              MPI_Comm comm, MPI_Info info,
              MPI_Request *request));
VBT_MPI_DECL(int, Allreduce_init_c,
             (const void *sendbuf, void *recvbuf, MPI_Count count, MPI_Datatype datatype, MPI_Op op,
              MPI_Comm comm, MPI_Info info, MPI_Request *request));
VBT_MPI_DECL(int, Igather,
             (const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
              int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm, MPI_Request *request));
VBT_MPI_DECL(int, Igather_c,
             (const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void *recvbuf,
              MPI_Count recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm,
              MPI_Request *request));
VBT_MPI_DECL(int, Gather_init,
             (const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
              int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm, MPI_Info info,
              MPI_Request *request));
VBT_MPI_DECL(int, Gather_init_c,
             (const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void *recvbuf,
              MPI_Count recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm, MPI_Info info,
              MPI_Request *request));
VBT_MPI_DECL(int, Igatherv,
             (const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
              const int recvcounts[], const int displs[], MPI_Datatype recvtype, int root,
              MPI_Comm comm, MPI_Request *request));
VBT_MPI_DECL(int, Igatherv_c,
             (const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void *recvbuf,
              const MPI_Count recvcounts[], const MPI_Aint displs[], MPI_Datatype recvtype,
              int root, MPI_Comm comm, MPI_Request *request));
VBT_MPI_DECL(int, Gatherv_init,
             (const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
              const int recvcounts[], const int displs[], MPI_Datatype recvtype, int root,
              MPI_Comm comm, MPI_Info info,
              MPI_Request *request));
VBT_MPI_DECL(int, Gatherv_init_c,
             (const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void *recvbuf,
              const MPI_Count recvcounts[], const MPI_Aint displs[], MPI_Datatype recvtype,
              int root, MPI_Comm comm, MPI_Info info, MPI_Request *request));
VBT_MPI_DECL(int, Iscatter,
             (const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
              int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm, MPI_Request *request));
VBT_MPI_DECL(int, Iscatter_c,
             (const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void *recvbuf,
              MPI_Count recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm,
              MPI_Request *request));
VBT_MPI_DECL(int, Scatter_init,
             (const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
              int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm, MPI_Info info,
              MPI_Request *request));
VBT_MPI_DECL(int, Scatter_init_c,
             (const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void *recvbuf,
              MPI_Count recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm, MPI_Info info,
              MPI_Request *request));
VBT_MPI_DECL(int, Iscatterv,
             (const void *sendbuf, const int sendcounts[], const int displs[],
              MPI_Datatype sendtype, void *recvbuf, int recvcount, MPI_Datatype recvtype,
              int root, MPI_Comm comm, MPI_Request *request));
VBT_MPI_DECL(int, Iscatterv_c,
             (const void *sendbuf, const MPI_Count sendcounts[], const MPI_Aint displs[],
              MPI_Datatype sendtype, void *recvbuf, MPI_Count recvcount, MPI_Datatype recvtype,
              int root, MPI_Comm comm, MPI_Request *request));
VBT_MPI_DECL(int, Scatterv_init,
             (const void *sendbuf, const int sendcounts[], const int displs[],
              MPI_Datatype sendtype, void *recvbuf, int recvcount, MPI_Datatype recvtype,
              int root, MPI_Comm comm, MPI_Info info,
              MPI_Request *request));
VBT_MPI_DECL(int, Scatterv_init_c,
             (const void *sendbuf, const MPI_Count sendcounts[], const MPI_Aint displs[],
              MPI_Datatype sendtype, void *recvbuf, MPI_Count recvcount, MPI_Datatype recvtype,
              int root, MPI_Comm comm, MPI_Info info, MPI_Request *request));
VBT_MPI_DECL(int, Iallgather,
             (const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
              int recvcount, MPI_Datatype recvtype, MPI_Comm comm, MPI_Request *request));
VBT_MPI_DECL(int, Iallgather_c,
             (const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void *recvbuf,
              MPI_Count recvcount, MPI_Datatype recvtype, MPI_Comm comm, MPI_Request *request));
VBT_MPI_DECL(int, Allgather_init,
             (const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
              int recvcount, MPI_Datatype recvtype, MPI_Comm comm, MPI_Info info,
              MPI_Request *request));
VBT_MPI_DECL(int, Allgather_init_c,
             (const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void *recvbuf,
              MPI_Count recvcount, MPI_Datatype recvtype, MPI_Comm comm, MPI_Info info,
              MPI_Request *request));
VBT_MPI_DECL(int, Iallgatherv,
             (const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
              const int recvcounts[], const int displs[], MPI_Datatype recvtype,
              MPI_Comm comm, MPI_Request *request));
VBT_MPI_DECL(int, Iallgatherv_c,
             (const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void *recvbuf,
              const MPI_Count recvcounts[], const MPI_Aint displs[], MPI_Datatype recvtype,
              MPI_Comm comm, MPI_Request *request));
VBT_MPI_DECL(int, Allgatherv_init,
             (const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
              const int recvcounts[], const int displs[], MPI_Datatype recvtype,
              MPI_Comm comm, MPI_Info info,
              MPI_Request *request));
VBT_MPI_DECL(int, Allgatherv_init_c,
             (const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void *recvbuf,
              const MPI_Count recvcounts[], const MPI_Aint displs[], MPI_Datatype recvtype,
              MPI_Comm comm, MPI_Info info, MPI_Request *request));
VBT_MPI_DECL(int, Ialltoall,
             (const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
              int recvcount, MPI_Datatype recvtype, MPI_Comm comm, MPI_Request *request));
VBT_MPI_DECL(int, Ialltoall_c,
             (const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void *recvbuf,
              MPI_Count recvcount, MPI_Datatype recvtype, MPI_Comm comm, MPI_Request *request));
VBT_MPI_DECL(int, Alltoall_init,
             (const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
              int recvcount, MPI_Datatype recvtype, MPI_Comm comm, MPI_Info info,
              MPI_Request *request));
VBT_MPI_DECL(int, Alltoall_init_c,
             (const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void *recvbuf,
              MPI_Count recvcount, MPI_Datatype recvtype, MPI_Comm comm, MPI_Info info,
              MPI_Request *request));
VBT_MPI_DECL(int, Ialltoallv,
             (const void *sendbuf, const int sendcounts[], const int sdispls[],
              MPI_Datatype sendtype, void *recvbuf, const int recvcounts[], const int rdispls[],
              MPI_Datatype recvtype, MPI_Comm comm, MPI_Request *request));
VBT_MPI_DECL(int, Ialltoallv_c,
             (const void *sendbuf, const MPI_Count sendcounts[], const MPI_Aint sdispls[],
              MPI_Datatype sendtype, void *recvbuf, const MPI_Count recvcounts[],
              const MPI_Aint rdispls[], MPI_Datatype recvtype, MPI_Comm comm,
              MPI_Request *request));
VBT_MPI_DECL(int, Alltoallv_init,
             (const void *sendbuf, const int sendcounts[], const int sdispls[],
              MPI_Datatype sendtype, void *recvbuf, const int recvcounts[], const int rdispls[],
              MPI_Datatype recvtype, MPI_Comm comm, MPI_Info info,
              MPI_Request *request));
VBT_MPI_DECL(int, Alltoallv_init_c,
             (const void *sendbuf, const MPI_Count sendcounts[], const MPI_Aint sdispls[],
              MPI_Datatype sendtype, void *recvbuf, const MPI_Count recvcounts[],
              const MPI_Aint rdispls[], MPI_Datatype recvtype, MPI_Comm comm, MPI_Info info,
              MPI_Request *request));
VBT_MPI_DECL(int, Ialltoallw,
             (const void *sendbuf, const int sendcounts[], const int sdispls[],
              const MPI_Datatype sendtypes[], void *recvbuf, const int recvcounts[],
              const int rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm, MPI_Request *request));
VBT_MPI_DECL(int, Ialltoallw_c,
             (const void *sendbuf, const MPI_Count sendcounts[], const MPI_Aint sdispls[],
              const MPI_Datatype sendtypes[], void *recvbuf, const MPI_Count recvcounts[],
              const MPI_Aint rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm,
              MPI_Request *request));
VBT_MPI_DECL(int, Alltoallw_init,
             (const void *sendbuf, const int sendcounts[], const int sdispls[],
              const MPI_Datatype sendtypes[], void *recvbuf, const int recvcounts[],
              const int rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm, MPI_Info info,
              MPI_Request *request));
VBT_MPI_DECL(int, Alltoallw_init_c,
             (const void *sendbuf, const MPI_Count sendcounts[], const MPI_Aint sdispls[],
              const MPI_Datatype sendtypes[], void *recvbuf, const MPI_Count recvcounts[],
              const MPI_Aint rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm,
              MPI_Info info, MPI_Request *request));
VBT_MPI_DECL(int, Ireduce_scatter,
             (const void *sendbuf, void *recvbuf, const int recvcounts[], MPI_Datatype datatype,
              MPI_Op op, MPI_Comm comm, MPI_Request *request));
VBT_MPI_DECL(int, Ireduce_scatter_c,
             (const void *sendbuf, void *recvbuf, const MPI_Count recvcounts[],
              MPI_Datatype datatype, MPI_Op op, MPI_Comm comm, MPI_Request *request));
VBT_MPI_DECL(int, Reduce_scatter_init,
             (const void *sendbuf, void *recvbuf, const int recvcounts[], MPI_Datatype datatype,
              MPI_Op op, MPI_Comm comm, MPI_Info info,
              MPI_Request *request));
VBT_MPI_DECL(int, Reduce_scatter_init_c,
             (const void *sendbuf, void *recvbuf, const MPI_Count recvcounts[],
              MPI_Datatype datatype, MPI_Op op, MPI_Comm comm, MPI_Info info,
              MPI_Request *request));
VBT_MPI_DECL(int, Ireduce_scatter_block,
             (const void *sendbuf, void *recvbuf, int recvcount, MPI_Datatype datatype,
              MPI_Op op, MPI_Comm comm, MPI_Request *request));
VBT_MPI_DECL(int, Ireduce_scatter_block_c,
             (const void *sendbuf, void *recvbuf, MPI_Count recvcount, MPI_Datatype datatype,
              MPI_Op op, MPI_Comm comm, MPI_Request *request));
VBT_MPI_DECL(int, Reduce_scatter_block_init,
             (const void *sendbuf, void *recvbuf, int recvcount, MPI_Datatype datatype,
              MPI_Op op, MPI_Comm comm, MPI_Info info,
              MPI_Request *request));
VBT_MPI_DECL(int, Reduce_scatter_block_init_c,
             (const void *sendbuf, void *recvbuf, MPI_Count recvcount, MPI_Datatype datatype,
              MPI_Op op, MPI_Comm comm, MPI_Info info, MPI_Request *request));
VBT_MPI_DECL(int, Iscan,
             (const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
              MPI_Comm comm, MPI_Request *request));
VBT_MPI_DECL(int, Iscan_c,
             (const void *sendbuf, void *recvbuf, MPI_Count count, MPI_Datatype datatype, MPI_Op op,
              MPI_Comm comm, MPI_Request *request));
VBT_MPI_DECL(int, Scan_init,
             (const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
              MPI_Comm comm, MPI_Info info,
              MPI_Request *request));
VBT_MPI_DECL(int, Scan_init_c,
             (const void *sendbuf, void *recvbuf, MPI_Count count, MPI_Datatype datatype, MPI_Op op,
              MPI_Comm comm, MPI_Info info, MPI_Request *request));
VBT_MPI_DECL(int, Iexscan,
             (const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
              MPI_Comm comm, MPI_Request *request));
VBT_MPI_DECL(int, Iexscan_c,
             (const void *sendbuf, void *recvbuf, MPI_Count count, MPI_Datatype datatype, MPI_Op op,
              MPI_Comm comm, MPI_Request *request));
VBT_MPI_DECL(int, Exscan_init,
             (const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
              MPI_Comm comm, MPI_Info info,
              MPI_Request *request));
VBT_MPI_DECL(int, Exscan_init_c,
             (const void *sendbuf, void *recvbuf, MPI_Count count, MPI_Datatype datatype, MPI_Op op,
              MPI_Comm comm, MPI_Info info, MPI_Request *request));
VBT_MPI_DECL(int, Ineighbor_allgather,
             (const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
              int recvcount, MPI_Datatype recvtype, MPI_Comm comm, MPI_Request *request));
VBT_MPI_DECL(int, Ineighbor_allgather_c,
             (const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void *recvbuf,
              MPI_Count recvcount, MPI_Datatype recvtype, MPI_Comm comm, MPI_Request *request));
VBT_MPI_DECL(int, Neighbor_allgather_init,
             (const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
              int recvcount, MPI_Datatype recvtype, MPI_Comm comm, MPI_Info info,
              MPI_Request *request));
VBT_MPI_DECL(int, Neighbor_allgather_init_c,
             (const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void *recvbuf,
              MPI_Count recvcount, MPI_Datatype recvtype, MPI_Comm comm, MPI_Info info,
              MPI_Request *request));
VBT_MPI_DECL(int, Ineighbor_allgatherv,
             (const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
              const int recvcounts[], const int displs[], MPI_Datatype recvtype,
              MPI_Comm comm, MPI_Request *request));
VBT_MPI_DECL(int, Ineighbor_allgatherv_c,
             (const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void *recvbuf,
              const MPI_Count recvcounts[], const MPI_Aint displs[], MPI_Datatype recvtype,
              MPI_Comm comm, MPI_Request *request));
VBT_MPI_DECL(int, Neighbor_allgatherv_init,
             (const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
              const int recvcounts[], const int displs[], MPI_Datatype recvtype,
              MPI_Comm comm, MPI_Info info,
              MPI_Request *request));
VBT_MPI_DECL(int, Neighbor_allgatherv_init_c,
             (const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void *recvbuf,
              const MPI_Count recvcounts[], const MPI_Aint displs[], MPI_Datatype recvtype,
              MPI_Comm comm, MPI_Info info, MPI_Request *request));
VBT_MPI_DECL(int, Ineighbor_alltoall,
             (const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
              int recvcount, MPI_Datatype recvtype, MPI_Comm comm, MPI_Request *request));
VBT_MPI_DECL(int, Ineighbor_alltoall_c,
             (const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void *recvbuf,
              MPI_Count recvcount, MPI_Datatype recvtype, MPI_Comm comm, MPI_Request *request));
VBT_MPI_DECL(int, Neighbor_alltoall_init,
             (const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
              int recvcount, MPI_Datatype recvtype, MPI_Comm comm, MPI_Info info,
              MPI_Request *request));
VBT_MPI_DECL(int, Neighbor_alltoall_init_c,
             (const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void *recvbuf,
              MPI_Count recvcount, MPI_Datatype recvtype, MPI_Comm comm, MPI_Info info,
              MPI_Request *request));
VBT_MPI_DECL(int, Ineighbor_alltoallv,
             (const void *sendbuf, const int sendcounts[], const int sdispls[],
              MPI_Datatype sendtype, void *recvbuf, const int recvcounts[], const int rdispls[],
              MPI_Datatype recvtype, MPI_Comm comm, MPI_Request *request));
VBT_MPI_DECL(int, Ineighbor_alltoallv_c,
             (const void *sendbuf, const MPI_Count sendcounts[], const MPI_Aint sdispls[],
              MPI_Datatype sendtype, void *recvbuf, const MPI_Count recvcounts[],
              const MPI_Aint rdispls[], MPI_Datatype recvtype, MPI_Comm comm,
              MPI_Request *request));
VBT_MPI_DECL(int, Neighbor_alltoallv_init,
             (const void *sendbuf, const int sendcounts[], const int sdispls[],
              MPI_Datatype sendtype, void *recvbuf, const int recvcounts[], const int rdispls[],
              MPI_Datatype recvtype, MPI_Comm comm, MPI_Info info,
              MPI_Request *request));
VBT_MPI_DECL(int, Neighbor_alltoallv_init_c,
             (const void *sendbuf, const MPI_Count sendcounts[], const MPI_Aint sdispls[],
              MPI_Datatype sendtype, void *recvbuf, const MPI_Count recvcounts[],
              const MPI_Aint rdispls[], MPI_Datatype recvtype, MPI_Comm comm, MPI_Info info,
              MPI_Request *request));
VBT_MPI_DECL(int, Ineighbor_alltoallw,
             (const void *sendbuf, const int sendcounts[], const MPI_Aint sdispls[],
              const MPI_Datatype sendtypes[], void *recvbuf, const int recvcounts[],
              const MPI_Aint rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm, MPI_Request *request));
VBT_MPI_DECL(int, Ineighbor_alltoallw_c,
             (const void *sendbuf, const MPI_Count sendcounts[], const MPI_Aint sdispls[],
              const MPI_Datatype sendtypes[], void *recvbuf, const MPI_Count recvcounts[],
              const MPI_Aint rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm,
              MPI_Request *request));
VBT_MPI_DECL(int, Neighbor_alltoallw_init,
             (const void *sendbuf, const int sendcounts[], const MPI_Aint sdispls[],
              const MPI_Datatype sendtypes[], void *recvbuf, const int recvcounts[],
              const MPI_Aint rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm, MPI_Info info,
              MPI_Request *request));
VBT_MPI_DECL(int, Neighbor_alltoallw_init_c,
             (const void *sendbuf, const MPI_Count sendcounts[], const MPI_Aint sdispls[],
              const MPI_Datatype sendtypes[], void *recvbuf, const MPI_Count recvcounts[],
              const MPI_Aint rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm,
              MPI_Info info, MPI_Request *request));
/* Persistent requests. */
VBT_MPI_DECL(int, Start, (MPI_Request *request));
VBT_MPI_DECL(int, Startall, (int count, MPI_Request array_of_requests[]));

/* Group "datatypes": derived datatype constructors, queries, packing. */
VBT_MPI_DECL(int, Type_contiguous, (int count, MPI_Datatype oldtype, MPI_Datatype *newtype));
VBT_MPI_DECL(int, Type_contiguous_c,
             (MPI_Count count, MPI_Datatype oldtype, MPI_Datatype *newtype));
VBT_MPI_DECL(int, Type_vector,
             (int count, int blocklength, int stride, MPI_Datatype oldtype,
              MPI_Datatype *newtype));
VBT_MPI_DECL(int, Type_vector_c,
             (MPI_Count count, MPI_Count blocklength, MPI_Count stride, MPI_Datatype oldtype,
              MPI_Datatype *newtype));
VBT_MPI_DECL(int, Type_create_hvector,
             (int count, int blocklength, MPI_Aint stride, MPI_Datatype oldtype,
              MPI_Datatype *newtype));
VBT_MPI_DECL(int, Type_create_hvector_c,
             (MPI_Count count, MPI_Count blocklength, MPI_Count stride, MPI_Datatype oldtype,
              MPI_Datatype *newtype));
VBT_MPI_DECL(int, Type_indexed,
             (int count, const int array_of_blocklengths[], const int array_of_displacements[],
              MPI_Datatype oldtype, MPI_Datatype *newtype));
VBT_MPI_DECL(int, Type_indexed_c,
             (MPI_Count count, const MPI_Count array_of_blocklengths[],
              const MPI_Count array_of_displacements[], MPI_Datatype oldtype,
              MPI_Datatype *newtype));
VBT_MPI_DECL(int, Type_create_hindexed,
             (int count, const int array_of_blocklengths[],
              const MPI_Aint array_of_displacements[], MPI_Datatype oldtype,
              MPI_Datatype *newtype));
VBT_MPI_DECL(int, Type_create_hindexed_c,
             (MPI_Count count, const MPI_Count array_of_blocklengths[],
              const MPI_Count array_of_displacements[], MPI_Datatype oldtype,
              MPI_Datatype *newtype));
VBT_MPI_DECL(int, Type_create_indexed_block,
             (int count, int blocklength, const int array_of_displacements[],
              MPI_Datatype oldtype, MPI_Datatype *newtype));
VBT_MPI_DECL(int, Type_create_indexed_block_c,
             (MPI_Count count, MPI_Count blocklength, const MPI_Count array_of_displacements[],
              MPI_Datatype oldtype, MPI_Datatype *newtype));
VBT_MPI_DECL(int, Type_create_hindexed_block,
             (int count, int blocklength, const MPI_Aint array_of_displacements[],
              MPI_Datatype oldtype, MPI_Datatype *newtype));
VBT_MPI_DECL(int, Type_create_hindexed_block_c,
             (MPI_Count count, MPI_Count blocklength, const MPI_Count array_of_displacements[],
              MPI_Datatype oldtype, MPI_Datatype *newtype));
VBT_MPI_DECL(int, Type_create_struct,
             (int count, const int array_of_blocklengths[],
              const MPI_Aint array_of_displacements[], const MPI_Datatype array_of_types[],
              MPI_Datatype *newtype));
VBT_MPI_DECL(int, Type_create_struct_c,
             (MPI_Count count, const MPI_Count array_of_blocklengths[],
              const MPI_Count array_of_displacements[], const MPI_Datatype array_of_types[],
              MPI_Datatype *newtype));
VBT_MPI_DECL(int, Type_create_resized,
             (MPI_Datatype oldtype, MPI_Aint lb, MPI_Aint extent, MPI_Datatype *newtype));
VBT_MPI_DECL(int, Type_create_resized_c,
             (MPI_Datatype oldtype, MPI_Count lb, MPI_Count extent, MPI_Datatype *newtype));
VBT_MPI_DECL(int, Type_create_subarray,
             (int ndims, const int array_of_sizes[], const int array_of_subsizes[],
              const int array_of_starts[], int order, MPI_Datatype oldtype,
              MPI_Datatype *newtype));
VBT_MPI_DECL(int, Type_create_subarray_c,
             (int ndims, const MPI_Count array_of_sizes[], const MPI_Count array_of_subsizes[],
              const MPI_Count array_of_starts[], int order, MPI_Datatype oldtype,
              MPI_Datatype *newtype));
VBT_MPI_DECL(int, Type_create_darray,
             (int size, int rank, int ndims, const int array_of_gsizes[],
              const int array_of_distribs[], const int array_of_dargs[],
              const int array_of_psizes[], int order, MPI_Datatype oldtype,
              MPI_Datatype *newtype));
VBT_MPI_DECL(int, Type_create_darray_c,
             (int size, int rank, int ndims, const MPI_Count array_of_gsizes[],
              const int array_of_distribs[], const int array_of_dargs[],
              const int array_of_psizes[], int order, MPI_Datatype oldtype, MPI_Datatype *newtype));
VBT_MPI_DECL(int, Type_create_f90_integer, (int r, MPI_Datatype *newtype));
VBT_MPI_DECL(int, Type_create_f90_real, (int p, int r, MPI_Datatype *newtype));
VBT_MPI_DECL(int, Type_create_f90_complex, (int p, int r, MPI_Datatype *newtype));
VBT_MPI_DECL(int, Type_match_size, (int typeclass, int size, MPI_Datatype *datatype));
VBT_MPI_DECL(int, Type_dup, (MPI_Datatype oldtype, MPI_Datatype *newtype));
VBT_MPI_DECL(int, Type_create_keyval,
             (MPI_Type_copy_attr_function * type_copy_attr_fn,
              MPI_Type_delete_attr_function *type_delete_attr_fn, int *type_keyval,
              void *extra_state));
VBT_MPI_DECL(int, Type_free_keyval, (int *type_keyval));
VBT_MPI_DECL(int, Type_set_attr, (MPI_Datatype datatype, int type_keyval, void *attribute_val));
VBT_MPI_DECL(int, Type_get_attr,
             (MPI_Datatype datatype, int type_keyval, void *attribute_val, int *flag));
VBT_MPI_DECL(int, Type_delete_attr, (MPI_Datatype datatype, int type_keyval));
VBT_MPI_DECL(int, Type_commit, (MPI_Datatype *datatype));
VBT_MPI_DECL(int, Type_free, (MPI_Datatype *datatype));
VBT_MPI_DECL(int, Type_get_extent, (MPI_Datatype datatype, MPI_Aint *lb, MPI_Aint *extent));
VBT_MPI_DECL(int, Type_get_extent_c, (MPI_Datatype datatype, MPI_Count *lb, MPI_Count *extent));
VBT_MPI_DECL(int, Type_get_extent_x, (MPI_Datatype datatype, MPI_Count *lb, MPI_Count *extent));
VBT_MPI_DECL(int, Type_get_true_extent,
             (MPI_Datatype datatype, MPI_Aint *true_lb, MPI_Aint *true_extent));
VBT_MPI_DECL(int, Type_get_true_extent_c,
             (MPI_Datatype datatype, MPI_Count *true_lb, MPI_Count *true_extent));
VBT_MPI_DECL(int, Type_get_true_extent_x,
             (MPI_Datatype datatype, MPI_Count *true_lb, MPI_Count *true_extent));
VBT_MPI_DECL(int, Type_size_x, (MPI_Datatype datatype, MPI_Count *size));
VBT_MPI_DECL(int, Type_get_name, (MPI_Datatype datatype, char *type_name, int *resultlen));
VBT_MPI_DECL(int, Type_set_name, (MPI_Datatype datatype, const char *type_name));
VBT_MPI_DECL(int, Type_get_envelope,
             (MPI_Datatype datatype, int *num_integers, int *num_addresses, int *num_datatypes,
              int *combiner));
VBT_MPI_DECL(int, Type_get_envelope_c,
             (MPI_Datatype datatype, MPI_Count *num_integers, MPI_Count *num_addresses,
              MPI_Count *num_large_counts, MPI_Count *num_datatypes, int *combiner));
VBT_MPI_DECL(int, Type_get_contents,
             (MPI_Datatype datatype, int max_integers, int max_addresses, int max_datatypes,
              int array_of_integers[], MPI_Aint array_of_addresses[],
              MPI_Datatype array_of_datatypes[]));
VBT_MPI_DECL(int, Type_get_contents_c,
             (MPI_Datatype datatype, MPI_Count max_integers, MPI_Count max_addresses,
              MPI_Count max_large_counts, MPI_Count max_datatypes, int array_of_integers[],
              MPI_Aint array_of_addresses[], MPI_Count array_of_large_counts[],
              MPI_Datatype array_of_datatypes[]));
VBT_MPI_DECL(int, Pack,
             (const void *inbuf, int incount, MPI_Datatype datatype, void *outbuf, int outsize,
              int *position, MPI_Comm comm));
VBT_MPI_DECL(int, Pack_c,
             (const void *inbuf, MPI_Count incount, MPI_Datatype datatype, void *outbuf,
              MPI_Count outsize, MPI_Count *position, MPI_Comm comm));
VBT_MPI_DECL(int, Unpack,
             (const void *inbuf, int insize, int *position, void *outbuf, int outcount,
              MPI_Datatype datatype, MPI_Comm comm));
VBT_MPI_DECL(int, Unpack_c,
             (const void *inbuf, MPI_Count insize, MPI_Count *position, void *outbuf,
              MPI_Count outcount, MPI_Datatype datatype, MPI_Comm comm));
VBT_MPI_DECL(int, Pack_size, (int incount, MPI_Datatype datatype, MPI_Comm comm, int *size));
VBT_MPI_DECL(int, Pack_size_c,
             (MPI_Count incount, MPI_Datatype datatype, MPI_Comm comm, MPI_Count *size));
VBT_MPI_DECL(int, Pack_external,
             (const char datarep[], const void *inbuf, int incount, MPI_Datatype datatype,
              void *outbuf, MPI_Aint outsize, MPI_Aint *position));
VBT_MPI_DECL(int, Pack_external_c,
             (const char datarep[], const void *inbuf, MPI_Count incount, MPI_Datatype datatype,
              void *outbuf, MPI_Count outsize, MPI_Count *position));
VBT_MPI_DECL(int, Unpack_external,
             (const char datarep[], const void *inbuf, MPI_Aint insize, MPI_Aint *position,
              void *outbuf, int outcount, MPI_Datatype datatype));
VBT_MPI_DECL(int, Unpack_external_c,
             (const char datarep[], const void *inbuf, MPI_Count insize, MPI_Count *position,
              void *outbuf, MPI_Count outcount, MPI_Datatype datatype));
VBT_MPI_DECL(int, Pack_external_size,
             (const char datarep[], int incount, MPI_Datatype datatype, MPI_Aint *size));
VBT_MPI_DECL(int, Pack_external_size_c,
             (const char datarep[], MPI_Count incount, MPI_Datatype datatype, MPI_Count *size));
VBT_MPI_DECL(int, Get_address, (const void *location, MPI_Aint *address));
VBT_MPI_DECL(MPI_Aint, Aint_add, (MPI_Aint base, MPI_Aint disp));
VBT_MPI_DECL(MPI_Aint, Aint_diff, (MPI_Aint addr1, MPI_Aint addr2));

/* Group "ops": user-defined reduction operations and local reductions. */
VBT_MPI_DECL(int, Op_create, (MPI_User_function *user_fn, int commute, MPI_Op *op));
VBT_MPI_DECL(int, Op_create_c, (MPI_User_function_c *user_fn, int commute, MPI_Op *op));
VBT_MPI_DECL(int, Op_free, (MPI_Op *op));
VBT_MPI_DECL(int, Op_commutative, (MPI_Op op, int *commute));
VBT_MPI_DECL(int, Reduce_local,
             (const void *inbuf, void *inoutbuf, int count, MPI_Datatype datatype, MPI_Op op));
VBT_MPI_DECL(int, Reduce_local_c,
             (const void *inbuf, void *inoutbuf, MPI_Count count, MPI_Datatype datatype,
              MPI_Op op));
/* Group "groups, communicators, topologies": groups, communicator creation and attributes,
 * Cartesian, graph and distributed graph topologies. */
VBT_MPI_DECL(int, Comm_group, (MPI_Comm comm, MPI_Group *group));
VBT_MPI_DECL(int, Group_size, (MPI_Group group, int *size));
VBT_MPI_DECL(int, Group_rank, (MPI_Group group, int *rank));
VBT_MPI_DECL(int, Group_incl, (MPI_Group group, int n, const int ranks[], MPI_Group *newgroup));
VBT_MPI_DECL(int, Group_excl, (MPI_Group group, int n, const int ranks[], MPI_Group *newgroup));
VBT_MPI_DECL(int, Group_range_incl, (MPI_Group group, int n, int ranges[][3], MPI_Group *newgroup));
VBT_MPI_DECL(int, Group_range_excl, (MPI_Group group, int n, int ranges[][3], MPI_Group *newgroup));
VBT_MPI_DECL(int, Group_union, (MPI_Group group1, MPI_Group group2, MPI_Group *newgroup));
VBT_MPI_DECL(int, Group_intersection, (MPI_Group group1, MPI_Group group2, MPI_Group *newgroup));
VBT_MPI_DECL(int, Group_difference, (MPI_Group group1, MPI_Group group2, MPI_Group *newgroup));
VBT_MPI_DECL(int, Group_translate_ranks,
             (MPI_Group group1, int n, const int ranks1[], MPI_Group group2, int ranks2[]));
VBT_MPI_DECL(int, Group_compare, (MPI_Group group1, MPI_Group group2, int *result));
VBT_MPI_DECL(int, Group_free, (MPI_Group *group));
VBT_MPI_DECL(int, Comm_dup, (MPI_Comm comm, MPI_Comm *newcomm));
VBT_MPI_DECL(int, Comm_split, (MPI_Comm comm, int color, int key, MPI_Comm *newcomm));
VBT_MPI_DECL(int, Comm_split_type,
             (MPI_Comm comm, int split_type, int key, MPI_Info info, MPI_Comm *newcomm));
VBT_MPI_DECL(int, Comm_create, (MPI_Comm comm, MPI_Group group, MPI_Comm *newcomm));
VBT_MPI_DECL(int, Comm_create_group, (MPI_Comm comm, MPI_Group group, int tag, MPI_Comm *newcomm));
VBT_MPI_DECL(int, Comm_free, (MPI_Comm *comm));
VBT_MPI_DECL(int, Comm_compare, (MPI_Comm comm1, MPI_Comm comm2, int *result));
VBT_MPI_DECL(int, Comm_set_name, (MPI_Comm comm, const char *comm_name));
VBT_MPI_DECL(int, Comm_get_name, (MPI_Comm comm, char *comm_name, int *resultlen));
VBT_MPI_DECL(int, Comm_test_inter, (MPI_Comm comm, int *flag));
VBT_MPI_DECL(int, Comm_remote_size, (MPI_Comm comm, int *size));
VBT_MPI_DECL(int, Comm_remote_group, (MPI_Comm comm, MPI_Group *group));
VBT_MPI_DECL(int, Intercomm_create,
             (MPI_Comm local_comm, int local_leader, MPI_Comm peer_comm, int remote_leader,
              int tag, MPI_Comm *newintercomm));
VBT_MPI_DECL(int, Intercomm_create_from_groups,
             (MPI_Group local_group, int local_leader, MPI_Group remote_group, int remote_leader,
              const char *stringtag, MPI_Info info, MPI_Errhandler errhandler,
              MPI_Comm *newintercomm));
VBT_MPI_DECL(int, Intercomm_merge, (MPI_Comm intercomm, int high, MPI_Comm *newintracomm));
VBT_MPI_DECL(int, Comm_dup_with_info, (MPI_Comm comm, MPI_Info info, MPI_Comm *newcomm));
VBT_MPI_DECL(int, Comm_idup, (MPI_Comm comm, MPI_Comm *newcomm, MPI_Request *request));
VBT_MPI_DECL(int, Comm_idup_with_info,
             (MPI_Comm comm, MPI_Info info, MPI_Comm *newcomm, MPI_Request *request));
VBT_MPI_DECL(int, Comm_set_info, (MPI_Comm comm, MPI_Info info));
VBT_MPI_DECL(int, Comm_get_info, (MPI_Comm comm, MPI_Info *info_used));
VBT_MPI_DECL(int, Comm_create_keyval,
             (MPI_Comm_copy_attr_function *comm_copy_attr_fn,
              MPI_Comm_delete_attr_function *comm_delete_attr_fn, int *comm_keyval,
              void *extra_state));
VBT_MPI_DECL(int, Comm_free_keyval, (int *comm_keyval));
/* attribute_val is really a void ** passed as void * (standard C binding). */
VBT_MPI_DECL(int, Comm_set_attr, (MPI_Comm comm, int comm_keyval, void *attribute_val));
VBT_MPI_DECL(int, Comm_get_attr, (MPI_Comm comm, int comm_keyval, void *attribute_val, int *flag));
VBT_MPI_DECL(int, Comm_delete_attr, (MPI_Comm comm, int comm_keyval));
/* MPI-1's names of the five above (deprecated; see MPI_Copy_function). */
VBT_MPI_DECL(int, Keyval_create,
             (MPI_Copy_function *copy_fn, MPI_Delete_function *delete_fn, int *keyval,
              void *extra_state));
VBT_MPI_DECL(int, Keyval_free, (int *keyval));
VBT_MPI_DECL(int, Attr_put, (MPI_Comm comm, int keyval, void *attribute_val));
VBT_MPI_DECL(int, Attr_get, (MPI_Comm comm, int keyval, void *attribute_val, int *flag));
VBT_MPI_DECL(int, Attr_delete, (MPI_Comm comm, int keyval));
VBT_MPI_DECL(int, Cart_create,
             (MPI_Comm comm_old, int ndims, const int dims[], const int periods[], int reorder,
              MPI_Comm *comm_cart));
VBT_MPI_DECL(int, Cartdim_get, (MPI_Comm comm, int *ndims));
VBT_MPI_DECL(int, Cart_get, (MPI_Comm comm, int maxdims, int dims[], int periods[], int coords[]));
VBT_MPI_DECL(int, Cart_rank, (MPI_Comm comm, const int coords[], int *rank));
VBT_MPI_DECL(int, Cart_coords, (MPI_Comm comm, int rank, int maxdims, int coords[]));
VBT_MPI_DECL(int, Cart_shift,
             (MPI_Comm comm, int direction, int disp, int *rank_source, int *rank_dest));
VBT_MPI_DECL(int, Cart_sub, (MPI_Comm comm, const int remain_dims[], MPI_Comm *newcomm));
VBT_MPI_DECL(int, Cart_map,
             (MPI_Comm comm, int ndims, const int dims[], const int periods[], int *newrank));
VBT_MPI_DECL(int, Dims_create, (int nnodes, int ndims, int dims[]));
VBT_MPI_DECL(int, Graph_create,
             (MPI_Comm comm_old, int nnodes, const int index[], const int edges[], int reorder,
              MPI_Comm *comm_graph));
VBT_MPI_DECL(int, Graphdims_get, (MPI_Comm comm, int *nnodes, int *nedges));
VBT_MPI_DECL(int, Graph_get, (MPI_Comm comm, int maxindex, int maxedges, int index[], int edges[]));
VBT_MPI_DECL(int, Graph_neighbors_count, (MPI_Comm comm, int rank, int *nneighbors));
VBT_MPI_DECL(int, Graph_neighbors, (MPI_Comm comm, int rank, int maxneighbors, int neighbors[]));
VBT_MPI_DECL(int, Graph_map,
             (MPI_Comm comm, int nnodes, const int index[], const int edges[], int *newrank));
/* The weights are pointers, not arrays: GCC reads "const int w[]" as "reads elements" and warns
 * (stringop-overread) when a program passes MPI_UNWEIGHTED or MPI_WEIGHTS_EMPTY. */
VBT_MPI_DECL(int, Dist_graph_create_adjacent,
             (MPI_Comm comm_old, int indegree, const int sources[], const int *sourceweights,
              int outdegree, const int destinations[], const int *destweights, MPI_Info info,
              int reorder, MPI_Comm *comm_dist_graph));
VBT_MPI_DECL(int, Dist_graph_create,
             (MPI_Comm comm_old, int n, const int sources[], const int degrees[],
              const int destinations[], const int *weights, MPI_Info info, int reorder,
              MPI_Comm *comm_dist_graph));
VBT_MPI_DECL(int, Dist_graph_neighbors_count,
             (MPI_Comm comm, int *indegree, int *outdegree, int *weighted));
VBT_MPI_DECL(int, Dist_graph_neighbors,
             (MPI_Comm comm, int maxindegree, int sources[], int *sourceweights, int maxoutdegree,
              int destinations[], int *destweights));
VBT_MPI_DECL(int, Topo_test, (MPI_Comm comm, int *status));
/* Group "one-sided" (chapter 12) and memory allocation (Sec. 9.2). */
VBT_MPI_DECL(int, Alloc_mem, (MPI_Aint size, MPI_Info info, void *baseptr));
VBT_MPI_DECL(int, Free_mem, (void *base));
VBT_MPI_DECL(int, Win_create,
             (void *base, MPI_Aint size, int disp_unit, MPI_Info info, MPI_Comm comm, MPI_Win *win));
VBT_MPI_DECL(int, Win_create_c,
             (void *base, MPI_Aint size, MPI_Aint disp_unit, MPI_Info info, MPI_Comm comm,
              MPI_Win *win));
VBT_MPI_DECL(int, Win_allocate,
             (MPI_Aint size, int disp_unit, MPI_Info info, MPI_Comm comm, void *baseptr, MPI_Win *win));
VBT_MPI_DECL(int, Win_allocate_c,
             (MPI_Aint size, MPI_Aint disp_unit, MPI_Info info, MPI_Comm comm, void *baseptr,
              MPI_Win *win));
VBT_MPI_DECL(int, Win_allocate_shared,
             (MPI_Aint size, int disp_unit, MPI_Info info, MPI_Comm comm, void *baseptr, MPI_Win *win));
VBT_MPI_DECL(int, Win_allocate_shared_c,
             (MPI_Aint size, MPI_Aint disp_unit, MPI_Info info, MPI_Comm comm, void *baseptr,
              MPI_Win *win));
VBT_MPI_DECL(int, Win_shared_query,
             (MPI_Win win, int rank, MPI_Aint *size, int *disp_unit, void *baseptr));
VBT_MPI_DECL(int, Win_shared_query_c,
             (MPI_Win win, int rank, MPI_Aint *size, MPI_Aint *disp_unit, void *baseptr));
VBT_MPI_DECL(int, Win_create_dynamic, (MPI_Info info, MPI_Comm comm, MPI_Win *win));
VBT_MPI_DECL(int, Win_attach, (MPI_Win win, void *base, MPI_Aint size));
VBT_MPI_DECL(int, Win_detach, (MPI_Win win, const void *base));
VBT_MPI_DECL(int, Win_free, (MPI_Win *win));
VBT_MPI_DECL(int, Win_get_group, (MPI_Win win, MPI_Group *group));
VBT_MPI_DECL(int, Win_set_name, (MPI_Win win, const char *win_name));
VBT_MPI_DECL(int, Win_get_name, (MPI_Win win, char *win_name, int *resultlen));
VBT_MPI_DECL(int, Win_create_errhandler,
             (MPI_Win_errhandler_function *win_errhandler_fn, MPI_Errhandler *errhandler));
VBT_MPI_DECL(int, Win_set_errhandler, (MPI_Win win, MPI_Errhandler errhandler));
VBT_MPI_DECL(int, Win_get_errhandler, (MPI_Win win, MPI_Errhandler *errhandler));
VBT_MPI_DECL(int, Win_call_errhandler, (MPI_Win win, int errorcode));
VBT_MPI_DECL(int, Win_create_keyval,
             (MPI_Win_copy_attr_function *win_copy_attr_fn,
              MPI_Win_delete_attr_function *win_delete_attr_fn, int *win_keyval, void *extra_state));
VBT_MPI_DECL(int, Win_free_keyval, (int *win_keyval));
VBT_MPI_DECL(int, Win_set_attr, (MPI_Win win, int win_keyval, void *attribute_val));
VBT_MPI_DECL(int, Win_get_attr, (MPI_Win win, int win_keyval, void *attribute_val, int *flag));
VBT_MPI_DECL(int, Win_delete_attr, (MPI_Win win, int win_keyval));
VBT_MPI_DECL(int, Put,
             (const void *origin_addr, int origin_count, MPI_Datatype origin_datatype,
              int target_rank, MPI_Aint target_disp, int target_count,
              MPI_Datatype target_datatype, MPI_Win win));
VBT_MPI_DECL(int, Put_c,
             (const void *origin_addr, MPI_Count origin_count, MPI_Datatype origin_datatype,
              int target_rank, MPI_Aint target_disp, MPI_Count target_count,
              MPI_Datatype target_datatype, MPI_Win win));
VBT_MPI_DECL(int, Get,
             (void *origin_addr, int origin_count, MPI_Datatype origin_datatype, int target_rank,
              MPI_Aint target_disp, int target_count, MPI_Datatype target_datatype, MPI_Win win));
VBT_MPI_DECL(int, Get_c,
             (void *origin_addr, MPI_Count origin_count, MPI_Datatype origin_datatype,
              int target_rank, MPI_Aint target_disp, MPI_Count target_count,
              MPI_Datatype target_datatype, MPI_Win win));
VBT_MPI_DECL(int, Accumulate,
             (const void *origin_addr, int origin_count, MPI_Datatype origin_datatype,
              int target_rank, MPI_Aint target_disp, int target_count,
              MPI_Datatype target_datatype, MPI_Op op, MPI_Win win));
VBT_MPI_DECL(int, Accumulate_c,
             (const void *origin_addr, MPI_Count origin_count, MPI_Datatype origin_datatype,
              int target_rank, MPI_Aint target_disp, MPI_Count target_count,
              MPI_Datatype target_datatype, MPI_Op op, MPI_Win win));
VBT_MPI_DECL(int, Get_accumulate,
             (const void *origin_addr, int origin_count, MPI_Datatype origin_datatype,
              void *result_addr, int result_count, MPI_Datatype result_datatype, int target_rank,
              MPI_Aint target_disp, int target_count, MPI_Datatype target_datatype, MPI_Op op,
              MPI_Win win));
VBT_MPI_DECL(int, Get_accumulate_c,
             (const void *origin_addr, MPI_Count origin_count, MPI_Datatype origin_datatype,
              void *result_addr, MPI_Count result_count, MPI_Datatype result_datatype,
              int target_rank, MPI_Aint target_disp, MPI_Count target_count,
              MPI_Datatype target_datatype, MPI_Op op, MPI_Win win));
VBT_MPI_DECL(int, Fetch_and_op,
             (const void *origin_addr, void *result_addr, MPI_Datatype datatype, int target_rank,
              MPI_Aint target_disp, MPI_Op op, MPI_Win win));
VBT_MPI_DECL(int, Compare_and_swap,
             (const void *origin_addr, const void *compare_addr, void *result_addr,
              MPI_Datatype datatype, int target_rank, MPI_Aint target_disp, MPI_Win win));
VBT_MPI_DECL(int, Rput,
             (const void *origin_addr, int origin_count, MPI_Datatype origin_datatype,
              int target_rank, MPI_Aint target_disp, int target_count,
              MPI_Datatype target_datatype, MPI_Win win, MPI_Request *request));
VBT_MPI_DECL(int, Rput_c,
             (const void *origin_addr, MPI_Count origin_count, MPI_Datatype origin_datatype,
              int target_rank, MPI_Aint target_disp, MPI_Count target_count,
              MPI_Datatype target_datatype, MPI_Win win, MPI_Request *request));
VBT_MPI_DECL(int, Rget,
             (void *origin_addr, int origin_count, MPI_Datatype origin_datatype, int target_rank,
              MPI_Aint target_disp, int target_count, MPI_Datatype target_datatype, MPI_Win win,
              MPI_Request *request));
VBT_MPI_DECL(int, Rget_c,
             (void *origin_addr, MPI_Count origin_count, MPI_Datatype origin_datatype,
              int target_rank, MPI_Aint target_disp, MPI_Count target_count,
              MPI_Datatype target_datatype, MPI_Win win, MPI_Request *request));
VBT_MPI_DECL(int, Raccumulate,
             (const void *origin_addr, int origin_count, MPI_Datatype origin_datatype,
              int target_rank, MPI_Aint target_disp, int target_count,
              MPI_Datatype target_datatype, MPI_Op op, MPI_Win win, MPI_Request *request));
VBT_MPI_DECL(int, Raccumulate_c,
             (const void *origin_addr, MPI_Count origin_count, MPI_Datatype origin_datatype,
              int target_rank, MPI_Aint target_disp, MPI_Count target_count,
              MPI_Datatype target_datatype, MPI_Op op, MPI_Win win, MPI_Request *request));
VBT_MPI_DECL(int, Rget_accumulate,
             (const void *origin_addr, int origin_count, MPI_Datatype origin_datatype,
              void *result_addr, int result_count, MPI_Datatype result_datatype, int target_rank,
              MPI_Aint target_disp, int target_count, MPI_Datatype target_datatype, MPI_Op op,
              MPI_Win win, MPI_Request *request));
VBT_MPI_DECL(int, Rget_accumulate_c,
             (const void *origin_addr, MPI_Count origin_count, MPI_Datatype origin_datatype,
              void *result_addr, MPI_Count result_count, MPI_Datatype result_datatype,
              int target_rank, MPI_Aint target_disp, MPI_Count target_count,
              MPI_Datatype target_datatype, MPI_Op op, MPI_Win win, MPI_Request *request));
VBT_MPI_DECL(int, Win_fence, (int assert, MPI_Win win));
VBT_MPI_DECL(int, Win_post, (MPI_Group group, int assert, MPI_Win win));
VBT_MPI_DECL(int, Win_start, (MPI_Group group, int assert, MPI_Win win));
VBT_MPI_DECL(int, Win_complete, (MPI_Win win));
VBT_MPI_DECL(int, Win_wait, (MPI_Win win));
VBT_MPI_DECL(int, Win_test, (MPI_Win win, int *flag));
VBT_MPI_DECL(int, Win_lock, (int lock_type, int rank, int assert, MPI_Win win));
VBT_MPI_DECL(int, Win_unlock, (int rank, MPI_Win win));
VBT_MPI_DECL(int, Win_lock_all, (int assert, MPI_Win win));
VBT_MPI_DECL(int, Win_unlock_all, (MPI_Win win));
VBT_MPI_DECL(int, Win_flush, (int rank, MPI_Win win));
VBT_MPI_DECL(int, Win_flush_all, (MPI_Win win));
VBT_MPI_DECL(int, Win_flush_local, (int rank, MPI_Win win));
VBT_MPI_DECL(int, Win_flush_local_all, (MPI_Win win));
VBT_MPI_DECL(int, Win_sync, (MPI_Win win));
VBT_MPI_DECL(int, Win_set_info, (MPI_Win win, MPI_Info info));
VBT_MPI_DECL(int, Win_get_info, (MPI_Win win, MPI_Info *info_used));

/* Group "info": info objects (Sec. 10). Callable before MPI_Init and after MPI_Finalize too. */
VBT_MPI_DECL(int, Info_create, (MPI_Info *info));
VBT_MPI_DECL(int, Info_create_env, (int argc, char *argv[], MPI_Info *info));
VBT_MPI_DECL(int, Info_set, (MPI_Info info, const char *key, const char *value));
VBT_MPI_DECL(int, Info_get,
             (MPI_Info info, const char *key, int valuelen, char *value, int *flag));
VBT_MPI_DECL(int, Info_get_string,
             (MPI_Info info, const char *key, int *buflen, char *value, int *flag));
VBT_MPI_DECL(int, Info_get_valuelen,
             (MPI_Info info, const char *key, int *valuelen, int *flag));
VBT_MPI_DECL(int, Info_delete, (MPI_Info info, const char *key));
VBT_MPI_DECL(int, Info_get_nkeys, (MPI_Info info, int *nkeys));
VBT_MPI_DECL(int, Info_get_nthkey, (MPI_Info info, int n, char *key));
VBT_MPI_DECL(int, Info_dup, (MPI_Info info, MPI_Info *newinfo));
VBT_MPI_DECL(int, Info_free, (MPI_Info *info));
/* Group "tools" (chapter 15, MPI_T): control and performance variables, categories, events.
 * Callable before MPI_Init and after MPI_Finalize, between MPI_T_init_thread and
 * MPI_T_finalize. */
VBT_MPI_DECL(int, T_init_thread, (int required, int *provided));
VBT_MPI_DECL(int, T_finalize, (void));
VBT_MPI_DECL(int, T_enum_get_info, (MPI_T_enum enumtype, int *num, char *name, int *name_len));
VBT_MPI_DECL(int, T_enum_get_item,
             (MPI_T_enum enumtype, int indx, int *value, char *name, int *name_len));
VBT_MPI_DECL(int, T_cvar_get_num, (int *num_cvar));
VBT_MPI_DECL(int, T_cvar_get_info,
             (int cvar_index, char *name, int *name_len, int *verbosity, MPI_Datatype *datatype,
              MPI_T_enum *enumtype, char *desc, int *desc_len, int *bind, int *scope));
VBT_MPI_DECL(int, T_cvar_get_index, (const char *name, int *cvar_index));
VBT_MPI_DECL(int, T_cvar_handle_alloc,
             (int cvar_index, void *obj_handle, MPI_T_cvar_handle *handle, int *count));
VBT_MPI_DECL(int, T_cvar_handle_free, (MPI_T_cvar_handle *handle));
VBT_MPI_DECL(int, T_cvar_read, (MPI_T_cvar_handle handle, void *buf));
VBT_MPI_DECL(int, T_cvar_write, (MPI_T_cvar_handle handle, const void *buf));
VBT_MPI_DECL(int, T_pvar_get_num, (int *num_pvar));
VBT_MPI_DECL(int, T_pvar_get_info,
             (int pvar_index, char *name, int *name_len, int *verbosity, int *var_class,
              MPI_Datatype *datatype, MPI_T_enum *enumtype, char *desc, int *desc_len,
              int *bind, int *readonly, int *continuous, int *atomic));
VBT_MPI_DECL(int, T_pvar_get_index, (const char *name, int var_class, int *pvar_index));
VBT_MPI_DECL(int, T_pvar_session_create, (MPI_T_pvar_session *session));
VBT_MPI_DECL(int, T_pvar_session_free, (MPI_T_pvar_session *session));
VBT_MPI_DECL(int, T_pvar_handle_alloc,
             (MPI_T_pvar_session session, int pvar_index, void *obj_handle,
              MPI_T_pvar_handle *handle, int *count));
VBT_MPI_DECL(int, T_pvar_handle_free,
             (MPI_T_pvar_session session, MPI_T_pvar_handle *handle));
VBT_MPI_DECL(int, T_pvar_start, (MPI_T_pvar_session session, MPI_T_pvar_handle handle));
VBT_MPI_DECL(int, T_pvar_stop, (MPI_T_pvar_session session, MPI_T_pvar_handle handle));
VBT_MPI_DECL(int, T_pvar_read,
             (MPI_T_pvar_session session, MPI_T_pvar_handle handle, void *buf));
VBT_MPI_DECL(int, T_pvar_write,
             (MPI_T_pvar_session session, MPI_T_pvar_handle handle, const void *buf));
VBT_MPI_DECL(int, T_pvar_reset, (MPI_T_pvar_session session, MPI_T_pvar_handle handle));
VBT_MPI_DECL(int, T_pvar_readreset,
             (MPI_T_pvar_session session, MPI_T_pvar_handle handle, void *buf));
VBT_MPI_DECL(int, T_category_get_num, (int *num_cat));
VBT_MPI_DECL(int, T_category_get_info,
             (int cat_index, char *name, int *name_len, char *desc, int *desc_len,
              int *num_cvars, int *num_pvars, int *num_categories));
VBT_MPI_DECL(int, T_category_get_num_events, (int cat_index, int *num_events));
VBT_MPI_DECL(int, T_category_get_index, (const char *name, int *cat_index));
VBT_MPI_DECL(int, T_category_get_cvars, (int cat_index, int len, int indices[]));
VBT_MPI_DECL(int, T_category_get_pvars, (int cat_index, int len, int indices[]));
VBT_MPI_DECL(int, T_category_get_events, (int cat_index, int len, int indices[]));
VBT_MPI_DECL(int, T_category_get_categories, (int cat_index, int len, int indices[]));
VBT_MPI_DECL(int, T_category_changed, (int *update_number));
VBT_MPI_DECL(int, T_source_get_num, (int *num_sources));
VBT_MPI_DECL(int, T_source_get_info,
             (int source_index, char *name, int *name_len, char *desc, int *desc_len,
              MPI_T_source_order *ordering, MPI_Count *ticks_per_second, MPI_Count *max_ticks,
              MPI_Info *info));
VBT_MPI_DECL(int, T_source_get_timestamp, (int source_index, MPI_Count *timestamp));
VBT_MPI_DECL(int, T_event_get_num, (int *num_events));
VBT_MPI_DECL(int, T_event_get_info,
             (int event_index, char *name, int *name_len, int *verbosity,
              MPI_Datatype array_of_datatypes[], MPI_Aint array_of_displacements[],
              int *num_elements, MPI_T_enum *enumtype, MPI_Info *info, char *desc,
              int *desc_len, int *bind));
VBT_MPI_DECL(int, T_event_get_index, (const char *name, int *event_index));
VBT_MPI_DECL(int, T_event_handle_alloc,
             (int event_index, void *obj_handle, MPI_Info info,
              MPI_T_event_registration *event_registration));
VBT_MPI_DECL(int, T_event_handle_set_info,
             (MPI_T_event_registration event_registration, MPI_Info info));
VBT_MPI_DECL(int, T_event_handle_get_info,
             (MPI_T_event_registration event_registration, MPI_Info *info_used));
VBT_MPI_DECL(int, T_event_register_callback,
             (MPI_T_event_registration event_registration, MPI_T_cb_safety cb_safety,
              MPI_Info info, void *user_data, MPI_T_event_cb_function *event_cb_function));
VBT_MPI_DECL(int, T_event_callback_set_info,
             (MPI_T_event_registration event_registration, MPI_T_cb_safety cb_safety,
              MPI_Info info));
VBT_MPI_DECL(int, T_event_callback_get_info,
             (MPI_T_event_registration event_registration, MPI_T_cb_safety cb_safety,
              MPI_Info *info_used));
VBT_MPI_DECL(int, T_event_handle_free,
             (MPI_T_event_registration event_registration, void *user_data,
              MPI_T_event_free_cb_function *free_cb_function));
VBT_MPI_DECL(int, T_event_set_dropped_handler,
             (MPI_T_event_registration event_registration,
              MPI_T_event_dropped_cb_function *dropped_cb_function));
VBT_MPI_DECL(int, T_event_read, (MPI_T_event_instance event_instance, int element_index,
                                 void *buffer));
VBT_MPI_DECL(int, T_event_copy, (MPI_T_event_instance event_instance, void *buffer));
VBT_MPI_DECL(int, T_event_get_timestamp,
             (MPI_T_event_instance event_instance, MPI_Count *event_timestamp));
VBT_MPI_DECL(int, T_event_get_source, (MPI_T_event_instance event_instance, int *source_index));
/* clang-format on */

#undef VBT_MPI_DECL

#if defined(__cplusplus)
}
#endif

#endif /* MPI_H_ABI */
