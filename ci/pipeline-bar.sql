-- Issue 21's bar from a hierarchical-comm-gpu-pipeline store: per comm and K, the unpipelined time
-- (stages 1), the best pipelined point, the time it saves (bar: >= 20%), its wall time over its
-- pipeline model (bar: within 15%, 0.85..1.15) and the overlap. sqlite3 -header -column DB < ci/pipeline-bar.sql
WITH t AS (SELECT json_extract(params,'$.comm') comm, json_extract(problem,'$.K') K,
  json_extract(params,'$.stages') st, json_extract(params,'$.stage_buffers') sb, time_median_s t,
  (SELECT value FROM metrics WHERE point_id=p.id AND name='pipeline_model_ratio') r,
  (SELECT value FROM metrics WHERE point_id=p.id AND name='time_overlap_s') ov
  FROM points p WHERE status='ok')
SELECT a.comm, a.K, printf('%.3f', a.t*1e3) unpiped_ms, b.st stages, b.sb bufs,
  printf('%.3f', b.t*1e3) best_ms, printf('%.1f%%', 100*(1-b.t/a.t)) saved,
  printf('%.2f', b.r) wall_over_model, printf('%.3f', b.ov*1e3) overlap_ms
FROM t a JOIN t b ON a.comm=b.comm AND a.K=b.K AND a.st=1 AND a.sb=2 AND b.st>1
  AND b.t=(SELECT MIN(t) FROM t c WHERE c.comm=a.comm AND c.K=a.K AND c.st>1)
ORDER BY a.comm, a.K;
