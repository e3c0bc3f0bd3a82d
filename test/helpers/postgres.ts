/** the private PostgreSQL of the tests is the benchmarks' (bench/lib/postgres.ts) */
export { postgresBinDir, postgresSkipReason, startPostgres } from '../../bench/lib/postgres';
export type { PrivatePostgres, PrivatePostgresOptions } from '../../bench/lib/postgres';
