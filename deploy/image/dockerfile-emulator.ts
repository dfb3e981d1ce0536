/**
 * Builds the image's file tree without a Docker engine, by interpreting the Dockerfile: every stage gets a
 * folder standing for its `/`, and its instructions run in order (WORKDIR, ENV, COPY [--from], RUN in the
 * stage's working folder). RUN lines that install OS packages (apt-get) are the base image's business: they
 * are skipped, and the binaries they install must exist on this machine (checked). Whatever else the
 * Dockerfile holds must be in this subset, or the build fails here, so the test keeps following it.
 */
import { execFileSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { basename, isAbsolute, join, relative } from 'node:path';
import { DockerfileParser, type Instruction } from 'dockerfile-ast';

export interface ImageConfig {
  /** The last stage's root folder (stands for the container's `/`). */
  root: string;
  workdir: string;
  env: Record<string, string>;
  user: string;
  entrypoint: string[];
  cmd: string[];
  healthcheck: string[];
  /** Binaries the skipped apt-get lines install (to be found on this machine). */
  osPackages: string[];
  /** The base image of the last stage (through the stages it is built on), e.g. `node:24-bookworm-slim`. */
  baseImage: string;
}

interface Stage {
  name: string;
  /** The base image this stage starts from (a stage's own, for one built on another stage). */
  base: string;
  root: string;
  workdir: string;
  env: Record<string, string>;
}

const json = (i: Instruction): string[] => JSON.parse(i.getArgumentsContent() ?? '[]') as string[];

/** `.dockerignore` as a filter of paths relative to the context (top-level names and `*.ext` patterns). */
function dockerignore(context: string): (rel: string) => boolean {
  const file = join(context, '.dockerignore');
  const patterns = existsSync(file)
    ? readFileSync(file, 'utf8')
        .split('\n')
        .map((l) => l.trim())
        .filter((l) => l && !l.startsWith('#'))
    : [];
  const regexes = patterns.map(
    (p) => new RegExp(`^${p.replace(/[.+^${}()|[\]\\]/g, '\\$&').replace(/\*/g, '[^/]*')}(/|$)`),
  );
  return (rel) => regexes.some((r) => r.test(rel) || r.test(basename(rel)));
}

export function buildImageTree(
  context: string,
  dockerfile: string,
  out: string,
  log: (m: string) => void,
  /** false: only read the configuration (the tree of a previous build is kept) */
  execute = true,
): ImageConfig {
  const parsed = DockerfileParser.parse(readFileSync(dockerfile, 'utf8'));
  const ignored = dockerignore(context);
  if (execute) rmSync(out, { recursive: true, force: true });
  const stages = new Map<string, Stage>();
  let stage: Stage | undefined;
  const image = {
    user: 'root',
    entrypoint: [] as string[],
    cmd: [] as string[],
    healthcheck: [] as string[],
  };
  const osPackages: string[] = [];
  const inStage = (s: Stage, path: string) => join(s.root, isAbsolute(path) ? path : join(s.workdir, path));

  for (const i of parsed.getInstructions()) {
    const keyword = i.getKeyword();
    const args = i.getArguments().map((a) => a.getValue());
    if (keyword === 'FROM') {
      const name = args[2] ?? `stage${stages.size}`;
      const base = stages.get(args[0]);
      stage = {
        name,
        base: base?.base ?? args[0],
        root: join(out, name),
        workdir: base?.workdir ?? '/',
        env: { ...base?.env },
      };
      stages.set(name, stage);
      if (!execute) continue;
      if (base) {
        // a stage built on an earlier one starts from its files (hard links: instant, and a RUN that
        // deletes files, as npm prune does, unlinks them in this stage only)
        execFileSync('cp', ['-al', base.root, stage.root]);
      } else {
        mkdirSync(stage.root, { recursive: true });
      }
      log(`FROM ${args[0]} AS ${name} -> ${relative(context, stage.root)}`);
      continue;
    }
    if (!stage) throw new Error(`${keyword} before FROM`);
    const s = stage;
    if (!execute && ['WORKDIR', 'COPY', 'RUN'].includes(keyword)) {
      if (keyword === 'WORKDIR') s.workdir = isAbsolute(args[0]) ? args[0] : join(s.workdir, args[0]);
      continue;
    }
    switch (keyword) {
      case 'WORKDIR':
        s.workdir = isAbsolute(args[0]) ? args[0] : join(s.workdir, args[0]);
        mkdirSync(join(s.root, s.workdir), { recursive: true });
        break;
      case 'ENV':
        for (const p of (
          i as unknown as { getProperties(): { getName(): string; getValue(): string | null }[] }
        ).getProperties())
          s.env[p.getName()] = p.getValue() ?? '';
        break;
      case 'COPY': {
        const from =
          (i as unknown as { getFromFlag(): { getValue(): string | null } | null })
            .getFromFlag()
            ?.getValue() ?? args.find((a) => a.startsWith('--from='))?.slice('--from='.length);
        const paths = args.filter((a) => !a.startsWith('--'));
        const dest = paths.pop()!;
        const source = from ? stages.get(from) : undefined;
        if (from && !source) throw new Error(`COPY --from=${from}: no such stage`);
        const target = inStage(s, dest);
        for (const p of paths) {
          if (!source && ignored(p)) throw new Error(`COPY ${p}: excluded by .dockerignore`);
          const src = source ? join(source.root, p) : join(context, p);
          const into = dest.endsWith('/') || paths.length > 1 ? join(target, basename(p)) : target;
          const isDir = statSync(src).isDirectory();
          // a directory's contents are copied (not the directory itself), as Docker does
          cpSync(src, isDir ? target : into, {
            recursive: true,
            filter: (f) => source !== undefined || !ignored(relative(context, f)),
          });
        }
        log(`COPY ${from ? `--from=${from} ` : ''}${paths.join(' ')} ${dest}`);
        break;
      }
      case 'RUN': {
        const command = (i.getArgumentsContent() ?? '').replace(/\\\n/g, ' ');
        if (/\bapt-get\b/.test(command)) {
          const pkgs =
            command
              .match(/install\s+(?:-\S+\s+)*([^&;]+)/)?.[1]
              .trim()
              .split(/\s+/) ?? [];
          osPackages.push(...pkgs);
          log(`RUN (OS packages, the base image's: ${pkgs.join(' ')}; taken from this machine)`);
          break;
        }
        log(`RUN ${command}`);
        execFileSync('sh', ['-c', command], {
          cwd: join(s.root, s.workdir),
          env: { ...process.env, ...s.env },
          stdio: ['ignore', 'ignore', 'inherit'],
        });
        break;
      }
      case 'USER':
        image.user = args[0];
        break;
      case 'ENTRYPOINT':
        image.entrypoint = json(i);
        break;
      case 'CMD':
        image.cmd = json(i);
        break;
      case 'HEALTHCHECK': {
        const cmd = /\bCMD\s+(\[.*\])\s*$/s.exec(i.getArgumentsContent() ?? '');
        if (!cmd) throw new Error('HEALTHCHECK: expected CMD ["..."] (exec form)');
        image.healthcheck = JSON.parse(cmd[1]) as string[];
        break;
      }
      case 'EXPOSE':
      case 'LABEL':
        break;
      default:
        throw new Error(
          `Dockerfile instruction ${keyword} is not emulated (deploy/image/dockerfile-emulator.ts)`,
        );
    }
  }
  if (!stage) throw new Error('no FROM in the Dockerfile');
  return {
    root: stage.root,
    workdir: stage.workdir,
    env: stage.env,
    ...image,
    osPackages,
    baseImage: stage.base,
  };
}
