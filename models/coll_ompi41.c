/* coll_ompi41.c: which algorithm Open MPI 4.1.x runs for a collective on an intracommunicator
 * (component selection, coll/tuned's fixed decision rules, the forcing MCA variables, and the
 * fallbacks inside the algorithms), as read from v4.1.4 (identical through 4.1.8). */
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "coll_ompi.h"

/* The fixed rules of ompi/mca/coll/tuned/coll_tuned_decision_fixed.c v4.1.4, one row per
 * `alg = N;` (its line number last), flattened in source order: the first row that matches
 * wins, which is what the nested if/else chains do. Comparisons are strict `<` as in the
 * source; d is total, per-rank or average bytes as pcs_ompi41_dsize says. */
enum { R_ANY, R_COMM, R_NONCOMM };
enum { R_ALL, R_LT, R_EQ };
typedef struct rule {
    uint8_t coll, comm, csop;
    int cs;
    int64_t dlt; /* d < dlt; -1: any */
    uint8_t alg;
    uint16_t line;
} rule_t;

static const rule_t rules[] = {
    {PCS_ALLREDUCE, R_NONCOMM, R_LT, 4, 131072, 3, 83},
    {PCS_ALLREDUCE, R_NONCOMM, R_LT, 4, -1, 1, 85},
    {PCS_ALLREDUCE, R_NONCOMM, R_LT, 8, -1, 3, 88},
    {PCS_ALLREDUCE, R_NONCOMM, R_LT, 16, 1048576, 3, 91},
    {PCS_ALLREDUCE, R_NONCOMM, R_LT, 16, -1, 2, 93},
    {PCS_ALLREDUCE, R_NONCOMM, R_LT, 128, -1, 3, 96},
    {PCS_ALLREDUCE, R_NONCOMM, R_LT, 256, 131072, 2, 99},
    {PCS_ALLREDUCE, R_NONCOMM, R_LT, 256, 524288, 3, 101},
    {PCS_ALLREDUCE, R_NONCOMM, R_LT, 256, -1, 2, 103},
    {PCS_ALLREDUCE, R_NONCOMM, R_LT, 512, 4096, 2, 107},
    {PCS_ALLREDUCE, R_NONCOMM, R_LT, 512, 524288, 3, 109},
    {PCS_ALLREDUCE, R_NONCOMM, R_LT, 512, -1, 2, 111},
    {PCS_ALLREDUCE, R_NONCOMM, R_ALL, 0, 2048, 2, 115},
    {PCS_ALLREDUCE, R_NONCOMM, R_ALL, 0, -1, 3, 117},
    {PCS_ALLREDUCE, R_COMM, R_LT, 4, 8, 4, 123},
    {PCS_ALLREDUCE, R_COMM, R_LT, 4, 4096, 3, 125},
    {PCS_ALLREDUCE, R_COMM, R_LT, 4, 8192, 4, 127},
    {PCS_ALLREDUCE, R_COMM, R_LT, 4, 16384, 3, 129},
    {PCS_ALLREDUCE, R_COMM, R_LT, 4, 65536, 4, 131},
    {PCS_ALLREDUCE, R_COMM, R_LT, 4, 262144, 5, 133},
    {PCS_ALLREDUCE, R_COMM, R_LT, 4, -1, 6, 135},
    {PCS_ALLREDUCE, R_COMM, R_LT, 8, 16, 4, 139},
    {PCS_ALLREDUCE, R_COMM, R_LT, 8, 8192, 3, 141},
    {PCS_ALLREDUCE, R_COMM, R_LT, 8, -1, 6, 143},
    {PCS_ALLREDUCE, R_COMM, R_LT, 16, 8192, 3, 147},
    {PCS_ALLREDUCE, R_COMM, R_LT, 16, -1, 6, 149},
    {PCS_ALLREDUCE, R_COMM, R_LT, 32, 64, 5, 153},
    {PCS_ALLREDUCE, R_COMM, R_LT, 32, 4096, 3, 155},
    {PCS_ALLREDUCE, R_COMM, R_LT, 32, -1, 6, 157},
    {PCS_ALLREDUCE, R_COMM, R_LT, 64, 128, 5, 161},
    {PCS_ALLREDUCE, R_COMM, R_LT, 64, -1, 6, 163},
    {PCS_ALLREDUCE, R_COMM, R_LT, 128, 262144, 3, 167},
    {PCS_ALLREDUCE, R_COMM, R_LT, 128, -1, 6, 169},
    {PCS_ALLREDUCE, R_COMM, R_LT, 256, 131072, 2, 173},
    {PCS_ALLREDUCE, R_COMM, R_LT, 256, 262144, 3, 175},
    {PCS_ALLREDUCE, R_COMM, R_LT, 256, -1, 6, 177},
    {PCS_ALLREDUCE, R_COMM, R_LT, 512, 4096, 2, 181},
    {PCS_ALLREDUCE, R_COMM, R_LT, 512, -1, 6, 183},
    {PCS_ALLREDUCE, R_COMM, R_LT, 2048, 2048, 2, 187},
    {PCS_ALLREDUCE, R_COMM, R_LT, 2048, 16384, 3, 189},
    {PCS_ALLREDUCE, R_COMM, R_LT, 2048, -1, 6, 191},
    {PCS_ALLREDUCE, R_COMM, R_LT, 4096, 2048, 2, 195},
    {PCS_ALLREDUCE, R_COMM, R_LT, 4096, 4096, 5, 197},
    {PCS_ALLREDUCE, R_COMM, R_LT, 4096, 16384, 3, 199},
    {PCS_ALLREDUCE, R_COMM, R_LT, 4096, -1, 6, 201},
    {PCS_ALLREDUCE, R_COMM, R_ALL, 0, 2048, 2, 205},
    {PCS_ALLREDUCE, R_COMM, R_ALL, 0, 16384, 5, 207},
    {PCS_ALLREDUCE, R_COMM, R_ALL, 0, 32768, 3, 209},
    {PCS_ALLREDUCE, R_COMM, R_ALL, 0, -1, 6, 211},
    {PCS_ALLTOALL, R_ANY, R_EQ, 2, 2, 2, 255},
    {PCS_ALLTOALL, R_ANY, R_EQ, 2, 4, 5, 257},
    {PCS_ALLTOALL, R_ANY, R_EQ, 2, 16, 2, 259},
    {PCS_ALLTOALL, R_ANY, R_EQ, 2, 64, 5, 261},
    {PCS_ALLTOALL, R_ANY, R_EQ, 2, 256, 2, 263},
    {PCS_ALLTOALL, R_ANY, R_EQ, 2, 4096, 5, 265},
    {PCS_ALLTOALL, R_ANY, R_EQ, 2, 32768, 2, 267},
    {PCS_ALLTOALL, R_ANY, R_EQ, 2, 262144, 4, 269},
    {PCS_ALLTOALL, R_ANY, R_EQ, 2, 1048576, 5, 271},
    {PCS_ALLTOALL, R_ANY, R_EQ, 2, -1, 2, 273},
    {PCS_ALLTOALL, R_ANY, R_LT, 8, 8192, 4, 277},
    {PCS_ALLTOALL, R_ANY, R_LT, 8, 16384, 1, 279},
    {PCS_ALLTOALL, R_ANY, R_LT, 8, 65536, 4, 281},
    {PCS_ALLTOALL, R_ANY, R_LT, 8, 524288, 1, 283},
    {PCS_ALLTOALL, R_ANY, R_LT, 8, 1048576, 2, 285},
    {PCS_ALLTOALL, R_ANY, R_LT, 8, -1, 1, 287},
    {PCS_ALLTOALL, R_ANY, R_LT, 16, 262144, 4, 291},
    {PCS_ALLTOALL, R_ANY, R_LT, 16, -1, 1, 293},
    {PCS_ALLTOALL, R_ANY, R_LT, 32, 4, 4, 297},
    {PCS_ALLTOALL, R_ANY, R_LT, 32, 512, 3, 299},
    {PCS_ALLTOALL, R_ANY, R_LT, 32, 8192, 4, 301},
    {PCS_ALLTOALL, R_ANY, R_LT, 32, 32768, 1, 303},
    {PCS_ALLTOALL, R_ANY, R_LT, 32, 262144, 4, 305},
    {PCS_ALLTOALL, R_ANY, R_LT, 32, 524288, 1, 307},
    {PCS_ALLTOALL, R_ANY, R_LT, 32, -1, 4, 309},
    {PCS_ALLTOALL, R_ANY, R_LT, 64, 512, 3, 313},
    {PCS_ALLTOALL, R_ANY, R_LT, 64, 524288, 1, 315},
    {PCS_ALLTOALL, R_ANY, R_LT, 64, -1, 4, 317},
    {PCS_ALLTOALL, R_ANY, R_LT, 128, 1024, 3, 321},
    {PCS_ALLTOALL, R_ANY, R_LT, 128, 2048, 1, 323},
    {PCS_ALLTOALL, R_ANY, R_LT, 128, 4096, 4, 325},
    {PCS_ALLTOALL, R_ANY, R_LT, 128, 262144, 1, 327},
    {PCS_ALLTOALL, R_ANY, R_LT, 128, -1, 2, 329},
    {PCS_ALLTOALL, R_ANY, R_LT, 256, 1024, 3, 333},
    {PCS_ALLTOALL, R_ANY, R_LT, 256, 2048, 4, 335},
    {PCS_ALLTOALL, R_ANY, R_LT, 256, 262144, 1, 337},
    {PCS_ALLTOALL, R_ANY, R_LT, 256, -1, 2, 339},
    {PCS_ALLTOALL, R_ANY, R_LT, 512, 1024, 3, 343},
    {PCS_ALLTOALL, R_ANY, R_LT, 512, 8192, 4, 345},
    {PCS_ALLTOALL, R_ANY, R_LT, 512, 32768, 1, 347},
    {PCS_ALLTOALL, R_ANY, R_LT, 512, -1, 2, 349},
    {PCS_ALLTOALL, R_ANY, R_LT, 1024, 512, 3, 353},
    {PCS_ALLTOALL, R_ANY, R_LT, 1024, 8192, 4, 355},
    {PCS_ALLTOALL, R_ANY, R_LT, 1024, 16384, 1, 357},
    {PCS_ALLTOALL, R_ANY, R_LT, 1024, 131072, 4, 359},
    {PCS_ALLTOALL, R_ANY, R_LT, 1024, 262144, 1, 361},
    {PCS_ALLTOALL, R_ANY, R_LT, 1024, -1, 2, 363},
    {PCS_ALLTOALL, R_ANY, R_LT, 2048, 512, 3, 367},
    {PCS_ALLTOALL, R_ANY, R_LT, 2048, 1024, 4, 369},
    {PCS_ALLTOALL, R_ANY, R_LT, 2048, 2048, 1, 371},
    {PCS_ALLTOALL, R_ANY, R_LT, 2048, 16384, 4, 373},
    {PCS_ALLTOALL, R_ANY, R_LT, 2048, 262144, 1, 375},
    {PCS_ALLTOALL, R_ANY, R_LT, 2048, -1, 4, 377},
    {PCS_ALLTOALL, R_ANY, R_LT, 4096, 1024, 3, 381},
    {PCS_ALLTOALL, R_ANY, R_LT, 4096, 4096, 4, 383},
    {PCS_ALLTOALL, R_ANY, R_LT, 4096, 8192, 1, 385},
    {PCS_ALLTOALL, R_ANY, R_LT, 4096, 131072, 4, 387},
    {PCS_ALLTOALL, R_ANY, R_LT, 4096, -1, 1, 389},
    {PCS_ALLTOALL, R_ANY, R_ALL, 0, 2048, 3, 393},
    {PCS_ALLTOALL, R_ANY, R_ALL, 0, 8192, 4, 395},
    {PCS_ALLTOALL, R_ANY, R_ALL, 0, 16384, 1, 397},
    {PCS_ALLTOALL, R_ANY, R_ALL, 0, 32768, 4, 399},
    {PCS_ALLTOALL, R_ANY, R_ALL, 0, 65536, 1, 401},
    {PCS_ALLTOALL, R_ANY, R_ALL, 0, -1, 4, 403},
    {PCS_ALLTOALLV, R_ANY, R_LT, 4, -1, 2, 437},
    {PCS_ALLTOALLV, R_ANY, R_LT, 64, -1, 1, 439},
    {PCS_ALLTOALLV, R_ANY, R_LT, 128, -1, 2, 441},
    {PCS_ALLTOALLV, R_ANY, R_LT, 256, -1, 1, 443},
    {PCS_ALLTOALLV, R_ANY, R_LT, 1024, -1, 2, 445},
    {PCS_ALLTOALLV, R_ANY, R_ALL, 0, -1, 1, 447},
    {PCS_BARRIER, R_ANY, R_LT, 4, -1, 3, 483},
    {PCS_BARRIER, R_ANY, R_LT, 8, -1, 1, 485},
    {PCS_BARRIER, R_ANY, R_LT, 64, -1, 3, 487},
    {PCS_BARRIER, R_ANY, R_LT, 256, -1, 4, 489},
    {PCS_BARRIER, R_ANY, R_LT, 512, -1, 6, 491},
    {PCS_BARRIER, R_ANY, R_LT, 1024, -1, 4, 493},
    {PCS_BARRIER, R_ANY, R_LT, 4096, -1, 6, 495},
    {PCS_BARRIER, R_ANY, R_ALL, 0, -1, 4, 497},
    {PCS_BCAST, R_ANY, R_LT, 4, 32, 3, 541},
    {PCS_BCAST, R_ANY, R_LT, 4, 256, 5, 543},
    {PCS_BCAST, R_ANY, R_LT, 4, 512, 3, 545},
    {PCS_BCAST, R_ANY, R_LT, 4, 1024, 7, 547},
    {PCS_BCAST, R_ANY, R_LT, 4, 32768, 1, 549},
    {PCS_BCAST, R_ANY, R_LT, 4, 131072, 5, 551},
    {PCS_BCAST, R_ANY, R_LT, 4, 262144, 2, 553},
    {PCS_BCAST, R_ANY, R_LT, 4, 524288, 1, 555},
    {PCS_BCAST, R_ANY, R_LT, 4, 1048576, 6, 557},
    {PCS_BCAST, R_ANY, R_LT, 4, -1, 5, 559},
    {PCS_BCAST, R_ANY, R_LT, 8, 64, 5, 563},
    {PCS_BCAST, R_ANY, R_LT, 8, 128, 6, 565},
    {PCS_BCAST, R_ANY, R_LT, 8, 2048, 5, 567},
    {PCS_BCAST, R_ANY, R_LT, 8, 8192, 6, 569},
    {PCS_BCAST, R_ANY, R_LT, 8, 1048576, 1, 571},
    {PCS_BCAST, R_ANY, R_LT, 8, -1, 2, 573},
    {PCS_BCAST, R_ANY, R_LT, 16, 8, 7, 577},
    {PCS_BCAST, R_ANY, R_LT, 16, 64, 5, 579},
    {PCS_BCAST, R_ANY, R_LT, 16, 4096, 7, 581},
    {PCS_BCAST, R_ANY, R_LT, 16, 16384, 5, 583},
    {PCS_BCAST, R_ANY, R_LT, 16, 32768, 6, 585},
    {PCS_BCAST, R_ANY, R_LT, 16, -1, 1, 587},
    {PCS_BCAST, R_ANY, R_LT, 32, 4096, 7, 591},
    {PCS_BCAST, R_ANY, R_LT, 32, 1048576, 6, 593},
    {PCS_BCAST, R_ANY, R_LT, 32, -1, 8, 595},
    {PCS_BCAST, R_ANY, R_LT, 64, 2048, 6, 599},
    {PCS_BCAST, R_ANY, R_LT, 64, -1, 7, 601},
    {PCS_BCAST, R_ANY, R_LT, 128, -1, 7, 604},
    {PCS_BCAST, R_ANY, R_LT, 256, 2, 6, 607},
    {PCS_BCAST, R_ANY, R_LT, 256, 16384, 5, 609},
    {PCS_BCAST, R_ANY, R_LT, 256, 32768, 1, 611},
    {PCS_BCAST, R_ANY, R_LT, 256, 65536, 5, 613},
    {PCS_BCAST, R_ANY, R_LT, 256, -1, 7, 615},
    {PCS_BCAST, R_ANY, R_LT, 1024, 16384, 7, 619},
    {PCS_BCAST, R_ANY, R_LT, 1024, 32768, 4, 621},
    {PCS_BCAST, R_ANY, R_LT, 1024, -1, 7, 623},
    {PCS_BCAST, R_ANY, R_LT, 2048, 524288, 7, 627},
    {PCS_BCAST, R_ANY, R_LT, 2048, -1, 8, 629},
    {PCS_BCAST, R_ANY, R_LT, 4096, 262144, 7, 633},
    {PCS_BCAST, R_ANY, R_LT, 4096, -1, 8, 635},
    {PCS_BCAST, R_ANY, R_ALL, 0, 8192, 7, 639},
    {PCS_BCAST, R_ANY, R_ALL, 0, 16384, 5, 641},
    {PCS_BCAST, R_ANY, R_ALL, 0, 262144, 7, 643},
    {PCS_BCAST, R_ANY, R_ALL, 0, -1, 8, 645},
    {PCS_REDUCE, R_NONCOMM, R_LT, 4, 8, 6, 694},
    {PCS_REDUCE, R_NONCOMM, R_LT, 4, -1, 1, 696},
    {PCS_REDUCE, R_NONCOMM, R_LT, 8, -1, 1, 699},
    {PCS_REDUCE, R_NONCOMM, R_LT, 16, 1024, 6, 702},
    {PCS_REDUCE, R_NONCOMM, R_LT, 16, 8192, 1, 704},
    {PCS_REDUCE, R_NONCOMM, R_LT, 16, 16384, 6, 706},
    {PCS_REDUCE, R_NONCOMM, R_LT, 16, 262144, 1, 708},
    {PCS_REDUCE, R_NONCOMM, R_LT, 16, -1, 6, 710},
    {PCS_REDUCE, R_NONCOMM, R_LT, 128, -1, 6, 713},
    {PCS_REDUCE, R_NONCOMM, R_LT, 256, 512, 6, 716},
    {PCS_REDUCE, R_NONCOMM, R_LT, 256, 1024, 1, 718},
    {PCS_REDUCE, R_NONCOMM, R_LT, 256, -1, 6, 720},
    {PCS_REDUCE, R_NONCOMM, R_ALL, 0, -1, 6, 723},
    {PCS_REDUCE, R_COMM, R_LT, 4, 8, 7, 728},
    {PCS_REDUCE, R_COMM, R_LT, 4, 16, 4, 730},
    {PCS_REDUCE, R_COMM, R_LT, 4, 32, 3, 732},
    {PCS_REDUCE, R_COMM, R_LT, 4, 262144, 1, 734},
    {PCS_REDUCE, R_COMM, R_LT, 4, 524288, 3, 736},
    {PCS_REDUCE, R_COMM, R_LT, 4, 1048576, 2, 738},
    {PCS_REDUCE, R_COMM, R_LT, 4, -1, 3, 740},
    {PCS_REDUCE, R_COMM, R_LT, 8, 4096, 4, 744},
    {PCS_REDUCE, R_COMM, R_LT, 8, 65536, 2, 746},
    {PCS_REDUCE, R_COMM, R_LT, 8, 262144, 5, 748},
    {PCS_REDUCE, R_COMM, R_LT, 8, 524288, 1, 750},
    {PCS_REDUCE, R_COMM, R_LT, 8, 1048576, 5, 752},
    {PCS_REDUCE, R_COMM, R_LT, 8, -1, 1, 754},
    {PCS_REDUCE, R_COMM, R_LT, 16, 8192, 4, 758},
    {PCS_REDUCE, R_COMM, R_LT, 16, -1, 5, 760},
    {PCS_REDUCE, R_COMM, R_LT, 32, 4096, 4, 764},
    {PCS_REDUCE, R_COMM, R_LT, 32, -1, 5, 766},
    {PCS_REDUCE, R_COMM, R_LT, 256, -1, 5, 769},
    {PCS_REDUCE, R_COMM, R_LT, 512, 8192, 5, 772},
    {PCS_REDUCE, R_COMM, R_LT, 512, 16384, 6, 774},
    {PCS_REDUCE, R_COMM, R_LT, 512, -1, 5, 776},
    {PCS_REDUCE, R_COMM, R_LT, 2048, -1, 5, 779},
    {PCS_REDUCE, R_COMM, R_LT, 4096, 512, 5, 782},
    {PCS_REDUCE, R_COMM, R_LT, 4096, 1024, 6, 784},
    {PCS_REDUCE, R_COMM, R_LT, 4096, 8192, 5, 786},
    {PCS_REDUCE, R_COMM, R_LT, 4096, 16384, 6, 788},
    {PCS_REDUCE, R_COMM, R_LT, 4096, -1, 5, 790},
    {PCS_REDUCE, R_COMM, R_ALL, 0, 16, 5, 794},
    {PCS_REDUCE, R_COMM, R_ALL, 0, 32, 6, 796},
    {PCS_REDUCE, R_COMM, R_ALL, 0, 1024, 5, 798},
    {PCS_REDUCE, R_COMM, R_ALL, 0, 2048, 6, 800},
    {PCS_REDUCE, R_COMM, R_ALL, 0, 8192, 5, 802},
    {PCS_REDUCE, R_COMM, R_ALL, 0, 16384, 6, 804},
    {PCS_REDUCE, R_COMM, R_ALL, 0, -1, 5, 806},
    {PCS_REDUCE_SCATTER, R_NONCOMM, R_ALL, 0, -1, 1, 854},
    {PCS_REDUCE_SCATTER, R_COMM, R_LT, 4, 65536, 3, 858},
    {PCS_REDUCE_SCATTER, R_COMM, R_LT, 4, 131072, 4, 860},
    {PCS_REDUCE_SCATTER, R_COMM, R_LT, 4, -1, 3, 862},
    {PCS_REDUCE_SCATTER, R_COMM, R_LT, 8, 8, 1, 866},
    {PCS_REDUCE_SCATTER, R_COMM, R_LT, 8, 262144, 2, 868},
    {PCS_REDUCE_SCATTER, R_COMM, R_LT, 8, -1, 3, 870},
    {PCS_REDUCE_SCATTER, R_COMM, R_LT, 32, 262144, 2, 874},
    {PCS_REDUCE_SCATTER, R_COMM, R_LT, 32, -1, 3, 876},
    {PCS_REDUCE_SCATTER, R_COMM, R_LT, 64, 64, 1, 880},
    {PCS_REDUCE_SCATTER, R_COMM, R_LT, 64, 2048, 2, 882},
    {PCS_REDUCE_SCATTER, R_COMM, R_LT, 64, 524288, 4, 884},
    {PCS_REDUCE_SCATTER, R_COMM, R_LT, 64, -1, 3, 886},
    {PCS_REDUCE_SCATTER, R_COMM, R_LT, 128, 256, 1, 890},
    {PCS_REDUCE_SCATTER, R_COMM, R_LT, 128, 512, 2, 892},
    {PCS_REDUCE_SCATTER, R_COMM, R_LT, 128, 2048, 4, 894},
    {PCS_REDUCE_SCATTER, R_COMM, R_LT, 128, 4096, 2, 896},
    {PCS_REDUCE_SCATTER, R_COMM, R_LT, 128, -1, 4, 898},
    {PCS_REDUCE_SCATTER, R_COMM, R_LT, 256, 256, 1, 902},
    {PCS_REDUCE_SCATTER, R_COMM, R_LT, 256, 512, 2, 904},
    {PCS_REDUCE_SCATTER, R_COMM, R_LT, 256, -1, 4, 906},
    {PCS_REDUCE_SCATTER, R_COMM, R_LT, 512, 256, 1, 910},
    {PCS_REDUCE_SCATTER, R_COMM, R_LT, 512, 1024, 2, 912},
    {PCS_REDUCE_SCATTER, R_COMM, R_LT, 512, -1, 4, 914},
    {PCS_REDUCE_SCATTER, R_COMM, R_LT, 1024, 512, 1, 918},
    {PCS_REDUCE_SCATTER, R_COMM, R_LT, 1024, 2048, 2, 920},
    {PCS_REDUCE_SCATTER, R_COMM, R_LT, 1024, 8192, 4, 922},
    {PCS_REDUCE_SCATTER, R_COMM, R_LT, 1024, 16384, 2, 924},
    {PCS_REDUCE_SCATTER, R_COMM, R_LT, 1024, -1, 4, 926},
    {PCS_REDUCE_SCATTER, R_COMM, R_LT, 2048, 512, 1, 930},
    {PCS_REDUCE_SCATTER, R_COMM, R_LT, 2048, 4096, 2, 932},
    {PCS_REDUCE_SCATTER, R_COMM, R_LT, 2048, 16384, 4, 934},
    {PCS_REDUCE_SCATTER, R_COMM, R_LT, 2048, 32768, 2, 936},
    {PCS_REDUCE_SCATTER, R_COMM, R_LT, 2048, -1, 4, 938},
    {PCS_REDUCE_SCATTER, R_COMM, R_LT, 4096, 512, 1, 942},
    {PCS_REDUCE_SCATTER, R_COMM, R_LT, 4096, 4096, 2, 944},
    {PCS_REDUCE_SCATTER, R_COMM, R_LT, 4096, -1, 4, 946},
    {PCS_REDUCE_SCATTER, R_COMM, R_ALL, 0, 1024, 1, 950},
    {PCS_REDUCE_SCATTER, R_COMM, R_ALL, 0, 8192, 2, 952},
    {PCS_REDUCE_SCATTER, R_COMM, R_ALL, 0, -1, 4, 954},
    {PCS_REDUCE_SCATTER_BLOCK, R_NONCOMM, R_ALL, 0, -1, 1, 1000},
    {PCS_REDUCE_SCATTER_BLOCK, R_COMM, R_LT, 4, 4, 2, 1004},
    {PCS_REDUCE_SCATTER_BLOCK, R_COMM, R_LT, 4, 8, 4, 1006},
    {PCS_REDUCE_SCATTER_BLOCK, R_COMM, R_LT, 4, 16, 3, 1008},
    {PCS_REDUCE_SCATTER_BLOCK, R_COMM, R_LT, 4, 128, 4, 1010},
    {PCS_REDUCE_SCATTER_BLOCK, R_COMM, R_LT, 4, 256, 3, 1012},
    {PCS_REDUCE_SCATTER_BLOCK, R_COMM, R_LT, 4, 4096, 4, 1014},
    {PCS_REDUCE_SCATTER_BLOCK, R_COMM, R_LT, 4, 8192, 3, 1016},
    {PCS_REDUCE_SCATTER_BLOCK, R_COMM, R_LT, 4, 131072, 4, 1018},
    {PCS_REDUCE_SCATTER_BLOCK, R_COMM, R_LT, 4, -1, 1, 1020},
    {PCS_REDUCE_SCATTER_BLOCK, R_COMM, R_LT, 8, 8, 3, 1024},
    {PCS_REDUCE_SCATTER_BLOCK, R_COMM, R_LT, 8, 32, 2, 1026},
    {PCS_REDUCE_SCATTER_BLOCK, R_COMM, R_LT, 8, 256, 4, 1028},
    {PCS_REDUCE_SCATTER_BLOCK, R_COMM, R_LT, 8, 8192, 3, 1030},
    {PCS_REDUCE_SCATTER_BLOCK, R_COMM, R_LT, 8, 16384, 4, 1032},
    {PCS_REDUCE_SCATTER_BLOCK, R_COMM, R_LT, 8, 1048576, 3, 1034},
    {PCS_REDUCE_SCATTER_BLOCK, R_COMM, R_LT, 8, -1, 1, 1036},
    {PCS_REDUCE_SCATTER_BLOCK, R_COMM, R_LT, 16, 4, 1, 1040},
    {PCS_REDUCE_SCATTER_BLOCK, R_COMM, R_LT, 16, 32, 3, 1042},
    {PCS_REDUCE_SCATTER_BLOCK, R_COMM, R_LT, 16, 128, 4, 1044},
    {PCS_REDUCE_SCATTER_BLOCK, R_COMM, R_LT, 16, 524288, 3, 1046},
    {PCS_REDUCE_SCATTER_BLOCK, R_COMM, R_LT, 16, 4194304, 1, 1048},
    {PCS_REDUCE_SCATTER_BLOCK, R_COMM, R_LT, 16, -1, 4, 1050},
    {PCS_REDUCE_SCATTER_BLOCK, R_COMM, R_LT, 32, 32, 1, 1054},
    {PCS_REDUCE_SCATTER_BLOCK, R_COMM, R_LT, 32, 524288, 3, 1056},
    {PCS_REDUCE_SCATTER_BLOCK, R_COMM, R_LT, 32, 2097152, 1, 1058},
    {PCS_REDUCE_SCATTER_BLOCK, R_COMM, R_LT, 32, 4194304, 3, 1060},
    {PCS_REDUCE_SCATTER_BLOCK, R_COMM, R_LT, 32, -1, 4, 1062},
    {PCS_REDUCE_SCATTER_BLOCK, R_COMM, R_ALL, 0, 4, 3, 1066},
    {PCS_REDUCE_SCATTER_BLOCK, R_COMM, R_ALL, 0, 16, 1, 1068},
    {PCS_REDUCE_SCATTER_BLOCK, R_COMM, R_ALL, 0, 65536, 4, 1070},
    {PCS_REDUCE_SCATTER_BLOCK, R_COMM, R_ALL, 0, 262144, 1, 1072},
    {PCS_REDUCE_SCATTER_BLOCK, R_COMM, R_ALL, 0, -1, 4, 1074},
    {PCS_ALLGATHER, R_ANY, R_EQ, 2, -1, 6, 1119},
    {PCS_ALLGATHER, R_ANY, R_LT, 32, -1, 3, 1121},
    {PCS_ALLGATHER, R_ANY, R_LT, 64, 1024, 3, 1124},
    {PCS_ALLGATHER, R_ANY, R_LT, 64, 65536, 5, 1126},
    {PCS_ALLGATHER, R_ANY, R_LT, 64, -1, 4, 1128},
    {PCS_ALLGATHER, R_ANY, R_LT, 128, 512, 3, 1132},
    {PCS_ALLGATHER, R_ANY, R_LT, 128, 65536, 5, 1134},
    {PCS_ALLGATHER, R_ANY, R_LT, 128, -1, 4, 1136},
    {PCS_ALLGATHER, R_ANY, R_LT, 256, 512, 3, 1140},
    {PCS_ALLGATHER, R_ANY, R_LT, 256, 131072, 5, 1142},
    {PCS_ALLGATHER, R_ANY, R_LT, 256, 524288, 4, 1144},
    {PCS_ALLGATHER, R_ANY, R_LT, 256, 1048576, 5, 1146},
    {PCS_ALLGATHER, R_ANY, R_LT, 256, -1, 4, 1148},
    {PCS_ALLGATHER, R_ANY, R_LT, 512, 32, 3, 1152},
    {PCS_ALLGATHER, R_ANY, R_LT, 512, 128, 2, 1154},
    {PCS_ALLGATHER, R_ANY, R_LT, 512, 1024, 3, 1156},
    {PCS_ALLGATHER, R_ANY, R_LT, 512, 131072, 5, 1158},
    {PCS_ALLGATHER, R_ANY, R_LT, 512, 524288, 4, 1160},
    {PCS_ALLGATHER, R_ANY, R_LT, 512, 1048576, 5, 1162},
    {PCS_ALLGATHER, R_ANY, R_LT, 512, -1, 4, 1164},
    {PCS_ALLGATHER, R_ANY, R_LT, 1024, 64, 3, 1168},
    {PCS_ALLGATHER, R_ANY, R_LT, 1024, 256, 2, 1170},
    {PCS_ALLGATHER, R_ANY, R_LT, 1024, 2048, 3, 1172},
    {PCS_ALLGATHER, R_ANY, R_LT, 1024, -1, 5, 1174},
    {PCS_ALLGATHER, R_ANY, R_LT, 2048, 4, 3, 1178},
    {PCS_ALLGATHER, R_ANY, R_LT, 2048, 8, 2, 1180},
    {PCS_ALLGATHER, R_ANY, R_LT, 2048, 16, 3, 1182},
    {PCS_ALLGATHER, R_ANY, R_LT, 2048, 32, 2, 1184},
    {PCS_ALLGATHER, R_ANY, R_LT, 2048, 256, 3, 1186},
    {PCS_ALLGATHER, R_ANY, R_LT, 2048, 512, 2, 1188},
    {PCS_ALLGATHER, R_ANY, R_LT, 2048, 4096, 3, 1190},
    {PCS_ALLGATHER, R_ANY, R_LT, 2048, -1, 5, 1192},
    {PCS_ALLGATHER, R_ANY, R_LT, 4096, 32, 2, 1196},
    {PCS_ALLGATHER, R_ANY, R_LT, 4096, 128, 3, 1198},
    {PCS_ALLGATHER, R_ANY, R_LT, 4096, 512, 2, 1200},
    {PCS_ALLGATHER, R_ANY, R_LT, 4096, 4096, 3, 1202},
    {PCS_ALLGATHER, R_ANY, R_LT, 4096, -1, 5, 1204},
    {PCS_ALLGATHER, R_ANY, R_ALL, 0, 2, 3, 1208},
    {PCS_ALLGATHER, R_ANY, R_ALL, 0, 8, 2, 1210},
    {PCS_ALLGATHER, R_ANY, R_ALL, 0, 16, 3, 1212},
    {PCS_ALLGATHER, R_ANY, R_ALL, 0, 512, 2, 1214},
    {PCS_ALLGATHER, R_ANY, R_ALL, 0, 4096, 3, 1216},
    {PCS_ALLGATHER, R_ANY, R_ALL, 0, -1, 5, 1218},
    {PCS_ALLGATHERV, R_ANY, R_EQ, 2, 2048, 3, 1273},
    {PCS_ALLGATHERV, R_ANY, R_EQ, 2, 4096, 5, 1275},
    {PCS_ALLGATHERV, R_ANY, R_EQ, 2, 8192, 3, 1277},
    {PCS_ALLGATHERV, R_ANY, R_EQ, 2, -1, 5, 1279},
    {PCS_ALLGATHERV, R_ANY, R_LT, 8, 256, 1, 1283},
    {PCS_ALLGATHERV, R_ANY, R_LT, 8, 4096, 4, 1285},
    {PCS_ALLGATHERV, R_ANY, R_LT, 8, 8192, 3, 1287},
    {PCS_ALLGATHERV, R_ANY, R_LT, 8, 16384, 4, 1289},
    {PCS_ALLGATHERV, R_ANY, R_LT, 8, 262144, 2, 1291},
    {PCS_ALLGATHERV, R_ANY, R_LT, 8, -1, 4, 1293},
    {PCS_ALLGATHERV, R_ANY, R_LT, 16, 1024, 1, 1297},
    {PCS_ALLGATHERV, R_ANY, R_LT, 16, -1, 2, 1299},
    {PCS_ALLGATHERV, R_ANY, R_LT, 32, 128, 1, 1303},
    {PCS_ALLGATHERV, R_ANY, R_LT, 32, 262144, 2, 1305},
    {PCS_ALLGATHERV, R_ANY, R_LT, 32, -1, 3, 1307},
    {PCS_ALLGATHERV, R_ANY, R_LT, 64, 256, 1, 1311},
    {PCS_ALLGATHERV, R_ANY, R_LT, 64, 8192, 2, 1313},
    {PCS_ALLGATHERV, R_ANY, R_LT, 64, -1, 3, 1315},
    {PCS_ALLGATHERV, R_ANY, R_LT, 128, 256, 1, 1319},
    {PCS_ALLGATHERV, R_ANY, R_LT, 128, 4096, 2, 1321},
    {PCS_ALLGATHERV, R_ANY, R_LT, 128, -1, 3, 1323},
    {PCS_ALLGATHERV, R_ANY, R_LT, 256, 1024, 2, 1327},
    {PCS_ALLGATHERV, R_ANY, R_LT, 256, 65536, 4, 1329},
    {PCS_ALLGATHERV, R_ANY, R_LT, 256, -1, 3, 1331},
    {PCS_ALLGATHERV, R_ANY, R_LT, 512, 1024, 2, 1335},
    {PCS_ALLGATHERV, R_ANY, R_LT, 512, -1, 3, 1337},
    {PCS_ALLGATHERV, R_ANY, R_LT, 1024, 512, 2, 1341},
    {PCS_ALLGATHERV, R_ANY, R_LT, 1024, 1024, 1, 1343},
    {PCS_ALLGATHERV, R_ANY, R_LT, 1024, 4096, 2, 1345},
    {PCS_ALLGATHERV, R_ANY, R_LT, 1024, 1048576, 4, 1347},
    {PCS_ALLGATHERV, R_ANY, R_LT, 1024, -1, 3, 1349},
    {PCS_ALLGATHERV, R_ANY, R_ALL, 0, 4096, 2, 1353},
    {PCS_ALLGATHERV, R_ANY, R_ALL, 0, -1, 4, 1355},
    {PCS_GATHER, R_ANY, R_LT, 4, 2, 3, 1415},
    {PCS_GATHER, R_ANY, R_LT, 4, 4, 1, 1417},
    {PCS_GATHER, R_ANY, R_LT, 4, 32768, 2, 1419},
    {PCS_GATHER, R_ANY, R_LT, 4, 65536, 1, 1421},
    {PCS_GATHER, R_ANY, R_LT, 4, 131072, 2, 1423},
    {PCS_GATHER, R_ANY, R_LT, 4, -1, 3, 1425},
    {PCS_GATHER, R_ANY, R_LT, 8, 1024, 2, 1429},
    {PCS_GATHER, R_ANY, R_LT, 8, 8192, 1, 1431},
    {PCS_GATHER, R_ANY, R_LT, 8, 32768, 2, 1433},
    {PCS_GATHER, R_ANY, R_LT, 8, 262144, 1, 1435},
    {PCS_GATHER, R_ANY, R_LT, 8, -1, 3, 1437},
    {PCS_GATHER, R_ANY, R_LT, 256, -1, 2, 1440},
    {PCS_GATHER, R_ANY, R_LT, 512, 2048, 2, 1443},
    {PCS_GATHER, R_ANY, R_LT, 512, 8192, 1, 1445},
    {PCS_GATHER, R_ANY, R_LT, 512, -1, 2, 1447},
    {PCS_GATHER, R_ANY, R_ALL, 0, -1, 2, 1450},
    {PCS_SCATTER, R_ANY, R_LT, 4, 2, 3, 1502},
    {PCS_SCATTER, R_ANY, R_LT, 4, 131072, 1, 1504},
    {PCS_SCATTER, R_ANY, R_LT, 4, 262144, 3, 1506},
    {PCS_SCATTER, R_ANY, R_LT, 4, -1, 1, 1508},
    {PCS_SCATTER, R_ANY, R_LT, 8, 2048, 2, 1512},
    {PCS_SCATTER, R_ANY, R_LT, 8, 4096, 1, 1514},
    {PCS_SCATTER, R_ANY, R_LT, 8, 8192, 2, 1516},
    {PCS_SCATTER, R_ANY, R_LT, 8, 32768, 1, 1518},
    {PCS_SCATTER, R_ANY, R_LT, 8, 1048576, 3, 1520},
    {PCS_SCATTER, R_ANY, R_LT, 8, -1, 1, 1522},
    {PCS_SCATTER, R_ANY, R_LT, 16, 16384, 2, 1526},
    {PCS_SCATTER, R_ANY, R_LT, 16, 1048576, 3, 1528},
    {PCS_SCATTER, R_ANY, R_LT, 16, -1, 1, 1530},
    {PCS_SCATTER, R_ANY, R_LT, 32, 16384, 2, 1534},
    {PCS_SCATTER, R_ANY, R_LT, 32, 32768, 1, 1536},
    {PCS_SCATTER, R_ANY, R_LT, 32, -1, 3, 1538},
    {PCS_SCATTER, R_ANY, R_LT, 64, 512, 2, 1542},
    {PCS_SCATTER, R_ANY, R_LT, 64, 8192, 3, 1544},
    {PCS_SCATTER, R_ANY, R_LT, 64, 16384, 2, 1546},
    {PCS_SCATTER, R_ANY, R_LT, 64, -1, 3, 1548},
    {PCS_SCATTER, R_ANY, R_ALL, 0, 512, 2, 1552},
    {PCS_SCATTER, R_ANY, R_ALL, 0, -1, 3, 1554},
};

int pcs_ompi41_fixed(pcs_coll_t c, int size, int64_t dsize, bool commutative, int *line)
{
    for (size_t i = 0; i < sizeof rules / sizeof rules[0]; i++) {
        const rule_t *r = &rules[i];
        if (r->coll != c)
            continue;
        if ((r->comm == R_COMM && !commutative) || (r->comm == R_NONCOMM && commutative))
            continue;
        if ((r->csop == R_LT && !(size < r->cs)) || (r->csop == R_EQ && size != r->cs))
            continue;
        if (r->dlt >= 0 && !(dsize < r->dlt))
            continue;
        if (line)
            *line = r->line;
        return r->alg;
    }
    if (line)
        *line = 0;
    return 0;
}

/* decision_fixed.c: the message size each fixed function compares (notes §1.0). */
int64_t pcs_ompi41_dsize(const pcs_args_t *a)
{
    const int64_t ts = (int64_t)a->type_size;
    switch (a->coll) {
    case PCS_ALLREDUCE:
    case PCS_BCAST:
    case PCS_REDUCE:
    case PCS_ALLTOALL:          /* per peer */
    case PCS_ALLGATHER:         /* per rank */
    case PCS_GATHER:
    case PCS_SCATTER:
    case PCS_REDUCE_SCATTER_BLOCK: return ts * a->count;
    case PCS_REDUCE_SCATTER: return ts * pcs_sum(a->counts, 0, a->size);
    case PCS_ALLGATHERV: /* l.1252-1262: average per rank, integer division */
        return ts * pcs_sum(a->counts, 0, a->size) / a->size;
    default: return -1;
    }
}

/* MPI binding early returns (ompi/mpi/c/<coll>.c, notes §4): nothing reaches coll. */
static bool early_return(const pcs_args_t *a)
{
    switch (a->coll) {
    case PCS_ALLREDUCE:
    case PCS_REDUCE:
    case PCS_SCAN:
    case PCS_EXSCAN:
    case PCS_BCAST:
    case PCS_ALLGATHER:
    case PCS_ALLTOALL:
    case PCS_REDUCE_SCATTER_BLOCK: return a->count == 0;
    case PCS_ALLGATHERV:
    case PCS_REDUCE_SCATTER: return pcs_sum(a->counts, 0, a->size) == 0;
    case PCS_GATHER:
    case PCS_SCATTER: return a->count == 0; /* decided per rank in 4.1.4; see doc */
    default: return false;
    }
}

/* tuned algorithm id -> catalogue entry, before the count-dependent fallbacks */
static pcs_alg_t tuned_alg(pcs_coll_t c, int id)
{
    static const pcs_alg_t bcast[] = {PCS_ALG_NONE, PCS_ALG_BCAST_LINEAR, PCS_ALG_BCAST_CHAIN,
        PCS_ALG_BCAST_CHAIN, PCS_ALG_BCAST_SPLIT_BINTREE, PCS_ALG_BCAST_BINTREE,
        PCS_ALG_BCAST_BINOMIAL, PCS_ALG_BCAST_KNOMIAL, PCS_ALG_BCAST_SCATTER_ALLGATHER,
        PCS_ALG_BCAST_SCATTER_ALLGATHER_RING};
    static const pcs_alg_t reduce[] = {PCS_ALG_NONE, PCS_ALG_REDUCE_LINEAR,
        PCS_ALG_REDUCE_CHAIN, PCS_ALG_REDUCE_CHAIN, PCS_ALG_REDUCE_BINARY,
        PCS_ALG_REDUCE_BINOMIAL, PCS_ALG_REDUCE_IN_ORDER_BINARY,
        PCS_ALG_REDUCE_REDSCAT_GATHER};
    static const pcs_alg_t allreduce[] = {PCS_ALG_NONE, PCS_ALG_ALLREDUCE_LINEAR,
        PCS_ALG_ALLREDUCE_NONOVERLAPPING, PCS_ALG_ALLREDUCE_RECURSIVE_DOUBLING,
        PCS_ALG_ALLREDUCE_RING, PCS_ALG_ALLREDUCE_RING /* segmented ring, see select */,
        PCS_ALG_ALLREDUCE_RABENSEIFNER};
    static const pcs_alg_t allgather[] = {PCS_ALG_NONE, PCS_ALG_ALLGATHER_LINEAR,
        PCS_ALG_ALLGATHER_BRUCK, PCS_ALG_ALLGATHER_RECURSIVE_DOUBLING, PCS_ALG_ALLGATHER_RING,
        PCS_ALG_ALLGATHER_NEIGHBOR, PCS_ALG_ALLGATHER_TWO_PROCS};
    static const pcs_alg_t allgatherv[] = {PCS_ALG_NONE, PCS_ALG_ALLGATHERV_DEFAULT,
        PCS_ALG_ALLGATHERV_BRUCK, PCS_ALG_ALLGATHERV_RING, PCS_ALG_ALLGATHERV_NEIGHBOR,
        PCS_ALG_ALLGATHERV_TWO_PROCS};
    static const pcs_alg_t alltoall[] = {PCS_ALG_NONE, PCS_ALG_ALLTOALL_LINEAR,
        PCS_ALG_ALLTOALL_PAIRWISE, PCS_ALG_ALLTOALL_BRUCK, PCS_ALG_ALLTOALL_LINEAR_SYNC,
        PCS_ALG_ALLTOALL_TWO_PROCS};
    static const pcs_alg_t alltoallv[] = {PCS_ALG_NONE, PCS_ALG_ALLTOALLV_LINEAR,
        PCS_ALG_ALLTOALLV_PAIRWISE};
    static const pcs_alg_t barrier[] = {PCS_ALG_NONE, PCS_ALG_BARRIER_LINEAR,
        PCS_ALG_BARRIER_DOUBLE_RING, PCS_ALG_BARRIER_RECURSIVE_DOUBLING, PCS_ALG_BARRIER_BRUCK,
        PCS_ALG_BARRIER_TWO_PROCS, PCS_ALG_BARRIER_TREE};
    static const pcs_alg_t gather[] = {PCS_ALG_NONE, PCS_ALG_GATHER_LINEAR,
        PCS_ALG_GATHER_BINOMIAL, PCS_ALG_GATHER_LINEAR_SYNC};
    static const pcs_alg_t scatter[] = {PCS_ALG_NONE, PCS_ALG_SCATTER_LINEAR,
        PCS_ALG_SCATTER_BINOMIAL, PCS_ALG_SCATTER_LINEAR_NB};
    static const pcs_alg_t rs[] = {PCS_ALG_NONE, PCS_ALG_REDUCE_SCATTER_NONOVERLAPPING,
        PCS_ALG_REDUCE_SCATTER_RECURSIVE_HALVING, PCS_ALG_REDUCE_SCATTER_RING,
        PCS_ALG_REDUCE_SCATTER_BUTTERFLY};
    static const pcs_alg_t rsb[] = {PCS_ALG_NONE, PCS_ALG_RSB_LINEAR,
        PCS_ALG_RSB_RECURSIVE_DOUBLING, PCS_ALG_RSB_RECURSIVE_HALVING, PCS_ALG_RSB_BUTTERFLY};
    static const pcs_alg_t scan[] = {PCS_ALG_SCAN_LINEAR, PCS_ALG_SCAN_LINEAR,
        PCS_ALG_SCAN_RECURSIVE_DOUBLING};
    static const pcs_alg_t exscan[] = {PCS_ALG_EXSCAN_LINEAR, PCS_ALG_EXSCAN_LINEAR,
        PCS_ALG_EXSCAN_RECURSIVE_DOUBLING};
#define PICK(t) return id >= 0 && (size_t)id < sizeof t / sizeof t[0] ? t[id] : PCS_NALGS
    switch (c) {
    case PCS_BCAST: PICK(bcast);
    case PCS_REDUCE: PICK(reduce);
    case PCS_ALLREDUCE: PICK(allreduce);
    case PCS_ALLGATHER: PICK(allgather);
    case PCS_ALLGATHERV: PICK(allgatherv);
    case PCS_ALLTOALL: PICK(alltoall);
    case PCS_ALLTOALLV: PICK(alltoallv);
    case PCS_BARRIER: PICK(barrier);
    case PCS_GATHER: PICK(gather);
    case PCS_SCATTER: PICK(scatter);
    case PCS_REDUCE_SCATTER: PICK(rs);
    case PCS_REDUCE_SCATTER_BLOCK: PICK(rsb);
    case PCS_SCAN: PICK(scan);
    case PCS_EXSCAN: PICK(exscan);
    default: return PCS_NALGS;
    }
#undef PICK
}

pcs_err_t pcs_ompi41_select(const pcs_args_t *a, const pcs_ompi_forced_t *forced,
                            pcs_choice_t *out)
{
    memset(out, 0, sizeof *out);
    out->alg = PCS_ALG_NONE;
    out->dsize = -1;
    if ((unsigned)a->coll >= PCS_NCOLLS || a->size < 1 || a->rank < 0 || a->rank >= a->size)
        return PCS_E_ARG;
    if (a->nonblocking) /* coll/libnbc: coll/self has no nonblocking collectives */
        return pcs_ompi41_nbc_select(a, forced, out);
    if (a->size == 1) { /* coll/self: local copies only */
        out->component = PCS_COMP_SELF;
        return PCS_OK;
    }
    if (early_return(a))
        return PCS_OK;
    const pcs_coll_t c = a->coll;
    /* coll_tuned_module.c:98-114: tuned leaves these NULL, coll/basic provides them */
    bool dyn = forced && forced->use_dynamic_rules;
    if (c == PCS_ALLTOALLW) { /* coll_basic_alltoallw.c: linear, or the in-place pairs */
        out->component = PCS_COMP_BASIC;
        out->lib_alg = 1;
        out->alg = a->in_place ? PCS_ALG_ALLTOALLW_INPLACE : PCS_ALG_ALLTOALLW_LINEAR;
        return PCS_OK;
    }
    if (c == PCS_GATHERV || c == PCS_SCATTERV ||
        ((c == PCS_SCAN || c == PCS_EXSCAN) && !(dyn && forced->algorithm[c] != 0))) {
        out->component = PCS_COMP_BASIC;
        out->lib_alg = 1;
        out->alg = c == PCS_GATHERV ? PCS_ALG_GATHERV_LINEAR
                 : c == PCS_SCATTERV ? PCS_ALG_SCATTERV_LINEAR
                 : c == PCS_SCAN ? PCS_ALG_SCAN_LINEAR : PCS_ALG_EXSCAN_LINEAR;
        return PCS_OK;
    }
    out->component = PCS_COMP_TUNED;
    out->radix = forced && forced->knomial_radix > 0 ? forced->knomial_radix : 4;
    out->dsize = pcs_ompi41_dsize(a);
    int id;
    if (dyn && forced->algorithm[c] != 0) {
        /* decision_dynamic.c: forced algorithm with (fanout, segsize[, max_requests]) */
        id = forced->algorithm[c];
        out->segsize = forced->segsize[c] > 0 ? (uint64_t)forced->segsize[c] : 0;
        out->fanout = forced->chain_fanout[c] > 0 ? forced->chain_fanout[c] : 4;
        out->max_requests = forced->max_requests[c];
    } else {
        /* every fixed function passes faninout 0 and segsize 0 */
        id = pcs_ompi41_fixed(c, a->size, out->dsize, a->commutative, &out->rule_line);
        out->fanout = 0;
        if (c == PCS_ALLTOALL && forced)
            out->max_requests = forced->max_requests[c];
    }
    out->lib_alg = id;
    pcs_alg_t alg = tuned_alg(c, id);
    if (alg == PCS_NALGS || alg == PCS_ALG_NONE)
        return PCS_E_ARG; /* do_this: MPI_ERR_ARG */
    const int P = a->size;
    const int64_t n = a->count;
    /* alltoall(v) in place: every algorithm calls the in-place one first */
    if (c == PCS_ALLTOALL && a->in_place)
        alg = PCS_ALG_ALLTOALL_INPLACE;
    if (c == PCS_ALLTOALLV && a->in_place)
        alg = PCS_ALG_ALLTOALLV_INPLACE;
    switch (alg) {
    case PCS_ALG_BCAST_CHAIN:
        if (id == 3)
            out->fanout = 1; /* pipeline = chain(1) */
        break;
    case PCS_ALG_BCAST_SPLIT_BINTREE: {
        /* bcast.c:415: a half of 0 elements, or a segment larger than a half -> chain(1) */
        int64_t h0 = (n + 1) / 2, h1 = n - h0;
        if (h0 == 0 || h1 == 0 || out->segsize > (uint64_t)h1 * a->type_size ||
            out->segsize > (uint64_t)h0 * a->type_size) {
            alg = PCS_ALG_BCAST_CHAIN;
            out->fanout = 1;
        }
        break;
    }
    case PCS_ALG_BCAST_SCATTER_ALLGATHER:
    case PCS_ALG_BCAST_SCATTER_ALLGATHER_RING:
        if (n < P) /* bcast.c:790 */
            alg = PCS_ALG_BCAST_LINEAR;
        break;
    case PCS_ALG_REDUCE_REDSCAT_GATHER:
        if (P < 2 || n < pcs_pow2_floor(P) || !a->commutative)
            alg = PCS_ALG_REDUCE_LINEAR;
        break;
    case PCS_ALG_ALLREDUCE_RING:
        /* allreduce.c:618: alg 5 runs the plain ring unless count >= size * segcount
         * (COLL_BASE_COMPUTED_SEGCOUNT), which segsize 0 (the fixed rules) never gives */
        if (id == 5 && out->segsize > 0 &&
            n >= (int64_t)P * pcs_segcount(out->segsize, a->type_size, n)) {
            alg = PCS_ALG_ALLREDUCE_SEGMENTED_RING;
            break;
        }
        if (n < P)
            alg = PCS_ALG_ALLREDUCE_RECURSIVE_DOUBLING;
        break;
    case PCS_ALG_ALLREDUCE_RABENSEIFNER:
        if (n < pcs_pow2_floor(P) || !a->commutative)
            alg = PCS_ALG_ALLREDUCE_LINEAR;
        break;
    case PCS_ALG_ALLGATHER_RECURSIVE_DOUBLING:
        if (!pcs_is_pow2(P))
            alg = PCS_ALG_ALLGATHER_BRUCK;
        break;
    case PCS_ALG_ALLGATHER_NEIGHBOR:
        if (P % 2)
            alg = PCS_ALG_ALLGATHER_RING;
        break;
    case PCS_ALG_ALLGATHERV_NEIGHBOR:
        if (P % 2)
            alg = PCS_ALG_ALLGATHERV_RING;
        break;
    case PCS_ALG_RSB_RECURSIVE_HALVING:
        if (!a->commutative)
            alg = PCS_ALG_RSB_LINEAR;
        break;
    default: break;
    }
    out->alg = alg;
    return PCS_OK;
}

/* OMPI_MCA_coll_libnbc_*: coll_libnbc_component.c's variables; enum values by number or
 * by name, booleans as mca_base_var reads them */
static int nbc_forced_set(pcs_ompi_forced_t *f, const char *n, const char *value)
{
    static const struct { pcs_coll_t c; const char *var; const char *names[5]; } vars[] = {
        {PCS_ALLGATHER, "iallgather_algorithm", {"ignore", "linear", "recursive_doubling"}},
        {PCS_ALLREDUCE, "iallreduce_algorithm",
         {"ignore", "ring", "binomial", "rabenseifner", "recursive_doubling"}},
        {PCS_BCAST, "ibcast_algorithm", {"ignore", "linear", "binomial", "chain", "knomial"}},
        {PCS_EXSCAN, "iexscan_algorithm", {"ignore", "linear", "recursive_doubling"}},
        {PCS_REDUCE, "ireduce_algorithm", {"ignore", "chain", "binomial", "rabenseifner"}},
        {PCS_SCAN, "iscan_algorithm", {"ignore", "linear", "recursive_doubling"}},
    };
    char *end;
    long v = strtol(value, &end, 0);
    bool num = *end == '\0';
    if (strcmp(n, "ibcast_knomial_radix") == 0) {
        if (!num)
            return 0;
        f->nbc_knomial_radix = v != 0 ? (int)v : -1; /* 0 stored as "not > 1" */
        return 1;
    }
    if (strcmp(n, "ibcast_skip_dt_decision") == 0) {
        if (num)
            f->nbc_ibcast_dt_decision = v == 0;
        else if (!strcasecmp(value, "false") || !strcasecmp(value, "no") ||
                 !strcasecmp(value, "disabled"))
            f->nbc_ibcast_dt_decision = true;
        else if (!strcasecmp(value, "true") || !strcasecmp(value, "yes") ||
                 !strcasecmp(value, "enabled"))
            f->nbc_ibcast_dt_decision = false;
        else
            return 0;
        return 1;
    }
    for (size_t i = 0; i < sizeof vars / sizeof vars[0]; i++) {
        if (strcmp(n, vars[i].var) != 0)
            continue;
        if (!num)
            for (v = 0; v < 5 && vars[i].names[v] && strcmp(value, vars[i].names[v]); v++)
                ;
        if (!num && (v == 5 || !vars[i].names[v]))
            return 0;
        f->nbc_algorithm[vars[i].c] = (int)v;
        return 1;
    }
    return 0;
}

int pcs_ompi_forced_set(pcs_ompi_forced_t *f, const char *name, const char *value)
{
    static const char nbc_prefix[] = "OMPI_MCA_coll_libnbc_";
    if (strncmp(name, nbc_prefix, sizeof(nbc_prefix) - 1) == 0)
        return value && *value ? nbc_forced_set(f, name + sizeof(nbc_prefix) - 1, value) : 0;
    static const char prefix[] = "OMPI_MCA_coll_tuned_";
    if (strncmp(name, prefix, sizeof(prefix) - 1) != 0 || !value || !*value)
        return 0;
    const char *n = name + sizeof(prefix) - 1;
    char *end;
    long v = strtol(value, &end, 0);
    if (*end != '\0')
        return 0;
    if (strcmp(n, "use_dynamic_rules") == 0) {
        f->use_dynamic_rules = v != 0;
        return 1;
    }
    if (strcmp(n, "bcast_algorithm_knomial_radix") == 0) {
        f->knomial_radix = (int)v;
        return 1;
    }
    static const char *const suffix[] = {"_algorithm", "_algorithm_segmentsize",
                                         "_algorithm_chain_fanout", "_algorithm_max_requests"};
    for (int c = 0; c < PCS_NCOLLS; c++) {
        const char *cn = pcs_coll_name((pcs_coll_t)c);
        size_t len = strlen(cn);
        if (strncmp(n, cn, len) != 0)
            continue;
        for (int k = 0; k < 4; k++) {
            if (strcmp(n + len, suffix[k]) != 0)
                continue;
            switch (k) {
            case 0: f->algorithm[c] = (int)v; break;
            case 1: f->segsize[c] = v; break;
            case 2: f->chain_fanout[c] = (int)v; break;
            default: f->max_requests[c] = (int)v; break;
            }
            return 1;
        }
    }
    return 0;
}

pcs_library_t pcs_library_of(const char *s)
{
    if (!s)
        return PCS_LIB_UNKNOWN;
    if (strstr(s, "Open MPI v4.1"))
        return PCS_LIB_OMPI41;
    const char *m = strstr(s, "MPICH Version:");
    if (m) {
        m += strlen("MPICH Version:");
        while (*m == ' ' || *m == '\t')
            m++;
        if (strncmp(m, "4.0", 3) == 0)
            return PCS_LIB_MPICH40;
    }
    return PCS_LIB_UNKNOWN;
}

uint64_t pcs_eager_size(const char *s, const char **what)
{
    /* as narrow as what was measured (pcs_library_of's versions; the device for MPICH) */
    switch (pcs_library_of(s)) {
    case PCS_LIB_OMPI41:
        *what = "Open MPI 4.1 over TCP";
        return PCS_EAGER_OMPI41_TCP;
    case PCS_LIB_MPICH40:
        if (strstr(s, "ch4:ucx")) {
            *what = "MPICH 4.0 ch4:ucx over TCP";
            return PCS_EAGER_MPICH40_UCX_TCP;
        }
        break;
    default: break;
    }
    *what = NULL;
    return 0;
}
