-- The right-hand-side cases of issue 32 item 4, read from the view rhs_points that
-- ci/sptrsv-rhs-table.sh makes of the stores of configs/paper/sptrsv-rhs-*.yaml (one part each):
--   bash ci/sptrsv-rhs-table.sh results/baselines/<host>/sptrsv-rhs-*.db
-- Per matrix, solve and number of right-hand sides: the best point of each single-GPU solve
-- (cuSPARSE over every option set, the supernodal solve: forward only) and of the persistent solve
-- on 1 and 4 GPUs, medians in ms; the best single-GPU baseline over the persistent solve on 4
-- GPUs, and its own one-GPU time over it. A median counts when its point is verified, ok, has 6 or
-- more samples, is not noisy and was not stopped early. Then what became of every cuSPARSE option
-- set (the baseline runs whole: each is infeasible with a reason, measured in full, or verified
-- and stopped early), every point stopped early with both numbers, and the stores' revisions.
CREATE TEMP VIEW rhs_full AS
  SELECT * FROM rhs_points
  WHERE status = 'ok' AND verified = 1 AND n_samples >= 6 AND NOT noisy AND NOT aborted;

CREATE TEMP VIEW rhs_best AS
  SELECT matrix, solve, nrhs,
         MIN(CASE WHEN kernel = 'sptrsv.cuda.cusparse' THEN time_median_s END) AS cusparse,
         MIN(CASE WHEN kernel = 'sptrsv.cuda.supernodal' THEN time_median_s END) AS supernodal,
         MIN(CASE WHEN kernel = 'sptrsv.cuda.persistent' AND parts = 1 THEN time_median_s END) AS p1,
         MIN(CASE WHEN kernel = 'sptrsv.cuda.persistent' AND parts = 4 THEN time_median_s END) AS p4
  FROM rhs_full GROUP BY matrix, solve, nrhs;

-- cuSPARSE's option set in a few words: api, format, storage, index width, dense layout
CREATE TEMP VIEW rhs_cusparse AS
  SELECT *, json_extract(params, '$.api') || ' ' || json_extract(params, '$.format') || ' ' ||
            json_extract(params, '$.storage') || ' ' || json_extract(params, '$.index') || ' ' ||
            json_extract(params, '$.layout') AS option_set
  FROM rhs_points WHERE kernel = 'sptrsv.cuda.cusparse';

SELECT b.matrix, b.solve, b.nrhs, ROUND(1e3 * b.cusparse, 3) AS cusparse_ms,
       (SELECT c.option_set FROM rhs_cusparse c JOIN rhs_full f ON f.store = c.store
                                                             AND f.point_id = c.point_id
        WHERE c.matrix = b.matrix AND c.solve = b.solve AND c.nrhs = b.nrhs
        ORDER BY c.time_median_s LIMIT 1) AS cusparse_best,
       ROUND(1e3 * b.supernodal, 3) AS supernodal_ms, ROUND(1e3 * b.p1, 3) AS persistent_1gpu_ms,
       ROUND(1e3 * b.p4, 3) AS persistent_4gpu_ms,
       CASE WHEN b.cusparse IS NULL AND b.supernodal IS NULL THEN NULL
            ELSE ROUND(MIN(IFNULL(b.cusparse, 1e30), IFNULL(b.supernodal, 1e30)) / b.p4, 2)
       END AS x_best_1gpu_baseline,
       ROUND(b.p1 / b.p4, 2) AS x_own_1gpu
FROM rhs_best b ORDER BY b.matrix, b.solve DESC, b.nrhs;

-- every cuSPARSE option set: infeasible (SpSV has no row-major layout, SpSM no sliced ELL, or
-- the library refused it), measured in full, stopped early (verified, then slower than 10x the
-- best of its abort group and than cuSPARSE's best so far), or another outcome (timeout, wrong,
-- error, noisy)
SELECT matrix, solve, nrhs, COUNT(*) AS option_sets,
       SUM(status = 'infeasible') AS infeasible,
       SUM(status = 'ok' AND verified = 1 AND n_samples >= 6 AND NOT noisy AND NOT aborted) AS full,
       SUM(status = 'ok' AND verified = 1 AND aborted) AS stopped_early,
       SUM(NOT (status = 'infeasible' OR (status = 'ok' AND verified = 1 AND (aborted OR
           (n_samples >= 6 AND NOT noisy))))) AS other
FROM rhs_cusparse GROUP BY matrix, solve, nrhs ORDER BY matrix, solve DESC, nrhs;

-- the points stopped early: their fastest repetition (the only one when the verification
-- execution stopped them) against the best they lost to
SELECT matrix, solve, nrhs, kernel,
       CASE WHEN kernel = 'sptrsv.cuda.cusparse' THEN
         json_extract(params, '$.api') || ' ' || json_extract(params, '$.format') || ' ' ||
         json_extract(params, '$.storage') || ' ' || json_extract(params, '$.index') || ' ' ||
         json_extract(params, '$.layout') ELSE params END AS params,
       n_samples AS samples, ROUND(1e3 * time_min_s, 3) AS fastest_ms,
       ROUND(1e3 * abort_best_s, 3) AS best_ms, ROUND(time_min_s / abort_best_s, 1) AS x_best,
       CASE WHEN reason LIKE 'early abort at its verification execution%' THEN 'verification'
            ELSE 'repetitions' END AS stopped_at,
       CASE WHEN reason LIKE '%the best of abort_group %' THEN
         substr(reason, instr(reason, 'abort_group ') + 12,
                instr(substr(reason, instr(reason, 'abort_group ') + 12), ' ') - 1)
            ELSE '(its sweep)' END AS against
FROM rhs_points WHERE status = 'ok' AND verified = 1 AND aborted
ORDER BY matrix, solve DESC, nrhs, kernel, time_min_s;

-- the stores: the revision their points come from, and the points' outcomes
SELECT store, substr(revision, 1, 7) || CASE WHEN MAX(dirty) = 0 THEN ' (clean)' ELSE ' (dirty)' END
         AS revision,
       COUNT(*) AS points, SUM(status = 'ok') AS ok, SUM(status = 'infeasible') AS infeasible,
       SUM(status NOT IN ('ok', 'infeasible')) AS other
FROM rhs_points GROUP BY store ORDER BY store;
