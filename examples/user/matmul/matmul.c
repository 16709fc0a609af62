/* Blocked matrix multiply C = A B, n x n row-major (rooftune kernel spec: spec.yaml): BLOCK x
 * BLOCK blocks (a -D define), the i-k-j order inside a block so the innermost loop streams a row
 * of B and of C, OpenMP over the block rows of C. */
void matmul(float *C, const float *A, const float *B, int n)
{
#pragma omp parallel for schedule(static)
    for (int i0 = 0; i0 < n; i0 += BLOCK) {
        const int i1 = i0 + BLOCK < n ? i0 + BLOCK : n;
        for (int i = i0; i < i1; ++i)
            for (int j = 0; j < n; ++j)
                C[i * n + j] = 0.0f;
        for (int k0 = 0; k0 < n; k0 += BLOCK) {
            const int k1 = k0 + BLOCK < n ? k0 + BLOCK : n;
            for (int j0 = 0; j0 < n; j0 += BLOCK) {
                const int j1 = j0 + BLOCK < n ? j0 + BLOCK : n;
                for (int i = i0; i < i1; ++i)
                    for (int k = k0; k < k1; ++k) {
                        const float a = A[i * n + k];
                        for (int j = j0; j < j1; ++j)
                            C[i * n + j] += a * B[k * n + j];
                    }
            }
        }
    }
}
