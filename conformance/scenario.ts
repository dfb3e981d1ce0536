/**
 * The scenario the conformance run drives through the real Unleash's admin and client APIs (and, for what the
 * open-source build has no route for, the harness router of unleash-peer/start.js, which calls Unleash's own
 * service methods). Everything here is an HTTP request; every event it causes is written by Unleash.
 */

export interface UserRef {
  id: number;
  name: string;
  email: string;
  /** Unleash personal access token (Authorization: user:...). */
  pat: string;
}

export interface ScenarioResult {
  users: UserRef[];
  projects: string[];
  flags: string[];
  /** A flag in `default` left enabled/disabled by the follow-mode check. */
  toggleFlag: { project: string; name: string };
}

type Auth = string | { cookie: string };

export class UnleashClient {
  constructor(
    readonly base: string,
    readonly adminToken: string,
  ) {}

  async call(
    method: string,
    path: string,
    body?: unknown,
    auth: Auth = this.adminToken,
    ok: number[] = [200, 201, 202, 204],
  ): Promise<{ status: number; json: unknown; headers: Headers }> {
    const headers: Record<string, string> = { Accept: 'application/json' };
    if (typeof auth === 'string') headers.Authorization = auth;
    else headers.Cookie = auth.cookie;
    // Unleash wants a JSON content type on every write, DELETE included
    if (method !== 'GET') headers['Content-Type'] = 'application/json';
    const res = await fetch(`${this.base}${path}`, {
      method,
      headers,
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await res.text();
    let json: unknown = undefined;
    try {
      json = text ? JSON.parse(text) : undefined;
    } catch {
      json = text;
    }
    if (!ok.includes(res.status))
      throw new Error(`Unleash ${method} ${path} -> ${res.status}: ${text.slice(0, 400)}`);
    return { status: res.status, json, headers: res.headers };
  }

  get = (path: string, auth?: Auth) => this.call('GET', path, undefined, auth);
  post = (path: string, body?: unknown, auth?: Auth) => this.call('POST', path, body ?? {}, auth);
  put = (path: string, body?: unknown, auth?: Auth) => this.call('PUT', path, body ?? {}, auth);
  del = (path: string, auth?: Auth) => this.call('DELETE', path, undefined, auth);

  /** Logs in with a password; returns the session cookie. */
  async login(username: string, password: string): Promise<{ cookie: string }> {
    const res = await fetch(`${this.base}/auth/simple/login`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ username, password }),
    });
    if (res.status !== 200) throw new Error(`login ${username} -> ${res.status}: ${await res.text()}`);
    const cookie = res.headers
      .getSetCookie()
      .map((c) => c.split(';')[0])
      .join('; ');
    return { cookie };
  }

  /**
   * Logs in and creates a personal access token. Unleash stores a new session asynchronously, so the first
   * request with its cookie can still be refused: the login is repeated then.
   */
  async pat(username: string, password: string, description: string): Promise<string> {
    for (let attempt = 1; ; attempt++) {
      const session = await this.login(username, password);
      const r = await this.call(
        'POST',
        '/api/admin/user/tokens',
        { description, expiresAt: new Date(Date.now() + 7 * 86_400_000).toISOString() },
        session,
        [201, 401],
      );
      if (r.status === 201) return (r.json as { secret: string }).secret;
      if (attempt === 5)
        throw new Error(`no session for ${username} after 5 logins: ${r.status} ${JSON.stringify(r.json)}`);
      await new Promise((res) => setTimeout(res, 200 * attempt));
    }
  }
}

const strategy = (flag: string, extra: Record<string, unknown> = {}) => ({
  name: 'flexibleRollout',
  constraints: [
    {
      contextName: 'userId',
      operator: 'IN',
      values: ['1', '2', '3'],
      caseInsensitive: false,
      inverted: false,
    },
    { contextName: 'region', operator: 'NOT_IN', values: ['us'], caseInsensitive: true, inverted: false },
  ],
  parameters: { rollout: '50', stickiness: 'default', groupId: flag },
  ...extra,
});

/** Drives the scenario; returns what the comparison needs. */
export async function driveScenario(
  u: UnleashClient,
  adminPassword: string,
  log: (m: string) => void,
): Promise<ScenarioResult> {
  const adminPat = await u.pat('admin', adminPassword, 'conformance admin');
  const A = adminPat; // most of the scenario runs as the admin user (id 1) through their PAT
  const H = (path: string, body?: unknown) => u.post(`/api/admin/harness${path}`, body, A);

  // users with different root roles (1 Admin, 2 Editor, 3 Viewer), their PATs; one updated and deleted
  const password = 'Conf0rmance-Pass!';
  const users: UserRef[] = [{ id: 1, name: 'admin', email: 'admin', pat: adminPat }];
  for (const [name, rootRole] of [
    ['alice', 2],
    ['bob', 3],
    ['carol', 1],
    ['erin', 2],
  ] as const) {
    const r = await u.post(
      '/api/admin/user-admin',
      { name, email: `${name}@example.com`, rootRole, sendEmail: false, password },
      A,
    );
    const id = (r.json as { id: number }).id;
    users.push({
      id,
      name,
      email: `${name}@example.com`,
      pat: await u.pat(`${name}@example.com`, password, `${name}'s token`),
    });
  }
  const dave = (
    await u.post(
      '/api/admin/user-admin',
      { name: 'dave', email: 'dave@example.com', rootRole: 2, sendEmail: false },
      A,
    )
  ).json as { id: number };
  await u.put(
    `/api/admin/user-admin/${dave.id}`,
    { name: 'Dave D', email: 'dave@example.com', rootRole: 3 },
    A,
  );
  await u.del(`/api/admin/user-admin/${dave.id}`, A);
  const [, alice, bob, carol, erin] = users;
  // erin's root role changes (Editor -> Viewer)
  await u.put(`/api/admin/user-admin/${erin.id}`, { name: 'erin', email: erin.email, rootRole: 3 }, A);
  log(`users: ${users.map((x) => `${x.name}#${x.id}`).join(', ')}`);

  // context field, tag types, segment
  await u.post('/api/admin/context', { name: 'region', legalValues: [{ value: 'eu' }, { value: 'us' }] }, A);
  await u.post('/api/admin/tag-types', { name: 'team', description: 'owning team' }, A);
  const segment = (
    await u.post(
      '/api/admin/segments',
      { name: 'beta-users', constraints: [{ contextName: 'userId', operator: 'IN', values: ['7', '8'] }] },
      A,
    )
  ).json as { id: number };

  // projects (harness: Unleash's own service methods), with members
  await H('/projects', { id: 'payments', name: 'Payments', description: 'money in, money out' });
  await H('/projects', { id: 'mobile', name: 'Mobile', environments: ['production'] });
  await H('/projects', { id: 'legacy', name: 'Legacy' });
  await H('/projects', { id: 'temp', name: 'Temp' });
  await H('/projects/payments/update', {
    name: 'Payments',
    description: 'payments, renamed',
    defaultStickiness: 'userId',
    featureLimit: 50,
  });
  await H('/projects/payments/access', { roles: [5], users: [alice.id, bob.id] }); // Member
  await H(`/projects/payments/users/${bob.id}/roles`, { roles: [4] }); // bob becomes Owner
  await H('/projects/mobile/access', { roles: [5], users: [alice.id, carol.id] });
  await H(`/projects/mobile/users/${carol.id}/remove`);
  await u.post('/api/admin/projects/mobile/environments', { environment: 'development' }, A);
  await u.post(
    '/api/admin/projects/mobile/environments/production/default-strategy',
    {
      name: 'flexibleRollout',
      constraints: [],
      parameters: { rollout: '100', stickiness: 'default', groupId: '' },
    },
    A,
  );
  await u.post('/api/admin/projects/payments/favorites', {}, A);
  await u.post('/api/admin/projects/mobile/favorites', {}, A);
  await u.del('/api/admin/projects/mobile/favorites', A);

  // flags of every type, with strategies (constraints, a segment, variants), tags, variants
  const flags: { project: string; name: string; type: string }[] = [
    { project: 'default', name: 'checkout.new-flow', type: 'release' },
    { project: 'default', name: 'experiment.pricing', type: 'experiment' },
    { project: 'default', name: 'ops.cache-ttl', type: 'operational' },
    { project: 'default', name: 'kill.payments-provider', type: 'kill-switch' },
    { project: 'default', name: 'perm.beta-access', type: 'permission' },
    { project: 'default', name: 'to-move', type: 'release' },
    { project: 'payments', name: 'payments.sepa', type: 'release' },
    { project: 'payments', name: 'payments.retry', type: 'operational' },
    { project: 'payments', name: 'payments.old-gateway', type: 'kill-switch' },
    { project: 'mobile', name: 'mobile.dark-mode', type: 'experiment' },
    { project: 'mobile', name: 'mobile.onboarding', type: 'release' },
    { project: 'legacy', name: 'legacy.flag', type: 'release' },
    { project: 'temp', name: 'temp.flag', type: 'release' },
  ];
  for (const f of flags) {
    await u.post(
      `/api/admin/projects/${f.project}/features`,
      {
        name: f.name,
        type: f.type,
        description: `the ${f.name} flag`,
        impressionData: f.type === 'experiment',
      },
      A,
    );
  }
  const envOf = (p: string) => (p === 'mobile' ? 'production' : 'development');
  for (const f of flags.filter((x) => x.project !== 'temp')) {
    const env = envOf(f.project);
    const s = (
      await u.post(
        `/api/admin/projects/${f.project}/features/${f.name}/environments/${env}/strategies`,
        strategy(f.name, {
          segments: f.type === 'experiment' ? [segment.id] : [],
          variants:
            f.type === 'experiment'
              ? [
                  {
                    name: 'A',
                    weight: 500,
                    weightType: 'variable',
                    stickiness: 'default',
                    payload: { type: 'string', value: 'a' },
                  },
                  { name: 'B', weight: 500, weightType: 'variable', stickiness: 'default' },
                ]
              : [],
        }),
        A,
      )
    ).json as { id: string };
    if (f.type === 'release')
      await u.put(
        `/api/admin/projects/${f.project}/features/${f.name}/environments/${env}/strategies/${s.id}`,
        strategy(f.name, { parameters: { rollout: '75', stickiness: 'default', groupId: f.name } }),
        A,
      );
    await u.post(`/api/admin/projects/${f.project}/features/${f.name}/environments/${env}/on`, {}, A);
  }
  // production enables (time to production), env variants, tags
  await u.post('/api/admin/projects/default/features/checkout.new-flow/environments/production/on', {}, A);
  await u.post('/api/admin/projects/payments/features/payments.sepa/environments/production/on', {}, A);
  await u.put(
    '/api/admin/projects/default/features/experiment.pricing/environments/development/variants',
    [
      { name: 'blue', weight: 500, weightType: 'variable', stickiness: 'default' },
      {
        name: 'green',
        weight: 500,
        weightType: 'variable',
        stickiness: 'default',
        overrides: [{ contextName: 'userId', values: ['1'] }],
      },
    ],
    A,
  );
  await u.post('/api/admin/features/checkout.new-flow/tags', { type: 'simple', value: 'checkout' }, A);
  await u.post('/api/admin/features/checkout.new-flow/tags', { type: 'team', value: 'web-team' }, A);
  await u.post('/api/admin/features/payments.sepa/tags', { type: 'team', value: 'payments' }, A);
  await u.del('/api/admin/features/checkout.new-flow/tags/simple/checkout', A);
  // metadata (type change), stale on/off, dependency, favourite, link (a 6.10 event type outside the contract)
  await u.put(
    '/api/admin/projects/default/features/ops.cache-ttl',
    { type: 'release', description: 'now a release' },
    A,
  );
  await u.post(
    '/api/admin/projects/default/stale',
    { features: ['perm.beta-access', 'ops.cache-ttl'], stale: true },
    A,
  );
  await u.post('/api/admin/projects/default/stale', { features: ['ops.cache-ttl'], stale: false }, A);
  await u.post(
    '/api/admin/projects/payments/features/payments.retry/dependencies',
    { feature: 'payments.sepa', enabled: true },
    A,
  );
  await u.post('/api/admin/projects/default/features/checkout.new-flow/favorites', {}, A);
  await u.post(
    '/api/admin/projects/default/features/checkout.new-flow/link',
    { url: 'https://example.com/docs', title: 'docs' },
    A,
  );
  // as other users: alice (Editor) changes a flag, carol (Admin) too
  await u.post(
    '/api/admin/projects/payments/features/payments.retry/environments/development/off',
    {},
    alice.pat,
  );
  await u.post(
    '/api/admin/projects/default/features/perm.beta-access/environments/development/off',
    {},
    carol.pat,
  );
  // move, archive, revive, delete (single and bulk)
  await H('/projects/default/features/to-move/move', { newProjectId: 'payments' });
  await u.del('/api/admin/projects/payments/features/payments.old-gateway', A);
  await u.post('/api/admin/projects/default/archive', { features: ['kill.payments-provider'] }, A);
  await u.post('/api/admin/projects/default/revive', { features: ['kill.payments-provider'] }, A);
  await u.del('/api/admin/projects/temp/features/temp.flag', A);
  await H('/lifecycle/temp.flag/archived');
  await u.post('/api/admin/projects/temp/delete', { features: ['temp.flag'] }, A);
  await H('/projects/temp/delete');
  // a flag with more than 100 events (the reference lists the newest 100)
  for (let i = 0; i < 55; i++) {
    await u.post(
      '/api/admin/projects/default/features/checkout.new-flow/environments/development/off',
      {},
      A,
    );
    await u.post('/api/admin/projects/default/features/checkout.new-flow/environments/development/on', {}, A);
  }
  // SDK: registration and metrics with client tokens (one for default/development, one for mobile)
  const devToken = (
    await u.post(
      '/api/admin/api-tokens',
      { tokenName: 'web-dev', type: 'client', environment: 'development', projects: ['default'] },
      A,
    )
  ).json as { secret: string };
  const mobileToken = (
    await u.post(
      '/api/admin/api-tokens',
      { tokenName: 'mobile-dev', type: 'client', environment: 'development', projects: ['mobile'] },
      A,
    )
  ).json as { secret: string };
  const started = new Date().toISOString();
  await u.post(
    '/api/client/register',
    {
      appName: 'checkout-web',
      instanceId: 'web-1',
      sdkVersion: 'unleash-client-node:6.1.0',
      strategies: ['default', 'flexibleRollout'],
      started,
      interval: 10000,
    },
    devToken.secret,
  );
  await u.post(
    '/api/client/register',
    {
      appName: 'mobile-app',
      instanceId: 'ios-1',
      sdkVersion: 'unleash-client-swift:2.0.0',
      strategies: ['default'],
      started,
      interval: 15000,
    },
    mobileToken.secret,
  );
  await u.post(
    '/api/client/metrics',
    {
      appName: 'checkout-web',
      instanceId: 'web-1',
      environment: 'development',
      bucket: {
        start: new Date(Date.now() - 60_000).toISOString(),
        stop: new Date().toISOString(),
        toggles: {
          'checkout.new-flow': { yes: 40, no: 10, variants: {} },
          'ops.cache-ttl': { yes: 7, no: 0 },
        },
      },
    },
    devToken.secret,
  );
  // projects: legacy is archived (its overview is frozen there, so the jobs run first), then the jobs
  await u.del('/api/admin/projects/legacy/features/legacy.flag', A);
  await H('/jobs');
  await H('/projects/legacy/archive');
  await H('/flush');
  await H('/jobs');
  log(`scenario driven: ${flags.length} flags, 5 projects (1 deleted), ${users.length} users`);
  return {
    users,
    projects: ['default', 'payments', 'mobile', 'legacy', 'temp'],
    flags: flags.map((f) => f.name),
    toggleFlag: { project: 'default', name: 'ops.cache-ttl' },
  };
}
