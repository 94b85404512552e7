/**
 * Node flags the API process is started with (`npm start`, the test and cluster helpers, the bench, and the
 * systemd unit in docs/deployment.md). Read by launchers only: V8 takes its heap's shape at start.
 *
 * `--max-semi-space-size=64`: V8's young generation may grow to 64 MiB per half instead of 16. Under a
 * steady poll (64 connections on `GET /v1/user/servers`) an API on PostgreSQL fell, in three starts of
 * four, into a state where each young collection kept ≈ 3 MB of finished requests (their headers, request
 * and answer objects) alive and moved them to the old generation: collections took 4–6 ms every 30 ms, 13 %
 * of the process's time, with a full collection every second, and it answered 90–123k requests in 5 s
 * instead of 128–177k. With room for 64 MiB no request object outlives its collection (nine starts of nine;
 * peak resident size 259–331 MB against 329–379 MB). docs/performance.md has the figures.
 */
export const API_NODE_FLAGS: readonly string[] = ['--max-semi-space-size=64'];
