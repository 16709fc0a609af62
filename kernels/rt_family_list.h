/* The family list: one line per kernel family, and the only place a new family is named.
 *
 * RT_FAMILY(f)      a family with CPU kernels only; kernels/f/ defines
 *                       int rt_f_register(rt_registry *reg, rt_err *err);
 * RT_FAMILY_CUDA(f) a family with CUDA kernels too; kernels/f/ defines, besides rt_f_register,
 *                       const rt_cuda_catalog_entry *rt_f_cuda_catalog(int *n);   (plain C)
 *                   and kernels/f/cuda/ (built into the CUDA plugin only)
 *                       void rt_f_cuda_describe(int index, rt_kernel_desc *out, rt_cuda_ctx *ctx);
 *
 * RT_BUILDS_ON(f, base)
 *                   f's kernels build on base's problem: kernels/f/ may include the headers at
 *                   the root of kernels/base/ (its inputs, descriptor, reference, traffic model),
 *                   never base's cpu/ or cuda/ folders, and base comes earlier in the list.
 *                   tests/layers allows a family exactly the uses declared here.
 *
 * The includer defines RT_FAMILY and RT_FAMILY_CUDA before including this file (an X-macro list,
 * so it has no include guard); RT_BUILDS_ON expands to nothing unless the includer defines it.
 * The order is the registration order: a family whose kernels build on another's problem comes
 * after it. */
#ifndef RT_BUILDS_ON
#define RT_BUILDS_ON(f, base)
#endif
RT_FAMILY_CUDA(spmm)
RT_FAMILY_CUDA(spdnn)
RT_BUILDS_ON(spdnn, spmm) /* the Tiled plan of the fused layer */
RT_FAMILY_CUDA(dspmm)
RT_BUILDS_ON(dspmm, spmm) /* the SpMM problem, distributed */
RT_FAMILY_CUDA(spmm2d)
RT_BUILDS_ON(spmm2d, spmm) /* the tolerance rule of SpMM */
RT_FAMILY_CUDA(spgemm2d)
RT_BUILDS_ON(spgemm2d, spmm) /* the tolerance rule of SpMM */
RT_FAMILY_CUDA(gemm)
RT_FAMILY_CUDA(sptrsv)
RT_FAMILY_CUDA(eigen)
RT_FAMILY_CUDA(user)
