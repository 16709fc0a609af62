-- Thread-block clusters of spmm.cuda.tiled_pipe (issue 34) from a store of
-- configs/tune/tiled-cluster.yaml (its newest run), for ci/gpu-cluster.sh:
--   sqlite3 -header -column DB < ci/tiled-cluster.sql
-- Verified points only (status ok), FP32. Per matrix, K and layout: the best cuSPARSE median (every
-- algorithm) in that layout and in either layout, and for each cluster size of the cluster sweep
-- (today's best shape in the column order: nnz_order columns) its median and the ratio cuSPARSE /
-- Tiled (> 1: Tiled is faster), beside today's best bank-ordered shape (cluster 1, nnz_order
-- banks, which clusters refuse). The plan facts say what the cluster changed: B rows staged per
-- B column (staged_entries) and the most stages of one plan block (a cluster's with cluster > 1).
-- A point that missed its stopping criterion's target (metric noisy) feeds no ratio or mean: the
-- ratios and means use the other points, and the noisy ones are listed with their medians.
CREATE TEMP VIEW m AS
  SELECT p.id, p.matrix, p.kernel, p.params, p.time_median_s AS t, p.status, p.reason,
         CAST(json_extract(p.problem, '$.K') AS INT) AS K,
         json_extract(p.problem, '$.layout') AS layout,
         CAST(json_extract(p.params, '$.cluster') AS INT) AS cluster,
         json_extract(p.params, '$.nnz_order') AS nnz_order,
         EXISTS (SELECT 1 FROM metrics q WHERE q.point_id = p.id AND q.name = 'noisy') AS noisy
  FROM points p
  WHERE p.run_id = (SELECT MAX(run_id) FROM points)
    AND json_extract(p.problem, '$.precision') = 'fp32';

SELECT 'newest run' AS what, (SELECT MAX(run_id) FROM points) AS run_id,
       (SELECT status FROM runs ORDER BY id DESC LIMIT 1) AS run_status;

.print '-- points per kernel, cluster and status (newest run); refused points give a reason'
SELECT kernel, cluster, status, COUNT(*) AS points,
       substr(MIN(IFNULL(reason, '')), 1, 100) AS a_reason
FROM m GROUP BY 1, 2, 3 ORDER BY 1, 2, 3;

CREATE TEMP VIEW cus AS
  SELECT matrix, K, layout, MIN(t) AS t FROM m
  WHERE status = 'ok' AND NOT noisy AND kernel = 'spmm.cuda.cusparse' GROUP BY matrix, K, layout;
CREATE TEMP VIEW cus_any AS
  SELECT matrix, K, MIN(t) AS t FROM cus GROUP BY matrix, K;
CREATE TEMP VIEW tiled AS
  SELECT id, matrix, K, layout, cluster, nnz_order, t FROM m
  WHERE status = 'ok' AND NOT noisy AND kernel = 'spmm.cuda.tiled_pipe';

.print '-- noisy points (verified and timed, the stopping criterion missed): left out of every ratio below'
SELECT kernel, matrix, K, layout, cluster, nnz_order, ROUND(t * 1e3, 3) AS ms FROM m
WHERE status = 'ok' AND noisy ORDER BY kernel, matrix, K, layout, cluster;

.print '-- per matrix, K and layout: cuSPARSE / Tiled for each cluster size (columns), and the bank-ordered shape of today'
SELECT c.matrix, c.K, c.layout, ROUND(c.t * 1e3, 3) AS cusparse_ms,
       ROUND(c.t / (SELECT MIN(t) FROM tiled x WHERE x.matrix = c.matrix AND x.K = c.K
                    AND x.layout = c.layout AND x.nnz_order = 'columns' AND x.cluster = 1), 2) AS c1,
       ROUND(c.t / (SELECT MIN(t) FROM tiled x WHERE x.matrix = c.matrix AND x.K = c.K
                    AND x.layout = c.layout AND x.nnz_order = 'columns' AND x.cluster = 2), 2) AS c2,
       ROUND(c.t / (SELECT MIN(t) FROM tiled x WHERE x.matrix = c.matrix AND x.K = c.K
                    AND x.layout = c.layout AND x.nnz_order = 'columns' AND x.cluster = 4), 2) AS c4,
       ROUND(c.t / (SELECT MIN(t) FROM tiled x WHERE x.matrix = c.matrix AND x.K = c.K
                    AND x.layout = c.layout AND x.nnz_order = 'columns' AND x.cluster = 8), 2) AS c8,
       ROUND(c.t / (SELECT MIN(t) FROM tiled x WHERE x.matrix = c.matrix AND x.K = c.K
                    AND x.layout = c.layout AND x.nnz_order = 'banks'), 2) AS banks_c1
FROM cus c ORDER BY c.matrix, c.K, c.layout;

.print '-- against the best cuSPARSE point of either layout: best Tiled point per cluster size (either layout)'
SELECT a.matrix, a.K, ROUND(a.t * 1e3, 3) AS cusparse_any_ms, x.cluster, x.nnz_order,
       ROUND(MIN(x.t) * 1e3, 3) AS tiled_ms, ROUND(a.t / MIN(x.t), 2) AS ratio
FROM cus_any a JOIN tiled x ON x.matrix = a.matrix AND x.K = a.K
GROUP BY a.matrix, a.K, x.cluster, x.nnz_order ORDER BY a.matrix, a.K, x.nnz_order, x.cluster;

.print '-- geometric means of cuSPARSE (same layout) / Tiled over matrices, K and layouts, per cluster size'
SELECT x.cluster, x.nnz_order, COUNT(*) AS cases, ROUND(EXP(AVG(LN(c.t / x.t))), 3) AS geomean,
       ROUND(MIN(c.t / x.t), 3) AS lowest
FROM (SELECT matrix, K, layout, cluster, nnz_order, MIN(t) AS t FROM tiled
      GROUP BY matrix, K, layout, cluster, nnz_order) x
JOIN cus c ON c.matrix = x.matrix AND c.K = x.K AND c.layout = x.layout
GROUP BY x.cluster, x.nnz_order ORDER BY x.nnz_order, x.cluster;

.print '-- plan facts per cluster size (B rows staged per B column; most stages of a plan block: of a cluster above 1), noisy points included'
SELECT x.matrix, x.K, x.layout, x.cluster, x.nnz_order, ROUND(x.t * 1e3, 3) AS ms,
       CASE WHEN x.noisy THEN 'noisy' ELSE '' END AS note,
       (SELECT value FROM metrics WHERE point_id = x.id AND name = 'staged_entries') AS staged_rows,
       (SELECT value FROM metrics WHERE point_id = x.id AND name = 'stages_per_block_max') AS max_stages,
       (SELECT value FROM metrics WHERE point_id = x.id AND name = 'max_active_clusters') AS clusters_resident
FROM m x WHERE x.status = 'ok' AND x.kernel = 'spmm.cuda.tiled_pipe'
ORDER BY x.matrix, x.K, x.layout, x.nnz_order, x.cluster;
