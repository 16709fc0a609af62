-- Issue 34's bar from a store of configs/paper/hopper-bar.yaml (one run: its newest), for
-- ci/gpu-hopper.sh summary:
--   sqlite3 -header -column results/baselines/<host>/hopper-bar.db < ci/hopper-bar.sql
-- Verified points only (status ok). Per matrix and K: the best Tiled point (spmm.cuda.tiled,
-- tiled_pipe or tiled_tma, either layout) over the best cuSPARSE point (every algorithm, either
-- layout), and the best row-major Tiled point over the best row-major cuSPARSE point; each ratio is
-- cuSPARSE's median time over the Tiled one (> 1: Tiled is faster). Bars (H100, FP32, K = 32 and
-- 128): any layout >= 2.0 geometric mean, none below 1.3; row-major >= 1.5 geometric mean, none
-- below 1.0; every matrix of the config counts as locality-rich (none is R-MAT). The DRAM line:
-- the best Tiled point on banded-1m at K = 32, (CUPTI bytes read + written) / median time against
-- the 2866.53 GB/s probed in roofline/machines/h100-x1.yaml (bar 80%).
CREATE TEMP VIEW m AS
  SELECT p.id, p.matrix, p.kernel, p.params, p.time_median_s AS t,
         CAST(json_extract(p.problem, '$.K') AS INT) AS K,
         json_extract(p.problem, '$.layout') AS layout,
         CASE WHEN p.kernel LIKE 'spmm.cuda.tiled%' THEN 'tiled'
              WHEN p.kernel = 'spmm.cuda.cusparse' THEN 'cusparse' END AS side
  FROM points p
  WHERE p.status = 'ok' AND p.run_id = (SELECT MAX(run_id) FROM points)
    AND json_extract(p.problem, '$.precision') = 'fp32';

SELECT 'newest run' AS what, (SELECT MAX(run_id) FROM points) AS run_id,
       (SELECT status FROM runs ORDER BY id DESC LIMIT 1) AS run_status;

.print '-- points per matrix, kernel and status (newest run)'
SELECT matrix, kernel, status, COUNT(*) AS points FROM points
WHERE run_id = (SELECT MAX(run_id) FROM points) GROUP BY 1, 2, 3 ORDER BY 1, 2, 3;

CREATE TEMP VIEW best AS
  SELECT matrix, K, side, 'any' AS scope, MIN(t) AS t FROM m WHERE side IS NOT NULL
  GROUP BY matrix, K, side
  UNION ALL
  SELECT matrix, K, side, 'row' AS scope, MIN(t) AS t FROM m
  WHERE side IS NOT NULL AND layout = 'row' GROUP BY matrix, K, side;

-- The point behind each best time (kernel, layout, parameters).
CREATE TEMP VIEW who AS
  SELECT b.matrix, b.K, b.side, b.scope, b.t,
         (SELECT m.kernel || ' ' || m.layout || ' ' || m.params FROM m
          WHERE m.matrix = b.matrix AND m.K = b.K AND m.side = b.side AND m.t = b.t
            AND (b.scope = 'any' OR m.layout = 'row') LIMIT 1) AS point
  FROM best b;

CREATE TEMP VIEW ratio AS
  SELECT c.matrix, c.K, c.scope, c.t AS cusparse_s, t.t AS tiled_s, c.t / t.t AS ratio
  FROM best c JOIN best t ON t.matrix = c.matrix AND t.K = c.K AND t.scope = c.scope
  WHERE c.side = 'cusparse' AND t.side = 'tiled';

.print '-- per matrix and K: best cuSPARSE median / best Tiled median (any layout; row-major vs row-major)'
SELECT a.matrix, a.K, ROUND(a.cusparse_s * 1e3, 3) AS cusparse_ms, ROUND(a.tiled_s * 1e3, 3) AS tiled_ms,
       ROUND(a.ratio, 2) AS any_layout, CASE WHEN a.ratio >= 1.3 THEN 'ok' ELSE 'BELOW 1.3' END AS floor_any,
       ROUND(r.cusparse_s * 1e3, 3) AS cusparse_row_ms, ROUND(r.tiled_s * 1e3, 3) AS tiled_row_ms,
       ROUND(r.ratio, 2) AS row_major, CASE WHEN r.ratio >= 1.0 THEN 'ok' ELSE 'BELOW 1.0' END AS floor_row
FROM ratio a LEFT JOIN ratio r ON r.matrix = a.matrix AND r.K = a.K AND r.scope = 'row'
WHERE a.scope = 'any' ORDER BY a.matrix, a.K;

.print '-- the bar: geometric means over matrices and K'
SELECT scope, COUNT(*) AS cases, ROUND(EXP(AVG(LN(ratio))), 3) AS geomean, ROUND(MIN(ratio), 3) AS lowest,
       CASE WHEN scope = 'any' THEN 2.0 ELSE 1.5 END AS bar_geomean,
       CASE WHEN scope = 'any' THEN 1.3 ELSE 1.0 END AS bar_lowest,
       CASE WHEN EXP(AVG(LN(ratio))) >= (CASE WHEN scope = 'any' THEN 2.0 ELSE 1.5 END)
             AND MIN(ratio) >= (CASE WHEN scope = 'any' THEN 1.3 ELSE 1.0 END)
            THEN 'met' ELSE 'NOT met' END AS verdict
FROM ratio GROUP BY scope ORDER BY scope;

.print '-- the best points'
SELECT matrix, K, side, scope, ROUND(t * 1e3, 3) AS ms, point FROM who ORDER BY matrix, K, scope, side;

.print '-- which Tiled kernel is best per matrix, K and scope'
SELECT w.matrix, w.K, w.scope, substr(w.point, 1, instr(w.point, ' ') - 1) AS best_tiled_kernel
FROM who w WHERE w.side = 'tiled' ORDER BY 1, 2, 3;

.print '-- DRAM traffic of the best Tiled point on banded-1m, K = 32 (bar: 80% of 2866.53 GB/s)'
SELECT m.kernel, m.layout, ROUND(m.t * 1e3, 3) AS ms,
       ROUND((r.value + w.value) / 1e6, 1) AS dram_mb,
       ROUND((r.value + w.value) / m.t / 1e9, 0) AS dram_gbs,
       ROUND(100.0 * (r.value + w.value) / m.t / 2866.53e9, 1) AS pct_of_copy,
       CASE WHEN (r.value + w.value) / m.t / 2866.53e9 >= 0.8 THEN 'met' ELSE 'NOT met' END AS verdict
FROM m
JOIN metrics r ON r.point_id = m.id AND r.name = 'dram_bytes_read'
JOIN metrics w ON w.point_id = m.id AND w.name = 'dram_bytes_write'
WHERE m.matrix = 'banded-1m' AND m.K = 32 AND m.side = 'tiled'
ORDER BY m.t LIMIT 3;

.print '-- spmm.cuda.tiled_tma: points by status and the reasons of refused ones (newest run)'
SELECT status, COUNT(*) AS points, substr(MIN(IFNULL(reason, '')), 1, 120) AS a_reason FROM points
WHERE kernel = 'spmm.cuda.tiled_tma' AND run_id = (SELECT MAX(run_id) FROM points)
GROUP BY status;
