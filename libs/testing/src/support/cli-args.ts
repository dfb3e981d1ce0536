/** The command-line flags of a script run with ts-node (the bench, the chaos run). */
export function cliArgs(argv: string[] = process.argv.slice(2)) {
  return {
    has: (flag: string): boolean => argv.includes(flag),
    /** The word after `flag`, if given. */
    value: (flag: string): string | undefined => {
      const i = argv.indexOf(flag);
      return i >= 0 ? argv[i + 1] : undefined;
    },
  };
}
