-- Issue 21's bar from a hierarchical-comm-gpu-pipeline store: per comm, K and spmm_alg, the unpipelined time
-- (stages 1), the best pipelined point, the time it saves (bar: >= 20%), its wall time over its
-- pipeline model (bar: within 15%, 0.85..1.15), the host-wait overlap (time_overlap_s) and the
-- timeline's (time_busy_overlap_s of its union; '-' in stores older than the timeline).
-- sqlite3 -header -column DB < ci/pipeline-bar.sql
WITH t AS (SELECT json_extract(params,'$.comm') comm, json_extract(problem,'$.K') K,
  ifnull(json_extract(params,'$.spmm_alg'), 'default') alg, json_extract(params,'$.stages') st, json_extract(params,'$.stage_buffers') sb, time_median_s t,
  (SELECT value FROM metrics WHERE point_id=p.id AND name='pipeline_model_ratio') r,
  (SELECT value FROM metrics WHERE point_id=p.id AND name='time_overlap_s') ov,
  (SELECT value FROM metrics WHERE point_id=p.id AND name='time_busy_overlap_s' AND available=1) bov,
  (SELECT value FROM metrics WHERE point_id=p.id AND name='time_busy_union_s' AND available=1) bun
  FROM points p WHERE status='ok')
SELECT a.comm, a.K, a.alg, printf('%.3f', a.t*1e3) unpiped_ms, b.st stages, b.sb bufs,
  printf('%.3f', b.t*1e3) best_ms, printf('%.1f%%', 100*(1-b.t/a.t)) saved,
  printf('%.2f', b.r) wall_over_model, printf('%.3f', b.ov*1e3) overlap_ms,
  CASE WHEN b.bov IS NULL THEN '-' ELSE printf('%.3f', b.bov*1e3) END busy_overlap_ms,
  CASE WHEN b.bun IS NULL THEN '-' ELSE printf('%.3f', b.bun*1e3) END busy_union_ms
FROM t a JOIN t b ON a.comm=b.comm AND a.K=b.K AND a.alg=b.alg AND a.st=1 AND a.sb=2 AND b.st>1
  AND b.t=(SELECT MIN(t) FROM t c WHERE c.comm=a.comm AND c.K=a.K AND c.alg=a.alg AND c.st>1)
ORDER BY a.comm, a.K, a.alg;
