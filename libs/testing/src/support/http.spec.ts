import { mkdtempSync, readFileSync, readdirSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort, PORT_RANGE } from './http';

describe('freePort', () => {
  let dir: string;
  beforeEach(() => (dir = mkdtempSync(join(tmpdir(), 'port-claims-'))));
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('never hands out a port twice, claims each for this process, all below the ephemeral range', async () => {
    const ports = [];
    for (let i = 0; i < 200; i++) ports.push(await freePort(dir));
    expect(new Set(ports).size).toBe(200);
    for (const p of ports) expect(p >= PORT_RANGE.from && p < PORT_RANGE.to).toBe(true);
    // every port handed out is claimed by this process; a claim besides them is of a port that a server of
    // another process (the other lane's) held when tried: left claimed on purpose, by this process too
    const claimed = readdirSync(dir).map(Number);
    expect(claimed).toEqual(expect.arrayContaining(ports));
    for (const p of claimed) expect(readFileSync(join(dir, String(p)), 'utf8')).toBe(String(process.pid));
  });

  it("skips a port another live process claimed, takes over a dead process's or a stale claim", async () => {
    // every port of the range claimed by a live process (this one's parent) but two: one of a dead process,
    // one whose claim is older than any test lasts
    const live = String(process.ppid);
    for (let p = PORT_RANGE.from; p < PORT_RANGE.to; p++) writeFileSync(join(dir, String(p)), live);
    const dead = PORT_RANGE.from + 7;
    const stale = PORT_RANGE.from + 11;
    writeFileSync(join(dir, String(dead)), '2147483646'); // no such process
    const old = (Date.now() - 4 * 60 * 60 * 1000) / 1000;
    utimesSync(join(dir, String(stale)), old, old);
    const got = [await freePort(dir), await freePort(dir)];
    expect(got.sort()).toEqual([dead, stale]);
    for (const p of got) expect(readFileSync(join(dir, String(p)), 'utf8')).toBe(String(process.pid));
    await expect(freePort(dir)).rejects.toThrow('no free port in 20000-32000');
  });

  it('skips a port a server of someone else listens on', async () => {
    const srv = createServer();
    const taken = PORT_RANGE.from + 3;
    await new Promise<void>((r) => srv.listen(taken, '127.0.0.1', r));
    try {
      for (let p = PORT_RANGE.from; p < PORT_RANGE.to; p++)
        if (p !== taken && p !== taken + 1) writeFileSync(join(dir, String(p)), String(process.ppid));
      expect(await freePort(dir)).toBe(taken + 1);
    } finally {
      srv.close();
    }
  });
});
