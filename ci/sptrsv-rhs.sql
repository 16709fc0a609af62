-- The right-hand-side cases of issue 32 item 4 from one store (configs/paper/sptrsv-rhs.yaml):
--   sqlite3 -header -column results/baselines/<host>/sptrsv-rhs.db < ci/sptrsv-rhs.sql
-- Every run of the latest run's revision and config counts (a resumed run is one). Per solve and
-- number of right-hand sides: the best verified point of each single-GPU solve (cuSPARSE over
-- every option set, the supernodal solve: forward only) and of the persistent solve on 1 and 4
-- GPUs, medians in ms; the best single-GPU baseline over the persistent solve on 4 GPUs, and its
-- own one-GPU time over it. Only points with 6 or more samples that are not noisy count.
WITH latest AS (SELECT git_revision, config_hash FROM runs ORDER BY id DESC LIMIT 1),
pts AS (
  SELECT p.*, json_extract(p.problem, '$.solve') AS solve, json_extract(p.problem, '$.nrhs') AS nrhs,
         json_extract(p.params, '$.parts') AS parts
  FROM points p
  WHERE p.status = 'ok' AND p.verified = 1
    AND p.run_id IN (SELECT r.id FROM runs r, latest l
                     WHERE r.git_revision = l.git_revision AND r.config_hash = l.config_hash)
    AND (SELECT COUNT(*) FROM samples s WHERE s.point_id = p.id) >= 6
    AND NOT EXISTS (SELECT 1 FROM metrics m WHERE m.point_id = p.id AND m.name = 'noisy' AND m.value = 1)),
best AS (
  SELECT solve, nrhs,
         MIN(CASE WHEN kernel = 'sptrsv.cuda.cusparse' THEN time_median_s END) AS cusparse,
         MIN(CASE WHEN kernel = 'sptrsv.cuda.supernodal' THEN time_median_s END) AS supernodal,
         MIN(CASE WHEN kernel = 'sptrsv.cuda.persistent' AND parts = 1 THEN time_median_s END) AS p1,
         MIN(CASE WHEN kernel = 'sptrsv.cuda.persistent' AND parts = 4 THEN time_median_s END) AS p4
  FROM pts GROUP BY solve, nrhs)
SELECT solve, nrhs, ROUND(1e3 * cusparse, 3) AS cusparse_ms, ROUND(1e3 * supernodal, 3) AS supernodal_ms,
       ROUND(1e3 * p1, 3) AS persistent_1gpu_ms, ROUND(1e3 * p4, 3) AS persistent_4gpu_ms,
       CASE WHEN cusparse IS NULL AND supernodal IS NULL THEN NULL
            ELSE ROUND(MIN(IFNULL(cusparse, 1e30), IFNULL(supernodal, 1e30)) / p4, 2) END AS x_best_1gpu_baseline,
       ROUND(p1 / p4, 2) AS x_own_1gpu
FROM best ORDER BY solve DESC, nrhs;
