/**
 * The decision of scripts/audit.sh, from `npm audit --json`'s output (stdin) and the environment:
 *
 * - a report: exit 1 when it has high or critical advisories (each named), else 0;
 * - no report (the registry's advisory endpoint answered an error, no network, anything else): no check
 *   was made, which is not a pass: exit 2, unless FLAGLENS_AUDIT_UNAVAILABLE=allow says explicitly that
 *   running without one is accepted (then 0, with a warning). A finding fails whatever the variable says.
 *
 *   npm audit --json | npx ts-node --transpile-only scripts/audit-verdict.ts
 */
export const ALLOW_VARIABLE = 'FLAGLENS_AUDIT_UNAVAILABLE';

interface Report {
  vulnerabilities?: Record<
    string,
    { severity?: string; isDirect?: boolean; range?: string; via?: unknown[] }
  >;
  metadata?: { vulnerabilities?: Record<string, number> };
  message?: string;
  error?: { code?: string; summary?: string; detail?: string };
}

export function auditVerdict(
  output: string,
  allow: string | undefined,
): { exitCode: number; lines: string[] } {
  let report: Report | null = null;
  try {
    const parsed = JSON.parse(output) as unknown;
    if (parsed && typeof parsed === 'object' && !Array.isArray(parsed)) report = parsed as Report;
  } catch {
    report = null;
  }
  const counts = report?.metadata?.vulnerabilities;
  if (report && counts && typeof counts === 'object') {
    const serious = Object.entries(report.vulnerabilities ?? {})
      .filter(([, v]) => v.severity === 'high' || v.severity === 'critical')
      .map(
        ([name, v]) =>
          `  ${v.severity} ${name}${v.range ? ` ${v.range}` : ''}${v.isDirect ? ' (direct)' : ''}`,
      );
    const high = (counts.high ?? 0) + (counts.critical ?? 0);
    const summary = ['critical', 'high', 'moderate', 'low', 'info']
      .map((s) => `${s} ${counts[s] ?? 0}`)
      .join(', ');
    if (high > 0 || serious.length > 0)
      return {
        exitCode: 1,
        lines: [`[audit] FAILED: high or critical advisories (${summary}):`, ...serious],
      };
    return { exitCode: 0, lines: [`[audit] no high or critical advisory (${summary})`] };
  }

  const why =
    report?.message ||
    [report?.error?.code, report?.error?.summary].filter(Boolean).join(': ') ||
    'npm audit printed no report';
  if (allow === 'allow')
    return {
      exitCode: 0,
      lines: [
        `[audit] WARNING: the audit could not run (${why}): no advisory check was made.`,
        `[audit] ${ALLOW_VARIABLE}=allow lets this pass; a registry with a working audit endpoint is needed for a real check.`,
      ],
    };
  return {
    exitCode: 2,
    lines: [
      `[audit] ERROR: the audit could not run (${why}): no advisory check was made, which is not a pass.`,
      `[audit] Fix the registry access, or set ${ALLOW_VARIABLE}=allow to accept running without the check` +
        (allow !== undefined && allow !== '' ? ` (it is "${allow}", not "allow")` : '') +
        '.',
    ],
  };
}

if (require.main === module) {
  const chunks: Buffer[] = [];
  process.stdin.on('data', (c: Buffer) => chunks.push(c));
  process.stdin.on('end', () => {
    const { exitCode, lines } = auditVerdict(
      Buffer.concat(chunks).toString('utf8'),
      process.env[ALLOW_VARIABLE],
    );
    (exitCode === 0 ? process.stdout : process.stderr).write(lines.join('\n') + '\n');
    process.exit(exitCode);
  });
}
