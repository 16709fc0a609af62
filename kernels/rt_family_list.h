/* The family list: one line per kernel family, and the only place a new family is named.
 *
 * RT_FAMILY(f)      a family with CPU kernels only; kernels/f/ defines
 *                       int rt_f_register(rt_registry *reg, rt_err *err);
 * RT_FAMILY_CUDA(f) a family with CUDA kernels too; kernels/f/ defines, besides rt_f_register,
 *                       const rt_cuda_catalog_entry *rt_f_cuda_catalog(int *n);   (plain C)
 *                   and kernels/f/cuda/ (built into the CUDA plugin only)
 *                       void rt_f_cuda_describe(int index, rt_kernel_desc *out, rt_cuda_ctx *ctx);
 *
 * The includer defines both macros before including this file (an X-macro list, so it has no
 * include guard). The order is the registration order: a family whose kernels build on another's
 * problem comes after it. */
RT_FAMILY_CUDA(spmm)
RT_FAMILY_CUDA(spdnn)
RT_FAMILY_CUDA(dspmm)
RT_FAMILY_CUDA(spmm2d)
RT_FAMILY_CUDA(gemm)
RT_FAMILY_CUDA(sptrsv)
RT_FAMILY_CUDA(eigen)
RT_FAMILY_CUDA(user)
