/** Constants the runner and the servers agree on. */
export const BENCH_NAME = "bench";
export const BENCH_PASSWORD = "bench-password";
/** 32+ characters: the secret every configuration signs or seals with. */
export const SECRET = "bench-secret-bench-secret-bench-secret-0123456789";
