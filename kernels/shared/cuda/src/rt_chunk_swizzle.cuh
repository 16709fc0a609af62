// rt_chunk_swizzle: where a staged row keeps its 16-byte chunks when the rows are XOR-swizzled
// (spmm_tiled_pipe.cu's SWIZZLE, spdnn_fused.cu's slot_xor). Shared memory has 32 banks of 4
// bytes, so a 16-byte chunk lies in one of 8 bank groups; a row of CHUNKS_PER_ROW chunks read 16
// bytes at a time puts chunk q of every row whose index differs by a multiple of 8 / CHUNKS_PER_ROW
// in the same group. Kept at chunk q XOR a function of the row, chunk q of row `slot` lies in a
// group that is a bijection of slot mod 8 for every q, so eight rows of distinct slot mod 8 read
// any chunk in one pass. Device code only, embedded like rt_async_copy.cuh.
#ifndef RT_CHUNK_SWIZZLE_CUH
#define RT_CHUNK_SWIZZLE_CUH

// The chunk of its row where chunk q of row slot is kept, rows of CHUNKS_PER_ROW chunks (a
// power of two).
template <int CHUNKS_PER_ROW> __device__ __forceinline__ int rt_swizzled_chunk(int slot, int q)
{
    static_assert(CHUNKS_PER_ROW > 0 && (CHUNKS_PER_ROW & (CHUNKS_PER_ROW - 1)) == 0,
                  "CHUNKS must be a power of two");
    if (CHUNKS_PER_ROW >= 8)
        return q ^ (slot & 7);
    return q ^ ((slot * CHUNKS_PER_ROW / 8) & (CHUNKS_PER_ROW - 1));
}

#endif
