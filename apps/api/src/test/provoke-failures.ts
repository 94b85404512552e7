/**
 * Preloaded (`--import`) into an API process under test to stand in for a bug that user input reaches:
 * SIGUSR2 leaves a promise rejection unhandled, SIGHUP throws outside any request.
 */
process.on('SIGUSR2', () => {
  void Promise.reject(new Error('provoked rejection'));
});
process.on('SIGHUP', () => {
  setImmediate(() => {
    throw new Error('provoked exception');
  });
});
