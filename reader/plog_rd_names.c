/* plog_rd_names.c: the names of call classes, communicator kinds and reduction ops. */
#include "plog_rd.h"

const char *plog_class_name(int cls)
{
    static const char *const names[PLOG_CLASS__COUNT] = {
        [PLOG_CLASS_OTHER] = "other",       [PLOG_CLASS_ENV] = "env",
        [PLOG_CLASS_SEND] = "send",         [PLOG_CLASS_RECV] = "recv",
        [PLOG_CLASS_SENDRECV] = "sendrecv", [PLOG_CLASS_ISEND] = "isend",
        [PLOG_CLASS_IRECV] = "irecv",       [PLOG_CLASS_PSEND_INIT] = "psend_init",
        [PLOG_CLASS_PRECV_INIT] = "precv_init", [PLOG_CLASS_START] = "start",
        [PLOG_CLASS_COMPLETE] = "complete", [PLOG_CLASS_REQFREE] = "reqfree",
        [PLOG_CLASS_PROBE] = "probe",       [PLOG_CLASS_COLL] = "coll",
        [PLOG_CLASS_ICOLL] = "icoll",       [PLOG_CLASS_COMM] = "comm",
        [PLOG_CLASS_STEP] = "step",
    };
    if (cls < 0 || cls >= PLOG_CLASS__COUNT)
        return "other";
    return names[cls];
}

const char *plog_op_name(unsigned op)
{
    static const char *const names[] = {"none", "max",    "min",    "sum",     "prod",
                                        "land", "band",   "lor",    "bor",     "lxor",
                                        "bxor", "maxloc", "minloc", "replace", "no_op"};
    if (op < sizeof(names) / sizeof(names[0]))
        return names[op];
    return op == PLOG_OP_USER ? "user" : "unknown";
}

const char *plog_comm_kind_name(uint32_t kind)
{
    switch (kind) {
    case PLOG_COMMK_INTRA: return "intra";
    case PLOG_COMMK_INTER: return "inter";
    case PLOG_COMMK_CART: return "cart";
    case PLOG_COMMK_GRAPH: return "graph";
    case PLOG_COMMK_DIST_GRAPH: return "dist_graph";
    default: return "unknown";
    }
}
