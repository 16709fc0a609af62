-- Issue 32's bar for the triangular solve, from a store of configs/paper/sptrsv-scaling.yaml:
--   sqlite3 -header -column results/baselines/<host>/sptrsv-scaling.db < ci/sptrsv-bar.sql
-- Verified points only (status ok; above_roofline points are shown apart). "best 1-GPU" is the
-- fastest verified sptrsv.cuda.supernodal or sptrsv.cuda.cusparse point of the matrix, measured
-- in the same run (the issue's baselines); speedups are its median over each persistent point's
-- median. The stricter reading counts the persistent solve on one GPU among the single-GPU
-- solves too (strict_x_*): a multi-GPU speedup a sceptic accepts is one over every single-GPU
-- solve measured. A run resumed in the same store (a device call stopped by its time limit, the
-- next one going on) is one run: the points of every run of the latest run's revision and config
-- count; a point kept twice (it cannot be: resumption skips recorded points) would count once.
CREATE TEMP VIEW m AS
  SELECT p.id, p.run_id, p.matrix, p.kernel, p.params, p.status, p.time_median_s AS t, p.ci_rel,
         p.bound_s, p.efficiency,
         (SELECT value FROM metrics WHERE point_id = p.id AND name = 'nnz_l') AS nnz_l,
         CAST((SELECT value FROM metrics WHERE point_id = p.id AND name = 'parts') AS INT) AS parts,
         (SELECT value FROM metrics WHERE point_id = p.id AND name = 'model_time_s') AS model_s,
         (SELECT value FROM metrics WHERE point_id = p.id AND name = 'model_over_measured') AS mom,
         (SELECT value FROM metrics WHERE point_id = p.id AND name = 'critical_path_len') AS path,
         (SELECT value FROM metrics WHERE point_id = p.id AND name = 'critical_path_messages') AS hops,
         (SELECT value FROM metrics WHERE point_id = p.id AND name = 'part_link_bytes_max') AS link_b,
         (SELECT value FROM metrics WHERE point_id = p.id AND name = 'noisy') AS noisy
  FROM points p
  WHERE p.run_id IN (SELECT r.id FROM runs r, (SELECT git_revision, config_hash FROM runs
                                               ORDER BY id DESC LIMIT 1) l
                     WHERE r.git_revision = l.git_revision AND r.config_hash = l.config_hash);

SELECT 'runs in the store' AS what, (SELECT COUNT(*) FROM runs) AS n,
       (SELECT COUNT(DISTINCT run_id) FROM m) AS counted,
       (SELECT substr(git_revision, 1, 7) || CASE git_dirty WHEN 0 THEN ' (clean)' ELSE ' (dirty)' END
        FROM runs ORDER BY id DESC LIMIT 1) AS revision,
       (SELECT status FROM runs ORDER BY id DESC LIMIT 1) AS last_run_status;

SELECT matrix, kernel, status, COUNT(*) AS points FROM m GROUP BY 1, 2, 3 ORDER BY 1, 2, 3;

CREATE TEMP VIEW best1 AS
  SELECT matrix, MIN(t) AS t FROM m
  WHERE status = 'ok' AND kernel IN ('sptrsv.cuda.supernodal', 'sptrsv.cuda.cusparse')
  GROUP BY matrix;

-- the best single-GPU baselines
SELECT m.matrix, m.kernel, m.params, printf('%.3f', m.t * 1e3) AS ms, printf('%.3g', m.nnz_l) AS nnz_l
FROM m JOIN (SELECT matrix, kernel, MIN(t) AS t FROM m WHERE status = 'ok'
             AND kernel IN ('sptrsv.cuda.supernodal', 'sptrsv.cuda.cusparse') GROUP BY 1, 2) b
  ON b.matrix = m.matrix AND b.kernel = m.kernel AND b.t = m.t
ORDER BY 1, 4;

-- strong scaling: every persistent point
SELECT m.matrix, m.parts AS gpus, json_extract(m.params, '$.layout') AS layout,
       json_extract(m.params, '$.map') AS map, m.status, printf('%.3f', m.t * 1e3) AS ms,
       printf('%.2f', b.t / m.t) AS vs_best_1gpu,
       printf('%.2f', (SELECT MIN(o.t) FROM m o WHERE o.matrix = m.matrix AND o.parts = 1
                        AND o.kernel = m.kernel AND o.status = 'ok') / m.t) AS vs_own_1gpu,
       printf('%.3f', m.model_s * 1e3) AS model_ms, printf('%.2f', m.mom) AS model_over_meas,
       CAST(m.path AS INT) AS path_tasks, CAST(m.hops AS INT) AS path_hops,
       printf('%.3g', m.link_b) AS link_bytes, printf('%.2f', m.efficiency) AS roofline_eff,
       printf('%.3f', m.ci_rel) AS ci_rel
FROM m JOIN best1 b ON b.matrix = m.matrix
WHERE m.kernel = 'sptrsv.cuda.persistent'
ORDER BY 1, 2, m.t;

-- the bar, per matrix: the best persistent point on 2 and 4 GPUs over the best single-GPU solve
-- (the issue's baselines), and over every single-GPU solve, ours included (strict)
CREATE TEMP VIEW bestp AS
  SELECT matrix,
         (SELECT MIN(t) FROM m o WHERE o.matrix = b.matrix AND o.status = 'ok'
            AND o.kernel = 'sptrsv.cuda.persistent' AND o.parts = 1) AS p1,
         (SELECT MIN(t) FROM m o WHERE o.matrix = b.matrix AND o.status = 'ok'
            AND o.kernel = 'sptrsv.cuda.persistent' AND o.parts = 2) AS p2,
         (SELECT MIN(t) FROM m o WHERE o.matrix = b.matrix AND o.status = 'ok'
            AND o.kernel = 'sptrsv.cuda.persistent' AND o.parts = 4) AS p4,
         (SELECT MAX(nnz_l) FROM m o WHERE o.matrix = b.matrix) AS nnz_l, b.t AS t
  FROM best1 b;
SELECT matrix, printf('%.3g', nnz_l) AS nnz_l, printf('%.3f', t * 1e3) AS best_1gpu_ms,
       printf('%.2f', t / p2) AS x_2gpus, printf('%.2f', t / p4) AS x_4gpus,
       CASE WHEN nnz_l >= 2e8 AND t / p2 >= 1.5 AND t / p4 >= 2.0 THEN 'met' ELSE 'not met' END AS bar,
       printf('%.3f', MIN(t, COALESCE(p1, t)) * 1e3) AS strict_1gpu_ms,
       printf('%.2f', MIN(t, COALESCE(p1, t)) / p2) AS strict_x_2gpus,
       printf('%.2f', MIN(t, COALESCE(p1, t)) / p4) AS strict_x_4gpus,
       CASE WHEN nnz_l >= 2e8 AND MIN(t, COALESCE(p1, t)) / p2 >= 1.5
                 AND MIN(t, COALESCE(p1, t)) / p4 >= 2.0 THEN 'met' ELSE 'not met' END AS strict_bar
FROM bestp ORDER BY 1;

-- the model: persistent points within 30% of their measured median (bar: at least 80%)
SELECT COUNT(*) AS persistent_points,
       SUM(CASE WHEN mom BETWEEN 0.7 AND 1.3 THEN 1 ELSE 0 END) AS within_30pct,
       printf('%.0f%%', 100.0 * SUM(CASE WHEN mom BETWEEN 0.7 AND 1.3 THEN 1 ELSE 0 END) / COUNT(*))
         AS share
FROM m WHERE kernel = 'sptrsv.cuda.persistent' AND status = 'ok';

-- points flagged above the roofline (a measurement faster than its bound: a bug somewhere)
SELECT matrix, kernel, params, printf('%.3f', t * 1e3) AS ms, printf('%.3f', bound_s * 1e3) AS bound_ms
FROM m WHERE status = 'above_roofline';
