/* rt_cusparse_algs: the names of cuSPARSE's SpMM algorithms, as the `alg` parameter of every
 * kernel that calls cusparseSpMM takes them (plain C, for the CUDA catalogs that the main binary
 * compiles too; kernels/shared/cuda/rt_cusparse_spmm.h maps each name to cuSPARSE's enum and the
 * sparse format it reads). A baseline's space lists them all: a catalog takes the domain and its
 * description from here, so a kernel cannot leave one out. */
#ifndef RT_CUSPARSE_ALGS_H
#define RT_CUSPARSE_ALGS_H

/* Every cusparseSpMMAlg_t for a non-transposed sparse A: the default, CSR's three, COO's four and
 * Blocked-ELL's one (cuSPARSE 12: BSR's is for BSR inputs, which no family builds). */
#define RT_CUSPARSE_SPMM_ALGS                                                                      \
    "default|csr_alg1|csr_alg2|csr_alg3|coo_alg1|coo_alg2|coo_alg3|coo_alg4|blocked_ell"
#define RT_CUSPARSE_SPMM_ALGS_HELP                                                                 \
    "cusparseSpMM algorithm; csr_* and default read A as CSR, coo_* as COO, blocked_ell as "       \
    "Blocked-ELL"
/* The Blocked-ELL block sizes the kernels offer (ell_block). */
#define RT_CUSPARSE_ELL_BLOCKS      "8|16|32|64"
#define RT_CUSPARSE_ELL_BLOCKS_HELP "block size of the Blocked-ELL format (alg = blocked_ell only)"

#endif
