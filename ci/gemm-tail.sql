-- The C write-back tail of the tiled GEMM (configs/tune/gemm-tail.yaml) from one store (one run),
-- for ci/gpu-gemm-tail.sh:
--   sqlite3 -header -column gemm-tail.db < ci/gemm-tail.sql
-- Every verified tiled point against G x the best verified cuBLAS point of the same N (any math
-- mode; the practical peak), G the run's GPUs (GPUs per process x ranks), side by side by
-- tail_split (1: today's schedule, no split); the gain is the point's rate over the same point
-- without the split. Beside them, per GPU, what the exact model and the counters say the split
-- trades: the tail (C tiles written back after the GPU's last block: tiles_d2h_tail / G) against
-- the tiles loaded from host memory (tiles_h2d_a + tiles_h2d_b over G), and the roofline bound's
-- share of the time (the bound counts the split's extra loads; the tail is not a term of it). A
-- point that missed its stopping criterion's target (the samples' noise) is marked noisy.
.print '-- practical peak: the best verified cuBLAS point per N (noisy: its samples missed the target, so every ratio of that N rests on it)'
SELECT json_extract(problem, '$.N') AS N, json_extract(params, '$.math_mode') AS math_mode,
       ROUND(gflops, 0) AS gflops,
       CASE WHEN EXISTS (SELECT 1 FROM metrics m WHERE m.point_id = p.id AND m.name = 'noisy')
            THEN 'noisy' ELSE '' END AS note
FROM points p
WHERE status = 'ok' AND kernel = 'gemm.cuda.cublas'
  AND gflops = (SELECT MAX(gflops) FROM points q WHERE q.status = 'ok' AND q.kernel = p.kernel
                AND json_extract(q.problem, '$.N') = json_extract(p.problem, '$.N'))
ORDER BY 1;
.print '-- tiled points by tail_split, against G x the best cuBLAS of their N'
WITH cub AS (SELECT json_extract(problem, '$.N') AS N, MAX(gflops) AS g FROM points
             WHERE kernel = 'gemm.cuda.cublas' AND status = 'ok' GROUP BY 1),
mv AS (SELECT point_id, name, value FROM metrics),
t AS (SELECT p.*, json_extract(problem, '$.N') AS N,
             IFNULL(json_extract(params, '$.tail_split'), 1) AS split,
             json_extract(params, '$.gpu_mem_budget') AS budget,
             ranks * (SELECT value FROM mv WHERE point_id = p.id AND name = 'gpus_per_process') AS ngpu,
             (SELECT value FROM mv WHERE point_id = p.id AND name = 'mem_case') AS mc,
             (SELECT value FROM mv WHERE point_id = p.id AND name = 'tail_split') AS xs,
             (SELECT value FROM mv WHERE point_id = p.id AND name = 'tiles_d2h_tail') AS tail,
             (SELECT value FROM mv WHERE point_id = p.id AND name = 'tiles_h2d_a') +
             (SELECT value FROM mv WHERE point_id = p.id AND name = 'tiles_h2d_b') AS h2d,
             (SELECT COUNT(*) FROM mv WHERE point_id = p.id AND name = 'noisy') AS noisy
      FROM points p WHERE kernel = 'gemm.cuda.tiled' AND status = 'ok'),
r AS (SELECT t.*, gflops / (ngpu * (SELECT g FROM cub WHERE cub.N = t.N)) AS ratio,
             gflops / (SELECT MAX(u.gflops) FROM t u WHERE u.N = t.N AND u.ngpu = t.ngpu
                       AND u.budget = t.budget AND u.split = 1) AS gain
      FROM t)
SELECT N, CAST(ngpu AS INTEGER) AS gpus, budget, CAST(mc AS INTEGER) AS mem_case, split,
       CAST(xs AS INTEGER) AS sub_blocks, CAST(tail / ngpu AS INTEGER) AS tail_tiles_gpu,
       CAST(h2d / ngpu AS INTEGER) AS h2d_tiles_gpu, ROUND(time_median_s * 1000, 1) AS ms,
       ROUND(gflops, 0) AS gflops, ROUND(ratio, 3) AS of_G_cublas, ROUND(gain, 3) AS vs_split1,
       ROUND(bound_s / time_median_s, 3) AS bound_share,
       CASE WHEN noisy > 0 THEN 'noisy' ELSE '' END AS note
FROM r ORDER BY N, ngpu, budget, split;
.print '-- the best split per (N, GPUs, budget): the point ci/gpu-gemm-tail.sh traces'
WITH t AS (SELECT p.*, json_extract(problem, '$.N') AS N,
                  IFNULL(json_extract(params, '$.tail_split'), 1) AS split,
                  json_extract(params, '$.gpus') AS gpus,
                  json_extract(params, '$.gpu_mem_budget') AS budget
           FROM points p WHERE kernel = 'gemm.cuda.tiled' AND status = 'ok')
SELECT N, gpus, budget, split AS best_split, ROUND(gflops, 0) AS gflops FROM t
WHERE gflops = (SELECT MAX(u.gflops) FROM t u WHERE u.N = t.N AND u.gpus = t.gpus
                AND u.budget = t.budget)
ORDER BY N, gpus, budget;
