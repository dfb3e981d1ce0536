import { costBreakdown, partOf, type CpuProfile } from './profile-breakdown';

const frame = (functionName: string, url: string) => ({ functionName, url });

describe('costBreakdown', () => {
  // root → fastify handler → the project's auth → node:crypto hash; root → (garbage collector); root → (idle)
  const profile: CpuProfile = {
    nodes: [
      { id: 1, callFrame: frame('(root)', ''), children: [2, 5, 6] },
      { id: 2, callFrame: frame('handle', '/w/node_modules/fastify/lib/route.js'), children: [3] },
      {
        id: 3,
        callFrame: frame('authenticate', 'file:///w/dist/apps/api/src/auth/token-auth.js'),
        children: [4],
      },
      { id: 4, callFrame: frame('hash', 'node:internal/crypto/hash') },
      { id: 5, callFrame: frame('(garbage collector)', '') },
      { id: 6, callFrame: frame('(idle)', '') },
    ],
    startTime: 1_000,
    endTime: 2_000,
    samples: [4, 4, 2, 5, 6, 4],
    timeDeltas: [100, 100, 100, 100, 100, 100],
  };

  it('charges each sample to the innermost own frame, else to its library or V8, per request', () => {
    // the window holds the samples at 1,100 … 1,500 (the last, at 1,600, is outside)
    expect(costBreakdown(profile, 1_050, 1_550, 10)).toEqual([
      {
        part: 'apps/api/src/auth/token-auth.js',
        usPerRequest: 20,
        share: 0.5,
        within: [{ part: 'node:crypto/hash', usPerRequest: 20 }],
      },
      { part: 'fastify', usPerRequest: 10, share: 0.25 },
      { part: '(garbage collector)', usPerRequest: 10, share: 0.25 },
    ]);
  });

  it('names packages, scoped packages and Node modules', () => {
    expect(partOf('/w/node_modules/@nestjs/core/router.js', 'x')).toEqual({
      part: '@nestjs/core',
      own: false,
    });
    expect(partOf('node:internal/streams/writable', 'x')).toEqual({
      part: 'node:streams/writable',
      own: false,
    });
    expect(partOf('node:net', 'x')).toEqual({ part: 'node:net', own: false });
    expect(partOf('', 'writev')).toEqual({ part: '(native)', own: false });
  });
});
