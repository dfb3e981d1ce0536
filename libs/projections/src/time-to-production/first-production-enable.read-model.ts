/**
 * Time to production's one query (semantics §3.3), shared by the overview and the insights: for each row of
 * `flag` (an alias with `name` and `created_at`), `t.first_at` is the first `feature-environment-enabled` of
 * the flag after its creation in an environment whose *current* type is production (deleted environments left
 * out), or null. One probe of the event log's partial index `event_log_enable_idx` per production environment.
 * Use it as `FROM <flags> <flag> CROSS JOIN ${firstProductionEnable('<flag>')}`.
 */
export const firstProductionEnable = (flag: string): string => `LATERAL (
  SELECT min(x.enabled_at) AS first_at
    FROM environments e CROSS JOIN LATERAL (
           SELECT created_at AS enabled_at FROM event_log
            WHERE type = 'feature-environment-enabled' AND feature_name = ${flag}.name
              AND environment = e.name AND created_at > ${flag}.created_at
            ORDER BY created_at LIMIT 1) x
   WHERE NOT e.deleted AND e.type = 'production') t`;
