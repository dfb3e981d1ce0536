/* eslint-disable */
// Starts a real Unleash (6.10.1, 7.6.5 or 8.2.0, installed by `npm run conformance` into .cache/unleash-<version>)
// on loopback, for the conformance run only, on the Node that release needs. Env: UNLEASH_PEER_DIR (the
// install), UNLEASH_PEER_DB (database name on the machine's Postgres), UNLEASH_PEER_PG (postgres://user@host:port),
// UNLEASH_PEER_PORT. Prints `READY <port>`. 6.x is CommonJS (required); 7.0 and later are ES modules (imported).
//
// The open-source build registers no routes for project CRUD, project access or moving a flag (Enterprise),
// but its services have them. The harness router below exposes those service methods under
// /api/admin/harness/*, behind Unleash's own authentication and an ADMIN check, passing req.user and
// req.audit, so every event they cause is written by Unleash's own code. It also runs the scheduled jobs the
// overview depends on (health, stats) and the SDK buffers' flushes on demand instead of waiting minutes.
process.env.CHECK_VERSION = 'false';
process.env.SEND_TELEMETRY = 'false';
process.env.LOG_LEVEL = process.env.LOG_LEVEL || 'error';
process.env.UNLEASH_DEFAULT_ADMIN_USERNAME = 'admin';
process.env.UNLEASH_DEFAULT_ADMIN_PASSWORD = process.env.UNLEASH_PEER_ADMIN_PASSWORD || 'conformance-4dmin!';
process.env.UNLEASH_EXPERIMENTAL_ENABLE_LEGACY_VARIANTS = 'true';
// The scenarios log several users in within a minute; Unleash's default of 10 logins a minute answers the rest
// with 429 when a fast machine runs them close together. The limit is not under comparison.
process.env.SIMPLE_LOGIN_LIMIT_PER_MINUTE = process.env.SIMPLE_LOGIN_LIMIT_PER_MINUTE || '1000';

const path = require('node:path');
const { pathToFileURL } = require('node:url');
const dir = process.env.UNLEASH_PEER_DIR;
const resolve = (m) => require.resolve(m, { paths: [path.join(dir, 'node_modules')] });
const req = (m) => require(resolve(m));
const pkg = require(path.join(dir, 'node_modules', 'unleash-server', 'package.json'));
const entry = typeof pkg.exports === 'string' ? pkg.exports : (pkg.exports && pkg.exports['.']) || pkg.main;
const loadUnleash = () =>
  pkg.type === 'module'
    ? import(pathToFileURL(path.join(dir, 'node_modules', 'unleash-server', entry)).href)
    : Promise.resolve(req('unleash-server'));
const express = req('express');

const pg = new URL(process.env.UNLEASH_PEER_PG || 'postgres://postgres@127.0.0.1:5432');

// Unleash's daily stats job (statusJob) lists the projects at its first run (2-30 s after start), then writes one
// project's stats every 30 s, unawaited. A project deleted in between (the scenario deletes `temp`) makes that write
// fail on its foreign key, and 7.6.5 and 8.2.0 then exit (code 1) whenever the job's timing meets the scenario's. The
// harness drops that one write (there is no row left for it); any other failure is thrown as before.
function keepStatsJobAlive(services) {
  const store = services.projectService && services.projectService.projectStatsStore;
  if (!store) return;
  const proto = Object.getPrototypeOf(store);
  const update = proto.updateProjectStats;
  if (typeof update !== 'function' || update.harnessed) return;
  proto.updateProjectStats = async function (projectId, status) {
    try {
      return await update.call(this, projectId, status);
    } catch (e) {
      if (e && e.code === '23503') return; // foreign_key_violation: the project is gone
      throw e;
    }
  };
  proto.updateProjectStats.harnessed = true;
}

function harness(app, config, services, stores) {
  keepStatsJobAlive(services);
  const r = express.Router();
  r.use(express.json());
  const admin = (fn) => async (q, s) => {
    try {
      if (!(await q.checkRbac('ADMIN'))) return s.status(403).json({ message: 'ADMIN needed' });
      const out = await fn(q);
      s.status(200).json(out === undefined ? {} : out);
    } catch (e) {
      s.status(e.statusCode || 400).json({ name: e.name, message: e.message });
    }
  };
  const p = services.projectService;
  r.post(
    '/projects',
    admin((q) => p.createProject(q.body, q.user, q.audit)),
  );
  r.post(
    '/projects/:id/update',
    admin((q) => p.updateProject({ ...q.body, id: q.params.id }, q.audit)),
  );
  r.post(
    '/projects/:id/settings',
    admin((q) => p.updateProjectEnterpriseSettings({ ...q.body, id: q.params.id }, q.audit)),
  );
  r.post(
    '/projects/:id/archive',
    admin((q) => p.archiveProject(q.params.id, q.audit)),
  );
  r.post(
    '/projects/:id/revive',
    admin((q) => p.reviveProject(q.params.id, q.audit)),
  );
  r.post(
    '/projects/:id/delete',
    admin((q) => p.deleteProject(q.params.id, q.user, q.audit)),
  );
  r.post(
    '/projects/:id/access',
    admin((q) => p.addAccess(q.params.id, q.body.roles, q.body.groups || [], q.body.users || [], q.audit)),
  );
  r.post(
    '/projects/:id/users/:userId/roles',
    admin((q) => p.setRolesForUser(q.params.id, Number(q.params.userId), q.body.roles, q.audit)),
  );
  r.post(
    '/projects/:id/users/:userId/remove',
    admin((q) => p.removeUserAccess(q.params.id, Number(q.params.userId), q.audit)),
  );
  r.post(
    '/projects/:id/features/:feature/move',
    admin((q) => p.changeProject(q.body.newProjectId, q.params.feature, q.user, q.params.id, q.audit)),
  );
  r.post(
    '/jobs',
    admin(async () => {
      await services.clientInstanceService.bulkAdd();
      // the applications first seen since the last run get their application-created events now, not when
      // Unleash's own timer fires (every 5 minutes, the first a few seconds after start)
      await services.clientInstanceService.announceUnannounced();
      await services.clientMetricsServiceV2.bulkAdd();
      await services.lastSeenService.store();
      const projects = await stores.projectStore.getAll();
      for (const project of projects) {
        await services.projectHealthService.setProjectHealthRating(project.id);
        const status = await p.getStatusUpdates(project.id);
        await stores.projectStatsStore.updateProjectStats(status.projectId, status.updates);
      }
      return { projects: projects.map((x) => x.id) };
    }),
  );
  // Unleash files a flag's lifecycle stages in listeners of its event announcer (about once a second), unawaited.
  // A flag deleted before its `archived` (or `initial`) stage is filed makes that insert fail on its foreign key,
  // and the process exits (6.10.1 to 8.2.0). An admin would not delete a flag within a second of archiving it; the
  // scenario does, so it waits here until the stage is filed before it deletes.
  r.post(
    '/lifecycle/:feature/:stage',
    admin(async (q) => {
      const store = stores.featureLifecycleStore;
      if (!store) return { filed: false };
      const deadline = Date.now() + 30_000;
      while (Date.now() < deadline) {
        const stages = await store.get(q.params.feature);
        if (stages.some((x) => x.stage === q.params.stage)) return { filed: true };
        await new Promise((done) => setTimeout(done, 100));
      }
      const e = new Error(`lifecycle stage ${q.params.stage} of ${q.params.feature} not filed within 30 s`);
      e.statusCode = 504;
      throw e;
    }),
  );
  r.post(
    '/flush',
    admin(async () => {
      await services.clientInstanceService.bulkAdd();
      await services.clientMetricsServiceV2.bulkAdd();
      await services.lastSeenService.store();
    }),
  );
  app.use(`${config.server.baseUriPath}/api/admin/harness`, r);
}

loadUnleash()
  .then((unleash) =>
    unleash.start({
      db: {
        host: pg.hostname,
        port: Number(pg.port || 5432),
        user: decodeURIComponent(pg.username || 'postgres'),
        password: decodeURIComponent(pg.password || ''),
        database: process.env.UNLEASH_PEER_DB,
        ssl: false,
      },
      server: { host: '127.0.0.1', port: Number(process.env.UNLEASH_PEER_PORT), enableRequestLogger: false },
      authentication: { type: 'open-source', enableApiToken: true, createAdminUser: true },
      versionCheck: { enable: false },
      ui: { environment: 'pro' },
      // feature links (6.10's feature-link-* events, outside the contract's types) are behind this flag
      experimental: { flags: { featureLinks: true } },
      preRouterHook: harness,
    }),
  )
  .then((instance) => {
    process.stdout.write(`READY ${process.env.UNLEASH_PEER_PORT}\n`);
    const stop = () =>
      instance.stop().then(
        () => process.exit(0),
        () => process.exit(1),
      );
    process.once('SIGTERM', stop);
    process.once('SIGINT', stop);
  })
  .catch((e) => {
    process.stderr.write(`unleash failed to start: ${e && e.message}\n`);
    process.exit(1);
  });
