/* What the datatype entry points share (runtime/api/type_*.c). */
#ifndef VBT_API_TYPE_H
#define VBT_API_TYPE_H

#include "vbt_api.h"
#include "vbt_datatype.h"

/* A datatype argument named arg of call: valid (committed or not), its object in *t_p; or the
 * error raised. */
int vbt_api_type_arg(const char *call, const char *arg, MPI_Datatype dt, vbt_dtype_t **t_p);

/* Finish a constructor: record its arguments (MPI_Type_get_contents) and hand out the handle,
 * or raise the error of st. */
int vbt_api_type_created(const char *call, vbt_status_t st, vbt_dtype_t *t, int combiner, int ni,
                         const int *ints, int na, const MPI_Aint *aints, int nt,
                         vbt_dtype_t *const *types, MPI_Datatype *newtype);
/* The same with the nc large counts of a _c constructor (MPI_Type_get_contents_c). */
int vbt_api_type_created_c(const char *call, vbt_status_t st, vbt_dtype_t *t, int combiner, int ni,
                           const int *ints, int na, const MPI_Aint *aints, int nc,
                           const MPI_Count *counts, int nt, vbt_dtype_t *const *types,
                           MPI_Datatype *newtype);

#endif
