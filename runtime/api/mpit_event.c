/* Events and their sources (MPI-4.1 Sec. 15.3.9): Verbatim defines no event types, which the
 * standard allows. MPI_T_event_get_num and MPI_T_source_get_num say 0; a call naming an event
 * type or a source by index finds none (MPI_T_ERR_INVALID_INDEX, or MPI_T_ERR_INVALID_NAME by
 * name), and one given a registration or an event instance was given none that can exist
 * (MPI_T_ERR_INVALID_HANDLE). */
#include "vbt_api_mpit.h"

VBT_PMPI_ALIAS(T_source_get_num)
VBT_PMPI_ALIAS(T_source_get_info)
VBT_PMPI_ALIAS(T_source_get_timestamp)
VBT_PMPI_ALIAS(T_event_get_num)
VBT_PMPI_ALIAS(T_event_get_info)
VBT_PMPI_ALIAS(T_event_get_index)
VBT_PMPI_ALIAS(T_event_handle_alloc)
VBT_PMPI_ALIAS(T_event_handle_set_info)
VBT_PMPI_ALIAS(T_event_handle_get_info)
VBT_PMPI_ALIAS(T_event_register_callback)
VBT_PMPI_ALIAS(T_event_callback_set_info)
VBT_PMPI_ALIAS(T_event_callback_get_info)
VBT_PMPI_ALIAS(T_event_handle_free)
VBT_PMPI_ALIAS(T_event_set_dropped_handler)
VBT_PMPI_ALIAS(T_event_read)
VBT_PMPI_ALIAS(T_event_copy)
VBT_PMPI_ALIAS(T_event_get_timestamp)
VBT_PMPI_ALIAS(T_event_get_source)

static int no_index(const char *call, const char *what, int index)
{
    VBT_MPIT_ENTER(call);
    (void)t;
    return vbt_mpit_error(call, MPI_T_ERR_INVALID_INDEX,
                          "%s index %d: this library defines no %ss (%s says 0)", what, index, what,
                          what[0] == 's' ? "MPI_T_source_get_num" : "MPI_T_event_get_num");
}

static int no_registration(const char *call, const void *reg)
{
    VBT_MPIT_ENTER(call);
    (void)t;
    return vbt_mpit_error(call, MPI_T_ERR_INVALID_HANDLE,
                          "argument event_registration %p: this library defines no event types, "
                          "so no registration exists",
                          reg);
}

static int no_instance(const char *call, const void *instance)
{
    VBT_MPIT_ENTER(call);
    (void)t;
    return vbt_mpit_error(call, MPI_T_ERR_INVALID_HANDLE,
                          "argument event_instance %p: this library defines no event types, so "
                          "no event instance exists",
                          instance);
}

int PMPI_T_source_get_num(int *num_sources)
{
    VBT_MPIT_ENTER("MPI_T_source_get_num");
    (void)t;
    VBT_MPIT_NONNULL("MPI_T_source_get_num", num_sources);
    *num_sources = 0;
    return MPI_SUCCESS;
}

int PMPI_T_source_get_info(int source_index, char *name, int *name_len, char *desc, int *desc_len,
                           MPI_T_source_order *ordering, MPI_Count *ticks_per_second,
                           MPI_Count *max_ticks, MPI_Info *info)
{
    (void)name, (void)name_len, (void)desc, (void)desc_len, (void)ordering;
    (void)ticks_per_second, (void)max_ticks, (void)info;
    return no_index("MPI_T_source_get_info", "source", source_index);
}

int PMPI_T_source_get_timestamp(int source_index, MPI_Count *timestamp)
{
    (void)timestamp;
    return no_index("MPI_T_source_get_timestamp", "source", source_index);
}

int PMPI_T_event_get_num(int *num_events)
{
    VBT_MPIT_ENTER("MPI_T_event_get_num");
    (void)t;
    VBT_MPIT_NONNULL("MPI_T_event_get_num", num_events);
    *num_events = 0;
    return MPI_SUCCESS;
}

int PMPI_T_event_get_info(int event_index, char *name, int *name_len, int *verbosity,
                          MPI_Datatype array_of_datatypes[], MPI_Aint array_of_displacements[],
                          int *num_elements, MPI_T_enum *enumtype, MPI_Info *info, char *desc,
                          int *desc_len, int *bind)
{
    (void)name, (void)name_len, (void)verbosity, (void)array_of_datatypes;
    (void)array_of_displacements, (void)num_elements, (void)enumtype, (void)info;
    (void)desc, (void)desc_len, (void)bind;
    return no_index("MPI_T_event_get_info", "event type", event_index);
}

int PMPI_T_event_get_index(const char *name, int *event_index)
{
    VBT_MPIT_ENTER("MPI_T_event_get_index");
    (void)t;
    VBT_MPIT_NONNULL("MPI_T_event_get_index", name);
    VBT_MPIT_NONNULL("MPI_T_event_get_index", event_index);
    return vbt_mpit_error("MPI_T_event_get_index", MPI_T_ERR_INVALID_NAME,
                          "no event type is named \"%s\": this library defines none", name);
}

int PMPI_T_event_handle_alloc(int event_index, void *obj_handle, MPI_Info info,
                              MPI_T_event_registration *event_registration)
{
    (void)obj_handle, (void)info, (void)event_registration;
    return no_index("MPI_T_event_handle_alloc", "event type", event_index);
}

int PMPI_T_event_handle_set_info(MPI_T_event_registration event_registration, MPI_Info info)
{
    (void)info;
    return no_registration("MPI_T_event_handle_set_info", event_registration);
}

int PMPI_T_event_handle_get_info(MPI_T_event_registration event_registration, MPI_Info *info_used)
{
    (void)info_used;
    return no_registration("MPI_T_event_handle_get_info", event_registration);
}

int PMPI_T_event_register_callback(MPI_T_event_registration event_registration,
                                   MPI_T_cb_safety cb_safety, MPI_Info info, void *user_data,
                                   MPI_T_event_cb_function *event_cb_function)
{
    (void)cb_safety, (void)info, (void)user_data, (void)event_cb_function;
    return no_registration("MPI_T_event_register_callback", event_registration);
}

int PMPI_T_event_callback_set_info(MPI_T_event_registration event_registration,
                                   MPI_T_cb_safety cb_safety, MPI_Info info)
{
    (void)cb_safety, (void)info;
    return no_registration("MPI_T_event_callback_set_info", event_registration);
}

int PMPI_T_event_callback_get_info(MPI_T_event_registration event_registration,
                                   MPI_T_cb_safety cb_safety, MPI_Info *info_used)
{
    (void)cb_safety, (void)info_used;
    return no_registration("MPI_T_event_callback_get_info", event_registration);
}

int PMPI_T_event_handle_free(MPI_T_event_registration event_registration, void *user_data,
                             MPI_T_event_free_cb_function *free_cb_function)
{
    (void)user_data, (void)free_cb_function;
    return no_registration("MPI_T_event_handle_free", event_registration);
}

int PMPI_T_event_set_dropped_handler(MPI_T_event_registration event_registration,
                                     MPI_T_event_dropped_cb_function *dropped_cb_function)
{
    (void)dropped_cb_function;
    return no_registration("MPI_T_event_set_dropped_handler", event_registration);
}

int PMPI_T_event_read(MPI_T_event_instance event_instance, int element_index, void *buffer)
{
    (void)element_index, (void)buffer;
    return no_instance("MPI_T_event_read", event_instance);
}

int PMPI_T_event_copy(MPI_T_event_instance event_instance, void *buffer)
{
    (void)buffer;
    return no_instance("MPI_T_event_copy", event_instance);
}

int PMPI_T_event_get_timestamp(MPI_T_event_instance event_instance, MPI_Count *event_timestamp)
{
    (void)event_timestamp;
    return no_instance("MPI_T_event_get_timestamp", event_instance);
}

int PMPI_T_event_get_source(MPI_T_event_instance event_instance, int *source_index)
{
    (void)source_index;
    return no_instance("MPI_T_event_get_source", event_instance);
}
