import { spawn } from 'node:child_process';
import { autogroupNice, parsePriority, setAutogroupNice } from './priority';

describe('the api priority of the bench', () => {
  it('takes a whole nice value from -20 to 19', () => {
    expect(parsePriority('--api-priority', undefined)).toBeUndefined();
    expect(parsePriority('--api-priority', '-10')).toBe(-10);
    expect(parsePriority('--api-priority', '19')).toBe(19);
    for (const bad of ['', 'x', '1.5', '-21', '20', '--miss-only'])
      expect(() => parsePriority('--api-priority', bad)).toThrow(/--api-priority takes a nice value/);
  });

  it("sets the autogroup of a process in a session of its own, not its parent's", async () => {
    const child = spawn('sleep', ['30'], { detached: true, stdio: 'ignore' });
    try {
      await new Promise((r) => child.once('spawn', r));
      const mine = autogroupNice(process.pid);
      setAutogroupNice(child.pid!, 7); // a positive value needs no privilege
      expect(autogroupNice(child.pid!)).toBe(7);
      expect(autogroupNice(process.pid)).toBe(mine);
    } finally {
      child.kill('SIGKILL');
    }
  });

  it('says why when the process is gone', () => {
    expect(() => setAutogroupNice(2 ** 22 + 1, 5)).toThrow(/could not set the autogroup nice/);
  });
});
