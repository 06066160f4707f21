/* Device, port and GID choice; the RLIMIT_MEMLOCK check; the device listing of verbatim-info.
 *
 * Choice: VBT_IB_DEVICE=name[:port], else the first port in state ACTIVE of the first device
 * with one. InfiniBand ports are addressed by LID. Ethernet (RoCE) ports by a GID with the GRH:
 * a RoCE v2 GID, IPv4-mapped first, then link-local, then any other v2, then RoCE v1 (lowest
 * index within each class); VBT_IB_GID_INDEX overrides. */
#include "vbt_config.h"
#include "vbt_ib_int.h"
#include "vbt_log.h"

#include <arpa/inet.h>
#include <endian.h>
#include <errno.h>
#include <net/if.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

/* One GID of one port, whether read from the GID table or (old kernels) one by one. */
typedef struct {
    int index;
    int type; /* IBV_GID_TYPE_*, -1 unknown */
    union ibv_gid gid;
    uint32_t ifindex;
} gid_info_t;

/* ---- small helpers ------------------------------------------------------------------------ */

static void appendf(char *buf, size_t len, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static void appendf(char *buf, size_t len, const char *fmt, ...)
{
    size_t used = strnlen(buf, len);
    va_list ap;

    if (used + 1 >= len)
        return;
    va_start(ap, fmt);
    vsnprintf(buf + used, len - used, fmt, ap);
    va_end(ap);
}

static const char *size_str(unsigned long long bytes, char *buf, size_t len)
{
    static const char *const units[] = {"bytes", "KiB", "MiB", "GiB", "TiB"};
    unsigned u = 0;
    double v = (double)bytes;

    while (v >= 1024 && u + 1 < sizeof(units) / sizeof(units[0])) {
        v /= 1024;
        u++;
    }
    if (u == 0)
        snprintf(buf, len, "%llu bytes", bytes);
    else if (v == (double)(unsigned long long)v)
        snprintf(buf, len, "%llu %s", (unsigned long long)v, units[u]);
    else
        snprintf(buf, len, "%.1f %s", v, units[u]);
    return buf;
}

const char *vbt_ib_mtu_str(int mtu)
{
    switch (mtu) {
    case IBV_MTU_256:
        return "256";
    case IBV_MTU_512:
        return "512";
    case IBV_MTU_1024:
        return "1024";
    case IBV_MTU_2048:
        return "2048";
    case IBV_MTU_4096:
        return "4096";
    }
    return "?";
}

static const char *link_layer_str(int ll)
{
    switch (ll) {
    case IBV_LINK_LAYER_INFINIBAND:
    case IBV_LINK_LAYER_UNSPECIFIED:
        return "InfiniBand";
    case IBV_LINK_LAYER_ETHERNET:
        return "Ethernet";
    }
    return "unknown";
}

static int is_ethernet(const struct ibv_port_attr *pa)
{
    return pa->link_layer == IBV_LINK_LAYER_ETHERNET;
}

/* ---- GIDs --------------------------------------------------------------------------------- */

static int gid_is_zero(const union ibv_gid *g)
{
    static const uint8_t zero[16];
    return memcmp(g->raw, zero, sizeof(zero)) == 0;
}

static int gid_is_v4mapped(const union ibv_gid *g)
{
    return vbt_ib_gid_is_v4mapped(g->raw);
}

static int gid_is_linklocal(const union ibv_gid *g)
{
    return g->raw[0] == 0xfe && (g->raw[1] & 0xc0) == 0x80;
}

static const char *gid_type_str(int type)
{
    switch (type) {
    case IBV_GID_TYPE_IB:
        return "IB";
    case IBV_GID_TYPE_ROCE_V1:
        return "RoCE v1";
    case IBV_GID_TYPE_ROCE_V2:
        return "RoCE v2";
    }
    return "type ?";
}

static const char *gid_addr_class(const union ibv_gid *g)
{
    if (gid_is_v4mapped(g))
        return "IPv4-mapped";
    if (gid_is_linklocal(g))
        return "link-local";
    return "IPv6";
}

static const char *gid_str(const union ibv_gid *g, char *buf, size_t len)
{
    if (inet_ntop(AF_INET6, g->raw, buf, (socklen_t)len) == NULL)
        snprintf(buf, len, "?");
    return buf;
}

/* Lower is better: RoCE v2 before v1; IPv4-mapped, then link-local, then other IPv6. */
static int gid_preference(const gid_info_t *g)
{
    int addr = gid_is_v4mapped(&g->gid) ? 0 : gid_is_linklocal(&g->gid) ? 1 : 2;
    switch (g->type) {
    case IBV_GID_TYPE_ROCE_V2:
        return addr;
    case IBV_GID_TYPE_ROCE_V1:
        return 3 + addr;
    case -1:
        return 6 + addr;
    default:
        return 9 + addr;
    }
}

/* The valid GIDs of one port, in *gids_p (malloc'ed, caller frees). Returns their count, or -1
 * (nothing to free) with the reason in err. */
static int port_gids(struct ibv_context *dev, int nports, uint8_t port,
                     const struct ibv_port_attr *pa, gid_info_t **gids_p, char *err, size_t errlen)
{
    struct ibv_gid_entry *table;
    gid_info_t *gids;
    size_t total = 0;
    ssize_t n;
    int count = 0;

    for (int p = 1; p <= nports; p++) {
        struct ibv_port_attr other;
        if (p == port)
            total += (size_t)pa->gid_tbl_len;
        else if (ibv_query_port(dev, (uint8_t)p, &other) == 0)
            total += (size_t)other.gid_tbl_len;
    }
    gids = calloc((size_t)pa->gid_tbl_len + 1, sizeof(*gids));
    table = calloc(total + 1, sizeof(*table));
    if (gids == NULL || table == NULL) {
        free(gids);
        free(table);
        snprintf(err, errlen, "out of memory reading the GID table");
        return -1;
    }

    n = ibv_query_gid_table(dev, table, total + 1, 0);
    if (n >= 0) {
        for (ssize_t i = 0; i < n; i++) {
            if (table[i].port_num != port || gid_is_zero(&table[i].gid))
                continue;
            if (count >= pa->gid_tbl_len)
                break;
            gids[count].index = (int)table[i].gid_index;
            gids[count].type = (int)table[i].gid_type;
            gids[count].gid = table[i].gid;
            gids[count].ifindex = table[i].ndev_ifindex;
            count++;
        }
    } else {
        /* Kernels without the GID table interface: addresses only, types unknown. */
        vbt_debug("ibv_query_gid_table(%s) failed: %s: reading GIDs one by one",
                  ibv_get_device_name(dev->device), strerror((int)-n));
        for (int i = 0; i < pa->gid_tbl_len; i++) {
            union ibv_gid g;
            if (ibv_query_gid(dev, port, i, &g) != 0 || gid_is_zero(&g))
                continue;
            gids[count].index = i;
            gids[count].type = -1;
            gids[count].gid = g;
            count++;
        }
    }
    free(table);
    *gids_p = gids;
    return count;
}

/* Pick the GID of a RoCE port (or the VBT_IB_GID_INDEX one of any port). Returns VBT_OK,
 * VBT_ERR_NO_DEVICE (nothing usable here, reason in err) or VBT_ERR_NOT_FOUND (the index the
 * user asked for does not exist). */
static vbt_status_t pick_gid(struct ibv_context *dev, int nports, vbt_ib_choice_t *c, char *err,
                             size_t errlen)
{
    gid_info_t *gids, *best = NULL;
    char addr[INET6_ADDRSTRLEN];
    int n = port_gids(dev, nports, c->port, &c->port_attr, &gids, err, errlen);

    if (n < 0)
        return VBT_ERR_NO_DEVICE;
    if (vbt_cfg.ib_gid_index >= 0) {
        for (int i = 0; i < n; i++) {
            if (gids[i].index == vbt_cfg.ib_gid_index)
                best = &gids[i];
        }
        if (best == NULL) {
            snprintf(err, errlen,
                     "VBT_IB_GID_INDEX=%d: %s port %u has no GID at that index; it has",
                     vbt_cfg.ib_gid_index, c->name, c->port);
            for (int i = 0; i < n; i++)
                appendf(err, errlen, "%s %d (%s %s)", i ? "," : "", gids[i].index,
                        gid_type_str(gids[i].type), gid_str(&gids[i].gid, addr, sizeof(addr)));
            if (n == 0)
                appendf(err, errlen, " none");
            free(gids);
            return VBT_ERR_NOT_FOUND;
        }
        appendf(c->why, sizeof(c->why), "; GID index %d by VBT_IB_GID_INDEX", best->index);
    } else {
        for (int i = 0; i < n; i++) {
            if (gids[i].type == IBV_GID_TYPE_IB && is_ethernet(&c->port_attr))
                continue;
            if (best == NULL || gid_preference(&gids[i]) < gid_preference(best))
                best = &gids[i];
        }
        if (best == NULL) {
            snprintf(err, errlen,
                     "%s port %u has no RoCE GID (does its network interface have "
                     "an address?)",
                     c->name, c->port);
            free(gids);
            return VBT_ERR_NO_DEVICE;
        }
        appendf(c->why, sizeof(c->why), "; GID index %d: %s %s%s", best->index,
                gid_type_str(best->type), gid_addr_class(&best->gid),
                best->type == IBV_GID_TYPE_ROCE_V2 ? "" : " (no RoCE v2 GID on this port)");
    }
    c->gid_index = best->index;
    c->gid_type = best->type;
    c->gid = best->gid;
    free(gids);
    return VBT_OK;
}

/* ---- device and port ---------------------------------------------------------------------- */

/* VBT_IB_DEVICE: "auto", "" or name[:port]. */
static vbt_status_t parse_device_knob(char *name, size_t namelen, int *port_p, char *err,
                                      size_t errlen)
{
    const char *spec = vbt_cfg.ib_device != NULL ? vbt_cfg.ib_device : "";
    const char *colon;
    size_t len;

    name[0] = '\0';
    *port_p = 0;
    if (spec[0] == '\0' || strcmp(spec, "auto") == 0)
        return VBT_OK;
    colon = strchr(spec, ':');
    len = colon ? (size_t)(colon - spec) : strlen(spec);
    if (len == 0 || len >= namelen)
        goto bad;
    memcpy(name, spec, len);
    name[len] = '\0';
    if (colon != NULL) {
        char *end;
        long p = strtol(colon + 1, &end, 10);
        if (end == colon + 1 || *end != '\0' || p < 1 || p > 255)
            goto bad;
        *port_p = (int)p;
    }
    return VBT_OK;
bad:
    snprintf(err, errlen,
             "VBT_IB_DEVICE=\"%s\" is not valid: expected device or device:port, "
             "such as mlx5_0:1 or rxe0",
             spec);
    return VBT_ERR_INVALID_PARAM;
}

vbt_status_t vbt_ib_device_select(vbt_ib_choice_t *choice_p, struct ibv_context **dev_p, char *err,
                                  size_t errlen)
{
    char want[64], have[512] = "", notes[512] = "";
    struct ibv_device **list;
    int want_port, ndev = 0, named_found = 0;
    vbt_status_t status;

    memset(choice_p, 0, sizeof(*choice_p));
    err[0] = '\0';
    status = parse_device_knob(want, sizeof(want), &want_port, err, errlen);
    if (status != VBT_OK)
        return status;

    list = ibv_get_device_list(&ndev);
    if (list == NULL) {
        snprintf(err, errlen,
                 "%s%s%sno RDMA device: ibv_get_device_list failed: %s (no RDMA support "
                 "in this kernel?)",
                 want[0] ? "VBT_IB_DEVICE=" : "", want[0] ? vbt_cfg.ib_device : "",
                 want[0] ? ": " : "", strerror(errno));
        return want[0] ? VBT_ERR_NOT_FOUND : VBT_ERR_NO_DEVICE;
    }

    for (int d = 0; d < ndev; d++) {
        const char *name = ibv_get_device_name(list[d]);
        struct ibv_context *dev;
        struct ibv_device_attr da;

        appendf(have, sizeof(have), "%s%s", have[0] ? ", " : "", name);
        if (want[0] && strcmp(name, want) != 0)
            continue;
        named_found = 1;
        dev = ibv_open_device(list[d]);
        if (dev == NULL) {
            appendf(notes, sizeof(notes), "%s%s cannot be opened (%s)", notes[0] ? "; " : "", name,
                    strerror(errno));
            continue;
        }
        if (ibv_query_device(dev, &da) != 0 || list[d]->transport_type != IBV_TRANSPORT_IB) {
            appendf(notes, sizeof(notes), "%s%s is not an InfiniBand/RoCE device",
                    notes[0] ? "; " : "", name);
            ibv_close_device(dev);
            continue;
        }
        if (want_port > da.phys_port_cnt) {
            appendf(notes, sizeof(notes), "%s%s has no port %d (ports 1..%u)", notes[0] ? "; " : "",
                    name, want_port, da.phys_port_cnt);
        }
        for (int p = 1; p <= da.phys_port_cnt; p++) {
            vbt_ib_choice_t *c = choice_p;
            if (want_port && p != want_port)
                continue;
            memset(c, 0, sizeof(*c));
            snprintf(c->name, sizeof(c->name), "%s", name);
            c->port = (uint8_t)p;
            c->dev_attr = da;
            c->gid_index = -1;
            c->gid_type = -1;
            if (ibv_query_port(dev, (uint8_t)p, &c->port_attr) != 0) {
                appendf(notes, sizeof(notes), "%s%s port %d cannot be queried",
                        notes[0] ? "; " : "", name, p);
                continue;
            }
            if (c->port_attr.state != IBV_PORT_ACTIVE) {
                appendf(notes, sizeof(notes), "%s%s port %d is %s", notes[0] ? "; " : "", name, p,
                        ibv_port_state_str(c->port_attr.state));
                continue;
            }
            snprintf(c->why, sizeof(c->why), "%s",
                     want[0] ? "chosen by VBT_IB_DEVICE" : "first ACTIVE port");
            if (is_ethernet(&c->port_attr) || vbt_cfg.ib_gid_index >= 0) {
                char gerr[256] = "";
                status = pick_gid(dev, da.phys_port_cnt, c, gerr, sizeof(gerr));
                if (status == VBT_ERR_NOT_FOUND) {
                    snprintf(err, errlen, "%s", gerr);
                    ibv_close_device(dev);
                    ibv_free_device_list(list);
                    return status;
                }
                if (status != VBT_OK) {
                    appendf(notes, sizeof(notes), "%s%s", notes[0] ? "; " : "", gerr);
                    continue;
                }
            } else {
                appendf(c->why, sizeof(c->why), "; InfiniBand, LID 0x%x", c->port_attr.lid);
            }
            *dev_p = dev;
            ibv_free_device_list(list);
            return VBT_OK;
        }
        ibv_close_device(dev);
    }
    ibv_free_device_list(list);

    if (want[0] && !named_found) {
        snprintf(err, errlen, "VBT_IB_DEVICE=%s: there is no RDMA device %s; this host has %s",
                 vbt_cfg.ib_device, want, have[0] ? have : "none");
        return VBT_ERR_NOT_FOUND;
    }
    if (want[0]) {
        snprintf(err, errlen, "VBT_IB_DEVICE=%s: no usable port: %s", vbt_cfg.ib_device,
                 notes[0] ? notes : "none ACTIVE");
        return VBT_ERR_NOT_FOUND;
    }
    if (ndev == 0) {
        snprintf(err, errlen, "no RDMA device found (ibv_devices lists none)");
        return VBT_ERR_NO_DEVICE;
    }
    snprintf(err, errlen, "no usable RDMA port: %s", notes[0] ? notes : "none ACTIVE");
    return VBT_ERR_NO_DEVICE;
}

/* ---- RLIMIT_MEMLOCK ----------------------------------------------------------------------- */

/* CAP_IPC_LOCK lifts RLIMIT_MEMLOCK for memory registration. */
static int has_cap_ipc_lock(void)
{
    FILE *f = fopen("/proc/self/status", "r");
    char line[256];
    int yes = 0;

    if (f == NULL)
        return 0;
    while (fgets(line, sizeof(line), f) != NULL) {
        unsigned long long caps;
        if (sscanf(line, "CapEff: %llx", &caps) == 1) {
            yes = (caps >> 14) & 1; /* CAP_IPC_LOCK */
            break;
        }
    }
    fclose(f);
    return yes;
}

static const char *rlim_str(rlim_t v, char *buf, size_t len)
{
    if (v == RLIM_INFINITY)
        return "unlimited";
    return size_str((unsigned long long)v, buf, len);
}

static const char memlock_howto[] =
    "raise it with `ulimit -l unlimited` before starting the job (up to the hard limit), for "
    "every login with `* - memlock unlimited` in /etc/security/limits.conf, for a systemd "
    "service with LimitMEMLOCK=infinity, for a container with --ulimit memlock=-1";

size_t vbt_ib_memlock_left(size_t pinned)
{
    struct rlimit rl;

    if (getrlimit(RLIMIT_MEMLOCK, &rl) != 0 || rl.rlim_cur == RLIM_INFINITY || has_cap_ipc_lock())
        return SIZE_MAX;
    return (rlim_t)pinned < rl.rlim_cur ? (size_t)(rl.rlim_cur - (rlim_t)pinned) : 0;
}

int vbt_ib_memlock_explain(char *buf, size_t len)
{
    struct rlimit rl;
    char cur[32], max[32];

    if (getrlimit(RLIMIT_MEMLOCK, &rl) != 0) {
        snprintf(buf, len, "RLIMIT_MEMLOCK cannot be read (%s)", strerror(errno));
        return 0;
    }
    if (rl.rlim_cur == RLIM_INFINITY || has_cap_ipc_lock()) {
        snprintf(buf, len,
                 "RLIMIT_MEMLOCK is %s%s, so it is not the cause: the device ran out "
                 "of memory or queue resources",
                 rlim_str(rl.rlim_cur, cur, sizeof(cur)),
                 rl.rlim_cur == RLIM_INFINITY ? "" : " but this process has CAP_IPC_LOCK");
        return 0;
    }
    snprintf(buf, len,
             "RLIMIT_MEMLOCK (max locked memory) is %s (hard limit %s), likely too "
             "small for the registered memory: %s",
             rlim_str(rl.rlim_cur, cur, sizeof(cur)), rlim_str(rl.rlim_max, max, sizeof(max)),
             memlock_howto);
    return 1;
}

vbt_status_t vbt_ib_memlock_check(size_t need, const char *what)
{
    struct rlimit rl;
    char cur[32], max[32], want[32];

    if (getrlimit(RLIMIT_MEMLOCK, &rl) != 0) {
        vbt_debug("getrlimit(RLIMIT_MEMLOCK) failed: %m: not checking it");
        return VBT_OK;
    }
    if (rl.rlim_cur == RLIM_INFINITY || (rlim_t)need <= rl.rlim_cur) {
        vbt_debug("RLIMIT_MEMLOCK %s covers %s (%zu bytes)",
                  rlim_str(rl.rlim_cur, cur, sizeof(cur)), what, need);
        return VBT_OK;
    }
    if (has_cap_ipc_lock()) {
        vbt_debug("RLIMIT_MEMLOCK is %s but CAP_IPC_LOCK lifts it",
                  rlim_str(rl.rlim_cur, cur, sizeof(cur)));
        return VBT_OK;
    }
    vbt_error("RLIMIT_MEMLOCK (max locked memory) is %s (hard limit %s) but %s need about %s "
              "pinned: %s",
              rlim_str(rl.rlim_cur, cur, sizeof(cur)), rlim_str(rl.rlim_max, max, sizeof(max)),
              what, size_str(need, want, sizeof(want)), memlock_howto);
    return VBT_ERR_MEMLOCK;
}

/* ---- verbatim-info ------------------------------------------------------------------------ */

static void describe_port(FILE *out, struct ibv_context *dev, int nports, uint8_t port)
{
    struct ibv_port_attr pa;
    gid_info_t *gids;
    char err[256], addr[INET6_ADDRSTRLEN], ifname[IF_NAMESIZE];
    int n;

    if (ibv_query_port(dev, port, &pa) != 0) {
        fprintf(out, "    port %u: cannot be queried (%s)\n", port, strerror(errno));
        return;
    }
    fprintf(out, "    port %u: %s, link layer %s, active MTU %s (max %s), LID 0x%x\n", port,
            ibv_port_state_str(pa.state), link_layer_str(pa.link_layer),
            vbt_ib_mtu_str(pa.active_mtu), vbt_ib_mtu_str(pa.max_mtu), pa.lid);
    n = port_gids(dev, nports, port, &pa, &gids, err, sizeof(err));
    if (n < 0) {
        fprintf(out, "      GIDs: %s\n", err);
        return;
    }
    for (int i = 0; i < n; i++) {
        const char *ifn = gids[i].ifindex ? if_indextoname(gids[i].ifindex, ifname) : NULL;
        fprintf(out, "      GID[%d] %-7s %-28s %s%s%s\n", gids[i].index, gid_type_str(gids[i].type),
                gid_str(&gids[i].gid, addr, sizeof(addr)), gid_addr_class(&gids[i].gid),
                ifn ? ", " : "", ifn ? ifn : "");
    }
    if (n == 0)
        fprintf(out, "      no GIDs\n");
    free(gids);
}

/* The kernel's software providers report these vendor ids (drivers/infiniband/sw/rxe/rxe_param.h
 * RXE_VENDOR_ID, drivers/infiniband/sw/siw/siw.h SIW_VENDOR_ID). */
#define VBT_IB_VENDOR_RXE 0xffffffu
#define VBT_IB_VENDOR_SIW 0x626d74u

int vbt_ib_device_is_software(const vbt_ib_choice_t *choice)
{
    uint32_t v = choice->dev_attr.vendor_id;
    return v == VBT_IB_VENDOR_RXE || v == VBT_IB_VENDOR_SIW;
}

/* Mellanox's IEEE OUI, the vendor id of every mlx4 and mlx5 device. */
#define VBT_IB_VENDOR_MELLANOX 0x02c9u

int vbt_ib_atomic_reply_be(const vbt_ib_choice_t *choice)
{
    return __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__ &&
           choice->dev_attr.vendor_id == VBT_IB_VENDOR_MELLANOX;
}

static const char *atomic_cap_str(enum ibv_atomic_cap cap)
{
    switch (cap) {
    case IBV_ATOMIC_NONE:
        return "none";
    case IBV_ATOMIC_HCA:
        return "HCA";
    case IBV_ATOMIC_GLOB:
        return "global";
    }
    return "?";
}

void vbt_ib_describe(FILE *out)
{
    struct ibv_device **list;
    struct ibv_context *dev;
    vbt_ib_choice_t choice;
    vbt_ib_sizes_t s2, s64, s1k;
    struct rlimit rl;
    char err[768], cur[32], max[32], a[32], b[32], d[32], e[32], f[32], g[32],
        addr[INET6_ADDRSTRLEN];
    int ndev = 0;
    vbt_status_t status;

    fprintf(out, "\nRDMA devices (InfiniBand, RoCE):\n");
    list = ibv_get_device_list(&ndev);
    if (list == NULL)
        fprintf(out, "  none: ibv_get_device_list failed: %s\n", strerror(errno));
    else if (ndev == 0)
        fprintf(out, "  none\n");
    for (int d = 0; list != NULL && d < ndev; d++) {
        struct ibv_device_attr da;
        dev = ibv_open_device(list[d]);
        if (dev == NULL) {
            fprintf(out, "  %s: cannot be opened (%s)\n", ibv_get_device_name(list[d]),
                    strerror(errno));
            continue;
        }
        if (ibv_query_device(dev, &da) != 0) {
            fprintf(out, "  %s: cannot be queried\n", ibv_get_device_name(list[d]));
            ibv_close_device(dev);
            continue;
        }
        fprintf(out,
                "  %s: %s, node GUID %016llx, firmware %s, %u port(s), max QP WRs %d, "
                "max SRQ WRs %d, max CQEs %d, READs in flight %d/%d, atomics %s\n",
                ibv_get_device_name(list[d]),
                list[d]->transport_type == IBV_TRANSPORT_IB ? "InfiniBand transport"
                                                            : "not InfiniBand transport",
                (unsigned long long)be64toh(da.node_guid), da.fw_ver[0] ? da.fw_ver : "-",
                da.phys_port_cnt, da.max_qp_wr, da.max_srq_wr, da.max_cqe, da.max_qp_init_rd_atom,
                da.max_qp_rd_atom, atomic_cap_str(da.atomic_cap));
        for (int p = 1; p <= da.phys_port_cnt; p++)
            describe_port(out, dev, da.phys_port_cnt, (uint8_t)p);
        ibv_close_device(dev);
    }
    if (list != NULL)
        ibv_free_device_list(list);

    status = vbt_ib_device_select(&choice, &dev, err, sizeof(err));
    if (status == VBT_OK) {
        fprintf(out, "  Verbatim would use: %s port %u", choice.name, choice.port);
        if (choice.gid_index >= 0)
            fprintf(out, " GID[%d] %s", choice.gid_index, gid_str(&choice.gid, addr, sizeof(addr)));
        fprintf(out, ", path MTU up to %s (%s)\n", vbt_ib_mtu_str(choice.port_attr.active_mtu),
                choice.why);
        ibv_close_device(dev);
    } else {
        fprintf(out, "  Verbatim would use: nothing: %s\n", err);
    }

    if (getrlimit(RLIMIT_MEMLOCK, &rl) == 0)
        fprintf(out, "  RLIMIT_MEMLOCK: %s (hard limit %s)%s\n",
                rlim_str(rl.rlim_cur, cur, sizeof(cur)), rlim_str(rl.rlim_max, max, sizeof(max)),
                has_cap_ipc_lock() ? "; CAP_IPC_LOCK lifts it" : "");
    /* Receive buffers are posted as peers connect: what is pinned at init, then per peer. */
    vbt_ib_sizes(1, vbt_cfg.eager_limit, VBT_IB_RX_FIRST_PEERS, &s2);
    vbt_ib_sizes(63, vbt_cfg.eager_limit, VBT_IB_RX_FIRST_PEERS, &s64);
    vbt_ib_sizes(1023, vbt_cfg.eager_limit, VBT_IB_RX_FIRST_PEERS, &s1k);
    fprintf(out,
            "  Pinned per process with VBT_EAGER_LIMIT=%zu: at init about %s at 2 ranks, %s at "
            "64, %s at 1024 (receive buffers for the first %d peers),\n"
            "  then about %s per further connected peer (64 ranks or more): %s at 64 ranks all "
            "connected, %s at 1024\n",
            vbt_cfg.eager_limit, size_str(s2.pinned_bytes, a, sizeof(a)),
            size_str(s64.pinned_bytes, b, sizeof(b)), size_str(s1k.pinned_bytes, d, sizeof(d)),
            s64.first_peers, size_str(s64.peer_bytes, e, sizeof(e)),
            size_str(s64.pinned_all, f, sizeof(f)), size_str(s1k.pinned_all, g, sizeof(g)));
    /* What the registration cache may pin on top (vbt_ib_rndv_init applies the same rule). */
    {
        size_t left = vbt_ib_memlock_left(s2.pinned_bytes);
        size_t cache = left < vbt_cfg.rcache_max ? left : vbt_cfg.rcache_max;
        fprintf(out,
                "  Registration cache (messages above VBT_RNDV_THRESHOLD=%zu): up to %s "
                "(VBT_RCACHE_MAX=%zu%s)\n",
                vbt_cfg.rndv_threshold, size_str(cache, a, sizeof(a)), vbt_cfg.rcache_max,
                left < vbt_cfg.rcache_max ? ", lowered to what RLIMIT_MEMLOCK leaves at 2 ranks"
                                          : "");
    }
}
