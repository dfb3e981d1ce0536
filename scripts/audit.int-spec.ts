import { execFile } from 'node:child_process';
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const ROOT = join(__dirname, '..');

/** npm audit's --json answers, as npm 11 prints them. */
const REPORT_CLEAN = {
  auditReportVersion: 2,
  vulnerabilities: {},
  metadata: {
    vulnerabilities: { info: 0, low: 0, moderate: 0, high: 0, critical: 0, total: 0 },
    dependencies: { prod: 300, dev: 560, optional: 0, peer: 0, peerOptional: 0, total: 859 },
  },
};
const REPORT_HIGH = {
  auditReportVersion: 2,
  vulnerabilities: {
    'bad-lib': {
      name: 'bad-lib',
      severity: 'high',
      isDirect: false,
      via: [{ source: 1, name: 'bad-lib', title: 'Prototype pollution', severity: 'high', range: '<1.2.3' }],
      effects: [],
      range: '<1.2.3',
      nodes: ['node_modules/bad-lib'],
      fixAvailable: true,
    },
    'meh-lib': {
      name: 'meh-lib',
      severity: 'moderate',
      isDirect: true,
      via: [],
      effects: [],
      range: '*',
      nodes: ['node_modules/meh-lib'],
      fixAvailable: false,
    },
  },
  metadata: {
    vulnerabilities: { info: 0, low: 0, moderate: 1, high: 1, critical: 0, total: 2 },
    dependencies: { prod: 300, dev: 560, optional: 0, peer: 0, peerOptional: 0, total: 859 },
  },
};
/** This machine's registry: the bulk advisory endpoint answers 405. */
const ENDPOINT_ERROR = {
  message: '405 Method Not Allowed - POST https://registry.npmjs.org/-/npm/v1/security/advisories/bulk',
  method: 'POST',
  uri: 'https://registry.npmjs.org/-/npm/v1/security/advisories/bulk',
  statusCode: 405,
  body: '',
  error: { summary: '', detail: '' },
};
const OFFLINE = {
  error: { code: 'ENOTFOUND', summary: 'request to https://registry.npmjs.org failed', detail: '' },
};

/**
 * scripts/audit.sh's decision, with a fake `npm` first on PATH that prints a canned `npm audit --json`
 * answer: a finding fails, a clean report passes, an audit that could not run fails unless
 * FLAGLENS_AUDIT_UNAVAILABLE=allow says so explicitly (and even then a finding fails).
 */
describe('scripts/audit.sh (a fake npm on PATH)', () => {
  let dir: string;

  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'flaglens-audit-'));
  });

  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  /** What npm prints on stderr besides the report, as on this machine. */
  const stderrOf = (answer: unknown) =>
    answer === ENDPOINT_ERROR
      ? `npm warn audit ${ENDPOINT_ERROR.message}\nnpm error audit endpoint returned an error`
      : answer === OFFLINE
        ? 'npm error code ENOTFOUND'
        : 'npm warn Unknown user config "nodedir"';

  function audit(
    answer: unknown,
    npmExit: number,
    env: Record<string, string> = {},
  ): Promise<{ code: number; out: string }> {
    writeFileSync(join(dir, 'answer.json'), typeof answer === 'string' ? answer : JSON.stringify(answer));
    writeFileSync(join(dir, 'stderr.txt'), stderrOf(answer) + '\n');
    const npm = join(dir, 'npm');
    writeFileSync(
      npm,
      `#!/usr/bin/env bash\n[[ "$1" == audit ]] || exit 99\ncat '${join(dir, 'stderr.txt')}' >&2\ncat '${join(dir, 'answer.json')}'\nexit ${npmExit}\n`,
    );
    chmodSync(npm, 0o755);
    const childEnv: NodeJS.ProcessEnv = { ...process.env, PATH: `${dir}:${process.env.PATH}`, ...env };
    if (!('FLAGLENS_AUDIT_UNAVAILABLE' in env)) delete childEnv.FLAGLENS_AUDIT_UNAVAILABLE;
    return new Promise((resolve) => {
      execFile(
        'bash',
        [join(ROOT, 'scripts', 'audit.sh')],
        { cwd: ROOT, env: childEnv },
        (err, stdout, stderr) =>
          resolve({ code: err ? Number((err as { code?: number }).code ?? 1) : 0, out: stdout + stderr }),
      );
    });
  }

  it('a clean report passes', async () => {
    const r = await audit(REPORT_CLEAN, 0);
    expect(r.code).toBe(0);
  });

  it('a high advisory fails, naming the package', async () => {
    const r = await audit(REPORT_HIGH, 1);
    expect(r.code).not.toBe(0);
    expect(r.out).toContain('bad-lib');
  });

  it('an audit endpoint that answers an error fails, naming the variable that would allow it', async () => {
    const r = await audit(ENDPOINT_ERROR, 1);
    expect(r.code).not.toBe(0);
    expect(r.out).toContain('405');
    expect(r.out).toContain('FLAGLENS_AUDIT_UNAVAILABLE=allow');
  });

  it('no network fails too, and so does output that is no report at all', async () => {
    expect((await audit(OFFLINE, 1)).code).not.toBe(0);
    expect((await audit('npm error something odd', 1)).code).not.toBe(0);
  });

  it('FLAGLENS_AUDIT_UNAVAILABLE=allow lets an unavailable audit pass, loudly', async () => {
    const r = await audit(ENDPOINT_ERROR, 1, { FLAGLENS_AUDIT_UNAVAILABLE: 'allow' });
    expect(r.code).toBe(0);
    expect(r.out).toMatch(/WARNING.*no advisory check/);
  });

  it('... but never a real finding', async () => {
    const r = await audit(REPORT_HIGH, 1, { FLAGLENS_AUDIT_UNAVAILABLE: 'allow' });
    expect(r.code).not.toBe(0);
    expect(r.out).toContain('bad-lib');
  });

  it('another value of the variable is refused, not taken for "allow"', async () => {
    const r = await audit(ENDPOINT_ERROR, 1, { FLAGLENS_AUDIT_UNAVAILABLE: 'yes' });
    expect(r.code).not.toBe(0);
  });
});
