#include "vbt_tl.h"
#include "vbt_vci.h"
#include "vbt_clock.h"
#include "vbt_config.h"
#include "vbt_log.h"

#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* VBT_TRANSPORTS: a comma-separated subset of self and the table's names (any order, spaces
 * allowed). */
static vbt_status_t parse_transports(vbt_tl_set_t *tl, const char *list)
{
    const char *p = list;
    int self = 0;
    char known[128] = "self";

    for (int i = 0; i < tl->nslots; i++) {
        strncat(known, ", ", sizeof(known) - strlen(known) - 1);
        strncat(known, tl->slot[i].ops->name, sizeof(known) - strlen(known) - 1);
    }
    while (*p != '\0') {
        size_t n;
        int found = 0;
        while (*p == ' ' || *p == ',')
            p++;
        n = strcspn(p, ", ");
        if (n == 0)
            break;
        if (n == 4 && strncmp(p, "self", 4) == 0) {
            self = found = 1;
        }
        for (int i = 0; i < tl->nslots && !found; i++) {
            const char *name = tl->slot[i].ops->name;
            if (strlen(name) == n && strncmp(p, name, n) == 0)
                tl->slot[i].wanted = found = 1;
        }
        if (!found) {
            vbt_error("VBT_TRANSPORTS=%s: unknown transport '%.*s' (known: %s; e.g. "
                      "VBT_TRANSPORTS=self,%s)",
                      list, (int)n, p, known, tl->slot[tl->nslots - 1].ops->name);
            return VBT_ERR_INVALID_PARAM;
        }
        p += n;
    }
    if (!self) {
        const char *other = tl->slot[0].ops->name;
        for (int i = 0; i < tl->nslots; i++)
            if (tl->slot[i].wanted)
                other = tl->slot[i].ops->name;
        vbt_error("VBT_TRANSPORTS=%s leaves out self, which carries a rank's messages to itself: "
                  "add it (e.g. VBT_TRANSPORTS=self,%s)",
                  list, other);
        return VBT_ERR_INVALID_PARAM;
    }
    return VBT_OK;
}

static int on_my_node(const vbt_proc_info_t *proc, int world)
{
    for (int i = 0; i < proc->local_size; i++)
        if (proc->local_peers[i] == world)
            return 1;
    return 0;
}

/* How large messages travel over t, for the info log: its rendezvous, chosen by capability. */
static const char *large_path(const vbt_tl_t *t)
{
    if (t->caps & VBT_TL_CAP_READ_PEER)
        return " (large messages: one copy, read from the sender's memory)";
    if (t->caps & VBT_TL_CAP_PUT)
        return " (large messages: zero copy, written into the receive buffer)";
    if (t->caps & VBT_TL_CAP_STREAM)
        return " (large messages: two copies, streamed through its sends)";
    return " (large messages: eager fragments)";
}

/* The first transport of the table that reaches each peer; the reasons when none does. */
static vbt_status_t select_per_peer(vbt_tl_set_t *tl, const vbt_proc_info_t *proc)
{
    for (int r = 0; r < proc->size; r++) {
        vbt_tl_t *t = NULL;
        int local = on_my_node(proc, r);

        if (r == proc->rank) {
            if (tl->instance == 0)
                vbt_debug("transport to rank %d (ourselves): self", r);
            continue;
        }
        for (int i = 0; i < tl->nslots && t == NULL; i++) {
            vbt_tl_iface_t *f = tl->slot[i].iface;
            if (f != NULL && f->ops->reaches(f, r))
                t = f;
        }
        if (t == NULL) {
            char why[2048] = "";
            for (int i = 0; i < tl->nslots; i++) {
                const vbt_tl_slot_t *s = &tl->slot[i];
                size_t used = strlen(why);
                snprintf(why + used, sizeof(why) - used, "%s%s: %s", used > 0 ? "; " : "",
                         s->ops->name,
                         s->iface != NULL ? "up, but it does not reach that rank" : s->why);
            }
            vbt_error("rank %d cannot reach rank %d (%s): %s; VBT_TRANSPORTS=%s", proc->rank, r,
                      local ? "on this node" : "on another node", why, vbt_cfg.transports);
            return VBT_ERR_UNREACHABLE;
        }
        tl->peer[r] = t;
        for (int i = 0; i < tl->nslots; i++)
            tl->slot[i].npeers += tl->slot[i].iface == t;
        /* Every set makes the same choice: said once, for the first. */
        if (tl->instance == 0)
            vbt_info("transport to rank %d (%s): %s%s", r,
                     local ? "on this node" : "on another node", t->ops->name, large_path(t));
    }
    return VBT_OK;
}

/* The upcall through which a transport reads a peer's published address, on demand. */
static vbt_status_t peer_addr(void *addr_arg, int peer, void **blob_p, size_t *len_p)
{
    const vbt_tl_slot_t *s = addr_arg;

    return vbt_modex_get(peer, s->key, blob_p, len_p);
}

/* Bring up one table entry and publish its address. Only a hard error (a knob naming what does
 * not exist, too little pinnable memory) fails MPI_Init; a transport with nothing usable here
 * just stays down, with the reason kept for the unreachable-peer message. */
static vbt_status_t slot_init(vbt_tl_slot_t *s, const vbt_tl_job_t *job, const vbt_tl_upcalls_t *up)
{
    unsigned char addr[VBT_TL_ADDR_MAX];
    size_t addr_len = sizeof(addr);
    vbt_tl_iface_t *iface = NULL;
    vbt_status_t status;

    /* The first instance's key is the one it always had: a job of one VCI publishes the same. */
    if (job->instance == 0)
        snprintf(s->key, sizeof(s->key), "%s.addr", s->ops->name);
    else
        snprintf(s->key, sizeof(s->key), "%s.addr.%d", s->ops->name, job->instance);
    s->up = *up;
    s->up.peer_addr = peer_addr;
    s->up.addr_arg = s;
    status = s->ops->init(job, &s->up, &iface, addr, &addr_len, s->why, sizeof(s->why));
    if (status == VBT_ERR_NO_DEVICE)
        return VBT_OK;
    if (status != VBT_OK)
        return status;
    s->iface = iface;
    if (addr_len > 0)
        status = vbt_modex_put(s->key, addr, addr_len);
    return status;
}

vbt_status_t vbt_tl_open(vbt_tl_set_t *tl, const vbt_proc_info_t *proc, const vbt_tl_upcalls_t *up,
                         int instance)
{
    vbt_tl_job_t job = {.rank = proc->rank,
                        .size = proc->size,
                        .local_peers = proc->local_peers,
                        .local_size = proc->local_size,
                        .job_name =
                            getenv("PMIX_NAMESPACE") != NULL ? getenv("PMIX_NAMESPACE") : "",
                        .instance = instance};
    vbt_status_t status;

    memset(tl, 0, sizeof(*tl));
    tl->instance = instance;
    while (vbt_tl_table[tl->nslots] != NULL && tl->nslots < VBT_TL_MAX) {
        tl->slot[tl->nslots].ops = vbt_tl_table[tl->nslots];
        tl->nslots++;
    }
    status = parse_transports(tl, vbt_cfg.transports);
    if (status != VBT_OK)
        return status;
    tl->peer = calloc((size_t)proc->size, sizeof(*tl->peer));
    if (tl->peer == NULL)
        return VBT_ERR_NO_MEMORY;
    if (proc->size == 1)
        return VBT_OK;
    for (int i = 0; i < tl->nslots; i++) {
        vbt_tl_slot_t *s = &tl->slot[i];
        if (!s->wanted) {
            snprintf(s->why, sizeof(s->why), "%s is not in VBT_TRANSPORTS", s->ops->name);
            continue;
        }
        status = slot_init(s, &job, up);
        if (status != VBT_OK)
            return status;
    }
    return VBT_OK;
}

vbt_status_t vbt_tl_connect(vbt_tl_set_t *tl, const vbt_proc_info_t *proc)
{
    vbt_status_t status;

    if (proc->size == 1)
        return VBT_OK;
    for (int i = 0; i < tl->nslots; i++) {
        vbt_tl_iface_t *f = tl->slot[i].iface;
        if (f == NULL)
            continue;
        status = f->ops->wireup(f);
        if (status != VBT_OK)
            return status;
        tl->up[tl->nup++] = f;
    }
    return select_per_peer(tl, proc);
}

int vbt_tl_spin_polls(const vbt_tl_set_t *tl)
{
    int polls = 0;

    for (int i = 0; i < tl->nslots; i++) {
        const vbt_tl_t *t = tl->slot[i].iface;
        if (t != NULL && tl->slot[i].npeers > 0 && t->spin_polls > 0 &&
            (polls == 0 || t->spin_polls < polls))
            polls = t->spin_polls;
    }
    return polls;
}

vbt_status_t vbt_tl_check_peers(vbt_tl_set_t *const *sets, int nsets)
{
    vbt_status_t status = VBT_OK;

    for (int s = 0; s < nsets; s++) {
        for (int i = 0; i < sets[s]->nup; i++) {
            vbt_tl_iface_t *f = sets[s]->up[i];
            vbt_status_t st = f->ops->check_liveness(f);
            if (status == VBT_OK)
                status = st;
        }
    }
    return status;
}

vbt_status_t vbt_tl_block(vbt_tl_set_t *const *sets, int nsets, int timeout_ms)
{
    struct pollfd fds[VBT_TL_MAX * VBT_VCI_MAX];
    vbt_tl_iface_t *slept[VBT_TL_MAX * VBT_VCI_MAX];
    int nfds = 0, want = 0, rc;
    uint64_t start_ns;
    vbt_status_t status = VBT_OK;

    for (int s = 0; s < nsets && status == VBT_OK; s++) {
        want += sets[s]->nup;
        for (int i = 0; i < sets[s]->nup; i++) {
            vbt_tl_iface_t *f = sets[s]->up[i];
            int sleep = 0, max;
            /* Liveness checks due go out before the sleep: a peer's death then wakes it. */
            status = f->ops->check_liveness(f);
            if (status == VBT_OK)
                status = f->ops->sleep_begin(f, &sleep);
            if (status != VBT_OK || !sleep)
                break;
            slept[nfds] = f;
            fds[nfds++] = (struct pollfd){.fd = f->ops->wait_fd(f), .events = POLLIN};
            max = f->ops->max_sleep_ms(f);
            if (max >= 0 && (timeout_ms < 0 || timeout_ms > max))
                timeout_ms = max;
        }
        if (nfds < want)
            break;
    }
    if (status != VBT_OK || nfds < want) {
        /* Something arrived (or failed) while arming: those armed already stand down. */
        for (int i = 0; i < nfds; i++) {
            vbt_status_t st = slept[i]->ops->sleep_end(slept[i], 0, 0);
            if (status == VBT_OK)
                status = st;
        }
        return status;
    }
    if (nfds == 0)
        return VBT_OK;
    start_ns = vbt_now_ns();
    rc = poll(fds, (nfds_t)nfds, timeout_ms);
    sets[0]->blocked_ns += vbt_now_ns() - start_ns;
    sets[0]->sleeps++;
    sets[0]->wakeups += rc > 0;
    if (rc < 0 && errno != EINTR) {
        vbt_error("poll() on the transports' wake-up descriptors failed: %m");
        rc = 0;
    }
    for (int i = 0; i < nfds; i++) {
        vbt_status_t st =
            slept[i]->ops->sleep_end(slept[i], rc > 0 && (fds[i].revents & POLLIN), rc == 0);
        if (status == VBT_OK)
            status = st;
    }
    return status;
}

void vbt_tl_finalize(vbt_tl_set_t *tl)
{
    /* In reverse order of the table, as the transports came up. */
    for (int i = tl->nslots - 1; i >= 0; i--)
        if (tl->slot[i].iface != NULL)
            tl->slot[i].ops->finalize(tl->slot[i].iface);
    free(tl->peer);
    memset(tl, 0, sizeof(*tl));
}
