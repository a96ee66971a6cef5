/* ucx_tagtrace.c: an LD_PRELOAD module for run_mpich_wire_tests.sh that records the tagged
 * messages MPICH's ch4:ucx netmod hands to UCX, the library ground truth for `phasor steps`
 * under MPICH (which has no pml monitoring). It wraps ucp_tag_send_nbx, ucp_tag_send_sync_nbx
 * and ucp_tag_recv_nbx, passes every call through unchanged (dlsym RTLD_NEXT) and writes one
 * line per call to $PHASOR_UCX_TRACE/ucx.<PMI_RANK>:
 *     S <ctx> <tag> <bytes>          a send (bytes -1: non-contiguous UCX datatype)
 *     R <ctx> <src> <tag> <bytes>    a posted receive (its buffer size)
 * MPICH's UCX tag (src/mpid/ch4/netmod/ucx/ucx_impl.h): context id in the top 16 bits, the
 * sender's rank in the communicator in the next 16, the MPI tag in the low 32. A send's
 * destination is not visible (an endpoint), a receive's source is. Single-threaded use. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <ucp/api/ucp.h>

typedef ucs_status_ptr_t (*send_fn)(ucp_ep_h, const void *, size_t, ucp_tag_t,
                                    const ucp_request_param_t *);
typedef ucs_status_ptr_t (*recv_fn)(ucp_worker_h, void *, size_t, ucp_tag_t, ucp_tag_t,
                                    const ucp_request_param_t *);

static FILE *out(void)
{
    static FILE *f;
    static int tried;
    if (!tried) {
        tried = 1;
        const char *d = getenv("PHASOR_UCX_TRACE"), *r = getenv("PMI_RANK");
        char path[4096];
        if (d && r && snprintf(path, sizeof path, "%s/ucx.%s", d, r) < (int)sizeof path)
            f = fopen(path, "w");
    }
    return f;
}

/* bytes of count items of the request's datatype; -1 if not contiguous (MPICH's generic
 * datatypes: the size is MPICH's to know) */
static long long bytes(size_t count, const ucp_request_param_t *p)
{
    if (!p || !(p->op_attr_mask & UCP_OP_ATTR_FIELD_DATATYPE))
        return (long long)count; /* ucp_dt_make_contig(1) */
    ucp_datatype_t d = p->datatype;
    if ((d & UCP_DATATYPE_CLASS_MASK) != UCP_DATATYPE_CONTIG)
        return -1;
    return (long long)(count * (size_t)(d >> UCP_DATATYPE_SHIFT));
}

static ucs_status_ptr_t send_common(const char *name, send_fn *real, ucp_ep_h ep,
                                    const void *buf, size_t count, ucp_tag_t tag,
                                    const ucp_request_param_t *p)
{
    if (!*real)
        *real = (send_fn)dlsym(RTLD_NEXT, name);
    FILE *f = out();
    if (f)
        fprintf(f, "S %u %u %lld\n", (unsigned)(tag >> 48), (unsigned)(tag & 0xffffffffu),
                bytes(count, p));
    return (*real)(ep, buf, count, tag, p);
}

ucs_status_ptr_t ucp_tag_send_nbx(ucp_ep_h ep, const void *buf, size_t count, ucp_tag_t tag,
                                  const ucp_request_param_t *p)
{
    static send_fn real;
    return send_common("ucp_tag_send_nbx", &real, ep, buf, count, tag, p);
}

ucs_status_ptr_t ucp_tag_send_sync_nbx(ucp_ep_h ep, const void *buf, size_t count,
                                       ucp_tag_t tag, const ucp_request_param_t *p)
{
    static send_fn real;
    return send_common("ucp_tag_send_sync_nbx", &real, ep, buf, count, tag, p);
}

ucs_status_ptr_t ucp_tag_recv_nbx(ucp_worker_h w, void *buf, size_t count, ucp_tag_t tag,
                                  ucp_tag_t mask, const ucp_request_param_t *p)
{
    static recv_fn real;
    if (!real)
        real = (recv_fn)dlsym(RTLD_NEXT, "ucp_tag_recv_nbx");
    FILE *f = out();
    if (f)
        fprintf(f, "R %u %u %u %lld\n", (unsigned)(tag >> 48), (unsigned)((tag >> 32) & 0xffff),
                (unsigned)(tag & 0xffffffffu), bytes(count, p));
    return real(w, buf, count, tag, mask, p);
}
