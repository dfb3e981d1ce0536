// Preloaded by `BENCH_CPU_PROFILE` (libs/testing/src/support/processes.ts): Nest re-raises SIGTERM after closing, and a
// process killed by a signal writes no --cpu-prof profile; exiting normally on SIGTERM lets V8 write it.
process.on('SIGTERM', () => process.exit(0));
